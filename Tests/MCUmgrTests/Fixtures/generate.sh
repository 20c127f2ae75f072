#!/usr/bin/env bash
# Regenerates the imgtool-signed MCUboot images of the MCUmgr tests (README.md says what each one
# is). Needs imgtool from PyPI at the version README.md names; the tests only read the results.
#
#   python3 -m venv /tmp/imgtool && /tmp/imgtool/bin/pip install imgtool==2.5.0
#   IMGTOOL=/tmp/imgtool/bin/imgtool Tests/MCUmgrTests/Fixtures/generate.sh
#
# Keys are kept when present (delete them to make new ones); ECDSA signatures differ on every run.
set -euo pipefail
cd "$(dirname "$0")"
imgtool=${IMGTOOL:-imgtool}
version=$("$imgtool" version)
[ "$version" = "2.5.0" ] || { echo "error: imgtool $version, README.md documents 2.5.0" >&2; exit 2; }

[ -f ecdsa-p256.pem ] || "$imgtool" keygen -k ecdsa-p256.pem -t ecdsa-p256
[ -f ed25519.pem ] || "$imgtool" keygen -k ed25519.pem -t ed25519
"$imgtool" getpub -k ecdsa-p256.pem -e pem >ecdsa-p256.pub.pem
"$imgtool" getpub -k ed25519.pem -e pem >ed25519.pub.pem

# A body of 3000 known bytes: i * 37 mod 251.
python3 -c 'import sys; sys.stdout.buffer.write(bytes(i * 37 % 251 for i in range(3000)))' >body.bin
trap 'rm -f body.bin' EXIT

common=(--header-size 0x200 --pad-header --align 4 --slot-size 0x4000)
"$imgtool" sign "${common[@]}" -k ecdsa-p256.pem --version 1.2.3+4 body.bin ecdsa-p256.signed.bin
"$imgtool" sign "${common[@]}" -k ed25519.pem --version 2.0.1 --security-counter 7 body.bin ed25519.signed.bin
"$imgtool" sign "${common[@]}" -k ecdsa-p256.pem --version 1.2.4 --public-key-format full --pad --confirm \
    body.bin ecdsa-p256-confirmed.padded.bin
"$imgtool" sign "${common[@]}" -k ed25519.pem --version 1.3.0+2 --max-align 16 --pad \
    body.bin ed25519-align16.padded.bin
"$imgtool" sign "${common[@]}" --version 0.0.1 body.bin unsigned.bin
# nRF54L's defaults (docs/mcumgr.md, "nRF54L images"): SHA-512, Ed25519 over the hash or (pure) over the image
"$imgtool" sign "${common[@]}" -k ed25519.pem --version 3.1.0 --sha 512 body.bin ed25519-sha512.signed.bin
"$imgtool" sign "${common[@]}" -k ed25519.pem --version 3.1.1 --pure body.bin ed25519-pure.signed.bin
"$imgtool" sign "${common[@]}" --version 0.0.2 --sha 512 body.bin unsigned-sha512.bin

# What imgtool itself reads back: the version and the image hash, for the tests to compare.
for image in ecdsa-p256.signed.bin ed25519.signed.bin ecdsa-p256-confirmed.padded.bin ed25519-align16.padded.bin \
    ed25519-sha512.signed.bin ed25519-pure.signed.bin; do
    case $image in ecdsa*) key=ecdsa-p256.pem ;; ed25519*) key=ed25519.pem ;; esac
    "$imgtool" verify -k "$key" "$image" >"${image%.bin}.verify.txt"
done
"$imgtool" verify unsigned.bin >unsigned.verify.txt
"$imgtool" verify unsigned-sha512.bin >unsigned-sha512.verify.txt
