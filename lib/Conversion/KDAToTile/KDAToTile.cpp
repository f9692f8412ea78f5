//===- KDAToTile.cpp - kda functions to launch plans of tile kernels ------===//
//
// A kda function (tensor arguments and results, a body of kda stage ops)
// becomes a host function on memrefs in destination-passing style: its
// results are appended as output arguments, intermediates get workspace
// allocations, and each stage op becomes tile.launch ops of tile kernels.
// Also the helpers the stage lowerings share (StageLowering.h).
//
//===----------------------------------------------------------------------===//

#include "KernelArguments.h"
#include "StageLowering.h"

#include "kda/Conversion/KDAToTile/TuningOverrides.h"
#include "kda/Conversion/Passes.h"
#include "kda/Dialect/KDA/KDADialect.h"
#include "kda/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstdio>

namespace mlir::kda {
#define GEN_PASS_DEF_CONVERTKDATOTILEPASS
#include "Conversion/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;
using namespace mlir::kda;

func::FuncOp kda::createKernel(ModuleOp module, StringRef name,
                               TypeRange argTypes, const KernelTuning &tuning) {
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  auto type = b.getFunctionType(argTypes, {});
  auto kernel = func::FuncOp::create(b, module.getLoc(), name, type);
  kernel->setAttr(tile::TileDialect::getKernelAttrName(), b.getUnitAttr());
  toTuningAttr(b.getContext(), tuning).attachTo(kernel);
  Block *entry = kernel.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, module.getLoc());
  return kernel;
}

Value kda::ceilDiv(OpBuilder &b, Location loc, Value a, int64_t divisor) {
  Value d = arith::ConstantIndexOp::create(b, loc, divisor);
  return arith::CeilDivUIOp::create(b, loc, a, d);
}

Value kda::countChunks(OpBuilder &b, Location loc, Value rows, Value cuSeqlens,
                       int64_t bt) {
  Value tokens = memref::DimOp::create(b, loc, rows, 1);
  if (!cuSeqlens)
    return ceilDiv(b, loc, tokens, bt);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value n = arith::SubIOp::create(
      b, loc, memref::DimOp::create(b, loc, cuSeqlens, 0), one);
  Value full = arith::DivUIOp::create(
      b, loc, tokens, arith::ConstantIndexOp::create(b, loc, bt));
  return arith::AddIOp::create(b, loc, full, n);
}

ChunkRows kda::locateChunk(OpBuilder &b, Location loc, Value chunkProgram,
                           Value rows, Value cuSeqlens, int64_t bt,
                           bool markStart) {
  Value cBT = arith::ConstantIndexOp::create(b, loc, bt);
  ChunkRows result;
  if (cuSeqlens) {
    auto chunk =
        tile::VarlenChunkOp::create(b, loc, cuSeqlens, chunkProgram, bt);
    result.start = arith::AddIOp::create(
        b, loc, chunk.getBos(),
        arith::MulIOp::create(b, loc, chunk.getChunk(), cBT));
    result.end =
        arith::AddIOp::create(b, loc, chunk.getBos(), chunk.getLength());
    result.valid = chunk.getValid();
    result.sequence = chunk.getSequence();
    result.sequenceChunk = chunk.getChunk();
  } else {
    result.start = arith::MulIOp::create(b, loc, chunkProgram, cBT);
    result.end = memref::DimOp::create(b, loc, rows, 1);
    result.valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         result.start, result.end);
  }
  if (markStart)
    result.start = tile::ChunkStartOp::create(b, loc, result.start);
  return result;
}

KernelShape kda::getKernelShape(ArrayRef<Value> tensors, Value cuSeqlens) {
  KernelShape shape{/*singleBatch=*/true, /*staticHeads=*/true,
                    /*varlen=*/static_cast<bool>(cuSeqlens)};
  for (Value tensor : tensors) {
    auto type = cast<ShapedType>(tensor.getType());
    shape.singleBatch &= type.getDimSize(0) == 1;
    shape.staticHeads &= type.getRank() < 3 || !type.isDynamicDim(2);
  }
  return shape;
}

KernelShape kda::getStateKernelShape(Value kg, Value u, Value cuSeqlens) {
  KernelShape shape = getKernelShape({kg}, cuSeqlens);
  auto kgType = cast<ShapedType>(kg.getType());
  Type element = kgType.getElementType();
  shape.stateRows = kgType.getDimSize(kgType.getRank() - 1);
  shape.sixteenBitDots =
      isSixteenBitFloat(element) && getElementTypeOrSelf(u.getType()) == element;
  return shape;
}

