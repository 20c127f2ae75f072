#!/usr/bin/env bash
# The project's test command (README): unit and integration tests on the host, then the system
# tests against real bluetoothd in a VM (scripts/vm/run.sh). Set DFU_SKIP_VM=1 to leave out the VM.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
# On the host only the system tests may skip (they need bluetoothd; they run in the VM below).
# Any other skip fails the command: a test that silently does not run is a test that does not
# exist (fixtures are in the repository, so a missing one fails its test instead).
set +e
swift test --skip-build 2>&1 | tee .build/host-tests.log
status=${PIPESTATUS[0]}
set -e
skips=$(sed -n 's/^.*: \([A-Za-z0-9_]*\.[A-Za-z0-9_]*\) : Test skipped - \(.*\)$/\1: \2/p' .build/host-tests.log)
echo "== skipped on the host:"
[ -z "$skips" ] && echo "  (none)" || printf '%s\n' "$skips" | sed 's/^/  /'
# XCTest's last summary counts every skip: each must have been listed above.
counted=$(grep -E "^\s*Executed [0-9]+ tests?" .build/host-tests.log | tail -1 |
    sed -n 's/.* with \([0-9]*\) tests\{0,1\} skipped.*/\1/p')
listed=$(printf '%s\n' "$skips" | grep -c . || true)
if [ "${counted:-0}" -ne "$listed" ]; then
    echo "error: XCTest counted ${counted:-0} skipped tests, but $listed skip lines were found" >&2
    exit 1
fi
bundle=$(swift build --show-bin-path)/dfu-updatePackageTests.xctest
# Class.method of every system test, as the skip lines name them.
system_tests=$("$bundle" --list-tests 2>/dev/null | sed -n 's|^BlueZSystemTests\.\([A-Za-z0-9_]*\)/\([A-Za-z0-9_]*\)$|\1.\2|p')
[ -n "$system_tests" ] || { echo "error: no BlueZSystemTests in $bundle" >&2; exit 1; }
unexpected=$(printf '%s\n' "$skips" | cut -d: -f1 | grep . | grep -v -x -F -f <(printf '%s\n' "$system_tests") || true)
if [ -n "$unexpected" ]; then
    echo "error: these tests skipped on the host, where only the system tests may skip:" >&2
    printf '  %s\n' $unexpected >&2
    exit 1
fi
[ "$status" -eq 0 ] || exit "$status"

if [ "${DFU_SKIP_VM:-0}" = 1 ]; then
    echo "== system tests: skipped (DFU_SKIP_VM=1)"
    exit 0
fi
echo "== system tests in the VM (real bluetoothd, virtual controllers)"
# The VM runs the test bundle built above directly (`swift test --skip-build` inside the VM did
# not reach the tests within 400 s); the tests also run the dfu-update executable next to it.
# The fleet test needs six controllers (docs/fleet.md) and runs in a VM of its own: the others
# keep the two controllers they were written and measured with.
fleet=BlueZSystemTests.FleetThroughBlueZTests
classes=$("$bundle" --list-tests 2>/dev/null | sed -n 's|^\(BlueZSystemTests\.[A-Za-z]*\)/.*|\1|p' | sort -u |
    grep -v -x -F "$fleet" | paste -sd, -)
[ -n "$classes" ] || { echo "error: no BlueZSystemTests in $bundle" >&2; exit 1; }
set +e
scripts/vm/run.sh --timeout 600 "$bundle" "$classes" 2>&1 | tee .build/vm-tests.log
status=${PIPESTATUS[0]}
scripts/vm/run.sh --controllers 6 --timeout 300 "$bundle" "$fleet" 2>&1 | tee .build/vm-fleet-tests.log
fleet_status=${PIPESTATUS[0]}
set -e
for log in .build/vm-tests.log .build/vm-fleet-tests.log; do
    # A run in which everything skipped would pass silently: the VM must really run them.
    if grep -qE "Test skipped|with [1-9][0-9]* tests? skipped" "$log"; then
        echo "error: system tests were skipped inside the VM ($log)" >&2
        exit 1
    fi
    grep -qE "Executed [1-9][0-9]* tests?, with 0 failures" "$log" ||
        { echo "error: no system test ran in the VM ($log)" >&2; exit 1; }
done
[ "$status" -ne 0 ] && exit "$status"
exit "$fleet_status"
