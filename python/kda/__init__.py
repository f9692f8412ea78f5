"""kda: Kimi Delta Attention kernels from the kda compiler, for PyTorch.

    import kda
    o, final_state = kda.chunk_kda(q, k, v, g, beta, initial_state=h0,
                                   output_final_state=True)

Same arguments, shapes and results as fla's `chunk_kda` forward. The
kernels come from the bundles embedded in libkda_runtime (see
docs/python.md), else from $KDA_BUNDLE_PATH or compiled on demand with
kda-translate into a cache (`bundle_cache_dir()`: copy it to a machine
without the compiler and list it in that machine's KDA_BUNDLE_PATH); calls
no bundle covers raise NotImplementedError naming their key.
"""
from ._capi import RuntimeError_ as KDARuntimeError
from ._chunk import chunk_kda
from ._compile import cache_dir as bundle_cache_dir

__all__ = ['chunk_kda', 'KDARuntimeError', 'bundle_cache_dir']
__version__ = '0.1.0'
