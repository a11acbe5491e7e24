#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (docs/fuzzing.md) into .build/fuzz/bin/.
#
# The package's library targets are built by SwiftPM in release mode with libFuzzer's coverage
# instrumentation and AddressSanitizer (`--sanitize=fuzzer --sanitize=address`) and
# `-enable-testing` (so targets can reach internal parsers with `@testable import`, as the
# suite does), in their own build folder: `swift build` and `make test` never see Fuzz/. Each
# Fuzz/<Target>.swift is then compiled with Fuzz/Support/*.swift by swiftc against those
# modules, as a library-style module (`-parse-as-library`, no `main`): libFuzzer brings main,
# and calls the target's `@_cdecl("LLVMFuzzerTestOneInput")`.
#
# Usage: scripts/fuzz-build.sh [TARGET...]   (default: every Fuzz/*.swift)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export PATH=/opt/swift/usr/bin:$PATH

build_path=.build/fuzz
flags=(-c release --sanitize=fuzzer --sanitize=address -Xswiftc -enable-testing --build-path "$build_path")
# Every library a target links; SwiftPM builds their dependencies with them.
libraries=(CorpusFormat CorpusEngine CorpusPublisher CorpusServer CorpusTestSupport)
for lib in CorpusPublisher CorpusServer CorpusTestSupport; do
  swift build "${flags[@]}" --target "$lib"
done

products="$(swift build "${flags[@]}" --show-bin-path)"
modules="$products/Modules"
objects=()
for lib in "${libraries[@]}"; do
  objects+=("$products/$lib.build"/*.o)
done

# The C libraries' module maps and link flags, as Package.swift declares them.
cflags=()
for c in CSQLite CZip CZlib CCrypto CMicroHTTPD CXML2 COpenBLAS; do
  cflags+=(-Xcc "-fmodule-map-file=$repo/Sources/$c/module.modulemap")
done
for include in $(pkg-config --cflags-only-I libxml-2.0 openblas); do cflags+=(-Xcc "$include"); done
libs=$(pkg-config --libs sqlite3 libzip zlib libcrypto libmicrohttpd libxml-2.0 openblas)

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in Fuzz/*.swift; do targets+=("$(basename "$f" .swift)"); done
fi

mkdir -p "$build_path/bin" "$build_path/obj"
for t in "${targets[@]}"; do
  [ -f "Fuzz/$t.swift" ] || { echo "fuzz-build: no Fuzz/$t.swift" >&2; exit 2; }
  echo "fuzz-build: $t"
  # shellcheck disable=SC2086
  swiftc -O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6 -module-name "Fuzz$t" \
    -I "$modules" "${cflags[@]}" -module-cache-path "$build_path/obj/ModuleCache" \
    "Fuzz/$t.swift" Fuzz/Support/*.swift "${objects[@]}" $libs -o "$build_path/bin/$t"
done
