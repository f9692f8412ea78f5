"""Side-by-side benchmark of the whole KDA forward on one GPU: our bundles
(kda.chunk_fwd, run with kda-run --bench) against fla's chunk_kda and, with
FlashKDA's flags, FlashKDA's flash_kda.fwd, on identical inputs in the same
run, at the shapes of the anchors table (K = V = 128, bf16, fp32 initial and
final state) and at B=1 T=8192 H=96 with K = V = 64 and 256 and with f32
I/O (the bundles named `_k64`, `_k256`, `_f32`).

  python3 bench/chunk_fwd_vs_fla.py KDA_RUN BUNDLE_DIR OUT_DIR

BUNDLE_DIR holds the fwd_*.kdab bundles of scripts/make-bench-bundles.sh;
BENCH_CASES=fwd_default_h96_hv96,... limits the run to the listed bundles.
BENCH_ALT_DIR=DIR also times DIR's bundle of the same name on the same
inputs in the same run (another build of the compiler, or other
kda-translate flags), as `alt_ms` beside `ours_ms`; several, as
BENCH_ALT_DIR=LABEL=DIR,LABEL=DIR, are reported as `LABEL_ms`
(scripts/make-bench-variants.sh builds such folders from kda-translate
flags and writes that value).
fla's package is read from .anchors/fla and FlashKDA from .anchors/flashkda
(see ../shared/bench/README.md); FlashKDA is skipped when it is not built.
kda-run also checks our o and final state against the float64 per-token
recurrence on 4 (sequence, head) pairs (each variant's result as
`LABEL_check_passed`). Prints one line per case and writes
OUT_DIR/chunk_fwd_vs_fla.json (OUT_DIR is created). BENCH_KERNELS=1 also
times each kernel of our bundles alone (kda-run --bench-kernels) and records
them as `ours_kernels_ms` (`LABEL_kernels_ms`): {kernel name: median ms}.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.getcwd(), '.anchors'))
sys.path.insert(0, os.path.join(os.getcwd(), '.anchors', 'flashkda'))
os.environ.setdefault('FLA_FLASH_KDA', '0')
import numpy as np
import torch
import torch.nn.functional as F
from triton.testing import do_bench

from fla.ops.kda import chunk_kda
try:
    import flash_kda
except ImportError:
    flash_kda = None

kda_run, bundle_dir, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(out_dir, exist_ok=True)
dev = 'cuda'


def head_dim_and_dtype(bundle):
    """K = V and the I/O dtype of a bench bundle, from its name."""
    m = re.search(r'_k([0-9]+)$', bundle)
    return (int(m.group(1)) if m else 128,
            torch.float32 if bundle.endswith('_f32') else torch.bfloat16)


CASES = [
    # (bundle, flags, B, T, H, HV, sequence lengths or None)
    ('fwd_default_h96_hv96', 'default', 1, 8192, 96, 96, None),
    ('fwd_flashkda_h96', 'flashkda', 1, 8192, 96, 96, None),
    ('fwd_default_h64_hv64', 'default', 1, 8192, 64, 64, None),
    ('fwd_flashkda_h64', 'flashkda', 1, 8192, 64, 64, None),
    ('fwd_flashkda_h96_varlen', 'flashkda', 1, 8192, 96, 96, [1300, 547, 2048, 963, 271, 3063]),
    ('fwd_flashkda_h96_varlen', 'flashkda', 1, 8192, 96, 96, [1024] * 8),
    ('fwd_default_h32_hv32', 'default', 1, 32768, 32, 32, None),
    ('fwd_flashkda_h32', 'flashkda', 1, 32768, 32, 32, None),
    ('fwd_default_h16_hv32', 'default', 8, 4096, 16, 32, None),
    ('fwd_default_h96_hv96_k64', 'default', 1, 8192, 96, 96, None),
    ('fwd_flashkda_h96_k64', 'flashkda', 1, 8192, 96, 96, None),
    ('fwd_default_h96_hv96_k256', 'default', 1, 8192, 96, 96, None),
    ('fwd_flashkda_h96_k256', 'flashkda', 1, 8192, 96, 96, None),
    ('fwd_default_h96_hv96_f32', 'default', 1, 8192, 96, 96, None),
]

# BENCH_CASES=name,name,... runs only the cases whose bundle is listed.
if os.environ.get('BENCH_CASES'):
    wanted = os.environ['BENCH_CASES'].split(',')
    CASES = [c for c in CASES if c[0] in wanted]


def inputs(flags, B, T, H, HV, N, D, io, seed=0):
    gen = torch.Generator(device=dev).manual_seed(seed)
    rand = lambda *s, dtype=io: torch.randn(*s, device=dev, dtype=torch.float32,
                                            generator=gen).to(dtype)
    t = dict(q=rand(B, T, H, D), k=rand(B, T, H, D), v=rand(B, T, HV, D))
    if flags == 'flashkda':
        t.update(g=rand(B, T, HV, D), beta=rand(B, T, HV),
                 a_log=rand(HV, dtype=torch.float32), dt_bias=rand(HV, D, dtype=torch.float32),
                 initial_state=rand(N, HV, D, D, dtype=torch.float32))
    else:
        t['q'] = F.normalize(t['q'].float(), dim=-1).to(io)
        t['k'] = F.normalize(t['k'].float(), dim=-1).to(io)
        t.update(g=F.logsigmoid(rand(B, T, HV, D, dtype=torch.float32)),
                 beta=rand(B, T, HV).float().sigmoid().to(io),
                 initial_state=rand(N, HV, D, D, dtype=torch.float32))
    return t


def fla_call(flags, t, cu, D):
    kw = dict(scale=D ** -0.5, initial_state=t['initial_state'], output_final_state=True)
    if cu is not None:
        kw['cu_seqlens'] = cu
    if flags == 'flashkda':
        kw.update(use_gate_in_kernel=True, use_qk_l2norm_in_kernel=True,
                  use_beta_sigmoid_in_kernel=True, safe_gate=True, lower_bound=-5.0,
                  A_log=t['a_log'], dt_bias=t['dt_bias'].reshape(-1), state_v_first=True)
    return lambda: chunk_kda(t['q'], t['k'], t['v'], t['g'], t['beta'], **kw)


def save_inputs(t):
    # Inputs and outputs go through .npy files (gigabytes at T=8192, H=96):
    # a scratch folder, removed after the case, not OUT_DIR.
    scratch = tempfile.mkdtemp(prefix='kda-bench-')
    os.makedirs(os.path.join(scratch, 'in'))
    for name, x in t.items():
        np.save(os.path.join(scratch, 'in', name + '.npy'), x.float().cpu().numpy())
    return scratch


def ours(bundle, scratch, B, T, H, HV, cu_text, want_o=True):
    in_dir, res_dir = os.path.join(scratch, 'in'), os.path.join(scratch, 'out')
    shutil.rmtree(res_dir, ignore_errors=True)
    os.makedirs(res_dir)
    bench = '--bench-kernels' if os.environ.get('BENCH_KERNELS') == '1' else '--bench'
    cmd = [kda_run, bundle, '--batch', str(B), '--seq-len', str(T), '--heads', str(H),
           '--value-heads', str(HV), '--inputs', in_dir, '--outputs', res_dir, bench,
           '--check-heads', '4']
    if cu_text:
        cmd += ['--cu-seqlens', cu_text]
    out = subprocess.run(cmd, capture_output=True, text=True)
    print(out.stdout, out.stderr, end='')
    m = re.search(r'bench: median ([0-9.]+) ms', out.stdout)
    kernels = {name: float(ms) for name, ms in
               re.findall(r'bench: kernel [0-9]+ (\S+): median ([0-9.]+) ms', out.stdout)}
    o = None
    if out.returncode == 0 and want_o:
        o = torch.from_numpy(np.load(os.path.join(res_dir, 'o.npy'))).to(dev)
    return (float(m.group(1)) if m else float('nan')), o, out.returncode == 0, kernels


def alt_dirs():
    """[(label, dir)] from BENCH_ALT_DIR: DIR, or LABEL=DIR,LABEL=DIR."""
    spec = os.environ.get('BENCH_ALT_DIR', '')
    if not spec:
        return []
    if '=' not in spec:
        return [('alt', spec)]
    return [tuple(item.split('=', 1)) for item in spec.split(',')]


rows = []
for bundle, flags, B, T, H, HV, seqs in CASES:
    N = len(seqs) if seqs else B
    D, io = head_dim_and_dtype(bundle)
    t = inputs(flags, B, T, H, HV, N, D, io)
    cu, cu_text = None, ''
    if seqs:
        offsets = [0] + np.cumsum(seqs).tolist()
        cu = torch.tensor(offsets, dtype=torch.long, device=dev)
        cu_text = ','.join(str(x) for x in offsets)
    row = dict(bundle=bundle, flags=flags, B=B, T=T, H=H, HV=HV, seqs=seqs)
    with torch.inference_mode():
        f = fla_call(flags, t, cu, D)
        o_fla, _ = f()
        torch.cuda.synchronize()
        row['fla_ms'] = do_bench(f, warmup=100, rep=500, return_mode='median')
        if flashkda_ok := (flags == 'flashkda' and flash_kda is not None and H == HV
                            and D == 128):  # FlashKDA's kernels: K = V = 128
            out = torch.empty_like(t['v'])
            h_t = torch.zeros_like(t['initial_state'])
            extra = {'cu_seqlens': cu} if cu is not None else {}
            fk = lambda: flash_kda.fwd(t['q'], t['k'], t['v'], t['g'], t['beta'], D ** -0.5, out,
                                       t['a_log'], t['dt_bias'], -5.0,
                                       initial_state=t['initial_state'], final_state=h_t, **extra)
            fk()
            torch.cuda.synchronize()
            row['flashkda_ms'] = do_bench(fk, warmup=100, rep=500, return_mode='median')
    scratch = save_inputs(t)
    ms, o, ok, kernels = ours(os.path.join(bundle_dir, bundle + '.kdab'), scratch, B, T, H, HV,
                              cu_text)
    row.update(ours_ms=ms, ours_over_fla=ms / row['fla_ms'], check_passed=ok)
    if kernels:
        row['ours_kernels_ms'] = kernels
    for label, alt_dir in alt_dirs():
        alt_ms, _, alt_ok, alt_kernels = ours(os.path.join(alt_dir, bundle + '.kdab'), scratch,
                                              B, T, H, HV, cu_text, want_o=False)
        row[label + '_ms'] = alt_ms
        if alt_kernels:
            row[label + '_kernels_ms'] = alt_kernels
        row[label + '_over_fla'] = alt_ms / row['fla_ms']
        row[label + '_check_passed'] = alt_ok
    shutil.rmtree(scratch, ignore_errors=True)
    if o is not None:
        row['rms_ratio_o_vs_fla'] = ((o.float() - o_fla.float()).pow(2).mean().sqrt() /
                                     o_fla.float().pow(2).mean().sqrt()).item()
    rows.append(row)
    print(json.dumps(row), flush=True)

with open(os.path.join(out_dir, 'chunk_fwd_vs_fla.json'), 'w') as fh:
    json.dump(rows, fh, indent=1)
print('SUMMARY')
for r in rows:
    fk = f", FlashKDA {r['flashkda_ms']:.3f} ms" if 'flashkda_ms' in r else ''
    for label, _ in alt_dirs():
        fk += (f", {label} {r[label + '_ms']:.3f} ms"
               f"{'' if r[label + '_check_passed'] else ' (check FAIL)'}")
    print(f"{r['bundle']} B={r['B']} T={r['T']} H={r['H']} HV={r['HV']} seqs={r['seqs']}: "
          f"ours {r['ours_ms']:.3f} ms, fla {r['fla_ms']:.3f} ms{fk}, ours/fla "
          f"{r['ours_over_fla']:.2f}, check {'PASS' if r['check_passed'] else 'FAIL'}")
