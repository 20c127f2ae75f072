#!/usr/bin/env bash
# Makes .build/smpmgr-venv: smpmgr (PyPI; MCUmgr SMP over bleak) at the versions the VM scripts
# were checked with, unless it is there already. Used by scripts/vm/smpmgr.sh and bench-smp.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
requirements=(smpmgr==0.19.1 smpclient==7.3.0 smp==4.2.0 bleak==3.1.0 dbus-fast==5.2.0)
scripts/vm/python-venv.sh .build/smpmgr-venv "smpmgr, smpclient, bleak" "${requirements[@]}"
