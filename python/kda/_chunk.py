"""kda.chunk_kda: fla's chunk_kda forward on the compiler's kernels."""
import ctypes
import os

import torch

from . import _capi, _compile, _op

# torch's current stream of a device as a raw cudaStream_t, without building
# a torch.cuda.Stream object (5 us a call on an H200 host); the public
# route where this private one is missing.
_raw_stream = getattr(torch._C, '_cuda_getCurrentRawStream', None)


def _current_stream(device):
    """The raw handle of torch's current stream on CUDA device `device`."""
    if _raw_stream is not None:
        index = device.index
        return _raw_stream(torch.cuda.current_device() if index is None
                           else index)
    return torch.cuda.current_stream(device).cuda_stream


_DTYPES = {torch.float32: _capi.F32, torch.float16: _capi.F16,
           torch.bfloat16: _capi.BF16, torch.int32: _capi.I32,
           torch.int64: _capi.I64}
_WORKSPACE_ALIGN = 256


def _tensor(t, name):
    """A kda_tensor viewing `t` (rank 0 for None)."""
    out = _capi.Tensor()
    if t is None:
        return out
    if t.dtype not in _DTYPES:
        raise TypeError('%s: dtype %s is not supported' % (name, t.dtype))
    if not t.is_contiguous():
        raise ValueError('%s must be contiguous (call .contiguous())' % name)
    if t.dim() > _capi.KDA_MAX_RANK:
        raise ValueError('%s has rank %d, more than %d' %
                         (name, t.dim(), _capi.KDA_MAX_RANK))
    out.data = t.data_ptr() if t.numel() else None
    out.dtype = _DTYPES[t.dtype]
    out.rank = t.dim()
    for i, n in enumerate(t.shape):
        out.dims[i] = n
    return out


def _call_key(q, v, g, beta, scale, flags):
    """What selects a call's bundle, as text."""
    return ('K=%d V=%d q/k/v=%s g=%s beta=%s scale=%s %s' %
            (q.shape[-1], v.shape[-1], str(q.dtype).replace('torch.', ''),
             str(g.dtype).replace('torch.', ''),
             str(beta.dtype).replace('torch.', ''),
             'default' if scale is None else repr(scale),
             ' '.join('%s=%s' % kv for kv in sorted(flags.items()))))


def _bundle_name(q, k, v, g, beta, scale, flags):
    """The embedded default bundle that computes this call, or raises
    NotImplementedError naming the call's key."""
    K, V = q.shape[-1], v.shape[-1]
    key = _call_key(q, v, g, beta, scale, flags)
    io16 = all(t.dtype == torch.bfloat16 for t in (q, k, v, beta))
    default_scale = scale is None or abs(scale - K ** -0.5) <= 1e-12 * K ** -0.5
    # Varlen calls pack their sequences along T of one batch entry.
    varlen = flags['cu_seqlens']
    suffix = '_varlen' if varlen else ''
    candidates = []
    if K == V and K in (64, 128) and io16 and default_scale and \
            (not varlen or q.shape[0] == 1) and flags['allow_neg_eigval'] is False:
        if g.dtype == torch.float32 and not any(
                flags[f] for f in ('use_qk_l2norm_in_kernel',
                                   'use_gate_in_kernel',
                                   'use_beta_sigmoid_in_kernel', 'safe_gate',
                                   'state_v_first', 'A_log', 'dt_bias')) and \
                flags['lower_bound'] is None:
            candidates.append('fwd_k%d_bf16_default%s' % (K, suffix))
        if g.dtype == torch.bfloat16 and all(
                flags[f] for f in ('use_qk_l2norm_in_kernel',
                                   'use_gate_in_kernel',
                                   'use_beta_sigmoid_in_kernel', 'safe_gate',
                                   'state_v_first', 'A_log', 'dt_bias')) and \
                flags['lower_bound'] == -5.0:
            candidates.append('fwd_k%d_bf16_fused%s' % (K, suffix))
    available = _capi.default_names()
    for name in candidates:
        if name in available:
            return name
    raise NotImplementedError(
        'kda.chunk_kda: no kernel bundle for this call (key: %s); the '
        'library has %s' % (key, ', '.join(available) or 'no default bundles'))


