"""Where the host time of a kda.chunk_kda call goes (run on a GPU machine,
with KDA_RUNTIME_LIBRARY pointing at a runtime with the default bundles
embedded, as scripts/gpu-python-check.sh builds it):

    python3 bench/python_host_time.py [--calls N (default 100)]

At a tiny shape (B=1 T=64 H=HV=1 K=V=64 bf16, so the GPU keeps up) it
times, per call, with time.perf_counter over N calls after a warm-up: the
whole call with and without an initial state, the runtime's kda_forward
alone on the call's prepared arguments (the launches and the runtime's
checks), the call with kda_forward replaced by a no-op (the package's own
Python and allocations), and the torch calls the package makes around it (the output and
final-state allocations, the workspace, the zero state, the stream query).
"""
import argparse
import ctypes
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'python'))
import kda  # noqa: E402
from kda import _capi, _chunk  # noqa: E402


def per_call(fn, calls):
    """Seconds per call of fn() over `calls` calls (after 20 warm-up calls):
    until the host returns, and until the GPU is done too. When the two are
    equal the GPU was the bottleneck and the launch queue filled up, so the
    host time is not the host's cost: use fewer calls."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - start) / calls
    torch.cuda.synchronize()
    return host, (time.perf_counter() - start) / calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--calls', type=int, default=100)
    calls = parser.parse_args().calls
    dev = torch.device('cuda')
    B, T, H, K = 1, 64, 1, 64
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(B, T, H, K, generator=gen).to(dev, torch.bfloat16)
    k = torch.nn.functional.normalize(
        torch.randn(B, T, H, K, generator=gen), dim=-1).to(dev, torch.bfloat16)
    v = torch.randn(B, T, H, K, generator=gen).to(dev, torch.bfloat16)
    g = torch.nn.functional.logsigmoid(
        torch.randn(B, T, H, K, generator=gen)).to(dev)
    beta = torch.rand(B, T, H, generator=gen).to(dev, torch.bfloat16)
    h0 = torch.zeros(B, H, K, K, device=dev)

    rows = []
    rows.append(('chunk_kda, initial state given', per_call(
        lambda: kda.chunk_kda(q, k, v, g, beta, initial_state=h0), calls)))
    rows.append(('chunk_kda, no initial state', per_call(
        lambda: kda.chunk_kda(q, k, v, g, beta), calls)))
    # The runtime alone, on the arguments the last call prepared.
    plan = next(iter(_chunk._plans.values()))
    lib = _capi.library()
    stream = torch.cuda.current_stream(dev).cuda_stream
    workspace = torch.empty(plan.workspace_bytes + 256, dtype=torch.uint8,
                            device=dev)
    address = workspace.data_ptr() + (-workspace.data_ptr()) % 256
    o = torch.empty(plan.o_shape, dtype=plan.o_dtype, device=dev)
    ht = torch.empty(plan.state_shape, dtype=torch.float32, device=dev)
    plan.args.o.data = o.data_ptr()
    plan.args.final_state.data = ht.data_ptr()
    args = ctypes.byref(plan.args)
    rows.append(('kda_forward alone (runtime checks and launches)', per_call(
        lambda: lib.kda_forward(plan.program, args, address,
                                plan.workspace_bytes, stream), calls)))
    # The package's own Python: the same call with kda_forward a no-op.
    class NoLaunch:
        def __getattr__(self, name):
            return getattr(lib, name)

        @staticmethod
        def kda_forward(*args):
            return 0
    real_library = _capi.library
    _capi.library = lambda: NoLaunch()
    try:
        rows.append(('chunk_kda with kda_forward a no-op (the Python)',
                     per_call(lambda: kda.chunk_kda(q, k, v, g, beta), calls)))
    finally:
        _capi.library = real_library
    size = ctypes.c_size_t()
    lib.kda_program_prepare.argtypes = [ctypes.c_void_p]
    rows.append(('a ctypes call that does nothing (kda_last_error)', per_call(
        lib.kda_last_error, calls)))
    rows.append(('kda_forward_workspace_size (argument checks)', per_call(
        lambda: lib.kda_forward_workspace_size(plan.program, args,
                                               ctypes.byref(size)), calls)))
    rows.append(('kda_program_prepare (driver and module lookup)', per_call(
        lambda: lib.kda_program_prepare(plan.program), calls)))
    rows.append(('torch.empty of o', per_call(
        lambda: torch.empty(plan.o_shape, dtype=plan.o_dtype, device=dev),
        calls)))
    rows.append(('torch.empty of the workspace', per_call(
        lambda: torch.empty(plan.workspace_bytes + 256, dtype=torch.uint8,
                            device=dev), calls)))
    rows.append(('torch.zeros of the state', per_call(
        lambda: torch.zeros(plan.state_shape, dtype=torch.float32,
                            device=dev), calls)))
    rows.append(('torch.cuda.current_stream().cuda_stream', per_call(
        lambda: torch.cuda.current_stream(dev).cuda_stream, calls)))
    print('host time per call, B=%d T=%d H=HV=%d K=V=%d bf16, %d calls '
          '(torch %s):' % (B, T, H, K, calls, torch.__version__))
    print('  %-52s %9s %9s' % ('', 'host', 'with GPU'))
    for name, (host, total) in rows:
        print('  %-52s %6.1f us %6.1f us' % (name, host * 1e6, total * 1e6))


if __name__ == '__main__':
    main()
