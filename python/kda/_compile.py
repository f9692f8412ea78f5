"""Bundles compiled on demand: a call that no embedded default bundle
covers is compiled with kda-translate, when the compiler is installed, and
the bundle is cached on disk for later calls and other processes.

A bundle's file name is the hash of its program text and the
kda-translate flags ($KDA_TRANSLATE_FLAGS), `<key>.kdab`. Bundles are looked
up, in order, in the directories of $KDA_BUNDLE_PATH (separated like PATH:
bundles compiled elsewhere, for machines without the compiler), then in the
cache. The cache lives in $KDA_CACHE_DIR (default $XDG_CACHE_HOME/kda, else
~/.cache/kda), under a directory named after the cache format version and
then one per compiler and runtime library (the hash of their paths, sizes
and modification times), so a rebuilt compiler or runtime never reuses an
old bundle; `cache_dir()` is that directory, ready to be copied to another
machine and listed in its $KDA_BUNDLE_PATH. A bundle is written to a
temporary file and renamed into place, so processes compiling the same key
at once each leave a whole file. kda-translate is $KDA_TRANSLATE, else the
one of the build tree the runtime library comes from (build/bin), else the
first on PATH; KDA_TRANSLATE=0 turns compiling off. $KDA_TRANSLATE_FLAGS
(split like a shell command line, e.g. "--fuse-recurrence=false") is added
to every kda-translate call; while it is set, every call kda-translate can
compile is compiled with it, the embedded default bundles (built without
it) aside.
"""
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile

from . import _capi

# Bumped when the program text or the cache layout changes meaning.
CACHE_FORMAT = 'v2'


def translator():
    """The kda-translate to compile with, or None."""
    env = os.environ.get('KDA_TRANSLATE')
    if env is not None:
        if env in ('', '0'):
            return None
        return env if os.access(env, os.X_OK) else None
    lib = _capi.library_path()
    if lib:
        build = os.path.dirname(os.path.dirname(lib))
        candidate = os.path.join(build, 'bin', 'kda-translate')
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which('kda-translate')


def translate_flags():
    """The flags $KDA_TRANSLATE_FLAGS adds to every kda-translate call."""
    return shlex.split(os.environ.get('KDA_TRANSLATE_FLAGS', ''))


def cache_root():
    """The directory every compiler's bundles are cached under."""
    root = os.environ.get('KDA_CACHE_DIR')
    if not root:
        base = os.environ.get('XDG_CACHE_HOME') or os.path.join(
            os.path.expanduser('~'), '.cache')
        root = os.path.join(base, 'kda')
    return os.path.join(root, CACHE_FORMAT)


def cache_dir(tool=None):
    """The directory that bundles compiled by `tool` (default: translator())
    for this runtime library are cached in, or None without a compiler."""
    tool = tool or translator()
    if tool is None:
        return None
    compiler = hashlib.sha256('\n'.join(
        [_identity(tool), _identity(_capi.library_path() or '')]).encode())
    return os.path.join(cache_root(), compiler.hexdigest()[:16])


def bundle_path():
    """The directories of $KDA_BUNDLE_PATH, searched before the cache."""
    return [d for d in os.environ.get('KDA_BUNDLE_PATH', '').split(os.pathsep)
            if d]


def program_key(text, flags=None):
    """A program's bundle name without `.kdab`: the hash of the cache
    format, the kda-translate flags (default: translate_flags()) and the
    program text."""
    flags = translate_flags() if flags is None else flags
    return hashlib.sha256('\n'.join(
        [CACHE_FORMAT, ' '.join(flags), text]).encode()).hexdigest()[:32]


_MLIR_TYPES = {'torch.float32': 'f32', 'torch.float16': 'f16',
               'torch.bfloat16': 'bf16'}


def _element(t):
    name = str(t.dtype)
    if name not in _MLIR_TYPES:
        raise NotImplementedError('dtype %s has no kernels' % t.dtype)
    return _MLIR_TYPES[name]


