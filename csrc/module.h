/*
 * module.h -- what module.c assembles the module from besides its own ops: the method tables of the
 * two tool binding files.  (The converters all binding files share are py_convert.h's.)
 */
#ifndef SMK_MODULE_H
#define SMK_MODULE_H

#include "py_convert.h"

extern PyMethodDef smk_map_methods[];  /* module_maps.c: layout maps, bank model, access plans */
extern PyMethodDef smk_tool_methods[]; /* module_tools.c: timing, device facts, configs, test knobs */
extern PyMethodDef smk_timer_methods[]; /* module_timer.c: smemkit.timeit's loop over a Python callable */
extern PyMethodDef smk_tune_methods[];  /* module_tune.c: the SGEMM's measured choice (smemkit.tuning) */

#endif /* SMK_MODULE_H */
