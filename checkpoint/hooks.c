/* hooks.c — checkpoint/'s side of the wall (runtime/checkpoint_hooks.h):
 * the table through which the runtime reaches the coordinator, snapshots
 * and restores without including any of their headers. */
#include <stdlib.h>

#include "checkpoint_hooks.h"
#include "coordinator.h"
#include "job_state.h"
#include "restore.h"
#include "snapshot.h"

/* The job's checkpoint state goes with the job: the coordinator, the
 * checkpoint being restored and what opening it found. */
static void destroy(weir_job *job)
{
    weir__coord_destroy(job);
    weir__restore_free(job->restore);
    job->restore = NULL;
    weir__restore_report_free(&job->restored);
}

const weir__chk_hooks weir__checkpoint_hooks = {
    .create = weir__coord_create,
    .destroy = destroy,
    .restore_open = weir__restore_open,
    .restore_match = weir__restore_match,
    .restore_subtask = weir__restore_subtask,
    .start = weir__coord_start,
    .stop = weir__coord_stop,
    .snapshot = weir__snapshot_ctx,
    .ack = weir__coord_ack,
};
