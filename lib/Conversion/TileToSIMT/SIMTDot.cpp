//===- SIMTDot.cpp - tile.dot on register tiles as mma.sync ---------------===//
//
// A dot of 16-bit register tiles into an f32 register accumulator becomes
// mma.sync.m16n8k16 on the registers themselves, a dot of f32 tiles at
// tf32 precision mma.sync.m16n8k8.tf32 (each operand register rounded to
// tf32, to nearest with ties away from zero as cvt.rna does; at tf32x3,
// split into a rounded high part and a rounded remainder, and three
// products summed, small terms first, as the CPU path does). The
// registers of each fragment are found, at compile time, by matching the
// PTX fragment map (which lane holds which element of a 16x8 accumulator
// and of an A and a B block) against the tiles' layouts. The operands'
// layouts must put each fragment element in the lane mma.sync expects (the
// layouts of DistLayoutAttr::getMmaAccumulator / getMmaOperandA16 /
// getMmaOperandB16 / getMmaOperandA32 / getMmaOperandB32 do; a tf32 dot
// may also take both operands K-packed, getMmaOperandA32KPacked /
// getMmaOperandB32KPacked, multiplied in a K order they share); a tile in
// another layout needs a tile.convert_layout first. An
// operand kept in shared memory (keepsInSharedMemory), or the transpose of
// one, is read fragment by fragment with ldmatrix instead (.x4 for A, .x2
// for B; .trans where the buffer's rows run along the fragment's columns),
// once per K step and row (A) or column (B) block of the warp.
//
//===----------------------------------------------------------------------===//

#include "SIMTLowering.h"

#include "kda/Dialect/Tile/TileOps.h"
#include "kda/Dialect/Tile/TileUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

using namespace mlir;
using namespace mlir::kda;
using namespace mlir::kda::simt;

namespace {

constexpr int64_t kWarpSize = DistLayoutAttr::kWarpSize;

/// Coordinates (relative to the block's origin) of fragment element `slot`
/// in lane `lane`: PTX ISA, "Matrix fragments for mma.m16n8k16".
using FragmentMap = std::array<int64_t, 2> (*)(int64_t lane, int64_t slot);

std::array<int64_t, 2> accumulatorSlot(int64_t lane, int64_t slot) {
  int64_t g = lane / 4, t = lane % 4;
  return {g + 8 * (slot / 2), 2 * t + slot % 2};
}
std::array<int64_t, 2> operandASlot(int64_t lane, int64_t slot) {
  int64_t g = lane / 4, t = lane % 4;
  return {g + 8 * ((slot / 2) % 2), 2 * t + slot % 2 + 8 * (slot / 4)};
}
std::array<int64_t, 2> operandBSlot(int64_t lane, int64_t slot) {
  int64_t g = lane / 4, t = lane % 4;
  return {2 * t + slot % 2 + 8 * (slot / 2), g};
}
/// The same for mma.m16n8k8 with tf32 operands (one element per register):
/// PTX ISA, "Matrix fragments for mma.m16n8k8".
std::array<int64_t, 2> operandASlotTF32(int64_t lane, int64_t slot) {
  int64_t g = lane / 4, t = lane % 4;
  return {g + 8 * (slot % 2), t + 4 * (slot / 2)};
}
std::array<int64_t, 2> operandBSlotTF32(int64_t lane, int64_t slot) {
  int64_t g = lane / 4, t = lane % 4;
  return {t + 4 * slot, g};
}

/// The mma.sync shape a dot's operands take: K per step, and per operand
/// the fragment map and its number of elements.
struct MmaShape {
  int64_t kStep;
  FragmentMap aMap, bMap;
  int64_t aSlots, bSlots;
};
constexpr MmaShape kMma16 = {16, operandASlot, operandBSlot, 8, 4};
constexpr MmaShape kMmaTF32 = {8, operandASlotTF32, operandBSlotTF32, 4, 2};

/// How the K indices of a dot's fragments map to the operands' columns
/// (A) and rows (B). Natural: K step s reads k0 = s * kStep onwards in
/// order. Packed (tf32 only, DistLayoutAttr::getMmaOperandA32KPacked):
/// lane (g, t) holds K / 4 consecutive columns from t * K / 4, and K step
/// s reads its k = t and k = t + 4 at t * K / 4 + 2 s and
/// t * K / 4 + 2 s + 1; A and B share the order, so the sum is the same.
enum class KOrder { Natural, Packed };

/// The operand column (A) or row (B) that fragment index `kappa`
/// (0 <= kappa < kStep) of K step `step` reads.
int64_t physicalK(KOrder order, int64_t kStep, int64_t k, int64_t step,
                  int64_t kappa) {
  if (order == KOrder::Natural)
    return step * kStep + kappa;
  return (k / 4) * (kappa % 4) + 2 * step + kappa / 4;
}

/// True for a dot of f32 operands (tf32 or tf32x3 mma.sync).
bool isTF32Dot(tile::DotOp op) {
  return cast<RankedTensorType>(op.getA().getType()).getElementType().isF32();
}

/// Where each lane of warp 0 keeps each element of a 2-D layout.
class LaneRegisters {
public:
  explicit LaneRegisters(DistLayoutAttr layout) : layout(layout) {
    shape = layout.getTileShape();
    for (int64_t lane = 0; lane < kWarpSize; ++lane)
      for (int64_t r = 0; r < layout.getNumRegisters(); ++r) {
        SmallVector<int64_t> c = layout.getCoordinates(0, lane, r);
        maps[lane][c[0] * shape[1] + c[1]] = r;
      }
  }