def chunk_kda(q, k, v, g, beta, scale=None, initial_state=None,
              output_final_state=False, use_qk_l2norm_in_kernel=False,
              use_gate_in_kernel=False, use_beta_sigmoid_in_kernel=False,
              allow_neg_eigval=False, safe_gate=False, lower_bound=None,
              state_v_first=False, cu_seqlens=None, cu_seqlens_cpu=None,
              A_log=None, dt_bias=None):
    """fla's chunk_kda forward: returns (o, final_state).

    Shapes and semantics as fla's `chunk_kda`: q, k [B,T,H,K]; v [B,T,HV,V];
    g [B,T,HV,K]; beta [B,T,HV]; initial_state [N,HV,K,V] fp32 ([N,HV,V,K]
    with state_v_first). Varlen: B = 1 and cu_seqlens (int64, or int32
    converted) holds the N + 1 offsets of the sequences packed along T;
    cu_seqlens_cpu, a host copy of it, saves reading it back from the
    device. CPU tensors run the bundle's CPU build; CUDA
    tensors run on the GPU on torch's current stream. final_state is None
    unless output_final_state. Under torch.compile the call is the custom
    op torch.ops.kda.chunk_kda_fwd (torch 2.4 and later).
    """
    if isinstance(cu_seqlens, torch.Tensor) and cu_seqlens.dtype == torch.int32:
        # The kernels read int64 offsets (fla accepts both).
        cu_seqlens = cu_seqlens.long()
    if not use_gate_in_kernel:
        # fla reads A_log and dt_bias only for the gate in the kernel.
        A_log = dt_bias = None
    if _op.chunk_kda_fwd is not None and _op.is_compiling():
        # Traced by torch.compile: the custom op (docs/python.md).
        o, final_state = _op.chunk_kda_fwd(
            q, k, v, g, beta, scale, initial_state,
            bool(use_qk_l2norm_in_kernel), bool(use_gate_in_kernel),
            bool(use_beta_sigmoid_in_kernel), bool(allow_neg_eigval),
            bool(safe_gate), lower_bound, bool(state_v_first), cu_seqlens,
            cu_seqlens_cpu, A_log, dt_bias)
        return o, (final_state if output_final_state else None)
    return run_eager(q, k, v, g, beta, scale, initial_state,
                     output_final_state, use_qk_l2norm_in_kernel,
                     use_gate_in_kernel, use_beta_sigmoid_in_kernel,
                     allow_neg_eigval, safe_gate, lower_bound, state_v_first,
                     cu_seqlens, cu_seqlens_cpu, A_log, dt_bias)


def run_eager(q, k, v, g, beta, scale, initial_state, output_final_state,
              use_qk_l2norm_in_kernel, use_gate_in_kernel,
              use_beta_sigmoid_in_kernel, allow_neg_eigval, safe_gate,
              lower_bound, state_v_first, cu_seqlens, cu_seqlens_cpu, A_log,
              dt_bias):
    """chunk_kda's call, run now on the tensors' device (cu_seqlens int64)."""
    tensors = (q, k, v, g, beta, initial_state, A_log, dt_bias, cu_seqlens)
    flags = call_flags(use_qk_l2norm_in_kernel, use_gate_in_kernel,
                       use_beta_sigmoid_in_kernel, allow_neg_eigval, safe_gate,
                       lower_bound, state_v_first, cu_seqlens, A_log, dt_bias)
    # A call with the device, dtype and shape of every tensor, the options
    # and the raw $KDA_TRANSLATE_FLAGS (split only when a plan is made) of
    # an earlier call reuses its plan: those are all the checks below
    # look at, so they passed then. This part runs on every call.
    plan = signature = None
    try:
        key = [scale, flags, os.environ.get('KDA_TRANSLATE_FLAGS', '')]
        for t in tensors:
            if t is None:
                key.append(None)
            else:
                key += (t.device, t.dtype, t.shape)
        signature = tuple(key)
        plan = _plans.get(signature)
    except (AttributeError, TypeError):  # not tensors: the checks say so
        signature = None
    if plan is None:
        named = dict(zip(_ROLES, tensors))
        device = _check_call(named)
        named['dt_bias'] = dt_bias_per_head(dt_bias, v.shape[2], q.shape[3])
        plan = _Plan(named, device, scale, dict(zip(_FLAG_NAMES, flags)))
        if signature is not None:
            _plans[signature] = plan
    return plan.run(tensors, cu_seqlens_cpu, output_final_state)


