#!/usr/bin/env python3
"""Compare `dfu-update inspect --json` with the truth on packages nobody committed.

Makes a fresh corpus under a temporary folder with Nordic's own packaging tools (nrfutil 6.1.7,
adafruit-nrfutil 0.5.3.post16, and Nordic's nrfutil 0.5.3 when Python 2.7 is there): option
combinations, image sets, sizes, input formats, two signing keys, every legacy dfu_version, and
re-zipped variants. For each package it derives the facts independently (Python's zipfile,
hashlib, zlib, binascii, and nrfutil's own dfu_cc_pb2 to decode Secure init packets, checked
against `nrfutil pkg display`) and compares them with what `dfu-update inspect PKG --json
[--public-key KEY]` prints, with each key.

One command, from the repository root (needs PyPI the first time, for the tools):

    scripts/acceptance/compare_inspect.py

It installs the tools with Tests/Fixtures/tools/setup_tools.sh (into /tmp, skipped when
present), builds `dfu-update` in release, and exits 1 on any disagreement. Options:
`--binary PATH` to test a binary already built, `--work DIR` to keep the corpus, `--only SUBSTR`.
Not part of `swift test`: the tool installs need the network and take a while.
"""
import argparse
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURE_TOOLS = os.path.join(REPO, "Tests", "Fixtures", "tools")
VENV_DIR = os.environ.get("DFU_FIXTURES_VENV_DIR", "/tmp/nordic-dfu-fixtures-venvs")
TOOLS_JSON = os.path.join(VENV_DIR, "tools.json")


def ensure_tools():
    if not os.path.exists(TOOLS_JSON):
        subprocess.run(["bash", os.path.join(FIXTURE_TOOLS, "setup_tools.sh"), VENV_DIR], check=True)
    return json.load(open(TOOLS_JSON))


def reexec_under_nrfutil(tools):
    """The truth decoder imports nrfutil's own protobuf classes: run under its venv."""
    try:
        import nordicsemi.dfu.dfu_cc_pb2  # noqa: F401
    except ImportError:
        python = tools["nrfutil6"]["python"]
        os.execv(python, [python] + sys.argv)


# ------------------------------------------------------------------------------------------ inputs
def prng(seed, n):
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hashlib.sha256(("%s:%d" % (seed, i)).encode()).digest()
        i += 1
    return bytes(out[:n])


def write_hex(path, segments):
    from intelhex import IntelHex
    ih = IntelHex()
    for addr, blob in segments:
        ih.frombytes(blob, offset=addr)
    with open(path, "w") as f:
        ih.write_hex_file(f, write_start_addr=False, byte_count=16)


def make_inputs(d):
    """Firmware inputs: (name -> path). Fake SoftDevices as in build_corpus.py."""
    def app(name, addr, size, fmt):
        data = bytearray(prng(name, size))
        if size >= 8:
            struct.pack_into("<II", data, 0, 0x20010000, (addr + 0x200) | 1)
        if fmt == "bin":
            open(os.path.join(d, name), "wb").write(bytes(data))
        else:
            write_hex(os.path.join(d, name), [(addr, bytes(data))])

    def softdevice(name, end, fwid):
        data = bytearray(prng(name, end - 0x1000))
        struct.pack_into("<III", data, 0x2004, 0x51B1E5DB, end, 0xFFFF0000 | fwid)
        write_hex(os.path.join(d, name), [(0x1000, bytes(data)), (0, prng(name + "mbr", 0xA00))])

    for size in (1, 2, 3, 5, 7, 4097, 65536, 65537, 300 * 1024, 1024 * 1024 - 3):
        app("app_%d.bin" % size, 0x26000, size, "bin")
        app("app_%d.hex" % size, 0x26000, size, "hex")
    app("legacy_app_%d.hex" % 5000, 0x1C000, 5000, "hex")
    app("bl_24k.hex", 0x78000, 24 * 1024 - 2, "hex")
    app("bl_small.bin", 0x78000, 1001, "bin")
    app("legacy_bl.hex", 0x7A000, 15000, "hex")
    softdevice("sd_s140.hex", 0x26000, 0xB6)
    softdevice("sd_s132.hex", 0x1C000, 0x88)
    # Gaps between segments, MBR and UICR records, segments beyond 64 KiB (type 04 records).
    write_hex(os.path.join(d, "gappy.hex"), [
        (0x200, prng("mbr", 64)), (0x27000, prng("g1", 100)), (0x27100, prng("g2", 37)),
        (0x40010, prng("g3", 3)), (0x10001014, b"\x00\x80\x07\x00")])
    # Segment addressing (type 02) rather than linear (type 04), unsorted records, lower-case.
    with open(os.path.join(d, "segmented.hex"), "w") as f:
        data = prng("seg", 48)
        f.write(record(0x02, 0, struct.pack(">H", 0x2800)))   # base 0x28000
        for off in (32, 0, 16):
            f.write(record(0x00, off, data[off:off + 16]).lower())
        f.write(":00000001FF\n")


