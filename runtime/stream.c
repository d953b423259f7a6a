/* stream.c — building the logical graph (weir/stream.h): nodes for sources
 * and operators, edges for every consumer of a stream, and the stream
 * handles, including the views key_by, rebalance, broadcast, forward and
 * union make.
 *
 * Every builder validates its arguments at once and records a message naming
 * the call and the problem; an invalid call changes nothing. Planning
 * (plan.c) checks what can only be checked on the whole graph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "job_state.h"
#include "util.h"
#include "weir/error.h"
#include "weir/stream.h"

const char *weir__partitioning_name(weir__partitioning p)
{
    switch (p) {
    case WEIR__PART_FORWARD:
        return "forward";
    case WEIR__PART_HASH:
        return "hash";
    case WEIR__PART_REBALANCE:
        return "rebalance";
    case WEIR__PART_BROADCAST:
        return "broadcast";
    default:
        return "default";
    }
}

void weir__node_clear(weir__node *n)
{
    if (n->arg_free)
        n->arg_free(n->arg);
    if (n->impl_free)
        n->impl_free(n->impl);
    free(n->name);
    free(n->uid);
    free(n->kind);
    free(n->side);
    free(n->settings_json);
    free(n->in_edges);
    free((char *)n->align.group);
}

static void node_free(weir__node *n)
{
    if (!n)
        return;
    weir__node_clear(n);
    free(n);
}

void weir__graph_free(weir__graph *g)
{
    for (int i = 0; i < g->nnodes; i++)
        node_free(g->nodes[i]);
    free(g->nodes);
    free(g->edges);
    struct weir_stream *s = g->streams;
    while (s) {
        struct weir_stream *next = s->next_alloc;
        free(s->src);
        free(s);
        s = next;
    }
    for (int i = 0; i < g->nkeys; i++)
        free(g->keys[i]);
    free(g->keys);
    memset(g, 0, sizeof *g);
}

/* ---- helpers -------------------------------------------------------------- */

/* A node's name, or its uid (which is its name until one is set). */
static const char *ident(const weir__node *n, bool uid)
{
    return uid && n->uid ? n->uid : n->name;
}

/* Whether a node of the graph has the name (uid false) or uid `v`. */
static bool ident_taken(const weir__graph *g, const char *v, bool uid)
{
    for (int i = 0; i < g->nnodes; i++) {
        if (strcmp(ident(g->nodes[i], uid), v) == 0)
            return true;
    }
    return false;
}

/* The kind itself if free, else "kind-2", "kind-3", ... */
static char *unique_name(const weir__graph *g, const char *base)
{
    if (!ident_taken(g, base, false))
        return weir__strdup(base);
    size_t len = strlen(base) + 16;
    char *buf = malloc(len);
    if (!buf)
        return NULL;
    for (int i = 2;; i++) {
        snprintf(buf, len, "%s-%d", base, i);
        if (!ident_taken(g, buf, false))
            return buf;
    }
}

static struct weir_stream *new_stream(weir_job *job, int nsrc)
{
    struct weir_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->src = calloc((size_t)(nsrc > 0 ? nsrc : 1), sizeof *s->src);
    if (!s->src) {
        free(s);
        return NULL;
    }
    s->nsrc = nsrc;
    s->job = job;
    s->next_alloc = job->graph.streams;
    job->graph.streams = s;
    return s;
}

static struct weir_stream *oom(weir_job *job, const char *call)
{
    weir__job_fail(job, WEIR_ENOMEM, "%s: out of memory", call);
    return NULL;
}

/* Adds a node (taking ownership of it on success; freeing it on failure). */
static int add_node(weir_job *job, weir__node *n)
{
    weir__graph *g = &job->graph;
    if (g->nnodes == g->cap_nodes) {
        int cap = g->cap_nodes ? g->cap_nodes * 2 : 16;
        weir__node **nodes = realloc(g->nodes, (size_t)cap * sizeof *nodes);
        if (!nodes) {
            node_free(n);
            return WEIR_ENOMEM;
        }
        g->nodes = nodes;
        g->cap_nodes = cap;
    }
    n->id = g->nnodes;
    g->nodes[g->nnodes++] = n;
    return 0;
}

