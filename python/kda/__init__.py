"""kda: Kimi Delta Attention kernels from the kda compiler, for PyTorch.

    import kda
    o, final_state = kda.chunk_kda(q, k, v, g, beta, initial_state=h0,
                                   output_final_state=True)

Same arguments, shapes and results as fla's `chunk_kda` forward. The
kernels come from the bundles embedded in libkda_runtime (see
docs/python.md); calls no bundle covers raise NotImplementedError naming
their key.
"""
from ._capi import RuntimeError_ as KDARuntimeError
from ._chunk import chunk_kda

__all__ = ['chunk_kda', 'KDARuntimeError']
__version__ = '0.1.0'
