//===- TileTuning.td - how a tile kernel runs on the GPU -*- tablegen -*-===//
//
// The attribute that records a kernel's launch shape and the choices of the
// target's kernel tuning, read by the passes that lower the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_DIALECT_TILE_TILETUNING_TD
#define KDA_DIALECT_TILE_TILETUNING_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_KernelMapping : I32EnumAttr<"KernelMapping",
    "where a kernel's tiles live on the GPU", [
    I32EnumAttrCase<"shared_memory", 0>, I32EnumAttrCase<"registers", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::kda::tile";
}

/// A bool parameter spelled `true` or `false`, `false` when left out.
class Tile_FlagParameter<string desc>
    : DefaultValuedParameter<"bool", "false", desc> {
  let parser = [{[&]() -> ::mlir::FailureOr<bool> {
    if (::mlir::succeeded($_parser.parseOptionalKeyword("true")))
      return true;
    if (::mlir::succeeded($_parser.parseOptionalKeyword("false")))
      return false;
    return $_parser.emitError($_parser.getCurrentLocation(),
                              "expected 'true' or 'false'");
  }()}];
  let printer = [{$_printer << ($_self ? "true" : "false")}];
}

/// The kernel mapping, `shared_memory` when left out.
def Tile_KernelMappingParameter : EnumParameter<Tile_KernelMapping> {
  let defaultValue = "::mlir::kda::tile::KernelMapping::shared_memory";
  let summary = "where the tuning asks for the kernel's tiles";
}

def Tile_TuningAttr : AttrDef<Tile_Dialect, "Tuning"> {
  let mnemonic = "tuning";
  let summary = "how a tile kernel runs on the GPU: threads, register cap, "
                "live-tile budget, K tiles and the tuning's choices";
  let description = [{
    The tuning of one tile kernel, carried by the kernel (a `func.func` with
    `tile.kernel`) as its `tile.tuning` attribute. The kda-to-tile
    conversion records here what the target's kernel tuning chose for each
    kernel it builds; the passes that lower the kernel read it:

    - `threads`: the GPU threads per program (convert-tile-to-gpu,
      convert-tile-to-simt, kda-assign-tile-layouts and the verifier of
      `tile.convert_layout`), in [1, 1024].
    - `max_registers`: the register limit per thread (PTX `.maxnreg`), in
      [0, 255]; 0 (the default) leaves the count to ptxas. A limit given to
      convert-tile-to-gpu for every kernel wins over it.
    - `max_live_bytes`: the bytes of tiles that the kernel's loads may keep
      live by moving up (kda-hoist-tile-loads); 0 (the default) for no
      bound.
    - `block_k`: the width of the K tiles the kernel was built with, for
      kernels that loop over K in tiles of a chosen width; 0 (the default)
      for the others. It records what the kernel's body does; no pass reads
      it.
    - `block_v`: the columns of V per program the kernel was built with,
      for kernels that split V over programs (the state scans and the
      chunk recurrence); 0 (the default) for the others. Like `block_k`,
      a record.
    - `speculate_loads`: the kernel's loads may move out of `scf.if`
      branches (kda-hoist-tile-loads).
    - `hoist_addresses`: the kernel's global addresses become a program base
      plus a per-access offset (gpu-hoist-uniform-addresses, which runs on
      the `llvm.func`: convert-tile-to-gpu keeps the kernel's `tile.tuning`
      on its `gpu.func`, and the NVVM lowering on the `llvm.func`).
    - `mapping`: where the tuning asks for the kernel's tiles:
      `shared_memory` (the default) or `registers` (kda-assign-tile-layouts
      with only-requested gives layouts to such kernels only).
    - `stages`: the pipelining depth of a register kernel's loads in loops,
      in [1, 4]: 1 (the default) loads each trip's tiles in that trip; 2
      loads them one loop trip ahead, the dot operands kept in shared memory
      into buffers of two slots and the register tiles as loop-carried
      values (convert-tile-to-simt, whose `prefetch` option gives every
      kernel at least 2); N > 2 copies the dot operands kept in shared
      memory N - 1 trips ahead into buffers of N slots (one cp.async group
      per trip, the wait leaving the later trips' copies in flight), the
      register tiles still one trip ahead.
    - `transpose_state`: the chunk recurrence was built with its state
      transposed, as [block_v, K] tiles (V rows along the dots' M), so that
      the state and the dot results that feed the next dot enter their dots
      as A operands; false (the default) for [K, block_v] tiles and for
      every other kernel. Like `block_v`, a record.

    The parameters may be written in any order; those at their default
    value may be left out, and are not printed:

    ```mlir
    func.func @k(%a: memref<?x64xbf16>) attributes {tile.kernel,
        tile.tuning = #tile.tuning<threads = 64, max_registers = 168,
                                   block_k = 16, speculate_loads = true,
                                   hoist_addresses = true,
                                   mapping = registers>} {
      return
    }
    // Only the thread count: no register cap, no live-tile bound, shared
    // memory.
    func.func @l(%a: memref<?x64xf32>) attributes {tile.kernel,
        tile.tuning = #tile.tuning<threads = 128>} {
      return
    }
    ```
  }];
  let parameters = (ins
    AttrParameter<"int64_t", "GPU threads per program">:$threads,
    DefaultValuedParameter<"int64_t", "0",
        "register limit per thread, 0 for none">:$max_registers,
    DefaultValuedParameter<"int64_t", "0",
        "bytes of tiles loads may keep live, 0 for no bound">:$max_live_bytes,
    DefaultValuedParameter<"int64_t", "0",
        "width of the kernel's K tiles, 0 when it has none">:$block_k,
    DefaultValuedParameter<"int64_t", "0",
        "columns of V per program, 0 when V is not split">:$block_v,
    Tile_FlagParameter<
        "whether loads may move out of scf.if branches">:$speculate_loads,
    Tile_FlagParameter<
        "whether global addresses split into base and offset">:$hoist_addresses,
    Tile_KernelMappingParameter:$mapping,
    DefaultValuedParameter<"int64_t", "1",
        "pipelining depth of the loads in loops">:$stages,
    Tile_FlagParameter<
        "whether the chunk recurrence holds its state transposed">:$transpose_state
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "int64_t":$threads), [{
      return $_get($_ctxt, threads, /*max_registers=*/0,
                   /*max_live_bytes=*/0, /*block_k=*/0, /*block_v=*/0,
                   /*speculate_loads=*/false, /*hoist_addresses=*/false,
                   ::mlir::kda::tile::KernelMapping::shared_memory,
                   /*stages=*/1, /*transpose_state=*/false);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Most threads of a GPU block (program).
    static constexpr int64_t kMaxThreads = 1024;
    /// Most registers per thread that PTX .maxnreg may give.
    static constexpr int64_t kMaxRegisters = 255;
    /// Deepest load pipelining convert-tile-to-simt implements.
    static constexpr int64_t kMaxStages = 4;

    /// Whether the tuning asks for the kernel's tiles in registers.
    bool requestsRegisters() const {
      return getMapping() == ::mlir::kda::tile::KernelMapping::registers;
    }
    /// The tuning that `op` (a tile kernel, or the gpu.func or llvm.func
    /// that it became) carries as its tile.tuning attribute, or null.
    static TuningAttr lookup(::mlir::Operation *op);
    /// Sets `op`'s tile.tuning attribute to this tuning.
    void attachTo(::mlir::Operation *op) const;
  }];
}

#endif // KDA_DIALECT_TILE_TILETUNING_TD
