#!/usr/bin/env bash
# Updates the SMP `dfu-sim` device (--simulate smp-app) with smpmgr (PyPI; MCUmgr SMP over bleak),
# an SMP client this project did not write, through real bluetoothd in the VM: dfu-sim on hci1,
# smpmgr on hci0. `smpmgr upgrade --confirm` uploads the image, marks it for a permanent swap and
# resets the device (without --confirm smpmgr 0.19 marks nothing, so MCUboot would not swap);
# passes when dfu-sim then runs exactly that image (its hash in slot 0, active and confirmed; the
# file's SHA-256 as the application). Needs root (scripts/vm/run.sh); builds dfu-sim first unless DFU_SKIP_BUILD=1.
#
# usage: scripts/vm/smpmgr.sh [IMAGE [DFU-SIM OPTION…]]
#   default: the imgtool fixture Tests/MCUmgrTests/Fixtures/ecdsa-p256.signed.bin (version 1.2.3+4)
set -euo pipefail
cd "$(dirname "$0")/../.."
image=${1:-Tests/MCUmgrTests/Fixtures/ecdsa-p256.signed.bin}
[ $# -gt 0 ] && shift
venv=.build/smpmgr-venv
scripts/vm/smpmgr-venv.sh
[ "${DFU_SKIP_BUILD:-0}" = 1 ] || swift build --product dfu-sim
bin=$(swift build --show-bin-path)
exec scripts/vm/run.sh --timeout 300 scripts/vm/smpmgr-guest.sh "$bin" "$venv" "$image" "$@"
