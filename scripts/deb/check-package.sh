#!/usr/bin/env bash
# Proves a .deb of scripts/package.sh on a clean Debian 12 with no Swift (docs/packaging.md):
# unpacks the cached base root (scripts/deb/debian-root.sh) into .build/deb-root, installs the
# package there with `apt-get install ./….deb` (its dependencies from Debian's archive), and runs
# the commands, their man pages and their completions in a chroot. Fails, naming the check, at
# the first that does not hold, and leaves the root there to look into; removes it when all hold.
# Needs root. Prints the package's size and the time of the first `dfu-update --help`.
#
# usage: scripts/deb/check-package.sh DEB
set -euo pipefail
cd "$(dirname "$0")/../.."
deb=$(realpath "${1:?usage: scripts/deb/check-package.sh DEB}")
[ "$(id -u)" = 0 ] || { echo "check-package.sh: the chroot needs root" >&2; exit 1; }
base=$(scripts/deb/debian-root.sh)
# downloaded dependencies, kept between runs beside the base root
archives=${XDG_CACHE_HOME:-$HOME/.cache}/dfu-update/apt-archives
root=.build/deb-root
mkdir -p "$archives"

unmount() { if mountpoint -q "$root/proc"; then umount "$root/proc"; fi; }
trap unmount EXIT
unmount
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$base"
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" Firmware/secure_app.zip "$root/tmp/"
find "$archives" -name '*.deb' -exec cp -t "$root/var/cache/apt/archives/" {} +

# in_root COMMAND: COMMAND, a shell line, in the root's clean environment, bounded in time
in_root() { timeout 300 chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive /bin/bash -o pipefail -c "$1"; }
# check WHAT COMMAND: fails the script, saying what did not hold, unless COMMAND succeeds
check() {
	local output
	if output=$(in_root "$2" 2>&1); then
		echo "ok: $1"
	else
		printf '%s\n' "$output" | tail -n 20 >&2
		echo "check-package.sh: FAILED: $1 (in $root)" >&2
		exit 1
	fi
}

check "no Swift in the root" '! compgen -G "/usr/lib/swift*" && ! command -v swift'
check "apt-get install ./$(basename "$deb")" \
	"apt-get update -qq && cd /tmp && apt-get install -y -qq --no-install-recommends ./$(basename "$deb")"
cp -u "$root"/var/cache/apt/archives/*.deb "$archives/" 2> /dev/null || true
check "every library the binaries link is installed" \
	'ldd /usr/bin/dfu-update /usr/bin/dfu-sim > /tmp/ldd && ! grep -E "not found|swift" /tmp/ldd'

# the first run of the installed binary (timed; its failure is the next check's), then the
# checks of what it prints
started=$(date +%s%N)
in_root 'dfu-update --help > /dev/null' || true
first_help_ms=$((($(date +%s%N) - started) / 1000000))
version=$(dpkg-deb -f "$deb" Version)
check "dfu-update --help" 'dfu-update --help | grep -c "^USAGE: dfu-update"'
check "dfu-update --version names $version and the commit" \
	"dfu-update --version | grep -cE '^$version \\(commit [0-9a-f]{12}(\\+changes)?\\)\$'"
check "dfu-sim --version" "dfu-sim --version | grep -c '^$version '"
check "dfu-update inspect" 'dfu-update inspect /tmp/secure_app.zip | grep -c application'
check "dfu-update flash --simulate" \
	'dfu-update flash /tmp/secure_app.zip --simulate secure-app --json | grep -c "\"result\":\"completed\""'
check "man dfu-update-flash" 'MANWIDTH=80 man dfu-update-flash | grep -c "simulate"'
check "the gateway's systemd unit and its page" \
	'grep -c "^ExecStart=/usr/bin/dfu-update gateway" /usr/lib/systemd/system/dfu-update-gateway.service && MANWIDTH=80 man dfu-update-gateway | grep -c "exit-when-idle"'
check "the rollout page's systemd unit" \
	'grep -c "^ExecStart=/usr/bin/dfu-update rollout serve" /usr/lib/systemd/system/dfu-update-rollout-page.service'
check "bash completion (complete -p dfu-update)" \
	'. /usr/share/bash-completion/bash_completion && __load_completion dfu-update && complete -p dfu-update'
check "zsh completion" 'zsh -c "autoload -Uz compinit && compinit -u && [[ \$_comps[dfu-update] = _dfu-update ]]"'
check "fish completion" 'fish -c "complete -C \"dfu-update \"" | grep -c "^flash"'

unmount
rm -rf "$root"
echo "package: $(stat -c %s "$deb") bytes ($(dpkg-deb -f "$deb" Installed-Size) KiB installed)"
echo "first dfu-update --help after install: $first_help_ms ms (including chroot and env)"
