// The return lacks its type.
func.func @syntax_error(%a: f32) -> f32 {
  return %a
}
