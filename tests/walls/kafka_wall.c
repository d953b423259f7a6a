/* kafka_wall.c — tests/walls: a file of connectors/kafka/ that includes what its wall
 * allows, and with WEIR_WALL_BREACH, task.h from behind it. */
#include "kafka_config.h"
#ifdef WEIR_WALL_BREACH
#include "task.h"
#endif

int weir_wall_kafka(void);
int weir_wall_kafka(void)
{
    return 0;
}
