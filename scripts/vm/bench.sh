#!/usr/bin/env bash
# Secure DFU through real bluetoothd, measured against the protocol bound of the same link
# (`dfu-bench link`, docs/engine.md "Through bluetoothd"): in the VM of scripts/vm/run.sh,
# dfu-sim on hci1, the updater on hci0. Builds dfu-bench and dfu-sim in release first unless
# DFU_SKIP_BUILD=1; the VM runs the built binaries (building inside the VM is far too slow).
# A benchmark, not part of scripts/test.sh. Needs root (scripts/vm/run.sh).
#
# usage: scripts/vm/bench.sh [DFU-BENCH LINK OPTION…]      e.g. --json, --sizes 102400
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${DFU_SKIP_BUILD:-0}" != 1 ]; then
	swift build -c release --product dfu-bench
	swift build -c release --product dfu-sim
fi
bin=$(swift build -c release --show-bin-path)
exec scripts/vm/run.sh --timeout 900 "$bin/dfu-bench" link --dfu-sim "$bin/dfu-sim" "$@"
