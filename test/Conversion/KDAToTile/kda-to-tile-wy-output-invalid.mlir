// RUN: kda-opt %s --split-input-file --convert-kda-to-tile -verify-diagnostics

// The kernels are specialized on the feature dimensions K and V; the op
// verifiers reject dynamic ones before the conversion runs, so the
// conversion reports them as diagnostics rather than reaching the kernel
// builders (which check them again). Head counts may be dynamic.

func.func @wy_recompute_dynamic_k(%k: tensor<?x?x2x?xbf16>, %v: tensor<?x?x4x64xbf16>,
                                  %G: tensor<?x?x4x?xf32>, %beta: tensor<?x?x4xf32>,
                                  %M: tensor<?x?x4x64xbf16>)
    -> (tensor<?x?x4x?xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x?xbf16>) {
  // expected-error @+1 {{'kda.wy_recompute' op operand 'k' must have a static K (dimension 3): kernels are specialized on it}}
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<?x?x2x?xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x?xf32>,
         tensor<?x?x4xf32>, tensor<?x?x4x64xbf16>)
      -> (tensor<?x?x4x?xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x?xbf16>)
  return %w, %u, %kg : tensor<?x?x4x?xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x?xbf16>
}

// -----

func.func @output_dynamic_v(%q: tensor<?x?x2x64xbf16>, %G: tensor<?x?x4x64xf32>,
                            %Aqk: tensor<?x?x4x64xbf16>, %h: tensor<?x?x4x64x?xbf16>,
                            %vn: tensor<?x?x4x?xbf16>) -> tensor<?x?x4x?xbf16> {
  // expected-error @+1 {{'kda.output' op operand 'v_new' must have a static V (dimension 3): kernels are specialized on it}}
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x4x64xf32>, tensor<?x?x4x64xbf16>,
         tensor<?x?x4x64x?xbf16>, tensor<?x?x4x?xbf16>) -> tensor<?x?x4x?xbf16>
  return %o : tensor<?x?x4x?xbf16>
}
