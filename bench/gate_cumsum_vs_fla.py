"""Side-by-side benchmark of the gate stage on one GPU: our compiled
kda.gate_cumsum bundles (run with kda-run --bench) against fla's Triton
kernels (chunk_local_cumsum, and kda_gate_chunk_cumsum for the fused
lower-bound gate), on identical inputs in the same run.

  python3 bench/gate_cumsum_vs_fla.py KDA_RUN BUNDLE_DIR OUT_DIR

BUNDLE_DIR holds gate_precomputed.kdab and gate_lower_bound.kdab compiled
for B=1, HV=96, K=128 (scripts/make-bench-bundles.sh). fla's package must be
importable from .anchors/ (see the benchmark README of the project's shared
folder). Prints one line per case and writes OUT_DIR/gate_cumsum_vs_fla.json.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.getcwd(), '.anchors'))
import numpy as np
import torch
import torch.nn.functional as F
from triton.testing import do_bench

kda_run, bundle_dir, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
from fla.ops.utils.cumsum import chunk_local_cumsum
from fla.ops.kda.gate import kda_gate_chunk_cumsum

RCP_LN2 = 1.4426950216
B, T, HV, K = 1, 8192, 96, 128
dev = 'cuda'
gen = torch.Generator(device=dev).manual_seed(0)
results = {'gpu': torch.cuda.get_device_name(), 'B': B, 'T': T, 'HV': HV, 'K': K}


def ours(bundle, inputs):
    """Runs kda-run --bench on `inputs` (name -> tensor); returns (ms, G)."""
    in_dir = os.path.join(out_dir, os.path.basename(bundle) + '.in')
    res_dir = os.path.join(out_dir, os.path.basename(bundle) + '.out')
    os.makedirs(in_dir, exist_ok=True)
    os.makedirs(res_dir, exist_ok=True)
    for name, t in inputs.items():
        np.save(os.path.join(in_dir, name + '.npy'), t.float().cpu().numpy())
    cmd = [kda_run, bundle, '--batch', str(B), '--seq-len', str(T), '--heads', str(HV),
           '--value-heads', str(HV), '--inputs', in_dir, '--outputs', res_dir, '--bench']
    out = subprocess.run(cmd, capture_output=True, text=True)
    print(out.stdout, out.stderr, end='')
    ms = float(re.search(r'bench: median ([0-9.]+) ms', out.stdout).group(1))
    G = torch.from_numpy(np.load(os.path.join(res_dir, 'G.npy'))).to(dev)
    return ms, G


def fla_ms(f):
    f()
    torch.cuda.synchronize()
    return do_bench(f, warmup=100, rep=500, return_mode='median')


# Precomputed log gate (fla's default path): fp32 g.
g = F.logsigmoid(torch.randn(B, T, HV, K, device=dev, generator=gen))
ref = chunk_local_cumsum(g, chunk_size=64, scale=RCP_LN2)
t_fla = fla_ms(lambda: chunk_local_cumsum(g, chunk_size=64, scale=RCP_LN2))
t_ours, G = ours(os.path.join(bundle_dir, 'gate_precomputed.kdab'), {'g': g})
diff = (G - ref).abs().max().item()
results['precomputed'] = dict(fla_ms=t_fla, ours_ms=t_ours, ratio=t_ours / t_fla, max_abs_diff=diff)
print(f'precomputed f32 gate: fla {t_fla:.4f} ms, ours {t_ours:.4f} ms, ours/fla {t_ours / t_fla:.2f}, max |ours - fla| {diff:.2e}')

# Fused lower-bound gate (FlashKDA's flags): bf16 raw g, A_log, dt_bias.
g = torch.randn(B, T, HV, K, device=dev, dtype=torch.bfloat16, generator=gen)
A_log = torch.randn(HV, device=dev, generator=gen)
dt_bias = torch.randn(HV * K, device=dev, generator=gen)
f = lambda: kda_gate_chunk_cumsum(g, A_log, 64, scale=RCP_LN2, dt_bias=dt_bias, lower_bound=-5.0)
ref = f()
t_fla = fla_ms(f)
t_ours, G = ours(os.path.join(bundle_dir, 'gate_lower_bound.kdab'),
                 {'g': g, 'a_log': A_log, 'dt_bias': dt_bias.view(HV, K)})
diff = (G - ref).abs().max().item()
results['lower_bound'] = dict(fla_ms=t_fla, ours_ms=t_ours, ratio=t_ours / t_fla, max_abs_diff=diff)
print(f'lower-bound bf16 gate: fla {t_fla:.4f} ms, ours {t_ours:.4f} ms, ours/fla {t_ours / t_fla:.2f}, max |ours - fla| {diff:.2e}')

with open(os.path.join(out_dir, 'gate_cumsum_vs_fla.json'), 'w') as fh:
    json.dump(results, fh, indent=1)
