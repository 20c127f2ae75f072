#!/usr/bin/env bash
# Makes the MCUboot samples of Firmware/ (README.md, "MCUboot images"): an application image
# signed with imgtool and the nRF Connect SDK package that carries a newer one. Needs imgtool from
# PyPI at 2.5.0; the samples are committed, this only says how they were made.
#
#   python3 -m venv /tmp/imgtool && /tmp/imgtool/bin/pip install imgtool==2.5.0
#   IMGTOOL=/tmp/imgtool/bin/imgtool Firmware/generate-smp.sh
set -euo pipefail
cd "$(dirname "$0")"
imgtool=${IMGTOOL:-imgtool}
[ "$("$imgtool" version)" = "2.5.0" ] || { echo "error: imgtool 2.5.0 expected" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -f mcuboot_test_key.pem ] || "$imgtool" keygen -k mcuboot_test_key.pem -t ecdsa-p256
"$imgtool" getpub -k mcuboot_test_key.pem -e pem >mcuboot_test_key_public.pem

# 48 KiB of pseudo-random bytes, not a program (seeded: the same body each run).
python3 -c 'import random, sys; r = random.Random(27); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(49152)))' >"$work/body.bin"
common=(--header-size 0x200 --pad-header --align 4 --slot-size 0x76000 -k mcuboot_test_key.pem)
"$imgtool" sign "${common[@]}" --version 1.1.0 "$work/body.bin" smp_app_1.1.0.bin
"$imgtool" sign "${common[@]}" --version 1.2.0 "$work/body.bin" "$work/app.signed.bin"

# dfu_application.zip as nrf's generate_zip.py writes it: manifest.json and the image.
size=$(stat -c %s "$work/app.signed.bin")
cat >"$work/manifest.json" <<JSON
{"format-version": 0, "time": 1764115200, "name": "app", "files": [{"type": "application",
 "board": "nrf52840dk/nrf52840", "soc": "nrf52840", "load_address": 49152, "image_index": "0",
 "slot_index_primary": "1", "slot_index_secondary": "2", "version_MCUBOOT": "1.2.0",
 "size": $size, "file": "app.signed.bin", "modtime": 1764115200}]}
JSON
rm -f dfu_application.zip
(cd "$work" && zip -q -X "$OLDPWD/dfu_application.zip" manifest.json app.signed.bin)

# nrf5340_zip ZIP NET_BODY NET_LOAD_ADDRESS: both cores of an nRF5340 as nrf's generate_zip.py
# writes them, the 1.2.0 application (image 0) and the network core's 1.1.0 image (image 1, its
# manifest entry naming the cpunet board) signed from NET_BODY.
nrf5340_zip() {
    local zip=$1 net_body=$2 net_load_address=$3
    "$imgtool" sign --header-size 0x200 --pad-header --align 4 --slot-size 0x3A000 -k mcuboot_test_key.pem \
        --version 1.1.0 "$net_body" "$work/ipc_radio.signed.bin"
    cp "$work/app.signed.bin" "$work/nrf5340_app.signed.bin"
    local app_size net_size
    app_size=$(stat -c %s "$work/nrf5340_app.signed.bin")
    net_size=$(stat -c %s "$work/ipc_radio.signed.bin")
    cat >"$work/manifest.json" <<JSON
{"format-version": 0, "time": 1764115200, "name": "nrf5340_app", "files": [{"type": "application",
 "board": "nrf5340dk/nrf5340/cpuapp", "soc": "nrf5340", "load_address": 49152, "image_index": "0",
 "slot_index_primary": "1", "slot_index_secondary": "2", "version_MCUBOOT": "1.2.0",
 "size": $app_size, "file": "nrf5340_app.signed.bin", "modtime": 1764115200},
 {"type": "application", "board": "nrf5340dk/nrf5340/cpunet", "soc": "nrf5340",
 "load_address": $net_load_address, "image_index": "1", "slot_index_primary": "3",
 "slot_index_secondary": "4", "version": "1.1.0", "size": $net_size, "file": "ipc_radio.signed.bin",
 "modtime": 1764115200}]}
JSON
    rm -f "$zip"
    (cd "$work" && zip -q -X "$OLDPWD/$zip" manifest.json nrf5340_app.signed.bin ipc_radio.signed.bin)
}

# nrf5340_dfu_application.zip: an nRF5340 built for simultaneous updates (a 16 KiB network core
# image).
python3 -c 'import random, sys; r = random.Random(53); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(16384)))' >"$work/net.bin"
nrf5340_zip nrf5340_dfu_application.zip "$work/net.bin" 16812032

# directxip_dfu_application.zip: the 1.2.0 application linked for each slot of a direct-XIP
# device (imgtool --rom-fixed: slot 0 at 0xC000, slot 1 at 0x82000, as the simulated smp-app's
# 0x76000-byte slots), with the manifest's `slot` and `version_MCUBOOT+XIP` keys as nrf's
# zip.cmake writes them for SB_CONFIG_MCUBOOT_BUILD_DIRECT_XIP_VARIANT.
"$imgtool" sign "${common[@]}" --version 1.2.0 --rom-fixed 0xC000 "$work/body.bin" "$work/zephyr.signed.bin"
"$imgtool" sign "${common[@]}" --version 1.2.0 --rom-fixed 0x82000 "$work/body.bin" \
    "$work/mcuboot_secondary_app.signed.bin"
primary_size=$(stat -c %s "$work/zephyr.signed.bin")
secondary_size=$(stat -c %s "$work/mcuboot_secondary_app.signed.bin")
cat >"$work/manifest.json" <<JSON
{"format-version": 0, "time": 1764115200, "name": "directxip_app", "files": [{"type": "application",
 "board": "nrf52840dk/nrf52840", "soc": "nrf52840", "load_address": 49152,
 "version_MCUBOOT+XIP": "1.2.0", "image_index": "0", "slot": "0", "size": $primary_size,
 "file": "zephyr.signed.bin", "modtime": 1764115200}, {"type": "application",
 "board": "nrf52840dk/nrf52840", "soc": "nrf52840", "load_address": 532480, "image_index": "0",
 "slot": "1", "version_MCUBOOT+XIP": "1.2.0", "size": $secondary_size,
 "file": "mcuboot_secondary_app.signed.bin", "modtime": 1764115200}]}
JSON
rm -f directxip_dfu_application.zip
(cd "$work" && zip -q -X "$OLDPWD/directxip_dfu_application.zip" manifest.json zephyr.signed.bin \
    mcuboot_secondary_app.signed.bin)

# nrf5340_onepair_dfu_application.zip: an nRF5340 with one image pair (nRF Connect SDK's
# default): the network core's body starts as a Cortex-M vector table whose reset vector points
# into the network core's flash (0x01000000), which is how MCUboot tells it from an application
# image in image 0's secondary slot (sdk-mcuboot loader.c).
python3 -c 'import random, struct, sys; r = random.Random(54); b = bytearray(r.randrange(256) for _ in range(16384)); b[4:8] = struct.pack("<I", 0x010002C1); sys.stdout.buffer.write(bytes(b))' >"$work/net1.bin"
nrf5340_zip nrf5340_onepair_dfu_application.zip "$work/net1.bin" 16777216
