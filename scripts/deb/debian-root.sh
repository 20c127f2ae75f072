#!/usr/bin/env bash
# Prints the path of a Debian 12 base root, as a tarball, for scripts/deb/check-package.sh: a
# minimal debootstrap with no Swift, plus what the check reads the package with (man-db, and the
# shells whose completions it loads). Made once (a few minutes) and cached outside the clone, under
# ${XDG_CACHE_HOME:-$HOME/.cache}/dfu-update/, keyed by this script: change the script, and the
# next run makes a new root. Needs root and Debian's archive.
#
# usage: scripts/deb/debian-root.sh      prints the tarball's path
set -euo pipefail
suite=bookworm
mirror=${DFU_DEBIAN_MIRROR:-http://deb.debian.org/debian}
include=man-db,bash-completion,zsh,fish
cache=${XDG_CACHE_HOME:-$HOME/.cache}/dfu-update
key=$(sha256sum "$0" | cut -c1-12)
tarball=$cache/debian12-root-$key.tar
if [ -s "$tarball" ]; then
	echo "$tarball"
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "debian-root.sh: debootstrap needs root" >&2; exit 1; }
command -v debootstrap > /dev/null ||
	{ echo "debian-root.sh: debootstrap is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
mkdir -p "$cache"
root=$(mktemp -d "$cache/root.XXXXXX")
# removed on the way out, unless debootstrap left something mounted in it
trap 'grep -q " $root/" /proc/mounts || rm -rf "$root" "$root.log"' EXIT
echo "debian-root.sh: debootstrap $suite into $root (once; cached as $tarball)" >&2
timeout 900 debootstrap --variant=minbase --include="$include" "$suite" "$root" "$mirror" > "$root.log" 2>&1 ||
	{ tail -n 20 "$root.log" >&2; echo "debian-root.sh: debootstrap failed" >&2; exit 1; }
chroot "$root" apt-get clean
# a root that held Swift would prove nothing about the package
if compgen -G "$root/usr/lib/swift*" > /dev/null || [ -e "$root/usr/bin/swift" ]; then
	echo "debian-root.sh: the base root holds Swift" >&2
	exit 1
fi
tar -C "$root" -cf "$tarball.part" .
mv "$tarball.part" "$tarball"
# earlier roots, made by other versions of this script
find "$cache" -maxdepth 1 -name 'debian12-root-*' ! -name "debian12-root-$key.tar" -delete
echo "$tarball"
