"""fla's forward test grids through both Python entry points, on a GPU.

    python3 python/tests/test_fla_grids_gpu.py [--cases REGEX] [--full-autotune]
    python3 python/tests/test_fla_grids_gpu.py --prebuild

Every forward case of fla's tests/ops/test_kda.py (test_chunk,
test_chunk_varlen, test_chunk_varlen_prefill, test_chunk_state_v_first,
test_chunk_use_beta_sigmoid_in_kernel) and of its FlashKDA grid, at full
size, with fla's input distributions (../shared/docs/kda-algorithm.md
section 3; varlen gates set to -1000 with probability mask_p). Each case
runs three times on identical CUDA inputs: `kda.chunk_kda`, fla's
`chunk_kda` in inference mode with kda as its backend (`import kda.fla`; the
call must reach kda), and fla's own Triton path (FLA_KDA_COMPILER=0,
FLA_FLASH_KDA=0). All three are compared with a float64 per-token
recurrence (fla's naive_recurrent_kda, run on the GPU) by fla's metric, the
relative RMS error of o and of the final state. A kda result passes when
it is finite and its error is below fla's threshold (0.005) or at most
1.25 times fla's own error on the same inputs. fla's Triton autotuning
times each config briefly (shorten_triton_autotuning) unless
--full-autotune.

Needs fla importable (PYTHONPATH with fla's package), the runtime library
(KDA_RUNTIME_LIBRARY) and a bundle for every case: the embedded defaults
cover few of them, so on a machine without the compiler the others come
from $KDA_BUNDLE_PATH. `--prebuild` (on a machine with the compiler, no GPU
needed) compiles every case's bundle into the package's cache and prints
that directory: copy it and list it in KDA_BUNDLE_PATH
(scripts/gpu-python-check.sh does this with BUNDLE_DIR).
"""
import os
import re
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import kda  # noqa: E402

THRESHOLD = 0.005  # fla's forward threshold for o and the final state
failures = []

F16, BF16 = torch.float16, torch.bfloat16


def case(name, B, T, H, D, dtype, style, HV=None, scale=None, norm=1.0,
         mask_p=0.0, l2norm=False, gate=False, safe=False, vk=False,
         beta_sigmoid=False, neg=False, cu=None):
    return dict(name=name, B=B, T=T if cu is None else cu[-1], H=H,
                HV=HV or H, K=D, V=D, dtype=dtype, style=style, scale=scale,
                norm=norm, mask_p=mask_p, l2norm=l2norm, gate=gate, safe=safe,
                vk=vk, beta_sigmoid=beta_sigmoid, neg=neg, cu=cu)


