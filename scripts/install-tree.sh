#!/usr/bin/env bash
# Installs CorpusSync as GNU's conventions say (docs/operations.md "Installing"): what `make
# install` runs, and what `make deb` runs into its staging folder.
#   scripts/install-tree.sh BIN_DIR            (BIN_DIR holds the built corpus and corpusd)
# Environment: DESTDIR (staging root, default empty), PREFIX (default /usr/local), SYSCONFDIR
# (default /etc when PREFIX is /usr, else $PREFIX/etc). Everything else is generated here from the
# built binaries: the man pages (`--manpage`) and the completions (`--completion SHELL`), so they
# say what the binaries' own command tables say; the systemd units get their paths for PREFIX.
#   scripts/install-tree.sh --uninstall        removes what an install with the same variables put.
set -euo pipefail
cd "$(dirname "$0")/.."

PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
if [ -z "${SYSCONFDIR:-}" ]; then
  if [ "$PREFIX" = /usr ]; then SYSCONFDIR=/etc; else SYSCONFDIR=$PREFIX/etc; fi
fi
# Debian's zsh reads vendor completions from /usr/share/zsh/vendor-completions; every other
# prefix uses zsh's own site-functions (which Debian's zsh also reads under /usr/local).
if [ "$PREFIX" = /usr ]; then ZSHDIR=share/zsh/vendor-completions; else ZSHDIR=share/zsh/site-functions; fi

files=(
  bin/corpus bin/corpusd
  share/man/man1/corpus.1.gz share/man/man8/corpusd.8.gz
  share/bash-completion/completions/corpus share/bash-completion/completions/corpusd
  "$ZSHDIR/_corpus" "$ZSHDIR/_corpusd"
  share/fish/vendor_completions.d/corpus.fish share/fish/vendor_completions.d/corpusd.fish
  lib/systemd/system/corpusd-serve.service lib/systemd/system/corpusd-mirror.service lib/systemd/system/corpusd-mirror.timer
  lib/sysusers.d/corpusd.conf
)
docs=(README.md docs/*.md)
deploy=(deploy/README.md deploy/nginx.conf deploy/nginx-edge-cache.conf deploy/nginx-search.conf)
conffiles=(corpusd/serve.env corpusd/mirror.env)
doc=$PREFIX/share/doc/corpussync

# Paths inside the units and man pages, generated for this PREFIX and SYSCONFDIR.
paths() { sed -e "s|/usr/local/|$PREFIX/|g" -e "s|/etc/corpusd|$SYSCONFDIR/corpusd|g"; }

if [ "${1:-}" = --uninstall ]; then
  for f in "${files[@]}"; do rm -f "$DESTDIR$PREFIX/$f"; done
  rm -rf "$DESTDIR$doc"
  # The settings are the operator's: left in place when changed, as dpkg leaves conffiles.
  for f in "${conffiles[@]}"; do
    if paths < "deploy/systemd/$(basename "$f")" | cmp -s - "$DESTDIR$SYSCONFDIR/$f"; then rm -f "$DESTDIR$SYSCONFDIR/$f"; fi
  done
  rmdir "$DESTDIR$SYSCONFDIR/corpusd" 2>/dev/null || true
  exit 0
fi

bin=${1:?usage: scripts/install-tree.sh BIN_DIR | --uninstall}
[ -x "$bin/corpus" ] && [ -x "$bin/corpusd" ] || { echo "install-tree: no corpus and corpusd in $bin" >&2; exit 1; }

install -d "$DESTDIR$PREFIX/bin" "$DESTDIR$PREFIX/share/man/man1" "$DESTDIR$PREFIX/share/man/man8" \
  "$DESTDIR$PREFIX/share/bash-completion/completions" "$DESTDIR$PREFIX/$ZSHDIR" "$DESTDIR$PREFIX/share/fish/vendor_completions.d" \
  "$DESTDIR$PREFIX/lib/systemd/system" "$DESTDIR$PREFIX/lib/sysusers.d" "$DESTDIR$doc/deploy" "$DESTDIR$doc/docs" "$DESTDIR$SYSCONFDIR/corpusd"
install -m 755 "$bin/corpus" "$bin/corpusd" "$DESTDIR$PREFIX/bin/"
# Reproducible: gzip -n stores no name or time.
"$bin/corpus" --manpage | paths | gzip -9n > "$DESTDIR$PREFIX/share/man/man1/corpus.1.gz"
"$bin/corpusd" --manpage | paths | gzip -9n > "$DESTDIR$PREFIX/share/man/man8/corpusd.8.gz"
for p in corpus corpusd; do
  "$bin/$p" --completion bash > "$DESTDIR$PREFIX/share/bash-completion/completions/$p"
  "$bin/$p" --completion zsh > "$DESTDIR$PREFIX/$ZSHDIR/_$p"
  "$bin/$p" --completion fish > "$DESTDIR$PREFIX/share/fish/vendor_completions.d/$p.fish"
done
chmod 644 "$DESTDIR$PREFIX"/share/bash-completion/completions/* "$DESTDIR$PREFIX/$ZSHDIR"/_corpus* "$DESTDIR$PREFIX"/share/fish/vendor_completions.d/corpus*
for unit in corpusd-serve.service corpusd-mirror.service corpusd-mirror.timer; do
  paths < "deploy/systemd/$unit" > "$DESTDIR$PREFIX/lib/systemd/system/$unit"
  chmod 644 "$DESTDIR$PREFIX/lib/systemd/system/$unit"
done
install -m 644 deploy/systemd/corpusd.sysusers "$DESTDIR$PREFIX/lib/sysusers.d/corpusd.conf"
install -m 644 "${docs[@]}" "$DESTDIR$doc/docs/"
mv "$DESTDIR$doc/docs/README.md" "$DESTDIR$doc/README.md"
install -m 644 "${deploy[@]}" "$DESTDIR$doc/deploy/"
for f in "${conffiles[@]}"; do
  # An operator's edited settings are kept.
  [ -e "$DESTDIR$SYSCONFDIR/$f" ] || paths < "deploy/systemd/$(basename "$f")" > "$DESTDIR$SYSCONFDIR/$f"
  chmod 644 "$DESTDIR$SYSCONFDIR/$f"
done
