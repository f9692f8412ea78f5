//===- TuningOverrides.h - kernel tuning changed from the command line ----===//
//
// convert-kda-to-tile's `tuning-override` entries, `KERNEL.KEY=VALUE`: the
// value a kernel tuning target chose for KEY of KERNEL, replaced, so that a
// tuning can be tried on a GPU without rebuilding the compiler (e.g.
// `chunk_recurrence.threads=256`).
//
//===----------------------------------------------------------------------===//

#ifndef KDA_CONVERSION_KDATOTILE_TUNINGOVERRIDES_H
#define KDA_CONVERSION_KDATOTILE_TUNINGOVERRIDES_H

#include "kda/Conversion/KDAToTile/KernelTuning.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace mlir::kda {

/// The name of `kernel` in tuning overrides (snake case, e.g.
/// `chunk_recurrence`).
llvm::StringRef getTunedKernelName(TunedKernel kernel);

/// A kernel tuning target that answers as `base` does, with `overrides`
/// (entries `KERNEL.KEY=VALUE`; KERNEL a kernel's name or `chunk_stages`,
/// every per-chunk stage kernel; KEY one of #tile.tuning's parameters:
/// threads, max_registers, max_live_bytes, block_k, block_v,
/// speculate_loads, hoist_addresses, stages, transpose_state (of
/// chunk_recurrence only), or mapping = registers | shared_memory, the
/// mapping the kernel asks for) applied to the tunings it returns. Later
/// entries win. Fails with a message naming the entry, and
/// the kernels or keys there are, when an entry does not parse.
llvm::Expected<std::unique_ptr<KernelTuningTarget>>
createOverriddenTuningTarget(const KernelTuningTarget &base,
                             llvm::ArrayRef<std::string> overrides);

} // namespace mlir::kda

#endif // KDA_CONVERSION_KDATOTILE_TUNINGOVERRIDES_H
