"""ctypes binding of the runtime's C API (kda_runtime.h, kda_forward.h).

The shared library is found, in order, at $KDA_RUNTIME_LIBRARY, next to this
package (an installed copy: kda/lib/libkda_runtime.so), and in the build
tree this package sits in (build/lib/libkda_runtime.so).
"""
import ctypes
import os

KDA_MAX_RANK = 8

STATUS_NAMES = {
    0: 'ok', 1: 'invalid argument', 2: 'invalid bundle', 3: 'unsupported ABI',
    4: 'driver not found', 5: 'no device', 6: 'CUDA error', 7: 'I/O error',
    8: 'unsupported', 9: 'internal error',
}
KDA_ERROR_INVALID_ARGUMENT = 1

# kda_dtype
F32, F16, BF16, I32, I64 = 0, 1, 2, 3, 4


class Tensor(ctypes.Structure):
    """kda_tensor: rank 0 means "not passed"."""
    _fields_ = [('data', ctypes.c_void_p), ('dtype', ctypes.c_int32),
                ('rank', ctypes.c_int32),
                ('dims', ctypes.c_int64 * KDA_MAX_RANK),
                ('strides', ctypes.POINTER(ctypes.c_int64))]


class ForwardTensors(ctypes.Structure):
    """kda_forward_tensors."""
    _fields_ = [(name, Tensor) for name in
                ('q', 'k', 'v', 'g', 'beta', 'a_log', 'dt_bias',
                 'initial_state', 'cu_seqlens', 'o', 'final_state')] + [
                    ('cu_seqlens_host', ctypes.POINTER(ctypes.c_int64))]


class RuntimeError_(RuntimeError):
    """A failed runtime call: the status name and the runtime's message."""

    def __init__(self, status, message):
        super().__init__('%s: %s' % (STATUS_NAMES.get(status, status), message))
        self.status = status


def _candidates():
    env = os.environ.get('KDA_RUNTIME_LIBRARY')
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, 'lib', 'libkda_runtime.so')
    # python/kda in a source tree whose build directory is build/.
    root = os.path.dirname(os.path.dirname(here))
    yield os.path.join(root, 'build', 'lib', 'libkda_runtime.so')


_lib = None
_lib_path = None


def library_path():
    """The path of the runtime library (after library() loaded it)."""
    library()
    return _lib_path


def library():
    """The loaded runtime library (loaded on first use)."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    tried = []
    for path in _candidates():
        if os.path.exists(path):
            _lib = ctypes.CDLL(path)
            _lib_path = os.path.abspath(path)
            break
        tried.append(path)
    if _lib is None:
        raise ImportError('libkda_runtime.so not found (set KDA_RUNTIME_LIBRARY); '
                          'tried: ' + ', '.join(tried))
    lib = _lib
    lib.kda_last_error.restype = ctypes.c_char_p
    lib.kda_forward_default_program.argtypes = [
        ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.kda_forward_default_names.restype = ctypes.c_char_p
    lib.kda_forward_workspace_size.argtypes = [
        ctypes.c_void_p, ctypes.POINTER(ForwardTensors),
        ctypes.POINTER(ctypes.c_size_t)]
    lib.kda_forward.argtypes = [ctypes.c_void_p, ctypes.POINTER(ForwardTensors),
                                ctypes.c_void_p, ctypes.c_size_t,
                                ctypes.c_void_p]
    lib.kda_forward_cpu.argtypes = [ctypes.c_void_p,
                                    ctypes.POINTER(ForwardTensors),
                                    ctypes.c_void_p, ctypes.c_size_t]
    lib.kda_program_destroy.argtypes = [ctypes.c_void_p]
    lib.kda_program_destroy.restype = None
    lib.kda_program_load.argtypes = [ctypes.c_char_p,
                                     ctypes.POINTER(ctypes.c_void_p)]
    return lib


def check(status):
    """Raises RuntimeError_ with the runtime's message for a failed call."""
    if status != 0:
        message = library().kda_last_error().decode('utf-8', 'replace')
        raise RuntimeError_(status, message)


_programs = {}


def default_program(name):
    """The embedded default bundle `name`, loaded once per process."""
    if name not in _programs:
        handle = ctypes.c_void_p()
        check(library().kda_forward_default_program(name.encode(),
                                                   ctypes.byref(handle)))
        _programs[name] = handle
    return _programs[name]


def load_program(path):
    """The bundle file `path`, loaded (kept for the process's lifetime)."""
    handle = ctypes.c_void_p()
    check(library().kda_program_load(os.fsencode(path), ctypes.byref(handle)))
    return handle


_names = None


def default_names():
    """The names of the library's default bundles (read once)."""
    global _names
    if _names is not None:
        return _names
    names = library().kda_forward_default_names().decode()
    unique = []
    for name in (n.strip() for n in names.split(',')):
        if name and name not in unique:
            unique.append(name)
    _names = unique
    return unique
