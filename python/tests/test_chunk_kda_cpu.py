"""CPU tests of kda.chunk_kda against a float64 per-token recurrence.

    python3 python/tests/test_chunk_kda_cpu.py      (exit status 0: all passed)

Runs the embedded default bundles' CPU builds through the package: tails
(T = 1, 63, 64, 65, 130), grouped value heads, initial and final states, the
fused flag set (gate, l2norm and beta sigmoid in the kernel, safe_gate,
states [V,K]), varlen (cu_seqlens with empty and one-token sequences, int64
and int32 offsets, both flag sets), bundles compiled on demand by
kda-translate into a fresh cache directory (K != V, f32 and f16, varlen,
states [V,K], in-kernel gate, l2norm and beta sigmoid; reused by calls of
other shapes and by another process; served from KDA_BUNDLE_PATH to a
process without the compiler), and
the errors bad calls raise. Needs torch (Debian's
python3-torch) and libkda_runtime.so (found as kda/_capi.py says).
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import kda  # noqa: E402
from reference import recurrence, rel_error  # noqa: E402 (python/tests/)

TOLERANCE = 0.01  # relative RMS error (fla's metric), bf16 inputs and output
failures = []


def expect(name, ok, detail=''):
    print(('ok   ' if ok else 'FAIL ') + name + (': ' + detail if detail else ''))
    if not ok:
        failures.append(name)


def inputs(B, T, H, HV, K, seed):
    gen = torch.Generator().manual_seed(seed)
    rand = lambda *s: torch.randn(*s, generator=gen)
    q = F.normalize(rand(B, T, H, K), dim=-1).bfloat16()
    k = F.normalize(rand(B, T, H, K), dim=-1).bfloat16()
    v = rand(B, T, HV, K).bfloat16()
    g = F.logsigmoid(rand(B, T, HV, K)) / 16
    beta = torch.sigmoid(rand(B, T, HV)).bfloat16()
    h0 = rand(B, HV, K, K) * 0.1
    return q, k, v, g, beta, h0


def check_default(B, T, H, HV, K, seed=0, zero_state=False):
    q, k, v, g, beta, h0 = inputs(B, T, H, HV, K, seed)
    if zero_state:
        h0 = None
    o, ht = kda.chunk_kda(q, k, v, g, beta, initial_state=h0,
                          output_final_state=True)
    o_ref, ht_ref = recurrence(q.float(), k.float(), v.float(), g, beta.float(),
                               K ** -0.5, h0)
    eo, eh = rel_error(o, o_ref), rel_error(ht, ht_ref)
    expect('default B=%d T=%d H=%d HV=%d K=%d%s' %
           (B, T, H, HV, K, ', no initial state' if zero_state else ''),
           o.dtype == torch.bfloat16 and o.shape == (B, T, HV, K) and
           eo < TOLERANCE and eh < TOLERANCE,
           'o %.2e, final state %.2e' % (eo, eh))
    # Without output_final_state the state is written into the workspace's
    # allocation: the same o, and None for the state.
    o2, none = kda.chunk_kda(q, k, v, g, beta, initial_state=h0)
    expect('default B=%d T=%d, no final state asked for: the same o' % (B, T),
           none is None and torch.equal(o, o2))


def check_fused(B, T, H, HV, K, seed=1):
    """FlashKDA's flag set: the gate from raw g with A_log, dt_bias and the
    lower bound -5, q/k l2norm and beta sigmoid in the kernel, states [V,K]."""
    gen = torch.Generator().manual_seed(seed)
    rand = lambda *s: torch.randn(*s, generator=gen)
    q = rand(B, T, H, K).bfloat16()
    k = rand(B, T, H, K).bfloat16()
    v = rand(B, T, HV, K).bfloat16()
    g = rand(B, T, HV, K).bfloat16()
    beta = rand(B, T, HV).bfloat16()
    A_log = rand(HV)
    dt_bias = rand(HV, K)
    h0 = rand(B, HV, K, K) * 0.1  # [V, K] per head
    o, ht = kda.chunk_kda(q, k, v, g, beta, initial_state=h0,
                          output_final_state=True, use_qk_l2norm_in_kernel=True,
                          use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True,
                          safe_gate=True, lower_bound=-5.0, state_v_first=True,
                          A_log=A_log, dt_bias=dt_bias)
    l2 = lambda x: x.float() / torch.sqrt((x.float() ** 2).sum(-1, keepdim=True) + 1e-6)
    qn, kn = l2(q).bfloat16().float(), l2(k).bfloat16().float()
    gate = -5.0 * torch.sigmoid(torch.exp(A_log)[:, None] * (g.float() + dt_bias))
    o_ref, ht_ref = recurrence(qn, kn, v.float(), gate, torch.sigmoid(beta.float()),
                               K ** -0.5, h0.transpose(-1, -2))
    eo, eh = rel_error(o, o_ref), rel_error(ht, ht_ref.transpose(-1, -2))
    expect('fused B=%d T=%d H=%d HV=%d K=%d' % (B, T, H, HV, K),
           eo < TOLERANCE and eh < TOLERANCE, 'o %.2e, final state %.2e' % (eo, eh))
    # fla passes dt_bias as [HV*K], FlashKDA as [HV, K]: the same call.
    o_flat, ht_flat = kda.chunk_kda(
        q, k, v, g, beta, initial_state=h0, output_final_state=True,
        use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
        use_beta_sigmoid_in_kernel=True, safe_gate=True, lower_bound=-5.0,
        state_v_first=True, A_log=A_log, dt_bias=dt_bias.flatten())
    expect('fused dt_bias [HV*K] equals [HV, K]',
           torch.equal(o, o_flat) and torch.equal(ht, ht_flat))
    check_raises('dt_bias of the wrong size', ValueError,
                 lambda: kda.chunk_kda(
                     q, k, v, g, beta, use_qk_l2norm_in_kernel=True,
                     use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True,
                     safe_gate=True, lower_bound=-5.0, state_v_first=True,
                     A_log=A_log, dt_bias=dt_bias.flatten()[1:]),
                 'dt_bias must be [HV*K] or [HV, K]')


def varlen_reference(q, k, v, g, beta, scale, h0, offsets):
    """The recurrence run on each packed sequence alone, from its own initial
    state: o [1, T, HV, V] and the final states [N, HV, K, V]."""
    outs, states = [], []
    for n in range(len(offsets) - 1):
        s, e = offsets[n], offsets[n + 1]
        o, S = recurrence(q[:, s:e], k[:, s:e], v[:, s:e], g[:, s:e],
                          beta[:, s:e], scale, h0[n:n + 1])
        outs.append(o)
        states.append(S)
    return torch.cat(outs, dim=1), torch.cat(states, dim=0)


def check_varlen(offsets, H, HV, K, int32=False, seed=4):
    """Sequences packed along T of one batch entry (cu_seqlens), with empty
    and one-token ones among them, fla's default flags."""
    T, N = offsets[-1], len(offsets) - 1
    q, k, v, g, beta, _ = inputs(1, T, H, HV, K, seed)
    h0 = torch.randn(N, HV, K, K, generator=torch.Generator().manual_seed(seed)) * 0.1
    cu = torch.tensor(offsets, dtype=torch.int32 if int32 else torch.int64)
    o, ht = kda.chunk_kda(q, k, v, g, beta, initial_state=h0,
                          output_final_state=True, cu_seqlens=cu)
    o_ref, ht_ref = varlen_reference(q.float(), k.float(), v.float(), g,
                                     beta.float(), K ** -0.5, h0, offsets)
    eo, eh = rel_error(o, o_ref), rel_error(ht, ht_ref)
    expect('varlen %s H=%d HV=%d K=%d%s' % (offsets, H, HV, K,
                                            ', int32 offsets' if int32 else ''),
           o.shape == (1, T, HV, K) and ht.shape == (N, HV, K, K) and
           eo < TOLERANCE and eh < TOLERANCE,
           'o %.2e, final state %.2e' % (eo, eh))


