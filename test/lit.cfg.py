# -*- Python -*-
# lit configuration of the kda regression tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "KDA"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kda_obj_root, "test")
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

llvm_config.use_default_substitutions()
config.substitutions.append(("%kda_src_root", config.kda_src_root))
config.substitutions.append(("%kda_obj_root", config.kda_obj_root))

# KDA_OPT_CHECK_ROUNDTRIP=1 makes every kda-opt run also check that the
# printed IR parses back to the same IR.
kda_opt = "kda-opt"
if os.environ.get("KDA_OPT_CHECK_ROUNDTRIP") == "1":
    kda_opt = "kda-opt --verify-roundtrip"

tool_dirs = [config.kda_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("kda-opt", command=os.path.join(config.kda_tools_dir, "kda-opt"),
              extra_args=kda_opt.split()[1:]),
    "kda-translate",
    "kda-reference-test",
    "kda-run",
    "kda-runtime-test",
    "kda-bundle-fuzz",
    "mlir-opt",
    "mlir-runner",
    "not",
    "count",
    "split-file",
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# kda-run (built with the runtime, KDA_ENABLE_RUNTIME) runs the CPU build of
# a bundle against the float64 reference: the CPU numerics tier.
if os.path.exists(os.path.join(config.kda_tools_dir, "kda-run")):
    config.available_features.add("kda-run")

# Tier: PTX assembles (needs ptxas from a CUDA toolkit; no GPU needed).
if config.ptxas_executable and os.path.exists(config.ptxas_executable):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas_executable))
# libdevice lets kernels that use math functions be compiled to PTX.
if config.cuda_toolkit_dir and os.path.exists(
        os.path.join(config.cuda_toolkit_dir, "nvvm", "libdevice", "libdevice.10.bc")):
    config.available_features.add("libdevice")

# Tier: a CUDA GPU is present (KDA_GPU_TESTS=1 asserts it).
if os.environ.get("KDA_GPU_TESTS") == "1":
    config.available_features.add("cuda-gpu")
