//===- TileOps.td - the tile DSL -------------------------*- tablegen -*-===//
//
// The tile dialect: kernels written as programs over statically shaped tiles.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_DIALECT_TILE_TILEOPS_TD
#define KDA_DIALECT_TILE_TILEOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::kda::tile";
  let summary = "A tile DSL for GPU kernels (one program per grid point)";
  let description = [{
    A tile kernel is a `func.func` carrying the `tile.kernel` unit attribute.
    It runs once per program of a launch grid, like a Triton program or a CUDA
    block. Its body computes on *tiles*: statically shaped ranked tensors such
    as `tensor<64x32xf32>`. Elementwise math uses `arith` and `math` on tiles;
    this dialect adds what those lack: program ids, masked tile loads and
    stores on strided global buffers (memrefs), `dot` with an explicit
    precision, reductions, inclusive scans, transposes, broadcasts, index
    tiles and triangular masks, the varlen chunk lookup, and the host-side
    `tile.launch`.

    Kernels lower to linalg on tensors (`--convert-tile-to-linalg`), then to
    either GPU blocks or CPU loops. A kernel records how it runs on the GPU
    (threads per program, register cap, live-tile budget and the choices of
    the target's kernel tuning) in one `tile.tuning` attribute, a
    `#tile.tuning`.

    A tile may carry a `#tile.dist` layout (a tensor encoding) that says
    which thread of which warp holds each element, for tiles held in
    registers; `tile.convert_layout` moves a tile between layouts, and
    `--kda-print-tile-layouts` prints a layout's thread map.
    `--kda-assign-tile-layouts` gives a kernel's tiles layouts and
    `--convert-tile-to-simt` lowers such a kernel to per-thread code on
    registers; kernels without layouts take the shared-memory mapping.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the unit attribute that marks a func.func as a tile kernel.
    static constexpr ::llvm::StringLiteral getKernelAttrName() { return "tile.kernel"; }
    /// Name of the #tile.tuning attribute by which a kernel records how it
    /// runs on the GPU (threads per program, register cap, live-tile budget,
    /// K tiles and the tuning's choices); see TuningAttr.
    static constexpr ::llvm::StringLiteral getTuningAttrName() { return "tile.tuning"; }
    /// Name of the unit attribute on a linalg.matmul whose f32 operands are
    /// already rounded to tf32 (so tensor cores compute it exactly).
    static constexpr ::llvm::StringLiteral getTF32AttrName() { return "tile.tf32"; }
    /// Name of the dictionary attribute marking the linalg.generic that
    /// implements a tile.scan ({dim, kind, reverse}), so that the GPU path
    /// can run it as one sequential loop per thread (same summation order).
    static constexpr ::llvm::StringLiteral getScanAttrName() { return "tile.scan"; }
    /// Name of the string attribute by which a tile.launch declares how its
    /// programs divide the work: launches with one partition and one grid
    /// have program p of a later launch read, of what an earlier launch
    /// writes, only what program p of that launch wrote (and write nothing
    /// that another program of the earlier launch reads), so that the
    /// programs may run the launches' kernels one after the other
    /// (kda-fuse-tile-launches).
    static constexpr ::llvm::StringLiteral getPartitionAttrName() { return "tile.partition"; }
  }];
}

include "Tile/TileLayouts.td"
include "Tile/TileTuning.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

def Tile_Axis : I32EnumAttr<"Axis", "axis of the launch grid", [
    I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::kda::tile";
}
def Tile_AxisAttr : EnumAttr<Tile_Dialect, Tile_Axis, "axis"> {
  let assemblyFormat = "$value";
}

def Tile_Precision : I32EnumAttr<"Precision", "precision of a dot product", [
    I32EnumAttrCase<"ieee", 0>, I32EnumAttrCase<"tf32", 1>,
    I32EnumAttrCase<"tf32x3", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::kda::tile";
}
def Tile_PrecisionAttr : EnumAttr<Tile_Dialect, Tile_Precision, "precision"> {
  let assemblyFormat = "$value";
}

def Tile_CombineKind : I32EnumAttr<"CombineKind", "combining function", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::kda::tile";
}
def Tile_CombineKindAttr : EnumAttr<Tile_Dialect, Tile_CombineKind, "kind"> {
  let assemblyFormat = "$value";
}

def Tile_Tile : RankedTensorOf<[AnyType]>;
def Tile_FloatTile : RankedTensorOf<[AnyFloat]>;