/* Reserves room for `extra` more edges and for the node's edge list. */
static int reserve_edges(weir__graph *g, weir__node *to, int extra)
{
    if (g->nedges + extra > g->cap_edges) {
        int cap = g->cap_edges ? g->cap_edges * 2 : 32;
        while (cap < g->nedges + extra)
            cap *= 2;
        weir__edge *e = realloc(g->edges, (size_t)cap * sizeof *e);
        if (!e)
            return WEIR_ENOMEM;
        g->edges = e;
        g->cap_edges = cap;
    }
    int *in = realloc(to->in_edges, (size_t)(to->nin_edges + extra) * sizeof *in);
    if (!in)
        return WEIR_ENOMEM;
    to->in_edges = in;
    return 0;
}

static void connect_input(weir__graph *g, const struct weir_stream *s, weir__node *to, int input)
{
    for (int i = 0; i < s->nsrc; i++) {
        weir__edge *e = &g->edges[g->nedges];
        memset(e, 0, sizeof *e);
        e->from = s->src[i].node;
        e->tag = s->src[i].tag;
        e->to = to->id;
        e->input = input;
        e->part = s->part;
        e->key = s->key;
        to->in_edges[to->nin_edges++] = g->nedges++;
    }
}

static int check_input(weir_job *job, const struct weir_stream *s, const char *call)
{
    if (s->is_sink)
        return weir__job_fail(job, WEIR_EINVAL,
                                     "%s: the stream is a sink's handle and has no elements", call);
    return 0;
}

static int check_parallelism(weir_job *job, int p, const char *call)
{
    if ((p < 0 && p != WEIR_PARALLELISM_INHERIT) || p > WEIR_MAX_PARALLELISM)
        return weir__job_fail(job, WEIR_EINVAL, "%s: parallelism %d is not in 1..%d", call,
                                     p, WEIR_MAX_PARALLELISM);
    return 0;
}

static int check_elem_size(weir_job *job, size_t size, const char *call, const char *what,
                           bool zero_ok)
{
    if ((size == 0 && !zero_ok) || size > WEIR_MAX_ELEM_SIZE)
        return weir__job_fail(job, WEIR_EINVAL, "%s: %s %zu is not in %d..%d", call, what,
                                     size, zero_ok ? 0 : 1, WEIR_MAX_ELEM_SIZE);
    return 0;
}

static struct weir_stream *node_stream(weir_job *job, weir__node *n, int tag, size_t elem_size,
                                       const char *call)
{
    struct weir_stream *s = new_stream(job, 1);
    if (!s)
        return oom(job, call);
    s->src[0].node = n->id;
    s->src[0].tag = tag;
    s->elem_size = elem_size;
    s->is_sink = elem_size == 0 && tag == 0 && !n->is_source;
    return s;
}

/* ---- sources -------------------------------------------------------------- */

