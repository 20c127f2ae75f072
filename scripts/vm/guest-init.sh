#!/bin/sh
# PID 1 inside the VM, on the host's read-only root. Brings up BlueZ with N virtual LE
# controllers that see each other (hci0 … hciN-1; N from run.sh's --controllers, in
# /run/bzvm/controllers), runs the command run.sh left in /run/bzvm, stores its exit status there
# and powers the VM off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
here=$(dirname "$0")
. "$here/guest-lib.sh"
mkdir -p $logs
phases=""
mark() { phases="$phases $1=$(uptime)"; }
finish() {
	echo "$1" > $control/status
	# the kernel's view (a daemon killed by a fault or a kernel BUG leaves no line of its own)
	dmesg > $logs/dmesg.log 2>&1
	sync
	busybox poweroff -f
}
give_up() {
	say "$1"
	btmgmt info 2>&1 | head -20
	dmesg | tail -20
	tail -n 20 $logs/*.log
	finish 126
}

ip link set lo up 2>/dev/null || busybox ip link set lo up

# The module tree is under /run/kernel (see initramfs-init.sh); the kernel's on-demand loads go
# through the same wrapper.
printf '#!/bin/sh\nexec /usr/sbin/modprobe -d /run/kernel "$@"\n' > /run/modprobe
chmod 755 /run/modprobe
echo /run/modprobe > /proc/sys/kernel/modprobe
/run/modprobe bluetooth && /run/modprobe hci_vhci || give_up "cannot load the bluetooth modules"
# Load up front what bluetoothd and SMP would request on demand: under TCG each on-demand load
# takes about a second, long enough for a virtual controller's HCI_Reset to time out.
for module in cmac ecdh_generic ccm bnep af_alg algif_hash algif_skcipher; do
	/run/modprobe -q $module
done

mark modules
# A daemon that dies of a fault leaves a core next to the logs (its kernel line is in dmesg.log).
ulimit -c unlimited
echo "$logs/core.%e.%p" > /proc/sys/kernel/core_pattern
mkdir -p /run/dbus
dbus-daemon --system --fork 2> $logs/dbus.log || give_up "dbus-daemon did not start"

# The exact command line, kept for bluetoothd-control.sh: the system tests kill and restart
# bluetoothd by the pid it records.
conf=$here/bluetoothd.conf
[ -f $control/bluetoothd.conf ] && conf=$control/bluetoothd.conf # run.sh --exchange-mtu
bluetoothd=$(cat $control/bluetoothd 2>/dev/null || echo /usr/libexec/bluetooth/bluetoothd)
say "bluetoothd $("$bluetoothd" --version) ($bluetoothd)"
echo "$bluetoothd -n -f $conf $(cat $control/bluetoothd-args)" > $control/bluetoothd.cmdline
"$here/bluetoothd-control.sh" start || give_up "bluetoothd did not start"

mark bluetoothd
controllers=$(cat $control/controllers 2>/dev/null || echo 2)
btvirt=$(cat $control/btvirt 2>/dev/null || echo btvirt)
all_adapters() { [ "$(adapters)" -ge "$controllers" ]; }
# a controller whose HCI_Reset timed out never comes: stop waiting for it at once
reset_failed() { dmesg | grep -q 'Opcode 0x0c03 failed'; }
adapters_or_reset_failed() { all_adapters || reset_failed; }
# btvirt starts only once bluetoothd is on the bus; when a controller's init still times out
# (a flake under TCG: "Opcode 0x0c03 failed: -110") bluetoothd lacks an adapter: restart btvirt.
attempt=0
while :; do
	attempt=$((attempt + 1))
	"$btvirt" -L -l"$controllers" >> $logs/btvirt.log 2>&1 &
	btvirt_pid=$!
	dmesg -C
	wait_for $((5 * controllers)) adapters_or_reset_failed
	all_adapters && break
	say "attempt $attempt: $(adapters) of $controllers adapters; restarting btvirt"
	kill $btvirt_pid; wait $btvirt_pid 2>/dev/null
	[ $attempt -ge 3 ] && give_up "bluetoothd has fewer than $controllers adapters after 3 attempts"
	sleep 1
done
mark controllers
index=0
while [ $index -lt "$controllers" ]; do
	btmgmt --index $index power on > /dev/null 2>&1
	index=$((index + 1))
done
all_powered() { [ "$(btmgmt info 2>/dev/null | grep -c 'current settings: powered')" -ge "$controllers" ]; }
wait_for 10 all_powered || give_up "the controllers did not power on"
say "bluez ready: hci0 … hci$((controllers - 1)) powered (attempts: $attempt; seconds after boot:$phases)"
echo "$(uptime)" > $control/ready

cd "$(cat $control/cwd)" 2>/dev/null || cd /
(. $control/env; exec bash $control/command)
status=$?
say "command exited with status $status"
finish $status
