/* Stand-in for csrc/runtime.h when tests/c/hostpool/test_hostpool.c builds csrc/hostpool.c on a
 * machine without a GPU: the status type and the CUDA calls hostpool.c makes (cuda_stub.c). */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "cuda_stub.h"
enum { SMK_OK = 0, SMK_E_CUDA = 1 };
typedef struct { int code; int cuda; size_t bytes; const char *where; } smk_status;
static inline smk_status smk_ok(void) { smk_status s = {0, 0, 0, 0}; return s; }
static inline smk_status smk_rt_fail(int e, const char *w) { smk_status s = {1, e, 0, w}; return s; }