def grid():
    """fla's forward grids (kda-algorithm.md section 3)."""
    cases = []
    # test_chunk: B, T, H, HV, D, scale, gate_norm, mask_p, l2norm, gate,
    # dtype, safe (fla's BT column chooses fla's chunk size only).
    for i, (B, T, H, HV, D, scale, norm, mask, l2, gate, dt, safe) in enumerate([
            (1, 63, 1, 1, 64, 1, 1, 0, 0, 0, F16, 1),
            (2, 500, 3, 3, 60, 1, 1, 0, 0, 0, F16, 1),
            (2, 1000, 3, 3, 64, .1, 1, .5, 0, 0, F16, 0),
            (3, 1024, 4, 4, 100, 1, .1, 0, 0, 0, F16, 0),
            (4, 1024, 4, 4, 128, .1, 1, 0, 0, 0, F16, 1),
            (4, 1024, 4, 4, 128, .1, 1, 0, 1, 0, F16, 1),
            (2, 1500, 4, 4, 128, .1, 10, 0, 0, 1, F16, 0),
            (4, 2048, 8, 8, 64, .1, 1, 0, 0, 1, F16, 1),
            (2, 1024, 2, 4, 64, .1, 1, 0, 0, 0, F16, 0),
            (2, 1024, 2, 8, 64, .1, 1, 0, 0, 1, F16, 0),
            (2, 1024, 4, 8, 128, .1, 1, 0, 1, 1, F16, 0),
            (2, 160, 2, 4, 64, .1, 1, 0, 0, 1, F16, 1),
            (2, 1024, 2, 4, 64, .1, 1, 0, 1, 1, BF16, 1),
            (2, 1024, 2, 4, 64, .1, 1, 0, 0, 1, BF16, 0),
            (2, 160, 2, 4, 64, .1, 1, 0, 0, 1, BF16, 1),
            (2, 1024, 2, 8, 128, .1, 1, 0, 1, 1, BF16, 0)], 1):
        cases.append(case('test_chunk_%d' % i, B, T, H, D, dt, 'chunk', HV=HV,
                          scale=scale, norm=norm, mask_p=mask, l2norm=bool(l2),
                          gate=bool(gate), safe=bool(safe)))
    # test_chunk_varlen (and _prefill, the first five again, the first with
    # 0,8192): H, D, mask_p, cu_seqlens, gate, safe; f16.
    varlen = [(4, 60, .1, [0, 15], 1, 0),
              (4, 64, .9, [0, 256, 500, 1000], 1, 0),
              (4, 128, .5, [0, 256, 500, 1000], 0, 0),
              (4, 100, 0, [0, 15, 100, 300, 1200, 2000], 1, 0),
              (4, 256, 0, [0, 100, 300, 1200, 3000, 4096], 0, 1),
              (4, 60, .1, [0, 31, 96, 160], 1, 0)]
    for i, (H, D, mask, cu, gate, safe) in enumerate(varlen, 1):
        cases.append(case('test_chunk_varlen_%d' % i, 1, None, H, D, F16,
                          'varlen', mask_p=mask, gate=bool(gate),
                          safe=bool(safe), cu=cu))
    for i, (H, D, mask, cu, gate, safe) in enumerate(varlen[:5], 1):
        cases.append(case('test_chunk_varlen_prefill_%d' % i, 1, None, H, D,
                          F16, 'varlen', mask_p=mask, gate=bool(gate),
                          safe=bool(safe), cu=[0, 8192] if i == 1 else cu))
    # test_chunk_state_v_first: B, T, H, D, scale, gate_norm; f16.
    for i, (B, T, H, D, scale, norm) in enumerate(
            [(1, 63, 1, 64, 1, 1), (2, 500, 3, 60, 1, 1),
             (3, 1024, 4, 128, .1, 1), (4, 2048, 8, 64, .1, 1)], 1):
        cases.append(case('test_chunk_state_v_first_%d' % i, B, T, H, D, F16,
                          'chunk', scale=scale, norm=norm, vk=True))
    # test_chunk_use_beta_sigmoid_in_kernel: B, T, H, D, allow_neg_eigval.
    for i, (B, T, H, D, neg, dt) in enumerate(
            [(1, 8192, 96, 128, 0, BF16), (1, 8192, 96, 128, 1, BF16),
             (2, 96, 2, 64, 1, F16)], 1):
        cases.append(case('test_chunk_beta_sigmoid_%d' % i, B, T, H, D, dt,
                          'chunk', beta_sigmoid=True, neg=bool(neg)))
    # The FlashKDA grid: bf16, the gate (lower bound -5), l2norm and beta
    # sigmoid in the kernel, safe_gate, states [V,K].
    for B, T, H in [(1, 1024, 4), (2, 2048, 8), (1, 4096, 16)]:
        cases.append(case('flash_kda_B%d_T%d_H%d' % (B, T, H), B, T, H, 128,
                          BF16, 'flashkda'))
    for H, cu in [(4, [0, 256, 500, 1000]), (8, [0, 100, 300, 1200, 2000]),
                  (16, [0, 101, 303, 1205, 3007, 4096])]:
        cases.append(case('flash_kda_varlen_H%d' % H, 1, None, H, 128, BF16,
                          'flashkda', cu=cu))
    return cases


