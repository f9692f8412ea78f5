// RUN: kda-opt %s --convert-kda-to-tile="fusable-chunk-stages block-k=32" | FileCheck %s

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
