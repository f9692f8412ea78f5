//===- Passes.td - KDA transformation passes -------------*- tablegen -*-===//
//
// Passes that rewrite a program within one level of the lowering rather than
// convert it to the next: the stage fusion of the kda level, load hoisting,
// bufferization and register layouts of the tile level, and the rewrites and
// checks of the NVVM kernels. The conversions between levels are in
// dialect/Conversion/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_TRANSFORMS_PASSES_TD
#define KDA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseScanOutputPass : Pass<"kda-fuse-scan-output", "::mlir::ModuleOp"> {
  let summary = "Fuse the state scan and the output into kda.state_scan_output";
  let description = [{
    Replaces each `kda.output` whose `h` and `v_new` come from one
    `kda.state_scan`, and are used by nothing else, with one
    `kda.state_scan_output`: the scan computes each chunk's output from the
    state entering it, so neither the per-chunk states `h` nor `v_new` are
    written to memory and the output needs no kernel of its own. The pair
    must agree on `G`, `cu_seqlens`, `chunk_size` and `state_layout`; pairs
    that do not, or whose intermediates have other users, are left as they
    are.

    Example:

    ```mlir
    %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G : ...
    %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32} : ...
    // becomes
    %o, %ht = kda.state_scan_output %kg, %w, %u, %G, %q, %Aqk
        {scale = 0.125 : f32} : ...
    ```
  }];
  let dependentDialects = ["::mlir::kda::KDADialect"];
}

def FuseRecurrencePass : Pass<"kda-fuse-recurrence", "::mlir::ModuleOp"> {
  let summary = "Write the forward's tail as kda.decay_apply and kda.chunk_recurrence";
  let description = [{
    Replaces each `kda.wy_recompute` whose `w`, `u` and `kg` feed only a
    `kda.state_scan` whose `h` and `v_new` feed only a `kda.output` (or only
    a `kda.state_scan_output`) with the recurrent form: a token-parallel
    `kda.decay_apply` (the gated query `qg = rd(scale * q * 2^G)` and the
    keys `kd = rd(k * 2^G)` and `kg`) and one `kda.chunk_recurrence`, which
    multiplies each chunk's values by the solve `M` itself
    (`v_new = M . rd(beta * (v - kd . S))`). Neither `w`, `u`, `h` nor
    `v_new` is written to memory, the WY recompute's dots move into the
    recurrence, and the output needs no kernel of its own. The ops must
    agree on `G`, `cu_seqlens`, `chunk_size` and `state_layout`; others are
    left as they are.

    Example:

    ```mlir
    %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M : ...
    %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0 : ...
    %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32} : ...
    // becomes
    %qg, %kd, %kg2 = kda.decay_apply %q, %k, %G {scale = 0.125 : f32} : ...
    %o, %ht = kda.chunk_recurrence %qg, %kd, %kg2, %v, %beta, %M, %Aqk, %G
        initial_state %h0 : ...
    ```
  }];
  let dependentDialects = ["::mlir::kda::KDADialect"];
}

def FuseTileLaunchesPass : Pass<"kda-fuse-tile-launches", "::mlir::ModuleOp"> {
  let summary = "Run neighbouring launches of one program partition as one kernel";
  let description = [{
    Replaces each maximal run of `tile.launch` ops that declare the same
    `tile.partition`, run the same grid (the same SSA values: run CSE
    first) and have only ops between them that touch no memory (index
    arithmetic, `memref.dim`, the allocations of later results) with one
    launch of a new kernel. The new kernel's program runs the bodies of the
    run's kernels one after the other, in launch order; its arguments are
    the launches' buffers, each once. The partition is the launches'
    promise that program `p` of a later launch reads, of what an earlier one
    writes, only what program `p` of that launch wrote, so the fused
    program sees the same values as the launches did; within the program,
    a load of a buffer that an earlier body stored into comes after the
    store, and the GPU mapping puts a barrier between them.

    The fused kernel is named after the run's kernels (the first name, then
    each other name without the prefix it shares with the first), takes the
    most threads any of them asks for, no register cap if one of them has
    none (else the highest cap), the smallest live-tile bound any of them
    sets, speculation and address hoisting only if all of them ask for it,
    the register mapping if all of them ask for it (else the shared-memory
    mapping, which lowers any body), and one stage. Kernels whose tiles
    have layouts (`#tile.dist`, laid out for their own thread count) are
    never fused.
    The run's kernels are erased once no other launch uses them.

    Example:

    ```mlir
    tile.launch @intra_diag grid [%n, %c1, %c1] args(%q, %A : ...)
        {tile.partition = "chunks64"}
    %M = memref.alloc(...) : memref<?x?x?x64xbf16>
    tile.launch @inter_solve grid [%n, %c1, %c1] args(%q, %A, %M : ...)
        {tile.partition = "chunks64"}
    // becomes
    %M = memref.alloc(...) : memref<?x?x?x64xbf16>
    tile.launch @intra_diag_inter_solve grid [%n, %c1, %c1]
        args(%q, %A, %M : ...) {tile.partition = "chunks64"}
    ```
  }];
  let dependentDialects = ["::mlir::kda::tile::TileDialect"];
}

