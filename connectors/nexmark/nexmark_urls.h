/* nexmark_urls.h — the bids' URLs made once per source subtask (nexmark_model.c,
 * source_nexmark.c). A bid's URL is a function of the seed and its channel: one of the
 * four hot channels' or one of CHANNELS others'. Flink's Nexmark generator keeps them the
 * same way (its hot URLs, and a cache of the channels' URLs); made per bid, the URL was a
 * fifth of what a bid cost to make. Not MT safe: each subtask has its own. */
#ifndef WEIR_NEXMARK_URLS_H
#define WEIR_NEXMARK_URLS_H

#include <stdint.h>

#include "weir/nexmark.h"

typedef struct weir__nexmark_urls weir__nexmark_urls;

/* The URLs of `seed`'s channels: the hot ones made now, the others when first drawn.
 * NULL when out of memory (the events are then made without). */
weir__nexmark_urls *weir__nexmark_urls_create(uint64_t seed);
void weir__nexmark_urls_free(weir__nexmark_urls *u);

/* weir_nexmark_event_at, a bid's URL taken from `urls` (NULL: made) when they are the
 * config's seed's: the same bytes either way. */
void weir__nexmark_event_with(const weir_nexmark_config *cfg, int64_t n, weir_nexmark_event *e,
                              weir__nexmark_urls *urls);

#endif
