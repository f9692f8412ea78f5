// RUN: kda-opt %s --convert-kda-to-tile="tuning-override=state_scan.block_v=16" --canonicalize --cse | FileCheck %s
// RUN: kda-opt %s --convert-kda-to-tile="tuning-override=state_scan.block_v=64" --canonicalize --cse | FileCheck %s --check-prefix=BV64
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=state_scan.block_v=24" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=state_scan.block_v=256" 2>&1 | FileCheck %s --check-prefix=BAD256

// The tuning's block_v sets the columns of V per program of the state scans
// and the chunk recurrence (by default 32): with 16, twice the programs
// (8 V tiles x 8 heads per batch entry), each carrying [128, 16] state
// tiles; the kernel's tile.tuning records it. A sweep of it at small
// B * HV (fewer programs than SMs) is what the override is for.

// CHECK-LABEL: func.func @fixed_kv
// CHECK: %[[B:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x?x8x128xbf16>
// CHECK: %[[N:.*]] = arith.muli %[[B]], %c64 : index
// CHECK: tile.launch @fixed_kv_state_scan_0 grid [%[[N]],
// CHECK: func.func @fixed_kv_state_scan_0
// CHECK-SAME: tile.tuning = #tile.tuning<threads = 128, block_v = 16>}
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[VT:.*]] = arith.remui %[[PID]], %c8 : index
// CHECK: %[[V0:.*]] = arith.muli %[[VT]], %c16 : index
// CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}, %c0, %[[V0]]] dims [2, 3] : memref<?x8x128x128xf32> -> tensor<128x16xf32>
// CHECK: scf.for {{.*}} -> (tensor<128x16xf32>)
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xbf16>, tensor<64x16xbf16> -> tensor<128x16xf32>

// With 64, two programs per (batch entry, head).
// BV64: arith.muli %{{.*}}, %c16 : index
// BV64: func.func @fixed_kv_state_scan_0
// BV64-SAME: tile.tuning = #tile.tuning<threads = 128, block_v = 64>}
// BV64: scf.for {{.*}} -> (tensor<128x64xf32>)

// BAD: error: tuning-override 'state_scan.block_v=24': block_v must be 0 (the kernel's default) or a power of 2 from 8 to 128
// BAD256: error: tuning-override 'state_scan.block_v=256': block_v must be 0 (the kernel's default) or a power of 2 from 8 to 128

func.func @fixed_kv(%kg: tensor<?x?x8x128xbf16>, %w: tensor<?x?x8x128xbf16>, %u: tensor<?x?x8x128xbf16>,
                    %G: tensor<?x?x8x128xf32>, %h0: tensor<?x8x128x128xf32>)
    -> (tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>) {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0
      : (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xf32>, tensor<?x8x128x128xf32>)
      -> (tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>)
  return %h, %vn, %ht : tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>
}
