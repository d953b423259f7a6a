/* sql_connectors.c — the registry of connector factories (weir/connector.h):
 * names to factories, process-wide, as Flink finds its factories by
 * identifier. Registration is rare and happens before SQL runs, lookups
 * happen at CREATE TABLE: a mutex keeps both simple, and nothing here is on
 * a data path. The built-in connectors (datagen, print, blackhole) register
 * themselves the first time a session is made. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_internal.h"
#include "message_text.h"
#include "weir/connector.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static const weir_connector_factory **factories;
static int nfactories, factories_cap;

static bool good_name(const char *n)
{
    if (!n || !n[0] || strlen(n) >= SQL_NAME_MAX)
        return false;
    for (const char *c = n; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_' || *c == '.'))
            return false;
    return true;
}

static const weir_connector_factory *find_locked(const char *name)
{
    for (int i = 0; i < nfactories; i++)
        if (strcmp(factories[i]->name, name) == 0)
            return factories[i];
    return NULL;
}

int weir_connector_register(const weir_connector_factory *f)
{
    if (!f || (f->version != WEIR_CONNECTOR_V1 && f->version != WEIR_CONNECTOR_V2 &&
                f->version != WEIR_CONNECTOR_V3) ||
        !good_name(f->name) || !f->validate || (!f->source && !f->sink) ||
        (sql_source_watermarked(f) && !f->source))
        return WEIR_EINVAL;
    pthread_mutex_lock(&registry_lock);
    const weir_connector_factory *old = find_locked(f->name);
    int r = 0;
    if (old) {
        r = old == f ? 0 : WEIR_EINVAL;
    } else if (nfactories == factories_cap) {
        int cap = factories_cap ? 2 * factories_cap : 8;
        const weir_connector_factory **v = realloc(factories, (size_t)cap * sizeof *v);
        if (!v) {
            r = WEIR_ENOMEM;
        } else {
            factories = v;
            factories_cap = cap;
        }
    }
    if (!r && !old)
        factories[nfactories++] = f;
    pthread_mutex_unlock(&registry_lock);
    return r;
}

const weir_connector_factory *weir_connector_find(const char *name)
{
    if (!name)
        return NULL;
    pthread_mutex_lock(&registry_lock);
    const weir_connector_factory *f = find_locked(name);
    pthread_mutex_unlock(&registry_lock);
    return f;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int weir_connector_names(const char *sep, char *buf, size_t size)
{
    pthread_mutex_lock(&registry_lock);
    int n = nfactories;
    const char **names = malloc((size_t)(n ? n : 1) * sizeof *names);
    if (!names) {
        pthread_mutex_unlock(&registry_lock);
        return snprintf(buf, size, "%s", "");
    }
    for (int i = 0; i < n; i++)
        names[i] = factories[i]->name;
    pthread_mutex_unlock(&registry_lock);
    qsort(names, (size_t)n, sizeof *names, by_name);
    size_t len = 0;
    for (int i = 0; i < n; i++)
        weir__append(buf, size, &len, "%s%s", i ? sep : "", names[i]);
    if (!n && size)
        buf[0] = '\0';
    free(names);
    return (int)len;
}

/* ---- the built-in connectors ---------------------------------------------------------- */

static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void register_builtin(void)
{
    weir_connector_register(&sql_datagen_factory);
    weir_connector_register(&sql_print_factory);
    weir_connector_register(&sql_blackhole_factory);
}

void sql_connectors_builtin(void)
{
    pthread_once(&builtin_once, register_builtin);
}
