/* script_window.c — `op window ...` for weir script: placeholder until the
 * window operator exists. */
#include <stdio.h>

#include "script_ops.h"

int weir_script_window_parse(weir_script_op *op, weir_script_param *p, int np, char *why,
                             size_t whysize)
{
    (void)op;
    (void)p;
    (void)np;
    snprintf(why, whysize, "op window: the window operator is not available in this build");
    return -1;
}

int weir_script_window_spec(const weir_script_op *op, weir_process_spec *spec, char *why,
                            size_t whysize)
{
    (void)op;
    (void)spec;
    snprintf(why, whysize, "op window: not available");
    return -1;
}
