#!/usr/bin/env python3
"""Mutation fuzzer of the compiler's front end: kda-opt and kda-translate.

    scripts/fuzz-frontend.py [--build DIR] [--seed N] [--seconds S] [--runs N]
                             [--jobs N] [--timeout S] [--out DIR] [--verbose]
    scripts/fuzz-frontend.py --build DIR --minimize FILE -- TOOL ARGS...

Seeds are the chunks (split at `// -----`) of every test/**/*.mlir and
examples/*.mlir (but modules of more than 3 whole forwards, which take 40 s
of CPU time through the PTX pipeline unchanged). Each mutant is a seed chunk with one to three mutations:
a number set to 0, 1, -1, a power of two or a huge value; a shape dimension
set to 0, 1, ?, 17, 256 or huge; an element type swapped (f32, f16, bf16,
i1, i32, i64, index); a line deleted, duplicated or swapped with another; an
attribute deleted; an enum value or a keyword swapped for another. It is run
through one of: kda-opt (parse and verify), kda-opt with
--kda-to-linalg-pipeline, --kda-to-cpu-pipeline or --kda-to-ptx-pipeline,
and kda-translate --kda-to-bundle --no-cubin --no-cpu, with a CPU-time limit
(--timeout, default 20 s) and an address-space limit (4 GiB) per run.

A run fails when the tool dies on a signal, runs past --timeout seconds of
CPU time (or three times that plus 30 s of wall time), is stopped by the
memory limit, prints "LLVM ERROR", "PLEASE submit a bug
report", "Stack dump", an assertion, or exits non-zero without an "error:"
diagnostic. Every other outcome (success, or an error diagnostic) passes.
Mutant i depends only on the seed and i, so a run is repeated exactly by its
seed; failing inputs are written to --out (default BUILD/fuzz-frontend) with
the command in their first line. The last lines are "N passed, M failed".

--minimize FILE -- TOOL ARGS... deletes lines of FILE (the input is appended
to the command as its last argument) while the command still fails the same
way, and prints what is left.
"""

import argparse
import concurrent.futures
import glob
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CRASH_MARKERS = ["LLVM ERROR", "PLEASE submit a bug report", "Stack dump",
                 "Assertion `", "UNREACHABLE executed", "terminate called",
                 "Segmentation fault", "AddressSanitizer", "runtime error:"]
MEMORY_LIMIT = 4 << 30

NUMBERS = ["0", "1", "-1", "2", "3", "7", "16", "17", "31", "33", "64", "128",
           "255", "256", "1024", "4096", "65536", "2147483647", "2147483648",
           "4294967296", "9223372036854775807", "-9223372036854775808"]
DIMS = ["0", "1", "?", "2", "17", "256", "1024", "4294967296",
        "9223372036854775807"]
TYPES = ["f32", "f16", "bf16", "f64", "i1", "i8", "i32", "i64", "index"]
WORD_GROUPS = [
    ["precomputed", "softplus", "lower_bound"],
    ["kv", "vk"],
    ["tf32", "tf32x3", "ieee"],
    ["true", "false"],
    ["input", "output"],
    ["workgroup", "default"],
    ["tensor", "memref", "vector"],
    ["tile.load", "tile.store"],
    ["arith.addf", "arith.mulf", "arith.subf", "arith.divf", "arith.maximumf"],
    ["scf.for", "scf.if"],
]

# Crashes of MLIR itself (libMLIR, not this project) that a mutant can
# reach; such mutants are counted and not run. `array<index: ...>`: the
# parser of dense array attributes asks `index` for its bit width and
# segfaults (mlir-opt 22 does the same).
KNOWN_UPSTREAM = [re.compile(r"array<\s*index\s*:")]

CONFIGS = [
    ("verify", ["kda-opt"]),
    ("linalg", ["kda-opt", "--kda-to-linalg-pipeline"]),
    ("cpu", ["kda-opt", "--kda-to-cpu-pipeline"]),
    ("ptx", ["kda-opt", "--kda-to-ptx-pipeline"]),
    ("bundle", ["kda-translate", "--kda-to-bundle", "--no-cubin", "--no-cpu",
                "-o", "/dev/null"]),
]


def corpus_chunks():
    files = sorted(glob.glob(os.path.join(ROOT, "test", "**", "*.mlir"),
                             recursive=True))
    files += sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir")))
    chunks = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        rel = os.path.relpath(path, ROOT)
        for i, chunk in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
            lines = [l for l in chunk.splitlines()
                     if not l.lstrip().startswith("//")]
            body = "\n".join(lines).strip()
            # A module of many whole forwards (the CPU grid test) takes
            # 40 s of CPU time through the PTX pipeline as it is: a slow
            # seed, not a finding.
            if body.count("kda.chunk_fwd") > 3:
                continue
            if body:
                # Chunks of the error tests are invalid already: mutants of
                # valid programs go deeper, so they are drawn 4 times as often.
                weight = 1 if re.search(r"invalid|error", rel) else 4
                chunks.append(("%s#%d" % (rel, i), body + "\n", weight))
    return chunks


