#!/usr/bin/env bash
# An update through real bluetoothd by an ordinary user (docs/packaging.md, "Root or not"): in a
# VM (scripts/vm/run.sh, Debian's D-Bus policy for org.bluez), dfu-sim serves secure-app on hci1
# and `dfu-update flash` runs on hci0 as nobody (no groups), with the packaged binaries of
# scripts/package.sh (.build/deb/stage). Fails unless the update completes. About 40 s.
#
# usage: scripts/deb/vm-unprivileged.sh [--sim-as-nobody]     root; dfu-sim runs as root unless
#                                                             --sim-as-nobody
# (inside the VM it runs itself again with --guest)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$PWD/.build/deb/stage/usr/bin
as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)

if [ "${1:-}" != --guest ]; then
	[ -x "$bin/dfu-update" ] || { echo "vm-unprivileged.sh: run scripts/package.sh first" >&2; exit 1; }
	exec scripts/vm/run.sh --timeout 400 "$0" --guest "${1:-}"
fi

sim=()
[ "${2:-}" = --sim-as-nobody ] && sim=("${as_nobody[@]}")
events=$(mktemp)
"${sim[@]}" "$bin/dfu-sim" --simulate secure-app --adapter hci1 --json > "$events" &
sim_pid=$!
trap 'kill $sim_pid 2> /dev/null || true' EXIT
for _ in $(seq 100); do grep -q '"advertising"' "$events" && break; sleep 0.2; done
address=$(grep '"advertising"' "$events" | sed -n 's/.*"device":"\([0-9A-F:]*\)".*/\1/p' | head -n 1)
[ -n "$address" ] || { cat "$events"; echo "vm-unprivileged.sh: dfu-sim did not advertise" >&2; exit 1; }
echo "== dfu-sim as $(if [ ${#sim[@]} -gt 0 ]; then echo nobody; else echo root; fi) at $address;" \
	"dfu-update as $("${as_nobody[@]}" id)"
timeout 60 "${as_nobody[@]}" "$bin/dfu-update" adapters
result=$(timeout 240 "${as_nobody[@]}" "$bin/dfu-update" flash Firmware/secure_app.zip --device "$address" \
	--adapter hci0 --json | grep '"result"' || true)
echo "$result"
grep -v '"progress"' "$events"
echo "$result" | grep -q '"result":"completed"' ||
	{ echo "vm-unprivileged.sh: the update by nobody did not complete" >&2; exit 1; }