//===----------------------------------------------------------------------===//
// Program ids
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of the current program along a grid axis";
  let description = [{
    Returns the index of the running program along `axis` (x, y or z) of the
    launch grid. Only valid inside a tile kernel.

    ```mlir
    %pid = tile.program_id y
    ```
  }];
  let arguments = (ins Tile_AxisAttr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "`` $axis attr-dict";
  let hasVerifier = 1;
}

def Tile_ChunkStartOp : Tile_Op<"chunk_start", [Pure]> {
  let summary = "the first token row of the program's chunk";
  let description = [{
    Returns `row`, which must be the first row, along dimension 1 of the
    `[B, T, heads, ...]` buffers, of the chunk that the running program owns
    under its launch's `chunks<BT>` partition (`tile.partition`). The
    per-chunk stages built for one fused kernel (`convert-kda-to-tile`
    with `fusable-chunk-stages`) index their chunk's rows from it, so that
    `kda-privatize-chunk-buffers` can give a buffer that only one fused
    kernel reads and writes a per-program home of `BT` rows, row `i` of
    the chunk becoming row `i - row`. It does not fold (the mark would be
    lost); `convert-tile-to-linalg` replaces it with `row`.

    ```mlir
    %start = tile.chunk_start %row
    %t = tile.load %G[%b, %start, %h, %c0] bounds [%end, %c64] dims [1, 3]
        : memref<?x?x4x64xf32> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Index:$row);
  let results = (outs Index:$result);
  let assemblyFormat = "$row attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of programs along a grid axis";
  let description = [{
    Returns the size of the launch grid along `axis`. Only valid inside a
    tile kernel.

    ```mlir
    %n = tile.num_programs x
    ```
  }];
  let arguments = (ins Tile_AxisAttr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "`` $axis attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "masked load of a tile from a strided buffer";
  let description = [{
    Loads a tile from `source` starting at `indices` (one per memref
    dimension). Tile dimension `j` runs along memref dimension `dims[j]`; the
    other memref dimensions stay at their index. An element is read only if,
    in every tile dimension `j`, `indices[dims[j]] + t_j < bounds[j]`, where
    `bounds` defaults to the memref's size along `dims[j]`; other elements
    take the value `padding` (zero by default). The mask is a box, so a tile
    that straddles the end of a sequence or of the feature dimension reads
    nothing out of range.

    ```mlir
    // Rows [%r, %r + 64) of the [T, K] slice at (%b, :, %h, :), rows >= %end read as 0.
    %t = tile.load %g[%b, %r, %h, %c0] bounds [%end, %K] dims [1, 3]
        : memref<?x?x4x64xf32> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, Variadic<Index>:$indices,
                   Variadic<Index>:$bounds, DenseI64ArrayAttr:$dims,
                   OptionalAttr<TypedAttrInterface>:$padding);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` (`bounds` ` ` `[` $bounds^ `]`)? `dims` $dims
    attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "masked store of a tile into a strided buffer";
  let description = [{
    Stores `value` into `dest` at `indices`, with the same addressing and box
    mask as `tile.load`: elements outside the bounds are not written.

    ```mlir
    tile.store %G, %out[%b, %r, %h, %c0] bounds [%end, %K] dims [1, 3]
        : tensor<64x64xf32>, memref<?x?x4x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$value, AnyMemRef:$dest,
                   Variadic<Index>:$indices, Variadic<Index>:$bounds,
                   DenseI64ArrayAttr:$dims);
  let assemblyFormat = [{
    $value `,` $dest `[` $indices `]` (`bounds` ` ` `[` $bounds^ `]`)? `dims` $dims
    attr-dict `:` type($value) `,` type($dest)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "matrix product of two tiles with an accumulator";
  let description = [{
    Computes `acc + a * b` for `a : MxK`, `b : KxN` and `acc : MxN`. The
    accumulator and result are f32. `precision` says how f32 operands are
    multiplied: `ieee` (exact fp32 products), `tf32` (operands rounded to
    tf32, as tensor cores do) or `tf32x3` (each operand split into a tf32
    high and low part; hi*hi + hi*lo + lo*hi). For f16/bf16 operands the
    products are exact and `precision` is ignored.

    ```mlir
    %c = tile.dot %a, %b, %acc precision = tf32
        : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
    ```
  }];
  let arguments = (ins Tile_FloatTile:$a, Tile_FloatTile:$b,
                   Tile_FloatTile:$acc,
                   DefaultValuedAttr<Tile_PrecisionAttr,
                     "::mlir::kda::tile::Precision::ieee">:$precision);
  let results = (outs Tile_FloatTile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`precision` `=` $precision^)? attr-dict
    `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure,
    SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "moves a tile from one distributed layout to another";
  let description = [{
    The same tile, held by the threads of the program as the result's
    `#tile.dist` layout says instead of the input's. Both types carry a
    `#tile.dist` encoding; inside a kernel with a `tile.tuning`, neither
    layout may tell apart more warps than the program has. Converting to the
    same layout folds to the input, and a conversion of a conversion
    converts the original tile.

    How it runs depends on the two layouts: nothing when only replication
    differs, register moves within a thread, warp shuffles within a warp,
    shared memory across warps.

    ```mlir
    #acc = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1],
                      lanes = [8, 4], elems = [1, 2],
                      lane_strides = [4, 1], warp_strides = [1, 1]>
    #b = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1],
                    lanes = [4, 8], elems = [2, 1],
                    lane_strides = [1, 4], warp_strides = [1, 1]>
    %y = tile.convert_layout %x : tensor<16x8xbf16, #acc> -> tensor<16x8xbf16, #b>
    ```
  }];
  let arguments = (ins Tile_Tile:$input);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduction of a tile along one dimension";
  let description = [{
    Combines the elements of `input` along `dim` with `kind` (add, max or
    min); the result drops that dimension.

    ```mlir
    %s = tile.reduce add %t dim 0 : tensor<16x64xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$input, Tile_CombineKindAttr:$kind,
                   I64Attr:$dim);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    `` $kind $input `dim` $dim attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, SameOperandsAndResultType]> {
  let summary = "inclusive scan of a tile along one dimension";
  let description = [{
    Inclusive prefix combination along `dim`:
    `result[.., i, ..] = input[.., 0, ..] kind ... kind input[.., i, ..]`,
    evaluated in index order. With `reverse`, the scan runs from the last
    index down.

    ```mlir
    %cs = tile.scan add %t dim 0 : tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$input, Tile_CombineKindAttr:$kind,
                   I64Attr:$dim, UnitAttr:$reverse);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    `` $kind $input `dim` $dim (`reverse` $reverse^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "permutes the dimensions of a tile";
  let description = [{
    Transposes `input` by `permutation` (default: reverse the dimensions,
    i.e. a 2-D transpose): `result` dimension `i` is `input` dimension
    `permutation[i]`.

    ```mlir
    %t = tile.trans %k : tensor<16x32xf32> -> tensor<32x16xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$input,
                   OptionalAttr<DenseI64ArrayAttr>:$permutation);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $input (`permutation` $permutation^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "broadcasts a tile along new dimensions";
  let description = [{
    Inserts the result dimensions listed in `dims` and repeats `input` along
    them. The remaining result dimensions, in order, are those of `input`.

    ```mlir
    // b[i, j] = v[j]
    %b = tile.broadcast %v dims [0] : tensor<64xf32> -> tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tile:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $input `dims` $dims attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "a tile filled with one scalar";
  let description = [{
    ```mlir
    %s = tile.splat %scale : f32 -> tensor<16x16xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnyFloat, AnySignlessInteger, Index]>:$value);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "a tile holding each element's index along one dimension";
  let description = [{
    `result[i_0, ..., i_last] = i_dim`, as an integer or index tile.

    ```mlir
    %rows = tile.iota dim 0 : tensor<16x16xi32>
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs RankedTensorOf<[AnySignlessInteger, Index]>:$result);
  let assemblyFormat = "`dim` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_TriMaskOp : Tile_Op<"tri_mask", [Pure]> {
  let summary = "a triangular i1 mask";
  let description = [{
    A 2-D i1 tile. With `lower` (the default), element `(i, j)` is true iff
    `j <= i + diagonal`; with `upper`, iff `j >= i + diagonal`. So `lower`
    with `diagonal = 0` keeps the diagonal (`i >= j`) and `diagonal = -1`
    keeps the strictly lower part (`i > j`).

    ```mlir
    %strict = tile.tri_mask lower diagonal -1 : tensor<16x16xi1>
    %a = arith.select %strict, %akk, %zero : tensor<16x16xi1>, tensor<16x16xf32>
    ```
  }];
  let arguments = (ins UnitAttr:$upper, I64Attr:$diagonal);
  let results = (outs RankedTensorOf<[I1]>:$result);
  let assemblyFormat = [{
    (`upper` $upper^) : (`lower`)? `diagonal` $diagonal attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Triangular inverse
//===----------------------------------------------------------------------===//

def Tile_UnitLowerInverseOp : Tile_Op<"unit_lower_inverse", [
    AttrSizedOperandSegments, DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<BufferizableOpInterface,
        ["bufferizesToMemoryRead", "bufferizesToMemoryWrite",
         "getAliasingValues", "bufferize"]>]> {
  let summary = "inverses of unit lower-triangular matrices";
  let description = [{
    For each square f32 matrix `inputs[i]`, writes `(I + L)^-1` into
    `inits[i]`, where `L` is the strictly lower part of `inputs[i]`: entries
    on and above the diagonal are not read. The inverse is unit lower
    triangular, computed by forward substitution,
    `X[r, c] = [r == c] - sum_{m < r} L[r, m] X[m, c]`, with f32 products
    and sums in order of increasing `m`. A zero row of `L` gives an identity
    row. The matrices are independent: on the GPU each thread walks one
    column of one of them with the column held in registers, so several
    small inverses take one pass over the block's threads. The lowerings
    unroll the rows (about n^2 / 2 multiply-adds per column): the op is
    meant for small blocks such as the 16 x 16 diagonal blocks of KDA.

    The op is in destination style: on tiles it returns the inverses (the
    `inits` give their shape); on buffers (after bufferization) it writes
    them into `inits` and returns nothing.

    ```mlir
    %d0, %d1 = tile.unit_lower_inverse
        ins(%a0, %a1 : tensor<16x16xf32>, tensor<16x16xf32>)
        outs(%e0, %e1 : tensor<16x16xf32>, tensor<16x16xf32>)
        -> tensor<16x16xf32>, tensor<16x16xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyShaped>:$inputs,
                   Variadic<AnyShaped>:$inits);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    `ins` `(` $inputs `:` type($inputs) `)`
    `outs` `(` $inits `:` type($inits) `)` attr-dict
    (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitsMutable();
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Varlen
//===----------------------------------------------------------------------===//

def Tile_VarlenChunkOp : Tile_Op<"varlen_chunk", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "maps a program to (sequence, chunk) of packed sequences";
  let description = [{
    Packed sequences are described by `cu_seqlens` (N+1 non-decreasing i64
    offsets). Programs along one grid axis are numbered so that sequence `n`
    owns programs `[s_n, s_n + ceil(T_n / chunk_size))` with
    `s_n = floor(cu_seqlens[n] / chunk_size) + n`. These ranges never
    overlap, so a grid of `floor(T / chunk_size) + N` programs covers every
    chunk; a program finds its sequence by binary search over `cu_seqlens`
    and needs no precomputed chunk table. Programs that own no chunk get
    `valid = false`.

    Results: the sequence index, the chunk index within the sequence, the
    sequence's first token (`bos`), its length, and `valid`.

    ```mlir
    %n, %c, %bos, %len, %ok = tile.varlen_chunk %cu, %pid chunk_size 64 : memref<?xi64>
    ```
  }];
  let arguments = (ins MemRefRankOf<[I64], [1]>:$cu_seqlens, Index:$program,
                   I64Attr:$chunk_size);
  let results = (outs Index:$sequence, Index:$chunk, Index:$bos, Index:$length,
                  I1:$valid);
  let assemblyFormat = [{
    $cu_seqlens `,` $program `chunk_size` $chunk_size attr-dict `:` type($cu_seqlens)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

def Tile_LaunchOp : Tile_Op<"launch", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "launches a tile kernel over a 3-D grid of programs";
  let description = [{
    Runs the tile kernel `kernel` once for every point of the grid
    `(grid_x, grid_y, grid_z)`, passing `args`. On the GPU each program is a
    thread block; on the CPU the grid becomes loops. Launches run in order.

    A launch may declare its program partition with a `tile.partition`
    string: launches that declare the same partition and run the same grid
    divide the work alike, so that program `p` of a later one reads, of
    what an earlier one writes, only what program `p` of that one wrote,
    and writes nothing another program of the earlier one reads. Such
    neighbouring launches may then run as one (`kda-fuse-tile-launches`).
    The kda-to-tile conversion gives its per-chunk stages (one program per
    chunk of BT tokens and value head) the partition `chunks<BT>`, e.g.
    `chunks64`.

    ```mlir
    tile.launch @gate_cumsum_kernel grid [%nk, %nt, %nbh]
        args(%g, %G : memref<?x?x4x64xf32>, memref<?x?x4x64xf32>)
    tile.launch @intra_diag_kernel grid [%n, %c1, %c1]
        args(%q, %k : memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>)
        {tile.partition = "chunks64"}
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel, Index:$grid_x, Index:$grid_y,
                   Index:$grid_z, Variadic<AnyType>:$args);
  let assemblyFormat = [{
    $kernel `grid` ` ` `[` $grid_x `,` $grid_y `,` $grid_z `]`
    (`args` `(` $args^ `:` type($args) `)`)? attr-dict
  }];
}

#endif // KDA_DIALECT_TILE_TILEOPS_TD
