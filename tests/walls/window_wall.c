/* window_wall.c — tests/walls: a file of window/ that includes what its wall
 * allows, and with WEIR_WALL_BREACH, job_state.h from behind it. */
#include "window_internal.h"
#ifdef WEIR_WALL_BREACH
#include "job_state.h"
#endif

int weir_wall_window(void);
int weir_wall_window(void)
{
    return 0;
}
