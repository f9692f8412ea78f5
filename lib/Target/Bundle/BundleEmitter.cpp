//===- BundleEmitter.cpp - compile a kda module to a kernel bundle --------===//

#include "kda/Target/BundleEmitter.h"
#include "kda/Dialect/KDA/KDADialect.h"

#include "BF16Memory.h"
#include "Manifest.h"

#include "kda/Dialect/Tile/TileDialect.h"
#include "kda/Pipelines/Pipelines.h"
#include "kda_bundle_checksum.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm-c/Target.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include <future>
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

namespace {

/// A temporary file removed when this object dies.
struct TempFile {
  llvm::SmallString<128> path;
  explicit TempFile(StringRef suffix) {
    if (llvm::sys::fs::createTemporaryFile("kda-bundle", suffix, path))
      path.clear();
  }
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
  bool valid() const { return !path.empty(); }
};

/// Reads a whole file, or returns std::nullopt.
std::optional<std::string> readFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

/// Runs `program args...`; returns true on exit status 0. With `log`, the
/// program's stdout and stderr go to that file instead of the terminal.
bool run(StringRef program, ArrayRef<StringRef> args, std::string &error,
         StringRef log = {}) {
  SmallVector<StringRef> argv{program};
  argv.append(args.begin(), args.end());
  SmallVector<std::optional<StringRef>, 3> redirects;
  if (!log.empty())
    redirects = {std::nullopt, log, log};
  int rc = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects, 0,
                                     0, &error);
  if (rc != 0 && error.empty())
    error = (program + " exited with status " + Twine(rc)).str();
  return rc == 0;
}

/// Finds ptxas on PATH or in the CUDA toolkit.
std::optional<std::string> findPtxas(StringRef toolkit) {
  if (auto onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  std::string dir = toolkit.empty() ? kda::getDefaultCudaToolkitPath()
                                    : toolkit.str();
  if (!dir.empty()) {
    std::string candidate = dir + "/bin/ptxas";
    if (llvm::sys::fs::can_execute(candidate))
      return candidate;
  }
  return std::nullopt;
}

/// Assembles `ptx` for `chip`; returns the cubin or std::nullopt.
std::optional<std::string> assemble(StringRef ptx, StringRef chip,
                                    StringRef ptxas, Location loc) {
  TempFile in(".ptx"), out(".cubin");
  if (!in.valid() || !out.valid())
    return std::nullopt;
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in.path, ec);
    if (ec)
      return std::nullopt;
    os << ptx;
  }
  // ptxas's own output is kept out of the terminal: its "info" lines (such
  // as bounds notes on the dynamic shared memory symbol, which LLVM
  // declares as a 1-byte variable) are not problems of the bundle. Its
  // errors and warnings are reported.
  TempFile log(".log");
  std::string error;
  std::string arch = ("-arch=" + chip).str();
  StringRef logPath = log.valid() ? StringRef(log.path) : StringRef();
  // The kernels are assembled on every core (-split-compile 0: the same
  // code as with one thread, the cubin differs only in the note that
  // records ptxas's command line). A ptxas without the option assembles on
  // one.
  bool ok = run(ptxas, {arch, "-split-compile", "0", in.path, "-o", out.path},
                error, logPath);
  if (!ok && log.valid())
    if (std::optional<std::string> text = readFile(log.path);
        text && StringRef(*text).contains("split-compile")) {
      error.clear();
      {
        std::error_code ec; // Empties the log: only the rerun's counts.
        llvm::raw_fd_ostream truncate(log.path, ec);
      }
      ok = run(ptxas, {arch, in.path, "-o", out.path}, error, logPath);
    }
  std::string problems;
  if (log.valid())
    if (std::optional<std::string> text = readFile(log.path)) {
      SmallVector<StringRef> lines;
      StringRef(*text).split(lines, '\n', -1, /*KeepEmpty=*/false);
      for (StringRef line : lines)
        if (!line.contains("info    :") && !line.contains("info :"))
          problems += ("\n  " + line).str();
    }
  if (!ok) {
    emitWarning(loc) << "ptxas failed (" << error
                     << "); the bundle has no cubin section" << problems;
    return std::nullopt;
  }
  if (!problems.empty())
    emitWarning(loc) << "ptxas reported:" << problems;
  return readFile(out.path);
}

