#!/usr/bin/env bash
# Makes a Python virtual environment holding pinned PyPI packages for a VM test client, unless
# one that imports MODULES is already there. Debian's python3 with python3-venv; packages from PyPI.
# usage: scripts/vm/python-venv.sh VENV MODULES REQUIREMENT…   (MODULES: "nrf_ota, bleak")
set -euo pipefail
venv=$1 modules=$2
shift 2
"$venv/bin/python" -c "import $modules" 2>/dev/null && exit 0
dpkg-query -W -f='${Status}' python3-venv 2>/dev/null | grep -q 'ok installed' ||
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-venv >/dev/null; }
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install -q "$@"
