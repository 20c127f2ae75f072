#!/usr/bin/env bash
# The project's test command (README): unit and integration tests on the host, then the system
# tests against real bluetoothd in a VM (scripts/vm/run.sh). Set DFU_SKIP_VM=1 to leave out the VM.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
# The rollout store's PostgreSQL tests (docs/rollout.md, "Tests") use a scratch server on
# 127.0.0.1, started here and stopped by its pid once the host tests are done.
postgres_dir=$(mktemp -d)
stop_postgres() { scripts/scratch-postgres.sh stop "$postgres_dir" && rm -rf "$postgres_dir"; }
trap stop_postgres EXIT
scripts/scratch-postgres.sh start "$postgres_dir"
export DFU_TEST_POSTGRES_DIR=$postgres_dir
# On the host only the system tests may skip (they need bluetoothd; they run in the VM below).
# Any other skip fails the command: a test that silently does not run is a test that does not
# exist (fixtures are in the repository, so a missing one fails its test instead).
set +e
swift test --skip-build 2>&1 | tee .build/host-tests.log
status=${PIPESTATUS[0]}
set -e
stop_postgres
trap - EXIT
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
# The fleet test needs four controllers and a btvirt that carries several links of one controller
# (scripts/vm/build-btvirt.sh, docs/fleet.md) and runs in a VM of its own: the others keep the two
# controllers and Debian's btvirt they were written and measured with.
fleet=BlueZSystemTests.FleetThroughBlueZTests
classes=$("$bundle" --list-tests 2>/dev/null | sed -n 's|^\(BlueZSystemTests\.[A-Za-z]*\)/.*|\1|p' | sort -u |
    grep -v -x -F "$fleet" | paste -sd, -)
[ -n "$classes" ] || { echo "error: no BlueZSystemTests in $bundle" >&2; exit 1; }

# bluetoothd_crashed NAME: whether bluetoothd died of a fault in that VM run (its core, or the
# kernel's fault line), as opposed to a test failing.
bluetoothd_crashed() {
    ls ".build/vm-logs-$1"/core.bluetoothd.* > /dev/null 2>&1 ||
        grep -qE "bluetoothd\[[0-9]+\]: segfault|general protection fault.*bluetoothd" ".build/vm-logs-$1/dmesg.log" 2>/dev/null
}

fleet_btvirt=$(scripts/vm/build-btvirt.sh)
# Debian 13's BlueZ 5.82 beside the host's 5.66 (docs/bluez-module.md, "BlueZ 5.66 and 5.82")
bluez_582=$(scripts/vm/build-bluez.sh 5.82)

# show_vm_faults NAME: the last lines of bluetoothd's log of that VM run, the kernel's faults and
# BUGs, and any core file (all of the logs stay in .build/vm-logs-NAME).
show_vm_faults() {
    [ -f ".build/vm-logs-$1/bluetoothd.log" ] || return 0
    echo "== the VM's bluetoothd log, last lines (all of them in .build/vm-logs-$1)"
    tail -n 40 ".build/vm-logs-$1/bluetoothd.log"
    echo "== the VM's kernel log: faults and BUGs"
    grep -iE -A8 "segfault|general protection|BUG|Oops|list_del" ".build/vm-logs-$1/dmesg.log" 2>/dev/null | head -60 || true
    ls ".build/vm-logs-$1"/core.* 2>/dev/null || true
}

