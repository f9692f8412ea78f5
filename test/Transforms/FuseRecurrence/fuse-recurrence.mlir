// RUN: kda-opt %s --kda-fuse-recurrence --split-input-file | FileCheck %s

// The forward's tail (WY recompute, state scan, output), each intermediate
// read only by the next op: a kda.decay_apply of q, k and G with the
// output's scale, then one kda.chunk_recurrence reading v, beta and M of the
// WY recompute, Aqk of the output and the scan's initial state, varlen
// offsets, chunk size and state layout, and 2^G of G's last row per chunk
// (decay_last, [B, NC, HV, K]) in place of G. Grouped value heads: q and k have
// 4 heads, the decayed keys 8.

// CHECK-LABEL: func.func @tail(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: {{.*}}, %[[K:[a-z0-9]+]]: {{.*}}, %[[V:[a-z0-9]+]]: {{.*}}, %[[G:[a-z0-9]+]]: {{.*}}, %[[BETA:[a-z0-9]+]]: {{.*}}, %[[M:[a-z0-9]+]]: {{.*}}, %[[AQK:[a-z0-9]+]]: {{.*}}, %[[H0:[a-z0-9]+]]: {{.*}}, %[[CU:[a-z0-9]+]]:
// CHECK-NOT: kda.wy_recompute
// CHECK-NOT: kda.state_scan
// CHECK-NOT: kda.output
// CHECK: %[[QG:.*]], %[[KD:.*]], %[[KG:.*]], %[[DL:.*]] = kda.decay_apply %[[Q]], %[[K]], %[[G]] cu_seqlens %[[CU]] {chunk_size = 32 : i64, scale = 2.500000e-01 : f32}
// CHECK-SAME: -> (tensor<1x?x8x64xf16>, tensor<1x?x8x64xf16>, tensor<1x?x8x64xf16>, tensor<1x?x8x64xf32>)
// CHECK: %[[O:.*]], %[[HT:.*]] = kda.chunk_recurrence %[[QG]], %[[KD]], %[[KG]], %[[V]], %[[BETA]], %[[M]], %[[AQK]], %[[DL]] initial_state %[[H0]] cu_seqlens %[[CU]] {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
// CHECK-SAME: -> (tensor<1x?x8x128xf16>, tensor<?x8x128x64xf32>)
// CHECK: return %[[O]], %[[HT]]
func.func @tail(%q: tensor<1x?x4x64xf16>, %k: tensor<1x?x4x64xf16>,
                %v: tensor<1x?x8x128xf16>, %G: tensor<1x?x8x64xf32>,
                %beta: tensor<1x?x8xf32>, %M: tensor<1x?x8x32xf16>,
                %Aqk: tensor<1x?x8x32xf16>, %h0: tensor<?x8x128x64xf32>,
                %cu: tensor<?xi64>)
    -> (tensor<1x?x8x128xf16>, tensor<?x8x128x64xf32>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M cu_seqlens %cu
      {chunk_size = 32 : i64}
      : (tensor<1x?x4x64xf16>, tensor<1x?x8x128xf16>, tensor<1x?x8x64xf32>,
         tensor<1x?x8xf32>, tensor<1x?x8x32xf16>, tensor<?xi64>)
      -> (tensor<1x?x8x64xf16>, tensor<1x?x8x128xf16>, tensor<1x?x8x64xf16>)
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

// The scan with the output already inside (kda-fuse-scan-output ran
// first): the same recurrent form, without a final state.

// CHECK-LABEL: func.func @after_scan_output(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: {{.*}}, %[[K:[a-z0-9]+]]: {{.*}}, %[[V:[a-z0-9]+]]: {{.*}}, %[[G:[a-z0-9]+]]: {{.*}}, %[[BETA:[a-z0-9]+]]: {{.*}}, %[[M:[a-z0-9]+]]: {{.*}}, %[[AQK:[a-z0-9]+]]:
// CHECK-NOT: kda.state_scan_output
// CHECK: %[[QG:.*]], %[[KD:.*]], %[[KG:.*]], %[[DL:.*]] = kda.decay_apply %[[Q]], %[[K]], %[[G]] {scale = 1.250000e-01 : f32}
// CHECK: %[[O:.*]] = kda.chunk_recurrence %[[QG]], %[[KD]], %[[KG]], %[[V]], %[[BETA]], %[[M]], %[[AQK]], %[[DL]] :
// CHECK-SAME: -> tensor<2x?x8x128xbf16>
// CHECK: return %[[O]]
func.func @after_scan_output(%q: tensor<2x?x8x64xbf16>, %k: tensor<2x?x8x64xbf16>,
                             %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
                             %beta: tensor<2x?x8xbf16>, %M: tensor<2x?x8x64xbf16>,
                             %Aqk: tensor<2x?x8x64xbf16>)
    -> tensor<2x?x8x128xbf16> {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>,
         tensor<2x?x8xbf16>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  %o = kda.state_scan_output %kg, %w, %u, %G, %q, %Aqk {scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>)
      -> tensor<2x?x8x128xbf16>
  return %o : tensor<2x?x8x128xbf16>
}

// -----

// Static T: decay_last has ceil(T / BT) chunk slots (ceil(100 / 64) = 2), or
// floor(T / BT) + N with cu_seqlens (floor(100 / 32) + 3 = 6).

// CHECK-LABEL: func.func @static_rows(
// CHECK: kda.decay_apply {{.*}} -> (tensor<2x100x8x64xbf16>, tensor<2x100x8x64xbf16>, tensor<2x100x8x64xbf16>, tensor<2x2x8x64xf32>)
// CHECK-LABEL: func.func @static_rows_varlen(
// CHECK: kda.decay_apply {{.*}} -> (tensor<1x100x8x64xbf16>, tensor<1x100x8x64xbf16>, tensor<1x100x8x64xbf16>, tensor<1x6x8x64xf32>)
func.func @static_rows(%q: tensor<2x100x8x64xbf16>, %k: tensor<2x100x8x64xbf16>,
                       %v: tensor<2x100x8x128xbf16>, %G: tensor<2x100x8x64xf32>,
                       %beta: tensor<2x100x8xbf16>, %M: tensor<2x100x8x64xbf16>,
                       %Aqk: tensor<2x100x8x64xbf16>)
    -> tensor<2x100x8x128xbf16> {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x100x8x64xbf16>, tensor<2x100x8x128xbf16>, tensor<2x100x8x64xf32>,
         tensor<2x100x8xbf16>, tensor<2x100x8x64xbf16>)
      -> (tensor<2x100x8x64xbf16>, tensor<2x100x8x128xbf16>, tensor<2x100x8x64xbf16>)
  %o = kda.state_scan_output %kg, %w, %u, %G, %q, %Aqk {scale = 0.125 : f32}
      : (tensor<2x100x8x64xbf16>, tensor<2x100x8x64xbf16>, tensor<2x100x8x128xbf16>,
         tensor<2x100x8x64xf32>, tensor<2x100x8x64xbf16>, tensor<2x100x8x64xbf16>)
      -> tensor<2x100x8x128xbf16>
  return %o : tensor<2x100x8x128xbf16>
}
func.func @static_rows_varlen(%q: tensor<1x100x8x64xbf16>, %k: tensor<1x100x8x64xbf16>,
                              %v: tensor<1x100x8x128xbf16>, %G: tensor<1x100x8x64xf32>,
                              %beta: tensor<1x100x8xbf16>, %M: tensor<1x100x8x32xbf16>,
                              %Aqk: tensor<1x100x8x32xbf16>, %cu: tensor<4xi64>)
    -> tensor<1x100x8x128xbf16> {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M cu_seqlens %cu {chunk_size = 32 : i64}
      : (tensor<1x100x8x64xbf16>, tensor<1x100x8x128xbf16>, tensor<1x100x8x64xf32>,
         tensor<1x100x8xbf16>, tensor<1x100x8x32xbf16>, tensor<4xi64>)
      -> (tensor<1x100x8x64xbf16>, tensor<1x100x8x128xbf16>, tensor<1x100x8x64xbf16>)
  %o = kda.state_scan_output %kg, %w, %u, %G, %q, %Aqk cu_seqlens %cu {chunk_size = 32 : i64, scale = 0.125 : f32}
      : (tensor<1x100x8x64xbf16>, tensor<1x100x8x64xbf16>, tensor<1x100x8x128xbf16>,
         tensor<1x100x8x64xf32>, tensor<1x100x8x64xbf16>, tensor<1x100x8x32xbf16>, tensor<4xi64>)
      -> tensor<1x100x8x128xbf16>
  return %o : tensor<1x100x8x128xbf16>
}

