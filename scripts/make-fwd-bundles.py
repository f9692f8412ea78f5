#!/usr/bin/env python3
"""Compiles the whole-forward (kda.chunk_fwd) bundles of the GPU test tier
and writes the kda-run cases that scripts/gpu-check.sh runs on a GPU machine:
every forward case of fla's test_chunk, test_chunk_varlen,
test_chunk_varlen_prefill, test_chunk_state_v_first,
test_chunk_use_beta_sigmoid_in_kernel and the FlashKDA grid, at their full
sizes (kda-algorithm.md section 3), checked against the float64 per-token
recurrence at fla's threshold (RMS ratio 0.005 on o and the final state).

  scripts/make-fwd-bundles.py [BUILD_DIR] [OUT_DIR]

kda-run's --mask-p sets gates to -1000 (test_chunk_varlen's value; fla's
test_chunk uses 0, the milder case). OUT_DIR (default BUILD_DIR/fwd-bundles) gets src/*.mlir, *.kdab (PTX and
cubin, no CPU build) and cases.txt. KDA_TRANSLATE_FLAGS (space-separated)
are passed to every kda-translate call, e.g. --fuse-scan-output.
"""
import os
import subprocess
import sys

if len(sys.argv) > 3 or any(a.startswith('-') for a in sys.argv[1:]):
    # Positional arguments only: print the usage instead of taking an
    # option for a directory.
    sys.exit(__doc__)
build = sys.argv[1] if len(sys.argv) > 1 else 'build'
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(build, 'fwd-bundles')
translate = os.path.join(build, 'bin', 'kda-translate')
if not os.access(translate, os.X_OK):
    sys.exit(f'{translate} not found: build the compiler first (make build), '
             'or name its build directory as the first argument')
os.makedirs(os.path.join(out, 'src'), exist_ok=True)

GATE_SOFTPLUS = 'gate_mode = #kda<gate_mode softplus>'
GATE_LB = 'gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32'
VK = 'state_layout = #kda<state_layout vk>'


def program(name, H, HV, K, dtype, attrs, varlen, gate_in_kernel, beta_sigmoid):
    """Writes and compiles one kda.chunk_fwd program with initial and final
    state; returns the bundle's file name."""
    b = '1' if varlen else '?'
    vk = VK in attrs
    state = f'tensor<?x{HV}x{K}x{K}xf32>'
    qk = f'tensor<{b}x?x{H}x{K}x{dtype}>'
    v = f'tensor<{b}x?x{HV}x{K}x{dtype}>'
    g = f'tensor<{b}x?x{HV}x{K}x{dtype if gate_in_kernel else "f32"}>'
    beta = f'tensor<{b}x?x{HV}x{dtype if beta_sigmoid else "f32"}>'
    args = [('q', qk), ('k', qk), ('v', v), ('g', g), ('beta', beta)]
    operands = '%q, %k, %v, %g, %beta'
    if gate_in_kernel:
        args += [('A', f'tensor<{HV}xf32>'), ('dt', f'tensor<{HV}x{K}xf32>')]
        operands += ' a_log %A dt_bias %dt'
    args.append(('h0', state))
    operands += ' initial_state %h0'
    if varlen:
        args.append(('cu', 'tensor<?xi64>'))
        operands += ' cu_seqlens %cu'
    signature = ', '.join(f'%{n}: {t}' for n, t in args)
    types = ', '.join(t for _, t in args)
    attr_text = f' {{{attrs}}}' if attrs else ''
    src = os.path.join(out, 'src', name + '.mlir')
    with open(src, 'w') as fh:
        fh.write(f'func.func @{name}({signature}) -> ({v}, {state}) {{\n'
                 f'  %o, %ht = kda.chunk_fwd {operands}{attr_text}\n'
                 f'      : ({types}) -> ({v}, {state})\n'
                 f'  return %o, %ht : {v}, {state}\n}}\n')
    subprocess.run([translate, src, '--kda-to-bundle', '--no-cpu',
                    *os.environ.get('KDA_TRANSLATE_FLAGS', '').split(), '-o',
                    os.path.join(out, name + '.kdab')], check=True)
    return name + '.kdab'


