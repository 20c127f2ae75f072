#!/bin/busybox sh
# /init of the VM's initramfs (built by run.sh): loads the virtio/9p modules, mounts the host
# root read-only and the shares run.sh exports, then hands over to guest-init.sh on that root.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

while read -r module; do
	insmod "/modules/$module" || echo "initramfs: insmod $module failed"
done < /modules.list

# bzvm.NAME=VALUE from the kernel command line
param() {
	for word in $(cat /proc/cmdline); do
		case "$word" in "bzvm.$1="*) echo "${word#bzvm.$1=}"; return ;; esac
	done
}
nine() { mount -t 9p -o "trans=virtio,version=9p2000.L,msize=512000,$1" "$2" "$3"; }

root=/newroot
mkdir -p $root
# The host root does not change during a run: loose caching is safe and makes exec fast.
nine ro,cache=loose hostroot $root || { echo "initramfs: cannot mount the host root"; exec sh; }
for dir in /run /tmp /var/tmp /var/lib/bluetooth /var/log /root; do
	mount -t tmpfs -o mode=0755 tmpfs "$root$dir"
done
chmod 1777 $root/tmp $root/var/tmp

# Kernel modules: the host may have no /lib/modules (containers) and its root is read-only, so
# the guest's tree lives under /run/kernel and guest-init.sh points modprobe there.
kernel_dir=$root/run/kernel/lib/modules/$(uname -r)
mkdir -p "$kernel_dir"
nine ro,cache=loose modules "$kernel_dir"

mkdir -p $root/run/bzvm
nine rw,cache=none control $root/run/bzvm

work=$(param work)
if [ -n "$work" ]; then
	[ -d "$root$work" ] || mkdir -p "$root$work" 2>/dev/null
	nine rw,cache=mmap work "$root$work" || echo "initramfs: cannot mount the work directory $work"
fi

mount --move /dev $root/dev
mkdir -p $root/dev/pts $root/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts $root/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $root/dev/shm
init=$(param init)
mount --move /proc $root/proc
mount --move /sys $root/sys
exec switch_root $root /bin/sh "$init"
