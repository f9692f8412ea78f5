//===- GPUHoistUniformAddresses.cpp - program base pointers in kernels ----===//
//
// After the memref lowering every global access of a kernel computes its
// address from scratch: the pointer argument plus one 64-bit linear index,
// a sum such as b*stride0 + t*12288 + h*128 + k in which the batch and head
// terms are the same for every access of the program and only the row and
// column terms vary. LLVM does not pull the common part out of the sums, so
// each access keeps its own 64-bit partial sums alive: with a dynamic batch
// the register-mapped seed kernel needed 247 registers against 192 with a
// static batch of one. This pass splits every such address into a program
// base (the pointer plus the terms that are the same for every thread of
// the program, computed once where it dominates the pointer's accesses) and
// the per-access rest, which is what a hand-written kernel does (Triton's
// programs offset their pointers by the program's block once, then add
// per-thread offsets).
//
//===----------------------------------------------------------------------===//

#include "kda/Transforms/Passes.h"
#include "kda/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::kda {
#define GEN_PASS_DEF_GPUHOISTUNIFORMADDRESSESPASS
#include "Transforms/Passes.h.inc"
} // namespace mlir::kda

using namespace mlir;

namespace {

/// `a * b` and `a + b` modulo 2^64, as the 64-bit address arithmetic they
/// stand for (no signed overflow in the compiler itself).
int64_t wrappingMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}
int64_t wrappingAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}

/// One term of a flattened integer sum: `value * scale`.
struct Term {
  Value value;
  int64_t scale;
};

/// A sum of terms and a constant.
struct LinearSum {
  SmallVector<Term> terms;
  int64_t constant = 0;
  /// The adds, subtracts, multiplies and shifts the flattening looked
  /// through.
  SmallPtrSet<Operation *, 8> through;
};

/// A uniform term of an address, named by its representative (equal for two
/// copies of one computation), with a value of the address's own.
struct NamedTerm {
  Value name;
  Value own;
  int64_t scale;
};

/// Ops that only compute a value from their operands and never trap, so a
/// copy may run in the entry block even where the original was guarded.
bool isSpeculatableArithmetic(Operation *op) {
  if (isa<LLVM::AddOp, LLVM::SubOp, LLVM::MulOp, LLVM::ShlOp, LLVM::AndOp,
          LLVM::OrOp, LLVM::XOrOp, LLVM::SExtOp, LLVM::ZExtOp, LLVM::TruncOp,
          LLVM::PtrToIntOp, LLVM::ConstantOp>(op))
    return true;
  // Division by a constant other than zero (and -1 for signed division).
  if (isa<LLVM::UDivOp, LLVM::URemOp, LLVM::SDivOp, LLVM::SRemOp>(op)) {
    APInt divisor;
    if (!matchPattern(op->getOperand(1), m_ConstantInt(&divisor)))
      return false;
    return !divisor.isZero() && !divisor.isAllOnes();
  }
  return false;
}

/// One address of a kernel: a GEP with one dynamic index, or the integer
/// root of `ptrtoint(%arg) + bytes`, flattened into a sum of byte terms.
struct Address {
  Operation *op;
  BlockArgument pointer;
  LinearSum bytes;
};

/// Splits the addresses of one kernel.
class AddressSplitter {
public:
  explicit AddressSplitter(LLVM::LLVMFuncOp func)
      : func(func), entry(&func.getBody().front()),
        layout(DataLayout::closest(func)), dominance(func) {}