cases = []


def add(bundle, B, T, H, HV, extra=''):
    check = ' --check-heads 8' if B * HV > 8 or T > 2048 else ''
    cases.append(f'{bundle} --batch {B} --seq-len {T} --heads {H} --value-heads {HV}'
                 f'{check} {extra}'.rstrip())


# test_chunk: (B, T, H, HV, D, scale, gate_norm, mask_p, l2norm, gate, dtype, safe, BT).
TEST_CHUNK = [
    (1, 63, 1, 1, 64, 1, 1, 0, 0, 0, 'f16', 1, 64),
    (2, 500, 3, 3, 60, 1, 1, 0, 0, 0, 'f16', 1, 64),
    (2, 1000, 3, 3, 64, .1, 1, .5, 0, 0, 'f16', 0, 64),
    (3, 1024, 4, 4, 100, 1, .1, 0, 0, 0, 'f16', 0, 64),
    (4, 1024, 4, 4, 128, .1, 1, 0, 0, 0, 'f16', 1, 64),
    (4, 1024, 4, 4, 128, .1, 1, 0, 1, 0, 'f16', 1, 64),
    (2, 1500, 4, 4, 128, .1, 10, 0, 0, 1, 'f16', 0, 64),
    (4, 2048, 8, 8, 64, .1, 1, 0, 0, 1, 'f16', 1, 64),
    (2, 1024, 2, 4, 64, .1, 1, 0, 0, 0, 'f16', 0, 64),
    (2, 1024, 2, 8, 64, .1, 1, 0, 0, 1, 'f16', 0, 64),
    (2, 1024, 4, 8, 128, .1, 1, 0, 1, 1, 'f16', 0, 64),
    (2, 160, 2, 4, 64, .1, 1, 0, 0, 1, 'f16', 1, 32),
    (2, 1024, 2, 4, 64, .1, 1, 0, 1, 1, 'bf16', 1, 64),
    (2, 1024, 2, 4, 64, .1, 1, 0, 0, 1, 'bf16', 0, 64),
    (2, 160, 2, 4, 64, .1, 1, 0, 0, 1, 'bf16', 1, 32),
    (2, 1024, 2, 8, 128, .1, 1, 0, 1, 1, 'bf16', 0, 64),
    # Chunks of 16 tokens (ours; fla's grid has 32 and 64).
    (2, 160, 2, 4, 64, .1, 1, 0, 0, 1, 'f16', 1, 16),
    (2, 1000, 3, 3, 64, .1, 1, .5, 0, 0, 'f16', 0, 16),
    (2, 1024, 2, 8, 128, .1, 1, 0, 1, 1, 'bf16', 0, 16),
]
for i, (B, T, H, HV, D, scale, norm, mask, l2, gate, dt, safe, bt) in enumerate(TEST_CHUNK, 1):
    attrs = [f'scale = {float(scale)} : f32', f'chunk_size = {bt} : i64']
    if l2:
        attrs.append('use_qk_l2norm')
    if safe:
        attrs.append('safe_gate')
    if gate:
        attrs.append(GATE_LB if safe else GATE_SOFTPLUS)
    bundle = program(f'fwd_test_chunk_{i}', H, HV, D, dt, ', '.join(attrs), False, gate, False)
    extra = ''
    if not gate:
        extra = (f'--gate-norm {norm} ' if norm != 1 else '') + (f'--mask-p {mask}' if mask else '')
    add(bundle, B, T, H, HV, extra)