weir_stream *weir_job_add_source(weir_job *job, const weir_source_spec *spec)
{
    static const char call[] = "weir_job_add_source";
    if (!job)
        return NULL;
    if (!spec || !spec->vtable || !spec->vtable->next) {
        weir__job_fail(job, WEIR_EINVAL, "%s: a spec with vtable->next is required", call);
        goto fail;
    }
    if (spec->vtable->version != WEIR_SOURCE_VTABLE_V1 &&
        spec->vtable->version != WEIR_SOURCE_VTABLE_V2) {
        weir__job_fail(job, WEIR_EINVAL, "%s: vtable version %u is not %u or %u", call,
                       spec->vtable->version, WEIR_SOURCE_VTABLE_V1, WEIR_SOURCE_VTABLE_V2);
        goto fail;
    }
    if (check_elem_size(job, spec->elem_size, call, "elem_size", false) ||
        check_parallelism(job, spec->parallelism, call))
        goto fail;
    if (spec->parallelism == WEIR_PARALLELISM_INHERIT) {
        weir__job_fail(job, WEIR_EINVAL,
                              "%s: a source has no input to inherit its parallelism from", call);
        goto fail;
    }
    weir__node *n = calloc(1, sizeof *n);
    if (!n)
        goto fail_oom;
    n->is_source = true;
    weir__copy_source_vtable(&n->source, spec->vtable);
    n->arg = spec->arg;
    n->arg_free = spec->arg_free;
    n->kind = weir__strdup(spec->kind ? spec->kind : "source");
    n->name = spec->name ? weir__strdup(spec->name) : unique_name(&job->graph, n->kind);
    n->out_size = spec->elem_size;
    n->parallelism = spec->parallelism;
    n->accounting = WEIR_ACCOUNTING_ANY;
    if (!n->kind || !n->name) {
        n->arg_free = NULL;
        node_free(n);
        goto fail_oom;
    }
    if (spec->name && ident_taken(&job->graph, spec->name, false)) {
        weir__job_fail(job, WEIR_EINVAL, "%s: the name '%s' is already used", call, spec->name);
        n->arg_free = NULL;
        node_free(n);
        goto fail;
    }
    if (add_node(job, n))
        goto fail_oom_freed;
    return node_stream(job, n, 0, spec->elem_size, call);

fail_oom:
    oom(job, call);
fail:
    if (spec && spec->arg_free)
        spec->arg_free(spec->arg);
    return NULL;
fail_oom_freed:
    return oom(job, call);
}

/* ---- operators ------------------------------------------------------------ */

/* A V1 table, from a program built before V2, ends where V2's members begin
 * (a V2 table where V3's do): only that much of it is read. */
void weir__copy_operator_vtable(weir_operator_vtable *to, const weir_operator_vtable *from)
{
    memset(to, 0, sizeof *to);
    memcpy(to, from,
           from->version >= WEIR_OPERATOR_VTABLE_V3   ? sizeof *to
           : from->version >= WEIR_OPERATOR_VTABLE_V2 ? offsetof(weir_operator_vtable, on_wakeup)
                                                      : offsetof(weir_operator_vtable, snapshot));
}

void weir__copy_source_vtable(weir_source_vtable *to, const weir_source_vtable *from)
{
    memset(to, 0, sizeof *to);
    memcpy(to, from,
           from->version >= WEIR_SOURCE_VTABLE_V2 ? sizeof *to
                                                  : offsetof(weir_source_vtable, snapshot));
}

int weir__process_spec_refused(const weir_process_spec *spec, char *why, size_t size)
{
    if (!spec || !spec->vtable || !spec->vtable->on_record)
        snprintf(why, size, "a spec with vtable->on_record is required");
    else if (spec->vtable->version != WEIR_OPERATOR_VTABLE_V1 &&
             spec->vtable->version != WEIR_OPERATOR_VTABLE_V2 &&
             spec->vtable->version != WEIR_OPERATOR_VTABLE_V3)
        snprintf(why, size, "vtable version %u is not %u, %u or %u", spec->vtable->version,
                 WEIR_OPERATOR_VTABLE_V1, WEIR_OPERATOR_VTABLE_V2, WEIR_OPERATOR_VTABLE_V3);
    else
        return 0;
    return WEIR_EINVAL;
}

int weir__node_from_spec(weir__node *n, const weir_process_spec *spec, int inputs)
{
    weir__copy_operator_vtable(&n->op, spec->vtable);
    n->arg = spec->arg;
    n->impl = spec->impl;
    n->inputs = inputs;
    n->out_size = spec->out_size;
    n->accounting = spec->accounting;
    n->kind = weir__strdup(spec->kind ? spec->kind : "process");
    n->name = weir__strdup(spec->name);
    n->settings_json = weir__strdup(spec->settings_json);
    if (spec->nside > 0) {
        n->side = malloc((size_t)spec->nside * sizeof *n->side);
        if (n->side) {
            memcpy(n->side, spec->side_outputs, (size_t)spec->nside * sizeof *n->side);
            n->nside = spec->nside;
        }
    }
    if (!n->kind || (spec->name && !n->name) || (spec->nside > 0 && !n->side) ||
        (spec->settings_json && !n->settings_json))
        return WEIR_ENOMEM;
    return 0;
}