def _replace_match(rng, text, pattern, choices, group=0):
    matches = list(re.finditer(pattern, text))
    if not matches:
        return None
    m = rng.choice(matches)
    return text[:m.start(group)] + rng.choice(choices) + text[m.end(group):]


def mutate_once(rng, text):
    """One mutation; (name, new text) or None when it does not apply."""
    # Mutations that keep the text parseable more often than not weigh more:
    # most line edits end at the parser.
    kind = rng.choices(range(9), weights=[3, 4, 2, 1, 1, 1, 2, 3, 2])[0]
    if kind == 0:
        out = _replace_match(rng, text, r"(?<![\w.%#@^])\d+(?![\w.])", NUMBERS)
        return out and ("number", out)
    if kind == 1:
        # A dimension of a shaped type: 64 in tensor<64x128xf32>.
        out = _replace_match(rng, text, r"(?<=[<x])(\d+|\?)(?=x)", DIMS)
        return out and ("dimension", out)
    if kind == 2:
        out = _replace_match(rng, text, r"\b(f16|bf16|f32|f64|i1|i8|i32|i64|index)\b",
                             TYPES)
        return out and ("type", out)
    lines = text.splitlines(keepends=True)
    if kind == 3 and len(lines) > 1:
        del lines[rng.randrange(len(lines))]
        return "delete-line", "".join(lines)
    if kind == 4 and lines:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines.insert(j, lines[i])
        return "duplicate-line", "".join(lines)
    if kind == 5 and len(lines) > 2:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return "swap-lines", "".join(lines)
    if kind == 6:
        # An attribute `name = value` of an attribute dictionary.
        matches = list(re.finditer(r"(?<=[{,])\s*\w+\s*=\s*[^,{}]+(,|(?=}))", text))
        if not matches:
            return None
        m = rng.choice(matches)
        return "delete-attribute", text[:m.start()] + text[m.end():]
    if kind == 7:
        groups = [g for g in WORD_GROUPS
                  if any(re.search(r"\b%s\b" % re.escape(w), text) for w in g)]
        if not groups:
            return None
        g = rng.choice(groups)
        present = [w for w in g if re.search(r"\b%s\b" % re.escape(w), text)]
        out = _replace_match(rng, text, r"\b(%s)\b" % re.escape(rng.choice(present)),
                             g)
        return out and ("keyword", out)
    if kind == 8:
        # An integer attribute value set to an extreme (sizes, tiles, warps).
        out = _replace_match(rng, text, r"=\s*(-?\d+)(?=\s*:\s*i(32|64))",
                             ["0", "-1", "1", "3", "100000", "2147483647",
                              "9223372036854775807"], group=1)
        return out and ("int-attribute", out)
    return None


def make_mutant(seed, index, chunks):
    rng = random.Random(seed * 1000003 + index)
    name, text, _ = rng.choices(chunks, weights=[c[2] for c in chunks])[0]
    recipe = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        for _attempt in range(8):
            r = mutate_once(rng, text)
            if r:
                recipe.append(r[0])
                text = r[1]
                break
    config = rng.choice(CONFIGS)
    return name, recipe, config, text


