// Varlen on the CPU build, with one-token and empty sequences and sequences
// that straddle chunk boundaries; chunk 64 and 32; K = 60 (not a multiple
// of the 32-wide K tile); f32 and bf16 gates.

// RUN: split-file %s %t
// RUN: kda-translate %t/varlen.mlir --kda-to-bundle --no-cubin -o %t/varlen.kdab
// RUN: kda-translate %t/varlen32.mlir --kda-to-bundle --no-cubin -o %t/varlen32.kdab
// RUN: kda-run %t/varlen.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 3 --cu-seqlens 0,1,64,65,300 | FileCheck %s
// RUN: kda-run %t/varlen.kdab --cpu --batch 1 --seq-len 2000 --heads 3 --value-heads 3 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen.kdab --cpu --batch 1 --seq-len 1 --heads 1 --value-heads 3 --cu-seqlens 0,1 | FileCheck %s
// Many sequences (empty, one-token, straddling): every program finds its
// sequence among 40 and among 300 by the chunk search of tile.varlen_chunk.
// RUN: kda-run %t/varlen.kdab --cpu --batch 1 --seq-len 1388 --heads 1 --value-heads 3 --cu-seqlens 0,0,1,64,128,193,198,328,328,345,347,347,348,411,475,540,545,675,675,692,694,694,695,758,822,887,892,1022,1022,1039,1041,1041,1042,1105,1169,1234,1239,1369,1369,1386,1388 | FileCheck %s
// RUN: kda-run %t/varlen.kdab --cpu --batch 1 --seq-len 6480 --heads 1 --value-heads 3 --cu-seqlens 0,0,1,3,20,84,149,152,152,183,216,216,217,219,236,300,365,368,368,399,432,432,433,435,452,516,581,584,584,615,648,648,649,651,668,732,797,800,800,831,864,864,865,867,884,948,1013,1016,1016,1047,1080,1080,1081,1083,1100,1164,1229,1232,1232,1263,1296,1296,1297,1299,1316,1380,1445,1448,1448,1479,1512,1512,1513,1515,1532,1596,1661,1664,1664,1695,1728,1728,1729,1731,1748,1812,1877,1880,1880,1911,1944,1944,1945,1947,1964,2028,2093,2096,2096,2127,2160,2160,2161,2163,2180,2244,2309,2312,2312,2343,2376,2376,2377,2379,2396,2460,2525,2528,2528,2559,2592,2592,2593,2595,2612,2676,2741,2744,2744,2775,2808,2808,2809,2811,2828,2892,2957,2960,2960,2991,3024,3024,3025,3027,3044,3108,3173,3176,3176,3207,3240,3240,3241,3243,3260,3324,3389,3392,3392,3423,3456,3456,3457,3459,3476,3540,3605,3608,3608,3639,3672,3672,3673,3675,3692,3756,3821,3824,3824,3855,3888,3888,3889,3891,3908,3972,4037,4040,4040,4071,4104,4104,4105,4107,4124,4188,4253,4256,4256,4287,4320,4320,4321,4323,4340,4404,4469,4472,4472,4503,4536,4536,4537,4539,4556,4620,4685,4688,4688,4719,4752,4752,4753,4755,4772,4836,4901,4904,4904,4935,4968,4968,4969,4971,4988,5052,5117,5120,5120,5151,5184,5184,5185,5187,5204,5268,5333,5336,5336,5367,5400,5400,5401,5403,5420,5484,5549,5552,5552,5583,5616,5616,5617,5619,5636,5700,5765,5768,5768,5799,5832,5832,5833,5835,5852,5916,5981,5984,5984,6015,6048,6048,6049,6051,6068,6132,6197,6200,6200,6231,6264,6264,6265,6267,6284,6348,6413,6416,6416,6447,6480 | FileCheck %s
// RUN: kda-run %t/varlen32.kdab --cpu --batch 1 --seq-len 160 --heads 1 --value-heads 2 --cu-seqlens 0,31,96,160 | FileCheck %s
// RUN: kda-run %t/varlen32.kdab --cpu --batch 1 --seq-len 100 --heads 2 --value-heads 2 --cu-seqlens 0,0,50,50,100 | FileCheck %s

// CHECK: cu_seqlens=
// CHECK-NOT: FAIL
// CHECK: PASS

//--- varlen.mlir
func.func @gate_varlen(%g: tensor<1x?x3x60xf32>, %cu: tensor<?xi64>) -> tensor<1x?x3x60xf32> {
  %G = kda.gate_cumsum %g cu_seqlens %cu : (tensor<1x?x3x60xf32>, tensor<?xi64>) -> tensor<1x?x3x60xf32>
  return %G : tensor<1x?x3x60xf32>
}

//--- varlen32.mlir
func.func @gate_varlen32(%g: tensor<1x?x2x64xbf16>, %cu: tensor<?xi64>) -> tensor<1x?x2x64xf32> {
  %G = kda.gate_cumsum %g cu_seqlens %cu {chunk_size = 32 : i64}
      : (tensor<1x?x2x64xbf16>, tensor<?xi64>) -> tensor<1x?x2x64xf32>
  return %G : tensor<1x?x2x64xf32>
}
