// RUN: kda-opt %s --convert-kda-to-tile="fusable-chunk-stages block-k=32" | FileCheck %s
// RUN: kda-opt %s --convert-kda-to-tile="fusable-chunk-stages fuse-preprocessing block-k=32" --canonicalize --cse | FileCheck %s --check-prefix=PREP
// RUN: kda-opt %s --convert-kda-to-tile="fusable-chunk-stages block-k=32" --canonicalize --cse | FileCheck %s --check-prefix=NOPRE

// With fusable-chunk-stages, the gate cumsum launches one program per chunk and
// (batch, value head), numbered chunk * (B * HV) + bh like the other
// per-chunk stages and declaring their partition; each program walks the
// K tiles (two of 32 columns here) in an scf.for.

// CHECK-LABEL: func.func @gate
// CHECK-DAG: %[[T:.*]] = memref.dim %arg0, %{{.*}} : memref<?x?x4x64xf32>
// CHECK-DAG: %[[NT:.*]] = arith.ceildivui %[[T]], %{{.*}} : index
// CHECK-DAG: %[[B:.*]] = memref.dim %arg0, %{{.*}} : memref<?x?x4x64xf32>
// CHECK-DAG: %[[NB:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[N:.*]] = arith.muli %[[NT]], %[[NB]] : index
// CHECK: tile.launch @gate_gate_cumsum_0 grid [%[[N]], %{{.*}}, %{{.*}}] args(%arg0, %arg1 : {{.*}}) {tile.partition = "chunks64"}
// CHECK: func.func @gate_gate_cumsum_0
// CHECK-SAME: tile.tuning = #tile.tuning<threads = 128, block_k = 32>
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[CHUNK:.*]] = arith.divui %[[PID]], %{{.*}} : index
// CHECK: %[[BH:.*]] = arith.remui %[[PID]], %{{.*}} : index
// CHECK: scf.if
// CHECK: scf.for %[[COL:.*]] = %c0{{.*}} to %c64{{.*}} step %c32
// CHECK: tile.load %arg0[{{.*}}, %[[COL]]] {{.*}} -> tensor<64x32xf32>
// CHECK: tile.scan add
// CHECK: tile.store {{.*}}, %arg1[{{.*}}, %[[COL]]]
func.func @gate(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

// With fuse-preprocessing, the preprocessing stages whose results a
// per-chunk stage of the gate cumsum reads (l2norm of q and k,
// beta_activation) take the gate's chunk programs: the same grid (computed from g), the partition chunks64, and g
// as a kernel argument for the value head count. l2norm normalizes the
// chunk's rows of the q/k head its value head reads (head / (HV / H)) in
// blocks of 32 rows; beta_activation the chunk's 64 logits of its value
// head. An l2norm that no per-chunk stage reads keeps its own programs,
// over blocks of 32 tokens of each q/k head.

// PREP-LABEL: func.func @prepare(
// PREP: tile.launch @prepare_l2norm_0 grid [%[[N:[0-9]+]], %{{.*}}, %{{.*}}] args(%arg0, %{{.*}}, %arg2 : {{.*}}) {tile.partition = "chunks64"}
// PREP: tile.launch @prepare_l2norm_1 grid [%[[N]], %{{.*}}, %{{.*}}] args(%arg1, %{{.*}}, %arg2 : {{.*}}) {tile.partition = "chunks64"}
// PREP: tile.launch @prepare_beta_activation_2 grid [%[[N]], %{{.*}}, %{{.*}}] args(%arg3, %{{.*}}, %arg2 : {{.*}}) {tile.partition = "chunks64"}
// PREP: tile.launch @prepare_gate_cumsum_3 grid [%[[N]], %{{.*}}, %{{.*}}] args(%arg2, %{{.*}}) {tile.partition = "chunks64"}
// PREP: tile.launch @prepare_intra_diag_4 grid [%[[N]], %{{.*}}, %{{.*}}]
// PREP: %[[BLOCKS:[0-9]+]] = arith.ceildivui %{{.*}}, %c32 : index
// PREP: %[[M:[0-9]+]] = arith.muli %[[BLOCKS]], %{{.*}} : index
// PREP-NEXT: tile.launch @prepare_l2norm_5 grid [%[[M]], %{{.*}}, %{{.*}}] args(%arg0, %arg6 : {{.*}})
// PREP-NOT: tile.partition
// PREP: return

// PREP-LABEL: func.func @prepare_l2norm_0(
// PREP-SAME: %arg2: memref<?x?x4x64xf32>
// PREP: %[[PID:.*]] = tile.program_id x
// PREP: %[[CHUNK:.*]] = arith.divui %[[PID]], %{{.*}} : index
// PREP: %[[BH:.*]] = arith.remui %[[PID]], %{{.*}} : index
// PREP: %[[HEAD:.*]] = arith.remui %[[BH]], %c4 : index
// PREP: %[[QK:.*]] = arith.divui %[[HEAD]], %c2 : index
// PREP: %[[ROW0:.*]] = arith.muli %[[CHUNK]], %c64 : index
// PREP: %[[START:.*]] = tile.chunk_start %[[ROW0]]
// PREP: scf.if
// PREP: scf.for %[[R:.*]] = %c0 to %c64 step %c32
// PREP: %[[ROW:.*]] = arith.addi %[[START]], %[[R]] : index
// PREP: tile.load %arg0[%{{.*}}, %[[ROW]], %[[QK]], %c0] {{.*}} -> tensor<32x64xbf16>
// PREP: tile.reduce add
// PREP: tile.store %{{.*}}, %arg1[%{{.*}}, %[[ROW]], %[[QK]], %c0]

// PREP-LABEL: func.func @prepare_beta_activation_2(
// PREP: %[[BH:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// PREP: %[[HEAD:.*]] = arith.remui %[[BH]], %c4 : index
// PREP: %[[START:.*]] = tile.chunk_start
// PREP: tile.load %arg0[%{{.*}}, %[[START]], %[[HEAD]]] {{.*}} -> tensor<64xbf16>
// PREP: math.exp
// PREP: tile.store %{{.*}}, %arg1[%{{.*}}, %[[START]], %[[HEAD]]]

// PREP-LABEL: func.func @prepare_l2norm_5(
// PREP-NOT: tile.chunk_start
// PREP: tile.load %arg0{{.*}} -> tensor<32x64xbf16>

// Without it they keep their own programs and no partition.
// NOPRE-LABEL: func.func @prepare(
// NOPRE: tile.launch @prepare_l2norm_0 grid [{{.*}}] args(%arg0, %{{[a-z_0-9]+}} : memref<?x?x2x64xbf16>, memref<?x?x2x64xbf16>){{$}}
// NOPRE: tile.launch @prepare_beta_activation_2 grid [{{.*}}] args(%arg3, %{{[a-z_0-9]+}} : memref<?x?x4xbf16>, memref<?x?x4xf32>){{$}}
// NOPRE: tile.launch @prepare_gate_cumsum_3 {{.*}} {tile.partition = "chunks64"}
func.func @prepare(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>,
                   %g: tensor<?x?x4x64xf32>, %b: tensor<?x?x4xbf16>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>, tensor<?x?x2x64xbf16>) {
  %qn = kda.l2norm %q : (tensor<?x?x2x64xbf16>) -> tensor<?x?x2x64xbf16>
  %kn = kda.l2norm %k : (tensor<?x?x2x64xbf16>) -> tensor<?x?x2x64xbf16>
  %beta = kda.beta_activation %b : (tensor<?x?x4xbf16>) -> tensor<?x?x4xf32>
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  %Aqk, %Akkd = kda.intra_diag %qn, %kn, %G, %beta {scale = 0.125 : f32}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x4x64xf32>, tensor<?x?x4xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>)
  %other = kda.l2norm %q : (tensor<?x?x2x64xbf16>) -> tensor<?x?x2x64xbf16>
  return %Aqk, %Akkd, %other : tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>, tensor<?x?x2x64xbf16>
}