def check_fused_varlen(offsets, H, HV, K, seed=5):
    """FlashKDA's flag set on packed sequences."""
    T, N = offsets[-1], len(offsets) - 1
    gen = torch.Generator().manual_seed(seed)
    rand = lambda *s: torch.randn(*s, generator=gen)
    q, k = rand(1, T, H, K).bfloat16(), rand(1, T, H, K).bfloat16()
    v, g = rand(1, T, HV, K).bfloat16(), rand(1, T, HV, K).bfloat16()
    beta = rand(1, T, HV).bfloat16()
    A_log, dt_bias = rand(HV), rand(HV, K)
    h0 = rand(N, HV, K, K) * 0.1  # [V, K] per head
    o, ht = kda.chunk_kda(q, k, v, g, beta, initial_state=h0,
                          output_final_state=True, use_qk_l2norm_in_kernel=True,
                          use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True,
                          safe_gate=True, lower_bound=-5.0, state_v_first=True,
                          cu_seqlens=torch.tensor(offsets), A_log=A_log,
                          dt_bias=dt_bias)
    l2 = lambda x: x.float() / torch.sqrt((x.float() ** 2).sum(-1, keepdim=True) + 1e-6)
    qn, kn = l2(q).bfloat16().float(), l2(k).bfloat16().float()
    gate = -5.0 * torch.sigmoid(torch.exp(A_log)[:, None] * (g.float() + dt_bias))
    o_ref, ht_ref = varlen_reference(qn, kn, v.float(), gate,
                                     torch.sigmoid(beta.float()), K ** -0.5,
                                     h0.transpose(-1, -2), offsets)
    eo, eh = rel_error(o, o_ref), rel_error(ht, ht_ref.transpose(-1, -2))
    expect('fused varlen %s H=%d HV=%d K=%d' % (offsets, H, HV, K),
           eo < TOLERANCE and eh < TOLERANCE, 'o %.2e, final state %.2e' % (eo, eh))


