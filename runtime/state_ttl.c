/* state_ttl.c — time to live of keyed state (weir/state.h, Flink's
 * StateTtlConfig): each value or map entry of a state with a TTL carries an
 * int64 stamp, its last write (or read) in the TTL's time, and so does each
 * element of a list (in an array beside the elements, which stay
 * contiguous for weir_state_list_get: Flink's TtlListState stamps each
 * element too); the calls in keyed_state.c and map_state.c treat an expired
 * one as absent and remove it, and every call looks at a few entries of the
 * whole state beside its own and removes those that expired (Flink's
 * incremental cleanup), so state that nobody reads again still goes. */
#include <stdlib.h>
#include <string.h>

#include "task.h"
#include "weir/error.h"
#include "weir/state.h"

int weir_state_set_ttl(weir_ctx *ctx, int id, const weir_state_ttl *ttl)
{
    static const char what[] = "weir_state_set_ttl";
    if (!ctx->lifecycle.in_open)
        return weir_ctx_fail(ctx, WEIR_ESTATE, "%s: only in open()", what);
    if (id < 0 || id >= ctx->keyed.nstates)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "%s: no state with id %d", what, id);
    weir__state *st = &ctx->keyed.states[id];
    if (!ttl || ttl->ttl_ms <= 0 || ttl->cleanup_per_access < 0 ||
        (ttl->time != WEIR_TTL_PROCESSING_TIME && ttl->time != WEIR_TTL_EVENT_TIME) ||
        (ttl->update != WEIR_TTL_ON_CREATE_AND_WRITE && ttl->update != WEIR_TTL_ON_READ_AND_WRITE))
        return weir_ctx_fail(ctx, WEIR_EINVAL, "%s: a time to live above 0 ms, a time and an "
                             "update policy of weir/state.h, and cleanup_per_access >= 0", what);
    if (st->has_ttl || st->map.count)
        return weir_ctx_fail(ctx, WEIR_ESTATE, "%s: state %d has its time to live or entries "
                             "already: right after its declaration", what, id);
    st->has_ttl = true;
    st->ttl = *ttl;
    if (!st->ttl.cleanup_per_access)
        st->ttl.cleanup_per_access = 5;
    if (st->kind == WEIR_STATE_LIST) {
        st->inl_cap = 0; /* the stamps go beside the elements, in each list's buffer */
        return 0;
    }
    st->vofs = 8;
    /* the entries get their stamp: the table made again, empty */
    size_t key_len = st->map.key_len, value = st->map.value_size + 8;
    if (st->kind == WEIR_STATE_VALUE) { /* padded to lines as weir_state_declare pads */
        value = st->size + 8;
        if (weir__keymap_line_value(key_len, value) <= WEIR__KEYMAP_LINE)
            value = weir__keymap_line_value(key_len, value);
    }
    weir__keymap_free(&st->map);
    weir__keymap_init(&st->map, key_len, value);
    return 0;
}

int64_t *weir__ttl_stamp(const weir__state *st, uint32_t idx)
{
    if (!st->has_ttl)
        return NULL;
    unsigned char *v = weir__keymap_value(&st->map, idx);
    return (int64_t *)(void *)(st->kind == WEIR_STATE_MAP ? v + sizeof(weir__map_link) : v);
}

int64_t weir__ttl_now(weir_ctx *ctx, const weir__state *st)
{
    return st->ttl.time == WEIR_TTL_EVENT_TIME ? weir_ctx_watermark(ctx) : weir_ctx_now(ctx);
}

bool weir__ttl_expired(const weir__state *st, int64_t stamp, int64_t now)
{
    /* now - stamp >= ttl without overflow (a watermark may be INT64_MIN) */
    return now >= stamp && (uint64_t)now - (uint64_t)stamp >= (uint64_t)st->ttl.ttl_ms;
}

void weir__list_free(const weir__state *st, weir__list_value *l)
{
    if (!weir__list_inline(st, l)) {
        free(l->data);
        free(l->stamps);
    }
    l->data = NULL;
    l->stamps = NULL;
    l->len = l->cap = 0;
}

uint32_t weir__ttl_list_compact(weir__state *st, weir__list_value *l, int64_t now)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < l->len; i++) {
        if (weir__ttl_expired(st, l->stamps[i], now))
            continue;
        if (kept != i) {
            memcpy(l->data + (size_t)kept * st->size, l->data + (size_t)i * st->size, st->size);
            l->stamps[kept] = l->stamps[i];
        }
        kept++;
    }
    st->elems -= (int64_t)(l->len - kept); /* weir_state_size counts a list state's elements */
    l->len = kept;
    return kept;
}

void weir__ttl_cleanup(weir_ctx *ctx, weir__state *st, int64_t now)
{
    weir__keymap *m = &st->map;
    for (int i = 0; i < st->ttl.cleanup_per_access && m->nentries; i++) {
        if (st->cursor >= m->nentries)
            st->cursor = 0;
        uint32_t idx = st->cursor++;
        if (!weir__keymap_live(m, idx))
            continue;
        if (st->kind == WEIR_STATE_LIST) { /* its expired elements; the list if none is left */
            weir__list_value *l = weir__keymap_value(m, idx);
            if (weir__ttl_list_compact(st, l, now) == 0) {
                weir__list_free(st, l);
                weir__keymap_remove(m, idx);
            }
            continue;
        }
        if (!weir__ttl_expired(st, *weir__ttl_stamp(st, idx), now))
            continue;
        if (st->kind == WEIR_STATE_MAP)
            weir__map_remove_at(st, ctx->keyed.key_size, idx);
        else
            weir__keymap_remove(m, idx);
    }
}
