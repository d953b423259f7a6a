/* sql_wall.c — tests/walls: a file of sql/ that includes what its wall
 * allows, and with WEIR_WALL_BREACH, table_internal.h from behind it. */
#include "sql_internal.h"
#include "weir/table.h"
#ifdef WEIR_WALL_BREACH
#include "table_internal.h"
#endif

int weir_wall_sql(void);
int weir_wall_sql(void)
{
    return 0;
}