Value kda::headCount(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(2))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(2));
  return memref::DimOp::create(b, loc, buffer, 2);
}

Value kda::batchHeads(OpBuilder &b, Location loc, Value buffer) {
  // Locals fix the order in which the ops are created.
  Value heads = headCount(b, loc, buffer);
  Value batches = memref::DimOp::create(b, loc, buffer, 0);
  return arith::MulIOp::create(b, loc, batches, heads);
}

Value kda::loadOffset(OpBuilder &b, Location loc, Value cuSeqlens, Value i) {
  Value v = memref::LoadOp::create(b, loc, cuSeqlens, ValueRange{i});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

Value kda::firstChunkProgram(OpBuilder &b, Location loc, Value bos,
                             Value seq, int64_t bt) {
  Value start = arith::DivUIOp::create(
      b, loc, bos, arith::ConstantIndexOp::create(b, loc, bt));
  return arith::AddIOp::create(b, loc, start, seq);
}

Value kda::chunkOffset(OpBuilder &b, Location loc, Value cuSeqlens, Value seq,
                       int64_t bt) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, c0, seq, c1, ValueRange{c0});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value m = loop.getInductionVar();
  Value begin = loadOffset(b, loc, cuSeqlens, m);
  Value end =
      loadOffset(b, loc, cuSeqlens, arith::AddIOp::create(b, loc, m, c1));
  Value chunks = ceilDiv(b, loc, arith::SubIOp::create(b, loc, end, begin), bt);
  Value sum = arith::AddIOp::create(b, loc, loop.getRegionIterArg(0), chunks);
  scf::YieldOp::create(b, loc, sum);
  return loop.getResult(0);
}

void kda::addFloatKey(StageContext &ctx, StringRef name, float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  ctx.addKey(name, text);
}

void kda::addChunkStageKey(StageContext &ctx, const ChunkStageKey &key) {
  ctx.addKey("K", std::to_string(key.k));
  if (key.v)
    ctx.addKey("V", std::to_string(*key.v));
  if (key.h)
    addDimKey(ctx, "H", *key.h);
  addDimKey(ctx, "HV", key.hv);
  ctx.addKey("chunk", std::to_string(key.chunk));
  ctx.addKey("varlen", key.cuSeqlens ? "1" : "0");
}

FailureOr<ChunkStageKey> kda::getColumnStageKey(Operation *op, Value qk,
                                                Value v, int64_t chunk,
                                                Value cuSeqlens) {
  auto qkType = cast<RankedTensorType>(qk.getType());
  auto vType = cast<RankedTensorType>(v.getType());
  ChunkStageKey key{qkType.getDimSize(3),
                    vType.getDimSize(3),
                    qkType.getDimSize(2),
                    vType.getDimSize(2),
                    chunk,
                    cuSeqlens};
  if (ShapedType::isDynamic(key.k) || ShapedType::isDynamic(*key.v))
    return op->emitOpError("has no lowering for dynamic feature dimensions "
                           "(K and V must be static)");
  return key;
}

tile::LaunchOp kda::launchKernel(OpBuilder &host, Location loc,
                                 func::FuncOp kernel, Value gridX, Value one,
                                 ValueRange args) {
  return tile::LaunchOp::create(host, loc, kernel.getSymName(), gridX, one,
                                one, args);
}

bool kda::isChunkStageKernel(TunedKernel kernel) {
  switch (kernel) {
  case TunedKernel::gate:
  case TunedKernel::gatePrecomputed:
  case TunedKernel::intraDiagExact:
  case TunedKernel::intraDiagSafe:
  case TunedKernel::interSolve:
  case TunedKernel::interSolveSafe:
  case TunedKernel::interSolveIEEEMerge:
  case TunedKernel::wyRecompute:
  case TunedKernel::decayApply:
    return true;
  default:
    return false;
  }
}

bool kda::isRecurrenceKernel(TunedKernel kernel) {
  return kernel == TunedKernel::stateScan ||
         kernel == TunedKernel::stateScanFused ||
         kernel == TunedKernel::chunkRecurrence;
}

void kda::setChunkPartition(tile::LaunchOp launch, int64_t bt) {
  launch->setAttr(
      tile::TileDialect::getPartitionAttrName(),
      StringAttr::get(launch.getContext(), "chunks" + std::to_string(bt)));
}

