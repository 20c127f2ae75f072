#!/usr/bin/env python3
"""Changes BlueZ's emulator/btdev.c so that both ends of a virtual link take the same handle.

BlueZ's btvirt (5.66 and 5.82 alike) gives the two ends of a link handles of their own (the lowest
free on each controller) but forwards the link's data and events under the sender's handle, so a
controller's second link carries the wrong handle at one end and its traffic is dropped. The
change, in conn_link(): both ends take the lowest handle free on both controllers. A controller's
first link is handle 42 at both ends either way. Used by scripts/vm/build-btvirt.sh and
scripts/vm/build-bluez.sh.

usage: btvirt-same-handle.py PATH/emulator/btdev.c   (edits the file in place)
"""
import sys

path = sys.argv[1]
text = open(path).read()
anchor = "\tconn1 = conn_new(dev, handle, type);\n"
if text.count(anchor) != 1:
    sys.exit("btvirt-same-handle.py: conn_link() is not where it was expected in " + path)
text = text.replace(
    anchor,
    "\t/* the same handle at both ends (dfu-update: scripts/vm/btvirt-same-handle.py) */\n"
    "\twhile (queue_find(dev->conns, match_handle, UINT_TO_PTR(handle)) ||\n"
    "\t\t\tqueue_find(remote->conns, match_handle, UINT_TO_PTR(handle)))\n"
    "\t\thandle++;\n" + anchor,
)
open(path, "w").write(text)
