#!/usr/bin/env python3
"""Malformed packages and paths, each with the error class and exit code the contract asks for.

Writes, per error class of docs/cli-contract.md, many variants that the unit tests do not hold:
ZIP64 records, central directories that disagree with local headers, odd entry names, manifests
that are almost right, init packets cut at every length or with wrong wire types, deflate streams
that end early, declared sizes of 16 MiB + 1, 10^5 tiny entries, a 100 MiB file of zeros,
directories, symlink loops, unreadable files. Then runs `dfu-update inspect PATH --json` on each
under /usr/bin/time -v and checks: the class, the exit code, under 2 s and under 200 MiB max RSS.

One command, from the repository root (plain python3, nothing to install but GNU time):

    scripts/acceptance/malformed_inputs.py [--binary PATH] [--work DIR] [--only SUBSTR]

Without --binary it builds `dfu-update` in release. Exits 1 if any variant fails a check.
"""
import argparse
import binascii
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAX_SECONDS = 2.0
MAX_RSS_KIB = 200 * 1024
LIMIT = 16 * 1024 * 1024


# ------------------------------------------------------------------------------- protobuf, by hand
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(no, wt, payload):
    key = varint(no << 3 | wt)
    if wt == 0:
        return key + varint(payload)
    if wt == 2:
        return key + varint(len(payload)) + payload
    raise ValueError(wt)


def init_command(firmware, ftype=0, hash_bytes=None, hash_type=3, sizes=None, extra=b""):
    digest = hashlib.sha256(firmware).digest()[::-1] if hash_bytes is None else hash_bytes
    sd, bl, app = sizes if sizes else {0: (0, 0, len(firmware)), 1: (len(firmware), 0, 0),
                                      2: (0, len(firmware), 0), 4: (0, 0, len(firmware))}[ftype]
    return (field(1, 0, 1) + field(2, 0, 52) + field(3, 2, varint(0xB6)) + field(4, 0, ftype)
            + field(5, 0, sd) + field(6, 0, bl) + field(7, 0, app)
            + field(8, 2, field(1, 0, hash_type) + field(2, 2, digest)) + field(9, 0, 0)
            + field(10, 2, field(1, 0, 1) + field(2, 2, b"")) + extra)


def command(init, op=1):
    return field(1, 0, op) + field(2, 2, init)


def unsigned_dat(init):
    return field(1, 2, command(init))


def signed_dat(init, sig=b"\x11" * 64, sig_type=0):
    body = field(1, 2, command(init)) + field(2, 0, sig_type)
    if sig is not None:
        body += field(3, 2, sig)
    return field(2, 2, body)


def record(rtype, addr, payload):
    """One Intel HEX record line."""
    body = bytes([len(payload), addr >> 8, addr & 0xFF, rtype]) + payload
    return ":" + body.hex().upper() + "%02X" % ((-sum(body)) & 0xFF) + "\n"


def crc16(b):
    return binascii.crc_hqx(b, 0xFFFF)


def legacy_dat(firmware, ver, sd_req=(0xFFFE,), ext=None):
    d = struct.pack("<HHIH", 0x52, 1, 3, len(sd_req)) + b"".join(struct.pack("<H", x) for x in sd_req)
    if ver == 0.5:
        d += struct.pack("<H", crc16(firmware))
    elif ver == 0.6:
        d += struct.pack("<IH", 0 if ext is None else ext, crc16(firmware))
    else:
        d += struct.pack("<II", (1 if ver == 0.7 else 2) if ext is None else ext, len(firmware))
        d += hashlib.sha256(firmware).digest()
        if ver == 0.8:
            d += b"\x22" * 64
    return d


FW = hashlib.sha256(b"fw").digest() * 32          # 1 KiB
SD_BL = hashlib.sha256(b"sdbl").digest() * 40     # 1280 bytes: 1024 SD + 256 BL


NO_VERSION = object()


def manifest(images, dfu_version=NO_VERSION):
    m = dict(images)
    if dfu_version is not NO_VERSION:
        m["dfu_version"] = dfu_version
    return json.dumps({"manifest": m}, indent=4, sort_keys=True).encode()


APP_MANIFEST = manifest({"application": {"bin_file": "app.bin", "dat_file": "app.dat"}})


def app_files(dat=None, fw=FW, man=APP_MANIFEST):
    return [("manifest.json", man), ("app.bin", fw), ("app.dat", unsigned_dat(init_command(fw)) if dat is None else dat)]


def legacy_files(ver, dat=None, fw=FW):
    return [("manifest.json", manifest({"application": {"bin_file": "app.bin", "dat_file": "app.dat"}}, ver)),
            ("app.bin", fw), ("app.dat", legacy_dat(fw, ver) if dat is None else dat)]


# ------------------------------------------------------------------------------------ zip, by hand
class E:
    """One entry of a hand-made zip; every header field can be overridden."""

    def __init__(self, name, data, method=0, **kw):
        self.name = name if isinstance(name, bytes) else name.encode()
        self.data = data
        self.method = method
        if "payload" in kw:
            self.payload = kw.pop("payload")
        elif method == 8:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            self.payload = c.compress(data) + c.flush()
        else:
            self.payload = data
        self.kw = kw

    def get(self, k, default):
        return self.kw.get(k, default)