def PrivatizeChunkBuffersPass
    : Pass<"kda-privatize-chunk-buffers", "::mlir::ModuleOp"> {
  let summary = "Keep buffers that one fused per-chunk kernel owns on chip";
  let description = [{
    A workspace buffer (`memref.alloc` of the host function) whose only
    user is one `tile.launch` with a `chunks<BT>` partition (after
    `kda-fuse-tile-launches`: the gate cumsum `G` and the diagonal block
    inverses `Akkd` when every stage that reads them runs in the fused
    per-chunk kernel) holds, for program `p`, only rows of `p`'s own chunk,
    written and read by `p` alone. The pass gives it a home of `BT` rows per
    program: a `memref.alloc` of `[1, BT, 1, D]` at the kernel's entry (in
    the memory space `memory-space` names: `workgroup` for the GPU's shared
    memory, `default` for the CPU), every `tile.load` and `tile.store` of it
    indexed at `[0, i - start, 0, j]` and bounded at `bound - start` along
    the rows, `start` being the `tile.chunk_start` the access's stage
    body begins with. The buffer leaves the kernel's arguments and the
    launch, and the workspace shrinks by its size.

    A buffer stays as it is when any other op uses it, when an access is
    not a tile load or store, bounds a batch or head dimension, spans the
    rows without an explicit bound, or has no `tile.chunk_start` before it
    in its kernel.

    Example (`BT = 64`):

    ```mlir
    %G = memref.alloc(%t) : memref<1x?x4x64xf32>
    tile.launch @fused grid [%n, %c1, %c1] args(%g, %G, ...)
        {tile.partition = "chunks64"}
    func.func @fused(%g: ..., %G: memref<1x?x4x64xf32>, ...) {
      %start = tile.chunk_start %row
      tile.store %x, %G[%b, %start, %h, %c0] bounds [%end, %c64] dims [1, 3]
          : tensor<64x64xf32>, memref<1x?x4x64xf32>
    // becomes
    tile.launch @fused grid [%n, %c1, %c1] args(%g, ...)
        {tile.partition = "chunks64"}
    func.func @fused(%g: ..., ...) {
      %G = memref.alloc() : memref<1x64x1x64xf32, #gpu.address_space<workgroup>>
      %start = tile.chunk_start %row
      %rows = arith.subi %end, %start : index
      tile.store %x, %G[%c0, %c0, %c0, %c0] bounds [%rows, %c64] dims [1, 3]
          : tensor<64x64xf32>, memref<1x64x1x64xf32, #gpu.address_space<workgroup>>
    ```
  }];
  let options = [
    Option<"memorySpace", "memory-space", "std::string", "\"default\"",
           "Memory space of the per-program buffers: 'workgroup' (GPU shared "
           "memory) or 'default' (the CPU)">,
  ];
  let dependentDialects = ["::mlir::kda::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::gpu::GPUDialect"];
}

