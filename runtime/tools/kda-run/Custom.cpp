//===- Custom.cpp - kda-run for programs written at the tile level --------===//
//
// A `program=custom` bundle has no reference to check against: kda-run runs
// it with --no-check on inputs read from .npy files (--inputs) or, without
// --inputs, on seeded standard-normal values, and can write every argument
// (--outputs). Every dimension must be static.
//
//===----------------------------------------------------------------------===//

#include "ProgramRunner.h"
#include "Setup.h"

#include "kda/Reference/Random.h"

namespace kda::run {

namespace {

class CustomRunner : public ProgramRunner {
public:
  bool configure(const Options &options, const rt::Manifest &manifest,
                 std::string &error) override {
    if (!options.noCheck) {
      error = "program 'custom' (written at the tile level) has no reference "
              "to check against: run it with --no-check (and --inputs DIR "
              "for your own inputs)";
      return false;
    }
    seed = options.seed;
    inputs.clear();
    for (const rt::ArgSpec &arg : manifest.args)
      inputs.push_back(arg.role == rt::ArgRole::Input);
    argShapes.clear();
    for (const rt::ArgSpec &arg : manifest.args) {
      std::vector<int64_t> shape;
      for (const rt::DimSpec &dim : arg.dims) {
        if (!dim.isStatic()) {
          error = "program 'custom': argument '" + arg.name +
                  "' has a dynamic shape (" + arg.dimsText +
                  "); kda-run runs tile-level programs with static shapes only";
          return false;
        }
        shape.push_back(dim.size);
      }
      argShapes.push_back(std::move(shape));
    }
    return checkSizes(manifest, argShapes, options.cpu, error);
  }
  std::string describe() const override { return "custom"; }
  const std::vector<std::vector<int64_t>> &shapes() const override {
    return argShapes;
  }
  void makeInputs(std::vector<HostTensor> &args) override {
    ref::Rng rng(seed);
    for (size_t a = 0; a < args.size(); ++a)
      if (inputs[a])
        for (int64_t i = 0; i < args[a].size(); ++i)
          args[a].set(i, rng.normal());
  }
  /// Never called: custom programs run with --no-check, which excludes
  /// --inject-error.
  void injectError(std::vector<HostTensor> &) override {}
  void check(const std::vector<HostTensor> &,
             std::vector<OutputStats> &) override {}

private:
  std::vector<std::vector<int64_t>> argShapes;
  std::vector<bool> inputs;
  uint64_t seed = 0;
};

} // namespace

std::unique_ptr<ProgramRunner> makeCustomRunner() {
  return std::make_unique<CustomRunner>();
}

} // namespace kda::run