void weir__process_spec_free_owned(const weir_process_spec *spec)
{
    if (!spec)
        return;
    if (spec->arg_free)
        spec->arg_free(spec->arg);
    if (spec->impl_free)
        spec->impl_free(spec->impl);
}

/* Whether the job refuses an operator of `spec` on a (and b, its second
 * input, or NULL): the failure is set on the job, naming `call`. */
static bool operator_refused(weir_job *job, weir_stream *a, weir_stream *b,
                             const weir_process_spec *spec, const char *call)
{
    char why[128];
    if (weir__process_spec_refused(spec, why, sizeof why)) {
        weir__job_fail(job, WEIR_EINVAL, "%s: %s", call, why);
        return true;
    }
    if (check_input(job, a, call) || (b && check_input(job, b, call)) ||
        check_elem_size(job, spec->out_size, call, "out_size", true) ||
        check_parallelism(job, spec->parallelism, call))
        return true;
    /* A keyed first input with a broadcast second one is the keyed side of
     * Flink's broadcast state pattern: the operator is keyed, records of the
     * broadcast input have no current key. */
    if (b && (!a->key) != (!b->key) && !(a->key && b->part == WEIR__PART_BROADCAST)) {
        weir__job_fail(job, WEIR_EINVAL,
                       "%s: either both inputs are keyed (key_by) or neither is (or the first is "
                       "keyed and the second broadcast)",
                       call);
        return true;
    }
    if (b && a->key && b->key && a->key->spec.key_size != b->key->spec.key_size) {
        weir__job_fail(job, WEIR_ETYPE, "%s: the inputs' keys differ in size (%zu and %zu)", call,
                       a->key->spec.key_size, b->key->spec.key_size);
        return true;
    }
    if (spec->nside < 0 || (spec->nside > 0 && !spec->side_outputs)) {
        weir__job_fail(job, WEIR_EINVAL, "%s: nside %d without side_outputs", call, spec->nside);
        return true;
    }
    for (int i = 0; i < spec->nside; i++) {
        const weir_side_output_spec *so = &spec->side_outputs[i];
        if (so->tag < 1) {
            weir__job_fail(job, WEIR_EINVAL, "%s: side output tag %d must be >= 1", call, so->tag);
            return true;
        }
        if (check_elem_size(job, so->elem_size, call, "side output elem_size", false))
            return true;
        for (int j = 0; j < i; j++) {
            if (spec->side_outputs[j].tag == so->tag) {
                weir__job_fail(job, WEIR_EINVAL, "%s: side output tag %d declared twice", call,
                               so->tag);
                return true;
            }
        }
    }
    if (spec->name && ident_taken(&job->graph, spec->name, false)) {
        weir__job_fail(job, WEIR_EINVAL, "%s: the name '%s' is already used", call, spec->name);
        return true;
    }
    return false;
}

static weir_stream *add_operator(weir_stream *a, weir_stream *b, const weir_process_spec *spec,
                                 const char *call)
{
    weir_job *job = a->job;
    int inputs = b ? 2 : 1;
    weir__node *n = NULL;
    if (operator_refused(job, a, b, spec, call))
        goto fail;

    n = calloc(1, sizeof *n);
    if (!n || weir__node_from_spec(n, spec, inputs))
        goto fail_oom;
    n->in_size[0] = a->elem_size;
    n->in_size[1] = b ? b->elem_size : 0;
    n->in_key[0] = a->key;
    n->in_key[1] = b ? b->key : NULL;
    n->parallelism = spec->parallelism;
    if (!n->name && !(n->name = unique_name(&job->graph, n->kind)))
        goto fail_oom;
    if (reserve_edges(&job->graph, n, a->nsrc + (b ? b->nsrc : 0)))
        goto fail_oom;
    weir__node *added = n;
    n = NULL;
    added->arg_free = spec->arg_free;
    added->impl_free = spec->impl_free;
    if (add_node(job, added)) {
        /* add_node freed it, arg included. */
        return oom(job, call);
    }
    connect_input(&job->graph, a, added, 0);
    if (b)
        connect_input(&job->graph, b, added, 1);
    return node_stream(job, added, 0, spec->out_size, call);

fail_oom:
    oom(job, call);
fail:
    node_free(n);
    weir__process_spec_free_owned(spec);
    return NULL;
}