def flags_of(c):
    """chunk_kda's keyword arguments of case `c` (tensors aside)."""
    flashkda = c['style'] == 'flashkda'
    gate = c['gate'] or flashkda
    return dict(scale=c['scale'],
                use_qk_l2norm_in_kernel=c['l2norm'] or flashkda,
                use_gate_in_kernel=gate,
                use_beta_sigmoid_in_kernel=c['beta_sigmoid'] or flashkda,
                allow_neg_eigval=c['neg'], safe_gate=c['safe'] or flashkda,
                lower_bound=-5.0 if gate and (c['safe'] or flashkda) else None,
                state_v_first=c['vk'] or flashkda)


def inputs(c, device, seed=42):
    """Case `c`'s inputs with fla's distributions: q, k, v, g, beta, h0 as
    chunk_kda takes them, A_log, dt_bias (None without the gate in the
    kernel) and cu_seqlens (None for fixed length)."""
    gen = torch.Generator(device=device).manual_seed(seed)
    B, T, H, HV, K, V, dt = (c[n] for n in ('B', 'T', 'H', 'HV', 'K', 'V', 'dtype'))
    randn = lambda *s, dtype=torch.float32: torch.randn(
        *s, generator=gen, device=device).to(dtype)
    rand = lambda *s, dtype=torch.float32: torch.rand(
        *s, generator=gen, device=device).to(dtype)
    N = B if c['cu'] is None else len(c['cu']) - 1
    flags = flags_of(c)
    A_log = dt_bias = None
    if c['style'] == 'chunk':
        q, k, v = rand(B, T, H, K, dtype=dt), rand(B, T, H, K, dtype=dt), rand(B, T, HV, V, dtype=dt)
        if not flags['use_qk_l2norm_in_kernel']:
            q, k = F.normalize(q, p=2, dim=-1), F.normalize(k, p=2, dim=-1)
        g = randn(B, T, HV, K)
        if not c['gate']:
            g = F.logsigmoid(g) / c['norm']
            g = g * (rand(*g.shape) > c['mask_p'])
            if c['safe']:
                g = g.clamp(min=-5.0)
        beta = randn(B, T, HV, dtype=dt)
        if not c['beta_sigmoid']:
            beta = beta.sigmoid()
    elif c['style'] == 'varlen':
        q = randn(B, T, H, K, dtype=dt)
        k = F.normalize(randn(B, T, H, K), p=2, dim=-1).to(dt)
        v = randn(B, T, HV, V, dtype=dt)
        g = randn(B, T, HV, K)
        if not c['gate']:
            g = F.logsigmoid(g)
            g = torch.where(rand(*g.shape) < c['mask_p'],
                            torch.full_like(g, -1000.0), g)
            if c['safe']:
                g = g.clamp(min=-5.0)
        beta = rand(B, T, HV, dtype=dt).sigmoid()
    else:  # FlashKDA's: raw bf16 inputs, every activation in the kernel
        q, k = randn(B, T, H, K, dtype=dt), randn(B, T, H, K, dtype=dt)
        v, g = randn(B, T, HV, V, dtype=dt), randn(B, T, HV, K, dtype=dt)
        beta = randn(B, T, HV, dtype=dt)
    if flags['use_gate_in_kernel']:
        A_log, dt_bias = randn(HV), randn(HV * K)
    h0 = randn(N, HV, V, K) if flags['state_v_first'] else randn(N, HV, K, V)
    cu = None if c['cu'] is None else torch.tensor(c['cu'], dtype=torch.int64,
                                                   device=device)
    return q, k, v, g, beta, h0, A_log, dt_bias, cu


