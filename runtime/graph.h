/* graph.h — the logical graph a user builds: nodes (sources and operators),
 * edges (with their partitioning) and the stream handles that name a node's
 * output, a repartitioned view of it, or a union of several.
 *
 * Built on the caller's thread before the run; the planner (plan.c) reads it
 * and never changes it.
 */
#ifndef WEIR_RUNTIME_GRAPH_H
#define WEIR_RUNTIME_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "weir/stream.h"

typedef enum weir__partitioning {
    WEIR__PART_DEFAULT = 0, /* forward if parallelism matches, else rebalance */
    WEIR__PART_FORWARD,     /* asked for: an error if parallelism differs */
    WEIR__PART_HASH,
    WEIR__PART_REBALANCE,
    WEIR__PART_BROADCAST
} weir__partitioning;

const char *weir__partitioning_name(weir__partitioning p);

typedef struct weir__key {
    weir_key_spec spec;
} weir__key;

typedef struct weir__edge {
    int from;     /* node id */
    int tag;      /* 0: main output, else the side output tag */
    int to;       /* node id */
    int input;    /* consumer's logical input, 0 or 1 */
    weir__partitioning part;
    const weir__key *key; /* HASH: the key (owned by the stream that asked) */
    /* resolved by the planner */
    weir__partitioning resolved;
    bool chained;
} weir__edge;

typedef struct weir__node {
    int id;
    char *name;
    char *uid;  /* weir_stream_set_uid; NULL: the name */
    char *kind;
    bool is_source;
    bool union_state; /* sources: weir_source_union_state */
    /* sources: weir_source_align_watermarks (align.group owned) */
    bool align_set;
    weir_watermark_alignment align;
    int parallelism; /* 0 until resolved: the job default */
    /* sources */
    weir_source_vtable source;
    /* operators */
    weir_operator_vtable op;
    void *arg;
    void (*arg_free)(void *arg);
    void *impl;
    void (*impl_free)(void *impl);
    int inputs;              /* 0 for sources, 1 or 2 */
    size_t in_size[2];
    const weir__key *in_key[2]; /* keyed inputs (both, none, or 0 with 1 broadcast) */
    size_t out_size;            /* 0: a sink */
    weir_side_output_spec *side;
    int nside;
    weir_accounting accounting;
    char *settings_json;
    /* edges into this node, in the order they were added */
    int *in_edges;
    int nin_edges;
} weir__node;

/* One (node, output tag) feeding a stream; a union has several. */
typedef struct weir__stream_src {
    int node;
    int tag;
} weir__stream_src;

struct weir_stream {
    weir_job *job;
    weir__stream_src *src;
    int nsrc;
    size_t elem_size;
    weir__partitioning part;  /* what a consumer's edge will use */
    const weir__key *key;     /* set by key_by */
    bool is_view;             /* key_by / rebalance / broadcast / forward / union */
    bool is_sink;
    struct weir_stream *next_alloc; /* the job's list of every stream */
};

typedef struct weir__graph {
    weir__node **nodes;
    int nnodes;
    weir__edge *edges;
    int nedges;
    int cap_nodes, cap_edges;
    struct weir_stream *streams;    /* every handle, for freeing */
    weir__key **keys;               /* every key spec copy, for freeing */
    int nkeys, cap_keys;
} weir__graph;

void weir__graph_free(weir__graph *g);

/* stream.c, for the graph's operators and a harness's one node alike: */
/* Why `spec` cannot make an operator (a vtable with on_record, of version
 * WEIR_OPERATOR_VTABLE_V1), as a message into why; 0 if it can. */
int weir__process_spec_refused(const weir_process_spec *spec, char *why, size_t size);
/* A refused spec's owned pointers (arg with arg_free, impl with impl_free)
 * are freed: the caller gave them away. NULL is ignored. */
void weir__process_spec_free_owned(const weir_process_spec *spec);
/* Copies spec into a zeroed node with `inputs` inputs: the table, arg and
 * impl (not who frees them: the caller sets arg_free and impl_free once the
 * node owns them), kind, name (if given), sizes, settings and side outputs.
 * 0, or WEIR_ENOMEM with what was copied left for weir__node_clear. */
int weir__node_from_spec(weir__node *n, const weir_process_spec *spec, int inputs);
/* Copies a vtable of any supported version (the members a V1 table lacks
 * are NULL). */
void weir__copy_operator_vtable(weir_operator_vtable *to, const weir_operator_vtable *from);
void weir__copy_source_vtable(weir_source_vtable *to, const weir_source_vtable *from);
/* Frees what a node owns (its arg and impl through their free functions);
 * the node itself stays. */
void weir__node_clear(weir__node *n);

#endif
