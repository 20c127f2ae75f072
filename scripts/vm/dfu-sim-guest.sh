# Inside the VM: runs dfu-sim on hci1 for a test client on hci0; sourced by the *-guest.sh scripts.
# start_dfu_sim BIN PYTHON KIND [OPTION…]: starts it, waits for it to advertise, sets $address.
# stop_dfu_sim: stops it (SIGINT: it reports what it holds), prints its events; $events keeps them.
start_dfu_sim() {
	local bin=$1 python=$2
	shift 2
	events=$(mktemp)
	"$bin/dfu-sim" --simulate "$@" --adapter hci1 --json > "$events" &
	sim=$!
	trap 'kill $sim 2>/dev/null || true' EXIT
	for _ in $(seq 100); do grep -q '"advertising"' "$events" && break; sleep 0.2; done
	address=$("$python" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["device"])' "$events")
}

stop_dfu_sim() {
	kill -INT $sim
	wait $sim || { echo "dfu-sim exited $?"; exit 1; }
	trap - EXIT
	cat "$events"
}

# run_bleak_client PYTHON MODULE FUNCTION NAME [ARG…]: runs a bleak-based client's command line
# (MODULE.FUNCTION, argv[0] NAME) for at most 240 s. bleak takes the first powered adapter, which
# may be hci1 (dfu-sim's), and these clients have no adapter option: pin bleak's default to hci0.
run_bleak_client() {
	local python=$1 module=$2 function=$3 name=$4
	shift 4
	timeout 240 "$python" -c "
import sys
from bleak.backends.bluezdbus.manager import BlueZManager
BlueZManager.get_default_adapter = lambda self: '/org/bluez/hci0'
from $module import $function
sys.argv = ['$name'] + sys.argv[1:]
$function()
" "$@"
}

# run_client NAME MESSAGE NOTE COMMAND…: runs a client's COMMAND (run_bleak_client …), and once
# more when it failed with MESSAGE in its output (a failure of the client's own, met before it
# sent anything), printing NOTE; sets $status (the last run's) and $attempts.
run_client() {
	local name=$1 message=$2 note=$3 output started
	shift 3
	output=$(mktemp)
	for attempts in 1 2; do
		started=$(date +%s.%N)
		set +e
		"$@" 2>&1 | tee "$output"
		status=${PIPESTATUS[0]}
		set -e
		echo "== $name exited $status after $(seconds_since "$started") s"
		[ "$status" = 0 ] || [ "$attempts" = 2 ] || ! grep -q "$message" "$output" && break
		echo "== $note: once more"
	done
	rm -f "$output"
}

# seconds_since START: seconds elapsed since START (date +%s.%N), one decimal
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