def reference(c, q, k, v, g, beta, h0, A_log, dt_bias, cu):
    """o and the final state in float64 (the state in the call's layout):
    the activations the flags ask for, then the per-token recurrence on
    every sequence from its own initial state."""
    flags = flags_of(c)
    q, k, v, beta = (x.double() for x in (q, k, v, beta))
    if flags['use_qk_l2norm_in_kernel']:
        # The kernels round the normalized q and k to the input dtype.
        l2 = lambda x: (x / torch.sqrt((x * x).sum(-1, keepdim=True) + 1e-6))
        q, k = (l2(x).to(c['dtype']).double() for x in (q, k))
    g = g.double()
    if flags['use_gate_in_kernel']:
        a = g + dt_bias.double().view(c['HV'], c['K'])
        if flags['lower_bound'] is not None:
            g = flags['lower_bound'] * torch.sigmoid(
                torch.exp(A_log.double())[:, None] * a)
        else:
            g = -torch.exp(A_log.double())[:, None] * F.softplus(a)
    if flags['use_beta_sigmoid_in_kernel']:
        beta = torch.sigmoid(beta) * (2.0 if flags['allow_neg_eigval'] else 1.0)
    scale = c['scale'] if c['scale'] is not None else c['K'] ** -0.5
    group = c['HV'] // c['H']
    q, k = (x.repeat_interleave(group, dim=2) for x in (q, k))
    S0 = h0.double()
    if flags['state_v_first']:
        S0 = S0.transpose(-1, -2)
    bounds = ([(b, 0, c['T']) for b in range(c['B'])] if cu is None else
              [(0, c['cu'][n], c['cu'][n + 1]) for n in range(len(c['cu']) - 1)])
    o = torch.zeros(c['B'], c['T'], c['HV'], c['V'], dtype=torch.float64,
                    device=q.device)
    states = []
    for n, (b, start, end) in enumerate(bounds):
        S = S0[n].clone()  # [HV, K, V]
        for t in range(start, end):
            S = S * torch.exp(g[b, t])[:, :, None]
            kt = k[b, t]
            pred = torch.einsum('hkv,hk->hv', S, kt)
            S = S + beta[b, t][:, None, None] * kt[:, :, None] * (v[b, t] - pred)[:, None, :]
            o[b, t] = scale * torch.einsum('hkv,hk->hv', S, q[b, t])
        states.append(S)
    ht = torch.stack(states)
    if flags['state_v_first']:
        ht = ht.transpose(-1, -2)
    return o, ht


def rel_error(x, ref):
    x, ref = x.double(), ref.double()
    if (x - ref).abs().max().item() <= 1e-6:
        return 0.0
    return (torch.sqrt(torch.mean((x - ref) ** 2)) /
            (torch.sqrt(torch.mean(ref ** 2)) + 1e-8)).item()


def run_case(c, backend):
    """Case `c` through kda.chunk_kda and through fla's chunk_kda with and
    without kda (`backend`: test_fla_backend_gpu, whose run() counts the
    calls that reach kda)."""
    dev = torch.device('cuda')
    q, k, v, g, beta, h0, A_log, dt_bias, cu = inputs(c, dev)
    kwargs = dict(flags_of(c), initial_state=h0, output_final_state=True,
                  cu_seqlens=cu, A_log=A_log, dt_bias=dt_bias)
    results = {'kda': kda.chunk_kda(q, k, v, g, beta, **kwargs)}
    for label, use_kda in (('fla->kda', True), ('fla', False)):
        results[label], results[label + ' calls'] = backend.run(
            use_kda, q, k, v, g, beta, **kwargs)
    torch.cuda.synchronize()
    o_ref, ht_ref = reference(c, q, k, v, g, beta, h0, A_log, dt_bias, cu)
    errors = {}
    for label in ('kda', 'fla->kda', 'fla'):
        o, ht = results[label]
        finite = bool(torch.isfinite(o).all() and torch.isfinite(ht).all())
        errors[label] = (rel_error(o, o_ref), rel_error(ht, ht_ref), finite)
    fla_o, fla_ht, _ = errors['fla']
    ok = results['fla->kda calls'] == 1 and results['fla calls'] == 0
    for label in ('kda', 'fla->kda'):
        eo, eh, finite = errors[label]
        ok = ok and finite and (eo < THRESHOLD or eo <= 1.25 * fla_o) and \
            (eh < THRESHOLD or eh <= 1.25 * fla_ht)
    detail = '; '.join('%s o %.2e ht %.2e%s' % (label, e[0], e[1],
                                                '' if e[2] else ' NOT FINITE')
                       for label, e in errors.items())
    if results['fla->kda calls'] != 1:
        detail += '; fla did not dispatch to kda'
    print(('ok   ' if ok else 'FAIL ') + c['name'] + ': ' + detail, flush=True)
    if not ok:
        failures.append(c['name'])


