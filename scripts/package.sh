#!/usr/bin/env bash
# Builds the Debian package of dfu-update and dfu-sim (docs/packaging.md): release binaries with
# the Swift runtime linked in statically, man pages and shell completions generated from the
# commands themselves, dependencies computed by dpkg-shlibdeps from what the binaries link, and
# the copyright file (packaging/copyright), checked against what is linked in.
#
# usage: scripts/package.sh      prints the path of the .deb (under .build/deb/)
# The release build takes several minutes from scratch; compressing the package (xz) about one
# and a half more.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in dpkg-deb dpkg-shlibdeps strip; do
	command -v "$tool" > /dev/null ||
		{ echo "package.sh: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
version=$(sed -n 's/^ *package static let version = "\(.*\)"$/\1/p' Sources/DFUSupport/BuildInfo.swift)
[ -n "$version" ] || { echo "package.sh: no version in Sources/DFUSupport/BuildInfo.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)
out=.build/deb
stage=$out/stage
deb=$out/dfu-update_${version}_$arch.deb
build=(-c release --static-swift-stdlib)

echo "package.sh: release build of dfu-update and dfu-sim" >&2
for command in dfu-update dfu-sim; do
	swift build "${build[@]}" --product "$command" >&2
done
# argument-parser's generate-manual, the tool behind its plugin, run on the built commands. (The
# plugin itself would build every product in release mode once more, without the static runtime:
# a second full release build.) Built from the checkout of the argument-parser version this
# package resolved, in debug mode, in seconds.
swift build --quiet --package-path .build/checkouts/swift-argument-parser \
	--scratch-path .build/generate-manual --product generate-manual >&2
generate_manual=$(swift build --package-path .build/checkouts/swift-argument-parser \
	--scratch-path .build/generate-manual --show-bin-path)/generate-manual
bin=$(swift build "${build[@]}" --show-bin-path)

rm -rf "$out"
mkdir -p "$stage/DEBIAN" "$stage/usr/bin" "$stage/usr/share/man/man1" "$stage/usr/share/doc/dfu-update" \
	"$stage/usr/share/bash-completion/completions" "$stage/usr/share/zsh/vendor-completions" \
	"$stage/usr/share/fish/vendor_completions.d"
for command in dfu-update dfu-sim; do
	# stripped as Debian strips (dh_strip): no symbol table, no debug sections
	strip --strip-unneeded --remove-section=.comment --remove-section=.note \
		-o "$stage/usr/bin/$command" "$bin/$command"
	# one page per command and subcommand, dated by the commit: one commit, the same pages
	mkdir -p "$out/man"
	"$generate_manual" "$bin/$command" --multi-page --output-directory "$out/man" \
		--date "$(git log -1 --format=%cs 2> /dev/null || date -u +%F)"
	# named as git names its pages (dfu-update-flash, not dfu-update.flash), in the titles and
	# the cross-references too
	for page in "$out/man"/*.1; do
		name=$(basename "$page" .1)
		sed -E ':a; s/^(\.(Dt|Xr) [^ .]*)\./\1-/; ta' "$page" | gzip -9n \
			> "$stage/usr/share/man/man1/${name//./-}.1.gz"
	done
	rm -rf "$out/man"
	"$bin/$command" --generate-completion-script bash > "$stage/usr/share/bash-completion/completions/$command"
	"$bin/$command" --generate-completion-script zsh > "$stage/usr/share/zsh/vendor-completions/_$command"
	"$bin/$command" --generate-completion-script fish > "$stage/usr/share/fish/vendor_completions.d/$command.fish"
done
[ -s "$stage/usr/share/man/man1/dfu-update-flash.1.gz" ] ||
	{ echo "package.sh: generate-manual wrote no page for dfu-update flash" >&2; exit 1; }

# The systemd units (the gateway agent, the rollout page): installed as is, not enabled (each needs the store's address
# first; the unit's comments say what to write).
for unit in packaging/systemd/*.service; do
	install -D -m 644 "$unit" "$stage/usr/lib/systemd/system/$(basename "$unit")"
done

# What the binaries link, as Debian package names and versions.
shlibs=$out/shlibdeps
mkdir -p "$shlibs/debian"
printf 'Source: dfu-update\n\nPackage: dfu-update\nArchitecture: any\n' > "$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O "-e$OLDPWD/$stage/usr/bin/dfu-update" "-e$OLDPWD/$stage/usr/bin/dfu-sim" |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "package.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
rm -rf "$shlibs"

# The copyright file must name every Swift package built in and every library linked.
copyright=packaging/copyright
missing=()
for dependency in $(sed -n 's/^ *"identity" : "\(.*\)",$/\1/p' Package.resolved) \
	$(printf '%s\n' "$depends" | tr ',' '\n' | sed 's/^ *\([^ ]*\).*/\1/'); do
	grep -qwF -- "$dependency" "$copyright" || missing+=("$dependency")
done
[ ${#missing[@]} -eq 0 ] ||
	{ echo "package.sh: $copyright does not name what is linked in: ${missing[*]}" >&2; exit 1; }
install -m 644 "$copyright" "$stage/usr/share/doc/dfu-update/copyright"

cat > "$stage/DEBIAN/control" <<EOF
Package: dfu-update
Version: $version
Architecture: $arch
Maintainer: ${DFU_MAINTAINER:-dfu-update developers <dfu-update@localhost>}
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Recommends: bluez
Section: utils
Priority: optional
Description: firmware updates for Nordic nRF5 devices over Bluetooth LE
 dfu-update reads Nordic DFU packages, checks them, and sends them to devices
 over Bluetooth LE through BlueZ (Legacy and Secure DFU, fleets of devices).
 dfu-sim serves a simulated nRF5 device on a BlueZ adapter.
EOF
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" > /dev/null
echo "$PWD/$deb"