  /// The tile coordinates of fragment element `slot` in lane `lane`.
  using SlotCoordinates =
      function_ref<std::array<int64_t, 2>(int64_t lane, int64_t slot)>;

  /// The register that holds fragment element `slot` at `at(lane, slot)`,
  /// the same in every lane; -1 if there is none.
  int64_t find(SlotCoordinates at, int64_t slot) const {
    int64_t reg = -1;
    for (int64_t lane = 0; lane < kWarpSize; ++lane) {
      std::array<int64_t, 2> c = at(lane, slot);
      if (c[0] >= shape[0] || c[1] >= shape[1])
        return -1;
      auto it = maps[lane].find(c[0] * shape[1] + c[1]);
      if (it == maps[lane].end() || (reg != -1 && it->second != reg))
        return -1;
      reg = it->second;
    }
    return reg;
  }

  /// The registers of all `slots` elements of a fragment.
  FailureOr<SmallVector<int64_t>> fragment(SlotCoordinates at,
                                           int64_t slots) const {
    SmallVector<int64_t> regs;
    for (int64_t s = 0; s < slots; ++s) {
      int64_t r = find(at, s);
      if (r < 0)
        return failure();
      regs.push_back(r);
    }
    return regs;
  }

private:
  DistLayoutAttr layout;
  SmallVector<int64_t> shape;
  std::array<llvm::DenseMap<int64_t, int64_t>, kWarpSize> maps;
};

/// One mma.sync: the accumulator block and, per K step, the A and B
/// registers.
struct MmaBlock {
  SmallVector<int64_t> accRegs;
  SmallVector<SmallVector<int64_t>> aRegs, bRegs;
  /// The block's first row and column in warp 0's part of the
  /// accumulator.
  int64_t row = 0, column = 0;
};

/// The mma.sync blocks of `op` into `blocks`, or failure with the op's
/// diagnostic.
LogicalResult planMma(tile::DotOp op, SmallVector<MmaBlock> &blocks) {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  DistLayoutAttr aLayout = getLayout(aType), bLayout = getLayout(bType),
                 cLayout = getLayout(cType);
  assert(aLayout && bLayout && cLayout &&
         "checked: every tile of the kernel has a layout");
  Type element = aType.getElementType();
  bool tf32 = element.isF32() && op.getPrecision() != tile::Precision::ieee;
  if (!(element.isBF16() || element.isF16() || tf32) ||
      bType.getElementType() != element ||
      !cType.getElementType().isF32())
    return op.emitOpError()
           << "on register tiles needs bf16 or f16 operands "
              "(mma.sync.m16n8k16) or f32 operands at tf32 or tf32x3 "
              "precision (mma.sync.m16n8k8), and an f32 accumulator, got "
           << aType.getElementType() << " x " << bType.getElementType()
           << " -> " << cType.getElementType() << " at "
           << tile::stringifyPrecision(op.getPrecision()) << " precision";
  const MmaShape &shape = tf32 ? kMmaTF32 : kMma16;
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1),
          k = aType.getDimSize(1);
  if (m % 16 || n % 8 || k % shape.kStep)
    return op.emitOpError() << "on register tiles needs M a multiple of 16, "
                               "N of 8 and K of "
                            << shape.kStep << ", got " << m << "x" << n << "x"
                            << k;

