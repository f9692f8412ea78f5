// A valid module without kda ops or tile kernels.
func.func @add(%a: f32, %b: f32) -> f32 {
  %s = arith.addf %a, %b : f32
  return %s : f32
}
