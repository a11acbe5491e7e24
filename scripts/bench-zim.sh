#!/usr/bin/env bash
# Bundle against ZIM (issue 14): the 214 HTML pages of SQLite's documentation (Debian's
# sqlite3-doc) built into a bundle by the release `corpusd build` and into a ZIM archive by Kiwix's
# `zimwriterfs` (Debian's zim-tools), which also carries a full-text index. Prints both sizes, the
# default bundle (the index built at install) without its vector member against the ZIM (goal <= 1.0),
# the same for `--index bundle` (the pack holds its index), the members' sizes, and the install-time
# cost of the default: `corpus import` of each, as a ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

docs=/usr/share/doc/sqlite3
command -v zimwriterfs >/dev/null || { echo "bench-zim: zimwriterfs is missing (scripts/bootstrap.sh installs zim-tools)"; exit 1; }
ls "$docs"/*.html >/dev/null 2>&1 || { echo "bench-zim: $docs has no HTML (scripts/bootstrap.sh installs sqlite3-doc)"; exit 1; }
scripts/release-build.sh --product corpusd 2>&1 | grep -E "error|Build" | tail -1
bin="$(scripts/release-build.sh --show-bin-path)"
work=.bench/zim
rm -rf "$work" && mkdir -p "$work/html"
cp "$docs"/*.html "$work/html/"
echo "pages=$(ls "$work"/html/*.html | wc -l)"
# zimwriterfs wants a 48x48 PNG illustration.
/usr/bin/python3 - "$work/html/illustration.png" <<'PY'
import struct, sys, zlib
raw = b''.join(b'\x00' + b'\x40\x60\xa0' * 48 for _ in range(48))
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
open(sys.argv[1], 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 48, 48, 8, 2, 0, 0, 0))
                             + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
PY
zimwriterfs --welcome=index.html --illustration=illustration.png --language=eng --title="SQLite documentation" \
  --description="SQLite documentation" --creator=SQLite --publisher=bench --name=sqlite-doc "$work/html" "$work/sqlite.zim" > "$work/zim.log" 2>&1
bin_corpus="$bin/corpus"
scripts/release-build.sh --product corpus 2>&1 | grep -E "error|Build" | tail -1
"$bin/corpusd" keygen --out "$work" --name k > /dev/null
# The default bundle (the pack without its FTS5 index, 16 KiB pages, deflated at level 9; the client
# builds the index at install), and --index bundle (the pack holds its index, deflated by ISA-L).
"$bin/corpusd" build "$work/html" --id sqlite-doc --version 1 --key "$work/k.key" --index bundle --out "$work/sqlite.corpus.zip" --quiet 2>/dev/null
"$bin/corpusd" build "$work/html" --id sqlite-doc --version 1 --key "$work/k.key" --out "$work/sqlite-noindex.corpus.zip" --quiet 2>/dev/null
# Install-time cost: `corpus import` of each (best of 5, a fresh home each time).
import_time() {
  local best=999
  for _ in 1 2 3 4 5; do
    rm -rf "$work/home"; sync
    local t0 t1; t0=$(date +%s.%N)
    "$bin_corpus" --home "$work/home" --quiet import "$1" --trust "$work/k.pub" >/dev/null
    t1=$(date +%s.%N)
    best=$(echo "$t1 $t0 $best" | awk '{d = $1 - $2; print (d < $3) ? d : $3}')
  done
  rm -rf "$work/home"
  echo "$best"
}
t_indexed=$(import_time "$work/sqlite.corpus.zip")
t_noindex=$(import_time "$work/sqlite-noindex.corpus.zip")
echo "import_indexed_s=$t_indexed import_index_at_install_s=$t_noindex"
/usr/bin/python3 - "$work/sqlite.corpus.zip" "$work/sqlite-noindex.corpus.zip" "$work/sqlite.zim" "$t_indexed" "$t_noindex" <<'PY'
import os, sys, zipfile
bundle, noindex, zim, t_indexed, t_noindex = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
zim_size = os.path.getsize(zim)
def sizes(path):
    z = zipfile.ZipFile(path)
    members = {i.filename: (i.compress_size, i.file_size) for i in z.infolist()}
    for name, (c, u) in members.items(): print(f"{os.path.basename(path)} member {name}: {c} bytes in the zip, {u} extracted")
    total = os.path.getsize(path)
    return total, total - members['vectors.bin'][0]
total, without = sizes(bundle)
total_ni, without_ni = sizes(noindex)
print(f"bundle_bytes={total} bundle_without_vectors_bytes={without} noindex_bundle_bytes={total_ni} noindex_without_vectors_bytes={without_ni} zim_bytes={zim_size}")
def result(name, value, unit, peer, ratio, goal):
    f = lambda x: f"{x:.3g}"
    print("\t".join(["RESULT", name, f(value), unit, f(peer), f"{ratio:.2f}", goal]))
result("bundle (sqlite3-doc, 214 pages; the default, index built at install) / ZIM (zimwriterfs)", total_ni, "B", zim_size, total_ni / zim_size, "-")
result("bundle without vectors.bin / ZIM", without_ni, "B", zim_size, without_ni / zim_size, "<=1.0x")
result("bundle with --index bundle, without vectors.bin / ZIM", without, "B", zim_size, without / zim_size, "-")
result("corpus import of sqlite3-doc: index built at install (the default) / --index bundle (best of 5)", t_noindex, "s", t_indexed, t_noindex / t_indexed, "-")
PY
