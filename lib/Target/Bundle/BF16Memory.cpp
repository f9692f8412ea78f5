//===- BF16Memory.cpp - bf16 values kept as their 16 bits -----------------===//

#include "BF16Memory.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

/// `value` (a bfloat) as i16: the operand of a bitcast from i16, the bits
/// of a constant, or a new bitcast before `before`.
static Value *asI16(Value *value, Instruction *before) {
  Type *i16 = Type::getInt16Ty(value->getContext());
  if (auto *cast = dyn_cast<BitCastInst>(value))
    if (cast->getSrcTy()->isIntegerTy(16))
      return cast->getOperand(0);
  if (auto *constant = dyn_cast<ConstantFP>(value))
    return ConstantInt::get(i16, constant->getValueAPF().bitcastToAPInt());
  IRBuilder<> builder(before);
  return builder.CreateBitCast(value, i16);
}

void mlir::kda::storeBF16AsI16(Module &module) {
  LLVMContext &context = module.getContext();
  Type *bf16 = Type::getBFloatTy(context), *i16 = Type::getInt16Ty(context);
  SmallVector<Instruction *> dead;
  for (Function &function : module)
    for (BasicBlock &block : function)
      for (Instruction &inst : make_early_inc_range(block)) {
        if (auto *load = dyn_cast<LoadInst>(&inst)) {
          if (!load->getType()->isBFloatTy())
            continue;
          IRBuilder<> builder(load);
          LoadInst *bits =
              builder.CreateAlignedLoad(i16, load->getPointerOperand(),
                                        load->getAlign(), load->isVolatile());
          load->replaceAllUsesWith(builder.CreateBitCast(bits, bf16));
          dead.push_back(load);
        } else if (auto *store = dyn_cast<StoreInst>(&inst)) {
          if (!store->getValueOperand()->getType()->isBFloatTy())
            continue;
          IRBuilder<> builder(store);
          builder.CreateAlignedStore(asI16(store->getValueOperand(), store),
                                     store->getPointerOperand(),
                                     store->getAlign(), store->isVolatile());
          dead.push_back(store);
        }
      }
  for (Instruction *inst : dead)
    inst->eraseFromParent();

  // bitcast (bitcast X : i16 to bfloat) to i16 is X; then the bitcasts to
  // bfloat left without users go.
  dead.clear();
  for (Function &function : module)
    for (BasicBlock &block : function)
      for (Instruction &inst : block)
        if (auto *cast = dyn_cast<BitCastInst>(&inst))
          if (cast->getSrcTy()->isBFloatTy() && cast->getDestTy() == i16)
            if (auto *inner = dyn_cast<BitCastInst>(cast->getOperand(0)))
              if (inner->getSrcTy() == i16) {
                cast->replaceAllUsesWith(inner->getOperand(0));
                dead.push_back(cast);
              }
  for (Instruction *inst : dead)
    inst->eraseFromParent();
  for (Function &function : module)
    for (BasicBlock &block : function)
      for (Instruction &inst : make_early_inc_range(block))
        if (auto *cast = dyn_cast<BitCastInst>(&inst))
          if (cast->getDestTy() == bf16 && cast->use_empty())
            cast->eraseFromParent();
}
