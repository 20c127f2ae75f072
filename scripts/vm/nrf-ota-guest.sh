#!/usr/bin/env bash
# Inside the VM (scripts/vm/nrf-ota.sh): dfu-sim --simulate legacy on hci1, nrf-ota on hci0.
# usage: nrf-ota-guest.sh BIN_DIR VENV PACKAGE [DFU-SIM OPTION…]
set -euo pipefail
bin=$1 venv=$2 package=$3
shift 3
. "$(dirname "$0")/dfu-sim-guest.sh"
start_dfu_sim "$bin" "$venv/bin/python" legacy "$@"
# nrf-ota 0.4.0's connection attempts share one "disconnected" flag that the first attempt's
# dropped link sets and nothing clears: after a retried connection it stops with "Device
# disconnected before DFU could begin" although the link it retried is up (nrf_ota/scan.py,
# _connect_with_retry; nrf_ota/__init__.py). Under TCG the central's first link now and then
# drops just after its services resolve (docs/dfu-sim.md, "nrf-ota"). The device, sent nothing,
# takes the update again: nrf-ota runs once more then, and says so; any other failure, or that
# one twice, fails.
echo "== nrf-ota $package --device $address"
run_client nrf-ota "Device disconnected before DFU could begin" \
	"nrf-ota stopped on its stale disconnect flag after a retried connection (its defect)" \
	run_bleak_client "$venv/bin/python" nrf_ota.__main__ main nrf-ota "$package" --device "$address" \
	--timeout 10 --quiet
stop_dfu_sim
[ $status = 0 ] || exit 1
# dfu-sim must hold exactly the package's application image.
"$venv/bin/python" - "$events" "$package" <<'PY'
import hashlib, json, sys, zipfile
events = [json.loads(line) for line in open(sys.argv[1])]
held = [e for e in events if e.get("event") == "simulator"][-1]
with zipfile.ZipFile(sys.argv[2]) as z:
    manifest = json.loads(z.read("manifest.json"))["manifest"]
    image = z.read(manifest["application"]["bin_file"])
application = held["images"].get("application", {})
expected = hashlib.sha256(image).hexdigest()
print(f"sent {len(image)} bytes sha256 {expected}; dfu-sim holds {application}")
sys.exit(0 if application.get("sha256") == expected and held["mode"] == "application" else 1)
PY