weir_stream *weir_stream_process(weir_stream *in, const weir_process_spec *spec)
{
    if (!in) {
        weir__process_spec_free_owned(spec);
        return NULL;
    }
    return add_operator(in, NULL, spec, "weir_stream_process");
}

weir_stream *weir_stream_connect(weir_stream *a, weir_stream *b, const weir_process_spec *spec)
{
    if (!a || !b) {
        weir__process_spec_free_owned(spec);
        return NULL;
    }
    if (a->job != b->job) {
        weir__job_fail(a->job, WEIR_EINVAL,
                              "weir_stream_connect: the two streams belong to different jobs");
        weir__process_spec_free_owned(spec);
        return NULL;
    }
    return add_operator(a, b, spec, "weir_stream_connect");
}

weir_stream *weir_stream_side_output(weir_stream *s, int tag)
{
    static const char call[] = "weir_stream_side_output";
    if (!s)
        return NULL;
    if (s->is_view || s->nsrc != 1 || s->src[0].tag != 0) {
        weir__job_fail(s->job, WEIR_EINVAL,
                              "%s: needs the main output stream of one operator", call);
        return NULL;
    }
    weir__node *n = s->job->graph.nodes[s->src[0].node];
    for (int i = 0; i < n->nside; i++) {
        if (n->side[i].tag == tag)
            return node_stream(s->job, n, tag, n->side[i].elem_size, call);
    }
    weir__job_fail(s->job, WEIR_EINVAL, "%s: operator '%s' declares no side output tag %d",
                          call, n->name, tag);
    return NULL;
}

/* ---- naming and parallelism ----------------------------------------------- */

/* The node whose main or side output s is; NULL for a NULL stream, or with
 * the job failed for a view. */
static weir__node *producing_node(weir_stream *s, const char *call)
{
    if (!s)
        return NULL;
    if (s->is_view || s->nsrc != 1) {
        weir__job_fail(s->job, WEIR_EINVAL,
                              "%s: applies to an operator's output, not to a key_by, rebalance, "
                              "broadcast, forward or union view",
                              call);
        return NULL;
    }
    return s->job->graph.nodes[s->src[0].node];
}

/* The source whose output s is; NULL as producing_node, or with the job
 * failed when the node is no source. */
static weir__node *source_node(weir_stream *s, const char *call)
{
    weir__node *n = producing_node(s, call);
    if (n && !n->is_source) {
        weir__job_fail(s->job, WEIR_EINVAL, "%s: '%s' is not a source", call, n->name);
        return NULL;
    }
    return n;
}

/* Gives n, the node of s, the name (uid false) or uid `v`: nothing to do
 * when it has it already, refused when another node has it. */
static weir_stream *set_ident(weir_stream *s, weir__node *n, bool uid, const char *v,
                              const char *call)
{
    if (strcmp(ident(n, uid), v) == 0)
        return s;
    if (ident_taken(&s->job->graph, v, uid)) {
        weir__job_fail(s->job, WEIR_EINVAL, "%s: the %s '%s' is already used", call,
                       uid ? "uid" : "name", v);
        return NULL;
    }
    char *copy = weir__strdup(v);
    if (!copy)
        return oom(s->job, call);
    char **field = uid ? &n->uid : &n->name;
    free(*field);
    *field = copy;
    return s;
}

