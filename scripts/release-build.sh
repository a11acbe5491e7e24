#!/usr/bin/env bash
# `swift build -c release` as every release build of this package runs it (Makefile, benchmarks,
# demo, soak): the Swift runtime and Foundation linked statically (--static-swift-stdlib), so a
# `corpus` process does not load and relocate the 14 Swift shared objects at every start
# (docs/engine.md, "Start-up"). The flag changes how every module compiles, so one flag for every
# release build keeps them from rebuilding each other's .build/release. Debug builds (tests) and
# the fuzz build (its own build path) keep the shared runtime.
# Usage: scripts/release-build.sh [swift build options]   e.g. --product corpus, --show-bin-path
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
exec swift build -c release --static-swift-stdlib "$@"