def record(rtype, addr, payload):
    body = bytes([len(payload), addr >> 8, addr & 0xFF, rtype]) + payload
    return ":" + body.hex().upper() + "%02X" % ((-sum(body)) & 0xFF) + "\n"


# ------------------------------------------------------------------------------------------ corpus
S = ["pkg", "generate"]
HW = ["--hw-version", "52"]


def corpus():
    """(id, tool, args); @in:NAME is an input, @key:ID a private key."""
    k1, k2 = "@key:k1", "@key:k2"
    p = []
    for size in (1, 2, 3, 5, 7, 4097, 65537):
        for fmt in ("bin", "hex"):
            p.append(("s_app_%d_%s" % (size, fmt), "nrfutil6",
                      S + HW + ["--sd-req", "0x00", "--application-version", str(size),
                                "--application", "@in:app_%d.%s" % (size, fmt)]))
    p.append(("s_app_1m_signed_k2", "nrfutil6", S + HW + ["--sd-req", "0xB6", "--application-version", "9",
                                                        "--application", "@in:app_1048573.bin", "--key-file", k2]))
    p.append(("s_app_300k_signed_k1", "nrfutil6", S + HW + ["--sd-req", "0xB6", "--application-version", "1",
                                                          "--application", "@in:app_307200.hex", "--key-file", k1]))
    for bv in ("NO_VALIDATION", "VALIDATE_GENERATED_CRC", "VALIDATE_GENERATED_SHA256", "VALIDATE_ECDSA_P256_SHA256"):
        for key in (k1, k2):
            p.append(("s_app_bootval_%s_%s" % (bv, key[5:]), "nrfutil6",
                      S + HW + ["--sd-req", "0xB6,0x100,0xAE", "--application-version", "4",
                                "--app-boot-validation", bv, "--application", "@in:app_4097.bin", "--key-file", key]))
    p.append(("s_ext_app_signed", "nrfutil6", S + HW + ["--sd-req", "0xB6", "--application-version", "3",
                                                      "--external-app", "--application", "@in:app_5.hex", "--key-file", k1]))
    p.append(("s_ext_app_unsigned", "nrfutil6", S + HW + ["--sd-req", "0x00", "--application-version", "3",
                                                        "--external-app", "--application", "@in:app_4097.hex"]))
    for v in ("0", "1", "255", "4294967295"):
        p.append(("s_bl_only_v%s" % v, "nrfutil6", S + HW + ["--sd-req", "0xB6", "--bootloader-version", v,
                                                          "--bootloader", "@in:bl_24k.hex", "--key-file", k1]))
    p.append(("s_bl_only_bin_unsigned", "nrfutil6", S + ["--hw-version", "0xFFFFFFFF" if False else "4294967295",
                                                       "--sd-req", "0xFFFE", "--bootloader-version", "7",
                                                       "--bootloader", "@in:bl_small.bin"]))
    for sdreq in ("0xAE", "0xB6,0xAE,0x100,0x123"):
        p.append(("s_sd_only_%s" % sdreq.replace(",", "_"), "nrfutil6",
                  S + HW + ["--sd-req", sdreq, "--softdevice", "@in:sd_s140.hex", "--key-file", k2]))
    for bv in ("NO_VALIDATION", "VALIDATE_GENERATED_SHA256", "VALIDATE_ECDSA_P256_SHA256"):
        p.append(("s_sd_bl_sdbootval_%s" % bv, "nrfutil6",
                  S + HW + ["--sd-req", "0xAE", "--bootloader-version", "3", "--sd-boot-validation", bv,
                            "--softdevice", "@in:sd_s140.hex", "--bootloader", "@in:bl_24k.hex", "--key-file", k1]))
    for sdreq, sdid in (("0xAE", "0xB6"), ("0xAE,0xA9", "0xB6,0x100"), ("0x00", "0xB6")):
        p.append(("s_sd_bl_app_%s_%s" % (sdreq.replace(",", "_"), sdid.replace(",", "_")), "nrfutil6",
                  S + HW + ["--sd-req", sdreq, "--sd-id", sdid, "--bootloader-version", "2",
                            "--application-version", "5", "--app-boot-validation", "VALIDATE_ECDSA_P256_SHA256",
                            "--softdevice", "@in:sd_s140.hex", "--bootloader", "@in:bl_24k.hex",
                            "--application", "@in:app_4097.hex", "--key-file", k2]))
    p.append(("s_sd_app", "nrfutil6", S + HW + ["--sd-req", "0xAE", "--sd-id", "0xB6", "--application-version", "6",
                                              "--softdevice", "@in:sd_s140.hex", "--application", "@in:app_3.bin",
                                              "--key-file", k1]))
    p.append(("s_debug_versions", "nrfutil6", S + ["--debug-mode", "--hw-version", "53", "--sd-req", "0x101",
                                                 "--application-version", "77", "--application", "@in:app_2.bin"]))
    p.append(("s_debug_bl", "nrfutil6", S + ["--debug-mode", "--bootloader", "@in:bl_small.bin", "--key-file", k1]))
    p.append(("s_debug_sd_bl_app", "nrfutil6", S + ["--debug-mode", "--softdevice", "@in:sd_s140.hex",
                                                  "--bootloader", "@in:bl_24k.hex", "--sd-id", "0xB6",
                                                  "--application", "@in:app_7.hex"]))
    p.append(("s_version_string", "nrfutil6", S + HW + ["--sd-req", "0xB6", "--application-version-string", "99.99.99",
                                                      "--application", "@in:app_5.bin"]))
    p.append(("s_gappy_hex", "nrfutil6", S + HW + ["--sd-req", "0xB6", "--application-version", "1",
                                                 "--application", "@in:gappy.hex", "--key-file", k1]))
    p.append(("s_segmented_hex", "nrfutil6", S + HW + ["--sd-req", "0xB6", "--application-version", "1",
                                                     "--application", "@in:segmented.hex"]))
    # Legacy: adafruit-nrfutil (0.5, 0.6) and Nordic's nrfutil 0.5.3 (0.5 … 0.8).
    L = ["dfu", "genpkg"]
    for tool in ("adafruit", "nrfutil053"):
        vers = ("0.5", "0.6") if tool == "adafruit" else ("0.5", "0.6", "0.7", "0.8")
        for ver in vers:
            extra = ["--key-file", k1] if ver == "0.8" else []
            p.append(("l_%s_app_%s" % (tool, ver), tool,
                      L + ["--dfu-ver", ver, "--application-version", "0x01020304", "--dev-type", "0x1234",
                           "--dev-revision", "0xABCD", "--sd-req", "0x81,0x88,0x8C,0xFFFE",
                           "--application", "@in:legacy_app_5000.hex"] + extra))
            p.append(("l_%s_sd_bl_%s" % (tool, ver), tool,
                      L + ["--dfu-ver", ver, "--sd-req", "0x88", "--softdevice", "@in:sd_s132.hex",
                           "--bootloader", "@in:legacy_bl.hex"] + extra))
        p.append(("l_%s_bl_only" % tool, tool, L + ["--bootloader", "@in:legacy_bl.hex", "--dev-type", "1"]))
        p.append(("l_%s_sd_only" % tool, tool, L + ["--softdevice", "@in:sd_s132.hex", "--sd-req", "0x81"]))
        p.append(("l_%s_sd_bl_app" % tool, tool, L + ["--softdevice", "@in:sd_s132.hex", "--bootloader",
                                                      "@in:legacy_bl.hex", "--application", "@in:app_3.bin"]))
        p.append(("l_%s_app_1byte" % tool, tool, L + ["--application", "@in:app_1.bin", "--sd-req", "0"]))
    return p