// -----

// u has a second reader: the tail stays as it is.

// CHECK-LABEL: func.func @u_read_twice(
// CHECK: kda.wy_recompute
// CHECK: kda.state_scan %
// CHECK: kda.output
// CHECK-NOT: kda.chunk_recurrence
func.func @u_read_twice(%q: tensor<2x?x8x64xbf16>, %k: tensor<2x?x8x64xbf16>,
                        %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
                        %beta: tensor<2x?x8xbf16>, %M: tensor<2x?x8x64xbf16>,
                        %Aqk: tensor<2x?x8x64xbf16>)
    -> (tensor<2x?x8x128xbf16>, tensor<2x?x8x128xbf16>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>,
         tensor<2x?x8xbf16>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  %h, %vn = kda.state_scan %kg, %w, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>,
         tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
      -> tensor<2x?x8x128xbf16>
  return %o, %u : tensor<2x?x8x128xbf16>, tensor<2x?x8x128xbf16>
}

// -----

// The WY recompute reads another gate cumsum than the scan: not fused.

// CHECK-LABEL: func.func @other_gate(
// CHECK: kda.wy_recompute
// CHECK: kda.state_scan %
// CHECK: kda.output
// CHECK-NOT: kda.chunk_recurrence
func.func @other_gate(%q: tensor<2x?x8x64xbf16>, %k: tensor<2x?x8x64xbf16>,
                      %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
                      %G2: tensor<2x?x8x64xf32>,
                      %beta: tensor<2x?x8xbf16>, %M: tensor<2x?x8x64xbf16>,
                      %Aqk: tensor<2x?x8x64xbf16>)
    -> tensor<2x?x8x128xbf16> {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G2, %beta, %M
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>,
         tensor<2x?x8xbf16>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  %h, %vn = kda.state_scan %kg, %w, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>,
         tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
      -> tensor<2x?x8x128xbf16>
  return %o : tensor<2x?x8x128xbf16>
}

