#!/usr/bin/env bash
# Inside the VM: smpmgr's command line from .build/smpmgr-venv (scripts/vm/smpmgr-venv.sh) on
# hci0, at most 240 s (run_bleak_client); what `dfu-bench smp` runs as the other SMP client.
# usage: scripts/vm/smpmgr-client.sh SMPMGR-ARG…   e.g. --ble ADDRESS upgrade --confirm FILE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/dfu-sim-guest.sh"
run_bleak_client "$here/../../.build/smpmgr-venv/bin/python" smpmgr.main app smpmgr "$@"
