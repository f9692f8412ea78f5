//===- Gates.cpp - the gates kda-run draws and checks ---------------------===//

#include "Gates.h"

#include <algorithm>
#include <cmath>

namespace kda::run {

void drawPrecomputedGates(const Options &opt, const RandomSegment &gates,
                          const RandomSegment &mask,
                          const std::function<void(int64_t, double)> &put) {
  gates.draw([&](int64_t i, double x) {
    put(i, std::log(ref::sigmoid(x)) / opt.gateNorm);
  });
  // -1000 is exact in every dtype, so masking after the rounding is the same
  // as before it.
  if (opt.maskP > 0.0)
    mask.draw([&](int64_t i, double u) {
      if (u < opt.maskP)
        put(i, -1000.0);
    });
}

bool BundleGate::readMode(const rt::Manifest &m) {
  if (const std::string *key = m.key("gate"))
    name = *key;
  if (name == "precomputed")
    mode = ref::GateMode::Precomputed;
  else if (name == "softplus")
    mode = ref::GateMode::Softplus;
  else if (name == "lower_bound")
    mode = ref::GateMode::LowerBound;
  else
    return false;
  return true;
}

bool BundleGate::checkFlags(const Options &opt, std::string &error) const {
  if (mode == ref::GateMode::Precomputed ||
      (opt.maskP == 0.0 && opt.gateNorm == 1.0))
    return true;
  error = "--mask-p and --gate-norm apply to precomputed gates; the bundle's "
          "gate is " +
          name;
  return false;
}

void BundleGate::draw(const Options &opt, RandomStream &stream, HostTensor &g,
                      std::vector<HostTensor> &args, double floor) const {
  const RandomSegment gDraws = stream.normals(g.size());
  if (mode == ref::GateMode::Precomputed) {
    const RandomSegment maskDraws = stream.uniforms(g.size());
    drawPrecomputedGates(opt, gDraws, maskDraws, [&](int64_t i, double x) {
      g.set(i, std::max(x, floor));
    });
    return;
  }
  gDraws.drawInto(g);
  for (int a : {aLogArg, dtBiasArg})
    if (a >= 0)
      stream.normals(args[a].size()).drawInto(args[a]);
}

ref::GateOptions BundleGate::headOptions(const std::vector<HostTensor> &args,
                                         int64_t head, int64_t K,
                                         std::vector<double> &aLog,
                                         std::vector<double> &dtBias) const {
  ref::GateOptions options;
  options.mode = mode;
  options.lowerBound = lowerBound;
  if (aLogArg >= 0) {
    aLog.assign(1, args[aLogArg].get(head));
    options.aLog = &aLog;
  }
  if (dtBiasArg >= 0) {
    dtBias.resize(K);
    for (int64_t d = 0; d < K; ++d)
      dtBias[d] = args[dtBiasArg].get(head * K + d);
    options.dtBias = &dtBias;
  }
  return options;
}

} // namespace kda::run
