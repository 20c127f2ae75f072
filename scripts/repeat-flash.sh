#!/usr/bin/env bash
# Runs one simulated update many times with the built dfu-update and reports how many completed
# and whether every run printed the same event stream, byte for byte (docs/reliability.md).
#
#   scripts/repeat-flash.sh [RUNS] [DFU-UPDATE-BINARY]     (defaults: 200, .build/debug/dfu-update)
#
# The command is issue 9's: a Secure bootloader, PRN 1, the first checksum wrong and slow page
# erases. Exit status 0 only when every run completed and all streams are identical.
set -euo pipefail

runs="${1:-200}"
binary="${2:-.build/debug/dfu-update}"
cd "$(dirname "$0")/.."
[[ -x "$binary" ]] || { echo "no executable $binary; run swift build first" >&2; exit 2; }

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

completed=0
for ((run = 1; run <= runs; run++)); do
    if "$binary" flash Firmware/secure_app.zip --simulate secure --prn 1 \
        --sim-fault crc-error=1 --sim-fault slow-flash=400 --json --force >"$out/$run.json" 2>"$out/$run.err"; then
        completed=$((completed + 1))
    else
        echo "run $run failed: $(tail -n 1 "$out/$run.err")" >&2
    fi
done

distinct="$(sha256sum "$out"/*.json | cut -d' ' -f1 | sort -u | wc -l)"
echo "completed: $completed of $runs; distinct event streams: $distinct"
[[ "$completed" -eq "$runs" && "$distinct" -eq 1 ]]