def check_compiled(B, T, H, HV, K, V, dtype, state_v_first=False,
                   offsets=None, seed=6):
    """A call no embedded bundle covers, compiled on demand by kda-translate
    into the cache (fla's default flags at other K, V or dtypes)."""
    gen = torch.Generator().manual_seed(seed)
    rand = lambda *s: torch.randn(*s, generator=gen)
    N = B if offsets is None else len(offsets) - 1
    q = F.normalize(rand(B, T, H, K), dim=-1).to(dtype)
    k = F.normalize(rand(B, T, H, K), dim=-1).to(dtype)
    v = rand(B, T, HV, V).to(dtype)
    g = F.logsigmoid(rand(B, T, HV, K)) / 16
    beta = torch.sigmoid(rand(B, T, HV)).to(dtype)
    h0 = rand(N, HV, K, V) * 0.1
    cu = None if offsets is None else torch.tensor(offsets)
    o, ht = kda.chunk_kda(q, k, v, g, beta, scale=0.1,
                          initial_state=h0.transpose(-1, -2).contiguous()
                          if state_v_first else h0,
                          output_final_state=True, state_v_first=state_v_first,
                          cu_seqlens=cu)
    if offsets is None:
        o_ref, ht_ref = recurrence(q.float(), k.float(), v.float(), g,
                                   beta.float(), 0.1, h0)
    else:
        o_ref, ht_ref = varlen_reference(q.float(), k.float(), v.float(), g,
                                         beta.float(), 0.1, h0, offsets)
    if state_v_first:
        ht = ht.transpose(-1, -2)
    eo, eh = rel_error(o, o_ref), rel_error(ht, ht_ref)
    expect('compiled on demand B=%d T=%d H=%d HV=%d K=%d V=%d %s%s%s' %
           (B, T, H, HV, K, V, str(dtype).replace('torch.', ''),
            ', states [V,K]' if state_v_first else '',
            ', varlen %s' % offsets if offsets else ''),
           o.dtype == dtype and o.shape == (B, T, HV, V) and
           eo < TOLERANCE and eh < TOLERANCE,
           'o %.2e, final state %.2e' % (eo, eh))