def _check_call(tensors):
    """Checks a call's tensors (a dict by _ROLES) before its first plan;
    returns their device."""
    for name, t in tensors.items():
        if t is not None and not isinstance(t, torch.Tensor):
            raise TypeError('%s must be a torch.Tensor, got %s' %
                            (name, type(t).__name__))
    devices = {t.device for t in tensors.values() if t is not None}
    if len(devices) != 1:
        raise ValueError('all tensors must be on one device, got %s' %
                         ', '.join(sorted(str(d) for d in devices)))
    device = devices.pop()
    if device.type not in ('cpu', 'cuda'):
        raise ValueError('tensors must be on the CPU or a CUDA device, got %s'
                         % device)
    q, v = tensors['q'], tensors['v']
    if q.dim() != 4 or v.dim() != 4:
        raise ValueError('q, k and v must be [B,T,H,K] / [B,T,HV,V], got '
                         'q %s, v %s' % (tuple(q.shape), tuple(v.shape)))
    if tensors['cu_seqlens'] is not None and q.shape[0] != 1:
        raise ValueError('with cu_seqlens the batch size must be 1 (the '
                         'sequences are packed along T), got B=%d' % q.shape[0])
    initial_state = tensors['initial_state']
    if initial_state is not None and initial_state.dtype != torch.float32:
        raise TypeError('initial_state must be float32, got %s' %
                        initial_state.dtype)
    return device


def call_flags(use_qk_l2norm_in_kernel, use_gate_in_kernel,
               use_beta_sigmoid_in_kernel, allow_neg_eigval, safe_gate,
               lower_bound, state_v_first, cu_seqlens, A_log, dt_bias):
    """A call's options as a tuple in _FLAG_NAMES order (optional tensors
    as whether they are passed)."""
    return (bool(use_qk_l2norm_in_kernel), bool(use_gate_in_kernel),
            bool(use_beta_sigmoid_in_kernel), bool(allow_neg_eigval),
            bool(safe_gate), lower_bound, bool(state_v_first),
            cu_seqlens is not None, A_log is not None, dt_bias is not None)


def _compilable(flags):
    """True for the calls kda-translate is asked to compile a bundle for:
    every option set that kda.chunk_fwd expresses. Not (the op's rules):
    allow_neg_eigval without the beta sigmoid in the kernel, a softplus
    gate in the kernel without A_log, a safe gate computed in the kernel
    without a lower bound in [-5, 0); nor A_log / dt_bias without the gate
    in the kernel."""
    if flags['allow_neg_eigval'] and not flags['use_beta_sigmoid_in_kernel']:
        return False
    if not flags['use_gate_in_kernel']:
        return not flags['A_log'] and not flags['dt_bias']
    lower_bound = flags['lower_bound']
    if lower_bound is None:
        return flags['A_log'] and not flags['safe_gate']
    return not flags['safe_gate'] or -5.0 <= lower_bound < 0.0


