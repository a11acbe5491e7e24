#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (docs/fuzzing.md) into .build/fuzz/bin/.
#
# The package's library targets are built by SwiftPM in release mode with libFuzzer's coverage
# instrumentation and AddressSanitizer (`-Xswiftc -sanitize=fuzzer,address`: one flag, since
# given as two flags, as SwiftPM's `--sanitize=fuzzer --sanitize=address` passes them, the
# second replaces the first and the libraries get no coverage at all) and
# `-enable-testing` (so targets can reach internal parsers with `@testable import`, as the
# suite does), in their own build folder: `swift build` and `make test` never see Fuzz/. Then
# Fuzz/*.swift and Fuzz/Support/*.swift are compiled by swiftc against those modules into one
# library-style module (`-parse-as-library`, no `main`) and one binary: libFuzzer brings main and
# calls `LLVMFuzzerTestOneInput` (Fuzz/Support/FuzzMain.swift), which runs the target the binary
# was started as. bin/<Target> is a hard link to it for every Fuzz/<Target>.swift.
#
# Usage: scripts/fuzz-build.sh
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
export PATH=/opt/swift/usr/bin:$PATH

build_path=.build/fuzz
flags=(-c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing --build-path "$build_path")
# Every library a target links; SwiftPM builds their dependencies with them.
# CEncoderKernels is the engine's own C (its objects and the module map SwiftPM writes for it).
libraries=(CorpusFormat CorpusEngine CEncoderKernels CorpusPublisher CorpusServer CorpusTestSupport)
for lib in CorpusPublisher CorpusServer CorpusTestSupport; do
  swift build "${flags[@]}" --target "$lib"
done

products="$(swift build "${flags[@]}" --show-bin-path)"
# Coverage-blind libraries still build and run, so check: libFuzzer's inline 8-bit counters
# (section __sancov_cntrs) must be in the parsers' objects.
for lib in CorpusFormat CorpusEngine CorpusServer; do
  # (grep -c reads to the end: with grep -q, objdump's SIGPIPE would fail the pipefail pipeline)
  [ "$(objdump -h "$products/$lib.build/"*.o | grep -c __sancov_cntrs)" -gt 0 ] \
    || { echo "fuzz-build: $lib was built without libFuzzer's coverage instrumentation" >&2; exit 2; }
done
modules="$products/Modules"
objects=()
for lib in "${libraries[@]}"; do
  objects+=("$products/$lib.build"/*.o)
done

# The C libraries' module maps and link flags, as Package.swift declares them.
cflags=()
for c in CSQLite CZip CZlib CISAL CCrypto CMicroHTTPD CXML2 COpenBLAS CLinux; do
  cflags+=(-Xcc "-fmodule-map-file=$repo/Sources/$c/module.modulemap")
done
for include in $(pkg-config --cflags-only-I libxml-2.0 openblas); do cflags+=(-Xcc "$include"); done
cflags+=(-Xcc "-fmodule-map-file=$products/CEncoderKernels.build/module.modulemap" -Xcc "-I$repo/Sources/CEncoderKernels/include")
libs=$(pkg-config --libs sqlite3 libzip zlib libisal libcrypto libmicrohttpd libxml-2.0 openblas)

targets=()
for f in Fuzz/*.swift; do targets+=("$(basename "$f" .swift)"); done

mkdir -p "$build_path/bin" "$build_path/obj"
# The C libraries' allocator (Fuzz/Pool/), a module of its own compiled without the sanitizers:
# its branches are not the parser's, and the targets should not be steered by them.
pool_cflags=(-Xcc "-fmodule-map-file=$repo/Fuzz/Pool/module.modulemap")
for include in $(pkg-config --cflags-only-I libxml-2.0); do pool_cflags+=(-Xcc "$include"); done
swiftc -O -parse-as-library -swift-version 6 -module-name FuzzPool -c Fuzz/Pool/AllocatorPool.swift \
  "${pool_cflags[@]}" -module-cache-path "$build_path/obj/ModuleCache" \
  -emit-module -emit-module-path "$build_path/obj/FuzzPool.swiftmodule" -o "$build_path/obj/FuzzPool.o"
cflags+=("${pool_cflags[@]}")
# shellcheck disable=SC2086
swiftc -O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6 -module-name FuzzTargets \
  -I "$modules" -I "$build_path/obj" "${cflags[@]}" -module-cache-path "$build_path/obj/ModuleCache" \
  Fuzz/*.swift Fuzz/Support/*.swift "${objects[@]}" "$build_path/obj/FuzzPool.o" $libs -o "$build_path/bin/fuzz-targets"
for t in "${targets[@]}"; do
  grep -q "\"$t\": (fuzz$t," Fuzz/Support/FuzzMain.swift || { echo "fuzz-build: Fuzz/$t.swift is not in FuzzMain's table" >&2; exit 2; }
  ln -f "$build_path/bin/fuzz-targets" "$build_path/bin/$t"
done
echo "fuzz-build: ${#targets[@]} targets in $build_path/bin/"
