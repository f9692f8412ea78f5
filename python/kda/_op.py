"""kda.chunk_kda as a torch custom op (`torch.ops.kda.chunk_kda_fwd`), so
that torch.compile can put it in a graph.

Registered with `torch.library.custom_op` where torch has it (2.4 and
later); with an older torch the module does nothing and `chunk_kda` only
runs eagerly. Eager calls of `kda.chunk_kda` do not go through the op (its
dispatch costs host time); calls traced by torch.compile do.
"""
from typing import Optional, Tuple

import torch

OP_NAME = 'kda::chunk_kda_fwd'


def _output_shapes(q, v, state_v_first, cu_seqlens):
    """Shapes of o ([B, T, HV, V]) and of the final state ([N, HV, K, V],
    [N, HV, V, K] with state_v_first), N the batch or the sequences."""
    B, T, HV, V = v.shape
    K = q.shape[-1]
    N = B if cu_seqlens is None else cu_seqlens.shape[0] - 1
    state = (N, HV, V, K) if state_v_first else (N, HV, K, V)
    return (B, T, HV, V), state


def _register():
    """Defines the op and its fake (shape-only) kernel; None without
    torch.library.custom_op."""
    custom_op = getattr(torch.library, 'custom_op', None)
    if custom_op is None:
        return None

    @custom_op(OP_NAME, mutates_args=())
    def chunk_kda_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                      g: torch.Tensor, beta: torch.Tensor,
                      scale: Optional[float],
                      initial_state: Optional[torch.Tensor],
                      use_qk_l2norm_in_kernel: bool, use_gate_in_kernel: bool,
                      use_beta_sigmoid_in_kernel: bool, allow_neg_eigval: bool,
                      safe_gate: bool, lower_bound: Optional[float],
                      state_v_first: bool, cu_seqlens: Optional[torch.Tensor],
                      cu_seqlens_cpu: Optional[torch.Tensor],
                      A_log: Optional[torch.Tensor],
                      dt_bias: Optional[torch.Tensor]
                      ) -> Tuple[torch.Tensor, torch.Tensor]:
        from . import _chunk
        return _chunk.run_eager(
            q, k, v, g, beta, scale, initial_state, True,
            use_qk_l2norm_in_kernel, use_gate_in_kernel,
            use_beta_sigmoid_in_kernel, allow_neg_eigval, safe_gate,
            lower_bound, state_v_first, cu_seqlens, cu_seqlens_cpu, A_log,
            dt_bias)

    @chunk_kda_fwd.register_fake
    def _(q, k, v, g, beta, scale, initial_state, use_qk_l2norm_in_kernel,
          use_gate_in_kernel, use_beta_sigmoid_in_kernel, allow_neg_eigval,
          safe_gate, lower_bound, state_v_first, cu_seqlens, cu_seqlens_cpu,
          A_log, dt_bias):
        o_shape, state_shape = _output_shapes(q, v, state_v_first, cu_seqlens)
        # o is computed in v's dtype and returned in q's (fla's rule).
        return (q.new_empty(o_shape, dtype=q.dtype),
                q.new_empty(state_shape, dtype=torch.float32))

    return chunk_kda_fwd


chunk_kda_fwd = _register()


# torch.compiler.is_compiling, looked up once (every eager call asks).
_compiling = getattr(getattr(torch, 'compiler', None), 'is_compiling', None)


def is_compiling():
    """True while torch.compile traces the caller (False on a torch without
    torch.compiler)."""
    return bool(_compiling and _compiling())
