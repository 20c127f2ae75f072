#!/usr/bin/env python3
"""Writes the seed corpora under Fuzz/Seeds: small fixture packages and the init packets inside
them, and generated inputs for the decoders no fixture covers (Intel HEX, control-point
notifications and writes, D-Bus messages). Run it again after the fixtures change."""
import os
import shutil
import struct
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
SEEDS = os.path.join(ROOT, "Fuzz", "Seeds")
SMALL = 10_000  # bytes: larger packages only slow the fuzzer down


def put(target, name, data):
    os.makedirs(os.path.join(SEEDS, target), exist_ok=True)
    with open(os.path.join(SEEDS, target, name), "wb") as out:
        out.write(data)


def fixture_packages():
    for kind in ("secure", "legacy"):
        folder = os.path.join(FIXTURES, kind)
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if not name.endswith(".zip") or os.path.getsize(path) > SMALL:
                continue
            with open(path, "rb") as package:
                put("FuzzPackageReader", name, package.read())
            with zipfile.ZipFile(path) as archive:
                for entry in archive.namelist():
                    if entry.endswith(".dat"):
                        target = "FuzzSecureInitPacket" if kind == "secure" else "FuzzLegacyInitPacket"
                        put(target, name[:-4] + "-" + os.path.basename(entry), archive.read(entry))


def hex_record(kind, address, payload):
    body = bytes([len(payload), address >> 8 & 0xFF, address & 0xFF, kind]) + payload
    return ":" + (body + bytes([-sum(body) & 0xFF])).hex().upper() + "\n"


def intel_hex():
    data = bytes(range(16))
    put("FuzzIntelHex", "plain.hex", (hex_record(0, 0x1000, data) + hex_record(1, 0, b"")).encode())
    put("FuzzIntelHex", "linear.hex", (
        hex_record(4, 0, b"\x00\x01") + hex_record(0, 0x0000, data) + hex_record(0, 0x0020, data[:3])
        + hex_record(5, 0, b"\x00\x01\x00\x00") + hex_record(1, 0, b"")).encode())
    put("FuzzIntelHex", "segment.hex", (
        hex_record(2, 0, b"\x01\x00") + hex_record(0, 0x0000, data) + hex_record(3, 0, b"\x00\x00\x00\x00")
        + hex_record(4, 0, b"\x10\x00") + hex_record(0, 0x1000, b"\xff\xff\xff\xff")
        + hex_record(1, 0, b"")).encode())


def control_point():
    u32 = lambda value: struct.pack("<I", value)
    seeds = {
        "secure-select": b"\x60\x06\x01" + u32(4096) + u32(128) + u32(0xDEADBEEF),
        "secure-checksum": b"\x60\x03\x01" + u32(4096) + u32(0x12345678),
        "secure-success": b"\x60\x04\x01",
        "secure-extended": b"\x60\x04\x0B\x07",
        "secure-failure": b"\x60\x01\x04",
        "legacy-response": b"\x10\x01\x01",
        "legacy-size": b"\x10\x07\x01" + u32(20000),
        "legacy-receipt": b"\x11" + u32(400),
        "buttonless-response": b"\x20\x01\x01",
        "buttonless-name": b"\x02\x05DfuTg",
        "secure-create": b"\x01\x02" + u32(4096),
        "secure-prn": b"\x02\x0A\x00",
        "legacy-start": b"\x01\x04",
        "legacy-prn": b"\x08\x0A\x00",
    }
    for name, data in seeds.items():
        put("FuzzResponses", name, data)


class Body:
    """A little-endian D-Bus marshaller for the few types the seeds use."""

    def __init__(self):
        self.data = bytearray()

    def align(self, n):
        self.data += b"\0" * (-len(self.data) % n)

    def u8(self, v):
        self.data.append(v)

    def u32(self, v):
        self.align(4)
        self.data += struct.pack("<I", v)

    def i64(self, v):
        self.align(8)
        self.data += struct.pack("<q", v)

    def string(self, s):
        raw = s.encode()
        self.u32(len(raw))
        self.data += raw + b"\0"

    def signature(self, s):
        self.u8(len(s))
        self.data += s.encode() + b"\0"

    def array(self, element_alignment, fill):
        self.u32(0)
        length_at = len(self.data) - 4
        self.align(element_alignment)
        start = len(self.data)
        fill()
        struct.pack_into("<I", self.data, length_at, len(self.data) - start)

    def variant(self, sig, write):
        self.signature(sig)
        write()


def message(kind, fields, signature, body):
    header = Body()
    header.data += b"l" + bytes([kind, 0, 1])
    header.u32(len(body))
    header.u32(1)
    all_fields = list(fields) + ([(8, "g", signature)] if signature else [])

    def write_fields():
        for code, sig, value in all_fields:
            header.align(8)
            header.u8(code)
            header.variant(sig, lambda: header.u32(value) if sig == "u" else
                           header.signature(value) if sig == "g" else header.string(value))

    header.array(8, write_fields)
    header.align(8)
    return bytes(header.data) + body


