#!/usr/bin/env bash
# Builds btvirt from Debian 12's BlueZ 5.66 source with one change, for VM runs that need
# several links on one virtual controller (docs/fleet.md, "One central, several links").
#
# Debian's btvirt (BlueZ 5.66) forwards a link's traffic under the wrong handle at one end of a
# controller's second link; scripts/vm/btvirt-same-handle.py is the change. Single-link runs see
# no difference. (scripts/vm/build-bluez.sh builds a whole BlueZ, btvirt with the same change.)
#
# usage: scripts/vm/build-btvirt.sh      prints the path of the built btvirt (under .build/)
# Fetches the source from Debian's archive (pinned by checksum) once; builds with cc in seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=5.66
sha256=a231fb9d151780edf6d2536c81914e2dbd3daa36b68f486badaf98a7f34021e4
url=http://deb.debian.org/debian/pool/main/b/bluez/bluez_$version.orig.tar.xz
out=.build/btvirt
binary=$out/btvirt
stamp=$out/built-from
recipe="$sha256 $(cat "$0" scripts/vm/btvirt-same-handle.py | sha256sum | cut -d' ' -f1)"
if [ -x "$binary" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$recipe" ]; then
	echo "$PWD/$binary"
	exit 0
fi
# what the fetch and the build need, from Debian (as root, as scripts/vm/run.sh runs)
missing=()
for package in curl xz-utils gcc libc6-dev python3; do
	dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "build-btvirt.sh: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
rm -rf "$out"
mkdir -p "$out"
tarball=$out/bluez_$version.orig.tar.xz
curl -sSfL --retry 3 -o "$tarball" "$url"
echo "$sha256  $tarball" | sha256sum -c --quiet -
tar -xf "$tarball" -C "$out"
src=$out/bluez-$version
# the change (both ends of a link take the same handle)
python3 scripts/vm/btvirt-same-handle.py "$src/emulator/btdev.c"
# the headers as installed (<bluetooth/…>) and the one configure define btvirt uses
mkdir -p "$src/lib/bluetooth"
for header in "$src"/lib/*.h; do ln -sf "../$(basename "$header")" "$src/lib/bluetooth/"; done
printf '#define VERSION "%s"\n' "$version" > "$src/config.h"
sources=(
	emulator/main.c emulator/serial.c emulator/server.c emulator/vhci.c emulator/btdev.c
	emulator/bthost.c emulator/smp.c emulator/phy.c emulator/amp.c emulator/le.c
	lib/bluetooth.c lib/hci.c lib/uuid.c
	src/shared/queue.c src/shared/util.c src/shared/crypto.c src/shared/ecc.c src/shared/mainloop.c
	src/shared/io-mainloop.c src/shared/timeout-mainloop.c src/shared/mainloop-notify.c
)
(cd "$src" && gcc -O2 -w -DHAVE_CONFIG_H -include config.h -I. -Ilib -o ../btvirt "${sources[@]}")
rm -rf "$src" "$tarball"
echo "$recipe" > "$stamp"
echo "$PWD/$binary"
