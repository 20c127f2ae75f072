#!/usr/bin/env bash
# The project's test command (README): unit and integration tests, then the system tests that
# run real bluetoothd in a VM.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
swift test --skip-build