REPACKS = [
    ("deflate9", dict(method=zipfile.ZIP_DEFLATED, level=9)),
    ("deflate1_reversed", dict(method=zipfile.ZIP_DEFLATED, level=1, order="reverse")),
    ("stored_comment", dict(method=zipfile.ZIP_STORED, comment=b"made by hand " * 20)),
    ("stream_descriptors", dict(method=zipfile.ZIP_DEFLATED, stream=True)),
    ("zip64", dict(method=zipfile.ZIP_STORED, zip64=True)),
    ("dirs_and_extras", dict(method=zipfile.ZIP_DEFLATED, dirs=["docs/"], extras=[("docs/README.txt", b"hi")])),
]


def repack(src, dst, how):
    with zipfile.ZipFile(src) as zs:
        items = [(zi.filename, zs.read(zi.filename)) for zi in zs.infolist()]
    if how.get("order") == "reverse":
        items.reverse()
    if how.get("stream"):
        # Written to an unseekable stream: every entry gets a data descriptor.
        class Sink:
            def __init__(self, f): self.f = f
            def write(self, b): return self.f.write(b)
            def flush(self): self.f.flush()
        with open(dst, "wb") as raw:
            with zipfile.ZipFile(Sink(raw), "w", compression=how["method"]) as zd:
                for name, blob in items:
                    with zd.open(name, "w") as w:
                        w.write(blob)
        return
    with zipfile.ZipFile(dst, "w", compression=how["method"]) as zd:
        for d in how.get("dirs", []):
            zd.writestr(d, b"")
        for name, blob in items + how.get("extras", []):
            zi = zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0))
            zi.compress_type = how["method"]
            if how.get("zip64"):
                with zd.open(zi, "w", force_zip64=True) as w:
                    w.write(blob)
            else:
                zd.writestr(zi, blob, compresslevel=how.get("level"))
        if how.get("comment"):
            zd.comment = how["comment"]