  // Each warp multiplies its own rows and columns: the operands' warp
  // offsets must follow the accumulator's, and no warp splits K.
  int64_t numWarps = getProgramWarps(op);
  for (int64_t w = 0; w < numWarps; ++w) {
    SmallVector<int64_t> cw = cLayout.getWarpOffsets(w),
                         aw = aLayout.getWarpOffsets(w),
                         bw = bLayout.getWarpOffsets(w);
    if (aw[0] != cw[0] || aw[1] != 0 || bw[0] != 0 || bw[1] != cw[1])
      return op.emitOpError()
             << "on register tiles needs the operands split over warps as "
                "the accumulator is (A by its rows, B by its columns, "
                "neither along K); warp "
             << w << " holds accumulator rows/columns from (" << cw[0]
             << ", " << cw[1] << "), A from (" << aw[0] << ", " << aw[1]
             << "), B from (" << bw[0] << ", " << bw[1] << ")";
  }

  LaneRegisters accLanes(cLayout), aLanes(aLayout), bLanes(bLayout);
  // The K order A's and B's layouts share: natural, or (tf32) packed.
  auto operandFragments = [&](KOrder order, std::array<int64_t, 2> origin,
                              int64_t step, MmaBlock &block) -> int {
    auto aAt = [&](int64_t lane, int64_t slot) -> std::array<int64_t, 2> {
      std::array<int64_t, 2> c = shape.aMap(lane, slot);
      return {origin[0] + c[0],
              physicalK(order, shape.kStep, k, step, c[1])};
    };
    auto bAt = [&](int64_t lane, int64_t slot) -> std::array<int64_t, 2> {
      std::array<int64_t, 2> c = shape.bMap(lane, slot);
      return {physicalK(order, shape.kStep, k, step, c[0]),
              origin[1] + c[1]};
    };
    FailureOr<SmallVector<int64_t>> a = aLanes.fragment(aAt, shape.aSlots);
    if (failed(a))
      return 0;
    FailureOr<SmallVector<int64_t>> b = bLanes.fragment(bAt, shape.bSlots);
    if (failed(b))
      return 1;
    block.aRegs.push_back(*a);
    block.bRegs.push_back(*b);
    return 2;
  };
  SmallVector<KOrder, 2> orders = {KOrder::Natural};
  if (tf32)
    orders.push_back(KOrder::Packed);
  SmallVector<bool> covered(cLayout.getNumRegisters(), false);
  for (int64_t r = 0; r < cLayout.getNumRegisters(); ++r) {
    SmallVector<int64_t> origin = cLayout.getCoordinates(0, 0, r);
    if (origin[0] % 16 || origin[1] % 8)
      continue;
    FailureOr<SmallVector<int64_t>> acc = accLanes.fragment(
        [&](int64_t lane, int64_t slot) -> std::array<int64_t, 2> {
          std::array<int64_t, 2> c = accumulatorSlot(lane, slot);
          return {origin[0] + c[0], origin[1] + c[1]};
        },
        4);
    if (failed(acc))
      continue;
    // On failure, the order in which A was found (if any) names B as the
    // operand to convert, else the natural order names A.
    int failure = 0;
    int64_t failedStep = 0;
    KOrder failedOrder = KOrder::Natural;
    std::optional<MmaBlock> planned;
    for (KOrder order : orders) {
      MmaBlock block{*acc, {}, {}, origin[0], origin[1]};
      int64_t step = 0;
      for (; step < k / shape.kStep; ++step) {
        int found = operandFragments(order, {origin[0], origin[1]}, step,
                                     block);
        if (found < 2) {
          if (order == KOrder::Natural || found > failure) {
            failure = found;
            failedStep = step;
            failedOrder = order;
          }
          break;
        }
      }
      if (step == k / shape.kStep) {
        planned = std::move(block);
        break;
      }
    }
    int64_t k0 = failedStep * shape.kStep;
    if (!planned && failure == 0)
      return op.emitOpError()
             << "on register tiles needs A in an mma.sync A layout: the "
                "16x"
             << shape.kStep << " block at (" << origin[0] << ", " << k0
             << ") is not where mma.sync reads it; convert A with "
                "tile.convert_layout";
    if (!planned)
      return op.emitOpError()
             << "on register tiles needs B in an mma.sync B layout: the "
             << shape.kStep << "x8 block at (" << k0 << ", " << origin[1]
             << ") is not where mma.sync reads it"
             << (failedOrder == KOrder::Packed
                     ? " in the K-packed order of A"
                     : "")
             << "; convert B with tile.convert_layout";
    for (int64_t reg : *acc)
      covered[reg] = true;
    blocks.push_back(std::move(*planned));
  }
  if (llvm::is_contained(covered, false))
    return op.emitOpError()
           << "on register tiles needs the accumulator in an mma.sync "
              "accumulator layout (each lane holding the elements of 16x8 "
              "blocks that mma.sync writes); convert it with "
              "tile.convert_layout";

