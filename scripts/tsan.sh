#!/usr/bin/env bash
# `make tsan`: builds the package and its tests with ThreadSanitizer (its own build folder, so the
# ordinary debug build is untouched) and runs the suites that exercise the libraries in-process.
# Not part of `make test`: the instrumented build takes a further full build, and the run is
# several times slower. Any report fails the run; reports are kept under .build/tsan/reports/.
#
# The integration suites are left out: they start the instrumented `corpus`/`corpusd` as child
# processes, whose own reports change their exit codes and stderr, which those tests assert on.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
build=.build/tsan
reports=$build/reports
swift build --build-tests --sanitize=thread --build-path "$build"
rm -rf "$reports" && mkdir -p "$reports"
suites='CorpusFormatTests|CorpusSyncTests|CorpusURLSessionTests|CorpusEngineTests|CorpusPublisherTests|CorpusMirrorTests|CorpusServerTests|CorpusObjectStoreTests|CorpusCLITests'
status=0
TSAN_OPTIONS="halt_on_error=0 log_path=$PWD/$reports/report suppressions=$PWD/scripts/tsan.supp" \
  swift test --skip-build --build-path "$build" --filter "$suites" || status=$?
if compgen -G "$reports/report*" > /dev/null; then
  echo "tsan: ThreadSanitizer reported (see $reports/):"
  grep -h -A3 "^WARNING" "$reports"/report* | head -40
  exit 1
fi
[ "$status" -eq 0 ] || { echo "tsan: the suite failed under ThreadSanitizer (exit $status)"; exit "$status"; }
echo "tsan: no reports"
