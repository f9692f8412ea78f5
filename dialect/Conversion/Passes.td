//===- Passes.td - KDA conversion passes -----------------*- tablegen -*-===//
//
// One pass per lowering step: kda -> tile -> linalg -> (bufferized) -> gpu or
// cpu. Passes that rewrite a program within its level (hoisting,
// bufferization, layouts, address and FP-contraction rewrites of the NVVM
// kernels) are in dialect/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_CONVERSION_PASSES_TD
#define KDA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertChunkFwdToStagesPass
    : Pass<"convert-chunk-fwd-to-stages", "::mlir::ModuleOp"> {
  let summary = "Decompose kda.chunk_fwd into the stage ops of the forward";
  let description = [{
    Replaces every `kda.chunk_fwd` by the chain of stage ops that computes
    it, on tensors: `kda.l2norm` of q and k (with `use_qk_l2norm`),
    `kda.beta_activation` (with `use_beta_sigmoid`), `kda.gate_cumsum`,
    `kda.intra_diag`, `kda.inter_solve`, `kda.wy_recompute`,
    `kda.state_scan` and `kda.output`. Every option of the op is carried to
    the stage that uses it; the scale defaults to `K^-0.5`.

    The enclosing function gets `kda.program_key`, the specialization key of
    the whole forward (`program = "chunk_fwd"`, the shapes and the options),
    which `convert-kda-to-tile` writes to the bundle instead of the keys of
    the individual stages. A function may hold one `kda.chunk_fwd` and
    nothing else of the kda dialect.

    Example:

    ```mlir
    %o = kda.chunk_fwd %q, %k, %v, %g, %beta : (...) -> tensor<1x?x4x64xbf16>
    // becomes
    %G = kda.gate_cumsum %g : ...
    %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.125 : f32} : ...
    %Aqk2, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd {...} : ...
    %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M : ...
    %h, %vn = kda.state_scan %kg, %w, %u, %G : ...
    %o = kda.output %q, %G, %Aqk2, %h, %vn {scale = 0.125 : f32} : ...
    ```

    With `chunk-size` set (16, 32 or 64), every forward is computed in chunks
    of that many tokens whatever its `chunk_size` attribute says, and the key
    records the size used: the chunk size as a compile option.
  }];
  let options = [
    Option<"chunkSize", "chunk-size", "int64_t", /*default=*/"0",
           "Chunk size of every forward (16, 32 or 64); 0 keeps each "
           "op's chunk_size">,
  ];
  let dependentDialects = ["::mlir::kda::KDADialect"];
}

