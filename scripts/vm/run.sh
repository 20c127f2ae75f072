#!/usr/bin/env bash
# Runs a command inside a throw-away QEMU VM that has a real BlueZ stack: Debian's kernel with
# bluetooth + hci_vhci, a private system D-Bus, bluetoothd (the host's 5.66, or --bluez;
# `[GATT] Channels = 1`) and virtual LE controllers hci0, hci1, … that see and connect to each
# other (btvirt).
#
# usage: scripts/vm/run.sh [options] [--] CMD [ARG...]
#   --timeout SEC          stop the VM after SEC seconds (default 600)
#   --controllers N        N virtual controllers, hci0 … hciN-1 (default 2; the fleet system
#                          test needs 4: three dfu-sim devices and one central controller)
#   --btvirt PATH          run this btvirt instead of Debian's (scripts/vm/build-btvirt.sh)
#   --bluez DIR            run DIR/bluetoothd (and DIR/btvirt unless --btvirt) instead of the
#                          host's 5.66: another BlueZ, scripts/vm/build-bluez.sh (its D-Bus policy
#                          stays the host's; DIR/bluetoothctl, when there, is named to CMD in
#                          DFU_VM_BLUETOOTHCTL); default: $DFU_VM_BLUEZ when set (so that the
#                          scripts calling run.sh, e.g. nrf-ota.sh, run against it too)
#   --kernel-suite SUITE   boot the kernel of that Debian suite (trixie: Debian 13's 6.12,
#                          bookworm-backports) instead of the host's (Debian 12: 6.1), fetched by
#                          fetch-kernel.sh with an apt configuration of its own; default:
#                          $DFU_VM_KERNEL_SUITE when set
#   --logs DIR             copy bluetoothd/btvirt/dbus logs of the VM to DIR; default:
#                          $DFU_VM_LOGS when set (for the scripts calling run.sh)
#   --bluetoothd-args ARGS extra bluetoothd arguments, e.g. "-d" (debug) or "-E" (experimental)
#   --exchange-mtu N       the ATT MTU bluetoothd offers (its [GATT] ExchangeMTU; default 517)
#   --env NAME             pass the host's $NAME into the VM (repeatable; PATH always is)
#   --mem MiB (2048)  --smp N (2)  --tcg | --kvm (default: KVM when usable, else TCG)
#   --no-install           do not apt-get install missing packages (fail instead)
#
# The VM sees the host root read-only (so the host's toolchain and build products run in it)
# and the current directory read-write at the same path; CMD runs there with DFU_UPDATE_VM=1 and
# DFU_UPDATE_VM_CONTROLLERS=N in its environment. Kernel and initramfs are cached in $BZVM_CACHE
# (default /tmp/bzvm-cache).
# Exit status: CMD's; 124 when the VM timed out; 125 when the VM ended without a status;
# 126 when BlueZ did not come up in the VM. Needs root (apt, exporting / over 9p).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${BZVM_CACHE:-/tmp/bzvm-cache}
timeout=600 controllers=2 btvirt="" bluez=${DFU_VM_BLUEZ:-} kernel_suite=${DFU_VM_KERNEL_SUITE:-} logs=${DFU_VM_LOGS:-} bluetoothd_args="" exchange_mtu="" mem=2048 smp=2 accel=auto install=1
pass_env=(PATH)
while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) timeout=$2; shift 2 ;;
	--controllers) controllers=$2; shift 2 ;;
	--btvirt) btvirt=$2; shift 2 ;;
	--bluez) bluez=$2; shift 2 ;;
	--kernel-suite) kernel_suite=$2; shift 2 ;;
	--logs) logs=$2; shift 2 ;;
	--bluetoothd-args) bluetoothd_args=$2; shift 2 ;;
	--exchange-mtu) exchange_mtu=$2; shift 2 ;;
	--env) pass_env+=("$2"); shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--tcg) accel=tcg; shift ;;
	--kvm) accel=kvm; shift ;;
	--no-install) install=0; shift ;;
	--) shift; break ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { sed -n '2,33p' "$0" >&2; exit 2; }
bluetoothd=/usr/libexec/bluetooth/bluetoothd
if [ -n "$bluez" ]; then
	bluez=$(cd "$bluez" && pwd)
	bluetoothd=$bluez/bluetoothd
	[ -n "$btvirt" ] || btvirt=$bluez/btvirt
	[ -x "$bluetoothd" ] && [ -x "$btvirt" ] || { echo "run.sh: no bluetoothd and btvirt in $bluez" >&2; exit 2; }
fi
btvirt=${btvirt:-btvirt}
case "$controllers" in [2-9]) ;; *) echo "run.sh: --controllers takes 2 to 9" >&2; exit 2 ;; esac
say() { echo "vm: $*" >&2; }
[ "$(id -u)" = 0 ] || { say "needs root (apt-get, exporting / to the VM)"; exit 2; }
started=$(date +%s.%N)

# ---- host packages
packages=(qemu-system-x86 bluez bluez-test-tools busybox-static dbus kmod cpio)
missing=()
for package in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ $install = 1 ] || { say "missing packages: ${missing[*]}"; exit 2; }
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# without recommends: qemu would pull a desktop stack
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---- kernel: Debian's linux-image-amd64 (the host's suite, or --kernel-suite), unpacked into
# the cache, never installed
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
kdir=$("$here/fetch-kernel.sh" "$cache" "$kernel_suite")
kver=$(cat "$kdir/version")
modules_dir=$kdir/root/lib/modules/$kver

