#!/usr/bin/env bash
# Unpacks Debian's current linux-image-amd64 of a suite into the VM's cache (never installs it)
# and prints the kernel's directory there: DIR/root/boot/vmlinuz-VERSION, DIR/root/lib/modules/VERSION
# (uncompressed modules, depmod run), DIR/version.
#
# usage: scripts/vm/fetch-kernel.sh CACHE [SUITE]
#   without SUITE: the kernel of the host's own apt sources (Debian 12: 6.1);
#   with one (trixie, bookworm-backports, …): that suite of deb.debian.org, through an apt
#   configuration of its own under CACHE/apt-SUITE, which leaves the host's apt sources alone.
# Called by run.sh under its cache lock. Needs root (apt-get).
set -euo pipefail
cache=$1 suite=${2:-}
say() { echo "vm: $*" >&2; }

apt_options=()
if [ -n "$suite" ]; then
	state=$cache/apt-$suite
	mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
	# the suite's Release is signed with the keys of debian-archive-keyring (trixie's are in
	# bookworm's package)
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
		> "$state/sources.list"
	apt_options=(
		-o "Dir::Etc::SourceList=$state/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
		-o APT::Sandbox::User=root
	)
fi
kernel_package() {
	apt-cache "${apt_options[@]}" depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }' || true # none yet: apt-get update
}
kpkg=$(kernel_package)
[ -n "$kpkg" ] || { apt-get "${apt_options[@]}" update -qq; kpkg=$(kernel_package); }
[ -n "$kpkg" ] || { say "cannot resolve linux-image-amd64${suite:+ of $suite} through apt"; exit 2; }
kver=${kpkg#linux-image-}
# the suite is part of the key: two suites may build the same version differently
kdir=$cache/${suite:-host}/$kver
if [ ! -e "$kdir/complete" ]; then
	say "fetching $kpkg${suite:+ ($suite)}"
	rm -rf "$kdir"
	mkdir -p "$kdir/download"
	(cd "$kdir/download" && apt-get "${apt_options[@]}" download -q "$kpkg" >/dev/null)
	dpkg -x "$kdir"/download/*.deb "$kdir/root"
	rm -rf "$kdir/download"
	# Debian 13's package puts its modules under /usr/lib (merged /usr); the host's depmod and
	# run.sh look under /lib
	[ -e "$kdir/root/lib" ] || ln -s usr/lib "$kdir/root/lib"
	# Debian 13's modules are xz-compressed (.ko.xz); the initramfs loads its few with busybox's
	# insmod, which takes plain ones: keep them all uncompressed.
	find "$kdir/root/lib/modules/$kver" -name '*.ko.xz' -exec xz -d {} +
	depmod -b "$kdir/root" "$kver"
	echo "$kver" > "$kdir/version"
	touch "$kdir/complete"
fi
echo "$kdir"
