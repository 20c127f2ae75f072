# Helpers for the scripts that run inside the VM (guest-init.sh, bluetoothd-control.sh); sourced.
control=/run/bzvm
logs=$control/logs
uptime() { cut -d' ' -f1 /proc/uptime; }
say() { echo "[vm $(uptime)] $*"; }
# wait_for SECONDS CMD...: polls CMD until it succeeds; fails after SECONDS of uptime (a count
# of polls would stretch with the emulator's speed)
wait_for() {
	limit=$(awk -v now="$(uptime)" -v wait="$1" 'BEGIN { print now + wait }')
	shift
	until "$@"; do
		awk -v now="$(uptime)" -v limit="$limit" 'BEGIN { exit !(now > limit) }' && return 1
		sleep 0.1
	done
}
bluez_objects() {
	dbus-send --system --print-reply --dest=org.bluez / \
		org.freedesktop.DBus.ObjectManager.GetManagedObjects 2>/dev/null
}
adapters() { bluez_objects | grep -c '"org.bluez.Adapter1"'; }