def dbus_messages():
    call = [(1, "o", "/org/bluez/hci0/dev_00_11_22_33_44_55"), (2, "s", "org.freedesktop.DBus.Properties"),
            (3, "s", "GetAll"), (6, "s", "org.bluez")]
    body = Body()
    body.string("org.bluez.Device1")
    put("FuzzDBusMessage", "method-call", message(1, call, "s", bytes(body.data)))

    body = Body()

    def properties():
        for key, sig, write in (("Connected", "b", lambda: body.u32(1)),
                                ("RSSI", "x", lambda: body.i64(-60)),
                                ("Name", "s", lambda: body.string("DfuTarg")),
                                ("Value", "ay", lambda: body.array(1, lambda: body.data.extend(b"\x60\x06\x01")))):
            body.align(8)
            body.string(key)
            body.variant(sig, write)

    body.string("org.bluez.GattCharacteristic1")
    body.array(8, properties)
    body.array(4, lambda: body.string("Notifying"))
    signal = [(1, "o", "/org/bluez/hci0/dev_00_11_22_33_44_55/service000e/char000f"),
              (2, "s", "org.freedesktop.DBus.Properties"), (3, "s", "PropertiesChanged"), (7, "s", ":1.4")]
    put("FuzzDBusMessage", "properties-changed", message(4, signal, "sa{sv}as", bytes(body.data)))

    body = Body()
    body.string("Operation failed with ATT error: 0x0e")
    error = [(4, "s", "org.bluez.Error.Failed"), (5, "u", 7), (7, "s", ":1.4")]
    put("FuzzDBusMessage", "error", message(3, error, "s", bytes(body.data)))

    body = Body()

    def structure():
        body.align(8)
        body.u32(5)
        body.string("x")
        body.variant("ao", lambda: body.array(4, lambda: body.string("/a")))

    body.array(8, structure)
    put("FuzzDBusMessage", "method-return", message(2, [(5, "u", 3)], "a(usv)", bytes(body.data)))


def smp():
    """FuzzSMP: the MCUboot fixture images, SMP frames (an image-state read answer, an upload
    answer, a v2 error), a CBOR map and a dfu_application.zip manifest."""
    folder = os.path.join(ROOT, "Tests", "MCUmgrTests", "Fixtures")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".bin") and os.path.getsize(os.path.join(folder, name)) <= SMALL:
            with open(os.path.join(folder, name), "rb") as image:
                put("FuzzSMP", name, image.read())

    def frame(op, group, command, body, sequence=1):
        return struct.pack(">BBHHBB", op | 0x08, 0, len(body), group, sequence, command) + body

    # {"off": 4096}
    put("FuzzSMP", "upload-answer", frame(3, 1, 1, bytes([0xA1, 0x63]) + b"off" + bytes([0x19, 0x10, 0x00])))
    # {"images": [{"slot": 0, "version": "1.2.3", "hash": h'00…', "active": true, "confirmed": true}]}
    image = (bytes([0xA5, 0x64]) + b"slot" + bytes([0x00, 0x67]) + b"version" + bytes([0x65]) + b"1.2.3"
             + bytes([0x64]) + b"hash" + bytes([0x58, 0x20]) + bytes(32)
             + bytes([0x66]) + b"active" + bytes([0xF5, 0x69]) + b"confirmed" + bytes([0xF5]))
    put("FuzzSMP", "state-answer", frame(1, 1, 0, bytes([0xA1, 0x66]) + b"images" + bytes([0x81]) + image))
    # {"err": {"group": 1, "rc": 2}}
    put("FuzzSMP", "v2-error", frame(3, 1, 1, bytes([0xA1, 0x63]) + b"err" + bytes([0xA2, 0x65]) + b"group"
                                     + bytes([0x01, 0x62]) + b"rc" + bytes([0x02])))
    put("FuzzSMP", "manifest", b'{"format-version": 0, "files": [{"type": "application", "file": '
        b'"app.bin", "image_index": "0", "slot_index_primary": "1", "version_MCUBOOT": "1.2.3"}]}')


if __name__ == "__main__":
    shutil.rmtree(SEEDS, ignore_errors=True)
    fixture_packages()
    intel_hex()
    control_point()
    dbus_messages()
    smp()
    for target in sorted(os.listdir(SEEDS)):
        files = os.listdir(os.path.join(SEEDS, target))
        size = sum(os.path.getsize(os.path.join(SEEDS, target, f)) for f in files)
        print(f"{target}: {len(files)} seeds, {size} bytes")
