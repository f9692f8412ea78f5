// The two stages of the recurrent form (kda-fuse-recurrence) on the CPU
// build, each against the float64 reference of its own inputs:
// kda.decay_apply with grouped value heads (bf16, K = 100, T not a multiple
// of the chunk; f32 varlen with empty and one-token sequences, chunk 32),
// and kda.chunk_recurrence (bf16 K = V = 128 with gates masked to -1000;
// f16 varlen with K = 100 != V = 60, chunk 32, initial and final state in
// layout vk; f32 K = 64 != V = 32 with kv states; chunk 16).

// RUN: split-file %s %t
// RUN: kda-translate %t/decay_gva_bf16.mlir --kda-to-bundle --no-cubin -o %t/decay_gva_bf16.kdab
// RUN: kda-translate %t/decay_varlen_f32.mlir --kda-to-bundle --no-cubin -o %t/decay_varlen_f32.kdab
// RUN: kda-translate %t/rec_bf16.mlir --kda-to-bundle --no-cubin -o %t/rec_bf16.kdab
// RUN: kda-translate %t/rec_varlen_f16_vk.mlir --kda-to-bundle --no-cubin -o %t/rec_varlen_f16_vk.kdab
// RUN: kda-translate %t/rec_f32_kv.mlir --kda-to-bundle --no-cubin -o %t/rec_f32_kv.kdab
// RUN: kda-translate %t/rec_c16.mlir --kda-to-bundle --no-cubin -o %t/rec_c16.kdab
// RUN: kda-run %t/decay_gva_bf16.kdab --cpu --batch 2 --seq-len 150 --heads 2 --value-heads 4 | FileCheck %s --check-prefix=DECAY
// RUN: kda-run %t/decay_varlen_f32.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 2 --cu-seqlens 0,0,1,1,64,65,130,300 --mask-p 0.1 | FileCheck %s --check-prefix=DECAY
// RUN: kda-run %t/rec_bf16.kdab --cpu --batch 2 --seq-len 200 --heads 2 --value-heads 2 --mask-p 0.5 | FileCheck %s --check-prefix=REC
// RUN: kda-run %t/rec_varlen_f16_vk.kdab --cpu --batch 1 --seq-len 300 --heads 4 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefixes=REC,STATES
// RUN: kda-run %t/rec_f32_kv.kdab --cpu --batch 2 --seq-len 129 --heads 2 --value-heads 2 | FileCheck %s --check-prefixes=REC,STATES
// RUN: kda-run %t/rec_c16.kdab --cpu --batch 1 --seq-len 100 --heads 2 --value-heads 2 | FileCheck %s --check-prefix=REC
// RUN: not kda-run %t/decay_gva_bf16.kdab --cpu --batch 1 --seq-len 64 --heads 2 --value-heads 4 --inject-error | FileCheck %s --check-prefix=BAD
// RUN: not kda-run %t/rec_bf16.kdab --cpu --batch 1 --seq-len 64 --heads 2 --value-heads 2 --inject-error | FileCheck %s --check-prefix=BAD

// DECAY: (program=decay_apply) on the CPU build
// DECAY: {{^}}qg {{.*}} ok{{$}}
// DECAY: {{^}}kd {{.*}} ok{{$}}
// DECAY: {{^}}kg {{.*}} ok{{$}}
// DECAY: {{^}}decay_last {{.*}} ok{{$}}
// DECAY-NOT: FAIL
// DECAY: PASS
// REC: (program=chunk_recurrence) on the CPU build
// REC: {{^}}o {{.*}} ok{{$}}
// STATES: {{^}}final_state {{.*}} ok{{$}}
// REC-NOT: FAIL
// REC: PASS
// BAD: FAIL

//--- decay_gva_bf16.mlir
func.func @decay_gva_bf16(%q: tensor<?x?x2x100xbf16>, %k: tensor<?x?x2x100xbf16>, %G: tensor<?x?x4x100xf32>)
    -> (tensor<?x?x4x100xbf16>, tensor<?x?x4x100xbf16>, tensor<?x?x4x100xbf16>, tensor<?x?x4x100xf32>) {
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G {scale = 0.1 : f32}
      : (tensor<?x?x2x100xbf16>, tensor<?x?x2x100xbf16>, tensor<?x?x4x100xf32>)
      -> (tensor<?x?x4x100xbf16>, tensor<?x?x4x100xbf16>, tensor<?x?x4x100xbf16>, tensor<?x?x4x100xf32>)
  return %qg, %kd, %kg, %dl : tensor<?x?x4x100xbf16>, tensor<?x?x4x100xbf16>, tensor<?x?x4x100xbf16>, tensor<?x?x4x100xf32>
}