  void run() {
    SmallVector<Operation *> candidates;
    func.walk([&](Operation *op) {
      if (op->getBlock() != entry && isa<LLVM::GEPOp, LLVM::AddOp>(op))
        candidates.push_back(op);
    });
    SmallVector<Address> found;
    for (Operation *op : candidates) {
      std::optional<Address> address;
      if (auto gep = dyn_cast<LLVM::GEPOp>(op))
        address = analyzeGEP(gep);
      else
        address = analyzeIntegerAddress(cast<LLVM::AddOp>(op));
      if (address)
        found.push_back(std::move(*address));
    }
    // An address computed from another one stays as it is: rewriting the
    // inner one replaces and erases values the outer one's terms name.
    DenseSet<Operation *> addressOps;
    for (const Address &address : found)
      addressOps.insert(address.op);
    auto isNested = [&](const Address &address) {
      for (Operation *op : address.bytes.through)
        if (op != address.op && addressOps.contains(op))
          return true;
      return llvm::any_of(address.bytes.terms, [&](const Term &term) {
        Operation *def = term.value.getDefiningOp();
        return def && def != address.op && addressOps.contains(def);
      });
    };
    // Group the addresses by the pointer argument they start from.
    llvm::MapVector<Value, SmallVector<Address>> byPointer;
    for (Address &address : found) {
      if (isNested(address))
        continue;
      pending.insert(address.op);
      byPointer[address.pointer].push_back(std::move(address));
    }
    for (auto &[pointer, addresses] : byPointer) {
      rebase(cast<BlockArgument>(pointer), addresses);
      // Values erased by the rewrite may be named in the caches.
      uniform.clear();
      representatives.clear();
      byStructure.clear();
    }
  }

private:
  /// True when `v` has the same value in every thread of the program and
  /// can be computed in the entry block: kernel arguments, block ids and
  /// constants, combined by speculatable arithmetic.
  bool isUniform(Value v, int depth = 0) {
    auto known = uniform.find(v);
    if (known != uniform.end())
      return known->second;
    bool result = false;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      result = arg.getOwner() == entry;
    } else if (depth < 24) {
      Operation *op = v.getDefiningOp();
      if (isa<NVVM::BlockIdXOp, NVVM::BlockIdYOp, NVVM::BlockIdZOp,
              NVVM::GridDimXOp, NVVM::GridDimYOp, NVVM::GridDimZOp>(op)) {
        result = true;
      } else if (op->getNumRegions() == 0 &&
                 (op->getNumOperands() > 0 || isa<LLVM::ConstantOp>(op)) &&
                 (isSpeculatableArithmetic(op) ||
                  (op->getBlock() == entry && isMemoryEffectFree(op)))) {
        result = llvm::all_of(op->getOperands(), [&](Value operand) {
          return isUniform(operand, depth + 1);
        });
      }
    }
    uniform[v] = result;
    return result;
  }

  /// Adds `v * scale` to `sum`, looking through adds, subtracts and
  /// multiplies or shifts by constants.
  void flatten(Value v, int64_t scale, LinearSum &sum, int depth = 0) {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c))) {
      sum.constant =
          wrappingAdd(sum.constant, wrappingMul(c.getSExtValue(), scale));
      return;
    }
    Operation *op = v.getDefiningOp();
    if (op && depth < 24) {
      if (auto add = dyn_cast<LLVM::AddOp>(op)) {
        sum.through.insert(op);
        flatten(add.getLhs(), scale, sum, depth + 1);
        flatten(add.getRhs(), scale, sum, depth + 1);
        return;
      }
      if (auto sub = dyn_cast<LLVM::SubOp>(op)) {
        sum.through.insert(op);
        flatten(sub.getLhs(), scale, sum, depth + 1);
        flatten(sub.getRhs(), wrappingMul(scale, -1), sum, depth + 1);
        return;
      }
      if (auto mul = dyn_cast<LLVM::MulOp>(op)) {
        if (matchPattern(mul.getRhs(), m_ConstantInt(&c))) {
          sum.through.insert(op);
          flatten(mul.getLhs(), wrappingMul(scale, c.getSExtValue()), sum,
                  depth + 1);
          return;
        }
        if (matchPattern(mul.getLhs(), m_ConstantInt(&c))) {
          sum.through.insert(op);
          flatten(mul.getRhs(), wrappingMul(scale, c.getSExtValue()), sum,
                  depth + 1);
          return;
        }
      }
      if (auto shl = dyn_cast<LLVM::ShlOp>(op)) {
        if (matchPattern(shl.getRhs(), m_ConstantInt(&c)) &&
            c.getZExtValue() < 32) {
          sum.through.insert(op);
          flatten(shl.getLhs(),
                  wrappingMul(scale, int64_t(1) << c.getZExtValue()), sum,
                  depth + 1);
          return;
        }
      }
    }
    for (Term &term : sum.terms)
      if (term.value == v) {
        term.scale += scale;
        return;
      }
    sum.terms.push_back({v, scale});
  }

  /// A representative of uniform `v`: itself when the entry block computes
  /// it (or it is an argument), otherwise the first value seen that is the
  /// same operation on the same representatives (the memref lowering
  /// repeats a computation in every block that accesses memory).
  Value canonical(Value v) {
    if (isa<BlockArgument>(v) || v.getDefiningOp()->getBlock() == entry)
      return v;
    auto known = representatives.find(v);
    if (known != representatives.end())
      return known->second;
    Operation *op = v.getDefiningOp();
    std::string key;
    llvm::raw_string_ostream os(key);
    os << op->getName().getStringRef() << '/'
       << op->getAttrDictionary().getAsOpaquePointer() << '/'
       << cast<OpResult>(v).getResultNumber();
    for (Value operand : op->getOperands())
      os << '/' << canonical(operand).getAsOpaquePointer();
    for (Type type : op->getResultTypes())
      os << '/' << type.getAsOpaquePointer();
    auto [it, inserted] = byStructure.try_emplace(key, v);
    representatives[v] = it->second;
    return it->second;
  }

  /// Uniform `v` computed at `b`'s insertion point, which the entry block
  /// dominates: values of the entry block as they are, the rest copied.
  Value cloneAt(Value v, OpBuilder &b, IRMapping &copies) {
    if (isa<BlockArgument>(v) || v.getDefiningOp()->getBlock() == entry)
      return v;
    if (Value copy = copies.lookupOrNull(v))
      return copy;
    Operation *op = v.getDefiningOp();
    for (Value operand : op->getOperands())
      copies.map(operand, cloneAt(operand, b, copies));
    Operation *clone = b.clone(*op, copies);
    for (auto [from, to] : llvm::zip(op->getResults(), clone->getResults()))
      copies.map(from, to);
    return copies.lookup(v);
  }

  /// Builds sum(term.value * term.scale) + constant with `b`; null for an
  /// empty sum. With `copies`, the terms are uniform and copied first.
  Value buildSum(OpBuilder &b, Location loc, Type type, ArrayRef<Term> terms,
                 int64_t constant, IRMapping *copies = nullptr) {
    Value sum;
    auto add = [&](Value v) {
      sum = sum ? LLVM::AddOp::create(b, loc, sum, v).getResult() : v;
    };
    for (const Term &term : terms) {
      if (!term.scale)
        continue;
      Value v = copies ? cloneAt(term.value, b, *copies) : term.value;
      if (term.scale != 1)
        v = LLVM::MulOp::create(
            b, loc, v,
            LLVM::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, term.scale)));
      add(v);
    }
    if (constant)
      add(LLVM::ConstantOp::create(b, loc, type,
                                   b.getIntegerAttr(type, constant)));
    return sum;
  }

  /// The uniform terms of `sum`, summed per name (two copies of one
  /// computation are one term); names whose scales cancel are left out.
  SmallVector<NamedTerm> uniformTermsOf(const LinearSum &sum) {
    SmallVector<NamedTerm> terms;
    for (const Term &term : sum.terms) {
      if (!term.scale || !isUniform(term.value))
        continue;
      Value name = canonical(term.value);
      auto same = llvm::find_if(
          terms, [&](const NamedTerm &t) { return t.name == name; });
      if (same != terms.end())
        same->scale += term.scale;
      else
        terms.push_back({name, term.value, term.scale});
    }
    llvm::erase_if(terms, [](const NamedTerm &t) { return t.scale == 0; });
    return terms;
  }

  /// gep %arg[%index] (one dynamic index, element of static size) outside
  /// the entry block, as bytes from %arg.
  std::optional<Address> analyzeGEP(LLVM::GEPOp gep) {
    auto base = dyn_cast<BlockArgument>(gep.getBase());
    if (!base || base.getOwner() != entry)
      return std::nullopt;
    if (gep.getRawConstantIndices().size() != 1 ||
        gep.getRawConstantIndices()[0] != LLVM::GEPOp::kDynamicIndex)
      return std::nullopt;
    Value index = gep.getDynamicIndices()[0];
    auto indexType = dyn_cast<IntegerType>(index.getType());
    if (!indexType || indexType.getWidth() != 64)
      return std::nullopt;
    int64_t size = layout.getTypeSize(gep.getElemType());
    if (size <= 0)
      return std::nullopt;
    Address address{gep, base, {}};
    flatten(index, size, address.bytes);
    return address;
  }

  /// The root of an integer address (an add none of whose users adds to
  /// it) that adds exactly one kernel pointer argument, through ptrtoint,
  /// to other terms.
  std::optional<Address> analyzeIntegerAddress(LLVM::AddOp add) {
    if (add->use_empty())
      return std::nullopt;
    for (Operation *user : add->getUsers())
      if (isa<LLVM::AddOp, LLVM::SubOp>(user))
        return std::nullopt;
    auto type = dyn_cast<IntegerType>(add.getType());
    if (!type || type.getWidth() != 64)
      return std::nullopt;
    Address address{add, BlockArgument(), {}};
    flatten(add.getResult(), 1, address.bytes);
    for (auto it = address.bytes.terms.begin();
         it != address.bytes.terms.end(); ++it) {
      auto toInt = it->value.getDefiningOp<LLVM::PtrToIntOp>();
      if (!toInt || !it->scale)
        continue;
      auto arg = dyn_cast<BlockArgument>(toInt.getArg());
      if (!arg || arg.getOwner() != entry || it->scale != 1 ||
          address.pointer)
        return std::nullopt;
      address.pointer = arg;
      address.bytes.terms.erase(it);
      --it;
    }
    if (!address.pointer)
      return std::nullopt;
    return address;
  }

  /// Gives `pointer` one base, the pointer plus the uniform terms every one
  /// of its addresses has, and rewrites each address as that base plus the
  /// rest of its terms. One base per argument (each is a 64-bit value that
  /// stays live), placed in the block that dominates all the addresses.
  /// Everything is decided before the first rewrite, which erases values.
  void rebase(BlockArgument pointer, ArrayRef<Address> addresses) {
    SmallVector<SmallVector<NamedTerm>> uniformTerms;
    for (const Address &address : addresses)
      uniformTerms.push_back(uniformTermsOf(address.bytes));
    SmallVector<NamedTerm> common = uniformTerms.front();
    for (ArrayRef<NamedTerm> terms : ArrayRef(uniformTerms).drop_front())
      llvm::erase_if(common, [&](const NamedTerm &c) {
        return llvm::none_of(terms, [&](const NamedTerm &t) {
          return t.name == c.name && t.scale == c.scale;
        });
      });
    if (common.empty())
      return;
    // Each address's own terms less the common ones: its non-uniform terms,
    // and its uniform ones per name with the common scale taken off, each
    // kept with a value of the address's own, which dominates it.
    SmallVector<SmallVector<Term>> rests;
    for (auto [address, terms] : llvm::zip(addresses, uniformTerms)) {
      SmallVector<Term> &rest = rests.emplace_back();
      for (const Term &term : address.bytes.terms)
        if (term.scale && !isUniform(term.value))
          rest.push_back(term);
      for (const NamedTerm &term : terms) {
        int64_t scale = term.scale;
        for (const NamedTerm &c : common)
          if (c.name == term.name)
            scale -= c.scale;
        if (scale)
          rest.push_back({term.own, scale});
      }
    }
    // The base goes where it dominates every address and no earlier, so
    // that it is live no longer than the kernel needs it.
    Block *home = addresses.front().op->getBlock();
    for (const Address &address : addresses.drop_front())
      home = dominance.findNearestCommonDominator(home,
                                                  address.op->getBlock());
    OpBuilder atHome(func.getContext());
    if (home == entry)
      atHome.setInsertionPoint(entry->getTerminator());
    else
      atHome.setInsertionPointToStart(home);
    Location loc = pointer.getLoc();
    Type i64 = IntegerType::get(func.getContext(), 64);
    Type i8 = IntegerType::get(func.getContext(), 8);
    SmallVector<Term> commonTerms = llvm::map_to_vector(
        common, [](const NamedTerm &c) { return Term{c.own, c.scale}; });
    IRMapping copies;
    Value offset = buildSum(atHome, loc, i64, commonTerms, 0, &copies);
    Value base = LLVM::GEPOp::create(atHome, loc, pointer.getType(), i8,
                                     pointer, ArrayRef<LLVM::GEPArg>{offset});
    Value baseInt = LLVM::PtrToIntOp::create(atHome, loc, i64, base);
    for (auto [address, rest] : llvm::zip(addresses, rests)) {
      OpBuilder b(address.op);
      Location at = address.op->getLoc();
      Value bytes = buildSum(b, at, i64, rest, address.bytes.constant);
      Value replacement;
      if (auto gep = dyn_cast<LLVM::GEPOp>(address.op)) {
        replacement = base;
        if (bytes)
          replacement = LLVM::GEPOp::create(b, at, gep.getType(), i8, base,
                                            ArrayRef<LLVM::GEPArg>{bytes});
      } else {
        replacement = baseInt;
        if (bytes)
          replacement = LLVM::AddOp::create(b, at, baseInt, bytes);
      }
      address.op->getResult(0).replaceAllUsesWith(replacement);
      pending.erase(address.op);
      eraseDead(address.op);
    }
    if (baseInt.use_empty())
      baseInt.getDefiningOp()->erase();
  }

  /// Erases `op`, now unused, and the computations that only it used; the
  /// addresses still to be rewritten stay.
  void eraseDead(Operation *op) {
    SmallVector<Operation *> work{op};
    while (!work.empty()) {
      Operation *dead = work.pop_back_val();
      if (!dead->use_empty() || !isMemoryEffectFree(dead) ||
          dead->getNumRegions() || pending.contains(dead))
        continue;
      SmallVector<Operation *> producers;
      for (Value operand : dead->getOperands())
        if (Operation *producer = operand.getDefiningOp())
          producers.push_back(producer);
      dead->erase();
      for (Operation *producer : producers)
        if (!llvm::is_contained(work, producer))
          work.push_back(producer);
    }
  }

  LLVM::LLVMFuncOp func;
  Block *entry;
  DataLayout layout;
  DominanceInfo dominance;
  /// The address ops not rewritten yet.
  DenseSet<Operation *> pending;
  DenseMap<Value, bool> uniform;
  DenseMap<Value, Value> representatives;
  llvm::StringMap<Value> byStructure;
};

struct GPUHoistUniformAddressesPass
    : kda::impl::GPUHoistUniformAddressesPassBase<
          GPUHoistUniformAddressesPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      if (func.isExternal() || !func->hasAttr("nvvm.kernel"))
        return;
      auto tuning = kda::tile::TuningAttr::lookup(func);
      if (!allKernels && !(tuning && tuning.getHoistAddresses()))
        return;
      AddressSplitter(func).run();
    });
  }
};

} // namespace
