#!/usr/bin/env bash
# Inside the VM (scripts/vm/nrf-ota.sh): dfu-sim --simulate legacy on hci1, nrf-ota on hci0.
# usage: nrf-ota-guest.sh BIN_DIR VENV PACKAGE [DFU-SIM OPTION…]
set -euo pipefail
bin=$1 venv=$2 package=$3
shift 3
. "$(dirname "$0")/dfu-sim-guest.sh"
start_dfu_sim "$bin" "$venv/bin/python" legacy "$@"
echo "== nrf-ota $package --device $address"
started=$(date +%s.%N)
set +e
run_bleak_client "$venv/bin/python" nrf_ota.__main__ main nrf-ota "$package" --device "$address" --timeout 10 --quiet
status=$?
set -e
echo "== nrf-ota exited $status after $(seconds_since "$started") s"
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
