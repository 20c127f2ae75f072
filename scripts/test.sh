#!/usr/bin/env bash
# The project's test command (README): unit and integration tests on the host, then the system
# tests against real bluetoothd in a VM (scripts/vm/run.sh). Set DFU_SKIP_VM=1 to leave out the VM.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
# On the host the system tests skip themselves (no bluetoothd): their skips are listed below.
swift test --skip-build 2>&1 | tee .build/host-tests.log
grep -E "BlueZSystemTests.*skipped" .build/host-tests.log | sed 's/^/host: /' || true

if [ "${DFU_SKIP_VM:-0}" = 1 ]; then
    echo "== system tests: skipped (DFU_SKIP_VM=1)"
    exit 0
fi
echo "== system tests in the VM (real bluetoothd, two virtual controllers)"
# the tests run the dfu-update binary built above
set +e
scripts/vm/run.sh --timeout 420 \
    swift test --skip-build --filter BlueZSystemTests 2>&1 | tee .build/vm-tests.log
status=${PIPESTATUS[0]}
set -e
# A run in which everything skipped would pass silently: the VM must really run them.
if grep -qE "BlueZSystemTests.*skipped" .build/vm-tests.log; then
    echo "error: system tests were skipped inside the VM" >&2
    exit 1
fi
grep -qE "Executed [1-9][0-9]* tests?" .build/vm-tests.log ||
    { echo "error: no system test ran in the VM" >&2; exit 1; }
exit "$status"
