#!/usr/bin/env bash
# Inside the VM (scripts/vm/smpmgr.sh): dfu-sim --simulate smp-app on hci1, smpmgr on hci0.
# usage: smpmgr-guest.sh BIN_DIR VENV IMAGE [DFU-SIM OPTION…]
set -euo pipefail
bin=$1 venv=$2 image=$3
shift 3
. "$(dirname "$0")/dfu-sim-guest.sh"
start_dfu_sim "$bin" "$venv/bin/python" smp-app "$@"
# smpmgr 0.19.1 does not retry a connection, and under TCG the central's first link now and
# then drops just after its services resolve (bleak: "failed to discover services, device
# disconnected"; docs/dfu-sim.md, "nrf-ota"), before anything is sent: smpmgr runs once more on
# that message alone, and says so; any other failure, or that one twice, fails.
advertised=$(grep -c '"advertising"' "$events")
echo "== smpmgr --ble $address upgrade --confirm $image"
run_client smpmgr "failed to discover services, device disconnected" \
	"smpmgr's first link dropped before anything was sent (it does not retry)" \
	run_bleak_client "$venv/bin/python" smpmgr.main app smpmgr --ble "$address" --timeout 10 \
	upgrade --confirm "$image"
# Let the device come back from its reset (and MCUboot's swap) before it reports what it runs:
# one advertisement more than before, and one for each dropped link of a run done again.
for _ in $(seq 50); do
	[ "$(grep -c '"advertising"' "$events")" -ge $((advertised + attempts)) ] && break
	sleep 0.2
done
stop_dfu_sim
[ $status = 0 ] || exit 1
# dfu-sim must run exactly the uploaded image, swapped in for good.
"$venv/bin/python" - "$events" "$image" <<'PY'
import hashlib, json, sys
from smpclient.mcuboot import IMAGE_TLV, ImageInfo
events = [json.loads(line) for line in open(sys.argv[1])]
held = [e for e in events if e.get("event") == "simulator"][-1]
data = open(sys.argv[2], "rb").read()
image_hash = ImageInfo.load_file(sys.argv[2]).get_tlv(IMAGE_TLV.SHA256).value.hex()
running = held["slots"][0]
file_sha = held["images"]["application"]["sha256"]
print(f"sent {len(data)} bytes, image hash {image_hash}; dfu-sim runs {running}, file sha256 {file_sha}")
ok = (running["hash"] == image_hash and running["active"] and running["confirmed"]
      and file_sha == hashlib.sha256(data).hexdigest())
sys.exit(0 if ok else 1)
PY
