#!/usr/bin/env bash
# Compiles every C target of the package for aarch64 (docs/packaging.md, "arm64"), so that no C
# code comes to assume x86-64 without a portable path: clang --target=aarch64-linux-gnu with the
# headers of Debian's libc6-dev-arm64-cross. Compiles only; a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
headers=/usr/aarch64-linux-gnu/include
[ -d "$headers" ] ||
	{ echo "check-aarch64-c.sh: no aarch64 headers (scripts/install-deps.sh installs them)" >&2; exit 1; }
objects=$(mktemp -d)
trap 'rm -rf "$objects"' EXIT
for source in Sources/*/*.c Tests/*/*.c; do
	target=$(dirname "$source")
	clang --target=aarch64-linux-gnu -isystem "$headers" -I "$target/include" -Wall -Wextra -Werror \
		-c "$source" -o "$objects/$(basename "$source").o" ||
		{ echo "check-aarch64-c.sh: $source does not compile for aarch64" >&2; exit 1; }
	echo "ok: $source (aarch64)"
done