# system_tests NAME TIMEOUT CONTROLLERS BTVIRT CLASSES: one VM run (bluetoothd of $DFU_VM_BLUEZ,
# the host's when empty; BTVIRT "-": that BlueZ's), its logs in .build/vm-logs-NAME and
# .build/vm-NAME.log; fails unless the tests ran, none skipped and none failed.
system_tests() {
    local name=$1 timeout=$2 controllers=$3 btvirt=${4#-} classes=$5 status
    set +e
    scripts/vm/run.sh --timeout "$timeout" --controllers "$controllers" --btvirt "$btvirt" \
        --logs ".build/vm-logs-$name" "$bundle" "$classes" 2>&1 | tee ".build/vm-$name.log"
    status=${PIPESTATUS[0]}
    set -e
    vm_skips_accounted "$name" || return 1
    grep -qE "Executed [1-9][0-9]* tests?, with ([0-9]+ tests? skipped and )?0 failures" ".build/vm-$name.log" ||
        { echo "error: no system test ran in the VM (.build/vm-$name.log)" >&2; return 1; }
    return "$status"
}

# vm_skips_accounted NAME: whether every test that skipped in that VM run skipped for the reason
# $vm_allowed_skip (a regular expression on "Class.method: reason"; empty: none may skip) and
# XCTest counted no other skip. A run in which everything skipped would pass silently: the VM
# must really run them.
vm_skips_accounted() {
    local log=.build/vm-$1.log skips unexpected counted listed
    skips=$(sed -n 's/^.*: \([A-Za-z0-9_]*\.[A-Za-z0-9_]*\) : Test skipped - \(.*\)$/\1: \2/p' "$log")
    unexpected=$(printf '%s\n' "$skips" | grep . | grep -v -E "${vm_allowed_skip:-^$}" || true)
    if [ -n "$unexpected" ]; then
        echo "error: system tests were skipped inside the VM ($log):" >&2
        printf '  %s\n' "$unexpected" >&2
        return 1
    fi
    if [ -n "$skips" ]; then
        echo "== skipped in the VM, as this kernel requires:"
        printf '%s\n' "$skips" | sed 's/^/  /'
    fi
    counted=$(grep -E "^\s*Executed [0-9]+ tests?" "$log" | tail -1 | sed -n 's/.* with \([0-9]*\) tests\{0,1\} skipped.*/\1/p')
    listed=$(printf '%s\n' "$skips" | grep -c . || true)
    [ "${counted:-0}" -eq "$listed" ] ||
        { echo "error: XCTest counted ${counted:-0} skipped tests in the VM, $listed skip lines were found" >&2; return 1; }
}

# bluetoothd itself (5.66, and 5.82 more rarely) sometimes dies of a fault under these tests
# (docs/dfu-sim.md, "bluetoothd crashes"). crashes[VERSION] counts the VM runs in which it did.
declare -A crashes=()

# vm_run VERSION RERUNS NAME COMMAND…: COMMAND makes one VM run whose logs land in
# .build/vm-logs-NAME (DFU_VM_LOGS, scripts/vm/run.sh). A run that failed because bluetoothd
# VERSION crashed in it, or because the VM never got as far as starting bluetoothd (no log of it:
# Debian 13's kernel once oopsed at boot under TCG, docs/bluez-module.md, "Kernels"), is run
# again, at most RERUNS times, and says so; a run that fails on its own, or one fault more, fails
# the command.
vm_run() {
    local version=$1 reruns=$2 name=$3 attempt=0 fault
    shift 3
    rm -rf ".build/vm-logs-$name"
    until DFU_VM_LOGS=.build/vm-logs-$name "$@"; do
        show_vm_faults "$name"
        if [ ! -f ".build/vm-logs-$name/bluetoothd.log" ]; then
            fault="the VM did not get as far as starting bluetoothd (a fault at boot, not a test failure)"
        elif bluetoothd_crashed "$name"; then
            fault="bluetoothd $version crashed (a bluetoothd fault, not a test failure)"
            crashes[$version]=$((${crashes[$version]:-0} + 1))
        else
            exit 1
        fi
        [ "$attempt" -lt "$reruns" ] || { echo "== $fault; no rerun left" >&2; exit 1; }
        attempt=$((attempt + 1))
        echo "== $fault: $name again"
        rm -rf ".build/vm-logs-$name-failed-$attempt"
        [ -d ".build/vm-logs-$name" ] && mv ".build/vm-logs-$name" ".build/vm-logs-$name-failed-$attempt"
    done
    # a crash in a run that passed all the same counts too
    if bluetoothd_crashed "$name"; then crashes[$version]=$((${crashes[$version]:-0} + 1)); fi
}

# vm_suites VERSION BLUEZ RERUNS: the system tests, the fleet test, nrf-ota and smpmgr against
# one bluetoothd (BLUEZ: scripts/vm/run.sh --bluez DIR, empty for the host's) on the host's
# kernel, Debian 12's 6.1, each through vm_run. There the lost-bond test skips, and only it may
# (a kernel BUG: docs/bluez-module.md, "Kernels").
vm_suites() {
    local version=$1 reruns=$3 suffix=""
    export DFU_VM_BLUEZ=$2
    vm_allowed_skip='^LostBondThroughBlueZTests\.[A-Za-z0-9_]*: kernel 6\.1\..*hci_chan_del'
    [ -n "$2" ] && suffix=-$version
    crashes[$version]=0
    # 5.66: Debian's btvirt, the fleet test the changed one; another BlueZ: its own (changed) btvirt
    local system_btvirt=btvirt fleet_btvirt=$fleet_btvirt
    [ -n "$2" ] && system_btvirt=- fleet_btvirt=-
    vm_run "$version" "$reruns" "system$suffix" system_tests "system$suffix" 1500 2 "$system_btvirt" "$classes"
    vm_run "$version" "$reruns" "fleet$suffix" system_tests "fleet$suffix" 300 4 "$fleet_btvirt" "$fleet"
    # A DFU client this project did not write (nrf-ota, PyPI) updates the Legacy dfu-sim device.
    echo "== nrf-ota updates dfu-sim in the VM, bluetoothd $version (docs/dfu-sim.md)"
    vm_run "$version" "$reruns" "nrf-ota$suffix" env DFU_SKIP_BUILD=1 scripts/vm/nrf-ota.sh
    # An SMP client this project did not write (smpmgr, PyPI) updates the SMP dfu-sim device.
    echo "== smpmgr updates dfu-sim --simulate smp-app in the VM, bluetoothd $version (docs/dfu-sim.md)"
    vm_run "$version" "$reruns" "smpmgr$suffix" env DFU_SKIP_BUILD=1 scripts/vm/smpmgr.sh
    echo "== smpmgr updates an overwrite-only dfu-sim device, bluetoothd $version"
    vm_run "$version" "$reruns" "smpmgr-overwrite$suffix" env DFU_SKIP_BUILD=1 scripts/vm/smpmgr.sh \
        Tests/MCUmgrTests/Fixtures/ecdsa-p256.signed.bin --sim-mcuboot-mode overwrite-only
    unset DFU_VM_BLUEZ
}

report_crashes() { echo "== bluetoothd crashes in the VM runs: 5.66: ${crashes[5.66]:-0}, 5.82: ${crashes[5.82]:--}"; }
trap report_crashes EXIT
# 5.82 dies of the advertising manager's fault too (docs/dfu-sim.md, "bluetoothd crashes"):
# the same reruns for it.
vm_suites 5.66 "" 2
vm_suites 5.82 "$bluez_582" 2
# The lost-bond test needs a kernel without 6.1's hci_chan_del BUG: Debian 13's kernel 6.12, with
# each bluetoothd (5.82 is Debian 13's own). The other suites stay on 6.1, the kernel they were
# made on (the fleet test passes on 6.12 since its device that drops its final answer copies its
# image within the engine's search; the other suites are not run there).
for version in 5.66 5.82; do
    echo "== the lost-bond test, bluetoothd $version on Debian 13's kernel"
    bluez=""
    [ "$version" = 5.82 ] && bluez=$bluez_582
    DFU_VM_BLUEZ=$bluez DFU_VM_KERNEL_SUITE=trixie vm_allowed_skip="" \
        vm_run "$version" 2 "lost-bond-$version" system_tests "lost-bond-$version" 600 2 - \
        BlueZSystemTests.LostBondThroughBlueZTests
done
