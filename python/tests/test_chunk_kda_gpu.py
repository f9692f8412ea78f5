"""GPU tests of kda.chunk_kda (run on a machine with an NVIDIA GPU and a
CUDA build of torch; scripts/gpu-python-check.sh builds the runtime there).

    python3 python/tests/test_chunk_kda_gpu.py

CUDA tensors against the float64 recurrence of test_chunk_kda_cpu.py (fixed
length and varlen), the same call on the CPU, a call captured in a CUDA graph and replayed, a call
on a side stream, calls compiled with torch.compile (the custom op) and
torch.library.opcheck on the op, and the host time per call above the
kernels.
"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_chunk_kda_cpu as cpu  # noqa: E402
import kda  # noqa: E402


def main():
    if not torch.cuda.is_available():
        print('FAIL: no CUDA device')
        return 1
    dev = torch.device('cuda')
    for B, T, H, HV, K in [(1, 1, 1, 1, 64), (2, 63, 2, 2, 64), (1, 130, 2, 4, 128),
                           (2, 1000, 2, 2, 128)]:
        q, k, v, g, beta, h0 = cpu.inputs(B, T, H, HV, K, 0)
        o, ht = kda.chunk_kda(*(x.to(dev) for x in (q, k, v, g, beta)),
                              initial_state=h0.to(dev), output_final_state=True)
        o_ref, ht_ref = cpu.recurrence(q.float(), k.float(), v.float(), g,
                                       beta.float(), K ** -0.5, h0)
        eo, eh = cpu.rel_error(o.cpu(), o_ref), cpu.rel_error(ht.cpu(), ht_ref)
        cpu.expect('cuda B=%d T=%d H=%d HV=%d K=%d' % (B, T, H, HV, K),
                   o.is_cuda and eo < cpu.TOLERANCE and eh < cpu.TOLERANCE,
                   'o %.2e, final state %.2e' % (eo, eh))
        o_cpu, _ = kda.chunk_kda(q, k, v, g, beta, initial_state=h0)
        d = cpu.rel_error(o.cpu(), o_cpu)
        cpu.expect('cuda and cpu agree B=%d T=%d' % (B, T), d < cpu.TOLERANCE,
                   'relative RMS difference %.2e' % d)

    # Varlen: packed sequences with empty and one-token ones, against the
    # per-sequence recurrence and the same call on the CPU.
    for offsets, H, HV, K in [([0, 0, 1, 1, 64, 65, 130], 1, 2, 64),
                              ([0, 15, 100, 300, 1200, 2000], 2, 2, 128)]:
        T, N = offsets[-1], len(offsets) - 1
        q, k, v, g, beta, _ = cpu.inputs(1, T, H, HV, K, 7)
        h0 = torch.randn(N, HV, K, K, generator=torch.Generator().manual_seed(7)) * 0.1
        cu = torch.tensor(offsets)
        o, ht = kda.chunk_kda(*(x.to(dev) for x in (q, k, v, g, beta)),
                              initial_state=h0.to(dev), output_final_state=True,
                              cu_seqlens=cu.to(dev), cu_seqlens_cpu=cu)
        o_ref, ht_ref = cpu.varlen_reference(q.float(), k.float(), v.float(), g,
                                             beta.float(), K ** -0.5, h0, offsets)
        eo, eh = cpu.rel_error(o.cpu(), o_ref), cpu.rel_error(ht.cpu(), ht_ref)
        cpu.expect('cuda varlen %s H=%d HV=%d K=%d' % (offsets, H, HV, K),
                   o.is_cuda and eo < cpu.TOLERANCE and eh < cpu.TOLERANCE,
                   'o %.2e, final state %.2e' % (eo, eh))
        o_cpu, _ = kda.chunk_kda(q, k, v, g, beta, initial_state=h0, cu_seqlens=cu)
        d = cpu.rel_error(o.cpu(), o_cpu)
        cpu.expect('cuda and cpu agree, varlen %s' % offsets, d < cpu.TOLERANCE,
                   'relative RMS difference %.2e' % d)

    # A CUDA graph: capture one call, replay, compare with an eager call.
    q, k, v, g, beta, h0 = (x.to(dev) for x in cpu.inputs(1, 256, 2, 2, 128, 5))
    eager, _ = kda.chunk_kda(q, k, v, g, beta, initial_state=h0)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        kda.chunk_kda(q, k, v, g, beta, initial_state=h0)  # warm-up off the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            captured, _ = kda.chunk_kda(q, k, v, g, beta, initial_state=h0)
        graph.replay()
        torch.cuda.synchronize()
        cpu.expect('cuda graph replay equals the eager call',
                   torch.equal(captured, eager))
    except Exception as e:  # capture must work: a failure is a test failure
        cpu.expect('cuda graph capture', False, '%s: %s' % (type(e).__name__, e))

    # torch.compile: the call is the custom op torch.ops.kda.chunk_kda_fwd
    # inside the compiled graph (fullgraph: no graph break around it), with
    # the same results as the eager call; and torch.library.opcheck on the
    # op (schema, fake kernel, dispatch with dynamic shapes).
    if kda._op.chunk_kda_fwd is None:
        print('torch.compile: NOT TESTED (torch %s has no '
              'torch.library.custom_op)' % torch.__version__)
    else:
        def forward(q, k, v, g, beta, h0):
            o, ht = kda.chunk_kda(q, k, v, g, beta, initial_state=h0,
                                  output_final_state=True)
            return o * 2, ht

        def forward_varlen(q, k, v, g, beta, h0, cu):
            return kda.chunk_kda(q, k, v, g, beta, initial_state=h0,
                                 output_final_state=True, cu_seqlens=cu)

        try:
            eo, eht = kda.chunk_kda(q, k, v, g, beta, initial_state=h0,
                                    output_final_state=True)
            co, cht = torch.compile(forward, fullgraph=True)(q, k, v, g, beta, h0)
            cpu.expect('torch.compile equals the eager call',
                       torch.equal(co, eo * 2) and torch.equal(cht, eht))
            offsets = torch.tensor([0, 0, 1, 64, 100, 256], device=dev)
            hv = torch.randn(5, 2, 128, 128, device=dev) * 0.1
            vo, vht = kda.chunk_kda(q, k, v, g, beta, initial_state=hv,
                                    output_final_state=True, cu_seqlens=offsets)
            wo, wht = torch.compile(forward_varlen, fullgraph=True)(
                q, k, v, g, beta, hv, offsets)
            cpu.expect('torch.compile equals the eager call, varlen',
                       torch.equal(wo, vo) and torch.equal(wht, vht))
            torch.library.opcheck(
                torch.ops.kda.chunk_kda_fwd.default,
                (q, k, v, g, beta, None, h0, False, False, False, False, False,
                 None, False, None, None, None, None))
            cpu.expect('torch.library.opcheck', True)
        except Exception as e:  # a failure here is a test failure
            cpu.expect('torch.compile / opcheck', False,
                       '%s: %s' % (type(e).__name__, e))

    # Host time per call above the kernels: small shapes, each call timed
    # alone after the GPU has drained its queue (a loop of calls would
    # measure the GPU once the launch queue fills), median of 500; then a
    # loop of calls, which the GPU's own time bounds. K = 128 runs the
    # two-kernel default, K = 64 the six-kernel staged one.
    for K in (128, 64):
        q, k, v, g, beta, h0 = (x.to(dev) for x in cpu.inputs(1, 64, 1, 1, K, 6))
        call = lambda: kda.chunk_kda(q, k, v, g, beta, initial_state=h0)
        for _ in range(20):
            call()
        times = []
        for _ in range(500):
            torch.cuda.synchronize()
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
        torch.cuda.synchronize()
        host = sorted(times)[len(times) // 2]
        n = 500
        start = time.perf_counter()
        for _ in range(n):
            call()
        torch.cuda.synchronize()
        total = (time.perf_counter() - start) / n
        print('host time per call, B=1 T=64 H=HV=1 K=V=%d: %.1f us (median of '
              'single calls on an idle GPU; %.1f us per call in a loop with the '
              'GPU work)' % (K, host * 1e6, total * 1e6))
    print('%d failed' % len(cpu.failures) if cpu.failures else 'PASS')
    return 1 if cpu.failures else 0


if __name__ == '__main__':
    sys.exit(main())
