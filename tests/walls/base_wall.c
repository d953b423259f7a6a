/* base_wall.c — tests/walls: a file of base/ that includes what its wall
 * allows, and with WEIR_WALL_BREACH, task.h from behind it. */
#include "util.h"
#ifdef WEIR_WALL_BREACH
#include "task.h"
#endif

int weir_wall_base(void);
int weir_wall_base(void)
{
    return 0;
}
