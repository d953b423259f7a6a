/* inbox.c — the queue of a held operator (inbox.h). */
#include "inbox.h"

#include <stdlib.h>
#include <string.h>

#include "weir/error.h"

/* Grows an array to hold `need` items of `size` bytes, doubling. */
static int grow(void **items, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    uint32_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *p = realloc(*items, (size_t)c * size);
    if (!p)
        return WEIR_ENOMEM;
    *items = p;
    *cap = c;
    return 0;
}

/* An emptied inbox starts over at the front of its buffers. The run last
 * taken out stays readable until then: appends come from the held context's
 * parent, which does not run while the context handles that run. */
static void restart_if_empty(weir__inbox *ib)
{
    if (weir__inbox_empty(ib)) {
        ib->nslots = ib->read_slot = 0;
        ib->ncontrols = ib->read_control = 0;
    }
}

int weir__inbox_records(weir__inbox *ib, const weir_batch *b)
{
    if (b->count == 0)
        return 0;
    restart_if_empty(ib);
    /* Every run a context is handed has its parent output's stride. */
    if (ib->nslots == 0)
        ib->stride = b->stride;
    if (grow((void **)&ib->slots, &ib->slot_cap, ib->nslots + b->count, ib->stride) < 0)
        return WEIR_ENOMEM;
    memcpy(ib->slots + (size_t)ib->nslots * ib->stride, b->data, (size_t)b->count * ib->stride);
    ib->nslots += b->count;
    return 0;
}

int weir__inbox_control_add(weir__inbox *ib, weir__ctrl ctrl, int64_t value)
{
    restart_if_empty(ib);
    if (grow((void **)&ib->controls, &ib->control_cap, ib->ncontrols + 1, sizeof *ib->controls) < 0)
        return WEIR_ENOMEM;
    ib->controls[ib->ncontrols++] =
        (weir__inbox_control){.after = ib->nslots, .ctrl = (uint8_t)ctrl, .value = value};
    return 0;
}

bool weir__inbox_take(weir__inbox *ib, weir_batch *run, weir__inbox_control *control)
{
    uint32_t upto = ib->read_control < ib->ncontrols ? ib->controls[ib->read_control].after
                                                     : ib->nslots;
    bool records = ib->read_slot < upto;
    if (records) {
        *run = (weir_batch){.data = ib->slots + (size_t)ib->read_slot * ib->stride,
                            .count = upto - ib->read_slot,
                            .stride = ib->stride};
        ib->read_slot = upto;
    } else {
        *control = ib->controls[ib->read_control++];
    }
    return records;
}

void weir__inbox_free(weir__inbox *ib)
{
    free(ib->slots);
    free(ib->controls);
    memset(ib, 0, sizeof *ib);
}
