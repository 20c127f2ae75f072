#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need (tmux: the pseudo-terminal tests; dpkg-dev
# and debootstrap: the .deb and its check; libc6-dev-arm64-cross: the aarch64 compile of the C
# targets; docs/packaging.md; libsqlite3-dev: the embedded rollout store; postgresql: the rollout
# store's server for its tests, a scratch cluster that scripts/test.sh starts; prometheus: the server
# that scrapes a gateway's `--metrics` in GatewayTests; chromium: the rollout page's browser test,
# headless). Idempotent: does nothing when everything is there. Needs root (or sudo).
set -euo pipefail
packages=(libzip-dev libdbus-1-dev pkg-config dbus-daemon zlib1g-dev tmux dpkg-dev debootstrap
    libc6-dev-arm64-cross libsqlite3-dev postgresql prometheus chromium)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
