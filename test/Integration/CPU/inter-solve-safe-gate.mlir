// kda.inter_solve with safe_gate on the CPU path: gates clamped to [-5, 0]
// and Akkd holding the inverted diagonal blocks (no forward substitution in
// the kernel). T = 63, 64, 65, 500, B = 1 and 2, both head layouts, K = 60,
// 64 and 100, chunk 64 and 32, every merge precision.

// RUN: kda-cpu-run %s --entry safe_h1_k60_f32 --batch 1 --seq-len 63 | FileCheck %s
// RUN: kda-cpu-run %s --entry safe_h1_k60_f32 --batch 2 --seq-len 64 | FileCheck %s
// RUN: kda-cpu-run %s --entry safe_h1_k60_f32 --batch 1 --seq-len 65 | FileCheck %s
// RUN: kda-cpu-run %s --entry safe_h1_k60_f32 --batch 2 --seq-len 500 --mask-p 0.3 | FileCheck %s
// RUN: kda-cpu-run %s --entry safe_gva_k100_bf16_chunk32 --batch 2 --seq-len 63 | FileCheck %s
// RUN: kda-cpu-run %s --entry safe_gva_k100_bf16_chunk32 --batch 1 --seq-len 500 --seed 3 | FileCheck %s
// RUN: kda-cpu-run %s --entry safe_gva_k64_f16 --batch 1 --seq-len 65 | FileCheck %s
// RUN: kda-cpu-run %s --entry safe_gva_k64_f16 --batch 2 --seq-len 64 --mask-p 0.5 | FileCheck %s

// CHECK: (kda.inter_solve) {{.*}} safe_gate
// CHECK-NOT: FAIL
// CHECK: PASS

func.func @safe_h1_k60_f32(%q: tensor<?x?x1x60xf32>, %k: tensor<?x?x1x60xf32>,
                           %G: tensor<?x?x1x60xf32>, %beta: tensor<?x?x1xf32>,
                           %Aqk: tensor<?x?x1x64xf32>, %Akkd: tensor<?x?x1x16xf32>)
    -> (tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.125 : f32, safe_gate, precision = #kda<precision tf32x3>}
      : (tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>,
         tensor<?x?x1xf32>, tensor<?x?x1x64xf32>, tensor<?x?x1x16xf32>)
      -> (tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>)
  return %Aqk_out, %M : tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>
}

func.func @safe_gva_k100_bf16_chunk32(%q: tensor<?x?x2x100xbf16>, %k: tensor<?x?x2x100xbf16>,
                                      %G: tensor<?x?x8x100xf32>, %beta: tensor<?x?x8xf32>,
                                      %Aqk: tensor<?x?x8x32xbf16>, %Akkd: tensor<?x?x8x16xf32>)
    -> (tensor<?x?x8x32xbf16>, tensor<?x?x8x32xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.1 : f32, chunk_size = 32 : i64, safe_gate}
      : (tensor<?x?x2x100xbf16>, tensor<?x?x2x100xbf16>, tensor<?x?x8x100xf32>,
         tensor<?x?x8xf32>, tensor<?x?x8x32xbf16>, tensor<?x?x8x16xf32>)
      -> (tensor<?x?x8x32xbf16>, tensor<?x?x8x32xbf16>)
  return %Aqk_out, %M : tensor<?x?x8x32xbf16>, tensor<?x?x8x32xbf16>
}

func.func @safe_gva_k64_f16(%q: tensor<?x?x2x64xf16>, %k: tensor<?x?x2x64xf16>,
                            %G: tensor<?x?x8x64xf32>, %beta: tensor<?x?x8xf16>,
                            %Aqk: tensor<?x?x8x64xf16>, %Akkd: tensor<?x?x8x16xf32>)
    -> (tensor<?x?x8x64xf16>, tensor<?x?x8x64xf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.125 : f32, safe_gate, precision = #kda<precision ieee>}
      : (tensor<?x?x2x64xf16>, tensor<?x?x2x64xf16>, tensor<?x?x8x64xf32>,
         tensor<?x?x8xf16>, tensor<?x?x8x64xf16>, tensor<?x?x8x16xf32>)
      -> (tensor<?x?x8x64xf16>, tensor<?x?x8x64xf16>)
  return %Aqk_out, %M : tensor<?x?x8x64xf16>, tensor<?x?x8x64xf16>
}
