#!/usr/bin/env python3
"""Turns the CPU integration tests (test/Integration/CPU/*.mlir) into GPU
cases for scripts/gpu-check.sh: every program those tests compile is
compiled again for the GPU (PTX and cubin), and every `kda-run ... --cpu`
line that expects PASS becomes a case without --cpu. The GPU then runs
every stage (and the whole forward) on exactly the inputs that CI checks on
the CPU build, so a GPU-only defect shows up at the stage that has it.

  scripts/make-stage-bundles.py [BUILD_DIR] [OUT_DIR]

OUT_DIR (default BUILD_DIR/stage-bundles) gets src/*.mlir, *.kdab and
cases.txt. Lines under `not kda-run` (the injected-error checks) are left
out: gpu-check.sh counts only cases that must pass. KDA_TRANSLATE_FLAGS
(space-separated, e.g. --assign-register-layouts) is added to every
kda-translate command. KDA_STAGE_TESTS (comma-separated test file names,
e.g. chunk-fwd-fuse-recurrence.mlir) limits the run to those tests.
"""
import os
import re
import shlex
import subprocess
import sys

if len(sys.argv) > 3 or any(a.startswith('-') for a in sys.argv[1:]):
    # Positional arguments only: print the usage instead of taking an
    # option for a directory.
    sys.exit(__doc__)
build = sys.argv[1] if len(sys.argv) > 1 else 'build'
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(build, 'stage-bundles')
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tests = os.path.join(root, 'test', 'Integration', 'CPU')
translate = os.path.join(build, 'bin', 'kda-translate')
if not os.access(translate, os.X_OK):
    sys.exit(f'{translate} not found: build the compiler first (make build), '
             'or name its build directory as the first argument')
os.makedirs(os.path.join(out, 'src'), exist_ok=True)


def split_sections(text):
    """The split-file sections of a test: {file name: text}."""
    sections, name, lines = {}, None, []
    for line in text.splitlines(keepends=True):
        m = re.match(r'^//--- (\S+)', line)
        if m:
            if name:
                sections[name] = ''.join(lines)
            name, lines = m.group(1), []
        elif name:
            lines.append(line)
    if name:
        sections[name] = ''.join(lines)
    return sections


only = [t for t in os.environ.get('KDA_STAGE_TESTS', '').split(',') if t]
unknown = [t for t in only if not os.path.isfile(os.path.join(tests, t))]
if unknown:
    sys.exit('make-stage-bundles.py: KDA_STAGE_TESTS names no test in %s: %s'
             % (tests, ', '.join(unknown)))

cases = []
count = 0
for test in sorted(os.listdir(tests)):
    if not test.endswith('.mlir') or (only and test not in only):
        continue
    stem = test[:-len('.mlir')].replace('-', '_')
    path = os.path.join(tests, test)
    text = open(path).read()
    sections = split_sections(text)
    runs = [l[len('// RUN:'):].strip() for l in text.splitlines() if l.startswith('// RUN:')]
    bundles = {}  # the test's bundle path (%t/x.kdab or %t.kdab) -> our bundle file
    for run in runs:
        args = shlex.split(run.split('|')[0])
        if args[0] != 'kda-translate' or '--kda-to-bundle' not in args:
            continue
        src_arg, bundle_arg = args[1], args[args.index('-o') + 1]
        if src_arg == '%s':
            source = text
        elif src_arg.startswith('%t/'):
            source = sections[src_arg[3:]]
        elif src_arg.startswith('%kda_src_root/'):
            source = open(os.path.join(root, src_arg[len('%kda_src_root/'):])).read()
        else:
            sys.exit(f'{test}: cannot read the source of `{run}`')
        base = bundle_arg.replace('%t/', '').replace('%t', 'main').replace('.kdab', '')
        name = f'{stem}__{base}'
        src = os.path.join(out, 'src', name + '.mlir')
        with open(src, 'w') as fh:
            fh.write(source)
        # The test's kda-translate flags, with their values (--chunk-size
        # 16), less the output and the build parts.
        extra, rest = [], args[2:]
        while rest:
            if rest[0] == '-o':
                rest = rest[2:]
                continue
            if rest[0] not in ('--kda-to-bundle', '--no-cubin', '--no-cpu'):
                extra.append(rest[0])
            rest = rest[1:]
        extra += os.environ.get('KDA_TRANSLATE_FLAGS', '').split()
        subprocess.run([translate, src, '--kda-to-bundle', '--no-cpu', *extra, '-o',
                        os.path.join(out, name + '.kdab')], check=True)
        bundles[bundle_arg] = name + '.kdab'
        count += 1
    for run in runs:
        args = shlex.split(run.split('|')[0])
        if args[0] != 'kda-run' or '--cpu' not in args or '--inject-error' in args:
            continue
        if args[1] not in bundles:
            sys.exit(f'{test}: no bundle for `{run}`')
        flags = [a for a in args[2:] if a != '--cpu']
        cases.append(' '.join([bundles[args[1]], *flags]))

with open(os.path.join(out, 'cases.txt'), 'w') as fh:
    fh.write('\n'.join(cases) + '\n')
print(f'wrote {count} bundles and {len(cases)} cases to {out}')
