#!/usr/bin/env bash
# Writes the seed corpus of every fuzz target into .build/fuzz/seeds/<Target>/ (docs/fuzzing.md).
#
# Seeds are made by the targets' own Swift code with the project's writers and test fixtures
# (BundleWriter, DeltaWriter, EmbedderArtifactWriter, SecretKey.sign, EntitlementToken.issue,
# ReaderAppFixture, BrowserExportFixture, KnowledgeAppFixture, ZipCrafting...): each fuzzer, run
# with FUZZ_WRITE_SEEDS=DIR, writes its seeds there from LLVMFuzzerInitialize and exits. Nothing
# binary is checked in. Run scripts/fuzz-build.sh first.
#
# Usage: scripts/fuzz-seeds.sh [TARGET...]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in Fuzz/*.swift; do targets+=("$(basename "$f" .swift)"); done
fi
for t in "${targets[@]}"; do
  out=".build/fuzz/seeds/$t"
  rm -rf "$out"
  tmp=".build/fuzz/tmp/$t-seeds"
  mkdir -p "$tmp"
  TMPDIR="$repo/$tmp" FUZZ_WRITE_SEEDS="$repo/$out" ASAN_OPTIONS=detect_leaks=0 ".build/fuzz/bin/$t" >/dev/null
  rm -rf "$tmp"
  echo "fuzz-seeds: $t: $(ls "$out" | wc -l) seeds"
done
