#!/usr/bin/env python3
"""Random option sweep of the whole forward on the CPU build: kda.chunk_fwd
programs with random K and V (16 to 256, K != V too), I/O dtype, head counts
(GVA), fixed length or varlen, gate (precomputed, softplus with A_log and
dt_bias, or the lower bound -5 with safe_gate), q/k l2norm, beta sigmoid,
allow_neg_eigval, safe_gate, state layout, scale and chunk size; each one
compiled in kda-translate's default form and in the recurrent two-kernel
form (--fuse-recurrence --fuse-chunk-kernels --chunk-size 16
--fuse-preprocessing), and run by kda-run --cpu at a random small shape
(T across the chunk boundaries, empty and one-token sequences, gates at
-1000 for precomputed gates) against the float64 reference. Half the cases
(drawn apart from the option set) compile with --approximate-sigmoid (the
default) and half with --approximate-sigmoid=false, and
half of the recurrent forms with the recurrence's state transposed
(--tuning-override chunk_recurrence.transpose_state=true).

    scripts/sweep-forward-options.py [--build DIR] [--seed N] [--cases N]
                                     [--out DIR]

Every generated option set is one kda.chunk_fwd accepts, so a compile error
counts as a failure, as does a failed check. Case i depends only on the seed
and i. Prints one line per case and form, then "N passed, M failed"; exits
1 when any failed. The programs and bundles stay in --out (default
BUILD/sweep-forward-options).
"""
import argparse
import os
import random
import subprocess
import sys

RECURRENT = ['--fuse-recurrence', '--fuse-chunk-kernels', '--chunk-size', '16',
             '--fuse-preprocessing']


def options(rng):
    """One random option set, as a dict."""
    gate = rng.choice(['precomputed', 'softplus', 'lower_bound'])
    beta_sigmoid = rng.random() < 0.5
    K = rng.choice([16, 32, 48, 60, 64, 96, 100, 128, 200, 256])
    H = rng.choice([1, 2])
    return dict(
        K=K, V=K if rng.random() < 0.5 else rng.choice([16, 32, 48, 64, 80, 100, 128]),
        dtype=rng.choice(['bf16', 'f16', 'f32']), H=H, HV=H * rng.choice([1, 2, 4]),
        varlen=rng.random() < 0.4, gate=gate, l2norm=rng.random() < 0.5,
        beta_sigmoid=beta_sigmoid,
        neg_eigval=beta_sigmoid and rng.random() < 0.3,
        safe_gate=gate == 'lower_bound' or (gate == 'precomputed' and rng.random() < 0.3),
        vk=rng.random() < 0.4, scale=rng.choice([None, 0.1, 1.0]),
        chunk=rng.choice([None, 32, 64]))


def program(name, o):
    """The kda.chunk_fwd program of option set `o`."""
    b = '1' if o['varlen'] else '?'
    dt, K, V, HV = o['dtype'], o['K'], o['V'], o['HV']
    qk = f'tensor<{b}x?x{o["H"]}x{K}x{dt}>'
    v = f'tensor<{b}x?x{HV}x{V}x{dt}>'
    g = f'tensor<{b}x?x{HV}x{K}x{"f32" if o["gate"] == "precomputed" else dt}>'
    beta = f'tensor<{b}x?x{HV}x{dt if o["beta_sigmoid"] else "f32"}>'
    state = f'tensor<?x{HV}x{V}x{K}xf32>' if o['vk'] else f'tensor<?x{HV}x{K}x{V}xf32>'
    args = [('q', qk), ('k', qk), ('v', v), ('g', g), ('beta', beta)]
    operands = '%q, %k, %v, %g, %beta'
    attrs = []
    if o['gate'] != 'precomputed':
        args += [('A', f'tensor<{HV}xf32>'), ('dt', f'tensor<{HV}x{K}xf32>')]
        operands += ' a_log %A dt_bias %dt'
        attrs.append('gate_mode = #kda<gate_mode softplus>' if o['gate'] == 'softplus' else
                     'gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32')
    args.append(('h0', state))
    operands += ' initial_state %h0'
    if o['varlen']:
        args.append(('cu', 'tensor<?xi64>'))
        operands += ' cu_seqlens %cu'
    for key, attr in (('l2norm', 'use_qk_l2norm'), ('beta_sigmoid', 'use_beta_sigmoid'),
                      ('neg_eigval', 'allow_neg_eigval'), ('safe_gate', 'safe_gate')):
        if o[key]:
            attrs.append(attr)
    if o['vk']:
        attrs.append('state_layout = #kda<state_layout vk>')
    if o['scale'] is not None:
        attrs.append(f'scale = {o["scale"]} : f32')
    if o['chunk']:
        attrs.append(f'chunk_size = {o["chunk"]} : i64')
    signature = ', '.join(f'%{n}: {t}' for n, t in args)
    types = ', '.join(t for _, t in args)
    attr_text = (' {' + ', '.join(attrs) + '}') if attrs else ''
    return (f'func.func @{name}({signature}) -> ({v}, {state}) {{\n'
            f'  %o, %ht = kda.chunk_fwd {operands}{attr_text}\n'
            f'      : ({types}) -> ({v}, {state})\n'
            f'  return %o, %ht : {v}, {state}\n}}\n')


