//===- StageRunner.cpp - the driver every stage runner shares -------------===//

#include "StageRunner.h"

#include "Parallel.h"
#include "Setup.h"

#include "kda/Reference/StageTensors.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string_view>

namespace kda::run {

ref::Problem pairProblem(int64_t len, int64_t K, int64_t V, int64_t chunk) {
  ref::Problem p;
  p.B = 1;
  p.T = len;
  p.H = p.HV = 1;
  p.K = K;
  p.V = V;
  p.chunkSize = chunk;
  return p;
}

bool StageRunner::configure(const Options &options,
                            const rt::Manifest &manifest, std::string &error) {
  opt = options;
  return setUp(manifest, error);
}

void StageRunner::injectError(Tensors &args) {
  if (errorAt < 0)
    return;
  HostTensor &t = args[errorArg];
  t.set(errorAt, t.get(errorAt) + 1.0);
}

void StageRunner::check(const Tensors &args, Table &outputs) {
  if (!opt.noCheck && pairs.sampled())
    std::printf("checking %zu of %zu (sequence, head) pairs\n",
                pairs.checked.size(), pairs.all.size());
  compareOutputs(args, outputs);
}

void StageRunner::findArguments(const rt::Manifest &m,
                                std::initializer_list<const char *> names) {
  argNames.assign(names);
  arg.clear();
  for (const char *name : names)
    arg.push_back(m.argIndex(name));
}

bool StageRunner::requireArguments(const char *program,
                                   std::initializer_list<int> required,
                                   std::string &error) const {
  for (int a : required)
    if (!has(a)) {
      error = std::string("the bundle (program=") + program +
              ") has no argument '" + argNames[a] + "'";
      return false;
    }
  return true;
}

void StageRunner::takeFlagSizes() {
  B = opt.batch;
  T = opt.seqLen;
  H = opt.heads;
  HV = opt.valueHeads;
}

void StageRunner::countChunks() {
  seqs = sequencesOf(B, T, opt.cuSeqlens);
  N = static_cast<int64_t>(seqs.size());
  NT = 0;
  for (const Sequence &s : seqs)
    NT += (s.length() + BT - 1) / BT;
  if (opt.cuSeqlens.empty())
    NT = (T + BT - 1) / BT;
  NC = kda::ref::numChunkPrograms(T, BT, !opt.cuSeqlens.empty(), N);
}

bool StageRunner::sizeAll(const rt::Manifest &m,
                          std::initializer_list<const char *> symbols,
                          std::string &error) {
  const std::map<std::string, int64_t> sizes = {
      {"B", B}, {"T", T},  {"H", H},   {"HV", HV},
      {"K", K}, {"V", V},  {"BT", BT}, {"BC", ref::kSubChunk},
      {"N", N}, {"NT", NT}, {"NC", NC}};
  std::map<std::string, int64_t> known;
  for (const char *symbol : symbols)
    known.emplace(symbol, sizes.at(symbol));
  return sizeArguments(m, known, opt.cuSeqlens.size(), argShapes, error) &&
         checkSizes(m, argShapes, opt.cpu, error);
}

bool StageRunner::checkShapes(const rt::Manifest &m, const char *program,
                              bool vFirst, std::string &error) const {
  const std::map<std::string_view, int64_t> sizes = {
      {"B", B},   {"T", T},   {"H", H},   {"HV", HV},
      {"K", K},   {"V", V},   {"BT", BT}, {"BC", ref::kSubChunk},
      {"N", N},   {"NT", NT}, {"NC", NC}, {"N1", N + 1}};
  for (int index : arg) {
    if (index < 0)
      continue;
    const rt::ArgSpec &spec = m.args[index];
    std::string_view dims = ref::stageTensorDims(spec.name);
    if (spec.name == "h")
      dims = ref::chunkStateDims(vFirst);
    else if (spec.name == "initial_state" || spec.name == "final_state")
      dims = ref::stateDims(vFirst);
    if (dims.empty())
      continue;
    std::vector<int64_t> expected;
    for (size_t begin = 0; begin <= dims.size();) {
      size_t end = std::min(dims.find(',', begin), dims.size());
      expected.push_back(sizes.at(dims.substr(begin, end - begin)));
      begin = end + 1;
    }
    if (argShapes[index] != expected) {
      error = "the bundle's '" + spec.name + "' (" + spec.dimsText +
              ") does not have the shape kda." + program + " gives it";
      return false;
    }
  }
  return true;
}

void StageRunner::pickPairs(int64_t heads) {
  seqs = sequencesOf(B, T, opt.cuSeqlens);
  pairs = selectPairs(seqs, heads, opt.checkHeads, opt.seed);
}

const HeadPair *StageRunner::firstCheckedPair() const {
  return pairs.checked.empty() ? nullptr : &pairs.all[pairs.checked.front()];
}

int64_t StageRunner::middleRowHead() const {
  const HeadPair *p = firstCheckedPair();
  if (!p)
    return -1;
  const Sequence &s = seqs[p->seq];
  return (s.begin + s.length() / 2) * HV + p->head;
}

void StageRunner::injectAt(int index, int64_t at) {
  errorArg = index;
  errorAt = at;
}

void StageRunner::injectAtMiddleRow(int index, int64_t width) {
  const int64_t rowHead = middleRowHead();
  injectAt(index, rowHead < 0 ? -1 : rowHead * width);
}

std::string StageRunner::sizesText() const {
  return "B=" + std::to_string(B) + " T=" + std::to_string(T) +
         " H=" + std::to_string(H) + " HV=" + std::to_string(HV) +
         " K=" + std::to_string(K);
}

std::string StageRunner::cuSeqlensText() const {
  return opt.cuSeqlens.empty() ? "" : " cu_seqlens=" + opt.cuSeqlensText;
}

OutputStats StageRunner::scanOutput(const char *name, double threshold,
                                    const HostTensor &out) const {
  OutputStats st;
  st.name = name;
  st.threshold = threshold;
  st.compared = !opt.noCheck;
  for (int64_t i = 0; i < out.size(); ++i)
    st.count(out.get(i));
  return st;
}

Table StageRunner::scanPairs(
    const std::vector<TableRow> &table,
    const std::function<void(const HeadPair &, bool, Table &)> &scanPair)
    const {
  const bool compare = !opt.noCheck;
  std::vector<char> checked(pairs.all.size(), 0);
  for (size_t i : pairs.checked)
    checked[i] = 1;
  std::vector<Table> perPair(pairs.all.size(), Table(table.size()));
  parallelFor(pairs.all.size(), [&](size_t i) {
    scanPair(pairs.all[i], compare && checked[i], perPair[i]);
  });
  Table rows(table.size());
  for (size_t r = 0; r < table.size(); ++r) {
    rows[r].name = table[r].name;
    rows[r].threshold = table[r].threshold;
    rows[r].compared = compare;
  }
  for (const Table &pair : perPair)
    for (size_t r = 0; r < table.size(); ++r)
      rows[r].merge(pair[r]);
  return rows;
}

} // namespace kda::run
