/* table_wall.c — tests/walls: a file of table/ that includes what its wall
 * allows, and with WEIR_WALL_BREACH, subtask.h from behind it. */
#include "table_internal.h"
#ifdef WEIR_WALL_BREACH
#include "subtask.h"
#endif

int weir_wall_table(void);
int weir_wall_table(void)
{
    return 0;
}
