#!/usr/bin/env bash
# Builds the client library and the engine as an app on an Apple platform gets them, as far as
# Linux can: `-Xswiftc -DCORPUS_APPLE_SEAMS` compiles the URLSession transport only (no libcurl
# code) and the zlib zip reader only (no libzip code: the libzip reader and the writers are left
# out). Then links a program against only CorpusSync, CorpusURLSession, CorpusHTTP, CorpusEngine
# and CorpusFormat (the library example of docs/library.md and a main that prints the seams it
# was built with), runs it, and checks its shared objects with readelf and ldd:
#   - the program NEEDs neither libcurl nor libzip;
#   - no object it loads NEEDs libzip;
#   - the one object that NEEDs libcurl is Foundation's libFoundationNetworking.so: URLSession on
#     Linux is built on libcurl. On an Apple platform URLSession is the system's (docs/apple.md).
# Exit 1 when a check fails. Usage: scripts/apple-seams.sh
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export PATH=/opt/swift/usr/bin:$PATH

build=.build/apple-seams
swift build --build-path "$build" -Xswiftc -DCORPUS_APPLE_SEAMS --target CorpusSync
swift build --build-path "$build" -Xswiftc -DCORPUS_APPLE_SEAMS --target CorpusURLSession
products="$(swift build --build-path "$build" -Xswiftc -DCORPUS_APPLE_SEAMS --show-bin-path)"

out="$build/seams"
mkdir -p "$out"
cat >"$out/main.swift" <<'SWIFT'
import CorpusFormat
import CorpusSync
import CorpusURLSession
// The seams this build compiled in, and that the library example type-checks and links.
print("default transport \(HTTPTransportFactory.platformDefault.map(\.name) ?? "none"), using \(HTTPTransportFactory.urlSession)")
print("zip reader \(ZipImplementation.platformDefault) (available: \(ZipImplementation.allCases.map(\.rawValue).joined(separator: ", ")))")
print("crypto \(CryptoImplementation.name)")
_ = CorpusAssistant.self
SWIFT
cflags=()
for c in CSQLite CZlib CCrypto COpenBLAS CLinux; do cflags+=(-Xcc "-fmodule-map-file=$repo/Sources/$c/module.modulemap"); done
for include in $(pkg-config --cflags-only-I openblas); do cflags+=(-Xcc "$include"); done
objects=()
for lib in CorpusFormat CorpusEngine CorpusHTTP CorpusURLSession CorpusSync; do objects+=("$products/$lib.build"/*.o); done
swiftc -swift-version 6 -module-name SeamsCheck -I "$products/Modules" "${cflags[@]}" \
  "$out/main.swift" Tests/LibraryExampleTests/LibraryExample.swift "${objects[@]}" -o "$out/seams-check"

"$out/seams-check" | tee "$out/report.txt"
grep -qx "default transport none, using urlsession" "$out/report.txt" || { echo "apple-seams: the build still has a default (libcurl) transport" >&2; exit 1; }
grep -qx "zip reader zlib (available: zlib)" "$out/report.txt" || { echo "apple-seams: the build did not select the zlib reader alone" >&2; exit 1; }

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
fail=0
echo "NEEDED by seams-check: $(needed "$out/seams-check" | tr '\n' ' ')"
if needed "$out/seams-check" | grep -E '^lib(curl|zip)\.'; then echo "apple-seams: the program links libcurl or libzip itself" >&2; fail=1; fi
while read -r object; do
  [ -f "$object" ] || continue
  if needed "$object" | grep -q '^libzip\.'; then echo "apple-seams: $object needs libzip" >&2; fail=1; fi
  if needed "$object" | grep -q '^libcurl'; then
    case "$(basename "$object")" in
      libFoundationNetworking.so) echo "libcurl is needed by $(basename "$object") only (URLSession on Linux is libcurl)" ;;
      *) echo "apple-seams: $object needs libcurl" >&2; fail=1 ;;
    esac
  fi
done < <(ldd "$out/seams-check" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p')
ldd "$out/seams-check" | grep -E 'libcurl|libzip' || true
exit $fail