def ConvertKDAToTilePass : Pass<"convert-kda-to-tile", "::mlir::ModuleOp"> {
  let summary = "Lower kda stage ops to tile kernels and a host launch plan";
  let description = [{
    Rewrites every function whose body is made of kda ops into a host
    function on memrefs in destination-passing style (results become trailing
    output arguments) whose body is a sequence of `tile.launch` ops, and adds
    one tile kernel (`func.func` with `tile.kernel`) per launch. Grid sizes
    are computed from the runtime sizes (B, T, and N for varlen). Each
    kernel carries the tuning that the target chose for it, and the width of
    the K tiles it was built with, as its `tile.tuning` attribute
    (`#tile.tuning`). The pass holds no tuning of its own: it asks the
    kernel tuning target named by its `tuning` option (registered by the
    target's library; `sm_90`, the Hopper tuning measured on an H200, is
    the one there is).
  }];
  let dependentDialects = [
    "::mlir::kda::tile::TileDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::func::FuncDialect",
    "::mlir::tensor::TensorDialect"
  ];
  let options = [
    Option<"tuning", "tuning", "std::string", /*default=*/"\"sm_90\"",
           "The kernel tuning target that chooses each kernel's threads, "
           "register cap, K-tile width, mapping and pipelining depth "
           "(a name registered with registerKernelTuningTarget)">,
    ListOption<"tuningOverrides", "tuning-override", "std::string",
               "Entries KERNEL.KEY=VALUE that replace what the tuning target "
               "chose for one kernel (e.g. chunk_recurrence.threads=256), or "
               "for every per-chunk stage kernel (KERNEL chunk_stages); "
               "keys: threads, max_registers, max_live_bytes, block_k, "
               "block_v, speculate_loads, hoist_addresses, stages, mapping "
               "(registers or shared_memory); to try a tuning without "
               "rebuilding the compiler">,
    Option<"blockK", "block-k", "int64_t", /*default=*/"0",
           "Width of the K tiles of the gate, intra_diag and inter_solve "
           "kernels (0: each kernel's own, from the target's kernel "
           "tuning)">,
    Option<"mapping", "mapping", "std::string", /*default=*/"\"tuned\"",
           "Where the kernels' tiles will live on the GPU, which selects "
           "their tuning: 'tuned' (each kernel where the target's tuning "
           "runs it fastest; kernels tuned for registers get "
           "'mapping = registers' in their 'tile.tuning'), 'registers' "
           "(every kernel, for "
           "kda-assign-tile-layouts), 'shared-memory', or "
           "'recurrences-on-registers' (the state scans and the chunk "
           "recurrence with their register tuning, the other kernels "
           "'shared-memory')">,
    Option<"fusableChunkStages", "fusable-chunk-stages", "bool",
           /*default=*/"false",
           "Build the per-chunk stages for one fused kernel: the gate cumsum "
           "with one program per chunk and value head that walks the K "
           "tiles, numbered and partitioned like the other per-chunk stages "
           "(tile.partition chunks<BT>; by default one program per K tile, "
           "chunk and value head), and the gate, intra_diag, inter_solve "
           "and wy_recompute with their shared-memory tuning (the mapping "
           "kda-fuse-tile-launches gives the fused kernel)">,
    Option<"fusePreprocessing", "fuse-preprocessing", "bool",
           /*default=*/"false",
           "With fusable-chunk-stages: l2norm and beta_activation whose "
           "results a per-chunk stage of the gate cumsum reads run on the "
           "gate's chunk programs, so that they join the fused kernel">,
    Option<"exactDiagonalFactoring", "exact-diagonal-factoring", "bool",
           /*default=*/"false",
           "intra_diag's exact path factors the decays 2^(G_i - G_j) "
           "through the sub-chunk's reference row, as tf32x3 dots (S_qk at "
           "tf32 for 16-bit I/O), where the sub-chunk's gate drop max_d "
           "(G_first,d - G_last,d) is at most 64 (log2 units): 32 "
           "exponentials per column instead of 256; pairwise elsewhere "
           "(exact for any g <= 0)">,
    Option<"exactDiagonalRows", "exact-diagonal-rows", "bool",
           /*default=*/"false",
           "intra_diag's exact path forms its pairwise decays by key rows "
           "(fla's formulation), over the block's lower triangle only: the "
           "rows of a sub-chunk in two halves of 8 ([8, BK] tiles), and per "
           "key row j a tile 2^(G_i,d - G_j,d) summed along d into column "
           "j of the halves at or below it (j < 8: both, j >= 8: the "
           "bottom one), in an scf.for over the rows; 2-D tiles only, so "
           "the register mapping takes the kernel (the pairwise form's "
           "[BK, BC, BC] tiles keep it on shared memory). With "
           "exact-diagonal-factoring, the same halves as its fallback">,
    Option<"approximateSigmoid", "approximate-sigmoid", "bool",
           /*default=*/"false",
           "The sigmoids of the in-kernel gate (lower_bound mode) and of "
           "beta_activation as s / (1 + 2^(-x log2(e))), the division with "
           "the afn fast-math flag (on the GPU one ex2.approx.ftz and an "
           "approximate division) instead of s / (1 + exp(-x)) with an IEEE "
           "division">
  ];
}