def check_compiled_flags(B, T, H, HV, K, V, lower_bound, seed=7):
    """In-kernel options compiled on demand: the gate from raw g (softplus
    with A_log and dt_bias, or the lower bound with safe_gate and states
    [V,K]), q/k l2norm and the beta sigmoid (times 2 with allow_neg_eigval
    for the softplus case), at K and V no embedded bundle has."""
    gen = torch.Generator().manual_seed(seed)
    rand = lambda *s: torch.randn(*s, generator=gen)
    q = rand(B, T, H, K).bfloat16()
    k = rand(B, T, H, K).bfloat16()
    v = rand(B, T, HV, V).bfloat16()
    g = rand(B, T, HV, K).bfloat16()
    beta = rand(B, T, HV).bfloat16()
    A_log = rand(HV) * 0.5 - 1.0
    dt_bias = rand(HV, K)
    h0 = rand(B, HV, K, V) * 0.1
    safe = lower_bound is not None
    o, ht = kda.chunk_kda(q, k, v, g, beta,
                          initial_state=h0.transpose(-1, -2).contiguous() if safe else h0,
                          output_final_state=True, use_qk_l2norm_in_kernel=True,
                          use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True,
                          allow_neg_eigval=not safe, safe_gate=safe,
                          lower_bound=lower_bound, state_v_first=safe,
                          A_log=A_log,
                          dt_bias=dt_bias if safe else dt_bias.flatten())  # fla's shape
    l2 = lambda x: x.float() / torch.sqrt((x.float() ** 2).sum(-1, keepdim=True) + 1e-6)
    qn, kn = l2(q).bfloat16().float(), l2(k).bfloat16().float()
    a = g.float() + dt_bias
    if safe:
        gate = lower_bound * torch.sigmoid(torch.exp(A_log)[:, None] * a)
        b = torch.sigmoid(beta.float())
    else:
        gate = -torch.exp(A_log)[:, None] * F.softplus(a)
        b = 2 * torch.sigmoid(beta.float())
    o_ref, ht_ref = recurrence(qn, kn, v.float(), gate, b, K ** -0.5, h0)
    if safe:
        ht = ht.transpose(-1, -2)
    eo, eh = rel_error(o, o_ref), rel_error(ht, ht_ref)
    expect('compiled on demand, in-kernel gate (%s), l2norm, beta sigmoid%s '
           'B=%d T=%d H=%d HV=%d K=%d V=%d' %
           ('lower bound %g, safe_gate, states [V,K]' % lower_bound if safe
            else 'softplus', '' if safe else ' x2 (allow_neg_eigval)',
            B, T, H, HV, K, V),
           o.shape == (B, T, HV, V) and eo < TOLERANCE and eh < TOLERANCE,
           'o %.2e, final state %.2e' % (eo, eh))