def dt_bias_per_head(dt_bias, HV, K):
    """`dt_bias` as the kernels take it, [HV, K]: fla passes [HV * K],
    FlashKDA [HV, K]; both are viewed as [HV, K] (no copy), so one bundle
    serves both. None stays None."""
    if dt_bias is None or tuple(dt_bias.shape) == (HV, K):
        return dt_bias
    if not isinstance(dt_bias, torch.Tensor) or dt_bias.dim() != 1 or \
            dt_bias.numel() != HV * K:
        raise ValueError('dt_bias must be [HV*K] or [HV, K] (HV=%d, K=%d), '
                         'got %s' % (HV, K, tuple(getattr(dt_bias, 'shape', ()))))
    return dt_bias.view(HV, K)


def find_program(q, k, v, g, beta, scale, flags, A_log=None, dt_bias=None):
    """The loaded bundle that computes a call with options `flags` (a dict
    by _FLAG_NAMES): an embedded default bundle, else one from
    $KDA_BUNDLE_PATH or compiled on demand (docs/python.md); raises
    NotImplementedError naming the call's key when there is none."""
    # With $KDA_TRANSLATE_FLAGS set, calls kda-translate can compile are
    # compiled with those flags rather than run by an embedded bundle.
    dt_bias = dt_bias_per_head(dt_bias, v.shape[-2], q.shape[-1])
    compile_first = bool(_compile.translate_flags()) and _compilable(flags)
    try:
        if compile_first:
            raise NotImplementedError('compiled with KDA_TRANSLATE_FLAGS')
        return _capi.default_program(
            _bundle_name(q, k, v, g, beta, scale, flags))
    except NotImplementedError:
        if not _compilable(flags):
            raise
    # Any K, V and dtypes, fixed length or varlen, kv or vk states,
    # in-kernel options.
    return _compile.compiled_program(
        _compile.program_text(q, v, g, beta, scale, flags, A_log, dt_bias),
        _call_key(q, v, g, beta, scale, flags))


_FLAG_NAMES = ('use_qk_l2norm_in_kernel', 'use_gate_in_kernel',
               'use_beta_sigmoid_in_kernel', 'allow_neg_eigval', 'safe_gate',
               'lower_bound', 'state_v_first', 'cu_seqlens', 'A_log',
               'dt_bias')
_ROLES = ('q', 'k', 'v', 'g', 'beta', 'initial_state', 'A_log', 'dt_bias',
          'cu_seqlens')
# Where _Plan.run finds these roles in the tuple it is given.
_Q, _INITIAL_STATE, _CU_SEQLENS = (_ROLES.index(role) for role in
                                   ('q', 'initial_state', 'cu_seqlens'))
# Calls seen before, by device, scale, flags, dtypes and shapes: their
# bundle, workspace size and argument structure (only pointers change).
_plans = {}