def rawzip(entries, comment=b"", eocd_count=None, cd_offset_delta=0, trailing=b""):
    out = bytearray()
    cd = bytearray()
    for e in entries:
        off = len(out)
        crc = e.get("crc", zlib.crc32(e.data) & 0xFFFFFFFF)
        usize = e.get("usize", len(e.data))
        csize = e.get("csize", len(e.payload))
        lname = e.get("local_name", e.name)
        flags = e.get("flags", 0)
        lextra = e.get("local_extra", b"")
        out += struct.pack("<IHHHHHIIIHH", e.get("local_sig", 0x04034B50), 20, e.get("local_flags", flags),
                           e.get("local_method", e.method), 0, 0x5821, e.get("local_crc", crc),
                           e.get("local_csize", csize), e.get("local_usize", usize), len(lname), len(lextra))
        out += lname + lextra + e.payload + e.get("after", b"")
        cextra = e.get("central_extra", b"")
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, e.get("version_needed", 20), flags, e.method, 0,
                          0x5821, crc, csize, usize, len(e.name), len(cextra), 0, e.get("disk", 0), 0,
                          e.get("external", 0o100644 << 16), e.get("offset", off))
        cd += e.name + cextra
    cd_off = len(out)
    out += cd
    n = len(entries) if eocd_count is None else eocd_count
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(cd), cd_off + cd_offset_delta, len(comment))
    out += comment + trailing
    return bytes(out)


def files_zip(files, method=zipfile.ZIP_STORED):
    return rawzip([E(n, d, 8 if method == zipfile.ZIP_DEFLATED else 0) for n, d in files])


def pyzip(path, files, **kw):
    with zipfile.ZipFile(path, "w", compression=kw.get("method", zipfile.ZIP_STORED)) as z:
        for n, d in files:
            if kw.get("zip64"):
                with z.open(zipfile.ZipInfo(n, (2024, 1, 1, 0, 0, 0)), "w", force_zip64=True) as w:
                    w.write(d)
            else:
                z.writestr(zipfile.ZipInfo(n, (2024, 1, 1, 0, 0, 0)), d)