/// Lowers a copy of `module` with the CPU pipeline, compiles it to a
/// position-independent x86-64 object and links it into a shared object.
std::optional<std::string> buildCPUSharedObject(ModuleOp module,
                                                kda::StageOptions stages) {
  Location loc = module.getLoc();
  OwningOpRef<ModuleOp> cpu = cast<ModuleOp>(module->clone());
  PassManager pm(module.getContext());
  kda::KDAPipelineOptions pipelineOptions;
  stages.applyTo(pipelineOptions);
  kda::buildKDAToCPUPipeline(pm, pipelineOptions);
  if (failed(pm.run(*cpu))) {
    emitWarning(loc, "the CPU pipeline failed; the bundle has no cpu section");
    return std::nullopt;
  }
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*cpu, llvmContext, "kda_cpu");
  if (!llvmModule) {
    emitWarning(loc, "LLVM IR translation of the CPU build failed; the "
                     "bundle has no cpu section");
    return std::nullopt;
  }
  llvm::Triple triple("x86_64-unknown-linux-gnu");
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    emitWarning(loc) << "no x86-64 code generator (" << error
                     << "); the bundle has no cpu section";
    return std::nullopt;
  }
  // Generic x86-64 so that the CPU build runs on any x86-64 machine.
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, "x86-64", "", llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  kda::storeBF16AsI16(*llvmModule);

  TempFile object(".o"), shared(".so");
  if (!object.valid() || !shared.valid())
    return std::nullopt;
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(object.path, ec);
    if (ec)
      return std::nullopt;
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile)) {
      emitWarning(loc, "cannot emit an object file for the CPU build");
      return std::nullopt;
    }
    codegen.run(*llvmModule);
  }
  std::optional<std::string> linker;
  for (StringRef name : {"cc", "gcc", "clang", "c++"})
    if (auto found = llvm::sys::findProgramByName(name)) {
      linker = *found;
      break;
    }
  if (!linker) {
    emitWarning(loc, "no C compiler driver (cc, gcc, clang) to link the CPU "
                     "build; the bundle has no cpu section");
    return std::nullopt;
  }
  if (!run(*linker, {"-shared", "-o", shared.path, object.path, "-lm"},
           error)) {
    emitWarning(loc) << "linking the CPU build failed (" << error
                     << "); the bundle has no cpu section";
    return std::nullopt;
  }
  return readFile(shared.path);
}

/// The CPU build of a program and the warnings it gave.
struct CPUBuild {
  std::optional<std::string> sharedObject;
  SmallVector<std::string> warnings;
};

/// Registers the code generators both builds use (x86-64 for the CPU build,
/// NVPTX for the GPU build), once and before the two builds run side by
/// side: LLVM's target registry is not safe to extend from two threads.
void initializeCodeGenerators() {
  static llvm::once_flag once;
  llvm::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// Starts the CPU build of `module` on a thread of its own, beside the GPU
/// build (on a 2-core machine the whole-forward bundle took 5.6 s with the
/// two builds one after the other, 4.1 s of them the GPU build). The
/// program is printed and parsed into a context of the thread's own (with
/// the same dialects), so that nothing is shared between the two builds;
/// the build's diagnostics are collected, to be reported on `module` when
/// the result is taken.
std::future<CPUBuild> startCPUBuild(ModuleOp module, kda::StageOptions stages) {
  initializeCodeGenerators();
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().printGenericOpForm());
  }
  DialectRegistry registry;
  module.getContext()->getDialectRegistry().appendTo(registry);
  return std::async(
      std::launch::async,
      [text = std::move(text), registry = std::move(registry),
       stages]() {
        CPUBuild build;
        MLIRContext context(registry);
        ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diag) {
          build.warnings.push_back(diag.str());
          return success();
        });
        OwningOpRef<ModuleOp> copy =
            parseSourceString<ModuleOp>(text, &context);
        if (!copy) {
          build.warnings.push_back("the program did not parse for the CPU "
                                   "build; the bundle has no cpu section");
          return build;
        }
        build.sharedObject = buildCPUSharedObject(*copy, stages);
        return build;
      });
}

