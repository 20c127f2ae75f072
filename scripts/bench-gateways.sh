#!/usr/bin/env bash
# Benchmark of gateways sharing one rollout store (docs/rollout.md, "Benchmark"), in two modes.
#
#   scripts/bench-gateways.sh [GATEWAYS [DEVICES-PER-GATEWAY [CONCURRENCY [REAL-TIME-FACTOR]]]]
#                             (defaults: 5 200 4 1)
#
# The same simulated devices updated once by `dfu-update fleet` processes, each with its own share
# of them, and once as one rollout on one PostgreSQL by `dfu-update gateway` processes, each
# reaching the same share. REAL-TIME-FACTOR is the simulated devices' real_time_factor: 1, each
# GATT operation takes the real time the link model gives it, as a radio would; 0, none. Prints
# one JSON line: the wall times, gateway wall / fleet wall - 1, the time from each device's claim
# to its first packet (when the `claimed` and the first `progress` line reached this script), the
# statements (with pg_stat_statements, BEGIN and COMMIT included) of the gateways' role and the
# server's committed transactions during the gateway phase, per device, and the server's CPU
# seconds in each phase.
#
#   scripts/bench-gateways.sh --scale [LARGE [DEVICES [CONCURRENCY]]]   (defaults: 100000 1000 4)
#
# The store's cost against a rollout's size: one gateway updates the same DEVICES simulated
# devices (real-time factor 0) in a rollout of DEVICES and in one of LARGE (the others never in
# reach), on the embedded store and on PostgreSQL. Prints one JSON line per store: the wall times
# of `rollout create`, of the gateway and of `rollout status --json`, and large / small; then the
# lines of `dfu-bench store` (the store's own time for create, status and a first page of the
# same two sizes, on both stores).
#
# Each phase is cut off after PHASE_TIMEOUT seconds (default 600); GATEWAY_OPTIONS is added to
# each gateway's command line (e.g. "--poll 3600"); DFU_UPDATE names a release `dfu-update`
# already built (from another scratch path) instead of building one, DFU_BENCH a `dfu-bench`.
set -euo pipefail

scale=false
if [ "${1:-}" = --scale ]; then
    scale=true large=${2:-100000} per_gateway=${3:-1000} concurrency=${4:-4} gateways=1 factor=0
else
    gateways=${1:-5} per_gateway=${2:-200} concurrency=${3:-4} factor=${4:-1}
fi
phase_timeout=${PHASE_TIMEOUT:-600}
cd "$(dirname "$0")/.."
if [ -n "${DFU_UPDATE:-}" ]; then
    binary=$(realpath "$DFU_UPDATE")
else
    swift build -c release --product dfu-update >&2
    binary="$(swift build -c release --show-bin-path)/dfu-update"
fi
if $scale; then
    if [ -n "${DFU_BENCH:-}" ]; then
        bench=$(realpath "$DFU_BENCH")
    else
        swift build -c release --product dfu-bench >&2
        bench="$(swift build -c release --show-bin-path)/dfu-bench"
    fi
fi

work=$(mktemp -d /tmp/bench-gateways.XXXXXX)
chmod 755 "$work"  # the server runs as postgres when this runs as root
pg=$work/pg
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    scripts/scratch-postgres.sh stop "$pg" || true
    rm -rf "$work"
}
trap cleanup EXIT
trap "exit 130" INT
trap "exit 143" TERM

# Gateway g's devices (g = 1…15), named C0:DE:00:0G:HH:LL with even low octets (the address
# above each is its bootloader's), as an inventory's entries.
entries() {
    local i separator=""
    for ((i = 0; i < per_gateway; i++)); do
        printf '%s{"device":"C0:DE:00:%02X:%02X:%02X","simulate":{"kind":"secure-app",' \
            "$separator" "$1" $((i / 128)) $((i % 128 * 2))
        printf '"firmware_version":"1.0.0","real_time_factor":%s}}' "$factor"
        separator=,
    done
}
inventory() { printf '{"defaults":{"package":"secure_app.zip"},"devices":[%s]}\n' "$1"; }