def infozip_variants(src, work, pid):
    """Re-zipped by Info-ZIP: -X, deflate -9, and streamed (data descriptors)."""
    out = []
    if not shutil.which("zip"):
        return out
    tmp = os.path.join(work, "unz_" + pid)
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    with zipfile.ZipFile(src) as zs:
        zs.extractall(tmp)
    names = sorted(os.listdir(tmp))
    for tag, args in (("infozip_X", ["-X", "-0"]), ("infozip_9", ["-9"])):
        dst = os.path.join(work, "%s__%s.zip" % (pid, tag))
        subprocess.run(["zip", "-q"] + args + [dst] + names, cwd=tmp, check=True)
        out.append((tag, dst))
    dst = os.path.join(work, "%s__infozip_stream.zip" % pid)
    with open(dst, "wb") as f:
        subprocess.run(["zip", "-q", "-fd", "-"] + names[::-1], cwd=tmp, check=True, stdout=f)
    out.append(("infozip_stream", dst))
    return out


# ------------------------------------------------------------------------------------------ truth
def hash_name(n):
    return {"NO_HASH": "none"}.get(n, n.lower())


def truth(zip_path, keys, bc):
    """What inspect must say, from Python's own readers; keys: id -> public PEM."""
    key_list = [{"id": k, "public_pem": v} for k, v in keys.items()]
    facts = bc.describe_package(zip_path, key_list)
    images = []
    for img in facts["images"]:
        ip = img["init_packet"]
        e = {"type": img["manifest_key"], "bin_file": img["bin_file"], "dat_file": img["dat_file"],
             "size": img["bin_size"], "crc32": img["bin_crc32"], "crc16": img["bin_crc16_ccitt"],
             "sha256": img["bin_sha256"], "sd_size": img.get("sd_size"), "bl_size": img.get("bl_size")}
        p = {"size": img["dat_size"], "sha256": img["dat_sha256"]}
        if facts["format"] == "secure":
            signed = ip["packet_variant"] == "signed_command"
            p.update({"signed": signed, "fw_version": ip["fw_version"], "hw_version": ip["hw_version"],
                      "sd_req": ip["sd_req"], "type": ip["type"].lower(), "sd_size": ip["sd_size"],
                      "bl_size": ip["bl_size"], "app_size": ip["app_size"],
                      "hash_type": hash_name(ip["hash_type"]), "hash": ip["hash_hex"], "is_debug": ip["is_debug"],
                      "boot_validation": [{"type": b["type"], "bytes": b["bytes_hex"],
                                           "@valid": b.get("signature_valid")} for b in ip["boot_validation"]],
                      "@valid": ip["signature_valid"] if signed else None})
            assert ip["checks"]["hash_matches_bin"] and ip["checks"]["size_matches_bin"], zip_path
        else:
            signed = ip["init_packet_ecds_hex"] is not None
            p.update({"signed": signed, "device_type": ip["device_type"], "device_revision": ip["device_revision"],
                      "application_version": ip["application_version"], "sd_req": ip["softdevice_req"],
                      "ext_packet_id": ip["ext_packet_id"], "crc16": ip["firmware_crc16"],
                      "firmware_length": ip["firmware_length"], "firmware_hash": ip["firmware_hash_hex"],
                      "@valid": ip.get("signature_valid") if signed else None})
        e["init_packet"] = p
        images.append(e)
    return {"format": facts["format"], "dfu_version": facts["dfu_version"], "images": images}, facts


