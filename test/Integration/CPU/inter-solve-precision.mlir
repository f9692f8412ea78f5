// The merge precision of kda.inter_solve on the CPU build, with f32 I/O so
// that output rounding does not hide it. The starred rows compare the
// off-diagonal blocks with a reference that rounds the off-diagonal dot
// operands to tf32 as the kernel does, which leaves the fp32 accumulation
// (Aqk, ~1e-7) and the merge (M): ~1e-7 at ieee and tf32x3, ~2e-4 at tf32
// (the 16x16 operands rounded to tf32), each below its threshold.

// RUN: split-file %s %t
// RUN: kda-translate %t/merge_ieee.mlir --kda-to-bundle --no-cubin -o %t/merge_ieee.kdab
// RUN: kda-translate %t/merge_tf32x3.mlir --kda-to-bundle --no-cubin -o %t/merge_tf32x3.kdab
// RUN: kda-translate %t/merge_tf32.mlir --kda-to-bundle --no-cubin -o %t/merge_tf32.kdab
// RUN: kda-translate %t/merge_tf32x3_chunk32.mlir --kda-to-bundle --no-cubin -o %t/merge_tf32x3_chunk32.kdab
// RUN: kda-run %t/merge_ieee.kdab --cpu --batch 2 --seq-len 200 --heads 2 --value-heads 4 | FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: kda-run %t/merge_tf32x3.kdab --cpu --batch 2 --seq-len 200 --heads 2 --value-heads 4 | FileCheck %s --check-prefixes=CHECK,EXACT
// RUN: kda-run %t/merge_tf32.kdab --cpu --batch 2 --seq-len 200 --heads 2 --value-heads 4 | FileCheck %s --check-prefixes=CHECK,TF32
// RUN: kda-run %t/merge_tf32x3_chunk32.kdab --cpu --batch 1 --seq-len 100 --heads 2 --value-heads 4 | FileCheck %s --check-prefixes=CHECK,EXACT

// CHECK: Aqk_off* {{[0-9]+ +[0-9.]+e-0[78] .* 1.0e-06 +ok$}}
// EXACT: M_off* {{[0-9]+ +[0-9.]+e-0[78] .* 1.0e-05 +ok$}}
// TF32: M_off* {{[0-9]+ +[0-9.]+e-04 .* 1.0e-03 +ok$}}
// CHECK: PASS

//--- merge_ieee.mlir
func.func @merge_ieee(%q: tensor<?x?x2x64xf32>, %k: tensor<?x?x2x64xf32>,
                      %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>,
                      %Aqk: tensor<?x?x4x64xf32>, %Akkd: tensor<?x?x4x16xf32>)
    -> (tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.125 : f32, precision = #kda<precision ieee>}
      : (tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x4x64xf32>,
         tensor<?x?x4xf32>, tensor<?x?x4x64xf32>, tensor<?x?x4x16xf32>)
      -> (tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>)
  return %Aqk_out, %M : tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>
}

//--- merge_tf32x3.mlir
func.func @merge_tf32x3(%q: tensor<?x?x2x64xf32>, %k: tensor<?x?x2x64xf32>,
                        %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>,
                        %Aqk: tensor<?x?x4x64xf32>, %Akkd: tensor<?x?x4x16xf32>)
    -> (tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.125 : f32, precision = #kda<precision tf32x3>}
      : (tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x4x64xf32>,
         tensor<?x?x4xf32>, tensor<?x?x4x64xf32>, tensor<?x?x4x16xf32>)
      -> (tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>)
  return %Aqk_out, %M : tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>
}

//--- merge_tf32.mlir
func.func @merge_tf32(%q: tensor<?x?x2x64xf32>, %k: tensor<?x?x2x64xf32>,
                      %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>,
                      %Aqk: tensor<?x?x4x64xf32>, %Akkd: tensor<?x?x4x16xf32>)
    -> (tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.125 : f32, precision = #kda<precision tf32>}
      : (tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x4x64xf32>,
         tensor<?x?x4xf32>, tensor<?x?x4x64xf32>, tensor<?x?x4x16xf32>)
      -> (tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>)
  return %Aqk_out, %M : tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>
}

//--- merge_tf32x3_chunk32.mlir
func.func @merge_tf32x3_chunk32(%q: tensor<?x?x2x64xf32>, %k: tensor<?x?x2x64xf32>,
                                %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>,
                                %Aqk: tensor<?x?x4x32xf32>, %Akkd: tensor<?x?x4x16xf32>)
    -> (tensor<?x?x4x32xf32>, tensor<?x?x4x32xf32>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.125 : f32, chunk_size = 32 : i64, precision = #kda<precision tf32x3>}
      : (tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>, tensor<?x?x4x64xf32>,
         tensor<?x?x4xf32>, tensor<?x?x4x32xf32>, tensor<?x?x4x16xf32>)
      -> (tensor<?x?x4x32xf32>, tensor<?x?x4x32xf32>)
  return %Aqk_out, %M : tensor<?x?x4x32xf32>, tensor<?x?x4x32xf32>
}
