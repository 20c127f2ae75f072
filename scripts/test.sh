#!/usr/bin/env bash
# The project's test command (README): unit and integration tests on the host, then the system
# tests against real bluetoothd in a VM (scripts/vm/run.sh). Set DFU_SKIP_VM=1 to leave out the VM.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
# On the host the system tests skip themselves (no bluetoothd): their skips are listed below.
swift test --skip-build 2>&1 | tee .build/host-tests.log
echo "== on the host these skip (they need bluetoothd; they run in the VM below):"
grep -E "Test skipped" .build/host-tests.log | sed 's/^.*: \([A-Za-z]*Tests\.[A-Za-z]*\) : Test skipped - /  \1: /' || true

if [ "${DFU_SKIP_VM:-0}" = 1 ]; then
    echo "== system tests: skipped (DFU_SKIP_VM=1)"
    exit 0
fi
echo "== system tests in the VM (real bluetoothd, two virtual controllers)"
# The VM runs the test bundle built above directly (`swift test --skip-build` inside the VM did
# not reach the tests within 400 s); the tests also run the dfu-update executable next to it.
bundle=$(swift build --show-bin-path)/dfu-updatePackageTests.xctest
classes=$("$bundle" --list-tests 2>/dev/null | sed -n 's|^\(BlueZSystemTests\.[A-Za-z]*\)/.*|\1|p' | sort -u | paste -sd, -)
[ -n "$classes" ] || { echo "error: no BlueZSystemTests in $bundle" >&2; exit 1; }
set +e
scripts/vm/run.sh --timeout 600 "$bundle" "$classes" 2>&1 | tee .build/vm-tests.log
status=${PIPESTATUS[0]}
set -e
# A run in which everything skipped would pass silently: the VM must really run them.
if grep -qE "Test skipped|with [1-9][0-9]* tests? skipped" .build/vm-tests.log; then
    echo "error: system tests were skipped inside the VM" >&2
    exit 1
fi
grep -qE "Executed [1-9][0-9]* tests?, with 0 failures" .build/vm-tests.log ||
    { echo "error: no system test ran in the VM" >&2; exit 1; }
exit "$status"