def HoistTileLoadsPass : Pass<"kda-hoist-tile-loads", "::mlir::ModuleOp"> {
  let summary = "Move tile loads of tile kernels up to where their operands exist";
  let description = [{
    In every tile kernel (`func.func` with `tile.kernel`), moves each
    `tile.load` up within its block, past the ops before it that write no
    memory, to just after the last definition of its operands (or the start
    of the block). It stops at any op with regions (loops, branches), at
    other loads (loads keep their order), and at any op that may write what
    it reads: a `tile.store` into the same kernel argument, or any other op
    that writes memory. Distinct arguments of a tile kernel are taken not to
    overlap (the launch plan never passes one buffer twice), so a load moves
    past a store into another argument. A load whose tile an `scf.for` body
    yields as the next value of an iter_arg (a tile loaded an iteration
    ahead) does not move above the last use of that iter_arg: the loaded
    tile can then take the carried tile's buffer.

    Hoisting makes a loaded tile live (in shared memory, on the GPU) from
    its new place on. In a kernel whose `tile.tuning` sets `max_live_bytes`
    (else with the `max-live-bytes` option; 0: no limit), a load does not
    move above an op that uses other tiles once the tiles live there, with
    it, would exceed that many bytes (tensor sizes, without padding): a
    kernel whose loads all move to its start may hold every tile at once
    and fit fewer blocks per SM than it would with the later loads issued
    after the first compute.

    With speculation (the `speculate` option, or `speculate_loads = true` in
    a kernel's `tile.tuning`), a load that reaches the start of an
    `scf.if` branch whose operands are defined before the `scf.if` moves
    above it and on up the enclosing block, and pure scalar ops (the index
    arithmetic of row offsets) move up first, out of branches too, so that
    the loads they feed can follow. Loads of a nest of branches that skip
    sub-chunks past the sequence end then all issue at once instead of one
    branch's loads after the previous branch's compute. A tile.load masks
    what lies outside its bounded dimensions; a load stays in its branch
    when the branch condition tests one of its offsets in a dimension it
    does not bound. Otherwise the kernel's builder vouches, by asking for
    speculation, that each unbounded offset is in range wherever the load
    may move (the inter_solve kernel clamps its one such row offset).

    Loads that were spread over a block then stand next to each other: the
    GPU lowering issues neighbouring loads as one group of asynchronous
    copies, and waits for them only where their data is first used, so one
    memory latency covers all of them and the compute before the first use
    overlaps it.

    Example:

    ```mlir
    %q = tile.load %arg0[...] ... -> tensor<64x64xbf16>
    %e = math.exp2 %q2 : tensor<64x64xf32>
    %h = tile.load %arg3[...] ... -> tensor<64x64xbf16>
    // becomes
    %q = tile.load %arg0[...] ... -> tensor<64x64xbf16>
    %h = tile.load %arg3[...] ... -> tensor<64x64xbf16>
    %e = math.exp2 %q2 : tensor<64x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::kda::tile::TileDialect"];
  let options = [
    Option<"maxLiveBytes", "max-live-bytes", "int64_t", /*default=*/"0",
           "Bytes of live tiles above which a load stops moving up past an "
           "op that uses tiles, in kernels whose tile.tuning sets no "
           "max_live_bytes (0: no limit)">,
    Option<"speculate", "speculate", "bool", /*default=*/"false",
           "Also move loads, and the index arithmetic they need, out of "
           "scf.if branches, unless the branch condition tests an offset "
           "the load does not bound; the kernel must keep its other "
           "unbounded offsets in range (the kernels whose tile.tuning has "
           "speculate_loads = true move them without it)">
  ];
}

def KDABufferizeTilesPass : Pass<"kda-bufferize-tiles", "::mlir::ModuleOp"> {
  let summary = "Bufferize the tensor code of tile kernels";
  let description = [{
    Runs one-shot bufferization on tile kernels (their arguments are already
    memrefs). Tile temporaries become `memref.alloc`s in the memory space
    given by `memory-space`: `workgroup` for the GPU path (shared memory) or
    `default` for the CPU path. Copies are emitted as `linalg.copy`.
    First, an elementwise `linalg.generic` whose init is a `tensor.empty`
    takes as its init an input of the same type and indexing map that it
    reads last (every other use comes before it in its block) and that is a
    tile of the kernel's own (loop-carried, or computed or loaded into a
    padded tile; not read in place from an argument): its result then
    reuses that input's buffer, and a loop-carried tile updated elementwise
    and by a matmul stays in one buffer across iterations. And a tile load
    (a zero-low `tensor.pad`) that an `scf.for` yields is written as a fill
    of a tile allocated in `memory-space` and an `insert_slice` of the rows
    in range (what the pad bufferizes to), so that the loop's iter_arg and
    its yielded value agree on the memory space.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::bufferization::BufferizationDialect", "::mlir::gpu::GPUDialect"
  ];
  let options = [
    Option<"memorySpace", "memory-space", "std::string", /*default=*/"\"workgroup\"",
           "Memory space of tile temporaries: 'workgroup' or 'default'">
  ];
}

def AssignTileLayoutsPass : Pass<"kda-assign-tile-layouts", "::mlir::ModuleOp"> {
  let summary = "Give the tiles of kernels that can run on registers #tile.dist layouts";
  let description = [{
    For every tile kernel without layouts whose ops all have a per-thread
    lowering, chooses a `#tile.dist` layout for each tile and inserts
    `tile.convert_layout` where a use needs another one, so that
    `convert-tile-to-simt` runs the kernel on registers.

    Dots are the anchors: the f32 accumulator of an M x N dot takes the
    mma.sync accumulator layout with the kernel's warps along M (as many as
    M / 16 allows, the rest along N), A and B the operand layouts of the
    same split. In a kernel where a dot's B operand is computed from a
    dot's result (directly, through elementwise ops, or through a value a
    loop carries: a recurrence like the state scan's), and every dot has
    8 columns per warp, the warps go along N instead: each warp keeps its
    own columns of the whole chain, and the A operands, which every warp
    then reads whole, come from shared memory; an A operand that is
    computed (not a load, or a transpose of one) gives its producer no
    layout, so that its chain is computed once, spread over the warps in
    a coalesced layout, and converted at the dot (with
    `duplicate-small-operands`, only when its copies in the other warps
    would add up to 8 KiB or more; a smaller one is computed in every warp
    in the dot's layout). Layouts then spread until nothing changes, forward (an
    elementwise result takes its operands' layout, a reduction the slice
    of its input's, a transpose the permuted input's, a loop's iter_arg
    and result its initial value's) and backward (a tile not yet placed
    takes the layout its first user needs: an elementwise op the result's,
    a dot its operand layout, a broadcast the slice of its result's, a
    transpose the permuted result's, a yield its loop's). A tile that
    nothing places (a load only a store reads) takes a coalesced layout,
    16 bytes per lane along its last dimension, and spreading resumes.
    f32 dots at `tf32` or `tf32x3` precision take the operand layouts of
    mma.sync.m16n8k8.tf32. `tile.unit_lower_inverse` asks nothing of its
    inputs' layouts; its inits take their results' (a splat or
    `tensor.empty` init is made again in that layout, as any splat is
    where a use needs another layout than it has).

    With `scan-layouts`, each `tile.scan` is an anchor too, placed before
    spreading starts: a 2-D tile scanned along its first dimension takes
    the warps along its last (16 bytes per lane along the last dimension,
    lanes along the last and then the first), so that the scan runs in
    registers and warp shuffles with no exchange between warps; its
    operand chain and its users take that layout by spreading.

    Kernels with a `tile.scan` of other than 32-bit elements, dots of f32
    operands at `ieee` precision or of shapes mma.sync cannot take, tiles
    of rank above 2 or of sizes that are not powers of 2, index tiles,
    non-splat constant tiles or other ops on tiles keep no layouts (the
    shared-memory mapping runs them); `remarks` says which and why.

    ```mlir
    %s = tile.dot %x, %yt, %z : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
    // becomes
    %s = tile.dot %x, %yt, %z : tensor<16x16xbf16, #tile.dist<...A...>>,
        tensor<16x16xbf16, #tile.dist<...B...>> -> tensor<16x16xf32, #tile.dist<...acc...>>
    ```
  }];
  let options = [
    Option<"numThreadsDefault", "num-threads", "int64_t", /*default=*/"128",
           "Threads per block when a kernel has no 'tile.tuning' attribute">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "A remark per kernel: on registers, or why not">,
    Option<"onlyRecurrences", "only-recurrences", "bool", /*default=*/"false",
           "Place only kernels whose warps go along N: those where a dot's "
           "B operand is computed from a dot's result (recurrences)">,
    Option<"onlyRequested", "only-requested", "bool", /*default=*/"false",
           "Place only kernels whose 'tile.tuning' has mapping = registers "
           "(those the target's kernel tuning runs on registers)">,
    Option<"duplicateSmallOperands", "duplicate-small-operands", "bool",
           /*default=*/"false",
           "With the warps along N, compute a computed A operand in every "
           "warp, in the dot's layout, when its copies in the other warps "
           "add up to less than 8 KiB (no conversion through shared "
           "memory, no barriers), instead of once in a coalesced layout">,
    Option<"scanLayouts", "scan-layouts", "bool", /*default=*/"false",
           "Anchor each tile.scan at a layout whose warps do not split the "
           "scanned dimension (in-thread and warp-shuffle steps only, no "
           "exchange through shared memory), before any load seeds a "
           "coalesced one">
  ];
}

