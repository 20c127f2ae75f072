#!/usr/bin/env bash
# Updates the Legacy `dfu-sim` device with nrf-ota (PyPI; Legacy DFU over bleak), a DFU client this
# project did not write, through real bluetoothd in the VM: dfu-sim on hci1, nrf-ota on hci0
# (bleak's default adapter). Passes when nrf-ota succeeds and dfu-sim holds exactly the image of
# the package. Needs root (scripts/vm/run.sh); builds first unless DFU_SKIP_BUILD=1.
#
# usage: scripts/vm/nrf-ota.sh [PACKAGE [DFU-SIM OPTION…]]
#   default: Firmware/legacy_app.zip --sim-sd-id 0x88 (the SoftDevice its init packet requires)
set -euo pipefail
cd "$(dirname "$0")/../.."
package=${1:-Firmware/legacy_app.zip}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- --sim-sd-id 0x88
# Pinned: the versions this script was checked with.
requirements=(nrf-ota==0.4.0 bleak==3.1.0 dbus-fast==5.2.0)
venv=.build/nrf-ota-venv
scripts/vm/python-venv.sh "$venv" "nrf_ota, bleak" "${requirements[@]}"
[ "${DFU_SKIP_BUILD:-0}" = 1 ] || swift build
bin=$(swift build --show-bin-path)
exec scripts/vm/run.sh --timeout 300 scripts/vm/nrf-ota-guest.sh "$bin" "$venv" "$package" "$@"
