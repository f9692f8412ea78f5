//===- KDAEnums.td - KDA dialect enums and attributes ----*- tablegen -*-===//

#ifndef KDA_DIALECT_KDA_KDAENUMS_TD
#define KDA_DIALECT_KDA_KDAENUMS_TD

include "KDA/KDADialect.td"
include "mlir/IR/EnumAttr.td"

def KDA_GateMode : I32EnumAttr<"GateMode", "how the per-channel log decay is produced", [
    I32EnumAttrCase<"precomputed", 0>,
    I32EnumAttrCase<"softplus", 1>,
    I32EnumAttrCase<"lower_bound", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::kda";
  let description = [{
    - `precomputed`: `g` already holds the natural-log decay (<= 0).
    - `softplus`: in-kernel gate `-exp(A_log) * softplus(g + dt_bias)`.
    - `lower_bound`: in-kernel gate `lower_bound * sigmoid(exp(A_log) * (g + dt_bias))`.
  }];
}
def KDA_GateModeAttr : EnumAttr<KDA_Dialect, KDA_GateMode, "gate_mode">;

def KDA_SolvePrecision : I32EnumAttr<"SolvePrecision",
    "precision of fp32-operand products", [
    I32EnumAttrCase<"ieee", 0>,
    I32EnumAttrCase<"tf32", 1>,
    I32EnumAttrCase<"tf32x3", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::kda";
}
def KDA_SolvePrecisionAttr : EnumAttr<KDA_Dialect, KDA_SolvePrecision, "precision">;

def KDA_StateLayout : I32EnumAttr<"StateLayout", "layout of the recurrent state", [
    I32EnumAttrCase<"kv", 0>,
    I32EnumAttrCase<"vk", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::kda";
}
def KDA_StateLayoutAttr : EnumAttr<KDA_Dialect, KDA_StateLayout, "state_layout">;

#endif // KDA_DIALECT_KDA_KDAENUMS_TD