def classify(command, path, timeout):
    """(failure reason or None, output, exit status). `timeout` limits the
    CPU time (RLIMIT_CPU: the same on a loaded machine as on an idle one);
    a run that waits instead (3 timeouts + 30 s of wall time) fails too."""
    cpu = max(1, int(timeout))

    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    try:
        p = subprocess.run(command + [path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=3 * cpu + 30,
                           preexec_fn=limits)
    except subprocess.TimeoutExpired as e:
        return ("timeout (%d s of wall time)" % (3 * cpu + 30),
                (e.stderr or b"").decode(errors="replace"), None)
    err = p.stderr.decode(errors="replace")
    if p.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return "timeout (%d s of CPU time)" % cpu, err, p.returncode
    if p.returncode < 0:
        return "signal %d" % -p.returncode, err, p.returncode
    for marker in CRASH_MARKERS:
        if marker in err:
            if "out of memory" in err or "Cannot allocate memory" in err or \
               "std::bad_alloc" in err:
                return ("out of memory (%d GiB limit)" % (MEMORY_LIMIT >> 30),
                        err, p.returncode)
            return marker, err, p.returncode
    if p.returncode != 0 and "error:" not in err:
        return "exit %d without a diagnostic" % p.returncode, err, p.returncode
    return None, err, p.returncode


def tool_command(build, config):
    tool = os.path.join(build, "bin", config[1][0])
    cmd = [tool] + config[1][1:]
    if config[1][0] == "kda-opt":
        cmd.append("--mlir-disable-threading")
    return cmd


def minimize(build, path, command, timeout):
    with open(path) as f:
        lines = f.read().splitlines(keepends=True)
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.mlir")

        def reason(ls):
            with open(probe, "w") as f:
                f.write("".join(ls))
            return classify(command, probe, timeout)[0]

        target = reason(lines)
        if not target:
            sys.exit("minimize: the input does not fail")
        print("minimize: failure '%s', %d lines" % (target, len(lines)),
              file=sys.stderr)
        step = max(1, len(lines) // 2)
        while step >= 1:
            i, changed = 0, False
            while i < len(lines):
                candidate = lines[:i] + lines[i + step:]
                if candidate and reason(candidate) == target:
                    lines, changed = candidate, True
                else:
                    i += step
            if not changed:
                step //= 2
        sys.stdout.write("".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--runs", type=int, default=0, help="0: until --seconds")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=20,
                    help="CPU seconds per run")
    ap.add_argument("--out")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--minimize")
    ap.add_argument("command", nargs="*")
    args = ap.parse_args()

    if args.minimize:
        if not args.command:
            sys.exit("--minimize needs -- TOOL ARGS...")
        minimize(args.build, args.minimize, args.command, args.timeout)
        return 0

    out_dir = args.out or os.path.join(args.build, "fuzz-frontend")
    os.makedirs(out_dir, exist_ok=True)
    chunks = corpus_chunks()
    start = time.monotonic()
    deadline = start + args.seconds if args.seconds > 0 else None
    failures, passed, accepted, upstream, slowest = [], 0, 0, 0, (0.0, "")

    def work(index):
        name, recipe, config, text = make_mutant(args.seed, index, chunks)
        if any(p.search(text) for p in KNOWN_UPSTREAM):
            return index, config[0], name, recipe, None, 0.0, "upstream"
        command = tool_command(args.build, config)
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", dir=out_dir,
                                         delete=False) as f:
            f.write(text)
            path = f.name
        t0 = time.monotonic()
        try:
            reason, err, status = classify(command, path, args.timeout)
        finally:
            elapsed = time.monotonic() - t0
        if reason:
            keep = os.path.join(out_dir, "failure-%d-%d.mlir" % (args.seed, index))
            with open(keep, "w") as f:
                f.write("// %s %s\n// mutant %d of %s: %s\n// %s\n%s" % (
                    " ".join(os.path.basename(c) if i == 0 else c
                             for i, c in enumerate(command)),
                    "FILE", index, name, ",".join(recipe), reason, text))
            last = [l for l in err.splitlines() if l.strip()][-3:]
            reason_line = "%s: %s (mutant %d of %s: %s) -> %s\n  %s" % (
                config[0], reason, index, name, ",".join(recipe), keep,
                "\n  ".join(last))
        else:
            reason_line = None
        os.unlink(path)
        return index, config[0], name, recipe, reason_line, elapsed, status

    index = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        pending = set()
        while True:
            stop = (args.runs and index >= args.runs) or \
                   (deadline and time.monotonic() >= deadline)
            while not stop and len(pending) < 2 * args.jobs:
                pending.add(pool.submit(work, index))
                index += 1
                stop = args.runs and index >= args.runs
            if not pending:
                break
            done, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in done:
                i, config, name, recipe, reason_line, elapsed, status = fut.result()
                accepted += status == 0
                if status == "upstream":
                    upstream += 1
                    continue
                if elapsed > slowest[0]:
                    slowest = (elapsed, "mutant %d (%s, %s)" % (i, config, name))
                if reason_line:
                    failures.append((i, reason_line))
                    print("FAIL " + reason_line, flush=True)
                else:
                    passed += 1
                    if args.verbose:
                        print("ok %d %s %s %s (%.2f s)" % (i, config, name,
                                                           ",".join(recipe), elapsed))
    total = time.monotonic() - start
    print("fuzz-frontend: seed %d, %d mutants in %.1f s (%d jobs; %d compiled, "
          "the others rejected with a diagnostic or failed), slowest %.2f s: %s"
          % (args.seed, passed + len(failures), total, args.jobs, accepted,
             slowest[0], slowest[1]))
    if upstream:
        print("fuzz-frontend: %d mutants not run: they reach a known crash "
              "of MLIR itself (KNOWN_UPSTREAM)" % upstream)
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