weir_stream *weir_stream_set_name(weir_stream *s, const char *name)
{
    static const char call[] = "weir_stream_set_name";
    weir__node *n = producing_node(s, call);
    if (!n)
        return NULL;
    if (!name || !*name) {
        weir__job_fail(s->job, WEIR_EINVAL, "%s: the name is empty", call);
        return NULL;
    }
    return set_ident(s, n, false, name, call);
}

weir_stream *weir_source_union_state(weir_stream *s)
{
    static const char call[] = "weir_source_union_state";
    weir__node *n = source_node(s, call);
    if (!n)
        return NULL;
    n->union_state = true;
    return s;
}

weir_stream *weir_stream_union_state(weir_stream *s)
{
    weir__node *n = producing_node(s, "weir_stream_union_state");
    if (!n)
        return NULL;
    n->union_state = true;
    return s;
}

weir_stream *weir_source_align_watermarks(weir_stream *s, const weir_watermark_alignment *a)
{
    static const char call[] = "weir_source_align_watermarks";
    weir__node *n = source_node(s, call);
    if (!n)
        return NULL;
    weir_watermark_alignment v = a ? *a : (weir_watermark_alignment){0};
    size_t len = v.group ? strlen(v.group) : 0;
    if (v.group && (len < 1 || len > 100)) {
        weir__job_fail(s->job, WEIR_EINVAL, "%s: '%s': a group name is 1 to 100 bytes, not %zu",
                       call, n->name, len);
        return NULL;
    }
    if (v.max_drift_ms < 0 && v.max_drift_ms != WEIR_DISABLED) {
        weir__job_fail(s->job, WEIR_EINVAL, "%s: '%s': max drift %lld ms is negative "
                       "(WEIR_DISABLED turns alignment off)", call, n->name,
                       (long long)v.max_drift_ms);
        return NULL;
    }
    if (v.update_interval_ms < 0) {
        weir__job_fail(s->job, WEIR_EINVAL, "%s: '%s': update interval %lld ms is negative", call,
                       n->name, (long long)v.update_interval_ms);
        return NULL;
    }
    char *group = NULL;
    if (v.group && !(group = weir__strdup(v.group))) {
        weir__job_fail(s->job, WEIR_ENOMEM, "%s: out of memory", call);
        return NULL;
    }
    free((char *)n->align.group);
    n->align = v;
    n->align.group = group;
    n->align_set = true;
    return s;
}

weir_stream *weir_stream_set_uid(weir_stream *s, const char *uid)
{
    static const char call[] = "weir_stream_set_uid";
    weir__node *n = producing_node(s, call);
    if (!n)
        return NULL;
    size_t len = uid ? strlen(uid) : 0;
    if (len < 1 || len > 100) {
        weir__job_fail(s->job, WEIR_EINVAL, "%s: a uid is 1 to 100 bytes, not %zu", call, len);
        return NULL;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)uid[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr("._-:#", c))) {
            weir__job_fail(s->job, WEIR_EINVAL,
                           "%s: uid '%s': byte %zu is not a letter, a digit or one of ._-:#", call,
                           uid, i + 1);
            return NULL;
        }
    }
    return set_ident(s, n, true, uid, call);
}

weir_stream *weir_stream_set_parallelism(weir_stream *s, int parallelism)
{
    static const char call[] = "weir_stream_set_parallelism";
    weir__node *n = producing_node(s, call);
    if (!n)
        return NULL;
    if (parallelism < 1 || parallelism > WEIR_MAX_PARALLELISM) {
        weir__job_fail(s->job, WEIR_EINVAL, "%s: parallelism %d is not in 1..%d", call,
                              parallelism, WEIR_MAX_PARALLELISM);
        return NULL;
    }
    n->parallelism = parallelism;
    return s;
}

size_t weir_stream_elem_size(const weir_stream *s)
{
    return s ? s->elem_size : 0;
}

weir_job *weir_stream_job(const weir_stream *s)
{
    return s ? s->job : NULL;
}

size_t weir_stream_key_size(const weir_stream *s)
{
    return s && s->key ? s->key->spec.key_size : 0;
}

/* ---- views ---------------------------------------------------------------- */

