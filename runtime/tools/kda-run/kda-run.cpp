//===- kda-run.cpp - run a kernel bundle and check it ---------------------===//
//
// kda-run BUNDLE --batch N --seq-len T --heads H --value-heads HV
//         [--cu-seqlens 0,a,b,...] [--seed S] [--dtype bf16|f16|f32]
//         [--mask-p P] [--gate-norm X]
//         [--cpu] [--bench] [--bench-kernels] [--no-check] [--check-heads N]
//         [--inject-error] [--inputs DIR] [--outputs DIR]
//
// Loads the bundle with libkda_runtime, makes inputs the way fla's tests do
// (or reads DIR/<arg>.npy), runs it on the GPU (or its CPU build with
// --cpu), compares every output with the float64 reference, prints a table
// and a last line starting with PASS or FAIL, and exits non-zero on FAIL or
// any error. Every error is one line.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Npy.h"
#include "Options.h"
#include "ProgramRunner.h"

#include "kda/Runtime/Program.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <exception>
#include <sys/stat.h>

using namespace kda;
using namespace kda::run;

namespace {

/// The measured device-to-device copy bandwidth of an H200, bytes/s.
constexpr double kMemoryFloorBytesPerSecond = 4.22e12;

int fail(const std::string &message) {
  std::fprintf(stderr, "kda-run: error: %s\n", message.c_str());
  return 1;
}

std::string formatBytes(double bytes) {
  char buffer[32];
  if (bytes >= 1e9)
    std::snprintf(buffer, sizeof buffer, "%.3f GB", bytes / 1e9);
  else if (bytes >= 1e6)
    std::snprintf(buffer, sizeof buffer, "%.3f MB", bytes / 1e6);
  else
    std::snprintf(buffer, sizeof buffer, "%.3f kB", bytes / 1e3);
  return buffer;
}

void printBandwidth(double bytes, double medianMs, bool gpu) {
  double gbs = bytes / (medianMs * 1e-3) / 1e9;
  if (!gpu) {
    std::printf("bench: %s moved (all input and output tensors): %.1f GB/s\n",
                formatBytes(bytes).c_str(), gbs);
    return;
  }
  double floorMs = bytes / kMemoryFloorBytesPerSecond * 1e3;
  std::printf("bench: %s moved (all input and output tensors): %.1f GB/s, "
              "%.1f%% of the memory floor (%.4f ms at 4.22 TB/s, the "
              "measured H200 copy bandwidth)\n",
              formatBytes(bytes).c_str(), gbs, 100.0 * floorMs / medianMs,
              floorMs);
}

int runMain(int argc, char **argv) {
  Options opt;
  std::string error;
  if (!parseOptions(argc, argv, opt, error))
    return fail(error);
  if (opt.help) {
    std::fputs(usage(), stdout);
    return 0;
  }

  std::unique_ptr<rt::Program> program;
  if (rt::Status s = rt::Program::load(opt.bundle, program); !s)
    return fail(s.message());
  const rt::Manifest &m = program->manifest();
  const std::string *programKey = m.key("program");
  if (!programKey)
    return fail("the bundle has no 'program' key; kda-run cannot check it");
  std::unique_ptr<ProgramRunner> runner = makeRunner(*programKey);
  if (!runner)
    return fail("kda-run cannot check program '" + *programKey +
                "' yet (it knows " + knownPrograms() + ")");
  if (!runner->configure(opt, m, error))
    return fail(error);

  // Where it runs.
  GpuSession gpu;
  std::string where;
  if (opt.cpu) {
    if (!program->bundle().hasCpu)
      return fail("the bundle has no cpu section (it was compiled without a "
                  "C compiler to link the CPU build); run it on the GPU");
    where = "the CPU build";
  } else {
    const rt::Driver *driver = nullptr;
    rt::Status s = program->driver(driver);
    if (!s) {
      bool missing = s.code() == rt::ErrorCode::DriverNotFound ||
                     s.code() == rt::ErrorCode::NoDevice ||
                     s.message().rfind("cuInit", 0) == 0;
      if (missing) {
        std::fprintf(stderr,
                     "kda-run: no CUDA driver/GPU found (%s); use --cpu to "
                     "run the CPU build\n",
                     s.message().c_str());
        return 1;
      }
      return fail(s.message());
    }
    if (rt::Status s = gpu.open(*program); !s)
      return fail(s.message());
    where = gpu.device().name + " (sm_" + std::to_string(gpu.device().ccMajor) +
            std::to_string(gpu.device().ccMinor) + ")";
  }

  // Host tensors: inputs made or read, outputs NaN.
  std::vector<HostTensor> args;
  const auto &shapes = runner->shapes();
  for (size_t i = 0; i < m.args.size(); ++i)
    args.emplace_back(m.args[i].dtype, shapes[i]);
  runner->makeInputs(args);
  if (m.cuSeqlensArg >= 0)
    for (size_t i = 0; i < opt.cuSeqlens.size(); ++i)
      args[m.cuSeqlensArg].set(static_cast<int64_t>(i),
                               static_cast<double>(opt.cuSeqlens[i]));
  for (size_t i = 0; i < m.args.size(); ++i) {
    if (m.args[i].role == rt::ArgRole::Output) {
      args[i].fillBytes(0xFF);
      continue;
    }
    if (opt.inputsDir.empty() || static_cast<int>(i) == m.cuSeqlensArg)
      continue;
    if (!readNpy(opt.inputsDir + "/" + m.args[i].name + ".npy", args[i],
                 error))
      return fail("--inputs: " + error);
  }

  std::printf("kda-run: %s (program=%s) on %s: %s\n", m.entry.c_str(),
              programKey->c_str(), where.c_str(), runner->describe().c_str());
  double bytes = 0;
  for (const HostTensor &t : args)
    bytes += static_cast<double>(t.bytes());

  // Run.
  if (opt.cpu) {
    std::vector<rt::TensorArg> tensors;
    for (HostTensor &t : args)
      tensors.push_back(t.arg());
    rt::LaunchArgs la;
    la.tensors = tensors.data();
    la.numTensors = tensors.size();
    if (m.cuSeqlensArg >= 0) {
      la.cuSeqlensHost = opt.cuSeqlens.data();
      la.numCuSeqlensHost = opt.cuSeqlens.size();
    }
    // The plan's workspace (results the program does not return), 256-byte
    // aligned as the runtime requires.
    size_t wsBytes = 0;
    if (rt::Status s =
            program->workspaceSize(tensors.data(), tensors.size(), wsBytes);
        !s)
      return fail(s.message());
    std::unique_ptr<void, void (*)(void *)> workspace(
        wsBytes ? std::aligned_alloc(256, (wsBytes + 255) / 256 * 256)
                : nullptr,
        std::free);
    if (wsBytes && !workspace)
      throw std::bad_alloc();
    la.workspace = workspace.get();
    la.workspaceBytes = wsBytes;
    if (rt::Status s = program->runCpu(la); !s)
      return fail(s.message());
    if (opt.bench) {
      // The outputs of the checked run are kept; the timed runs write copies.
      std::vector<HostTensor> scratch;
      std::vector<rt::TensorArg> timed = tensors;
      for (size_t i = static_cast<size_t>(m.numInputs); i < args.size(); ++i) {
        scratch.emplace_back(args[i].dtype(), args[i].shape());
        timed[i] = scratch.back().arg();
      }
      rt::LaunchArgs tl = la;
      tl.tensors = timed.data();
      std::vector<double> times;
      auto runOnce = [&] {
        auto t0 = std::chrono::steady_clock::now();
        (void)program->runCpu(tl);
        auto t1 = std::chrono::steady_clock::now();
        return std::chrono::duration<double, std::milli>(t1 - t0).count();
      };
      double first = runOnce();
      int runs = static_cast<int>(
          std::clamp(1000.0 / std::max(first, 1e-3), 50.0, 1000.0));
      for (int i = 0; i < runs; ++i)
        times.push_back(runOnce());
      std::sort(times.begin(), times.end());
      double median = times[times.size() / 2];
      std::printf("bench: median %.4f ms over %d runs (min %.4f ms, max %.4f "
                  "ms); host clock, CPU build, one thread\n",
                  median, runs, times.front(), times.back());
      printBandwidth(bytes, median, false);
    }
  } else {
    rt::LaunchArgs la;
    if (rt::Status s = gpu.upload(args, la, opt.cuSeqlens); !s)
      return fail(s.message());
    if (rt::Status s = gpu.run(la); !s)
      return fail(s.message());
    if (rt::Status s = gpu.download(args); !s)
      return fail(s.message());
    if (opt.bench) {
      int runs = 0;
      double median = 0, min = 0, max = 0;
      if (rt::Status s = gpu.bench(la, runs, median, min, max); !s)
        return fail(s.message());
      std::printf("bench: median %.4f ms over %d runs (min %.4f ms, max "
                  "%.4f ms); CUDA events, L2 flushed before each run\n",
                  median, runs, min, max);
      printBandwidth(bytes, median, true);
    }
    if (opt.benchKernels) {
      // Each kernel alone, on the workspace the full runs above left.
      for (size_t k = 0; k < m.kernels.size(); ++k) {
        int runs = 0;
        double median = 0, min = 0, max = 0;
        if (rt::Status s = gpu.bench(la, runs, median, min, max, k, 1); !s)
          return fail(s.message());
        std::printf("bench: kernel %zu %s: median %.4f ms over %d runs (min "
                    "%.4f ms, max %.4f ms)\n",
                    k, m.kernels[k].name.c_str(), median, runs, min, max);
      }
    }
  }

  if (!opt.outputsDir.empty()) {
    mkdir(opt.outputsDir.c_str(), 0777);
    for (size_t i = 0; i < m.args.size(); ++i)
      if (!writeNpy(opt.outputsDir + "/" + m.args[i].name + ".npy", args[i],
                    error))
        return fail("--outputs: " + error);
  }

  if (opt.injectError)
    runner->injectError(args);
  std::vector<OutputStats> outputs;
  runner->check(args, outputs);
  return printReport(outputs) ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return runMain(argc, argv);
  } catch (const std::bad_alloc &) {
    return fail("out of host memory");
  } catch (const std::exception &e) {
    return fail(e.what());
  }
}
