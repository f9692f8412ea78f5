// RUN: kda-translate %s --kda-to-bundle --no-cubin --no-cpu -o %t.kdab
// RUN: FileCheck %s --input-file %t.kdab

// The bundle of a varlen gate program: header, manifest (arguments with
// their dimension symbols, the kernel's grid as expressions of the argument
// sizes, its parameters in order), the PTX (with the argument shapes it
// was compiled for), the checksum of each section
// (which the runtime verifies before using any), and the end marker.

// CHECK: KDA-BUNDLE 1
// CHECK-NEXT: section manifest {{[0-9]+}}
// CHECK-NEXT: abi 1
// CHECK-NEXT: chip sm_90
// CHECK-NEXT: entry gate_varlen
// CHECK-NEXT: key program=gate_cumsum HV=2 K=60 chunk=32 gate=lower_bound lower_bound=-5 varlen=1
// CHECK-NEXT: arg 0 g input bf16 1,T,2,60
// CHECK-NEXT: arg 1 dt_bias input f32 120
// CHECK-NEXT: arg 2 cu_seqlens input i64 N1
// CHECK-NEXT: arg 3 G output f32 1,T,2,60
// CHECK-NEXT: kernel gate_varlen_gate_cumsum_0
// CHECK-NEXT: block 128 1 1
// CHECK-NEXT: shared 0
// CHECK-NEXT: grid mul(add(div(dim(0,1),32),sub(dim(2,0),1)),4) 1 1
// CHECK-NEXT: param arg 0
// CHECK-NEXT: param arg 3
// CHECK-NEXT: param arg 1
// CHECK-NEXT: param arg 2
// CHECK-NEXT: end-kernel
// CHECK: section ptx {{[0-9]+}}
// CHECK-NEXT: //
// CHECK: .visible .entry gate_varlen_gate_cumsum_0(
// The shapes the code was compiled for, which the runtime checks the
// manifest's against:
// CHECK: // The entry arguments this PTX was compiled for:
// CHECK-NEXT: // kda.arg 0 g input bf16 1,T,2,60
// CHECK-NEXT: // kda.arg 1 dt_bias input f32 120
// CHECK-NEXT: // kda.arg 2 cu_seqlens input i64 N1
// CHECK-NEXT: // kda.arg 3 G output f32 1,T,2,60
// No cubin or cpu section: the checksums follow the PTX.
// CHECK-EMPTY:
// CHECK-NEXT: section checksums 47
// CHECK-NEXT: manifest {{[0-9a-f]{16}$}}
// CHECK-NEXT: ptx {{[0-9a-f]{16}$}}
// CHECK-EMPTY:
// CHECK-NEXT: end

func.func @gate_varlen(%g: tensor<1x?x2x60xbf16>, %dt: tensor<120xf32>, %cu: tensor<?xi64>) -> tensor<1x?x2x60xf32> {
  %G = kda.gate_cumsum %g dt_bias %dt cu_seqlens %cu {chunk_size = 32 : i64, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<1x?x2x60xbf16>, tensor<120xf32>, tensor<?xi64>) -> tensor<1x?x2x60xf32>
  return %G : tensor<1x?x2x60xf32>
}
