#!/usr/bin/env bash
# Secure DFU through real bluetoothd, measured against the protocol bound of the same link
# (`dfu-bench link`, docs/benchmarks.md "DFU through bluetoothd"): in the VM of scripts/vm/run.sh,
# dfu-sim on hci1, the updater on hci0. Builds dfu-bench and dfu-sim in release first unless
# DFU_SKIP_BUILD=1; the VM runs the built binaries (building inside the VM is far too slow).
# A benchmark, not part of scripts/test.sh. Needs root (scripts/vm/run.sh).
#
# usage: scripts/vm/bench.sh [--exchange-mtu N] [DFU-BENCH LINK OPTION…]   e.g. --json, --sizes 102400
#   --exchange-mtu N   bluetoothd offers this ATT MTU (default 517; 247 is the stock SDK bootloader's)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${DFU_SKIP_BUILD:-0}" != 1 ]; then
	swift build -c release --product dfu-bench
	swift build -c release --product dfu-sim
fi
bin=$(swift build -c release --show-bin-path)
vm_options=()
if [ "${1:-}" = --exchange-mtu ]; then
	vm_options=(--exchange-mtu "$2")
	shift 2
fi
exec scripts/vm/run.sh --timeout 900 "${vm_options[@]}" "$bin/dfu-bench" link --dfu-sim "$bin/dfu-sim" "$@"