def ConvertTileToLinalgPass : Pass<"convert-tile-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower tile compute ops inside tile kernels to linalg on tensors";
  let description = [{
    Tile loads become clamped `memref.subview`s padded to the tile shape with
    `tensor.pad`, stores become `bufferization.materialize_in_destination`
    into clamped subviews, and compute ops become linalg ops
    (`linalg.matmul`, `linalg.transpose`, `linalg.fill`, and
    `linalg.generic` for reductions, broadcasts and elementwise arith/math
    on tiles). Elementwise producers then fuse into their consumers; into a
    reduction only through an operand it reads once per element, and a
    producer that computes math functions (exp2, log, ...) not into a
    broadcast of its result, so no input is recomputed; reductions over the same domain that read a
    common input then merge into one generic with an output each. Scans become a `linalg.generic` that combines, for
    each output element, the inputs at or before it in index order (their
    inputs are not fused into them). `tf32` dots round their operands to tf32
    (round to nearest) before an exact product, `tf32x3` sums three such
    products. `tile.varlen_chunk` becomes a binary search (`scf.while`).
    Program ids and launches are kept.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::bufferization::BufferizationDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def ConvertTileToSIMTPass : Pass<"convert-tile-to-simt", "::mlir::ModuleOp"> {
  let summary = "Lower tile kernels with register tiles (#tile.dist) to per-thread code";
  let description = [{
    For every tile kernel whose tiles carry `#tile.dist` layouts (all of
    them must), each tile becomes the vector of the elements one thread
    holds, in the layout's register order, and each op becomes code on
    those vectors:

    - elementwise `arith` / `math` ops, splat constants, `tile.splat`,
      `tile.iota` and `tile.tri_mask` work on the thread's registers (the
      coordinates of its elements come from its lane and warp ids);
    - `tile.load` / `tile.store` read and write the thread's elements in
      global memory directly, masked by the box (a store writes each
      element once, from the first thread that holds a copy); since the
      threads that store an element are not in general those that read it
      back, a `gpu.barrier` goes between an access and an earlier one to
      the same buffer (a kernel argument, through its views) when one of
      them writes, unless a barrier already separates them or their boxes
      provably do not meet (apart along a dimension whose first indices
      differ by constants, and across the trips of an `scf.for` for
      indices that grow with its induction variable);
    - `tile.dot` of bf16 / f16 operands into an f32 accumulator becomes
      `mma.sync.m16n8k16` on the registers: the operands must be in the
      layouts mma.sync reads (`getMmaOperandA16` / `getMmaOperandB16` and
      `getMmaAccumulator` of `#tile.dist`), which is checked lane by lane;
      a 16-bit load of 8 KiB or more that several warps would hold whole
      and that only dots read (as A or B, itself or transposed) stays in
      a padded shared buffer, copied there with `cp.async` (the wait and
      its barrier right before the first reader), and the dots read its
      fragments with
      `ldmatrix` (`.trans` where the buffer holds the transpose of what
      the fragment needs); in an `scf.for` whose trips load such tiles at
      addresses that change with the induction variable, each is copied
      one trip ahead into a buffer of two slots (in kernels whose
      `tile.tuning` has `stages = 2`, or all with `prefetch`): trip i + 1's
      copies are issued right after the wait and barrier that publish trip
      i's, one barrier per trip; a 16-bit `tile.convert_layout` of 8 KiB
      or more whose result only dots read and several warps would hold
      whole (a computed A operand) is stored once into such a buffer
      between two barriers, and the dots read it the same way;
    - `tile.dot` of f32 operands at `tf32` precision becomes
      `mma.sync.m16n8k8.tf32`, each operand register rounded once to tf32
      (to nearest, ties away from zero); at `tf32x3` each register is split
      into a rounded high part and the rounded remainder and three
      products are summed, small terms first (`getMmaOperandA32` /
      `getMmaOperandB32`);
    - `tile.unit_lower_inverse` goes through shared memory: its inputs are
      stored into one buffer, the threads solve the columns of all the
      matrices at once by forward substitution into one buffer of all the
      inverses (transposed: each thread writes its column as one padded
      row, 16 bytes at a time), and each thread loads its elements (three
      barriers);
    - `tile.convert_layout`, `tile.trans` and `tile.broadcast` rename
      registers when every thread already holds what its result needs; a
      16-bit `convert_layout` that, within each warp, transposes 8x8
      blocks (an accumulator becoming a B operand) is one `movmatrix` per
      register pair; a 16- or 32-bit `convert_layout` or `trans` that
      keeps every element in its warp, with source lanes XOR-linear in the
      lane's bits and the same lane pattern in every warp, is one
      `shfl.sync.idx` per result register (per pair of 16-bit registers
      whose sources are consecutive registers of one lane) and candidate
      source register and a select by lane with `warp-shuffles`; otherwise
      `convert_layout` and `trans` go through shared memory (a barrier,
      stores of each thread's runs along the last dimension, a barrier,
      loads), and `broadcast` is an error (its input must be a slice of
      its result's layout);
    - `tile.reduce` combines in registers, then across lanes with xor
      shuffles, then across warps through a small shared buffer.

    `scf.for` / `scf.if` carrying tiles carry the vectors. Kernels without
    layouts are left as they are, for `convert-tile-to-linalg` and the
    shared-memory mapping of `convert-tile-to-gpu`. `tile.scan` has no
    per-thread lowering yet (an error).

    ```mlir
    #acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1],
                      lanes = [8, 4], elems = [1, 2],
                      lane_strides = [4, 1], warp_strides = [1, 1]>
    %s = tile.dot %x, %y, %zero
        : tensor<16x16xbf16, #a>, tensor<16x16xbf16, #b> -> tensor<16x16xf32, #acc>
    // becomes, in each thread, two nvvm.mma.sync on vector<8xf32> registers
    ```
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::nvgpu::NVGPUDialect"
  ];
  let options = [
    Option<"numThreadsDefault", "num-threads", "int64_t", /*default=*/"128",
           "Threads per block when a kernel has no 'tile.tuning' attribute">,
    Option<"prefetch", "prefetch", "bool", /*default=*/"false",
           "Load a loop's tiles one trip ahead in every kernel (else only "
           "in kernels whose tile.tuning has stages = 2): dot operands kept "
           "in shared memory into buffers of two slots, register tiles "
           "whose address changes from trip to trip as loop-carried "
           "values">,
    Option<"warpShuffles", "warp-shuffles", "bool", /*default=*/"false",
           "Move the elements of a layout change that stays within each "
           "warp by shfl.sync.idx instead of through shared memory (off by "
           "default: measured slower in the chunk recurrence)">
  ];
}

def ConvertTileToGPUPass : Pass<"convert-tile-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Map bufferized tile kernels onto GPU thread blocks";
  let description = [{
    Moves every tile kernel into a `gpu.module` of its own
    (`@<kernel>_module`, so that the passes nested on `gpu.module` and the
    code generation of `kda-serialize-gpu-modules` run the kernels side by
    side) as a `gpu.func` kernel: one
    program per thread block, `tile.program_id` / `tile.num_programs` become
    `gpu.block_id` / `gpu.grid_dim`, workgroup allocations become views into
    one shared byte block (buffers whose live ranges do not overlap share
    bytes; a buffer a loop carries first gets an allocation of its own
    before the loop, unless the loop hands it on unchanged (updated in
    place), when the loop runs on the initial buffer; 2-D buffers whose rows are a multiple of 128 bytes, and
    16-bit tensor-core matmul operands whose rows are 32 or 64 bytes, get
    16 bytes of padding per row, against bank conflicts). Tile loads (a copy
    from a global memref into a whole shared tile, or into its corner after
    a zero fill) become `cp.async` copies of 16-byte (or 8-, 4-byte) pieces
    that zero-fill past the box, one wait per group of consecutive loads
    (placed before the first op that touches the group's bytes, so the ops
    in between overlap the copies), under a run-time alignment check whose else branch keeps the fill and
    copy. Tile stores (a copy from a whole shared tile, or its leading
    corner, into a global memref) move 16-byte (or 8-, 4-byte) pieces, a
    vector load from shared memory and a vector store per piece, element by
    element only where the box cuts a piece, under the same kind of check
    (the else branch is the copy distributed like any op). Each other linalg op is distributed over the block's threads: its
    parallel iteration space, seen as rows of columns, is split with a
    static per-thread schedule (a thread keeps a column and takes every
    k-th row, or takes every row at columns tid, tid + N, ...; unrolled)
    where the extents allow, else strided over the threads; its reduction
    dimensions run sequentially in each thread, outside the unrolled
    per-thread loop when no iteration is guarded (one reduction step for
    all of a thread's outputs). Barriers separate ops only
    where one touches shared memory another thread wrote or read in an
    earlier op since the last barrier (byte ranges in the packed block;
    elementwise ops over one view with identity maps need none). Matmuls
    run on tensor cores instead when their static shapes allow: those
    marked `tile.tf32` (operands already rounded to tf32, multiples of
    16x8x8) with `mma.sync.m16n8k8`, one 16x8 tile per warp at a time;
    those of bf16 or f16 operands into f32 (multiples of 16x8x16) with
    `mma.sync.m16n8k16`, each warp taking (16 m) x (8 n) tiles with
    fragments from `ldmatrix` where the rows start on 16-byte boundaries.
    An accumulator zero-filled right before its matmul starts from zero
    registers; one that only the next elementwise op reads stays in
    registers, that op applied to them (its epilogue); an elementwise op
    right before the matmul that writes the accumulator without reading it
    (S * 2^g) is computed into the accumulator registers instead of being a
    pass over shared memory (its prologue). The host
    functions and their `tile.launch` ops are kept:
    they are the launch plan.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::affine::AffineDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::vector::VectorDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::LLVM::LLVMDialect"
  ];
  let options = [
    Option<"numThreads", "num-threads", "int64_t", /*default=*/"128",
           "Threads per block when a kernel has no 'tile.tuning' attribute">,
    Option<"maxRegisters", "max-registers", "int64_t", /*default=*/"0",
           "Register limit per thread for every kernel (PTX .maxnreg); 0 "
           "leaves it to the max_registers of each kernel's 'tile.tuning', "
           "or to ptxas where a kernel has none">
  ];
}

def ConvertGPUExp2ToIntrinsicPass
    : Pass<"convert-gpu-exp2-to-intrinsic", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower f32 math.exp2 in GPU kernels to ex2.approx.ftz";
  let description = [{
    Replaces every `f32` `math.exp2` inside a `gpu.module` by a call of the
    NVVM intrinsic `llvm.nvvm.ex2.approx.ftz`, and every one on a 1-D
    vector of `f32` (the register mapping's per-thread values) by one call
    per element, so that both GPU mappings compute the same function. One
    call is one
    `ex2.approx.ftz.f32` instruction (one `MUFU.EX2`; 2 ulp like
    `ex2.approx.f32`, whose subnormal results below 2^-126 it flushes to 0,
    saving a compare and two multiplies per call). Without this pass
    `convert-gpu-to-nvvm` turns it into a call of libdevice's `__nv_exp2f`
    (`ex2.approx.f32`), which makes the kernel need libdevice, and so a
    CUDA toolkit, at compile time; vectors would become `ex2.approx.f32`
    (with its subnormal handling). Other types are left to libdevice.

    Example:

    ```mlir
    %e = math.exp2 %x : f32
    // becomes
    %e = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz"(%x) : (f32) -> f32

    %v = math.exp2 %w : vector<2xf32>
    // becomes
    %0 = vector.extract %w[0] : f32 from vector<2xf32>
    %1 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz"(%0) : (f32) -> f32
    %2 = vector.insert %1, %w [0] : f32 into vector<2xf32>
    %3 = vector.extract %w[1] : f32 from vector<2xf32>
    %4 = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz"(%3) : (f32) -> f32
    %v = vector.insert %4, %2 [1] : f32 into vector<2xf32>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def ConvertTileToCPUPass : Pass<"convert-tile-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Turn tile launches into loops over the program grid";
  let description = [{
    Gives every tile kernel three trailing `index` arguments (the program id)
    plus three for the grid size, replaces `tile.program_id` and
    `tile.num_programs` by them, and replaces each `tile.launch` by an
    `scf.for` nest over the grid that calls the kernel. Tile temporaries
    become stack allocations (`memref.alloca`), freed when each program
    returns.
  }];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"
  ];
}

#endif // KDA_CONVERSION_PASSES_TD