def expected_for_key(t, key_id):
    """The truth with signature_valid filled in for one key (None: no --public-key)."""
    out = json.loads(json.dumps(t))
    for img in out["images"]:
        p = img["init_packet"]
        valid = p.pop("@valid")
        p["signature_valid"] = None if (key_id is None or valid is None) else valid[key_id]
        for b in p.get("boot_validation", []):
            v = b.pop("@valid")
            b["signature_valid"] = None if (key_id is None or v is None) else v[key_id]
    return out


def diff(expected, actual, path=""):
    """Every place where `actual` lacks or disagrees with `expected` (extra fields are fine)."""
    out = []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return ["%s: expected an object, got %r" % (path, actual)]
        for k, v in expected.items():
            if k not in actual:
                out.append("%s.%s: missing" % (path, k))
            else:
                out += diff(v, actual[k], "%s.%s" % (path, k))
    elif isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return ["%s: expected %r, got %r" % (path, expected, actual)]
        for i, (e, a) in enumerate(zip(expected, actual)):
            out += diff(e, a, "%s[%d]" % (path, i))
    elif isinstance(expected, bool) or expected is None:
        if actual is not expected:
            out.append("%s: expected %r, got %r" % (path, expected, actual))
    elif isinstance(expected, (int, float)):
        if isinstance(actual, bool) or not isinstance(actual, (int, float)) or actual != expected:
            out.append("%s: expected %r, got %r" % (path, expected, actual))
    elif expected != actual:
        out.append("%s: expected %r, got %r" % (path, expected, actual))
    return out


