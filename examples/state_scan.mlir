// The inter-chunk state recurrence (Stage 5 of the KDA forward, fla's
// chunk_gated_delta_rule_fwd_h) at the target shape: B x T tokens, HV = 96
// value heads, K = V = 128, bf16 kg/w/u, an initial state and the final
// state (fp32). Per sequence and value head, for each chunk of 64 tokens:
// h = S; v_new = u - w S; S = diag(2^G_last) S + kg^T v_new.
//
//   kda-opt examples/state_scan.mlir --convert-kda-to-tile --canonicalize --cse
//   kda-translate examples/state_scan.mlir --kda-to-ptx
//   kda-translate examples/state_scan.mlir --kda-to-bundle -o state_scan.kdab
//   kda-run state_scan.kdab --cpu --batch 1 --seq-len 200 --heads 96 --value-heads 96 --check-heads 4

func.func @state_scan(%kg: tensor<?x?x96x128xbf16>, %w: tensor<?x?x96x128xbf16>,
                      %u: tensor<?x?x96x128xbf16>, %G: tensor<?x?x96x128xf32>,
                      %h0: tensor<?x96x128x128xf32>)
    -> (tensor<?x?x96x128x128xbf16>, tensor<?x?x96x128xbf16>,
        tensor<?x96x128x128xf32>) {
  %h, %v_new, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0
      : (tensor<?x?x96x128xbf16>, tensor<?x?x96x128xbf16>,
         tensor<?x?x96x128xbf16>, tensor<?x?x96x128xf32>,
         tensor<?x96x128x128xf32>)
      -> (tensor<?x?x96x128x128xbf16>, tensor<?x?x96x128xbf16>,
          tensor<?x96x128x128xf32>)
  return %h, %v_new, %ht : tensor<?x?x96x128x128xbf16>,
                           tensor<?x?x96x128xbf16>, tensor<?x96x128x128xf32>
}