  return success();
}

/// An operand kept in shared memory (keepsInSharedMemory): the padded
/// buffer of the loaded tile, the first row of the slot this trip reads
/// (null: 0), and whether the dot reads its transpose.
struct SharedOperand {
  Value buffer;
  Value rowOffset;
  bool transposed = false;
};

/// The shared buffer `operand` of a dot is read from, if any: the operand
/// is a load kept in shared memory, or a tile.trans of one.
SharedOperand findSharedOperand(Value operand,
                                const SharedOperandMap &sharedOperands) {
  Operation *def = operand.getDefiningOp();
  bool transposed = false;
  if (auto trans = dyn_cast_or_null<tile::TransOp>(def)) {
    def = trans.getInput().getDefiningOp();
    transposed = true;
  }
  SharedBuffer shared = def ? sharedOperands.lookup(def) : SharedBuffer();
  return {shared.buffer, shared.rowOffset, shared.buffer && transposed};
}

/// `num` 8x8 matrices of 16-bit elements read by one ldmatrix (.trans
/// with `transpose`) from the padded shared buffer of `shared`, each lane
/// giving the address of element (`row`, `column`) of the slot this trip
/// reads: the i32 registers, one per matrix, in the order mma.sync takes
/// them when the lanes' addresses follow the fragment (see the callers).
SmallVector<Value> loadMatrices(OpBuilder &b, Location loc,
                                const SharedOperand &shared, Value row,
                                Value column, int num, bool transpose) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  Value buffer = shared.buffer;
  if (shared.rowOffset)
    row = arith::AddIOp::create(b, loc, row, shared.rowOffset);
  auto type = cast<MemRefType>(buffer.getType());
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  Value element = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, row, cst(type.getDimSize(1))),
      column);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value address = arith::AddIOp::create(
      b, loc, base,
      arith::MulIOp::create(
          b, loc, arith::AddIOp::create(b, loc, metadata.getOffset(), element),
          cst(bytes)));
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  Value pointer = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3),
      arith::IndexCastUIOp::create(b, loc, i64, address).getResult());
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(num, i32));
  Value words = NVVM::LdMatrixOp::create(
      b, loc, resultType, pointer, num,
      transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
      NVVM::LdStMatrixEltType::B16);
  SmallVector<Value> result;
  for (int i = 0; i < num; ++i)
    result.push_back(LLVM::ExtractValueOp::create(b, loc, words, i));
  return result;
}