def DropTileLayoutsPass : Pass<"kda-drop-tile-layouts", "::mlir::ModuleOp"> {
  let summary = "Remove #tile.dist layouts from tiles (for targets without threads)";
  let description = [{
    Strips the `#tile.dist` encoding from every tile type (op results, block
    arguments, function types) and removes `tile.convert_layout`, which is
    then the identity. A program written with register layouts then runs
    on the CPU path, and on the GPU's shared-memory mapping, unchanged in
    meaning: layouts say where elements live, not what they are.

    ```mlir
    %y = tile.convert_layout %x : tensor<16x16xf32, #acc> -> tensor<16x16xf32, #a>
    // becomes: uses of %y use %x, of type tensor<16x16xf32>
    ```
  }];
}

def PrintTileLayoutsPass : Pass<"kda-print-tile-layouts"> {
  let summary = "Print which thread holds which element of each laid-out tile";
  let description = [{
    For every value whose type is a tile with a `#tile.dist` layout (block
    arguments and op results, in program order), emits a remark at its
    definition: the tile type, the elements per thread and the warps the
    layout tells apart, then one line per lane of warp 0 listing the
    coordinates of its registers in order, and the offset each warp adds.
    Changes nothing. It is how a layout is read, and how the lit tests check
    the coordinate maps against the PTX fragment tables.

    Example (`kda-opt --kda-print-tile-layouts`), for the 16x8 f32
    accumulator of one m16n8k16 mma.sync:

    ```
    remark: tile layout of tensor<16x8xf32, #tile.dist<...>>: 4 registers
      per thread, 1 warp(s)
      lane 0: (0, 0) (0, 1) (8, 0) (8, 1)
      lane 1: (0, 2) (0, 3) (8, 2) (8, 3)
      ...
      warp offsets: 0: (0, 0)
    ```
  }];
}