class _Plan:
    """Everything about a call that its tensors' addresses do not change."""

    def __init__(self, tensors, device, scale, flags):
        q, v = tensors['q'], tensors['v']
        self.device = device
        self.program = find_program(q, tensors['k'], v, tensors['g'],
                                    tensors['beta'], scale, flags,
                                    tensors['A_log'], tensors['dt_bias'])
        B, T, HV, V = v.shape
        K = q.shape[-1]
        cu_seqlens = tensors['cu_seqlens']
        N = B if cu_seqlens is None else cu_seqlens.numel() - 1
        self.o_shape, self.o_dtype, self.q_dtype = (B, T, HV, V), v.dtype, q.dtype
        # The default bundles take an initial state and write a final one:
        # zeros when the caller passes none, returned when asked for.
        self.state_shape = ((N, HV, V, K) if flags['state_v_first']
                            else (N, HV, K, V))
        self.args = _capi.ForwardTensors()
        for role in _ROLES:
            setattr(self.args, role.lower(), _tensor(tensors[role], role))
        if tensors['initial_state'] is None:
            self.args.initial_state = _tensor(
                torch.empty(self.state_shape, dtype=torch.float32), 'h0')
        self.args.o = _tensor(torch.empty(self.o_shape, dtype=self.o_dtype), 'o')
        self.args.final_state = _tensor(
            torch.empty(self.state_shape, dtype=torch.float32), 'final_state')
        size = ctypes.c_size_t()
        _capi.check(_capi.library().kda_forward_workspace_size(
            self.program, ctypes.byref(self.args), ctypes.byref(size)))
        self.workspace_bytes = size.value
        # A final state nobody asked for is written into the workspace's
        # allocation, after the workspace (one allocation fewer per call).
        self.state_offset = -(-self.workspace_bytes // _WORKSPACE_ALIGN) * \
            _WORKSPACE_ALIGN
        self.state_bytes = 4 * N * HV * K * V
        # The zero initial state of calls without one, made once: the
        # kernels only read it.
        self.zero_state = None
        # The kda_tensor of each passed role (index in _ROLES) whose address
        # each call writes.
        self.slots = [(i, getattr(self.args, role.lower()))
                      for i, role in enumerate(_ROLES)
                      if tensors[role] is not None]

    def _zero_state(self, device):
        """The zero initial state on `device`: kept after the first call,
        except one made while a CUDA graph is being captured (its zeros
        would be written only when the graph is replayed)."""
        if self.zero_state is not None:
            return self.zero_state
        zeros = torch.zeros(self.state_shape, dtype=torch.float32,
                            device=device)
        if device.type == 'cpu' or not torch.cuda.is_current_stream_capturing():
            self.zero_state = zeros
        return zeros

    def run(self, tensors, cu_seqlens_cpu, output_final_state):
        """Runs the call on `tensors` (a tuple in _ROLES order, of the
        dtypes and shapes this plan was made for)."""
        args, device = self.args, self.device
        for i, slot in self.slots:
            t = tensors[i]
            if not t.is_contiguous():
                raise ValueError('%s must be contiguous (call .contiguous())'
                                 % _ROLES[i])
            slot.data = t.data_ptr() or None
        o = torch.empty(self.o_shape, dtype=self.o_dtype, device=device)
        args.o.data = o.data_ptr() or None
        keep_state = bool(output_final_state)
        workspace = torch.empty(
            (self.workspace_bytes if keep_state else
             self.state_offset + self.state_bytes) + _WORKSPACE_ALIGN,
            dtype=torch.uint8, device=device)
        address = workspace.data_ptr()
        address += (-address) % _WORKSPACE_ALIGN
        if keep_state:
            final_state = torch.empty(self.state_shape, dtype=torch.float32,
                                      device=device)
            args.final_state.data = final_state.data_ptr() or None
        else:
            final_state = None
            args.final_state.data = (address + self.state_offset
                                     if self.state_bytes else None)
        if tensors[_INITIAL_STATE] is None:  # zeros
            zeros = self._zero_state(device)
            args.initial_state.data = zeros.data_ptr() or None
        host_seqlens = None
        if tensors[_CU_SEQLENS] is not None:
            seqlens = (cu_seqlens_cpu if cu_seqlens_cpu is not None
                       else tensors[_CU_SEQLENS])
            host_seqlens = seqlens.to('cpu', torch.int64).contiguous()
            args.cu_seqlens_host = ctypes.cast(host_seqlens.data_ptr(),
                                               ctypes.POINTER(ctypes.c_int64))
        lib = _capi.library()
        if device.type == 'cpu':
            _capi.check(lib.kda_forward_cpu(self.program, ctypes.byref(args),
                                            address, self.workspace_bytes))
        else:
            stream = _current_stream(device)
            _capi.check(lib.kda_forward(self.program, ctypes.byref(args),
                                        address, self.workspace_bytes, stream))
        if o.dtype != self.q_dtype:
            o = o.type_as(tensors[_Q])
        return o, final_state
