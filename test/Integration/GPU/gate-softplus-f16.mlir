// The softplus gate on f16 gates with A_log and dt_bias [HV*K], K = 100 (not
// a multiple of the 32-column tile), on the GPU.

// RUN: kda-translate %s --kda-to-bundle -o %t.kdab
// RUN: kda-run %t.kdab --batch 2 --seq-len 65 --heads 4 --value-heads 8 --dtype f16 | FileCheck %s
// RUN: kda-run %t.kdab --batch 1 --seq-len 4097 --heads 8 --value-heads 8 --seed 1 | FileCheck %s

// CHECK: gate=softplus dtype=f16
// CHECK: {{^}}G {{.*}} 0 1.0e-05 ok{{$}}
// CHECK-NEXT: {{^}}PASS worst rms_ratio=

func.func @gate_softplus(%g: tensor<?x?x8x100xf16>, %a: tensor<8xf32>, %dt: tensor<800xf32>) -> tensor<?x?x8x100xf32> {
  %G = kda.gate_cumsum %g a_log %a dt_bias %dt {gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x8x100xf16>, tensor<8xf32>, tensor<800xf32>) -> tensor<?x?x8x100xf32>
  return %G : tensor<?x?x8x100xf32>
}