/// The four registers of the A fragment of rows [m0, m0 + 16) and columns
/// [k0, k0 + 16) of a shared operand: one ldmatrix.x4. Lanes 8i..8i+7
/// address matrix i (a0a1: rows 0-7, columns 0-7; a2a3: rows 8-15; a4a5:
/// columns 8-15; a6a7: both); a transposed operand's buffer holds A^T, and
/// .trans turns its 8x8 blocks back.
SmallVector<Value> loadSharedFragmentA(OpBuilder &b, Location loc,
                                       SharedOperand shared, Value lane,
                                       Value m0, Value k0) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); };
  auto mul = [&](Value x, int64_t y) { return arith::MulIOp::create(b, loc, x, cst(y)); };
  Value low8 = arith::RemUIOp::create(b, loc, lane, cst(8));
  Value matrix = arith::DivUIOp::create(b, loc, lane, cst(8));
  Value rowHalf = arith::RemUIOp::create(b, loc, matrix, cst(2));
  Value columnHalf = arith::DivUIOp::create(b, loc, matrix, cst(2));
  if (!shared.transposed)
    return loadMatrices(b, loc, shared,
                        add(m0, add(low8, mul(rowHalf, 8))),
                        add(k0, mul(columnHalf, 8)), 4, /*transpose=*/false);
  return loadMatrices(b, loc, shared,
                      add(k0, add(low8, mul(columnHalf, 8))),
                      add(m0, mul(rowHalf, 8)), 4, /*transpose=*/true);
}

/// The two registers of the B fragment of rows [k0, k0 + 16) and columns
/// [n0, n0 + 8) of a shared operand: one ldmatrix.x2, lanes 0-7 addressing
/// rows 0-7 (b0b1) and lanes 8-15 rows 8-15 (b2b3); .trans for a buffer
/// that holds B itself, plain for one that holds B^T.
SmallVector<Value> loadSharedFragmentB(OpBuilder &b, Location loc,
                                       SharedOperand shared, Value lane,
                                       Value k0, Value n0) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); };
  Value low8 = arith::RemUIOp::create(b, loc, lane, cst(8));
  Value half = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, lane, cst(8)), cst(2));
  Value half8 = arith::MulIOp::create(b, loc, half, cst(8));
  if (!shared.transposed)
    return loadMatrices(b, loc, shared, add(k0, add(low8, half8)), n0,
                        2, /*transpose=*/true);
  return loadMatrices(b, loc, shared, add(n0, low8), add(k0, half8), 2,
                      /*transpose=*/false);
}

