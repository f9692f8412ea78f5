"""Registers the compiler's kernels as a backend of fla's `chunk_kda`.

    import kda.fla   # after this, fla.ops.kda.chunk_kda dispatches to kda

fla's backend dispatch (fla/ops/backends) then sends each `chunk_kda` call
that this backend's verifier accepts to `kda.chunk_kda`: calls in inference
mode (no autograd: the kernels have no backward), without context
parallelism or intermediate states, that kda has a bundle for (an embedded
one, one in $KDA_BUNDLE_PATH, or one kda-translate compiles: docs/python.md).
Other calls stay with fla. Set FLA_KDA_COMPILER=0 to opt out. FlashKDA's backend
(priority 3) still comes first where it applies.
"""
import os

import torch
from fla.ops.backends import BaseBackend
from fla.ops.kda.backends import kda_registry

from . import _chunk

# Whether the backend takes a call, by what selects its bundle (dtypes, K,
# V, scale, flags, the environment that chooses bundles): finding a bundle
# may compile one, so each kind of call is decided once.
_verdicts = {}


class KDACompilerBackend(BaseBackend):
    """fla backend: chunk_kda forward on the kda compiler's kernels."""

    backend_type = 'kda_compiler'
    package_name = 'kda'
    env_var = 'FLA_KDA_COMPILER'
    default_enable = True
    priority = 4

    # Both take fla's chunk_kda arguments, in its order (the dispatcher
    # passes them on as the caller gave them).
    def chunk_kda_verifier(self, q, k, v, g, beta, scale=None,
                           initial_state=None, output_final_state=False,
                           use_qk_l2norm_in_kernel=False,
                           use_gate_in_kernel=False,
                           use_beta_sigmoid_in_kernel=False,
                           allow_neg_eigval=False, safe_gate=False,
                           lower_bound=None, disable_recompute=False,
                           return_intermediate_states=False,
                           state_v_first=False, cu_seqlens=None,
                           cu_seqlens_cpu=None, cp_context=None, A_log=None,
                           dt_bias=None, **kwargs):
        if torch.is_grad_enabled():
            return False, 'kda has no backward: inference mode only'
        if cp_context is not None:
            return False, 'kda does not support context parallelism'
        if return_intermediate_states:
            return False, 'kda does not return intermediate states'
        # fla's chunk_size (and disable_recompute) choose how fla computes
        # the same result; kda's bundles choose their own chunk size.
        if not use_gate_in_kernel:  # as fla: A_log and dt_bias unused
            A_log = dt_bias = None
        flags = dict(zip(_chunk._FLAG_NAMES, _chunk.call_flags(
            use_qk_l2norm_in_kernel, use_gate_in_kernel,
            use_beta_sigmoid_in_kernel, allow_neg_eigval, safe_gate,
            lower_bound, state_v_first, cu_seqlens, A_log, dt_bias)))
        signature = (scale, tuple(flags.items()),
                     os.environ.get('KDA_TRANSLATE_FLAGS', ''),
                     os.environ.get('KDA_BUNDLE_PATH', ''),
                     os.environ.get('KDA_TRANSLATE')) + tuple(
            None if t is None else (t.dtype, t.dim(), t.shape[-1])
            for t in (q, k, v, g, beta)) + tuple(
            None if t is None else (t.dtype, tuple(t.shape))
            for t in (A_log, dt_bias))
        verdict = _verdicts.get(signature)
        if verdict is None:
            try:
                _chunk.find_program(q, k, v, g, beta, scale, flags, A_log,
                                    dt_bias)
                verdict = (True, None)
            except NotImplementedError as e:
                verdict = (False, str(e))
            _verdicts[signature] = verdict
        return verdict

    def chunk_kda(self, q, k, v, g, beta, scale=None, initial_state=None,
                  output_final_state=False, use_qk_l2norm_in_kernel=False,
                  use_gate_in_kernel=False, use_beta_sigmoid_in_kernel=False,
                  allow_neg_eigval=False, safe_gate=False, lower_bound=None,
                  disable_recompute=False, return_intermediate_states=False,
                  state_v_first=False, cu_seqlens=None, cu_seqlens_cpu=None,
                  cp_context=None, A_log=None, dt_bias=None, **kwargs):
        if initial_state is not None:
            initial_state = initial_state.contiguous()
        return _chunk.chunk_kda(
            q.contiguous(), k.contiguous(), v.contiguous(), g.contiguous(),
            beta.contiguous(), scale=scale, initial_state=initial_state,
            output_final_state=output_final_state,
            use_qk_l2norm_in_kernel=use_qk_l2norm_in_kernel,
            use_gate_in_kernel=use_gate_in_kernel,
            use_beta_sigmoid_in_kernel=use_beta_sigmoid_in_kernel,
            allow_neg_eigval=allow_neg_eigval, safe_gate=safe_gate,
            lower_bound=lower_bound, state_v_first=state_v_first,
            cu_seqlens=cu_seqlens, cu_seqlens_cpu=cu_seqlens_cpu,
            A_log=A_log, dt_bias=dt_bias)


kda_registry.register(KDACompilerBackend())