tile::LaunchOp kda::launchOverChunks(
    StageContext &ctx, Location loc, func::FuncOp kernel, ValueRange args,
    Value rows, Value cuSeqlens, int64_t bt,
    function_ref<Value(OpBuilder &host, Value chunks, Value heads)> gridX) {
  OpBuilder &hb = ctx.host;
  Value one = arith::ConstantIndexOp::create(hb, loc, 1);
  Value chunks = countChunks(hb, loc, rows, cuSeqlens, bt);
  Value heads = batchHeads(hb, loc, rows);
  return launchKernel(hb, loc, kernel, gridX(hb, chunks, heads), one, args);
}

/// Decomposes the program id of a kernel launched on
/// B * HV * countChunks(rowsLike, cuSeqlens, bt) programs along x. `HV` is
/// dimension 2 of `rowsLike` (a [B, T, HV, ...] buffer) and `H` dimension 2
/// of `qkLike` (a [B, T, H, ...] buffer); both may be dynamic. `markStart`
/// as for locateChunk.
static ChunkProgram locateChunkProgram(OpBuilder &b, Location loc,
                                       Value rowsLike, Value qkLike,
                                       Value cuSeqlens, int64_t bt,
                                       bool markStart) {
  // (batch, head) fastest: neighbouring programs read the same rows of
  // every head (contiguous in memory) and, for varlen, search for the
  // same chunk.
  Value numBH = batchHeads(b, loc, rowsLike);
  Value pid = tile::ProgramIdOp::create(b, loc, tile::Axis::x);
  Value chunk = arith::DivUIOp::create(b, loc, pid, numBH);
  Value bh = arith::RemUIOp::create(b, loc, pid, numBH);
  Value hv = headCount(b, loc, rowsLike);
  Value group = arith::DivUIOp::create(b, loc, hv, headCount(b, loc, qkLike));
  ChunkProgram program;
  program.chunk = chunk;
  program.batch = arith::DivUIOp::create(b, loc, bh, hv);
  program.head = arith::RemUIOp::create(b, loc, bh, hv);
  program.qkHead = arith::DivUIOp::create(b, loc, program.head, group);
  program.rows =
      locateChunk(b, loc, chunk, rowsLike, cuSeqlens, bt, markStart);
  return program;
}

