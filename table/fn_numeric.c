/* fn_numeric.c — the numeric functions (fn.h). */
#include <stdint.h>

#include "fn.h"
#include "weir/error.h"

/* MOD(a, b) of two integers: Java's %, its sign the dividend's; a zero
 * divisor fails the row. */
static bool t_mod(weir__fnbind *b)
{
    weir__enode **a = &b->n->args[0], **c = &b->n->args[1];
    if (!weir__bind_unify(b->p, a, c, b->a->start, "MOD"))
        return false;
    b->n->type = (*a)->type;
    b->n->type.not_null = weir__fn_args_not_null(b);
    return true;
}

static int e_mod(const weir__fncall *c, weir__val *o, const char **why)
{
    int64_t x = c->args[0].i, y = c->args[1].i;
    if (y == 0) {
        *why = "division by zero";
        return WEIR_ERANGE;
    }
    o->i = y == -1 ? 0 : x % y;
    return 0;
}

#define CALL WEIR_AST_FORM_CALL

const weir__builtin weir__fn_numeric[] = {
    {"MOD", 2, 2, CALL, 0, "E,E", t_mod, e_mod, 0},
    {NULL, 0, 0, CALL, 0, NULL, NULL, NULL, 0},
};
