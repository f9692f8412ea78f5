#!/usr/bin/env python3
"""Writes the seed corpus of kda-bundle-fuzz (runtime/fuzz/corpus/).

    scripts/make-bundle-fuzz-corpus.py BUILD_DIR [OUT_DIR]

Valid bundles come from kda-translate (BUILD_DIR/bin/kda-translate,
--kda-to-bundle --no-cubin --no-cpu) on examples and lit inputs whose
manifests between them use every statement and parameter kind; their PTX is
cut down to the `.entry` declarations (the parser only matches the manifest's
kernels against them) and their checksums written anew, so that each seed is
a few KB. Two more are written by hand like the runtime's host tests (every
parameter kind, workspaces and cu_seqlens; and a bundle with a stand-in cpu
section, which the fuzz target never loads). Then damaged copies: truncated,
a flipped checksum, a duplicate section, a huge section size, a manifest
edited without its checksum, one edited with its checksum recomputed (its
shapes then contradict those the PTX records), and an unknown ABI.
"""

import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, source, extra kda-translate flags)
SOURCES = [
    ("gate_cumsum", "examples/gate_cumsum.mlir"),
    ("gate_cumsum_varlen", "examples/gate_cumsum_varlen.mlir"),
    ("inter_solve", "examples/inter_solve.mlir"),
    ("chunk_fwd", "examples/chunk_kda_fwd.mlir"),
    ("fwd_dynamic_heads", "runtime/defaults/fwd_k64_bf16_default.mlir"),
]

FULL_MANIFEST = """abi 1
chip sm_90
entry test_full
key program=test K=8 chunk=64
arg 0 q input bf16 B,T,H,8
arg 1 g input bf16 B,T,HV,8
arg 2 cu_seqlens input i64 N1
arg 3 o output f32 B,T,HV,8
workspace scratch mul(dim(0,1),16)
workspace small 100
kernel test_full_k
block 128 1 1
shared 65536
grid ceildiv(dim(0,1),64) dim(1,2) 1
param arg 0
param arg 1
param arg 2
param arg 3
param workspace scratch f32 dim(0,1),4
param workspace small i32 25
param index sub(dim(2,0),1)
end-kernel
"""

SCALE_MANIFEST = """abi 1
chip sm_90a
entry test_scale
key program=scale
arg 0 x input f32 B,T,4
arg 1 y output f32 B,T,4
kernel test_scale_k
block 128 1 1
shared 0
grid ceildiv(mul(dim(0,0),dim(0,1)),32) 1 1
param arg 0
param arg 1
end-kernel
"""


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def split(data):
    """[(name, payload)] of a well-formed bundle."""
    eol = data.index(b"\n")
    header, pos, sections = data[: eol + 1], eol + 1, []
    while True:
        eol = data.index(b"\n", pos)
        line = data[pos:eol].decode()
        if line == "end":
            return header, sections
        _, name, size = line.split(" ")
        pos = eol + 1
        sections.append((name, data[pos : pos + int(size)]))
        pos += int(size) + 1


def join(header, sections, checksums=True):
    if checksums:
        sections = [(n, p) for n, p in sections if n != "checksums"]
        sums = "".join("%s %016x\n" % (n, fnv1a64(p)) for n, p in sections)
        sections.append(("checksums", sums.encode()))
    out = header
    for name, payload in sections:
        out += b"section %s %d\n" % (name.encode(), len(payload)) + payload + b"\n"
    return out + b"end\n"


def ptx_stub(manifest, original=b"", counts=None):
    """PTX declaring each kernel of the manifest with as many .u64
    parameters as the original PTX's entry of that name (or `counts`), and
    the `// kda.arg` lines (the shapes the code was compiled for) of the
    original."""
    text = original.decode()
    counts = dict(counts or {})
    for m in re.finditer(r"\.entry\s+(\w+)\s*\(([^)]*)\)", text):
        counts[m.group(1)] = m.group(2).count(".param")
    out = [".version 8.0", ".target sm_90", ".address_size 64", ""]
    out += [l for l in text.splitlines() if l.startswith("// kda.arg ")]
    for line in manifest.splitlines():
        if line.startswith("kernel "):
            kernel = line.split(" ")[1]
            params = ",\n".join("\t.param .u64 p%d" % i for i in range(counts[kernel]))
            out.append(".visible .entry %s(\n%s\n)\n{\n\tret;\n}\n" % (kernel, params))
    return ("\n".join(out) + "\n").encode()


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    build = sys.argv[1]
    out_dir = sys.argv[2] if len(sys.argv) == 3 else os.path.join(ROOT, "runtime/fuzz/corpus")
    os.makedirs(out_dir, exist_ok=True)
    translate = os.path.join(build, "bin", "kda-translate")
    valid = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in SOURCES:
            path = os.path.join(tmp, name + ".kdab")
            subprocess.run([translate, os.path.join(ROOT, source), "--kda-to-bundle",
                            "--no-cubin", "--no-cpu", "-o", path], check=True)
            header, sections = split(open(path, "rb").read())
            manifest = dict(sections)["manifest"]
            sections = [(n, ptx_stub(manifest.decode(), p) if n == "ptx" else p)
                        for n, p in sections]
            valid[name] = join(header, sections)
    header = b"KDA-BUNDLE 1\n"
    valid["hand_full"] = join(header, [("manifest", FULL_MANIFEST.encode()),
                                       ("ptx", ptx_stub(FULL_MANIFEST, counts={"test_full_k": 51})),
                                       ("extra", b"an unknown section")],
                              checksums=False)
    valid["hand_scale_cpu"] = join(header, [("manifest", SCALE_MANIFEST.encode()),
                                            ("ptx", ptx_stub(SCALE_MANIFEST, counts={"test_scale_k": 18})),
                                            ("cpu", b"\x7fELF not really")])
    damaged = {}
    g = valid["gate_cumsum"]
    damaged["truncated"] = g[: len(g) // 2]
    i = g.index(b"section checksums")
    sums = g[i:]
    j = g.index(b" ", i + sums.index(b"\n") + 1) + 1  # the first hex digit
    damaged["bad_checksum"] = g[:j] + (b"0" if g[j:j + 1] != b"0" else b"1") + g[j + 1:]
    h, s = split(g)
    damaged["duplicate_section"] = join(h, s + [s[0]], checksums=False)
    damaged["huge_size"] = re.sub(rb"section ptx \d+", b"section ptx 18446744073709551615", g)
    m = dict(s)["manifest"].replace(b"4,64", b"4,32")
    damaged["edited_manifest"] = join(h, [(n, m if n == "manifest" else p) for n, p in s
                                          if n != "checksums"] + [("checksums", dict(s)["checksums"])],
                                      checksums=False)
    # The same edit with the checksums recomputed: refused because the code
    # was compiled for other shapes.
    damaged["shape_edit"] = join(h, [(n, m if n == "manifest" else p) for n, p in s])
    damaged["abi_2"] = g.replace(b"KDA-BUNDLE 1\n", b"KDA-BUNDLE 2\n", 1)
    for name, data in list(valid.items()) + [("damaged_" + k, v) for k, v in damaged.items()]:
        with open(os.path.join(out_dir, name + ".kdab"), "wb") as f:
            f.write(data)
        print("%s: %d bytes" % (name, len(data)))


if __name__ == "__main__":
    main()