# ---- initramfs: busybox, the virtio/9p modules in dependency order, our /init
initrd=$kdir/initrd.gz
if [ ! -e "$initrd" ] || [ "$here/initramfs-init.sh" -nt "$initrd" ]; then
	say "building the initramfs"
	tree=$(mktemp -d)
	mkdir -p "$tree"/{bin,dev,proc,sys,modules,newroot}
	cp /bin/busybox "$tree/bin/busybox"
	install -m 755 "$here/initramfs-init.sh" "$tree/init"
	for module in virtio_pci 9pnet_virtio 9p; do
		modprobe -d "$kdir/root" -S "$kver" --show-depends "$module" | awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r path; do
		cp "$path" "$tree/modules/"
		basename "$path" >> "$tree/modules.list"
	done
	(cd "$tree" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.new"
	mv "$initrd.new" "$initrd"
	rm -rf "$tree"
fi
flock -u 9

# ---- the run's control directory, shared with the VM
control=$(mktemp -d /tmp/bzvm-run.XXXXXX)
qemu_pid=""
cleanup() {
	if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
		kill "$qemu_pid" 2>/dev/null || true
		sleep 1
		kill -9 "$qemu_pid" 2>/dev/null || true
	fi
	rm -rf "$control"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
printf '%q ' "$@" > "$control/command"
echo >> "$control/command"
pwd > "$control/cwd"
{
	echo "export DFU_UPDATE_VM=1"
	echo "export DFU_UPDATE_VM_CONTROLLERS=$controllers"
	# that BlueZ's own client, when built beside it (scripts/vm/build-bluez.sh)
	[ -n "$bluez" ] && [ -x "$bluez/bluetoothctl" ] && printf 'export DFU_VM_BLUETOOTHCTL=%q\n' "$bluez/bluetoothctl"
	for name in "${pass_env[@]}"; do
		[ -n "${!name+set}" ] && printf 'export %s=%q\n' "$name" "${!name}"
	done
} > "$control/env"
printf '%s' "$bluetoothd_args" > "$control/bluetoothd-args"
if [ -n "$exchange_mtu" ]; then
	# the VM's configuration with the MTU added to its [GATT] section (the file's last)
	{ cat "$here/bluetoothd.conf"; echo "ExchangeMTU = $exchange_mtu"; } > "$control/bluetoothd.conf"
fi
echo "$controllers" > "$control/controllers"
echo "$btvirt" > "$control/btvirt"
echo "$bluetoothd" > "$control/bluetoothd"

# ---- accelerator
if [ $accel = auto ]; then
	# PVM hosts (module kvm_pvm, e.g. some sandboxes) expose /dev/kvm but run only PVM-enabled
	# guest kernels; Debian's kernel hangs there before its first line. Use TCG on them.
	if [ -d /sys/module/kvm_pvm ]; then
		accel=tcg
	elif [ -w /dev/kvm ]; then
		accel=kvm
	else
		accel=tcg
	fi
fi
if [ $accel = kvm ]; then
	# -arch-capabilities: nested KVM hosts refuse MSR 0x10a and qemu aborts
	accelerator=(-accel kvm -cpu host,-arch-capabilities)
else
	accelerator=(-accel tcg,thread=multi -cpu max)
fi

# ---- shares: host root (ro), kernel modules (ro), control (rw), working directory (rw)
work=$(pwd)
# the kernel command line and qemu's -fsdev syntax cannot carry spaces or commas
case "$work" in *[\ ,]* | /) say "not sharing the working directory '$work'"; work="" ;; esac
case "$here" in *[\ ,]*) say "the path of scripts/vm must not contain spaces or commas"; exit 2 ;; esac
shares=(
	-fsdev "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap"
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
	-fsdev "local,id=modules,path=$modules_dir,security_model=none,readonly=on"
	-device virtio-9p-pci,fsdev=modules,mount_tag=modules
	-fsdev "local,id=control,path=$control,security_model=none"
	-device virtio-9p-pci,fsdev=control,mount_tag=control
)
[ -n "$work" ] && shares+=(
	-fsdev "local,id=work,path=$work,security_model=none,multidevs=remap"
	-device virtio-9p-pci,fsdev=work,mount_tag=work
)

say "booting $kver ($accel, ${smp} CPUs, ${mem} MiB, timeout ${timeout} s)"
qemu-system-x86_64 "${accelerator[@]}" -m "$mem" -smp "$smp" -machine q35 \
	-nodefaults -no-user-config -display none -no-reboot \
	-chardev stdio,id=console,signal=off -serial chardev:console \
	-kernel "$kdir/root/boot/vmlinuz-$kver" -initrd "$initrd" \
	-append "console=ttyS0 quiet clocksource=tsc tsc=reliable loglevel=3 panic=-1 rdinit=/init bzvm.init=$here/guest-init.sh bzvm.work=$work" \
	"${shares[@]}" </dev/null &
qemu_pid=$!

deadline=$(($(date +%s) + timeout))
timed_out=0
while kill -0 "$qemu_pid" 2>/dev/null; do
	if [ "$(date +%s)" -ge "$deadline" ]; then timed_out=1; break; fi
	sleep 0.5
done
if [ $timed_out = 1 ]; then kill "$qemu_pid" 2>/dev/null || true; fi
wait "$qemu_pid" 2>/dev/null || true

if [ -n "$logs" ] && [ -d "$control/logs" ]; then
	mkdir -p "$logs"
	cp -r "$control/logs/." "$logs/"
fi
elapsed=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
ready=$(cat "$control/ready" 2>/dev/null || echo "?")
say "BlueZ ready ${ready} s after boot; whole run ${elapsed} s"
if [ $timed_out = 1 ]; then say "timed out after ${timeout} s"; exit 124; fi
[ -s "$control/status" ] || { say "the VM ended without a status"; exit 125; }
exit "$(cat "$control/status")"
