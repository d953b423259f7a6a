/* operators_wall.c — tests/walls: a file of operators/ that includes what its wall
 * allows, and with WEIR_WALL_BREACH, task.h from behind it. */
#include "builder.h"
#include "weir/operator.h"
#ifdef WEIR_WALL_BREACH
#include "task.h"
#endif

int weir_wall_operators(void);
int weir_wall_operators(void)
{
    return 0;
}
