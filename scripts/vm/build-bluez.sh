#!/usr/bin/env bash
# Builds bluetoothd, btvirt and bluetoothctl of another BlueZ than the host's (Debian 12's 5.66),
# for the VM:
# Debian 13's BlueZ 5.82 (`scripts/vm/run.sh --bluez DIR`; docs/bluez-module.md, "BlueZ 5.66 and
# 5.82"). The source is Debian's source package (upstream tarball + Debian's patches), fetched
# from Debian's archive and pinned by checksum; btvirt gets scripts/vm/btvirt-same-handle.py
# (several links on one controller, docs/fleet.md). Configured with what bluetoothd needs on
# Debian 12 (glib, D-Bus, readline for bluetoothctl), nothing else built. About 2 minutes on 2 cores, then cached in
# .build/bluez-VERSION, keyed on the checksums and this script's hash.
#
# usage: scripts/vm/build-bluez.sh [VERSION]   (5.82, the default) prints the directory holding
#                                               bluetoothd, btvirt and bluetoothctl. Needs root to install the
#                                               build dependencies when they are missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=${1:-5.82}
case "$version" in
5.82)
	debian=5.82-1.1 # Debian 13 (trixie)
	orig=bluez_5.82.orig.tar.gz orig_sha256=818e2bfa64d3d26b49cc857448f00f4fc7bb76949266de8d7f4c07f8057bf95c
	patches=bluez_$debian.debian.tar.xz patches_sha256=dd32f06a527859709055912ac8c8a0377030f7f34d7d6a9cc7f5938ed8bac659
	;;
*) echo "build-bluez.sh: no pinned source for BlueZ $version" >&2; exit 2 ;;
esac
pool=http://deb.debian.org/debian/pool/main/b/bluez
out=$PWD/.build/bluez-$version
stamp=$out/built-from
recipe="$orig_sha256 $patches_sha256 $(cat "$0" scripts/vm/btvirt-same-handle.py | sha256sum | cut -d' ' -f1)"
if [ -x "$out/bluetoothd" ] && [ -x "$out/btvirt" ] && [ -x "$out/bluetoothctl" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$recipe" ]; then
	echo "$out"
	exit 0
fi
started=$(date +%s)
# what the fetch and the build need, from Debian 12 (as root, as scripts/vm/run.sh runs)
missing=()
for package in curl xz-utils patch gcc make libc6-dev pkg-config libglib2.0-dev libdbus-1-dev libreadline-dev python3; do
	dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "build-bluez.sh: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	timeout 600 apt-get update -qq
	timeout 600 apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
work=$out.build
rm -rf "$out" "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
curl -sSfL --retry 3 -m 300 -o "$work/$orig" "$pool/$orig"
curl -sSfL --retry 3 -m 300 -o "$work/$patches" "$pool/$patches"
printf '%s  %s\n' "$orig_sha256" "$work/$orig" "$patches_sha256" "$work/$patches" | sha256sum -c --quiet -
tar -xf "$work/$orig" -C "$work"
tar -xf "$work/$patches" -C "$work"
src=$work/bluez-$version
# Debian's patches, in Debian's order, so that bluetoothd is the one Debian ships
while read -r patch; do
	case "$patch" in '' | '#'*) continue ;; esac
	patch -d "$src" -p1 -s < "$work/debian/patches/$patch"
done < "$work/debian/patches/series"
python3 scripts/vm/btvirt-same-handle.py "$src/emulator/btdev.c"
log=$work/build.log
(
	cd "$src"
	# Debian's paths (bluetoothd finds the VM's tmpfs /var/lib/bluetooth); --enable-testing: btvirt
	timeout 600 ./configure -q --prefix=/usr --sysconfdir=/etc --localstatedir=/var \
		--libexecdir=/usr/libexec --enable-testing --enable-debug --disable-obex --disable-cups \
		--disable-manpages --disable-udev --disable-systemd --disable-tools \
		--disable-monitor --disable-mesh --disable-midi
	# the generated headers first (lib/bluetooth/*.h, src/builtin.h), then the three programs only
	built=$(printf 'print-built:\n\t@echo $(BUILT_SOURCES)\n' | make -s -f Makefile -f - print-built)
	# shellcheck disable=SC2086
	timeout 1200 make -j"$(nproc)" $built src/bluetoothd emulator/btvirt client/bluetoothctl
) > "$log" 2>&1 || { tail -n 30 "$log" >&2; echo "build-bluez.sh: the build failed" >&2; exit 1; }
mkdir -p "$out"
cp "$src/src/bluetoothd" "$src/emulator/btvirt" "$src/client/bluetoothctl" "$out/"
echo "$recipe" > "$stamp"
echo "build-bluez.sh: BlueZ $debian built in $(($(date +%s) - started)) s" >&2
echo "$out"
