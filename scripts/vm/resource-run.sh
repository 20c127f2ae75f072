#!/usr/bin/env bash
# Bounded resources against dfu-sim (docs/reliability.md): in the VM, dfu-sim on hci1 and
# `dfu-bench resources` on hci0, which updates it UPDATES times (after a warm-up of 5) with
# DFUUpdater through one BlueZCentral in one process, and prints the open fds and resident memory
# of itself, dfu-sim and bluetoothd before and after. Not part of scripts/test.sh (about 10 s an
# update under TCG). Needs root (scripts/vm/run.sh); builds dfu-bench and dfu-sim first unless
# DFU_SKIP_BUILD=1.
#
# usage: scripts/vm/resource-run.sh [UPDATES [PACKAGE]]    (defaults 100, Firmware/secure_app.zip)
set -euo pipefail
cd "$(dirname "$0")/../.."
updates=${1:-100} package=${2:-Firmware/secure_app.zip}
if [ "${DFU_SKIP_BUILD:-0}" != 1 ]; then swift build --product dfu-bench && swift build --product dfu-sim; fi
bin=$(swift build --show-bin-path)
exec scripts/vm/run.sh --timeout $((updates * 30 + 300)) scripts/vm/resource-run-guest.sh "$bin" "$updates" "$package"