# ------------------------------------------------------------------------------------------ cases
def cases(work):
    """Yields (id, expected class, exit code, path)."""
    def put(name, blob, suffix=".zip"):
        path = os.path.join(work, name + suffix)
        with open(path, "wb") as f:
            f.write(blob)
        return path

    def z(cid, cls, blob, code=65, suffix=".zip"):
        return (cid, cls, code, put(cid, blob, suffix))

    good = files_zip(app_files())
    out = []
    IZ, UP, DUP, BIG, COMP = "invalid_zip", "unsafe_entry_path", "duplicate_entry", "entry_too_large", "unsupported_compression"
    MM, MJ, MI, IM, IE = "manifest_missing", "manifest_invalid_json", "manifest_invalid", "image_missing", "image_empty"
    IPI, IPM, FNF = "init_packet_invalid", "init_packet_mismatch", "file_not_found"

    # ---- invalid_zip
    out.append(z("iz_one_byte", IZ, b"P"))
    out.append(z("iz_pk_only", IZ, b"PK"))
    out.append(z("iz_local_header_only", IZ, good[:30]))
    out.append(z("iz_eocd_only_garbage_before", IZ, b"\x00" * 100 + good[-22:]))
    for cut in sorted(set([1, 10, 29, 31, len(good) // 3, len(good) - 23, len(good) - 22, len(good) - 1])):
        out.append(z("iz_truncated_at_%d" % cut, IZ, good[:cut]))
    out.append(z("iz_cd_offset_past_end", IZ, rawzip([E(n, d) for n, d in app_files()], cd_offset_delta=10 ** 6)))
    out.append(z("iz_eocd_count_too_high", IZ, rawzip([E(n, d) for n, d in app_files()], eocd_count=50)))
    f = app_files()
    out.append(z("iz_cd_name_differs_from_local", IZ, rawzip([E(f[0][0], f[0][1]), E(f[1][0], f[1][1], local_name=b"xpp.bin"), E(*f[2])])))
    out.append(z("iz_cd_size_differs_from_local", IZ, rawzip([E(*f[0]), E(f[1][0], f[1][1], local_csize=1000, local_usize=1000), E(*f[2])])))
    out.append(z("iz_cd_method_differs_from_local", IZ, rawzip([E(*f[0]), E(f[1][0], f[1][1], local_method=8), E(*f[2])])))
    out.append(z("iz_cd_crc_differs_from_local", IZ, rawzip([E(*f[0]), E(f[1][0], f[1][1], local_crc=1), E(*f[2])])))
    out.append(z("iz_cd_offset_points_at_other_entry", IZ, rawzip([E(*f[0]), E(f[1][0], f[1][1], offset=0), E(*f[2])])))
    out.append(z("iz_local_signature_broken", IZ, rawzip([E(*f[0]), E(f[1][0], f[1][1], local_sig=0x04034B51), E(*f[2])])))
    out.append(z("iz_crc_mismatch_stored", IZ, rawzip([E(*f[0]), E(f[1][0], f[1][1], crc=0xDEADBEEF), E(*f[2])])))
    out.append(z("iz_crc_mismatch_deflated", IZ, rawzip([E(*f[0]), E(f[1][0], f[1][1], 8, crc=0xDEADBEEF), E(*f[2])])))
    out.append(z("iz_crc_mismatch_in_manifest", IZ, rawzip([E(f[0][0], f[0][1], crc=5), E(*f[1]), E(*f[2])])))
    out.append(z("iz_crc_mismatch_unnamed_entry", IZ, rawzip([E(n, d) for n, d in app_files()] + [E("notes.txt", b"hello", 8, crc=7)])))
    out.append(z("iz_unnamed_entry_deflate_garbage", IZ, rawzip([E(n, d) for n, d in app_files()] + [E("notes.txt", b"hello", 8, payload=b"\xff" * 9)])))
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    full = c.compress(FW) + c.flush()
    out.append(z("iz_deflate_ends_early", IZ, rawzip([E(*f[0]), E(f[1][0], f[1][1], 8, payload=full[:len(full) // 2]), E(*f[2])])))
    out.append(z("iz_deflate_garbage", IZ, rawzip([E(*f[0]), E(f[1][0], f[1][1], 8, payload=b"\xff" * 50), E(*f[2])])))
    out.append(z("iz_inflated_shorter_than_declared", IZ, rawzip([E(*f[0]), E(f[1][0], f[1][1], 8, usize=len(FW) + 7), E(*f[2])])))
    out.append(z("iz_inflated_longer_than_declared", IZ, rawzip([E(*f[0]), E(f[1][0], f[1][1], 8, usize=len(FW) - 7), E(*f[2])])))
    # A record claiming to start on disk 1 of a one-disk archive: libzip and Python's zipfile both
    # ignore the field, and so do we (the data is where the offset says).
    out.append(z("ok_record_disk_number_1", None, rawzip([E(*f[0]), E(f[1][0], f[1][1], disk=1), E(*f[2])]), code=0))
    eocd_disk = bytearray(good)
    eocd_disk[-22 + 4] = 1
    out.append(z("iz_eocd_multi_disk", IZ, bytes(eocd_disk)))
    # ZIP64: a locator pointing at garbage, and a zip64 extra field whose sizes lie.
    eocd = good[-22:]
    body = good[:-22]
    locator = struct.pack("<IIQI", 0x07064B50, 0, len(body) + 5, 1)
    out.append(z("iz_zip64_locator_to_garbage", IZ, body + b"\x00" * 56 + locator + eocd))
    z64 = struct.pack("<HHQQ", 1, 16, 0x1234, 0x1234)
    out.append(z("iz_zip64_extra_sizes_lie", IZ, rawzip([E(*f[0]), E(f[1][0], f[1][1], usize=0xFFFFFFFF, csize=0xFFFFFFFF,
                                                                        central_extra=z64, local_extra=z64), E(*f[2])])))
    out.append(z("iz_100MiB_of_zeros", IZ, b"\x00" * (100 * 1024 * 1024)))
    for name, suffix, cls in (("iz_sparse_1GiB", ".zip", IZ), ("big_sparse_1GiB_bin", ".bin", BIG),
                              ("big_sparse_1GiB_hex", ".hex", BIG)):
        path = os.path.join(work, name + suffix)
        with open(path, "wb") as fh:
            fh.truncate(1 << 30)       # sparse: costs no disk
        out.append((name, cls, 65, path))
    out.append(z("iz_random_bytes", IZ, hashlib.sha256(b"r").digest() * 100))
    out.append(z("iz_gzip_not_zip", IZ, __import__("gzip").compress(good)))

    # ---- unsafe_entry_path
    for i, name in enumerate(["/etc/passwd", "../../evil", "a/../../b", "..\\..\\evil", "C:/evil", "\\\\server\\share",
                              "./../evil", "ok/../../../evil"]):
        out.append(z("up_entry_%d" % i, UP, files_zip(app_files() + [(name, b"x")])))
    for i, name in enumerate(["../app.bin", "/app.bin", "..\\app.bin", "sub/../../app.bin"]):
        man = manifest({"application": {"bin_file": name, "dat_file": "app.dat"}})
        out.append(z("up_manifest_bin_%d" % i, UP, files_zip(app_files(man=man))))
    man = manifest({"application": {"bin_file": "app.bin", "dat_file": "../app.dat"}})
    out.append(z("up_manifest_dat", UP, files_zip(app_files(man=man))))
    out.append(z("up_entry_with_nul", UP, rawzip([E(n, d) for n, d in app_files()] + [E(b"evil\x00/../../x", b"x")])))
    out.append(z("up_entry_nul_after_image_name", UP, rawzip([E(n, d) for n, d in app_files()] + [E(b"app.bin\x00.txt", b"x")])))
    out.append(z("up_entry_nul_in_extra_name", UP, rawzip([E(n, d) for n, d in app_files()] + [E(b"notes\x00.txt", b"x")])))

    # ---- duplicate_entry
    out.append(z("dup_manifest", DUP, files_zip(app_files() + [("manifest.json", b"{}")])))
    out.append(z("dup_bin_same_bytes", DUP, files_zip(app_files() + [("app.bin", FW)])))
    out.append(z("dup_unnamed_extra", DUP, files_zip(app_files() + [("notes.txt", b"a"), ("notes.txt", b"b")])))
    out.append(z("dup_dat_deflated", DUP, rawzip([E(n, d, 8) for n, d in app_files() + [("app.dat", b"zz")]])))

    # ---- entry_too_large
    out.append(z("big_declared_16MiB_plus_1_stored", BIG, rawzip([E(*f[0]), E(f[1][0], f[1][1], usize=LIMIT + 1, csize=len(FW)), E(*f[2])])))
    bomb = zlib.compressobj(9, zlib.DEFLATED, -15)
    bomb_payload = bomb.compress(b"\x00" * (LIMIT + 1)) + bomb.flush()
    out.append(z("big_deflate_16MiB_plus_1_declared_exact", BIG, rawzip([E(*f[0]), E("app.bin", b"", 8, payload=bomb_payload, usize=LIMIT + 1, crc=0), E(*f[2])])))
    out.append(z("big_deflate_bomb_declared_small", BIG, rawzip([E(*f[0]), E("app.bin", b"", 8, payload=bomb_payload, usize=1024, crc=0), E(*f[2])])))
    out.append(z("big_unnamed_entry_bomb", BIG, rawzip([E(n, d) for n, d in app_files()] + [E("zeros.bin", b"", 8, payload=bomb_payload, usize=10, crc=0)])))
    zeros16 = zlib.compressobj(9, zlib.DEFLATED, -15)
    zeros16 = zeros16.compress(b"\x00" * LIMIT) + zeros16.flush()
    zcrc = zlib.crc32(b"\x00" * LIMIT) & 0xFFFFFFFF
    out.append(z("big_twenty_16MiB_zero_entries", BIG, rawzip([E(n, d) for n, d in app_files()] + [
        E("zeros%02d.bin" % i, b"", 8, payload=zeros16, usize=LIMIT, crc=zcrc) for i in range(20)])))
    out.append(z("ok_three_16MiB_zero_entries", None, rawzip([E(n, d) for n, d in app_files()] + [
        E("zeros%02d.bin" % i, b"", 8, payload=zeros16, usize=LIMIT, crc=zcrc) for i in range(3)]), code=0))
    out.append(z("big_unnamed_entry_declared", BIG, rawzip([E(n, d) for n, d in app_files()] + [E("x.txt", b"x", 8, usize=0xFFFFFFFE)])))
    real = b"\x01" * (LIMIT + 1)
    p = os.path.join(work, "big_real_16MiB_plus_1_stored.zip")
    pyzip(p, app_files()[:2] + [("app.dat", unsigned_dat(init_command(FW))), ("big.bin", real)])
    out.append(("big_real_16MiB_plus_1_stored", BIG, 65, p))
    p = os.path.join(work, "big_zip64_declared.zip")
    out.append(z("big_zip64_declared", BIG, rawzip([E(*f[0]), E(f[1][0], f[1][1], usize=0xFFFFFFFF, csize=0xFFFFFFFF,
                                                              central_extra=struct.pack("<HHQQ", 1, 16, 1 << 40, len(FW)),
                                                              local_extra=struct.pack("<HHQQ", 1, 16, 1 << 40, len(FW))), E(*f[2])])))
    out.append(z("big_bare_bin_100MiB", BIG, b"\x00" * (100 * 1024 * 1024), suffix=".bin"))

    # ---- unsupported_compression
    for m in (1, 6, 9, 12, 14, 19, 95, 98, 99):
        out.append(z("comp_method_%d" % m, COMP, rawzip([E(*f[0]), E(f[1][0], f[1][1], m), E(*f[2])])))
    out.append(z("comp_encrypted_manifest", COMP, rawzip([E(f[0][0], f[0][1], flags=1), E(*f[1]), E(*f[2])])))
    out.append(z("comp_strong_encryption", COMP, rawzip([E(*f[0]), E(f[1][0], f[1][1], flags=0x41), E(*f[2])])))

    # ---- manifest_missing
    out.append(z("mm_empty_zip", MM, rawzip([])))
    out.append(z("mm_in_subfolder", MM, files_zip([("pkg/" + n, d) for n, d in app_files()])))
    out.append(z("mm_dot_slash", MM, files_zip([("./" + n, d) if n == "manifest.json" else (n, d) for n, d in app_files()])))
    out.append(z("mm_upper_case", MM, files_zip([("MANIFEST.JSON", APP_MANIFEST)] + app_files()[1:])))
    out.append(z("mm_directory_entry_named_so", MM, files_zip([("manifest.json/", b"")] + app_files()[1:])))
    out.append(z("mm_trailing_space", MM, files_zip([("manifest.json ", APP_MANIFEST)] + app_files()[1:])))
    out.append(z("mm_only_images", MM, files_zip(app_files()[1:])))

    # ---- manifest_invalid_json
    for i, text in enumerate([b"", b"{", b"not json", b"{\"manifest\": {\"application\": {\"bin_file\": \"app.bin\",}}}",
                              b"// comment\n" + APP_MANIFEST, b"/* c */" + APP_MANIFEST, APP_MANIFEST + b"\n{}",
                              b"{'manifest': {}}", b"\xff\xfe\x00{", APP_MANIFEST[:-5], b"[" * 100000 + b"]" * 100000,
                              b"{\"manifest\": NaN}", b"\x00" * 10]):
        out.append(z("mj_%d" % i, MJ, files_zip(app_files(man=text))))

    # ---- manifest_invalid
    bad_manifests = [
        b"[]", b"\"manifest\"", b"null", b"42", b"{}", b"{\"manifest\": []}", b"{\"manifest\": \"x\"}",
        b"{\"manifest\": null}", b"{\"manifest\": {}}",
        manifest({"application": {"bin_file": 5, "dat_file": "app.dat"}}),
        manifest({"application": {"bin_file": ["app.bin"], "dat_file": "app.dat"}}),
        manifest({"application": {"bin_file": "", "dat_file": "app.dat"}}),
        manifest({"application": {"bin_file": "app.bin", "dat_file": 7}}),
        manifest({"application": {"bin_file": "app.bin", "dat_file": None}}),
        manifest({"application": {"bin_file": "app.bin"}}),
        manifest({"application": {"dat_file": "app.dat"}}),
        manifest({"application": "app.bin"}),
        manifest({"application": ["app.bin", "app.dat"]}),
        manifest({"firmware": {"bin_file": "app.bin", "dat_file": "app.dat"}}),
        manifest({"application": {"bin_file": "app.bin", "dat_file": "app.dat"}}, "0.5"),
        manifest({"application": {"bin_file": "app.bin", "dat_file": "app.dat"}}, 0.9),
        manifest({"application": {"bin_file": "app.bin", "dat_file": "app.dat"}}, 1),
        manifest({"application": {"bin_file": "app.bin", "dat_file": "app.dat"}}, True),
        manifest({"application": {"bin_file": "app.bin", "dat_file": "app.dat"}}, None),
        manifest({"application": {"bin_file": "app.bin", "dat_file": "app.dat"},
                  "softdevice": {"bin_file": "app.bin", "dat_file": "app.dat"},
                  "bootloader": {"bin_file": "app.bin", "dat_file": "app.dat"}}),
    ]
    for i, m in enumerate(bad_manifests):
        out.append(z("mi_%d" % i, MI, files_zip(app_files(man=m))))
    sdbl_dat = unsigned_dat(init_command(SD_BL, 3, sizes=(1024, 256, 0)))
    for i, meta in enumerate([{"sd_size": "1024", "bl_size": 256}, {"sd_size": -1, "bl_size": 1281},
                              {"sd_size": 1024.5, "bl_size": 255.5}, {"sd_size": 1e400, "bl_size": 256},
                              {"sd_size": 1024}, {"sd_size": 2 ** 40, "bl_size": 256}]):
        m = manifest({"softdevice_bootloader": {"bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat", "info_read_only_metadata": meta}})
        if b"Infinity" in m:
            m = m.replace(b"Infinity", b"1e400")
        out.append(z("mi_sdbl_sizes_%d" % i, MI, files_zip([("manifest.json", m), ("sd_bl.bin", SD_BL), ("sd_bl.dat", sdbl_dat)])))
    ldat = legacy_dat(SD_BL, 0.5)
    m = manifest({"softdevice_bootloader": {"bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat", "sd_size": 1024, "bl_size": 200}}, 0.5)
    out.append(z("mi_legacy_sd_plus_bl_not_bin_size", MI, files_zip([("manifest.json", m), ("sd_bl.bin", SD_BL), ("sd_bl.dat", ldat)])))
    m = manifest({"softdevice_bootloader": {"bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat"}}, 0.5)
    out.append(z("mi_legacy_sd_bl_without_sizes", MI, files_zip([("manifest.json", m), ("sd_bl.bin", SD_BL), ("sd_bl.dat", ldat)])))

    # ---- image_missing
    out.append(z("im_no_bin", IM, files_zip([app_files()[0], app_files()[2]])))
    out.append(z("im_no_dat", IM, files_zip(app_files()[:2])))
    out.append(z("im_bin_other_case", IM, files_zip([app_files()[0], ("APP.BIN", FW), app_files()[2]])))
    out.append(z("im_bin_only_in_subfolder", IM, files_zip([app_files()[0], ("sub/app.bin", FW), app_files()[2]])))
    out.append(z("im_legacy_no_dat", IM, files_zip(legacy_files(0.5)[:2])))
    m = manifest({"application": {"bin_file": "app.bin", "dat_file": "app.dat"},
                  "softdevice_bootloader": {"bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat",
                                            "info_read_only_metadata": {"sd_size": 1024, "bl_size": 256}}})
    out.append(z("im_second_image_missing", IM, files_zip(app_files(man=m))))

    # ---- image_empty
    out.append(z("ie_stored", IE, files_zip(app_files(fw=b""))))
    out.append(z("ie_deflated", IE, rawzip([E(n, d, 8) for n, d in app_files(fw=b"")])))
    out.append(z("ie_legacy", IE, files_zip(legacy_files(0.5, fw=b""))))
    out.append(z("ie_bare_bin", IE, b"", suffix=".bin"))

    # ---- init_packet_invalid
    for name, dat in [("unsigned", unsigned_dat(init_command(FW))), ("signed", signed_dat(init_command(FW)))]:
        for cut in range(0, len(dat)):
            out.append(z("ipi_%s_truncated_%03d" % (name, cut), IPI, files_zip(app_files(dat=dat[:cut]))))
    init = init_command(FW)
    wrong = [
        ("command_as_varint", field(1, 0, 5)),
        ("command_as_fixed32", varint(1 << 3 | 5) + b"\x00\x00\x00\x00"),
        ("init_as_varint", field(1, 2, field(1, 0, 1) + field(2, 0, 7))),
        ("wire_type_3", varint(1 << 3 | 3) + unsigned_dat(init)),
        ("wire_type_7", b"\x0f" + unsigned_dat(init)),
        ("huge_varint_key", b"\xff" * 11 + b"\x01"),
        ("huge_varint_length", b"\x0a" + b"\xff" * 10 + b"\x01"),
        ("length_overflows_uint64", b"\x0a" + b"\xff" * 9 + b"\x01" + init),
        ("nested_length_overflow", field(1, 2, field(1, 0, 1) + b"\x12\x7f" + init[:20])),
        ("outer_length_short", b"\x0a\x05" + command(init)),
        ("signed_without_signature", signed_dat(init, sig=None)),
        ("both_command_and_signed", unsigned_dat(init) + signed_dat(init)),
        ("opcode_reset", field(1, 2, command(init, op=0))),
        ("opcode_unknown", field(1, 2, command(init, op=9))),
        ("no_init", field(1, 2, field(1, 0, 1))),
        ("no_hash", field(1, 2, command(init[:-(len(init) - init.index(b"\x42"))] + field(9, 0, 0)))),
        ("hash_without_type", field(1, 2, command(field(7, 0, len(FW)) + field(8, 2, field(2, 2, b"\x00" * 32))))),
        ("hash_type_unknown", field(1, 2, command(init_command(FW, hash_type=9)))),
        ("fw_type_unknown", field(1, 2, command(init_command(FW, ftype=9, sizes=(0, 0, len(FW)))))),
        ("boot_validation_type_unknown", field(1, 2, command(init_command(FW)[:-6] + field(10, 2, field(1, 0, 7) + field(2, 2, b""))))),
        ("signature_type_unknown", signed_dat(init, sig_type=5)),
        ("empty_packet", b""),
        ("just_zero", b"\x00"),
        ("random", hashlib.sha256(b"x").digest() * 3),
        ("legacy_bytes_in_secure", legacy_dat(FW, 0.5)),
        ("init_given_twice", field(1, 2, field(1, 0, 1) + field(2, 2, init) + field(2, 2, init))),
        ("deep_unknown_groups", b"\x0b" * 5000),
    ]
    for name, dat in wrong:
        out.append(z("ipi_%s" % name, IPI, files_zip(app_files(dat=dat))))
    for ver in (0.5, 0.6, 0.7, 0.8):
        full = legacy_dat(FW, ver)
        for cut in range(0, len(full)):
            out.append(z("ipi_legacy_%s_truncated_%03d" % (ver, cut), IPI, files_zip(legacy_files(ver, dat=full[:cut]))))
        out.append(z("ipi_legacy_%s_trailing_byte" % ver, IPI, files_zip(legacy_files(ver, dat=full + b"\x00"))))
        out.append(z("ipi_legacy_%s_sd_req_count_huge" % ver, IPI, files_zip(legacy_files(ver, dat=full[:8] + b"\xff\xff" + full[10:]))))
    out.append(z("ipi_legacy_0.6_ext_id_wrong", IPI, files_zip(legacy_files(0.6, dat=legacy_dat(FW, 0.6, ext=7)))))
    out.append(z("ipi_legacy_0.7_ext_id_wrong", IPI, files_zip(legacy_files(0.7, dat=legacy_dat(FW, 0.7, ext=2)))))
    out.append(z("ipi_secure_dat_in_legacy", IPI, files_zip(legacy_files(0.5, dat=unsigned_dat(init)))))

    # ---- init_packet_mismatch
    mism = [
        ("hash_31_bytes", init_command(FW, hash_bytes=hashlib.sha256(FW).digest()[::-1][:31])),
        ("hash_33_bytes", init_command(FW, hash_bytes=hashlib.sha256(FW).digest()[::-1] + b"\x00")),
        ("hash_not_reversed", init_command(FW, hash_bytes=hashlib.sha256(FW).digest())),
        ("hash_of_other", init_command(FW, hash_bytes=hashlib.sha256(b"other").digest())),
        ("app_size_plus_1", init_command(FW, sizes=(0, 0, len(FW) + 1))),
        ("app_size_zero", init_command(FW, sizes=(0, 0, 0))),
        ("type_bootloader_for_app", init_command(FW, 2)),
        ("type_softdevice_for_app", init_command(FW, 1)),
    ]
    for name, ic in mism:
        out.append(z("ipm_%s" % name, IPM, files_zip(app_files(dat=unsigned_dat(ic)))))
        out.append(z("ipm_%s_signed" % name, IPM, files_zip(app_files(dat=signed_dat(ic)))))
    for ver in (0.5, 0.6):
        d = bytearray(legacy_dat(FW, ver))
        d[-1] ^= 0xFF
        out.append(z("ipm_legacy_%s_crc" % ver, IPM, files_zip(legacy_files(ver, dat=bytes(d)))))
    for ver in (0.7, 0.8):
        d = bytearray(legacy_dat(FW, ver))
        d[16] ^= 1          # firmware_length (after 10 fixed bytes, 1 sd_req, ext_packet_id)
        out.append(z("ipm_legacy_%s_length" % ver, IPM, files_zip(legacy_files(ver, dat=bytes(d)))))
        d = bytearray(legacy_dat(FW, ver))
        d[20] ^= 1          # firmware_hash
        out.append(z("ipm_legacy_%s_hash" % ver, IPM, files_zip(legacy_files(ver, dat=bytes(d)))))
    m = manifest({"softdevice_bootloader": {"bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat",
                                            "info_read_only_metadata": {"sd_size": 1024, "bl_size": 256}}})
    out.append(z("ipm_sdbl_init_sizes_differ_from_manifest", IPM, files_zip(
        [("manifest.json", m), ("sd_bl.bin", SD_BL), ("sd_bl.dat", unsigned_dat(init_command(SD_BL, 3, sizes=(1000, 280, 0))))])))
    out.append(z("ipm_sdbl_init_sizes_wrong_no_manifest_sizes", IPM, files_zip(
        [("manifest.json", manifest({"softdevice_bootloader": {"bin_file": "sd_bl.bin", "dat_file": "sd_bl.dat"}})),
         ("sd_bl.bin", SD_BL), ("sd_bl.dat", unsigned_dat(init_command(SD_BL, 3, sizes=(1000, 200, 0))))])))

    # ---- bare Intel HEX (an extension of ours: `invalid_hex`, exit 65; not a contract class)
    HX = "invalid_hex"
    data_rec = record(0x00, 0x0000, FW[:16])
    ela = record(0x04, 0, b"\x00\x02")
    eof = ":00000001FF\n"
    bad_sum = data_rec[:-3] + "00\n"
    for name, text, cls in [
        ("hex_bad_checksum", ela + bad_sum + eof, HX),
        ("hex_odd_length", ela + data_rec[:-2] + "\n" + eof, HX),
        ("hex_unknown_record_type", ela + record(0x06, 0, b"\x01") + data_rec + eof, HX),
        ("hex_no_eof_record", ela + data_rec, HX),
        ("hex_not_hex_digits", ela + ":10000000ZZ" + data_rec[11:] + eof, HX),
        ("hex_length_byte_lies", ela + ":20" + data_rec[3:] + eof, HX),
        ("hex_overlap", ela + data_rec + data_rec + eof, HX),
        ("hex_no_colon", ela + data_rec[1:] + eof, HX),
        ("hex_binary_garbage", "\x00\x01\x02" * 100, HX),
        ("hex_span_256MiB", ela + data_rec + record(0x04, 0, b"\x0f\xff") + record(0x00, 0xFFF0, FW[:16]) + eof, BIG),
        ("hex_only_eof", eof, IE),
        ("hex_only_mbr_and_uicr", record(0x00, 0x0100, FW[:16]) + record(0x04, 0, b"\x10\x00") + record(0x00, 0x1014, FW[:4]) + eof, IE),
    ]:
        out.append(z(name, cls, text.encode("latin-1"), suffix=".hex"))
    d2 = os.path.join(work, "bare_bin_bad_dat")
    os.makedirs(d2, exist_ok=True)
    open(os.path.join(d2, "app.bin"), "wb").write(FW)
    open(os.path.join(d2, "app.dat"), "wb").write(b"\x0a\x05\x01")
    out.append(("bare_bin_with_bad_dat", IPI, 65, os.path.join(d2, "app.bin")))

    # ---- many tiny entries (must stay fast and small; refused as entry duplicates would be)
    p = os.path.join(work, "ok_many_tiny_entries.zip")
    with zipfile.ZipFile(p, "w") as zz:
        for n, d in app_files():
            zz.writestr(n, d)
        for i in range(100000):
            zz.writestr("t/%06d" % i, b"")
    out.append(("ok_many_tiny_entries", None, 0, p))
    p = os.path.join(work, "dup_many_tiny_entries_last.zip")
    shutil.copy(os.path.join(work, "ok_many_tiny_entries.zip"), p)
    with zipfile.ZipFile(p, "a") as zz:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            zz.writestr("t/099999", b"x")
    out.append(("dup_many_tiny_entries_last", DUP, 65, p))

    # ---- file_not_found (exit 66)
    d = os.path.join(work, "a_directory.zip")
    os.makedirs(d, exist_ok=True)
    out.append(("fnf_directory", FNF, 66, d))
    out.append(("fnf_missing", FNF, 66, os.path.join(work, "no_such_file.zip")))
    loop = os.path.join(work, "loop.zip")
    if not os.path.lexists(loop):
        os.symlink("loop.zip", loop)
    out.append(("fnf_symlink_loop", FNF, 66, loop))
    dangling = os.path.join(work, "dangling.zip")
    if not os.path.lexists(dangling):
        os.symlink("nowhere/x.zip", dangling)
    out.append(("fnf_dangling_symlink", FNF, 66, dangling))
    out.append(("fnf_file_as_directory", FNF, 66, put("plain", good) + "/x.zip"))
    unreadable = put("unreadable", good)
    os.chmod(unreadable, 0)
    out.append(("fnf_unreadable_as_nobody", FNF, 66, unreadable))
    fifo = os.path.join(work, "fifo.zip")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    out.append(("fnf_fifo", FNF, 66, fifo))
    out.append(("fnf_dev_zero", FNF, 66, "/dev/zero"))

    # ---- valid edge cases that must read (exit 0)
    out.append(z("ok_bom_free_crlf_manifest", None, files_zip(app_files(man=APP_MANIFEST.replace(b"\n", b"\r\n"))), code=0))
    out.append(z("ok_unknown_manifest_keys", None, files_zip(app_files(man=manifest(
        {"application": {"bin_file": "app.bin", "dat_file": "app.dat", "extra": [1, 2]}, "comment": "x"}))), code=0))
    out.append(z("ok_dir_entries", None, files_zip([("docs/", b"")] + app_files()), code=0))
    p = os.path.join(work, "ok_zip64.zip")
    pyzip(p, app_files(), zip64=True)
    out.append(("ok_zip64", None, 0, p))
    out.append(z("ok_comment_with_pk", None, rawzip([E(n, d) for n, d in app_files()], comment=b"PK\x05\x06 fake"), code=0))
    return out


# ------------------------------------------------------------------------------------------ run
def run(binary, cid, path):
    # root reads a chmod 000 file anyway: run that case as nobody.
    as_nobody = cid.endswith("_as_nobody") and os.geteuid() == 0
    cmd = ["/usr/bin/time", "-v", binary, "inspect", path, "--json"]
    if as_nobody:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
    except subprocess.TimeoutExpired:
        return None, None, 20.0, 0, "timed out after 20 s"
    err = r.stderr.decode(errors="replace")
    rss = seconds = None
    for line in err.splitlines():
        line = line.strip()
        if line.startswith("Maximum resident set size (kbytes):"):
            rss = int(line.split(":")[1])
        if line.startswith("Elapsed (wall clock) time"):
            t = line.split("): ")[1].split(":")
            seconds = sum(float(x) * 60 ** i for i, x in enumerate(reversed(t)))
    code = r.returncode
    cls = None
    try:
        obj = json.loads(r.stdout)
        cls = obj.get("error", {}).get("class")
    except ValueError:
        pass
    return code, cls, seconds, rss, r.stdout.decode(errors="replace")[:300]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary")
    ap.add_argument("--work")
    ap.add_argument("--only")
    ap.add_argument("--verbose", action="store_true")
    ns = ap.parse_args()
    binary = ns.binary
    if not binary:
        subprocess.run(["swift", "build", "-c", "release", "--product", "dfu-update"], cwd=REPO, check=True)
        binary = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=REPO, check=True,
                                stdout=subprocess.PIPE, text=True).stdout.strip() + "/dfu-update"
    binary = os.path.abspath(binary)
    work = os.path.abspath(ns.work or tempfile.mkdtemp(prefix="dfu_malformed_"))
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    all_cases = cases(work)
    failures = 0
    worst_time = worst_rss = 0
    by_class = {}
    for cid, cls, code, path in all_cases:
        if ns.only and ns.only not in cid:
            continue
        got_code, got_cls, secs, rss, out = run(binary, cid, path)
        problems = []
        if got_code != code:
            problems.append("exit %r, expected %d" % (got_code, code))
        if cls is not None and got_cls != cls:
            problems.append("class %r, expected %r" % (got_cls, cls))
        if secs is None or secs > MAX_SECONDS:
            problems.append("took %s s" % secs)
        if rss is None or rss > MAX_RSS_KIB:
            problems.append("max RSS %s KiB" % rss)
        worst_time = max(worst_time, secs or 0)
        worst_rss = max(worst_rss, rss or 0)
        by_class[cls or "ok"] = by_class.get(cls or "ok", 0) + 1
        if problems or ns.verbose:
            print("%s %-50s %s  (%.2f s, %s KiB) %s" % ("FAIL" if problems else "ok  ", cid, "; ".join(problems),
                                                      secs or 0, rss, out.strip() if problems else ""))
        failures += bool(problems)
    total = sum(by_class.values())
    print("\n%d variants (%s); %d failed; slowest %.2f s, largest max RSS %d KiB; files in %s"
          % (total, ", ".join("%s %d" % kv for kv in sorted(by_class.items())), failures, worst_time, worst_rss, work))
    if not ns.work and not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
