#!/usr/bin/env bash
# SMP image upload through real bluetoothd, our engine and smpmgr in the same run, against the
# SMP bound of the same link (`dfu-bench smp`, docs/benchmarks.md "SMP through bluetoothd"): in
# the VM of scripts/vm/run.sh, dfu-sim on hci1, the clients on hci0. Makes smpmgr's venv
# (scripts/vm/smpmgr-venv.sh) and builds dfu-bench and dfu-sim in release first unless
# DFU_SKIP_BUILD=1. A benchmark, not part of scripts/test.sh. Needs root (scripts/vm/run.sh).
# Other engineers use the VM too: run it as `flock /work/vm.lock scripts/vm/bench-smp.sh …`.
#
# usage: scripts/vm/bench-smp.sh [--exchange-mtu N] [DFU-BENCH SMP OPTION…]   e.g. --buf-size 384 --no-reassembly
#   --exchange-mtu N   bluetoothd offers this ATT MTU (default 513: smpmgr writes MTU − 3 bytes,
#                      and bluetoothd 5.66 passes on no value longer than 510)
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/vm/smpmgr-venv.sh
if [ "${DFU_SKIP_BUILD:-0}" != 1 ]; then
	swift build -c release --product dfu-bench
	swift build -c release --product dfu-sim
fi
bin=$(swift build -c release --show-bin-path)
mtu=513
if [ "${1:-}" = --exchange-mtu ]; then
	mtu=$2
	shift 2
fi
exec scripts/vm/run.sh --timeout 900 --exchange-mtu "$mtu" \
	"$bin/dfu-bench" smp --dfu-sim "$bin/dfu-sim" --smpmgr scripts/vm/smpmgr-client.sh "$@"