def VerifyGPUKernelParamsPass
    : Pass<"kda-verify-gpu-kernel-params", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Reject GPU kernels whose parameters PTX cannot pass";
  let description = [{
    Checks every `gpu.func` kernel of a `gpu.module` before it is lowered:
    its parameters, as the NVVM lowering passes them (a memref as its
    descriptor of 8-byte words: two pointers, the offset, then a size and a
    stride per dimension; other types at their storage size), must fit the
    4096 bytes that PTX before ISA 8.1 gives a kernel's parameters, and no
    parameter may be a vector of more elements than LLVM's NVPTX backend
    accepts. Without it such a kernel reached the backend, which aborted
    the whole process ("Empty parameter types are not supported" for a
    `vector<4294967296xf32>` parameter). The PTX pipeline runs it first on
    every GPU module.

    Example of a kernel it rejects:

    ```mlir
    gpu.module @m {
      gpu.func @k(%v: vector<2048xf32>) kernel { gpu.return }
    }
    // error: kernel 'k' takes 8192 bytes of parameters (argument 0,
    // 'vector<2048xf32>', 8192), more than the 4096 bytes PTX allows
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def GPUHoistUniformAddressesPass
    : Pass<"gpu-hoist-uniform-addresses", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Compute each global address as a program base plus a per-access offset";
  let description = [{
    Runs on the LLVM dialect of a `gpu.module`, after the GPU-to-NVVM
    conversion. Every address a kernel computes from a pointer argument,
    either `llvm.getelementptr %arg[%index]` or the integer form
    `ptrtoint(%arg) + bytes` that the register mapping's vector accesses
    use, is flattened into a sum of terms (through adds, subtracts, and
    multiplies or shifts by constants). The terms that are the same in every
    thread of the program (kernel arguments such as a dynamic stride, block
    ids, constants, and arithmetic on them: the batch and head offsets of a
    program) are summed once into a program base; the
    access adds only the rest (the thread's row and column, loop counters)
    and the constant, which becomes an immediate offset.

    The memref lowering writes the whole linear index at every access, and
    LLVM keeps the 64-bit partial sums of each access alive across the
    loops instead of sharing the part common to the program. With a dynamic
    batch the register-mapped seed kernel needed 247 registers against 192
    with a static batch of one; the batch term costs nothing once it is in
    the base.

    Only kernels (`nvvm.kernel`) whose `tile.tuning` has
    `hoist_addresses = true` (set by the target's kernel tuning, kept
    through convert-tile-to-gpu and the NVVM lowering) are rewritten, or every kernel with `all-kernels`; only
    accesses outside the entry block change. Each pointer argument gets one
    base, holding the uniform terms that all of its addresses share, placed
    in the block that dominates them all (so it lives no longer than
    needed). Copies of uniform computations that the entry block
    does not already hold are made there only from arithmetic that cannot
    trap (no division except by a constant other than 0 or -1). An address
    computed from another address (its index runs through an integer
    address) stays as it is.

    Example:

    ```mlir
    // %b, %h from the block id; %s0 a kernel argument; %t, %k per thread
    %0 = llvm.mul %b, %s0 : i64
    %1 = llvm.mul %t, %c12288 : i64
    %2 = llvm.add %0, %1 : i64
    %3 = llvm.mul %h, %c128 : i64
    %4 = llvm.add %2, %3 : i64
    %5 = llvm.add %4, %k : i64
    %p = llvm.getelementptr %arg0[%5] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
    // becomes, in the entry block,
    %base = llvm.getelementptr %arg0[%bh] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
    // (%bh = %b * %s0 + %h * 128) and at the access
    %p = llvm.getelementptr %base[%tk] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
    // (%tk = %t * 12288 + %k)
    ```
  }];
  let options = [
    Option<"allKernels", "all-kernels", "bool", /*default=*/"false",
           "Rewrite every kernel, not only those whose `tile.tuning` has "
           "hoist_addresses = true">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def GPUFPContractPass : Pass<"gpu-fp-contract", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Let multiplies and adds in GPU kernels fuse into FMA";
  let description = [{
    Adds the `contract` fast-math flag to every `arith.addf`, `arith.subf`
    and `arith.mulf` inside a `gpu.module`. LLVM's NVPTX backend then fuses
    a multiply feeding an add into one `fma.rn.f32` (one rounding instead of
    two, one instruction instead of two); without the flag it prints
    `mul.rn.f32` and `add.rn.f32`, whose explicit rounding also keeps ptxas
    from fusing them. Triton compiles with the same contraction by default.
    Nothing else about the arithmetic changes: no reassociation, no
    assumptions about infinities or NaN.

    Example:

    ```mlir
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %c : f32
    // becomes
    %p = arith.mulf %a, %b fastmath<contract> : f32
    %s = arith.addf %p, %c fastmath<contract> : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def GPUExternDynamicSharedMemoryPass
    : Pass<"gpu-extern-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the dynamic shared memory of GPU kernels as PTX does: an extern array";
  let description = [{
    Runs on the LLVM dialect of a `gpu.module`, after the GPU-to-NVVM
    conversion. Upstream's lowering of `gpu.dynamic_shared_memory` defines
    an internal zero-length array in address space 3
    (`llvm.mlir.global internal @__dynamic_shmem__0 ... : !llvm.array<0 x i8>`);
    LLVM's NVPTX back end prints such a definition used by one kernel as a
    one-byte static shared variable of that kernel
    (`.shared .align 16 .b8 __dynamic_shmem__0;`), and the kernel then
    addresses its whole dynamic shared memory past the end of that byte:
    out of bounds by the PTX rules (ptxas says "Potential out of bound
    access" where it can see the offsets), and one byte of static shared
    memory more per block. This pass makes each such array an external
    declaration, which the back end prints as CUDA C++ declares dynamic
    shared memory: `.extern .shared .align 16 .b8 __dynamic_shmem__0[];`,
    whose size is the launch's dynamic shared memory size.

    Example:

    ```mlir
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    // becomes
    llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def SerializeGPUModulesPass
    : Pass<"kda-serialize-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Compile every gpu.module to a gpu.binary, the modules side by side";
  let description = [{
    Does what upstream `gpu-module-to-binary` does (each `gpu.module` directly
    in the module is compiled for each of its target attributes, such as
    `#nvvm.target`, and replaced by a `gpu.binary` of the same name holding
    the objects), with the modules compiled concurrently on the context's
    thread pool (one after the other under `--mlir-disable-threading`).
    `convert-tile-to-gpu` gives every kernel a `gpu.module` of its own, so
    the LLVM optimization and code generation of a program's kernels, most
    of the time it takes to compile, run in parallel. Diagnostics are
    reported in module order.

    Example:

    ```mlir
    gpu.module @a_module [#nvvm.target<chip = "sm_90">] { gpu.func @a() kernel { gpu.return } }
    gpu.module @b_module [#nvvm.target<chip = "sm_90">] { gpu.func @b() kernel { gpu.return } }
    // becomes (format=isa)
    gpu.binary @a_module [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "...">]
    gpu.binary @b_module [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "...">]
    ```
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "What each binary holds: isa (PTX), bin (cubin), fatbin, or llvm "
           "(LLVM bitcode), as gpu-module-to-binary's format">,
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"\"",
           "CUDA toolkit path (for libdevice and ptxas)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // KDA_TRANSFORMS_PASSES_TD