# ------------------------------------------------------------------------------------------ main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", help="dfu-update binary (default: build release)")
    ap.add_argument("--work", help="corpus folder (default: a fresh temporary one, removed after)")
    ap.add_argument("--only", help="only packages whose id contains this")
    ns = ap.parse_args()
    tools = ensure_tools()
    reexec_under_nrfutil(tools)
    sys.path.insert(0, FIXTURE_TOOLS)
    import build_corpus as bc

    binary = ns.binary
    if not binary:
        subprocess.run(["swift", "build", "-c", "release", "--product", "dfu-update"], cwd=REPO, check=True)
        binary = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=REPO, check=True,
                                stdout=subprocess.PIPE, text=True).stdout.strip() + "/dfu-update"
    work = os.path.abspath(ns.work or tempfile.mkdtemp(prefix="dfu_accept_"))
    os.makedirs(work, exist_ok=True)
    bc.TOOL_TMPDIR = os.path.join(work, "tmp")
    os.makedirs(bc.TOOL_TMPDIR, exist_ok=True)
    inputs = os.path.join(work, "inputs")
    os.makedirs(inputs, exist_ok=True)
    make_inputs(inputs)

    keys, key_files = {}, {}
    for kid in ("k1", "k2"):
        pem = os.path.join(work, kid + ".pem")
        if not os.path.exists(pem):
            bc.run_tool(tools["nrfutil6"], ["keys", "generate", pem], cwd=work, pinned=False)
        k = bc.ensure_key(tools, work, kid, {"path": kid + ".pem"})
        keys[kid] = k["public_pem"]
        key_files[kid] = [k["public_pem"], k["public_hex"]]

    packages = []
    for pid, tool_id, args in corpus():
        if ns.only and ns.only not in pid:
            continue
        tool = tools.get(tool_id)
        if tool is None:
            print("SKIP %s: %s not installed (nrfutil 0.5.3 needs Python 2.7)" % (pid, tool_id))
            continue
        argv = [os.path.join(work, a[5:] + ".pem") if a.startswith("@key:") else
                a[4:] if a.startswith("@in:") else a for a in args]
        dst = os.path.join(work, pid + ".zip")
        if not os.path.exists(dst):
            try:
                bc.run_tool(tool, argv + [dst], cwd=inputs, pinned=False)
            except RuntimeError as e:
                print("TOOL REFUSED %s: %s" % (pid, str(e).splitlines()[-1]))
                continue
        packages.append((pid, dst))
        if pid in ("s_sd_bl_app_0xAE_0xB6", "l_nrfutil053_app_0.8", "l_adafruit_app_0.6", "s_app_5_hex"):
            for tag, how in REPACKS:
                rp = os.path.join(work, "%s__%s.zip" % (pid, tag))
                repack(dst, rp, how)
                packages.append(("%s__%s" % (pid, tag), rp))
            for tag, rp in infozip_variants(dst, work, pid):
                packages.append(("%s__%s" % (pid, tag), rp))

    corpus_args = [(pid, args) for pid, _, args in corpus()]
    failures = 0
    checked = 0
    for pid, path in packages:
        t, facts = truth(path, keys, bc)
        problems = []
        if facts["format"] == "secure" and "__" not in pid:
            if not bc.nrfutil_display_agrees(tools["nrfutil6"], path, facts["images"]):
                problems.append("truth: nrfutil pkg display disagrees with the dfu_cc_pb2 decoding")
        runs = [(None, [])] + [(kid, ["--public-key", f]) for kid, fs in key_files.items() for f in fs]
        for kid, extra in runs:
            r = subprocess.run([binary, "inspect", path, "--json"] + extra, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=10)
            checked += 1
            if r.returncode != 0:
                problems.append("exit %d with key %s: %s" % (r.returncode, kid, r.stdout.decode()[:300]))
                continue
            got = json.loads(r.stdout)
            exp = expected_for_key(t, kid)
            if got.get("file") != path:
                problems.append("file: %r" % got.get("file"))
            problems += ["key %s: %s" % (kid, d) for d in diff(exp, got)]
        # The same .hex given bare to inspect must give the bytes nrfutil cut from it.
        hex_in = [a[4:] for a in dict(corpus_args).get(pid, []) if a.startswith("@in:") and a.endswith(".hex")]
        if len(hex_in) == 1 and len(t["images"]) == 1 and t["images"][0]["type"] == "application":
            r = subprocess.run([binary, "inspect", os.path.join(inputs, hex_in[0]), "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10)
            checked += 1
            bare = json.loads(r.stdout) if r.returncode == 0 else {"exit": r.returncode}
            want = {k: t["images"][0][k] for k in ("size", "crc32", "crc16", "sha256")}
            problems += ["bare %s: %s" % (hex_in[0], d) for d in diff({"images": [want]}, bare)]
        status = "ok  " if not problems else "FAIL"
        print("%s %-60s %s" % (status, pid, " ".join(i["type"] for i in t["images"])))
        for pr in problems[:12]:
            print("       " + pr)
        failures += bool(problems)
    print("\n%d packages, %d inspect runs, %d disagreeing packages; corpus in %s"
          % (len(packages), checked, failures, work))
    if not ns.work and not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
