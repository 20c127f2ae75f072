#!/usr/bin/env bash
# bluetoothd in the VM, by the pid this script recorded, never by name: guest-init.sh starts it
# here, and the system tests (DaemonFailureTests) kill and restore it.
#
# usage: bluetoothd-control.sh start | kill | restore
#   start    start bluetoothd with the command line guest-init.sh left in /run/bzvm/bluetoothd.cmdline,
#            record its pid in /run/bzvm/bluetoothd.pid, wait (30 s) until it is on the system bus
#   kill     SIGKILL it (as a crash would end it) and wait (10 s) until it is gone
#   restore  start it unless it runs, then wait (20 s) until it lists an adapter for every
#            controller the kernel has, and power them all on (10 s)
# Exit status 0 when done, 1 when a wait ran out (the reason on stderr).
here=$(dirname "$0")
. "$here/guest-lib.sh"
pidfile=$control/bluetoothd.pid
fail() { echo "bluetoothd-control: $*" >&2; exit 1; }
# a zombie is not running: check the process state, not only that the pid exists
running() {
	[ -s $pidfile ] || return 1
	state=$(awk '{ print $3 }' "/proc/$(cat $pidfile)/stat" 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ]
}
not_running() { ! running; }
on_bus() { bluez_objects > /dev/null; }
controllers() { ls /sys/class/bluetooth | grep -c '^hci[0-9]*$'; }
every_adapter() { [ "$(controllers)" -gt 0 ] && [ "$(adapters)" -ge "$(controllers)" ]; }
every_powered() { [ "$(btmgmt info 2>/dev/null | grep -c 'current settings: powered')" -ge "$(controllers)" ]; }

case "${1:-}" in
start)
	[ -s $control/bluetoothd.cmdline ] || fail "no $control/bluetoothd.cmdline"
	# Only the log: a descriptor inherited from the caller (a test's output pipe) would stay
	# open as long as bluetoothd runs, and the caller would wait for its end forever.
	(
		for fd in $(ls /proc/$BASHPID/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done
		# shellcheck disable=SC2046
		exec $(cat $control/bluetoothd.cmdline) >> $logs/bluetoothd.log 2>&1 < /dev/null
	) &
	echo $! > $pidfile
	wait_for 30 on_bus || fail "bluetoothd is not on the bus after 30 s"
	;;
kill)
	running || fail "bluetoothd does not run"
	kill -KILL "$(cat $pidfile)"
	wait_for 10 not_running || fail "bluetoothd $(cat $pidfile) is still there 10 s after SIGKILL"
	;;
restore)
	if ! running; then
		echo "== bluetoothd restarted at $(uptime)" >> $logs/bluetoothd.log
		"$0" start || exit 1
	fi
	wait_for 20 every_adapter || fail "bluetoothd lists $(adapters) adapters for $(controllers) controllers"
	for index in $(ls /sys/class/bluetooth | sed -n 's/^hci\([0-9]*\)$/\1/p'); do
		btmgmt --index "$index" power on > /dev/null 2>&1
	done
	wait_for 10 every_powered || fail "not every adapter powered on: $(btmgmt info 2>&1 | grep 'current settings')"
	;;
*)
	sed -n "5,11p" "$0" >&2
	exit 2
	;;
esac