# test_chunk_varlen (H = HV, B = 1): (H, D, mask_p, cu_seqlens, dtype, gate, safe, BT);
# test_chunk_varlen_prefill runs the first five again, the first with 0,8192.
VARLEN = [
    (4, 60, .1, '0,15', 'f16', 1, 0, 64),
    (4, 64, .9, '0,256,500,1000', 'f16', 1, 0, 64),
    (4, 128, .5, '0,256,500,1000', 'f16', 0, 0, 64),
    (4, 100, 0, '0,15,100,300,1200,2000', 'f16', 1, 0, 64),
    (4, 256, 0, '0,100,300,1200,3000,4096', 'f16', 0, 1, 64),
    (4, 60, .1, '0,31,96,160', 'f16', 1, 0, 32),
    # Chunks of 16 tokens (ours).
    (4, 60, .1, '0,31,96,160', 'f16', 1, 0, 16),
    (4, 128, .5, '0,0,1,1,256,500,1000', 'f16', 0, 0, 16),
]
for i, (H, D, mask, cu, dt, gate, safe, bt) in enumerate(VARLEN, 1):
    attrs = [f'chunk_size = {bt} : i64']
    if safe:
        attrs.append('safe_gate')
    if gate:
        attrs.append(GATE_LB if safe else GATE_SOFTPLUS)
    bundle = program(f'fwd_varlen_{i}', H, H, D, dt, ', '.join(attrs), True, gate, False)
    T = int(cu.split(',')[-1])
    extra = f'--cu-seqlens {cu}' + (f' --mask-p {mask}' if mask and not gate else '')
    add(bundle, 1, T, H, H, extra)
    if i == 1:
        add(bundle, 1, 8192, H, H, '--cu-seqlens 0,8192')

# test_chunk_state_v_first: (B, T, H, D, scale, gate_norm), f16.
for i, (B, T, H, D, scale, norm) in enumerate(
        [(1, 63, 1, 64, 1, 1), (2, 500, 3, 60, 1, 1), (3, 1024, 4, 128, .1, 1),
         (4, 2048, 8, 64, .1, 1)], 1):
    bundle = program(f'fwd_state_v_first_{i}', H, H, D, 'f16',
                     f'scale = {float(scale)} : f32, {VK}', False, False, False)
    add(bundle, B, T, H, H)

# test_chunk_use_beta_sigmoid_in_kernel: (B, T, H, D, allow_neg_eigval, dtype).
for i, (B, T, H, D, neg, dt) in enumerate(
        [(1, 8192, 96, 128, 0, 'bf16'), (1, 8192, 96, 128, 1, 'bf16'), (2, 96, 2, 64, 1, 'f16')], 1):
    attrs = 'use_beta_sigmoid' + (', allow_neg_eigval' if neg else '')
    bundle = program(f'fwd_beta_sigmoid_{i}', H, H, D, dt, attrs, False, False, True)
    add(bundle, B, T, H, H)

# The FlashKDA grid: bf16, every in-kernel flag, safe_gate, lower_bound -5, vk.
FLASHKDA = 'use_qk_l2norm, use_beta_sigmoid, safe_gate, ' + GATE_LB + ', ' + VK
for B, T, H in [(1, 1024, 4), (2, 2048, 8), (1, 4096, 16)]:
    bundle = program(f'fwd_flashkda_h{H}', H, H, 128, 'bf16', FLASHKDA, False, True, True)
    add(bundle, B, T, H, H)
for H, cu in [(4, '0,256,500,1000'), (8, '0,100,300,1200,2000'), (16, '0,101,303,1205,3007,4096')]:
    bundle = program(f'fwd_flashkda_h{H}_varlen', H, H, 128, 'bf16', FLASHKDA, True, True, True)
    add(bundle, 1, int(cu.split(',')[-1]), H, H, f'--cu-seqlens {cu}')

with open(os.path.join(out, 'cases.txt'), 'w') as fh:
    fh.write('\n'.join(cases) + '\n')
print(f'wrote {len(os.listdir(out)) - 2} bundles and {len(cases)} cases to {out}')
