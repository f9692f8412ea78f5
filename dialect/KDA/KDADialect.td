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
  let extraClassDeclaration = [{
    // Attributes of the host function that convert-kda-to-tile writes and
    // the bundle emitter reads: the launch plan's manifest.
    /// Unit attribute marking the host function of a launch plan.
    static constexpr ::llvm::StringLiteral getEntryAttrName() { return "kda.entry"; }
    /// i64: how many leading arguments of the entry are inputs.
    static constexpr ::llvm::StringLiteral getNumInputsAttrName() { return "kda.num_inputs"; }
    /// Array of strings: the name of each entry argument.
    static constexpr ::llvm::StringLiteral getArgNamesAttrName() { return "kda.arg_names"; }
    /// Array of strings: the dimension symbols of each entry argument.
    static constexpr ::llvm::StringLiteral getArgDimsAttrName() { return "kda.arg_dims"; }
    /// Dictionary: the bundle's specialization key.
    static constexpr ::llvm::StringLiteral getKeyAttrName() { return "kda.key"; }
    /// Dictionary on a function holding kda.chunk_fwd: the key of the whole
    /// forward, which replaces the stages' keys.
    static constexpr ::llvm::StringLiteral getProgramKeyAttrName() { return "kda.program_key"; }
    /// String on a preprocessing op (kda.l2norm, kda.beta_activation) that
    /// kda.chunk_fwd's decomposition made: the name of the forward's input
    /// it reads, as the manifest calls it ("q", "k", "beta").
    static constexpr ::llvm::StringLiteral getInputNameAttrName() { return "kda.input_name"; }
  }];
}

class KDA_Op<string mnemonic, list<Trait> traits = []>
    : Op<KDA_Dialect, mnemonic, traits>;

#endif // KDA_DIALECT_KDA_KDADIALECT_TD
