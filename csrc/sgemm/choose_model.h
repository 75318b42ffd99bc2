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

/* `splits` K slices made exact for k-tiles `bk` deep (*s slices, *k_chunk deep but the last); the most slices
 * none shallower than kMinSliceK but the last (choose.cu). */
void sgemm_exact_split(int64_t K, int64_t bk, int64_t splits, int64_t *s, int64_t *k_chunk);
int64_t sgemm_deepest(int64_t K, int64_t bk);

/* Knob sgemm_model (choose_fit.cu): its level; whether level 1 prices this shape (M, N > 32, K > 16, path level
 * >= 3); the level-1 price of tile config cfg over `splits` slices (1e300: not a fitted row); its least priced
 * split (*t_out: the price); the automatic choice of config and split among the fitted rows. */
int sgemm_model();
bool sgemm_fit_class(int64_t M, int64_t N, int64_t K, int level);
double sgemm_fit_ns(int cfg, int64_t M, int64_t N, int64_t K, int sms, int64_t splits);
int64_t sgemm_fit_split(int cfg, int64_t M, int64_t N, int64_t K, int sms, double *t_out);
void sgemm_fit_auto(int64_t M, int64_t N, int64_t K, int sms, int *cfg_out, int64_t *splits_out);

} /* namespace smk */

#endif /* SMK_SGEMM_CHOOSE_MODEL_H */