def shape(rng, o):
    """kda-run's shape and input flags for option set `o`."""
    flags = ['--heads', str(o['H']), '--value-heads', str(o['HV'])]
    if o['varlen']:
        flags += ['--batch', '1', '--seq-len', '150', '--cu-seqlens',
                  rng.choice(['0,0,1,1,64,65,150', '0,17,150', '0,150', '0,63,64,150'])]
    else:
        flags += ['--batch', str(rng.choice([1, 2])),
                  '--seq-len', str(rng.choice([1, 15, 16, 17, 63, 64, 65, 100, 130]))]
    if o['gate'] == 'precomputed' and rng.random() < 0.4:
        flags += ['--mask-p', '0.3']  # gates at -1000
    return flags


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--build', default='build')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--cases', type=int, default=20)
    parser.add_argument('--out')
    args = parser.parse_args()
    out = args.out or os.path.join(args.build, 'sweep-forward-options')
    os.makedirs(out, exist_ok=True)
    translate = os.path.join(args.build, 'bin', 'kda-translate')
    run = os.path.join(args.build, 'bin', 'kda-run')
    passed, failed = 0, []
    for i in range(args.cases):
        rng = random.Random(args.seed * 1000003 + i)
        o = options(rng)
        name = f'sweep_{args.seed}_{i}'
        src = os.path.join(out, name + '.mlir')
        with open(src, 'w') as fh:
            fh.write(program(name, o))
        # Compile options, from a generator of their own (the option sets
        # and shapes stay those of the seed without them).
        extra = random.Random(args.seed * 1000003 + i + 500009)
        approximate = ['--approximate-sigmoid=' + ('true' if extra.random() < 0.5 else 'false')]
        transposed = (['--tuning-override', 'chunk_recurrence.transpose_state=true']
                      if extra.random() < 0.5 else [])
        described = ' '.join(f'{k}={v}' for k, v in o.items())
        described += f' approximate_sigmoid={approximate[0].endswith("true")} transpose_state={bool(transposed)}'
        for form, form_flags in (('default', approximate),
                                 ('recurrent', RECURRENT + approximate + transposed)):
            bundle = os.path.join(out, f'{name}_{form}.kdab')
            compiled = subprocess.run([translate, src, '--kda-to-bundle', '--no-cubin',
                                       *form_flags, '-o', bundle],
                                      capture_output=True, text=True)
            if compiled.returncode:
                detail = (compiled.stderr.strip().splitlines() or ['?'])[0]
                command = f'{translate} {src} --kda-to-bundle --no-cubin {" ".join(form_flags)}'
            else:
                command = ' '.join([run, bundle, '--cpu', *shape(rng, o)])
                ran = subprocess.run(command.split(), capture_output=True, text=True)
                detail = ((ran.stdout.strip().splitlines() or ['(no output)'])[-1] + ' ' +
                          ran.stderr.strip()).strip()
            ok = not compiled.returncode and ran.returncode == 0 and detail.startswith('PASS')
            print(f'{"ok  " if ok else "FAIL"} {name} {form}: {described}: {detail[:160]}',
                  flush=True)
            if ok:
                passed += 1
            else:
                failed.append(command)
    for command in failed:
        print('failed: ' + command)
    print(f'{passed} passed, {len(failed)} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