def check_compile_cache():
    """Bundles compiled on demand land in KDA_CACHE_DIR, one per program:
    calls of other shapes (B, T, heads) reuse it, as does a new process."""
    files = sorted(os.listdir(kda.bundle_cache_dir()))
    bundles = [f for f in files if f.endswith('.kdab')]
    expect('the cache holds one bundle per compiled program and no leftovers',
           len(bundles) == 3 and len(files) == 3, ', '.join(files))
    import subprocess
    script = ('import sys, torch; sys.path.insert(0, %r); import kda\n'
              'q = torch.zeros(1, 5, 1, 60).bfloat16(); v = torch.zeros(1, 5, 2, 100).bfloat16()\n'
              'kda.chunk_kda(q, q, v, torch.zeros(1, 5, 2, 60), torch.zeros(1, 5, 2).bfloat16(), scale=0.1)\n'
              % os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    directory = kda.bundle_cache_dir()
    stamps = {f: os.stat(os.path.join(directory, f)).st_mtime_ns for f in files}
    env = dict(os.environ, KDA_TRANSLATE=kda._compile.translator())
    done = subprocess.run([sys.executable, '-c', script], env=env,
                          capture_output=True, text=True)
    after = {f: os.stat(os.path.join(directory, f)).st_mtime_ns
             for f in os.listdir(directory)}
    expect('a new process loads the compiled bundle from the cache',
           done.returncode == 0 and after == stamps,
           (done.stderr.strip().splitlines() or [''])[-1])


def check_bundle_path():
    """A machine without the compiler runs bundles compiled elsewhere: the
    cache directory copied and listed in KDA_BUNDLE_PATH serves a new
    process with compiling off and an empty cache; without it the error
    names the bundle it looked for."""
    import shutil
    import subprocess
    import tempfile
    copy = os.path.join(tempfile.mkdtemp(prefix='kda-bundles-'), 'bundles')
    shutil.copytree(kda.bundle_cache_dir(), copy)
    script = ('import sys, torch; sys.path.insert(0, %r); import kda\n'
              'q = torch.zeros(1, 5, 1, 60).bfloat16(); v = torch.zeros(1, 5, 2, 100).bfloat16()\n'
              'o, _ = kda.chunk_kda(q, q, v, torch.zeros(1, 5, 2, 60), torch.zeros(1, 5, 2).bfloat16(), scale=0.1)\n'
              'print(tuple(o.shape))\n'
              % os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    results = []
    for path in (copy, ''):
        env = dict(os.environ, KDA_TRANSLATE='0', KDA_BUNDLE_PATH=path,
                   KDA_CACHE_DIR=tempfile.mkdtemp(prefix='kda-empty-cache-'))
        results.append(subprocess.run([sys.executable, '-c', script], env=env,
                                      capture_output=True, text=True))
    found, missing = results
    expect('KDA_BUNDLE_PATH serves a process without the compiler',
           found.returncode == 0 and '(1, 5, 2, 100)' in found.stdout,
           (found.stderr.strip().splitlines() or [''])[-1])
    last = (missing.stderr.strip().splitlines() or [''])[-1]
    expect('without KDA_BUNDLE_PATH the error names the bundle it looked for',
           missing.returncode != 0 and 'KDA_BUNDLE_PATH has no' in last and
           '.kdab' in last, last[:200])


def check_translate_flags(B, T, H, HV, K, seed=8):
    """With KDA_TRANSLATE_FLAGS set, a call an embedded default bundle covers
    is compiled with those flags instead (here the recurrent form in chunks
    of 16 tokens): a new bundle in the cache, a smaller workspace (no w, u,
    h or v_new), the same results."""
    q, k, v, g, beta, h0 = inputs(B, T, H, HV, K, seed)
    directory = kda.bundle_cache_dir()
    before = set(os.listdir(directory))

    def call():
        """The call's results and the plan it made (the newest)."""
        out = kda.chunk_kda(q, k, v, g, beta, initial_state=h0,
                            output_final_state=True)
        return out, list(kda._chunk._plans.values())[-1]

    kda._chunk._plans.clear()
    _, default_plan = call()
    os.environ['KDA_TRANSLATE_FLAGS'] = '--fuse-recurrence --chunk-size 16'
    try:
        (o, ht), plan = call()
    finally:
        del os.environ['KDA_TRANSLATE_FLAGS']
    workspaces = [plan.workspace_bytes, default_plan.workspace_bytes]
    o_ref, ht_ref = recurrence(q.float(), k.float(), v.float(), g, beta.float(),
                               K ** -0.5, h0)
    eo, eh = rel_error(o, o_ref), rel_error(ht, ht_ref)
    added = set(os.listdir(directory)) - before
    expect('KDA_TRANSLATE_FLAGS=--fuse-recurrence --chunk-size 16 compiles '
           'B=%d T=%d H=%d HV=%d K=%d' % (B, T, H, HV, K),
           plan is not default_plan and len(added) == 1 and
           workspaces[0] < workspaces[1] and eo < TOLERANCE and eh < TOLERANCE,
           'o %.2e, final state %.2e, new files %s, workspaces %s' %
           (eo, eh, sorted(added), workspaces))


def check_raises(name, exception, call, needle):
    try:
        call()
    except exception as e:
        expect(name, needle in str(e), str(e).splitlines()[0][:160])
        return
    except Exception as e:  # the wrong kind of error
        expect(name, False, '%s: %s' % (type(e).__name__, e))
        return
    expect(name, False, 'no exception')


def check_errors():
    q, k, v, g, beta, h0 = inputs(1, 16, 1, 1, 64, 2)
    os.environ['KDA_TRANSLATE'] = '0'  # no compiling: the key is reported
    check_raises('K=60 names the missing key', NotImplementedError,
                 lambda: kda.chunk_kda(q[..., :60].contiguous(), k[..., :60].contiguous(),
                                       v[..., :60].contiguous(), g[..., :60].contiguous(), beta),
                 'K=60 V=60')
    check_raises('f32 inputs name the missing key', NotImplementedError,
                 lambda: kda.chunk_kda(q.float(), k.float(), v.float(), g, beta.float()),
                 'q/k/v=float32')
    del os.environ['KDA_TRANSLATE']
    check_raises('options kda.chunk_fwd does not take name the key',
                 NotImplementedError,
                 lambda: kda.chunk_kda(q[..., :60].contiguous(), k[..., :60].contiguous(),
                                       v[..., :60].contiguous(), g[..., :60].contiguous(),
                                       beta, allow_neg_eigval=True),
                 'allow_neg_eigval=True')
    check_raises('non-contiguous q', ValueError,
                 lambda: kda.chunk_kda(q.transpose(1, 3).contiguous().transpose(1, 3),
                                       k, v, g, beta),
                 'contiguous')
    check_raises('a list is not a tensor', TypeError,
                 lambda: kda.chunk_kda(q.tolist(), k, v, g, beta),
                 'must be a torch.Tensor')
    check_raises('fp16 initial state', TypeError,
                 lambda: kda.chunk_kda(q, k, v, g, beta, initial_state=h0.half()),
                 'initial_state must be float32')
    check_raises('cu_seqlens with B=2', ValueError,
                 lambda: kda.chunk_kda(*inputs(2, 16, 1, 1, 64, 2)[:5],
                                       cu_seqlens=torch.tensor([0, 16])),
                 'batch size must be 1')
    check_raises('cu_seqlens past T: the runtime says so', kda.KDARuntimeError,
                 lambda: kda.chunk_kda(q, k, v, g, beta,
                                       cu_seqlens=torch.tensor([0, 8, 20])),
                 'cu_seqlens')
    check_raises('beta of the wrong shape: the runtime says which', kda.KDARuntimeError,
                 lambda: kda.chunk_kda(q, k, v, g, beta[:, :8].contiguous()),
                 'beta')


def main():
    for B, T, H, HV, K in [(1, 1, 1, 1, 64), (2, 63, 2, 2, 64), (1, 64, 1, 2, 128),
                           (2, 65, 1, 1, 64), (1, 130, 2, 4, 64)]:
        check_default(B, T, H, HV, K)
    check_default(1, 40, 1, 1, 64, zero_state=True)
    check_varlen([0, 0, 1, 1, 64, 65, 130], 1, 2, 64)
    check_varlen([0, 15, 100, 300], 2, 2, 128, int32=True)
    _, no_state = kda.chunk_kda(*inputs(1, 8, 1, 1, 64, 3)[:5])
    expect('final_state is None unless asked for', no_state is None)
    # As fla: A_log and dt_bias matter only with the gate in the kernel.
    args = inputs(1, 20, 1, 1, 64, 3)[:5]
    o_plain, _ = kda.chunk_kda(*args)
    o_ignored, _ = kda.chunk_kda(*args, A_log=torch.randn(1),
                                 dt_bias=torch.randn(64))
    expect('A_log and dt_bias without the gate in the kernel are ignored',
           torch.equal(o_plain, o_ignored))
    names = kda._capi.default_names()
    if 'fwd_k64_bf16_fused' in names:
        check_fused(1, 70, 1, 2, 64)
        check_fused_varlen([0, 1, 1, 70, 100], 1, 2, 64)
    else:
        print('skip fused: the library has no fused bundles (%s)' % ', '.join(names))
    check_errors()
    if kda._compile.translator():
        import tempfile
        os.environ['KDA_CACHE_DIR'] = tempfile.mkdtemp(prefix='kda-cache-')
        check_compiled(1, 70, 1, 2, 60, 100, torch.bfloat16)
        check_compiled(2, 33, 1, 1, 60, 100, torch.bfloat16)  # same bundle
        check_compiled(1, 100, 1, 2, 32, 48, torch.float32, state_v_first=True,
                       offsets=[0, 1, 1, 40, 100])
        check_compiled(1, 65, 2, 2, 64, 64, torch.float16)
        check_compile_cache()
        check_bundle_path()
        check_compiled_flags(1, 70, 1, 2, 60, 100, None)
        check_compiled_flags(2, 40, 2, 2, 48, 48, -5.0)
        check_translate_flags(1, 70, 1, 2, 64)
    else:
        print('skip compiled on demand: no kda-translate (KDA_TRANSLATE)')
    print('%d failed' % len(failures) if failures else 'PASS')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
