"""Checks a kda package installed the ordinary way (pip install ./python
into a virtual environment, the runtime library copied into kda/lib first):

    VENV/bin/python python/tests/check_installed.py SOURCE_DIR

It must be imported from the environment (sys.prefix), not from
SOURCE_DIR/python (the repository's package), load the
library inside the installed package, and compute a forward on CPU tensors
that matches the float64 recurrence (python/tests/reference.py). Prints
`ok` lines and PASS, or FAIL lines and exits 1.
"""
import os
import sys

import torch
import torch.nn.functional as F

source = os.path.realpath(sys.argv[1])
# reference.py sits beside this script; the package must not come from the
# source tree, so only this directory goes on the path.
sys.path = [p for p in sys.path if os.path.realpath(p or '.') != os.path.join(source, 'python')]
import kda  # noqa: E402
from reference import recurrence, rel_error  # noqa: E402

failures = []


def expect(name, ok, detail=''):
    print(('ok   ' if ok else 'FAIL ') + name + (': ' + detail if detail else ''))
    if not ok:
        failures.append(name)


package = os.path.realpath(os.path.dirname(kda.__file__))
expect('kda is imported from the environment\'s site-packages, not the '
       'source tree',
       package.startswith(os.path.realpath(sys.prefix) + os.sep) and
       package != os.path.join(source, 'python', 'kda'), package)
kda._capi.library()
library = kda._capi.library_path()
expect('the runtime library is the one installed in kda/lib',
       os.path.realpath(library) == os.path.join(package, 'lib', 'libkda_runtime.so'),
       library)
gen = torch.Generator().manual_seed(0)
B, T, H, K = 1, 70, 1, 64
q = F.normalize(torch.randn(B, T, H, K, generator=gen), dim=-1).bfloat16()
k = F.normalize(torch.randn(B, T, H, K, generator=gen), dim=-1).bfloat16()
v = torch.randn(B, T, H, K, generator=gen).bfloat16()
g = F.logsigmoid(torch.randn(B, T, H, K, generator=gen)) / 16
beta = torch.rand(B, T, H, generator=gen).bfloat16()
o, ht = kda.chunk_kda(q, k, v, g, beta, output_final_state=True)
o_ref, ht_ref = recurrence(q.float(), k.float(), v.float(), g, beta.float(), K ** -0.5, None)
eo, eh = rel_error(o, o_ref), rel_error(ht, ht_ref)
expect('a forward on CPU tensors', eo < 0.01 and eh < 0.01,
       'o %.2e, final state %.2e' % (eo, eh))
print('%d failed' % len(failures) if failures else 'PASS')
sys.exit(1 if failures else 0)
