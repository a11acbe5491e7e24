#!/usr/bin/env bash
# The client's download and catalog suite (CorpusSyncTests) a second time, over the URLSession
# transport, one test at a time (docs/apple.md "HTTP transport" says why serial). After a build
# with --build-tests.
#
# FoundationNetworking delivers each response through two queues before the test's thread sees
# it, and the suite's stall timeouts are 0.2-2 s: on a loaded machine a delivery can be late
# enough to fire one. So a suite that fails is run once more on its own; the run passes only if
# that rerun passes, and the first failures are printed either way (never hidden). The libcurl
# run in `make test` gets no rerun.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
log=$(mktemp)
trap 'rm -f "$log"' EXIT

CORPUS_TEST_TRANSPORT=urlsession swift test --skip-build --filter CorpusSyncTests --no-parallel 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" = 0 ] && exit 0

suites=$(sed -n 's/^.*✘ Suite \([A-Za-z0-9_]*\) failed.*$/\1/p' "$log" | sort -u)
if [ -z "$suites" ]; then
  echo "test-urlsession: the run failed without a failing suite (a crash or a build problem): no rerun" >&2
  exit 1
fi
echo "test-urlsession: first run failed in: $(echo $suites); failures:"
grep '✘ Test .* recorded an issue' "$log" | sed 's/^/  /'
filter=$(echo $suites | tr ' ' '|')
echo "test-urlsession: rerunning $(echo $suites) once over URLSession"
if CORPUS_TEST_TRANSPORT=urlsession swift test --skip-build --filter "CorpusSyncTests\.($filter)/" --no-parallel; then
  echo "test-urlsession: passed on the rerun (first-run failures above)"
  exit 0
fi
echo "test-urlsession: failed again on the rerun" >&2
exit 1
