// kda.inter_solve with safe_gate on the CPU build: gates clamped to [-5, 0]
// and Akkd holding the inverted diagonal blocks (no forward substitution in
// the kernel). T = 63, 64, 65, 500, B = 1 and 2, both head layouts, K = 60,
// 64 and 100, chunk 64 and 32, every merge precision.

// RUN: split-file %s %t
// RUN: kda-translate %t/safe_h1_k60_f32.mlir --kda-to-bundle --no-cubin -o %t/safe_h1_k60_f32.kdab
// RUN: kda-translate %t/safe_gva_k100_bf16_chunk32.mlir --kda-to-bundle --no-cubin -o %t/safe_gva_k100_bf16_chunk32.kdab
// RUN: kda-translate %t/safe_gva_k64_f16.mlir --kda-to-bundle --no-cubin -o %t/safe_gva_k64_f16.kdab
// RUN: kda-run %t/safe_h1_k60_f32.kdab --cpu --batch 1 --seq-len 63 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/safe_h1_k60_f32.kdab --cpu --batch 2 --seq-len 64 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/safe_h1_k60_f32.kdab --cpu --batch 1 --seq-len 65 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/safe_h1_k60_f32.kdab --cpu --batch 2 --seq-len 500 --heads 1 --value-heads 1 --mask-p 0.3 | FileCheck %s
// RUN: kda-run %t/safe_gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/safe_gva_k100_bf16_chunk32.kdab --cpu --batch 1 --seq-len 500 --heads 2 --value-heads 8 --seed 3 | FileCheck %s
// RUN: kda-run %t/safe_gva_k64_f16.kdab --cpu --batch 1 --seq-len 65 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/safe_gva_k64_f16.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 8 --mask-p 0.5 | FileCheck %s

// CHECK: (program=inter_solve) on the CPU build: {{.*}} safe_gate=1
// CHECK-NOT: FAIL
// CHECK: PASS

//--- safe_h1_k60_f32.mlir
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

//--- safe_gva_k100_bf16_chunk32.mlir
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

//--- safe_gva_k64_f16.mlir
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
