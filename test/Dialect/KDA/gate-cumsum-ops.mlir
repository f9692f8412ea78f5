// RUN: kda-opt %s | kda-opt | FileCheck %s

// CHECK-LABEL: func.func @gate_cumsum_default
func.func @gate_cumsum_default(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  // CHECK: kda.gate_cumsum %{{.*}} : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

// CHECK-LABEL: func.func @gate_cumsum_lower_bound_varlen
func.func @gate_cumsum_lower_bound_varlen(%g: tensor<1x?x4x64xbf16>, %a: tensor<4xf32>,
    %dt: tensor<4x64xf32>, %cu: tensor<?xi64>) -> tensor<1x?x4x64xf32> {
  // CHECK: kda.gate_cumsum %{{.*}} a_log %{{.*}} dt_bias %{{.*}} cu_seqlens %{{.*}} {chunk_size = 32 : i64, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.000000e+00 : f32}
  %G = kda.gate_cumsum %g a_log %a dt_bias %dt cu_seqlens %cu
      {chunk_size = 32 : i64, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<1x?x4x64xbf16>, tensor<4xf32>, tensor<4x64xf32>, tensor<?xi64>) -> tensor<1x?x4x64xf32>
  return %G : tensor<1x?x4x64xf32>
}
