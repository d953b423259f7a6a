/* runtime_wall.c — tests/walls: a file of runtime/ that includes what its wall
 * allows, and with WEIR_WALL_BREACH, coordinator.h from behind it. */
#include "job_state.h"
#ifdef WEIR_WALL_BREACH
#include "coordinator.h"
#endif

int weir_wall_runtime(void);
int weir_wall_runtime(void)
{
    return 0;
}