void writeSection(llvm::raw_ostream &os, StringRef name, StringRef payload) {
  os << "section " << name << " " << payload.size() << "\n" << payload << "\n";
}

} // namespace

LogicalResult kda::emitBundle(ModuleOp module,
                              const BundleEmitterOptions &options,
                              llvm::raw_ostream &os) {
  // A bundle is the build of one function: a function of kda ops, or a
  // host function already lowered (kda.entry). Counted before lowering,
  // which takes seconds for the whole forward.
  int64_t programs = 0;
  bool tileKernels = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    tileKernels |= func->hasAttr(kda::tile::TileDialect::getKernelAttrName());
    bool hasKdaOps = false;
    func.walk([&](Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "kda")
        hasKdaOps = true;
    });
    programs += hasKdaOps || func->hasAttr(kda::KDADialect::getEntryAttrName());
  }
  // (With neither kda ops nor tile kernels, compileToPTX says so.)
  if (programs > 1 || (programs == 0 && tileKernels))
    return emitError(module.getLoc())
           << "a bundle holds exactly one kda function (one with kda ops, "
              "or a lowered one marked kda.entry), found "
           << programs;

  // The CPU build runs beside the GPU build and its launch plan.
  std::future<CPUBuild> cpuBuild;
  if (options.cpu)
    cpuBuild = startCPUBuild(
        module, options.ptx.stages);

  OwningOpRef<ModuleOp> gpu = cast<ModuleOp>(module->clone());
  FailureOr<std::string> ptx = compileToPTX(*gpu, options.ptx);
  if (failed(ptx))
    return failure();
  SmallVector<func::FuncOp> entries;
  for (auto func : gpu->getOps<func::FuncOp>())
    if (func->hasAttr(kda::KDADialect::getEntryAttrName()))
      entries.push_back(func);
  if (entries.size() != 1)
    return emitError(module.getLoc())
           << "a bundle holds exactly one kda function, found "
           << entries.size();
  FailureOr<std::string> manifest =
      buildManifest(entries.front(), options.ptx.chip);
  if (failed(manifest))
    return failure();
  // The shapes the code is compiled for, recorded in the code section as
  // comment lines (the manifest's `arg` lines): the runtime refuses a
  // manifest that contradicts them, which would make a caller size its
  // buffers for shapes other than those the code writes.
  *ptx += "\n// The entry arguments this PTX was compiled for:\n";
  for (StringRef line : llvm::split(*manifest, '\n'))
    if (line.starts_with("arg "))
      *ptx += ("// kda." + line + "\n").str();

  std::optional<std::string> cubin;
  if (options.cubin) {
    if (std::optional<std::string> ptxas = findPtxas(options.ptx.toolkit))
      cubin = assemble(*ptx, options.ptx.chip, *ptxas, module.getLoc());
  }
  std::optional<std::string> cpu;
  if (options.cpu) {
    CPUBuild build = cpuBuild.get();
    for (const std::string &warning : build.warnings)
      emitWarning(module.getLoc()) << warning;
    cpu = std::move(build.sharedObject);
  }

  std::vector<std::pair<StringRef, StringRef>> sections = {
      {"manifest", *manifest}, {"ptx", *ptx}};
  if (cubin)
    sections.push_back({"cubin", *cubin});
  if (cpu)
    sections.push_back({"cpu", *cpu});
  // The checksum of every section, which the runtime verifies before it
  // uses any of them.
  std::string checksums;
  llvm::raw_string_ostream sums(checksums);
  for (auto [name, payload] : sections)
    sums << name << ' '
         << llvm::format_hex_no_prefix(
                kda_bundle_checksum(payload.data(), payload.size()), 16)
         << '\n';
  os << "KDA-BUNDLE " << kBundleABIVersion << "\n";
  for (auto [name, payload] : sections)
    writeSection(os, name, payload);
  writeSection(os, "checksums", checksums);
  os << "end\n";
  return success();
}
