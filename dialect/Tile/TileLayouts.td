//===- TileLayouts.td - distributed layouts of tiles -----*- tablegen -*-===//
//
// Tensor encodings that say which GPU thread holds which element of a tile.
//
//===----------------------------------------------------------------------===//

#ifndef KDA_DIALECT_TILE_TILELAYOUTS_TD
#define KDA_DIALECT_TILE_TILELAYOUTS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/TensorEncoding.td"

def Tile_DistLayoutAttr : AttrDef<Tile_Dialect, "DistLayout",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "dist";
  let summary = "a distributed layout: which thread of which warp holds which element";
  let description = [{
    A tensor encoding for tiles held in registers, spread over the threads of
    a program. Each dimension `d` of the tile is split, from its outermost
    factor to its innermost, as

    `shape[d] = warps[d] * batch[d] * outer[d] * lanes[d] * elems[d]`

    and element `x` along `d` lies at

    `x = (((w * batch + b) * outer + o) * lanes + l) * elems + e`

    where `w` and `l` come from the thread (its warp and its lane) and `b`,
    `o` and `e` from the register. A lane id splits into the coordinates
    `l_d = (lane / lane_strides[d]) mod lanes[d]`, a warp id into
    `w_d = (warp / warp_strides[d]) mod warps[d]`; every size and stride is
    a power of 2, and the bits that two dimensions take from a lane (or a
    warp) id are disjoint. Lane bits that no dimension takes (there are 32
    lanes) and warp bits that no dimension takes (up to the program's warp
    count) replicate: those threads hold the same elements.

    Each thread holds `prod(batch) * prod(outer) * prod(elems)` elements.
    Its registers are numbered with `elems` fastest, then `outer`, then
    `batch`, and inside each group dimension 0 fastest: this is the order of
    the PTX fragment registers of `mma.sync`.

    The layouts of `mma.sync` (PTX ISA, "Matrix fragments for mma.m16n8k16"),
    with `g = lane / 4` and `t = lane mod 4`, for 4 warps along M:

    ```mlir
    // f32 accumulator of a 64x64 product: (g, 2t..2t+1) and (g+8, 2t..2t+1)
    // of each 16x8 block.
    #acc = #tile.dist<warps = [4, 1], batch = [1, 8], outer = [2, 1],
                      lanes = [8, 4], elems = [1, 2],
                      lane_strides = [4, 1], warp_strides = [1, 1]>
    // 16-bit A operand, 64x32: a0..a7 of each 16x16 block.
    #a = #tile.dist<warps = [4, 1], batch = [1, 2], outer = [2, 2],
                    lanes = [8, 4], elems = [1, 2],
                    lane_strides = [4, 1], warp_strides = [1, 1]>
    // 16-bit B operand, 32x64 (K x N), replicated over the 4 warps.
    #b = #tile.dist<warps = [1, 1], batch = [2, 8], outer = [2, 1],
                    lanes = [4, 8], elems = [2, 1],
                    lane_strides = [1, 4], warp_strides = [1, 1]>
    ```

    The tf32 m16n8k8 mma.sync takes one f32 element per register, A at
    (g, t), (g+8, t), (g, t+4), (g+8, t+4) of each 16x8 block and B at
    (t, g), (t+4, g) of each 8x8 block (its accumulator is `#acc`'s):

    ```mlir
    // f32 A operand, 64x16, 4 warps along M.
    #a32 = #tile.dist<warps = [4, 1], batch = [1, 2], outer = [2, 2],
                      lanes = [8, 4], elems = [1, 1],
                      lane_strides = [4, 1], warp_strides = [1, 1]>
    // f32 B operand, 16x64 (K x N), replicated over the 4 warps.
    #b32 = #tile.dist<warps = [1, 1], batch = [2, 8], outer = [2, 1],
                      lanes = [4, 8], elems = [1, 1],
                      lane_strides = [1, 4], warp_strides = [1, 1]>
    ```

    A dot may also take A and B K-packed (`getMmaOperandA32KPacked`,
    `getMmaOperandB32KPacked`): each lane holds K / 4 consecutive elements of
    its rows of A and of its columns of B, which a load reads as one run,
    and mma.sync multiplies them in a K order both operands share:

    ```mlir
    // f32 A operand, 16x32, K-packed: lane (g, t) holds columns 8t..8t+7.
    #a32k = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1],
                       lanes = [8, 4], elems = [1, 8],
                       lane_strides = [4, 1], warp_strides = [1, 1]>
    ```

    A slice of `#acc` (the row sums of a 64x64 tile) keeps the row factors
    and lane strides of dimension 0; the lanes that held other columns hold
    copies:

    ```mlir
    tensor<64xf32, #tile.dist<warps = [4], batch = [1], outer = [2],
                              lanes = [8], elems = [1],
                              lane_strides = [4], warp_strides = [1]>>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "warps along each dimension">:$warps,
    ArrayRefParameter<"int64_t", "register blocks along each dimension">:$batch,
    ArrayRefParameter<"int64_t", "register repeats inside a block">:$outer,
    ArrayRefParameter<"int64_t", "lanes along each dimension">:$lanes,
    ArrayRefParameter<"int64_t", "consecutive elements per lane">:$elems,
    ArrayRefParameter<"int64_t", "lane id stride of each dimension">:$lane_strides,
    ArrayRefParameter<"int64_t", "warp id stride of each dimension">:$warp_strides
  );
  let assemblyFormat = [{
    `<` `warps` `=` `[` $warps `]` `,` `batch` `=` `[` $batch `]` `,`
        `outer` `=` `[` $outer `]` `,` `lanes` `=` `[` $lanes `]` `,`
        `elems` `=` `[` $elems `]` `,`
        `lane_strides` `=` `[` $lane_strides `]` `,`
        `warp_strides` `=` `[` $warp_strides `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Lanes of a warp.
    static constexpr int64_t kWarpSize = 32;

    /// Number of dimensions of the tiles this layout applies to.
    int64_t getRank() const { return getWarps().size(); }
    /// The tile shape: warps * batch * outer * lanes * elems per dimension.
    ::llvm::SmallVector<int64_t> getTileShape() const;
    /// Elements each thread holds.
    int64_t getNumRegisters() const;
    /// Warps the layout tells apart (2^(highest warp id bit used + 1)); a
    /// program with more warps replicates the tile over the extra ones.
    int64_t getMinWarps() const;

    /// The part of an element's coordinates given by register `reg`
    /// (0 <= reg < getNumRegisters()).
    ::llvm::SmallVector<int64_t> getRegisterOffsets(int64_t reg) const;
    /// The part given by the lane id (0 <= lane < 32).
    ::llvm::SmallVector<int64_t> getLaneOffsets(int64_t lane) const;
    /// The part given by the warp id.
    ::llvm::SmallVector<int64_t> getWarpOffsets(int64_t warp) const;
    /// The coordinates of register `reg` of lane `lane` in warp `warp`: the
    /// sum of the three parts above.
    ::llvm::SmallVector<int64_t> getCoordinates(int64_t warp, int64_t lane,
                                                int64_t reg) const;

    /// The f32 accumulator (C/D) layout of m16n8k16 and m16n8k8 mma.sync
    /// for an `m` x `n` tile, with `warpsM` x `warpsN` warps splitting it
    /// (m a multiple of 16 * warpsM, n of 8 * warpsN).
    static DistLayoutAttr getMmaAccumulator(::mlir::MLIRContext *ctx,
                                            int64_t m, int64_t n,
                                            int64_t warpsM, int64_t warpsN);
    /// The A operand layout of the 16-bit m16n8k16 mma.sync for an `m` x `k`
    /// tile split along M by `warpsM` warps (k a multiple of 16).
    static DistLayoutAttr getMmaOperandA16(::mlir::MLIRContext *ctx,
                                           int64_t m, int64_t k,
                                           int64_t warpsM);
    /// The B operand layout of the 16-bit m16n8k16 mma.sync for a `k` x `n`
    /// tile split along N by `warpsN` warps.
    static DistLayoutAttr getMmaOperandB16(::mlir::MLIRContext *ctx,
                                           int64_t k, int64_t n,
                                           int64_t warpsN);
    /// The A operand layout of the tf32 m16n8k8 mma.sync (one f32 element
    /// per register: a0..a3 at (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)
    /// of each 16x8 block) for an `m` x `k` tile split along M by `warpsM`
    /// warps (k a multiple of 8).
    static DistLayoutAttr getMmaOperandA32(::mlir::MLIRContext *ctx,
                                           int64_t m, int64_t k,
                                           int64_t warpsM);
    /// The B operand layout of the tf32 m16n8k8 mma.sync (b0, b1 at (t, g)
    /// and (t + 4, g) of each 8x8 block) for a `k` x `n` tile split along N
    /// by `warpsN` warps.
    static DistLayoutAttr getMmaOperandB32(::mlir::MLIRContext *ctx,
                                           int64_t k, int64_t n,
                                           int64_t warpsN);
    /// The K-packed A operand layout of the tf32 m16n8k8 mma.sync for an
    /// `m` x `k` tile split along M by `warpsM` warps (k a multiple of 8):
    /// lane (g, t) holds rows g and g + 8 of each 16-row block and the k / 4
    /// consecutive columns [t * k / 4, (t + 1) * k / 4), so that a load reads
    /// them as one run. A dot whose A and B are both K-packed multiplies
    /// them in an order of K that mma.sync does not see (K step s reads
    /// columns t * k / 4 + 2 s and t * k / 4 + 2 s + 1 as its k = t and
    /// k = t + 4): the sum over K is the same.
    static DistLayoutAttr getMmaOperandA32KPacked(::mlir::MLIRContext *ctx,
                                                  int64_t m, int64_t k,
                                                  int64_t warpsM);
    /// The K-packed B operand layout of the tf32 m16n8k8 mma.sync for a
    /// `k` x `n` tile split along N by `warpsN` warps whose ids start at bit
    /// `warpStride`: lane (g, t) holds column g of each 8-column block and
    /// the k / 4 consecutive rows [t * k / 4, (t + 1) * k / 4), the K order
    /// of getMmaOperandA32KPacked.
    static DistLayoutAttr getMmaOperandB32KPacked(::mlir::MLIRContext *ctx,
                                                  int64_t k, int64_t n,
                                                  int64_t warpsN,
                                                  int64_t warpStride);
    /// The layout of the result of reducing a tile in this layout along
    /// `dim`: that dimension's factors and strides are dropped, and the
    /// threads that held its elements hold copies.
    DistLayoutAttr getSlice(int64_t dim) const;
  }];
}

#endif // KDA_DIALECT_TILE_TILELAYOUTS_TD