/// The tf32 dot `op` on registers: per accumulator block and K step of 8,
/// one mma.sync.m16n8k8.tf32 (three at tf32x3). Each operand register is
/// rounded (and split) once, however many blocks read it.
Value lowerTF32Dot(OpBuilder &b, Location loc, tile::DotOp op,
                   ArrayRef<MmaBlock> blocks, Value aRegisters,
                   Value bRegisters, Value accRegisters) {
  auto cType = cast<RankedTensorType>(op.getAcc().getType());
  DistLayoutAttr cLayout = getLayout(cType);
  bool split = op.getPrecision() == tile::Precision::tf32x3;
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  // Register r of an operand as tf32 words: {high} or {high, low}.
  using Parts = SmallVector<Value, 2>;
  llvm::DenseMap<int64_t, Parts> aParts, bParts;
  auto parts = [&](llvm::DenseMap<int64_t, Parts> &cache, Value registers,
                   int64_t reg) -> const Parts & {
    auto [it, inserted] = cache.try_emplace(reg);
    if (inserted) {
      Value x = extractRegister(b, loc, registers, reg);
      Value high = tile::emitRoundToTF32(b, loc, x);
      it->second.push_back(arith::BitcastOp::create(b, loc, i32, high));
      if (split) {
        Value low = tile::emitRoundToTF32(
            b, loc, arith::SubFOp::create(b, loc, x, high));
        it->second.push_back(arith::BitcastOp::create(b, loc, i32, low));
      }
    }
    return it->second;
  };
  SmallVector<Value> acc;
  for (int64_t r = 0; r < cLayout.getNumRegisters(); ++r)
    acc.push_back(extractRegister(b, loc, accRegisters, r));
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(4, f32));
  // (A part, B part) of each product, small terms first: lo.hi, hi.lo,
  // hi.hi.
  SmallVector<std::pair<int, int>> products = {{0, 0}};
  if (split)
    products = {{1, 0}, {0, 1}, {0, 0}};
  for (const MmaBlock &block : blocks) {
    for (auto [aRegs, bRegs] : llvm::zip(block.aRegs, block.bRegs)) {
      for (auto [aPart, bPart] : products) {
        SmallVector<Value> a, bw, c;
        for (int64_t reg : aRegs)
          a.push_back(parts(aParts, aRegisters, reg)[aPart]);
        for (int64_t reg : bRegs)
          bw.push_back(parts(bParts, bRegisters, reg)[bPart]);
        for (int64_t reg : block.accRegs)
          c.push_back(acc[reg]);
        Value mma = NVVM::MmaOp::create(
            b, loc, resultType, a, bw, c, ArrayRef<int64_t>{16, 8, 8},
            std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32,
                                          NVVM::MMATypes::tf32},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (auto [slot, reg] : llvm::enumerate(block.accRegs))
          acc[reg] = LLVM::ExtractValueOp::create(b, loc, mma, slot);
      }
    }
  }
  return buildRegisters(b, loc, getRegisterType(cType), acc);
}

