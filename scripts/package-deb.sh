#!/usr/bin/env bash
# Builds corpussync_<version>_amd64.deb with dpkg-deb alone (docs/operations.md "Installing"):
#   scripts/package-deb.sh BIN_DIR OUT_DIR [--swift-runtime-from-toolchain]
# BIN_DIR holds corpus and corpusd; `make deb` passes the release build, whose Swift runtime is
# linked statically (--static-swift-stdlib, scripts/release-build.sh), so the package needs only
# Debian's libraries. The scratch-root test passes the debug build with
# --swift-runtime-from-toolchain: its binaries load the Swift runtime from /opt/swift, which no
# Debian package provides, so that package only runs where the toolchain is.
#
# The version is what the binaries print (`corpus --version`: ProductVersion.current). Depends is
# computed as dpkg-shlibdeps would, from the libraries the binaries load: their NEEDED entries, plus the two
# opened with dlopen (libcurl.so.4 for HTTP, libopenblas.so.0 for models), each mapped to its
# package with `dpkg -S`, its dependency taken from the package's shlibs file when it has one,
# else as (>= the upstream version installed here), the version the binaries were built against.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:?usage: scripts/package-deb.sh BIN_DIR OUT_DIR [--swift-runtime-from-toolchain]}
out=${2:?usage: scripts/package-deb.sh BIN_DIR OUT_DIR [--swift-runtime-from-toolchain]}
toolchain_runtime=${3:-}
bin=$(cd "$bin" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

version=$("$bin/corpus" --version | awk '{print $2}')
[ "$("$bin/corpusd" --version)" = "corpusd $version" ] || { echo "package-deb: corpus and corpusd disagree on the version" >&2; exit 1; }
arch=$(dpkg --print-architecture)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/root

DESTDIR=$root PREFIX=/usr SYSCONFDIR=/etc scripts/install-tree.sh "$bin"
# Policy §10.1: binaries are shipped stripped.
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/corpus" "$root/usr/bin/corpusd"
doc=$root/usr/share/doc/corpussync
# Debian keeps compressed documentation; the packaging's own files.
gzip -9n "$doc"/docs/*.md "$doc/deploy/README.md"
install -m 644 deploy/debian/copyright "$doc/copyright"
date_rfc2822=$(LC_ALL=C date -u -d "$(sed -n 's/.*releaseDate = "\(.*\)".*/\1/p' Sources/CorpusCLIKit/CommandLineProgram.swift)" -R)
printf 'corpussync (%s) unstable; urgency=medium\n\n  * Release %s; what changed is in docs/release-notes.md.gz.\n\n -- CorpusSync maintainers <corpussync@example.org>  %s\n' \
  "$version" "$version" "$date_rfc2822" | gzip -9n > "$doc/changelog.gz"

# Depends, from the libraries the binaries load.
# As dpkg-shlibdeps: the binaries' own NEEDED entries (not what those libraries load in turn: their
# packages depend on that), each found where ldd resolves it.
# Each listing is read whole before it is searched: an awk that exits at its first match closes the
# pipe while ldconfig may still be writing, ldconfig dies of SIGPIPE, and under pipefail that
# silently dropped a dependency on a loaded machine.
libraries() {
  local cache resolved soname
  cache=$(ldconfig -p)
  for b in "$bin/corpus" "$bin/corpusd"; do
    resolved=$(ldd "$b")
    for soname in $(objdump -p "$b" | awk '$1 == "NEEDED" {print $2}'); do
      awk -v s="$soname" '$1 == s && $3 ~ /^\// {print $3; exit}' <<<"$resolved"
    done
  done
  for soname in libcurl.so.4 libopenblas.so.0; do
    awk -v s="$soname" '$1 == s && /x86-64/ {print $NF; exit}' <<<"$cache"
  done
}
# A command substitution, not a process substitution: a failure in libraries stops the script.
libs=$(libraries | sort -u)
declare -A deps=()
while read -r lib; do
  [ -n "$lib" ] || continue
  case "$lib" in
    /opt/swift/*)
      [ "$toolchain_runtime" = --swift-runtime-from-toolchain ] && continue
      echo "package-deb: $lib is the toolchain's; build with --static-swift-stdlib (make deb does)" >&2; exit 1 ;;
  esac
  real=$(readlink -f "$lib")
  pkg=""
  for candidate in "$lib" "$real" "${lib#/usr}" "${real#/usr}" "/usr$lib" "/usr$real"; do
    pkg=$(dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1) && [ -n "$pkg" ] && break
  done
  [ -n "$pkg" ] || { echo "package-deb: no Debian package holds $lib" >&2; exit 1; }
  soname=$(basename "$lib")
  # OpenBLAS is one soname from several builds (pthread, openmp, serial): the metapackage.
  case "$pkg" in libopenblas0-*) deps[libopenblas0]="libopenblas0"; continue ;; esac
  # A shlibs line is `NAME SOVERSION DEPENDENCY`: libz.so.1 is `libz 1`, libbz2.so.1.0 `libbz2 1.0`.
  name=${soname%%.so*}; major=${soname#*.so.}
  shlibs=$({ cat "/var/lib/dpkg/info/$pkg.shlibs" "/var/lib/dpkg/info/$pkg:$arch.shlibs" 2>/dev/null || true; } | awk -v n="$name" -v m="$major" '$1 == n && $2 == m {$1=""; $2=""; sub(/^  /, ""); print; exit}')
  if [ -n "$shlibs" ]; then
    deps[$pkg]=$shlibs
  else
    installed=$(dpkg-query -W -f='${Version}' "$pkg")
    upstream=${installed#*:}; upstream=${upstream%-*}
    deps[$pkg]="$pkg (>= $upstream)"
  fi
done <<<"$libs"
depends=$(printf '%s\n' "${deps[@]}" | sort -u | paste -sd, | sed 's/,/, /g')

install -d "$root/DEBIAN"
installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: corpussync
Version: $version
Architecture: $arch
Maintainer: CorpusSync maintainers <corpussync@example.org>
Installed-Size: $installed_size
Depends: $depends, systemd | systemd-standalone-sysusers | systemd-sysusers
Section: net
Priority: optional
Description: signed, searchable document corpora: client and server
 CorpusSync publishes collections of documents as signed corpus bundles with
 their search index, serves and mirrors them, and keeps a verified local copy
 in sync that searches every installed corpus at once.
 .
 This package holds the client (corpus), the publisher and server (corpusd),
 their man pages and bash, zsh and fish completions, and the systemd units
 corpusd-serve.service and corpusd-mirror.service/.timer (installed, not
 enabled; settings in /etc/corpusd).
CONTROL
(cd "$root" && find etc -type f | sed 's|^|/|' | sort) > "$root/DEBIAN/conffiles"
install -m 755 deploy/debian/postinst "$root/DEBIAN/postinst"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | sort | xargs md5sum) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 755 {} +

deb=$out/corpussync_${version}_${arch}.deb
# DEB_COMPRESSION/DEB_COMPRESSION_LEVEL: the tests' package trades size for time (gzip -1).
dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" ${DEB_COMPRESSION_LEVEL:+-z"$DEB_COMPRESSION_LEVEL"} --build "$root" "$deb" >/dev/null
echo "$deb"