cp Firmware/secure_app.zip "$work/"
all=""
for ((g = 1; g <= gateways; g++)); do
    inventory "$(entries "$g")" > "$work/share$g.json"
    all+="${all:+,}$(entries "$g")"
done
inventory "$all" > "$work/rollout.json"

scripts/scratch-postgres.sh start "$pg" >&2
port=$(cat "$pg/port") password=$(cat "$pg/password")
export DFU_UPDATE_STORE_PASSWORD=$password
sql() { PGPASSWORD=$password psql -X -q -t -A -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "$1"; }
# Statements are counted by pg_stat_statements, when the server has it: it must be loaded when
# the server starts. Transactions are counted either way (pg_stat_database).
statements=false
if [ "$(sql "SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_stat_statements'")" = 1 ]; then
    sql "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
    scripts/scratch-postgres.sh stop "$pg" && scripts/scratch-postgres.sh start "$pg" >&2
    sql "CREATE EXTENSION pg_stat_statements"
    statements=true
fi
owner="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
"$binary" rollout migrate --store "$owner" >&2
sql "CREATE ROLE bench_gateway LOGIN PASSWORD '$password' IN ROLE dfu_rollout_gateway"

# Runs one process per share, each line of its output stamped with the time it arrived here
# (`SECONDS.MICROSECONDS<TAB>line`, in NAME-N.jsonl, and an `exit` line when the process closed
# its output); NAME.start holds when the phase started. Sets `wall` to the seconds until all ended.
stamp='import sys, time
for line in sys.stdin: sys.stdout.write("%.6f\t%s" % (time.time(), line))
sys.stdout.write("%.6f\t{\"event\": \"exit\"}\n" % time.time())'
phase() {
    local name=$1 g started status=0 processes=() stampers=()
    shift
    started=$EPOCHREALTIME
    echo "$started" > "$work/$name.start"
    for ((g = 1; g <= gateways; g++)); do
        mkfifo "$work/$name-$g.fifo"
        python3 -u -c "$stamp" < "$work/$name-$g.fifo" > "$work/$name-$g.jsonl" &
        pids+=($!) stampers+=($!)
        timeout "$phase_timeout" "$binary" "${@//SHARE/$g}" --json \
            > "$work/$name-$g.fifo" 2> "$work/$name-$g.err" &
        pids+=($!) processes+=($!)
    done
    for pid in "${processes[@]}"; do wait "$pid" || status=$?; done
    wall=$(awk "BEGIN { print $EPOCHREALTIME - $started }")
    for pid in "${stampers[@]}"; do wait "$pid"; done
    pids=()
    if [ "$status" != 0 ]; then
        echo "$name: a process exited $status (124: cut off after $phase_timeout s)" >&2
        tail -n 5 "$work/$name"-*.err >&2
        exit 1
    fi
}

# CPU seconds of the PostgreSQL server so far: the postmaster's, its running children's and
# those of its children that ended.
server_cpu() {
    python3 - "$(head -1 "$pg/data/postmaster.pid")" <<'PY'
import os, sys
server, total = sys.argv[1], 0
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        continue  # ended meanwhile
    if pid == server:
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    elif fields[1] == server:
        total += int(fields[11]) + int(fields[12])
print(total / os.sysconf("SC_CLK_TCK"))
PY
}
seconds_since() { awk "BEGIN { printf \"%.3f\", $EPOCHREALTIME - $1 }"; }

# The scale mode: per store, a rollout of DEVICES and one of LARGE, each in a store of its own.
if $scale; then
    gateway_url() { echo "postgres://bench_gateway@127.0.0.1:$port/scale$1?sslmode=disable"; }
    for kind in embedded postgres; do
        declare -A create=() run=() status=() server=()
        for size in "$per_gateway" "$large"; do
            # the gateway's devices first, then devices no gateway reaches
            python3 - "$work/share1.json" "$size" > "$work/rollout-$size.json" <<'PY'
import json, sys
inventory = json.load(open(sys.argv[1]))
for i in range(int(sys.argv[2]) - len(inventory["devices"])):
    inventory["devices"].append({"device": "C0:DF:%02X:%02X:%02X:00" % (i >> 16, (i >> 8) & 255, i & 255)})
json.dump(inventory, sys.stdout)
PY
            if [ "$kind" = embedded ]; then
                store=$work/scale$size.sqlite gateway_store=$store
            else
                sql "CREATE DATABASE scale$size" > /dev/null
                store="postgres://postgres@127.0.0.1:$port/scale$size?sslmode=disable"
                gateway_store=$(gateway_url "$size")
                "$binary" rollout migrate --store "$store" >&2
            fi
            started=$EPOCHREALTIME
            "$binary" rollout create scale "$work/rollout-$size.json" --store "$store" \
                --concurrency "$concurrency" >&2
            create[$size]=$(seconds_since "$started")
            before=0
            [ "$kind" = postgres ] && before=$(server_cpu)
            phase "$kind-$size" gateway --store "$gateway_store" --name gwSHARE \
                --simulated-devices "$work/shareSHARE.json" --concurrency "$concurrency" --exit-when-idle \
                ${GATEWAY_OPTIONS:-}  # unquoted: several options, split at spaces
            run[$size]=$wall
            server[$size]=null
            [ "$kind" = postgres ] && server[$size]=$(awk "BEGIN { printf \"%.2f\", $(server_cpu) - $before }")
            started=$EPOCHREALTIME
            "$binary" rollout status scale --store "$store" --json > "$work/status-$kind-$size.json"
            status[$size]=$(seconds_since "$started")
        done
        small=$per_gateway
        printf '{"benchmark": "store scale", "store": "%s", "devices": %s, "large": %s, ' "$kind" "$small" "$large"
        printf '"concurrency": %s, "create_seconds": [%s, %s], "gateway_seconds": [%.3f, %.3f], ' \
            "$concurrency" "${create[$small]}" "${create[$large]}" "${run[$small]}" "${run[$large]}"
        printf '"status_seconds": [%s, %s], "server_cpu_seconds": [%s, %s], ' \
            "${status[$small]}" "${status[$large]}" "${server[$small]}" "${server[$large]}"
        printf '"gateway_large_over_small": %s}\n' \
            "$(awk "BEGIN { printf \"%.3f\", ${run[$large]} / ${run[$small]} }")"
        unset create run status server
    done
    # the phases before leave the server dirty pages to write: written first, not during the calls
    sql "CHECKPOINT"
    sql "CREATE DATABASE store_bench" > /dev/null
    "$bench" store --small "$per_gateway" --large "$large" \
        --postgres "postgres://postgres@127.0.0.1:$port/store_bench?sslmode=disable"
    exit 0
fi

"$binary" rollout create bench "$work/rollout.json" --store "$owner" --concurrency "$concurrency" >&2
phase fleet fleet "$work/shareSHARE.json" --concurrency "$concurrency"
fleet_wall=$wall
$statements && sql "SELECT pg_stat_statements_reset()" > /dev/null
commits() { sql "SELECT xact_commit FROM pg_stat_database WHERE datname = 'postgres'"; }
commits_before=$(commits)
cpu_before=$(server_cpu)
phase gateway gateway --store "postgres://bench_gateway@127.0.0.1:$port/postgres?sslmode=disable" \
    --name gwSHARE --simulated-devices "$work/shareSHARE.json" --concurrency "$concurrency" --exit-when-idle \
    ${GATEWAY_OPTIONS:-}  # unquoted: several options, split at spaces
gateway_wall=$wall
server_seconds=$(awk "BEGIN { print $(server_cpu) - $cpu_before }")
commits=$(($(commits) - commits_before))
calls=null
$statements && calls=$(sql "SELECT sum(calls) FROM pg_stat_statements
    WHERE userid = 'bench_gateway'::regrole::oid")
"$binary" rollout status bench --store "$owner" --json > "$work/status.json"

python3 scripts/bench-gateways-summary.py "$work" "$gateways" "$per_gateway" "$concurrency" "$factor" \
    "$fleet_wall" "$gateway_wall" "$calls" "$commits" "$server_seconds"