struct DotToMma : OpConversionPattern<tile::DotOp> {
  DotToMma(const TypeConverter &converter, MLIRContext *ctx,
           const SharedOperandMap &sharedOperands)
      : OpConversionPattern(converter, ctx), sharedOperands(sharedOperands) {}

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<MmaBlock> blocks;
    if (failed(planMma(op, blocks)))
      return failure();
    if (isTF32Dot(op)) {
      // f32 operands are never kept in shared memory (keepsInSharedMemory
      // takes 16-bit dots only): every fragment is in registers.
      rewriter.replaceOp(op, lowerTF32Dot(rewriter, op.getLoc(), op, blocks,
                                          adaptor.getA(), adaptor.getB(),
                                          adaptor.getAcc()));
      return success();
    }
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto cType = cast<RankedTensorType>(op.getAcc().getType());
    Type element = aType.getElementType();
    DistLayoutAttr cLayout = getLayout(cType);
    Location loc = op.getLoc();
    // Operands kept in shared memory (keepsInSharedMemory): their
    // fragments come from the buffer, once per K step and row (A) or
    // column (B) block of the warp.
    SharedOperand sharedA = findSharedOperand(op.getA(), sharedOperands);
    SharedOperand sharedB = findSharedOperand(op.getB(), sharedOperands);
    Value lane, warpRow, warpColumn;
    using FragmentKey = std::pair<int64_t, int64_t>;
    llvm::DenseMap<FragmentKey, SmallVector<Value>> fragmentsA, fragmentsB;
    if (sharedA.buffer || sharedB.buffer) {
      ThreadPosition thread = getThreadPosition(rewriter, loc);
      lane = thread.lane;
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      // The warp's first accumulator row and column (lane 0 of the warp).
      SmallVector<Value> offsets =
          getThreadOffsets(rewriter, loc, cLayout, {zero, thread.warp});
      warpRow = offsets[0];
      warpColumn = offsets[1];
    }
    auto index = [&](int64_t v) {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    // f16 pairs travel as vector<2xf16>, bf16 pairs as i32.
    auto asPairs = [&](SmallVector<Value> words) {
      if (!element.isBF16())
        for (Value &word : words)
          word = vector::BitCastOp::create(
              rewriter, loc, VectorType::get({2}, element),
              vector::BroadcastOp::create(
                  rewriter, loc, VectorType::get({1}, rewriter.getI32Type()),
                  word));
      return words;
    };
    auto sharedFragmentA = [&](int64_t row, int64_t k0) {
      auto [it, inserted] = fragmentsA.try_emplace({row, k0});
      if (inserted)
        it->second = asPairs(loadSharedFragmentA(
            rewriter, loc, sharedA, lane,
            arith::AddIOp::create(rewriter, loc, warpRow, index(row)),
            index(k0)));
      return it->second;
    };
    auto sharedFragmentB = [&](int64_t k0, int64_t column) {
      auto [it, inserted] = fragmentsB.try_emplace({k0, column});
      if (inserted)
        it->second = asPairs(loadSharedFragmentB(
            rewriter, loc, sharedB, lane, index(k0),
            arith::AddIOp::create(rewriter, loc, warpColumn, index(column))));
      return it->second;
    };
    auto pack = [&](Value registers, int64_t lo, int64_t hi) -> Value {
      Value pair = vector::FromElementsOp::create(
          rewriter, loc, VectorType::get({2}, element),
          ValueRange{extractRegister(rewriter, loc, registers, lo),
                     extractRegister(rewriter, loc, registers, hi)});
      if (!element.isBF16())
        return pair;
      // bf16 pairs travel as i32 (what NVVM's mma.sync takes).
      Value asInt = vector::BitCastOp::create(
          rewriter, loc, VectorType::get({1}, rewriter.getI32Type()), pair);
      return vector::ExtractOp::create(rewriter, loc, asInt,
                                       ArrayRef<int64_t>{0});
    };
    SmallVector<Value> acc;
    for (int64_t r = 0; r < cLayout.getNumRegisters(); ++r)
      acc.push_back(extractRegister(rewriter, loc, adaptor.getAcc(), r));
    Type f32 = rewriter.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(4, f32));
    NVVM::MMATypes ptxType =
        element.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    for (const MmaBlock &block : blocks) {
      for (auto [step, regs] :
           llvm::enumerate(llvm::zip(block.aRegs, block.bRegs))) {
        auto [aRegs, bRegs] = regs;
        SmallVector<Value> a, b, c;
        int64_t k0 = 16 * static_cast<int64_t>(step);
        if (sharedA.buffer) {
          a = sharedFragmentA(block.row, k0);
        } else {
          for (int64_t p = 0; p < 4; ++p)
            a.push_back(pack(adaptor.getA(), aRegs[2 * p], aRegs[2 * p + 1]));
        }
        if (sharedB.buffer) {
          b = sharedFragmentB(k0, block.column);
        } else {
          for (int64_t p = 0; p < 2; ++p)
            b.push_back(pack(adaptor.getB(), bRegs[2 * p], bRegs[2 * p + 1]));
        }
        for (int64_t reg : block.accRegs)
          c.push_back(acc[reg]);
        Value mma = NVVM::MmaOp::create(
            rewriter, loc, resultType, a, b, c, ArrayRef<int64_t>{16, 8, 16},
            std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (auto [slot, reg] : llvm::enumerate(block.accRegs))
          acc[reg] = LLVM::ExtractValueOp::create(rewriter, loc, mma, slot);
      }
    }
    rewriter.replaceOp(op,
                       buildRegisters(rewriter, loc, getRegisterType(cType), acc));
    return success();
  }

private:
  const SharedOperandMap &sharedOperands;
};

} // namespace

LogicalResult simt::checkDotOnRegisters(Operation *dot) {
  SmallVector<MmaBlock> blocks;
  return planMma(cast<tile::DotOp>(dot), blocks);
}

void simt::populateSIMTDotPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns,
                                   const SharedOperandMap &sharedOperands) {
  patterns.add<DotToMma>(converter, patterns.getContext(), sharedOperands);
}
