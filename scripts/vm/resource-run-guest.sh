#!/usr/bin/env bash
# Inside the VM (scripts/vm/resource-run.sh): dfu-sim --simulate secure-app-bonded on hci1 (the
# bootloader keeps the address, so every update finds it the same way), dfu-bench resources on hci0.
# usage: resource-run-guest.sh BIN_DIR UPDATES PACKAGE
set -euo pipefail
bin=$1 updates=$2 package=$3
events=$(mktemp)
"$bin/dfu-sim" --simulate secure-app-bonded --adapter hci1 --json > "$events" &
sim=$!
trap 'kill $sim 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q '"advertising"' "$events" && break; sleep 0.2; done
address=$(sed -n 's/.*"device":"\([0-9A-F:]*\)".*/\1/p' "$events" | head -1)
[ -n "$address" ] || { echo "dfu-sim did not advertise"; cat "$events"; exit 1; }
set +e
"$bin/dfu-bench" resources --device "$address" --adapter hci0 --package "$package" --updates "$updates" \
	--watch "$sim" --watch "$(cat /run/bzvm/bluetoothd.pid)"
status=$?
set -e
kill -INT $sim
wait $sim || { echo "dfu-sim exited $?"; exit 1; }
trap - EXIT
grep '"simulator"' "$events"
exit $status