def prebuild(cases):
    """Compiles (or finds) every case's bundle with this machine's
    kda-translate, from tiny CPU tensors of the case's dtypes and sizes."""
    from kda import _chunk
    for c in cases:
        flags = flags_of(c)
        B, H, HV, K, V, dt = (c[n] for n in ('B', 'H', 'HV', 'K', 'V', 'dtype'))
        z = lambda *s, dtype=dt: torch.zeros(*s, dtype=dtype)
        gate = flags['use_gate_in_kernel']
        g = z(B, 2, HV, K, dtype=dt if c['style'] == 'flashkda' else torch.float32)
        A_log, dt_bias = (z(HV, dtype=torch.float32), z(HV * K, dtype=torch.float32)) \
            if gate else (None, None)
        cu = None if c['cu'] is None else torch.tensor([0, 2])
        call = _chunk.call_flags(
            flags['use_qk_l2norm_in_kernel'], gate,
            flags['use_beta_sigmoid_in_kernel'], flags['allow_neg_eigval'],
            flags['safe_gate'], flags['lower_bound'], flags['state_v_first'],
            cu, A_log, dt_bias)
        _chunk.find_program(z(B, 2, H, K), z(B, 2, H, K),
                            z(B, 2, HV, V), g, z(B, 2, HV), flags['scale'],
                            dict(zip(_chunk._FLAG_NAMES, call)), A_log, dt_bias)
        print('bundle for %s' % c['name'], flush=True)
    print(kda.bundle_cache_dir())


def shorten_triton_autotuning():
    """fla's kernels autotune on their first call at each new shape, which
    costs most of this test's time. The test compares accuracy, not speed:
    Triton's autotuner still compiles and times every config, from 1 ms of
    warm-up and 5 ms of repetitions instead of 25 and 100."""
    import triton.testing
    original = triton.testing.do_bench

    def do_bench(fn, warmup=None, rep=None, **kwargs):
        return original(fn, warmup=1, rep=5, **kwargs)

    triton.testing.do_bench = do_bench


def main():
    cases = grid()
    if '--cases' in sys.argv:
        pattern = re.compile(sys.argv[sys.argv.index('--cases') + 1])
        cases = [c for c in cases if pattern.search(c['name'])]
    if '--prebuild' in sys.argv:
        prebuild(cases)
        return 0
    if '--full-autotune' not in sys.argv:
        shorten_triton_autotuning()
    # Registers kda as fla's backend and counts the calls that reach it.
    import test_fla_backend_gpu as backend
    os.environ['FLA_FLASH_KDA'] = '0'  # fla's own Triton path, not FlashKDA's
    for c in cases:
        try:
            run_case(c, backend)
        except Exception as e:  # a case that raises fails; the others run
            print('FAIL %s: %s: %s' % (c['name'], type(e).__name__,
                                       str(e).splitlines()[0][:300]), flush=True)
            failures.append(c['name'])
    print('%d of %d failed: %s' % (len(failures), len(cases), ', '.join(failures))
          if failures else 'PASS (%d cases)' % len(cases))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
