"""Side-by-side benchmark of the seed kernel (kda.inter_solve: off-diagonal
sub-chunk blocks + triangular solve) on one GPU: our compiled bundles (run
with kda-run --bench) against fla's Triton kernel
chunk_kda_fwd_kernel_inter_solve_fused, on identical inputs in the same run.
fla's own earlier stages make the inputs (G, Aqk and Akkd); both kernels
then read the same tensors. Our kernel also writes the zeros above M's block
diagonal, which fla gets from a separate torch.zeros (not timed here).

  python3 bench/inter_solve_vs_fla.py KDA_RUN BUNDLE_DIR[,BUNDLE_DIR...] OUT_DIR

Each BUNDLE_DIR holds inter_solve.kdab and inter_solve_safe.kdab compiled
for H=HV=96, K=128, bf16 (scripts/make-bench-bundles.sh); several
directories (variants of our kernel, say two GPU mappings) are timed on the
same inputs as the same fla run. Prints one line per case and variant and
writes OUT_DIR/inter_solve_vs_fla.json (per case: fla's time and, per
variant directory, ours).
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

kda_run, bundle_dirs, out_dir = sys.argv[1], sys.argv[2].split(','), sys.argv[3]
from fla.ops.utils.cumsum import chunk_local_cumsum
from fla.ops.kda.chunk_intra import (chunk_kda_fwd_kernel_inter_solve_fused,
                                     chunk_kda_fwd_kernel_intra_sub_chunk)
from fla.ops.kda.chunk_intra_token_parallel import chunk_kda_fwd_intra_token_parallel

RCP_LN2 = 1.4426950216
B, T, H, HV, K, BT, BC = 1, 8192, 96, 96, 128, 64, 16
NT = T // BT
dev = 'cuda'
gen = torch.Generator(device=dev).manual_seed(0)
scale = K ** -0.5
results = {'gpu': torch.cuda.get_device_name(), 'B': B, 'T': T, 'H': H, 'HV': HV, 'K': K}


def make(safe):
    q = F.normalize(torch.randn(B, T, H, K, device=dev, generator=gen), dim=-1).bfloat16()
    k = F.normalize(torch.randn(B, T, H, K, device=dev, generator=gen), dim=-1).bfloat16()
    g = F.logsigmoid(torch.randn(B, T, HV, K, device=dev, generator=gen))
    if safe:
        g = g.clamp(-5, 0)
    beta = torch.randn(B, T, HV, device=dev, generator=gen).sigmoid()
    G = chunk_local_cumsum(g, chunk_size=BT, scale=RCP_LN2)
    Aqk = torch.empty(B, T, HV, BT, device=dev, dtype=torch.bfloat16)
    Akkd = torch.empty(B, T, HV, BC, device=dev, dtype=torch.float32)
    if safe:
        chunk_kda_fwd_kernel_intra_sub_chunk[(NT, BT // BC, B * HV)](
            q=q, k=k, g=G, beta=beta, Aqk=Aqk, Akk=Akkd, scale=scale, cu_seqlens=None,
            chunk_indices=None, T=T, H=H, HV=HV, K=K, BT=BT, BC=BC, BK=K, USE_GATHER=False)
    else:
        Aqk, Akkd = chunk_kda_fwd_intra_token_parallel(
            q=q, k=k, gk=G, beta=beta, Aqk=Aqk, Akk=Akkd, scale=scale, cu_seqlens=None,
            chunk_size=BT, sub_chunk_size=BC)
    return q, k, G, beta, Aqk, Akkd


def fla_kernel(q, k, G, beta, Aqk, Akkd, Akk, safe):
    chunk_kda_fwd_kernel_inter_solve_fused[(NT, B * HV)](
        q=q, k=k, g=G, beta=beta, Aqk=Aqk, Akkd=Akkd, Akk=Akk, scale=scale, cu_seqlens=None,
        chunk_indices=None, T=T, H=H, HV=HV, K=K, BT=BT, BC=BC, NC=BT // BC, USE_SAFE_GATE=safe)


def ours(bundle, tensors):
    tag = bundle.replace(os.sep, '_')
    in_dir = os.path.join(out_dir, tag + '.in')
    res_dir = os.path.join(out_dir, tag + '.out')
    os.makedirs(in_dir, exist_ok=True)
    os.makedirs(res_dir, exist_ok=True)
    for name, t in tensors.items():
        np.save(os.path.join(in_dir, name + '.npy'), t.float().cpu().numpy())
    cmd = [kda_run, bundle, '--batch', str(B), '--seq-len', str(T), '--heads', str(H),
           '--value-heads', str(HV), '--inputs', in_dir, '--outputs', res_dir, '--bench',
           '--check-heads', '8']
    out = subprocess.run(cmd, capture_output=True, text=True)
    print(out.stdout, out.stderr, end='')
    m = re.search(r'bench: median ([0-9.]+) ms', out.stdout)
    ok = out.returncode == 0
    M = torch.from_numpy(np.load(os.path.join(res_dir, 'M.npy'))).to(dev) if ok else None
    return (float(m.group(1)) if m else float('nan')), M, ok


def fla_compiled_info():
    """The autotuner's choice for fla's kernel and, per compiled variant, its
    warps, registers per thread and spills (best effort: these are Triton
    internals, whose names change between versions)."""
    info = {}
    tuner = chunk_kda_fwd_kernel_inter_solve_fused
    if getattr(tuner, 'best_config', None) is not None:
        info['best_config'] = str(tuner.best_config)
    try:
        fn = tuner  # autotuners and heuristics wrap the JIT function
        while not hasattr(fn, 'device_caches') and hasattr(fn, 'fn'):
            fn = fn.fn
        caches = getattr(fn, 'device_caches', {})
        for entry in caches.values():
            cache = entry[0] if isinstance(entry, tuple) else entry
            for kernel in cache.values():
                info.setdefault('compiled', []).append(dict(
                    num_warps=getattr(kernel.metadata, 'num_warps', None),
                    n_regs=getattr(kernel, 'n_regs', None),
                    n_spills=getattr(kernel, 'n_spills', None)))
    except Exception as e:  # Triton internals differ: report, do not fail
        info['error'] = repr(e)
    return info


for safe, name in ((False, 'inter_solve'), (True, 'inter_solve_safe')):
    q, k, G, beta, Aqk, Akkd = make(safe)
    Akk = torch.zeros(B, T, HV, BT, device=dev, dtype=torch.bfloat16)
    f = lambda: fla_kernel(q, k, G, beta, Aqk.clone(), Akkd, Akk, safe)
    fla_kernel(q, k, G, beta, Aqk.clone(), Akkd, Akk, safe)
    torch.cuda.synchronize()
    Aqk_in = Aqk.clone()
    t_fla = do_bench(lambda: fla_kernel(q, k, G, beta, Aqk_in, Akkd, Akk, safe),
                     warmup=100, rep=500, return_mode='median')
    results[name] = dict(fla_ms=t_fla, fla_kernel=fla_compiled_info(), ours={})
    print(f'{name}: fla kernel {results[name]["fla_kernel"]}')
    for bundle_dir in bundle_dirs:
        t_ours, M, ok = ours(os.path.join(bundle_dir, name + '.kdab'),
                             {'q': q, 'k': k, 'G': G, 'beta': beta, 'Aqk': Aqk, 'Akkd': Akkd})
        diff = (M.float() - Akk.float()).abs().max().item() if M is not None else float('nan')
        results[name]['ours'][bundle_dir] = dict(ms=t_ours, ratio=t_ours / t_fla,
                                                 check_passed=ok, max_abs_diff_M_vs_fla=diff)
        print(f'{name} [{bundle_dir}]: fla {t_fla:.4f} ms, ours {t_ours:.4f} ms, '
              f'ours/fla {t_ours / t_fla:.2f}, kda-run check {"PASS" if ok else "FAIL"}, '
              f'max |M_ours - M_fla| {diff:.2e}')

with open(os.path.join(out_dir, 'inter_solve_vs_fla.json'), 'w') as fh:
    json.dump(results, fh, indent=1)
