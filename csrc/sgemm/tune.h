/* sgemm/tune.h -- what crosses between the SGEMM launcher (launch.cu) and its measured choice (tune.cu).  Host C++. */
#ifndef SMK_SGEMM_TUNE_H
#define SMK_SGEMM_TUNE_H

#include <cuda_runtime.h>

#include "api/sgemm.h"
#include "api/sgemm_tune.h"

namespace smk {

/* The measured choice for a validated, normalised automatic call q (M, N, K > 0) on `stream`: 0 with *pick the
 * cached or just-measured winner to launch (never the model's own choice), 1 where the model's choice runs (not
 * tuned, or it won), or minus a cudaError_t.  Measuring runs the candidates on q's operands and stream (into D,
 * or a scratch copy of D's alignment where D is C and C is read) and waits for them. */
int sgemm_tune(const smk_sgemm_params &q, int sms, int major, cudaStream_t stream, smk_sgemm_tune_cand *pick);

/* Enqueue candidate (config, splits) of q (smk_sgemm_tune_cand's meaning; config 0: the model's choice);
 * launch.cu. */
int sgemm_launch_candidate(const smk_sgemm_params &q, int config, int splits, int sms, int major,
                           cudaStream_t stream);

} /* namespace smk */

#endif
