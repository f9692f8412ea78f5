#!/usr/bin/env python3
"""Where a kernel's instructions and stalls go, from Nsight Compute's
per-instruction (SASS) source counters.

  scripts/sass-profile.py SOURCE.csv [--kernel SUBSTRING] [--list [MIN_SAMPLES]]

SOURCE.csv is what `ncu -i REPORT --page source --csv --print-source sass`
prints for a report collected with `--section SourceCounters --section
WarpStateStats` (scripts/gpu-profile.sh writes it when GPU_PROFILE_SOURCE
names a file). For each kernel (or those whose name contains SUBSTRING) it
prints:

  - the instructions executed and the warp-state samples, in total;
  - groups of instructions by how many times each ran (the instructions of
    one loop body run equally often, so each group is a loop nest level or
    a branch), with their share of the executed instructions and of the
    samples: the code that a loop runs N times per warp shows as N times
    the count of the straight-line code;
  - the opcodes by executed share and sample share;
  - the stall reasons of all samples.

With --list, every instruction with at least MIN_SAMPLES samples (default
0), in address order: index, times executed, samples, the SASS text and its
two main stall reasons.
"""
import argparse
import collections
import csv
import sys


def read_kernels(path):
    """{kernel name: [row dict, ...]} in file order."""
    kernels = collections.OrderedDict()
    name, header = None, None
    with open(path, newline='') as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == 'Kernel Name':
                name, header = row[1], None
                kernels.setdefault(name, [])
            elif row[0] == 'Address':
                header = row
            elif name is not None and header is not None:
                kernels[name].append(dict(zip(header, row)))
    return kernels


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def opcode(source):
    words = source.split()
    if words and words[0].startswith('@'):
        words = words[1:]
    return words[0].split('.')[0] if words else ''


def stall_columns(row):
    return [k for k in row if k.startswith('stall_') and '(Not Issued)' not in k]


def summarize(name, rows, list_min):
    executed = [number(r.get('Instructions Executed')) for r in rows]
    samples = [number(r.get('Warp Stall Sampling (All Samples)')) for r in rows]
    total_exec, total_samples = sum(executed), sum(samples)
    print(f'== {name}')
    print(f'   {len(rows)} instructions, {total_exec:.0f} executed (warp level), '
          f'{total_samples:.0f} samples')
    if not rows or total_exec == 0:
        return
    pct = lambda part, whole: 100.0 * part / whole if whole else 0.0

    groups = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for e, s in zip(executed, samples):
        if e > 0:
            g = groups[e]
            g[0] += 1
            g[1] += e
            g[2] += s
    print('   by times executed (each group: a loop level or a branch):')
    for count, (n, e, s) in sorted(groups.items(), key=lambda kv: -kv[1][1])[:12]:
        print(f'     {count:14.0f} x {n:5d} instructions: {pct(e, total_exec):5.1f} % '
              f'executed, {pct(s, total_samples):5.1f} % samples')

    ops_exec, ops_samples = collections.Counter(), collections.Counter()
    for r, e, s in zip(rows, executed, samples):
        op = opcode(r.get('Source', ''))
        ops_exec[op] += e
        ops_samples[op] += s
    print('   opcodes (executed %, samples %):')
    line = []
    for op, e in ops_exec.most_common(24):
        line.append(f'{op} {pct(e, total_exec):.1f}/{pct(ops_samples[op], total_samples):.1f}')
    for i in range(0, len(line), 6):
        print('     ' + ', '.join(line[i:i + 6]))

    stalls = collections.Counter()
    for r in rows:
        for k in stall_columns(r):
            stalls[k[len('stall_'):]] += number(r[k])
    print('   stall reasons (% of samples): ' + ', '.join(
        f'{k} {pct(v, total_samples):.1f}' for k, v in stalls.most_common(10) if v))

    if list_min is not None:
        for i, (r, e, s) in enumerate(zip(rows, executed, samples)):
            if s < list_min:
                continue
            top = sorted(((number(r[k]), k[len('stall_'):]) for k in stall_columns(r)),
                         reverse=True)[:2]
            why = ' '.join(f'{k}:{v:.0f}' for v, k in top if v)
            print(f'{i:6d} {e:12.0f} {s:7.0f}  {r.get("Source", "").strip()[:72]:72s} {why}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('csv')
    parser.add_argument('--kernel', default='')
    parser.add_argument('--list', nargs='?', type=float, const=0.0, default=None,
                        metavar='MIN_SAMPLES')
    args = parser.parse_args()
    kernels = read_kernels(args.csv)
    chosen = [k for k in kernels if args.kernel in k]
    if not chosen:
        sys.exit(f'no kernel matching {args.kernel!r} in {args.csv} '
                 f'(kernels: {", ".join(kernels) or "none"})')
    for name in chosen:
        summarize(name, kernels[name], args.list)


if __name__ == '__main__':
    main()
