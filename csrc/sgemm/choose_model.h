/* sgemm/choose_model.h -- what the chooser's two files share (choose.cu, the model and the choice; choose_pad.cu,
 * the padded path's price): the launch-level costs and the model's time of a config at a level.  Host only. */
#ifndef SMK_SGEMM_CHOOSE_MODEL_H
#define SMK_SGEMM_CHOOSE_MODEL_H

#include <stdint.h>

#include "sgemm/choose.h"

namespace smk {

/* Launch-level costs of the model, in ns: every launch; a split launch's reduction kernel and its
 * workspace traffic (the partial tiles written by the GEMM and read back, D written). */
constexpr double kLaunchNs = 3000.0, kSplitNs = 6000.0, kSplitBytesPerNs = 6000.0;

/* The model's time (ns) of config c over `splits` K slices, priced as at `level` (choose.cu sgemm_cost_ns). */
double sgemm_model_ns(const SgemmConfigEntry &c, int64_t M, int64_t N, int64_t K, int sms, int64_t splits, int level);

} /* namespace smk */

#endif /* SMK_SGEMM_CHOOSE_MODEL_H */
