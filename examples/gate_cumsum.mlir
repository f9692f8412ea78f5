// The gate stage of the KDA forward: chunk-local cumsum of the log decay in
// log2 space, at B x T tokens, 4 value heads and K = 64.
//
//   kda-translate examples/gate_cumsum.mlir --kda-to-ptx
//   kda-opt examples/gate_cumsum.mlir --kda-to-cpu-pipeline

func.func @gate_cumsum(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g {chunk_size = 64 : i64}
      : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
