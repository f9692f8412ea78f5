//===- KDADialect.td - KDA problem-level dialect ---------*- tablegen -*-===//
//
// The kda dialect: Kimi Delta Attention at the problem level.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_DIALECT_KDA_KDADIALECT_TD
#define KDA_DIALECT_KDA_KDADIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def KDA_Dialect : Dialect {
  let name = "kda";
  let cppNamespace = "::mlir::kda";
  let summary = "Kimi Delta Attention (chunked gated linear attention), problem level";
  let description = [{
    The `kda` dialect describes the chunked KDA forward at the level of whole
    tensors: the complete forward (`kda.chunk_fwd`) and one op per stage it
    decomposes into. Batch, token and head dimensions may be dynamic; the
    feature sizes (K, V) are static so that kernels can be specialized. Variants of the algorithm (chunk size, gate mode, solve
    precision, state layout, ...) are attributes, not separate ops.

    Layouts follow flash-linear-attention: `q, k : [B, T, H, K]`,
    `v : [B, T, HV, V]`, `g : [B, T, HV, K]`, `beta : [B, T, HV]`, with
    `HV % H == 0`. Varlen inputs pack sequences along T with `B = 1` and an
    `i64` `cu_seqlens` operand of N+1 offsets.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class KDA_Op<string mnemonic, list<Trait> traits = []>
    : Op<KDA_Dialect, mnemonic, traits>;

#endif // KDA_DIALECT_KDA_KDADIALECT_TD