// -----

// The scan's kg and w come from a WY recompute but u does not (a scan of
// values computed elsewhere): not fused.

// CHECK-LABEL: func.func @u_elsewhere(
// CHECK: kda.wy_recompute
// CHECK: kda.state_scan %
// CHECK: kda.output
// CHECK-NOT: kda.chunk_recurrence
func.func @u_elsewhere(%q: tensor<2x?x8x64xbf16>, %k: tensor<2x?x8x64xbf16>,
                       %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
                       %beta: tensor<2x?x8xbf16>, %M: tensor<2x?x8x64xbf16>,
                       %Aqk: tensor<2x?x8x64xbf16>, %u2: tensor<2x?x8x128xbf16>)
    -> (tensor<2x?x8x128xbf16>, tensor<2x?x8x128xbf16>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>,
         tensor<2x?x8xbf16>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  %h, %vn = kda.state_scan %kg, %w, %u2, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>,
         tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
      -> tensor<2x?x8x128xbf16>
  return %o, %u : tensor<2x?x8x128xbf16>, tensor<2x?x8x128xbf16>
}

// -----

// The scan's final state is used before the output: the recurrence, which
// stands where the output stood, could not define it; not fused.

// CHECK-LABEL: func.func @state_used_early(
// CHECK: kda.wy_recompute
// CHECK: kda.state_scan %
// CHECK: kda.output
// CHECK-NOT: kda.chunk_recurrence
func.func @state_used_early(%q: tensor<2x?x8x64xbf16>, %k: tensor<2x?x8x64xbf16>,
                            %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
                            %beta: tensor<2x?x8xbf16>, %M: tensor<2x?x8x64xbf16>,
                            %Aqk: tensor<2x?x8x64xbf16>)
    -> (tensor<2x?x8x128xbf16>, tensor<2x8x64x128xf32>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>,
         tensor<2x?x8xbf16>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>, tensor<2x8x64x128xf32>)
  %ht2 = tensor.empty() : tensor<2x8x64x128xf32>
  %copy = linalg.copy ins(%ht : tensor<2x8x64x128xf32>) outs(%ht2 : tensor<2x8x64x128xf32>) -> tensor<2x8x64x128xf32>
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>,
         tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
      -> tensor<2x?x8x128xbf16>
  return %o, %copy : tensor<2x?x8x128xbf16>, tensor<2x8x64x128xf32>
}

// -----

// The output's q has fewer heads than the WY recompute's k (each is a
// valid op, but kda.decay_apply reads them as one pair): not fused.

// CHECK-LABEL: func.func @q_k_differ(
// CHECK: kda.wy_recompute
// CHECK: kda.state_scan %
// CHECK: kda.output
// CHECK-NOT: kda.chunk_recurrence
func.func @q_k_differ(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x8x64xbf16>,
                      %v: tensor<2x?x8x128xbf16>, %G: tensor<2x?x8x64xf32>,
                      %beta: tensor<2x?x8xbf16>, %M: tensor<2x?x8x64xbf16>,
                      %Aqk: tensor<2x?x8x64xbf16>)
    -> tensor<2x?x8x128xbf16> {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xf32>,
         tensor<2x?x8xbf16>, tensor<2x?x8x64xbf16>)
      -> (tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>, tensor<2x?x8x64xbf16>)
  %h, %vn = kda.state_scan %kg, %w, %u, %G
      : (tensor<2x?x8x64xbf16>, tensor<2x?x8x64xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x64xf32>)
      -> (tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xbf16>,
         tensor<2x?x8x64x128xbf16>, tensor<2x?x8x128xbf16>)
      -> tensor<2x?x8x128xbf16>
  return %o : tensor<2x?x8x128xbf16>
}