def program_text(q, v, g, beta, scale, flags, A_log=None, dt_bias=None):
    """A kda.chunk_fwd program for a call with fla's options `flags` (as
    _chunk.call_flags names them), with an initial and a final state; batch,
    tokens and head counts dynamic. With use_gate_in_kernel the gate is
    computed from the raw `g` (gate_mode lower_bound when `lower_bound` is
    given, else softplus) with `A_log` and `dt_bias` when the call passes
    them; the other in-kernel options map to the op's attributes of the
    same meaning (docs/python.md)."""
    K, V = q.shape[-1], v.shape[-1]
    varlen = flags['cu_seqlens']
    b = '1' if varlen else '?'
    qk = 'tensor<%sx?x?x%dx%s>' % (b, K, _element(q))
    vt = 'tensor<%sx?x?x%dx%s>' % (b, V, _element(v))
    gt = 'tensor<%sx?x?x%dx%s>' % (b, K, _element(g))
    bt = 'tensor<%sx?x?x%s>' % (b, _element(beta))
    st = 'tensor<?x?x%dx%dxf32>' % ((V, K) if flags['state_v_first'] else (K, V))
    args = ['%%q: %s' % qk, '%%k: %s' % qk, '%%v: %s' % vt, '%%g: %s' % gt,
            '%%beta: %s' % bt]
    types = [qk, qk, vt, gt, bt]
    operands = '%q, %k, %v, %g, %beta'
    attrs = []
    if flags['use_gate_in_kernel']:
        for name, t, operand in (('A', A_log, 'a_log'), ('dt', dt_bias, 'dt_bias')):
            if t is None:
                continue
            shape = 'x'.join(str(n) for n in t.shape)
            args.append('%%%s: tensor<%sx%s>' % (name, shape, _element(t)))
            types.append('tensor<%sx%s>' % (shape, _element(t)))
            operands += ' %s %%%s' % (operand, name)
        if flags['lower_bound'] is not None:
            attrs.append('gate_mode = #kda<gate_mode lower_bound>')
            attrs.append('lower_bound = %.9e : f32' % flags['lower_bound'])
        else:
            attrs.append('gate_mode = #kda<gate_mode softplus>')
    args.append('%%h0: %s' % st)
    types.append(st)
    operands += ' initial_state %h0'
    if varlen:
        args.append('%cu: tensor<?xi64>')
        types.append('tensor<?xi64>')
        operands += ' cu_seqlens %cu'
    if scale is not None:
        attrs.append('scale = %.9e : f32' % scale)
    for flag, attr in (('use_qk_l2norm_in_kernel', 'use_qk_l2norm'),
                       ('use_beta_sigmoid_in_kernel', 'use_beta_sigmoid'),
                       ('allow_neg_eigval', 'allow_neg_eigval'),
                       ('safe_gate', 'safe_gate')):
        if flags[flag]:
            attrs.append(attr)
    if flags['state_v_first']:
        attrs.append('state_layout = #kda<state_layout vk>')
    attr_text = ' {%s}' % ', '.join(attrs) if attrs else ''
    return ('func.func @fwd(%s) -> (%s, %s) {\n'
            '  %%o, %%ht = kda.chunk_fwd %s%s\n'
            '      : (%s) -> (%s, %s)\n'
            '  return %%o, %%ht : %s, %s\n}\n' %
            (', '.join(args), vt, st, operands, attr_text, ', '.join(types),
             vt, st, vt, st))


def _identity(path):
    try:
        info = os.stat(path)
        return '%s:%d:%d' % (path, info.st_size, info.st_mtime_ns)
    except OSError:
        return path


_loaded = {}


def _load(path):
    """The program of the bundle file `path`, loaded once per process."""
    program = _loaded.get(path)
    if program is None:
        program = _capi.load_program(path)
        _loaded[path] = program
    return program


def compiled_program(text, key):
    """The loaded bundle of `text`: found in $KDA_BUNDLE_PATH, else compiled
    (or found in the cache) with kda-translate; raises NotImplementedError
    naming `key` when there is no bundle and no compiler, or the compiler
    rejects the program."""
    flags = translate_flags()
    name = program_key(text, flags) + '.kdab'
    for directory in bundle_path():
        path = os.path.join(directory, name)
        if os.path.exists(path):
            return _load(path)
    tool = translator()
    if tool is None:
        raise NotImplementedError(
            'kda.chunk_kda: no kernel bundle for this call (key: %s): the '
            'library has %s, KDA_BUNDLE_PATH has no %s, and there is no '
            'kda-translate to compile one (set KDA_TRANSLATE)' %
            (key, ', '.join(_capi.default_names()) or 'none', name))
    directory = cache_dir(tool)
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        os.makedirs(directory, exist_ok=True)
        fd, source = tempfile.mkstemp(suffix='.mlir', dir=directory)
        with os.fdopen(fd, 'w') as fh:
            fh.write(text)
        fd, partial = tempfile.mkstemp(suffix='.kdab.tmp', dir=directory)
        os.close(fd)
        try:
            done = subprocess.run(
                [tool, source, '--kda-to-bundle', '-o', partial] + flags,
                capture_output=True, text=True)
            if done.returncode != 0:
                raise NotImplementedError(
                    'kda.chunk_kda: kda-translate could not compile a bundle '
                    'for this call (key: %s): %s' %
                    (key, ' | '.join(done.stderr.strip().splitlines()[:3])))
            os.replace(partial, path)
        finally:
            for leftover in (source, partial):
                if os.path.exists(leftover):
                    os.remove(leftover)
    return _load(path)