void kda::lowerChunkStage(StageContext &ctx, Location loc,
                          const KernelArguments &args, Value cuSeqlens,
                          const KernelTuning &tuning, int64_t bt,
                          function_ref<void(ChunkKernel &kernel)> buildBody) {
  func::FuncOp kernel = args.createKernel(tuning);
  OpBuilder b = kernelBuilder(kernel);
  Value cuBuf = args.bufferOf(cuSeqlens);
  Value cu = cuBuf ? kernel.getArguments().back() : Value();
  // One flat grid axis: program = chunk * (B * HV) + bh.
  ChunkProgram program =
      locateChunkProgram(b, loc, kernel.getArgument(2), kernel.getArgument(0),
                         cu, bt, ctx.fusableChunkStages);
  auto ifOp =
      scf::IfOp::create(b, loc, program.rows.valid, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  ChunkKernel chunkKernel{kernel, b, program};
  buildBody(chunkKernel);

  // Host: NT * B * HV programs along x.
  tile::LaunchOp launch = launchOverChunks(
      ctx, loc, kernel, args.buffers(), args.buffers()[2], cuBuf, bt,
      [&](OpBuilder &hb, Value chunks, Value heads) -> Value {
        return arith::MulIOp::create(hb, loc, chunks, heads);
      });
  setChunkPartition(launch, bt);
  args.mapResults();
}

namespace {

/// The gate cumsum operand G of a stage op that has one, else null.
Value getGateOperand(Operation *op) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<IntraDiagOp, InterSolveOp, WYRecomputeOp, StateScanOp, OutputOp,
            StateScanOutputOp, DecayApplyOp>(
          [](auto stage) { return stage.getG(); })
      .Default([](Operation *) { return Value(); });
}

/// The memref type holding a tensor of `type` (identity layout).
MemRefType toMemRef(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// Returns true if `func` is a kda function: it contains kda ops.
bool isKDAFunction(func::FuncOp func) {
  bool found = false;
  func.walk([&](Operation *op) {
    if (isa<KDADialect>(op->getDialect()))
      found = true;
  });
  return found;
}

struct ConvertKDAToTilePass
    : public kda::impl::ConvertKDAToTilePassBase<ConvertKDAToTilePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // K tiles are whole 16-byte pieces of rows of any element type.
    if (blockK < 0 ||
        (blockK > 0 && (blockK < 8 || !llvm::isPowerOf2_64(blockK)))) {
      mlir::emitError(module.getLoc())
          << "block-k must be 0 (each kernel's default) or a power of 2 of "
             "at least 8, got "
          << static_cast<int64_t>(blockK);
      return signalPassFailure();
    }
    target = lookupKernelTuningTarget(tuning);
    if (!target) {
      std::string known = registeredKernelTuningTargets();
      mlir::emitError(module.getLoc())
          << "no kernel tuning target named '" << tuning << "' (registered: "
          << (known.empty() ? std::string("none") : known) << ")";
      return signalPassFailure();
    }
    overriddenTarget.reset();
    if (!tuningOverrides.empty()) {
      auto overridden =
          createOverriddenTuningTarget(*target, tuningOverrides);
      if (!overridden) {
        mlir::emitError(module.getLoc())
            << llvm::toString(overridden.takeError());
        return signalPassFailure();
      }
      overriddenTarget = std::move(*overridden);
      target = overriddenTarget.get();
    }
    recurrencesOnRegisters = mapping == "recurrences-on-registers";
    if (mapping == "tuned")
      forcedMapping = std::nullopt;
    else if (mapping == "registers")
      forcedMapping = TileMapping::registers;
    else if (mapping == "shared-memory" || recurrencesOnRegisters)
      forcedMapping = TileMapping::sharedMemory;
    else {
      mlir::emitError(module.getLoc())
          << "mapping must be 'tuned', 'registers', 'shared-memory' or "
             "'recurrences-on-registers', got '"
          << mapping << "'";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> functions;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && isKDAFunction(func))
        functions.push_back(func);
    for (func::FuncOp func : functions)
      if (failed(convertFunction(module, func)))
        return signalPassFailure();
  }

  /// The `mapping` option: every kernel's mapping, or none when the kernel
  /// tuning chooses each kernel's.
  std::optional<TileMapping> forcedMapping;
  /// The `mapping` option is recurrences-on-registers.
  bool recurrencesOnRegisters = false;
  /// The target named by the `tuning` option, or overriddenTarget.
  const KernelTuningTarget *target = nullptr;
  /// The named target with the `tuning-override` entries applied, when
  /// there are any.
  std::shared_ptr<KernelTuningTarget> overriddenTarget;

  LogicalResult convertFunction(ModuleOp module, func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return func.emitError("kda functions must have a single block");
    FunctionType type = func.getFunctionType();
    for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
      if (!isa<RankedTensorType>(t))
        return func.emitError() << "kda functions take and return ranked "
                                   "tensors only, got "
                                << t;

    // Check the body before changing anything.
    Block &body = func.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    for (Operation &op : body.without_terminator())
      if (!isa<KDADialect>(op.getDialect()))
        return op.emitOpError("is not supported in a kda function: its body "
                              "may only hold kda ops");
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      if (isa<BlockArgument>(v))
        return ret.emitOpError() << "returns argument #"
                                 << cast<BlockArgument>(v).getArgNumber()
                                 << " unchanged, which a launch plan cannot "
                                    "express";
      for (unsigned j = 0; j < i; ++j)
        if (ret.getOperand(j) == v)
          return ret.emitOpError("returns the same value twice");
    }

    // New host function: inputs, then one output memref per result.
    OpBuilder b(func);
    SmallVector<Type> argTypes;
    for (Type t : type.getInputs())
      argTypes.push_back(toMemRef(t));
    for (Type t : type.getResults())
      argTypes.push_back(toMemRef(t));
    auto host = func::FuncOp::create(b, func.getLoc(), func.getName(),
                                     b.getFunctionType(argTypes, {}));
    host->setAttr(kda::KDADialect::getEntryAttrName(), b.getUnitAttr());
    host->setAttr(kda::KDADialect::getNumInputsAttrName(),
                  b.getI64IntegerAttr(type.getNumInputs()));
    Block *entry = host.addEntryBlock();
    OpBuilder hb = OpBuilder::atBlockEnd(entry);

    IRMapping buffers;
    for (auto [oldArg, newArg] :
         llvm::zip(body.getArguments(), entry->getArguments()))
      buffers.map(oldArg, newArg);
    DenseMap<Value, Value> outputs;
    for (auto [i, v] : llvm::enumerate(ret.getOperands()))
      outputs[v] = entry->getArgument(type.getNumInputs() + i);

    auto allocate = [&](Value result) -> Value {
      if (Value out = outputs.lookup(result))
        return out;
      // inter_solve's Aqk_out overwrites its Aqk input in place when that is
      // a workspace (as fla does): the kernel copies Aqk's diagonal blocks
      // onto themselves and writes the off-diagonal blocks, which it never
      // reads, so the forward needs one Aqk buffer instead of two.
      if (auto solve = dyn_cast<InterSolveOp>(result.getDefiningOp()))
        if (result == solve.getAqkOut() && solve.getAqk().hasOneUse())
          if (Value aqk = buffers.lookup(solve.getAqk());
              aqk && aqk.getDefiningOp<memref::AllocOp>() &&
              aqk.getType() == toMemRef(result.getType()))
            return aqk;
      // Workspace. [B, T, HV, ...] results take B and T from the first
      // operand and HV from the stage's gate cumsum G (the first operand may
      // be q or k, with H heads); state_scan's h [B, NT, HV, ...] takes NT
      // from the chunk count and its final state [N, HV, ...] N from B or
      // cu_seqlens.
      auto memType = toMemRef(result.getType());
      SmallVector<Value> dynSizes;
      Operation *def = result.getDefiningOp();
      Location loc = def->getLoc();
      Value like = buffers.lookup(def->getOperand(0));
      Value gate = getGateOperand(def);
      Value headsLike = gate ? buffers.lookup(gate) : like;
      auto scan = dyn_cast<StateScanOp>(def);
      auto fusedScan = dyn_cast<StateScanOutputOp>(def);
      auto recurrence = dyn_cast<ChunkRecurrenceOp>(def);
      auto decay = dyn_cast<DecayApplyOp>(def);
      Value cuSeqlens = scan         ? scan.getCuSeqlens()
                        : fusedScan  ? fusedScan.getCuSeqlens()
                        : recurrence ? recurrence.getCuSeqlens()
                        : decay      ? decay.getCuSeqlens()
                                     : Value();
      Value cu = cuSeqlens ? buffers.lookup(cuSeqlens) : Value();
      const bool isState =
          (scan && result == scan.getFinalState()) ||
          (fusedScan && result == fusedScan.getFinalState()) ||
          (recurrence && result == recurrence.getFinalState());
      const int64_t headDim = isState ? 1 : 2;
      for (int64_t d = 0; d < memType.getRank(); ++d) {
        if (!memType.isDynamicDim(d))
          continue;
        if (d == headDim) {
          dynSizes.push_back(memref::DimOp::create(hb, loc, headsLike, 2));
        } else if (scan && result == scan.getH() && d == 1) {
          dynSizes.push_back(countChunks(hb, loc, like, cu,
                                         scan.getChunkSize()));
        } else if (decay && result == decay.getDecayLast() && d == 1) {
          dynSizes.push_back(countChunks(hb, loc, like, cu,
                                         decay.getChunkSize()));
        } else if (isState && d == 0 && cu) {
          Value one = arith::ConstantIndexOp::create(hb, loc, 1);
          dynSizes.push_back(arith::SubIOp::create(
              hb, loc, memref::DimOp::create(hb, loc, cu, 0), one));
        } else {
          dynSizes.push_back(memref::DimOp::create(hb, loc, like, d));
        }
      }
      return memref::AllocOp::create(hb, loc, memType, dynSizes);
    };

    // Names and dimension symbols of the entry's arguments (inputs, then
    // one per result), and the specialization key, for the bundle manifest.
    unsigned numArgs = entry->getNumArguments();
    SmallVector<Attribute> argNames(numArgs), argDims(numArgs);
    auto describe = [&](Value tensor, StringRef name,
                        ArrayRef<StringRef> symbols) {
      int64_t index = -1;
      if (auto arg = dyn_cast<BlockArgument>(tensor))
        index = arg.getArgNumber();
      for (auto [i, v] : llvm::enumerate(ret.getOperands()))
        if (v == tensor)
          index = type.getNumInputs() + i;
      if (index < 0 || argNames[index])
        return;
      auto shape = cast<RankedTensorType>(tensor.getType()).getShape();
      std::string dims;
      for (auto [d, size] : llvm::enumerate(shape)) {
        if (d)
          dims += ",";
        dims += ShapedType::isDynamic(size) ? symbols[d].str()
                                            : std::to_string(size);
      }
      argNames[index] = b.getStringAttr(name);
      argDims[index] = b.getStringAttr(dims);
    };
    SmallVector<std::string> programParts;
    SmallVector<std::pair<std::string, std::string>> key;
    auto addKey = [&](StringRef k, StringRef v) {
      for (auto &entry : key)
        if (entry.first == k) {
          entry.second = v.str();
          return;
        }
      key.emplace_back(k.str(), v.str());
    };

    // With fusable-chunk-stages and fuse-preprocessing, the preprocessing
    // stages whose results a per-chunk stage of the gate cumsum reads run
    // on its chunk programs.
    GateCumsumOp chunkGate;
    if (fusableChunkStages && fusePreprocessing)
      for (auto gate : body.getOps<GateCumsumOp>())
        if (buffers.contains(gate.getG()) &&
            (!gate.getCuSeqlens() || buffers.contains(gate.getCuSeqlens()))) {
          chunkGate = gate;
          break;
        }
    auto chunkGateFor = [&](Operation &op) -> GateCumsumOp {
      if (!chunkGate || !isa<L2NormOp, BetaActivationOp>(op))
        return {};
      for (Operation *user : op.getResult(0).getUsers())
        if (getGateOperand(user) == chunkGate.getResult())
          return chunkGate;
      return {};
    };

    // The fused per-chunk stages ask for their mapping with the forward's
    // chunk recurrence: its K and whether its dots take 16-bit operands.
    KernelShape fusedChunkStageShape;
    if (fusableChunkStages)
      for (auto recurrence : body.getOps<ChunkRecurrenceOp>()) {
        fusedChunkStageShape =
            getStateKernelShape(recurrence.getKg(), recurrence.getV(),
                                recurrence.getCuSeqlens());
        break;
      }
    fusedChunkStageShape.fusedChunkStage = true;

    unsigned counter = 0;
    for (Operation &op : body.without_terminator()) {
      programParts.push_back(op.getName().stripDialect().str());
      StageContext ctx{module,
                       hb,
                       buffers,
                       allocate,
                       (func.getName() + "_" + op.getName().stripDialect() +
                        "_" + Twine(counter++))
                           .str(),
                       *target,
                       blockK,
                       forcedMapping,
                       recurrencesOnRegisters,
                       fusableChunkStages,
                       chunkGateFor(op),
                       exactDiagonalFactoring,
                       exactDiagonalRows,
                       approximateSigmoid,
                       describe,
                       addKey,
                       fusedChunkStageShape};
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(&op)
              .Case<L2NormOp, BetaActivationOp, GateCumsumOp, IntraDiagOp,
                    InterSolveOp, WYRecomputeOp, OutputOp, StateScanOp,
                    StateScanOutputOp, DecayApplyOp, ChunkRecurrenceOp>(
                  [&](auto stage) { return lowerStage(stage, ctx); })
              .Default([&](Operation *other) {
                return other->emitOpError(
                    "has no lowering to tile kernels yet");
              });
      if (failed(result)) {
        host.erase();
        return failure();
      }
    }
    func::ReturnOp::create(hb, ret.getLoc());
    host.setVisibility(func.getVisibility());

    for (unsigned i = 0; i < numArgs; ++i) {
      if (argNames[i])
        continue;
      argNames[i] = b.getStringAttr("arg" + Twine(i));
      std::string dims;
      auto memType = cast<MemRefType>(entry->getArgument(i).getType());
      for (auto [d, size] : llvm::enumerate(memType.getShape()))
        dims += (d ? "," : "") +
                (ShapedType::isDynamic(size) ? "D" + std::to_string(i) + "_" +
                                                   std::to_string(d)
                                             : std::to_string(size));
      argDims[i] = b.getStringAttr(dims);
    }
    host->setAttr(kda::KDADialect::getArgNamesAttrName(),
                  b.getArrayAttr(argNames));
    host->setAttr(kda::KDADialect::getArgDimsAttrName(),
                  b.getArrayAttr(argDims));
    SmallVector<NamedAttribute> keyAttrs;
    if (auto programKey = func->getAttrOfType<DictionaryAttr>(
            kda::KDADialect::getProgramKeyAttrName())) {
      // A decomposed kda.chunk_fwd: its own key replaces the stages' keys.
      keyAttrs.append(programKey.begin(), programKey.end());
    } else {
      keyAttrs.push_back(b.getNamedAttr(
          "program", b.getStringAttr(llvm::join(programParts, "+"))));
      for (auto &[k, v] : key)
        keyAttrs.push_back(b.getNamedAttr(k, b.getStringAttr(v)));
    }
    host->setAttr(kda::KDADialect::getKeyAttrName(),
                  b.getDictionaryAttr(keyAttrs));
    func.erase();
    return success();
  }
};

} // namespace
