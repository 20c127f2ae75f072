#!/usr/bin/env bash
# A scratch PostgreSQL cluster for the rollout store's tests (docs/rollout.md, "Tests"): Debian's
# server, on 127.0.0.1 and a free port, everything under DIR, password authentication.
#   scratch-postgres.sh start DIR    initdb and start; writes DIR/url and DIR/password (mode 600);
#                                    a cluster DIR has already is only started, on its port
#   scratch-postgres.sh stop DIR     stops the server by the pid in its postmaster.pid
# PostgreSQL refuses to run as root: as root, the server runs as the postgres user.
set -euo pipefail
command=$1 dir=$2
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bindir/initdb" ] || { echo "error: no PostgreSQL server (apt-get install postgresql)" >&2; exit 1; }
# Whatever this script inherited beyond stdin, stdout and stderr is closed, so that the server
# does not keep it: Foundation's Process (the tests run this script with it) learns that its
# child ended when a socket the child inherited is closed, which a server holding it never does.
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null || true
done
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start_server() {
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $(cat "$dir/port") -c listen_addresses=127.0.0.1 -k $dir" start < /dev/null > "$dir/pg_ctl.log" 2>&1
}

stop_server() {
    local pid
    pid=$(head -1 "$dir/data/postmaster.pid" 2>/dev/null) || return 0
    kill -INT "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    echo "error: PostgreSQL (pid $pid) did not stop within 30 s" >&2
    return 1
}

case $command in
start)
    [ -d "$dir/data" ] && { start_server; exit 0; }
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    (umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$dir/password")
    cp "$dir/password" "$dir/pwfile" && [ "$(id -u)" = 0 ] && chown postgres "$dir/pwfile"
    as_owner "$bindir/initdb" -D "$dir/data" -U postgres --auth=scram-sha-256 --pwfile="$dir/pwfile" \
        -E UTF8 --no-sync > "$dir/initdb.log"
    rm "$dir/pwfile"
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' > "$dir/port"
    start_server
    echo "postgres://postgres@127.0.0.1:$(cat "$dir/port")/postgres?sslmode=disable" > "$dir/url"
    ;;
stop) stop_server ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
