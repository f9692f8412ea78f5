"""Check of the register-tile path: runs the bundle of
examples/register_chain.mlir (BLOCK 16: one warp per 16 rows of 56) or of
test/Integration/GPU/Inputs/register-chain-64.mlir (BLOCK 64: four warps
per 64 rows of 200) with kda-run on random inputs and compares its outputs
(O, row sums, column sums) with a float64 computation of the program.

  python3 scripts/check-register-chain.py KDA_RUN BUNDLE OUT_DIR BLOCK [kda-run flags, e.g. --cpu]

The inputs are bf16 values (saved as float32 that bf16 holds exactly). The
reference rounds S to bf16 (round to nearest even) before the second
product, as the program does; the remaining differences are f32 sums in
another order. Prints the relative RMS errors and exits non-zero above
1e-3. Standard library only (it runs in the CPU tests too).
"""
import math
import os
import random
import struct
import subprocess
import sys

kda_run, bundle, out_dir, block = sys.argv[1:5]
extra = sys.argv[5:]
BLOCK = int(block)
T = {16: 56, 64: 200}[BLOCK]
D = 16


def bf16(x):
    """Rounds a float to bf16 (nearest even, through float32)."""
    bits = struct.unpack('<I', struct.pack('<f', x))[0]
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000) & 0xFFFFFFFF
    return struct.unpack('<f', struct.pack('<I', bits))[0]


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def save_npy(path, values, shape):
    """Writes float32 values as a little-endian .npy file (format 1.0)."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        ''.join('%d, ' % n for n in shape))
    header += ' ' * ((64 - (10 + len(header) + 1) % 64) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)))
        f.write(header.encode('latin1'))
        f.write(struct.pack('<%df' % len(values), *values))


def load_npy(path):
    """Reads a little-endian f4 .npy file as a flat list of floats."""
    with open(path, 'rb') as f:
        data = f.read()
    major = data[6]
    size_bytes = 2 if major == 1 else 4
    header_len = int.from_bytes(data[8:8 + size_bytes], 'little')
    header = data[8 + size_bytes:8 + size_bytes + header_len].decode('latin1')
    if "'<f4'" not in header:
        raise SystemExit('%s: expected float32 data, header %s' % (path, header))
    body = data[8 + size_bytes + header_len:]
    return list(struct.unpack('<%df' % (len(body) // 4), body))


rng = random.Random(0)
x = [[bf16(rng.gauss(0, 0.5)) for _ in range(D)] for _ in range(T)]
y = [[bf16(rng.gauss(0, 0.5)) for _ in range(D)] for _ in range(T)]
v = [[bf16(rng.gauss(0, 1.0)) for _ in range(D)] for _ in range(T)]
# A decaying gate, as KDA's cumulated log2 gates: steps in [-0.5, 0).
g, total = [], 0.0
for _ in range(T):
    total = f32(total - rng.uniform(0.0, 0.5))
    g.append(total)

in_dir = os.path.join(out_dir, 'chain.in')
res_dir = os.path.join(out_dir, 'chain.out')
os.makedirs(in_dir, exist_ok=True)
os.makedirs(res_dir, exist_ok=True)
for i, a in enumerate((x, y, v)):
    save_npy(os.path.join(in_dir, 'arg%d.npy' % i), sum(a, []), (T, D))
save_npy(os.path.join(in_dir, 'arg3.npy'), g, (T,))
run = subprocess.run([kda_run, bundle, '--batch', '1', '--seq-len', '1',
                      '--heads', '1', '--value-heads', '1', '--no-check',
                      '--inputs', in_dir, '--outputs', res_dir] + extra,
                     capture_output=True, text=True)
print(run.stdout + run.stderr, end='')
if run.returncode != 0:
    print('FAIL: kda-run exited with', run.returncode)
    sys.exit(1)

o_ref = [[0.0] * D for _ in range(T)]
r_ref = [0.0] * T
c_ref = [0.0] * T
for start in range(0, T, BLOCK):
    rows = range(start, min(start + BLOCK, T))
    for i in rows:
        s = [0.0] * BLOCK
        for jj, j in enumerate(rows):
            if j <= i:
                dot = sum(a * b for a, b in zip(x[i], y[j]))
                s[jj] = dot * 2.0 ** (g[i] - g[j])
        r_ref[i] = sum(s)
        for jj, j in enumerate(rows):
            c_ref[j] += s[jj]
        p = [bf16(f32(val)) for val in s]
        for c in range(D):
            o_ref[i][c] = sum(p[jj] * v[j][c] for jj, j in enumerate(rows))

o = load_npy(os.path.join(res_dir, 'arg4.npy'))
r = load_npy(os.path.join(res_dir, 'arg5.npy'))
c = load_npy(os.path.join(res_dir, 'arg6.npy'))


def rel(a, b):
    num = sum((p - q) ** 2 for p, q in zip(a, b))
    den = sum(q ** 2 for q in b)
    return math.sqrt(num / den) if len(a) == len(b) else float('inf')


errors = {'O': rel(o, sum(o_ref, [])), 'r': rel(r, r_ref), 'c': rel(c, c_ref)}
ok = all(math.isfinite(e) and e < 1e-3 for e in errors.values())
print('register chain: ' + ', '.join('%s rel. RMS error %.2e' % kv
                                     for kv in errors.items()))
print('PASS' if ok else 'FAIL')
sys.exit(0 if ok else 1)