static weir_stream *view(weir_stream *s, weir__partitioning part, const weir__key *key,
                         const char *call)
{
    if (check_input(s->job, s, call))
        return NULL;
    weir_stream *v = new_stream(s->job, s->nsrc);
    if (!v)
        return oom(s->job, call);
    memcpy(v->src, s->src, (size_t)s->nsrc * sizeof *v->src);
    v->elem_size = s->elem_size;
    v->part = part;
    v->key = key;
    v->is_view = true;
    return v;
}

weir_stream *weir_stream_key_by(weir_stream *s, const weir_key_spec *key)
{
    static const char call[] = "weir_stream_key_by";
    if (!s)
        return NULL;
    if (!key || !key->extract) {
        weir__job_fail(s->job, WEIR_EINVAL, "%s: a key spec with extract is required", call);
        return NULL;
    }
    if (key->key_size == 0 || key->key_size > WEIR_MAX_KEY_SIZE) {
        weir__job_fail(s->job, WEIR_EINVAL, "%s: key_size %zu is not in 1..%d", call,
                              key->key_size, WEIR_MAX_KEY_SIZE);
        return NULL;
    }
    weir__graph *g = &s->job->graph;
    if (g->nkeys == g->cap_keys) {
        int cap = g->cap_keys ? g->cap_keys * 2 : 8;
        weir__key **keys = realloc(g->keys, (size_t)cap * sizeof *keys);
        if (!keys)
            return oom(s->job, call);
        g->keys = keys;
        g->cap_keys = cap;
    }
    weir__key *k = malloc(sizeof *k);
    if (!k)
        return oom(s->job, call);
    k->spec = *key;
    weir_stream *v = view(s, WEIR__PART_HASH, k, call);
    if (!v) {
        free(k);
        return NULL;
    }
    g->keys[g->nkeys++] = k;
    return v;
}

weir_stream *weir_stream_rebalance(weir_stream *s)
{
    return s ? view(s, WEIR__PART_REBALANCE, NULL, "weir_stream_rebalance") : NULL;
}

weir_stream *weir_stream_broadcast(weir_stream *s)
{
    return s ? view(s, WEIR__PART_BROADCAST, NULL, "weir_stream_broadcast") : NULL;
}

weir_stream *weir_stream_forward(weir_stream *s)
{
    return s ? view(s, WEIR__PART_FORWARD, NULL, "weir_stream_forward") : NULL;
}

weir_stream *weir_stream_union(weir_stream *const *streams, int n)
{
    static const char call[] = "weir_stream_union";
    if (!streams || n < 1)
        return NULL;
    for (int i = 0; i < n; i++) {
        if (!streams[i])
            return NULL;
    }
    weir_job *job = streams[0]->job;
    int total = 0;
    for (int i = 0; i < n; i++) {
        const weir_stream *s = streams[i];
        if (s->job != job) {
            weir__job_fail(job, WEIR_EINVAL, "%s: the streams belong to different jobs",
                                  call);
            return NULL;
        }
        if (check_input(job, s, call))
            return NULL;
        if (s->elem_size != streams[0]->elem_size) {
            weir__job_fail(job, WEIR_ETYPE,
                                  "%s: stream %d has elements of %zu bytes, stream 0 of %zu", call,
                                  i, s->elem_size, streams[0]->elem_size);
            return NULL;
        }
        if (s->part != WEIR__PART_DEFAULT) {
            weir__job_fail(job, WEIR_EINVAL,
                                  "%s: stream %d is already partitioned; partition the union "
                                  "instead",
                                  call, i);
            return NULL;
        }
        total += s->nsrc;
    }
    weir_stream *u = new_stream(job, total);
    if (!u)
        return oom(job, call);
    int k = 0;
    for (int i = 0; i < n; i++) {
        memcpy(&u->src[k], streams[i]->src, (size_t)streams[i]->nsrc * sizeof *u->src);
        k += streams[i]->nsrc;
    }
    u->elem_size = streams[0]->elem_size;
    u->is_view = true;
    return u;
}
