// RUN: kda-opt %s --kda-fuse-scan-output --split-input-file | FileCheck %s

// A scan whose h and v_new only the output reads: one kda.state_scan_output
// with the scan's operands, the output's q, Aqk and scale, and the scan's
// initial state, varlen offsets, chunk size and state layout.

// CHECK-LABEL: func.func @fused(
// CHECK-SAME: %[[KG:[a-z0-9]+]]: {{.*}}, %[[W:[a-z0-9]+]]: {{.*}}, %[[U:[a-z0-9]+]]: {{.*}}, %[[G:[a-z0-9]+]]: {{.*}}, %[[Q:[a-z0-9]+]]: {{.*}}, %[[AQK:[a-z0-9]+]]: {{.*}}, %[[H0:[a-z0-9]+]]: {{.*}}, %[[CU:[a-z0-9]+]]:
// CHECK-NOT: kda.state_scan %
// CHECK-NOT: kda.output
// CHECK: %[[O:.*]], %[[HT:.*]] = kda.state_scan_output %[[KG]], %[[W]], %[[U]], %[[G]], %[[Q]], %[[AQK]] initial_state %[[H0]] cu_seqlens %[[CU]] {chunk_size = 32 : i64, scale = 2.500000e-01 : f32, state_layout = #kda<state_layout vk>}
// CHECK-SAME: -> (tensor<1x?x8x128xf16>, tensor<?x8x128x64xf32>)
// CHECK: return %[[O]], %[[HT]]
func.func @fused(%kg: tensor<1x?x8x64xf16>, %w: tensor<1x?x8x64xf16>,
                 %u: tensor<1x?x8x128xf16>, %G: tensor<1x?x8x64xf32>,
                 %q: tensor<1x?x4x64xf16>, %Aqk: tensor<1x?x8x32xf16>,
                 %h0: tensor<?x8x128x64xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x8x128xf16>, tensor<?x8x128x64xf32>) {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0 cu_seqlens %cu
      {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x8x64xf16>, tensor<1x?x8x64xf16>, tensor<1x?x8x128xf16>,
         tensor<1x?x8x64xf32>, tensor<?x8x128x64xf32>, tensor<?xi64>)
      -> (tensor<1x?x8x128x64xf16>, tensor<1x?x8x128xf16>, tensor<?x8x128x64xf32>)
  %o = kda.output %q, %G, %Aqk, %h, %vn cu_seqlens %cu
      {chunk_size = 32 : i64, scale = 0.25 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x64xf16>, tensor<1x?x8x64xf32>, tensor<1x?x8x32xf16>,
         tensor<1x?x8x128x64xf16>, tensor<1x?x8x128xf16>, tensor<?xi64>)
      -> tensor<1x?x8x128xf16>
  return %o, %ht : tensor<1x?x8x128xf16>, tensor<?x8x128x64xf32>
}

// -----

// h has a second reader: the pair stays as it is.

// CHECK-LABEL: func.func @h_read_twice(
// CHECK: kda.state_scan %
// CHECK: kda.output
// CHECK-NOT: kda.state_scan_output
func.func @h_read_twice(%kg: tensor<2x?x8x64xbf16>, %w: tensor<2x?x8x64xbf16>,
                        %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
                        %q: tensor<2x?x8x64xbf16>, %Aqk: tensor<2x?x8x64xbf16>)
    -> (tensor<2x?x8x128xbf16>, tensor<2x?x8x64x128xbf16>) {
  %h, %vn = kda.state_scan %kg, %w, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>,
         tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
      -> tensor<2x?x8x128xbf16>
  return %o, %h : tensor<2x?x8x128xbf16>, tensor<2x?x8x64x128xbf16>
}

// -----

// The output reads another gate cumsum than the scan: not fused.

// CHECK-LABEL: func.func @other_gate(
// CHECK: kda.state_scan %
// CHECK: kda.output
// CHECK-NOT: kda.state_scan_output
func.func @other_gate(%kg: tensor<2x?x8x64xbf16>, %w: tensor<2x?x8x64xbf16>,
                      %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
                      %G2: tensor<2x?x8x64xf32>,
                      %q: tensor<2x?x8x64xbf16>, %Aqk: tensor<2x?x8x64xbf16>)
    -> tensor<2x?x8x128xbf16> {
  %h, %vn = kda.state_scan %kg, %w, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  %o = kda.output %q, %G2, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>,
         tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
      -> tensor<2x?x8x128xbf16>
  return %o : tensor<2x?x8x128xbf16>
}

// -----

// A different chunk size on the two ops: not fused.

// CHECK-LABEL: func.func @other_chunk(
// CHECK: kda.state_scan %
// CHECK: kda.output
// CHECK-NOT: kda.state_scan_output
func.func @other_chunk(%kg: tensor<2x?x8x64xbf16>, %w: tensor<2x?x8x64xbf16>,
                       %u: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
                       %q: tensor<2x?x8x64xbf16>, %Aqk: tensor<2x?x8x32xbf16>)
    -> tensor<2x?x8x128xbf16> {
  %h, %vn = kda.state_scan %kg, %w, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  %o = kda.output %q, %G, %Aqk, %h, %vn {chunk_size = 32 : i64, scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x32xbf16>,
         tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
      -> tensor<2x?x8x128xbf16>
  return %o : tensor<2x?x8x128xbf16>
}