//--- decay_varlen_f32.mlir
func.func @decay_varlen_f32(%q: tensor<1x?x2x64xf32>, %k: tensor<1x?x2x64xf32>, %G: tensor<1x?x2x64xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>) {
  %qg, %kd, %kg, %dl = kda.decay_apply %q, %k, %G cu_seqlens %cu {chunk_size = 32 : i64, scale = 0.125 : f32}
      : (tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>, tensor<?xi64>)
      -> (tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>)
  return %qg, %kd, %kg, %dl : tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32>
}

//--- rec_bf16.mlir
func.func @rec_bf16(%qg: tensor<?x?x2x128xbf16>, %kd: tensor<?x?x2x128xbf16>, %kg: tensor<?x?x2x128xbf16>,
                    %v: tensor<?x?x2x128xbf16>, %beta: tensor<?x?x2xbf16>, %M: tensor<?x?x2x64xbf16>,
                    %Aqk: tensor<?x?x2x64xbf16>, %dl: tensor<?x?x2x128xf32>) -> tensor<?x?x2x128xbf16> {
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl
      : (tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>,
         tensor<?x?x2xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x128xf32>)
      -> tensor<?x?x2x128xbf16>
  return %o : tensor<?x?x2x128xbf16>
}

//--- rec_varlen_f16_vk.mlir
func.func @rec_varlen_f16_vk(%qg: tensor<1x?x4x100xf16>, %kd: tensor<1x?x4x100xf16>, %kg: tensor<1x?x4x100xf16>,
                             %v: tensor<1x?x4x60xf16>, %beta: tensor<1x?x4xf32>, %M: tensor<1x?x4x32xf16>,
                             %Aqk: tensor<1x?x4x32xf16>, %dl: tensor<1x?x4x100xf32>,
                             %h0: tensor<?x4x60x100xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>) {
  %o, %ht = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl initial_state %h0 cu_seqlens %cu
      {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x100xf16>, tensor<1x?x4x60xf16>,
         tensor<1x?x4xf32>, tensor<1x?x4x32xf16>, tensor<1x?x4x32xf16>, tensor<1x?x4x100xf32>,
         tensor<?x4x60x100xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>)
  return %o, %ht : tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>
}

//--- rec_f32_kv.mlir
func.func @rec_f32_kv(%qg: tensor<?x?x2x64xf32>, %kd: tensor<?x?x2x64xf32>, %kg: tensor<?x?x2x64xf32>,
                      %v: tensor<?x?x2x32xf32>, %beta: tensor<?x?x2xf32>, %M: tensor<?x?x2x64xf32>,
                      %Aqk: tensor<?x?x2x64xf32>, %dl: tensor<?x?x2x64xf32>, %h0: tensor<?x2x64x32xf32>)
    -> (tensor<?x?x2x32xf32>, tensor<?x2x64x32xf32>) {
  %o, %ht = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl initial_state %h0
      : (tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2x32xf32>,
         tensor<?x?x2xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>,
         tensor<?x2x64x32xf32>)
      -> (tensor<?x?x2x32xf32>, tensor<?x2x64x32xf32>)
  return %o, %ht : tensor<?x?x2x32xf32>, tensor<?x2x64x32xf32>
}

//--- rec_c16.mlir
func.func @rec_c16(%qg: tensor<?x?x2x64xbf16>, %kd: tensor<?x?x2x64xbf16>, %kg: tensor<?x?x2x64xbf16>,
                   %v: tensor<?x?x2x64xbf16>, %beta: tensor<?x?x2xf32>, %M: tensor<?x?x2x16xbf16>,
                   %Aqk: tensor<?x?x2x16xbf16>, %dl: tensor<?x?x2x64xf32>) -> tensor<?x?x2x64xbf16> {
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl {chunk_size = 16 : i64}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>,
         tensor<?x?x2xf32>, tensor<?x?x2x16xbf16>, tensor<?x?x2x16xbf16>, tensor<?x?x2x64xf32>)
      -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}
