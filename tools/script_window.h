/* script_window.h — `op window ...` for weir script (script_window.c). */
#ifndef WEIR_TOOLS_SCRIPT_WINDOW_H
#define WEIR_TOOLS_SCRIPT_WINDOW_H

#include <stddef.h>

#include <weir.h>

#include "script_parse.h"

/* Its settings into op, and the window operator they make; both return 0,
 * -1 (WEIR_EINVAL) or the operator's error code (WEIR_ENOMEM), with why. */
int weir_script_window_parse(weir_script_op *op, weir_script_param *p, int np, char *why,
                             size_t whysize);
int weir_script_window_spec(const weir_script_op *op, weir_process_spec *spec, char *why,
                            size_t whysize);

#endif
