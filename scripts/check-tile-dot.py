"""GPU check of the tensor-core path: runs the tile-level tf32 matmul bundle
(examples/tile_dot_tf32.mlir) with kda-run on random inputs and compares
C = A * B with the float64 product of the tf32-rounded inputs (round to
nearest, ties away from zero, as the compiler rounds them).

  python3 scripts/check-tile-dot.py KDA_RUN BUNDLE OUT_DIR
"""
import os
import subprocess
import sys

import numpy as np

kda_run, bundle, out_dir = sys.argv[1:4]
rng = np.random.default_rng(0)
a = rng.standard_normal((64, 64)).astype(np.float32)
b = rng.standard_normal((64, 64)).astype(np.float32)
in_dir = os.path.join(out_dir, 'dot.in')
res_dir = os.path.join(out_dir, 'dot.out')
os.makedirs(in_dir, exist_ok=True)
os.makedirs(res_dir, exist_ok=True)
np.save(os.path.join(in_dir, 'arg0.npy'), a)
np.save(os.path.join(in_dir, 'arg1.npy'), b)
run = subprocess.run([kda_run, bundle, '--batch', '1', '--seq-len', '1', '--heads', '1',
                      '--value-heads', '1', '--no-check', '--inputs', in_dir,
                      '--outputs', res_dir], capture_output=True, text=True)
print(run.stdout + run.stderr, end='')


def tf32(x):
    bits = x.view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x1000) & 0xFFFFE000).astype(np.uint32)
    return bits.view(np.float32)


c = np.load(os.path.join(res_dir, 'arg2.npy')).astype(np.float64)
ref = tf32(a).astype(np.float64) @ tf32(b).astype(np.float64)
exact = a.astype(np.float64) @ b.astype(np.float64)
err = np.sqrt(np.mean((c - ref) ** 2)) / np.sqrt(np.mean(ref ** 2))
err_exact = np.sqrt(np.mean((c - exact) ** 2)) / np.sqrt(np.mean(exact ** 2))
ok = err < 1e-6
print(f'tile_dot_tf32: rms ratio vs tf32-rounded float64 product {err:.2e}, '
      f'vs exact fp32 inputs {err_exact:.2e} -> {"PASS" if ok else "FAIL"}')
sys.exit(0 if ok else 1)
