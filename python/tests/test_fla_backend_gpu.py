"""kda as a backend of fla's chunk_kda, on a GPU machine with fla importable
(PYTHONPATH) and the runtime library (KDA_RUNTIME_LIBRARY):

    python3 python/tests/test_fla_backend_gpu.py [--bench]

After `import kda.fla`, fla's own `chunk_kda` under torch.inference_mode()
must dispatch to kda where a bundle covers the call, and give what fla's
Triton path gives on identical inputs (both against the float64
recurrence); calls kda cannot take (autograd on; K=100 with no bundle and no compiler)
must stay with fla.
With --bench: fla's Triton path and the kda backend timed side by side
(CUDA events, triton.testing.do_bench medians) at B=1 T=8192 H=HV=96 K=128.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_chunk_kda_cpu as cpu  # noqa: E402

import kda  # noqa: E402
import kda.fla  # noqa: E402  (registers the backend)
from fla.ops.kda import chunk_kda as fla_chunk_kda  # noqa: E402

calls = {'kda': 0}
_original = kda.fla.KDACompilerBackend.chunk_kda


def _counting(self, *args, **kwargs):
    calls['kda'] += 1
    return _original(self, *args, **kwargs)


kda.fla.KDACompilerBackend.chunk_kda = _counting


def run(use_kda, *args, **kwargs):
    """fla's chunk_kda in inference mode, through kda or fla's Triton path."""
    os.environ['FLA_KDA_COMPILER'] = '1' if use_kda else '0'
    before = calls['kda']
    with torch.inference_mode():
        out = fla_chunk_kda(*args, **kwargs)
    return out, calls['kda'] - before


def check_case(B, T, H, HV, K, seed=0):
    dev = torch.device('cuda')
    q, k, v, g, beta, h0 = (x.to(dev) for x in cpu.inputs(B, T, H, HV, K, seed))
    (o_kda, ht_kda), n_kda = run(True, q, k, v, g, beta, initial_state=h0,
                                 output_final_state=True)
    (o_fla, ht_fla), n_fla = run(False, q, k, v, g, beta, initial_state=h0,
                                 output_final_state=True)
    o_ref, ht_ref = cpu.recurrence(q.float().cpu(), k.float().cpu(), v.float().cpu(),
                                   g.cpu(), beta.float().cpu(), K ** -0.5, h0.cpu())
    e = [cpu.rel_error(x.cpu(), r) for x, r in
         ((o_kda, o_ref), (ht_kda, ht_ref), (o_fla, o_ref), (ht_fla, ht_ref))]
    cpu.expect('fla.chunk_kda -> kda B=%d T=%d H=%d HV=%d K=%d' % (B, T, H, HV, K),
               n_kda == 1 and n_fla == 0 and e[0] < cpu.TOLERANCE and
               e[1] < cpu.TOLERANCE,
               'kda: o %.2e state %.2e; fla: o %.2e state %.2e' % tuple(e))


def check_varlen(offsets, H, HV, K, seed=8):
    """Packed sequences (cu_seqlens): fla's chunk_kda dispatches them to kda
    too, and both paths match the per-sequence recurrence."""
    dev = torch.device('cuda')
    T, N = offsets[-1], len(offsets) - 1
    q, k, v, g, beta, _ = (x.to(dev) for x in cpu.inputs(1, T, H, HV, K, seed))
    h0 = (torch.randn(N, HV, K, K, generator=torch.Generator().manual_seed(seed))
          * 0.1).to(dev)
    cu = torch.tensor(offsets, device=dev)
    (o_kda, ht_kda), n_kda = run(True, q, k, v, g, beta, initial_state=h0,
                                 output_final_state=True, cu_seqlens=cu)
    (o_fla, ht_fla), n_fla = run(False, q, k, v, g, beta, initial_state=h0,
                                 output_final_state=True, cu_seqlens=cu)
    o_ref, ht_ref = cpu.varlen_reference(q.float().cpu(), k.float().cpu(),
                                         v.float().cpu(), g.cpu(),
                                         beta.float().cpu(), K ** -0.5, h0.cpu(),
                                         offsets)
    e = [cpu.rel_error(x.cpu(), r) for x, r in
         ((o_kda, o_ref), (ht_kda, ht_ref), (o_fla, o_ref), (ht_fla, ht_ref))]
    cpu.expect('fla.chunk_kda varlen -> kda %s H=%d HV=%d K=%d' % (offsets, H, HV, K),
               n_kda == 1 and n_fla == 0 and e[0] < cpu.TOLERANCE and
               e[1] < cpu.TOLERANCE,
               'kda: o %.2e state %.2e; fla: o %.2e state %.2e' % tuple(e))


def check_fallbacks():
    dev = torch.device('cuda')
    q, k, v, g, beta, h0 = (x.to(dev) for x in cpu.inputs(1, 64, 1, 1, 128, 3))
    os.environ['FLA_KDA_COMPILER'] = '1'
    before = calls['kda']
    fla_chunk_kda(q, k, v, g, beta, initial_state=h0)  # autograd on
    cpu.expect('autograd on: stays with fla', calls['kda'] == before)
    q, k, v, g, beta, h0 = (x.to(dev) for x in cpu.inputs(1, 64, 1, 1, 128, 4))
    cut = lambda x: x[..., :100].contiguous()
    saved = {name: os.environ.pop(name, None)
             for name in ('KDA_TRANSLATE', 'KDA_BUNDLE_PATH')}
    os.environ['KDA_TRANSLATE'] = '0'  # no compiler, no prebuilt bundles
    try:
        _, n = run(True, cut(q), cut(k), cut(v), cut(g), beta)
    finally:
        for name, value in saved.items():
            os.environ.pop(name, None)
            if value is not None:
                os.environ[name] = value
    cpu.expect('K=100 without a bundle or a compiler: stays with fla', n == 0)


def bench():
    from triton.testing import do_bench
    dev = torch.device('cuda')
    B, T, H, K = 1, 8192, 96, 128
    gen = torch.Generator(device=dev).manual_seed(0)
    rand = lambda *s: torch.randn(*s, device=dev, generator=gen)
    q = F.normalize(rand(B, T, H, K), dim=-1).bfloat16()
    k = F.normalize(rand(B, T, H, K), dim=-1).bfloat16()
    v = rand(B, T, H, K).bfloat16()
    g = F.logsigmoid(rand(B, T, H, K))
    beta = torch.sigmoid(rand(B, T, H)).bfloat16()
    h0 = rand(B, H, K, K) * 0.1
    times = {}
    for name, use in (('fla (Triton)', False), ('kda backend', True)):
        os.environ['FLA_KDA_COMPILER'] = '1' if use else '0'
        with torch.inference_mode():
            fn = lambda: fla_chunk_kda(q, k, v, g, beta, initial_state=h0,
                                       output_final_state=True)
            fn()
            times[name] = do_bench(fn, warmup=100, rep=500)
    os.environ['FLA_KDA_COMPILER'] = '1'
    print('bench B=%d T=%d H=HV=%d K=V=%d bf16, fla default flags: %s' % (
        B, T, H, K, ', '.join('%s %.3f ms' % kv for kv in times.items())))


def main():
    for case in [(1, 63, 2, 2, 128), (2, 130, 1, 2, 64), (1, 1000, 4, 4, 128)]:
        check_case(*case)
    check_varlen([0, 1, 64, 65, 200, 1000], 2, 2, 128)
    check_fallbacks()
    if '--bench' in sys.argv:
        bench()
    print('%d failed' % len(cpu.failures) if cpu.failures else 'PASS')
    return 1 if cpu.failures else 0


if __name__ == '__main__':
    sys.exit(main())
