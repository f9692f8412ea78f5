//===- OpaqueValue.cpp - values LLVM cannot see through -------------------===//

#include "OpaqueValue.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

Value mlir::kda::createOpaqueI64(OpBuilder &b, Location loc, Value value,
                                 ValueRange ties) {
  SmallVector<Value> inputs = {value};
  llvm::append_range(inputs, ties);
  std::string constraints = "=l";
  for (size_t i = 0; i < inputs.size(); ++i)
    constraints += ",l";
  return LLVM::InlineAsmOp::create(
             b, loc, b.getI64Type(), inputs, "mov.b64 $0, $1;", constraints,
             /*has_side_effects=*/false, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
             ArrayAttr())
      .getResult(0);
}
