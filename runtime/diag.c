/* diag.c — placeholder of the diagnostic channel: levels resolve to OFF and
 * every site is a no-op until the channel, collector and sinks land. */
#include "diag.h"

#include "job_state.h"

int weir__diag_effective_level(const weir_job *job)
{
    (void)job;
    return WEIR_DIAG_OFF;
}

int weir__diag_start(weir_job *job)
{
    (void)job;
    return 0;
}

void weir__diag_stop(weir_job *job)
{
    (void)job;
}

void weir__diag_watermark(weir_ctx *ctx, int64_t wm)
{
    (void)ctx;
    (void)wm;
}

void weir__diag_status(weir_ctx *ctx, bool idle)
{
    (void)ctx;
    (void)idle;
}

void weir__diag_valve_watermark(weir_ctx *head, int input, int channel, int64_t wm, int held_by)
{
    (void)head;
    (void)input;
    (void)channel;
    (void)wm;
    (void)held_by;
}

void weir__diag_valve_status(weir_ctx *head, int input, int channel, bool idle)
{
    (void)head;
    (void)input;
    (void)channel;
    (void)idle;
}

void weir__diag_record(weir_ctx *ctx, int64_t ts)
{
    (void)ctx;
    (void)ts;
}

void weir__diag_window_fire(weir_ctx *ctx, int64_t start, int64_t end, int firing, int64_t count)
{
    (void)ctx;
    (void)start;
    (void)end;
    (void)firing;
    (void)count;
}

void weir__diag_late(weir_ctx *ctx, int64_t ts, int64_t start, int64_t end, bool dropped)
{
    (void)ctx;
    (void)ts;
    (void)start;
    (void)end;
    (void)dropped;
}

void weir__diag_merge(weir_ctx *ctx, int64_t start, int64_t end, int64_t merged)
{
    (void)ctx;
    (void)start;
    (void)end;
    (void)merged;
}

void weir__diag_cleanup(weir_ctx *ctx, int64_t start, int64_t end)
{
    (void)ctx;
    (void)start;
    (void)end;
}

void weir__diag_sample(weir__subtask *sub, int64_t now, bool final)
{
    (void)sub;
    (void)now;
    (void)final;
}
