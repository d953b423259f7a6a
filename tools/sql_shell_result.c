/* sql_shell_result.c — the SQL shell's result modes (sql_shell_result.h).
 *
 * One shell per process, one query at a time: the state is this file's.
 * The result sink's thread formats each row into cells and, under the
 * lock, prints it (changelog, tableau) or materializes it (table); the
 * table view's thread draws the materialized rows under the same lock. The
 * lock is the shell's, on the way to a terminal: the job's data path does
 * not pass here (the result sink of parallelism 1 is the query's end). */
#include "sql_shell_result.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <weir/error.h>
#include <weir/time_zone.h>

#define MODE_KEY "sql-client.execution.result-mode"
#define MAX_COLUMN_WIDTH 30    /* Flink's sql-client.display.max-column-width */
#define MAX_TABLE_ROWS 1000000 /* Flink's sql-client.execution.max-table-result.rows */
#define CELL_MAX 1024          /* a value's text kept for the display */
#define NULL_TEXT "<NULL>"     /* Flink's PrintStyle.NULL_VALUE */
#define REDRAW_MS 100

typedef enum mode { MODE_CHANGELOG, MODE_TABLEAU, MODE_TABLE } mode;

/* A materialized row: its cells' texts one after the other, each ended by
 * a NUL. */
typedef struct mrow {
    size_t len;
    char text[];
} mrow;

static struct {
    pthread_mutex_t lock;
    mode mode;
    const weir_time_zone *zone;
    bool tty;
    /* the query's columns, known at its first row */
    bool started;
    int ncols;
    char **names;
    int *widths; /* by type, Flink's columnWidthsByType (without op) */
    long long count; /* rows received */
    bool write_failed;
    /* table mode: rows[first..nrows) */
    mrow **rows;
    size_t first, nrows, cap;
    /* the view */
    bool query; /* the statement's rows come here */
    bool view_on;
    pthread_t view;
    weir_sql_session *session;
    bool dirty, finished, close_now, left_with_q;
} R = {.lock = PTHREAD_MUTEX_INITIALIZER};

static atomic_int interrupt_seen;

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the SIGINT handler stores an atomic int");

void shell_result_interrupt(void)
{
    atomic_store(&interrupt_seen, 1);
}

/* ---- text widths ------------------------------------------------------------------------------ */

/* The code point of UTF-8 text at t (its length in *n); a stray byte is
 * itself. */
static uint32_t utf8_at(const char *t, int *n)
{
    const unsigned char *u = (const unsigned char *)t;
    int len = u[0] < 0x80 ? 1 : (u[0] & 0xE0) == 0xC0 ? 2 : (u[0] & 0xF0) == 0xE0 ? 3
                              : (u[0] & 0xF8) == 0xF0 ? 4 : 1;
    uint32_t c = len == 1 ? u[0] : u[0] & (0x7F >> len);
    for (int k = 1; k < len; k++) {
        if ((u[k] & 0xC0) != 0x80) {
            *n = 1;
            return u[0];
        }
        c = (c << 6) | (u[k] & 0x3F);
    }
    *n = len;
    return c;
}

/* East Asian wide and fullwidth characters take two columns (as Flink's
 * TableauStyle counts them); the common blocks. */
static int char_width(uint32_t c)
{
    return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF && c != 0x303F) ||
                   (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
                   (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
                   (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
                   (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD)
               ? 2
               : 1;
}

static int text_width(const char *t)
{
    int w = 0, n;
    for (; *t; t += n)
        w += char_width(utf8_at(t, &n));
    return w;
}

/* Appends t to out (at *len, capacity cap) within `width` columns: padded
 * on the left to it (right-aligned), or cut and ended with "..." as Flink
 * cuts a long value. */
static void put_cell(char *out, size_t cap, size_t *len, const char *t, int width)
{
    int w = text_width(t);
    if (w <= width) {
        for (int k = w; k < width && *len + 1 < cap; k++)
            out[(*len)++] = ' ';
        size_t n = strlen(t);
        if (*len + n < cap) {
            memcpy(out + *len, t, n);
            *len += n;
        }
    } else {
        int target = width - 3, passed = 0, n;
        const char *p = t;
        while (*p) {
            int cw = char_width(utf8_at(p, &n));
            if (passed + cw > target)
                break;
            passed += cw;
            p += n;
        }
        for (int k = passed; k < target && *len + 1 < cap; k++)
            out[(*len)++] = ' ';
        size_t bytes = (size_t)(p - t);
        if (*len + bytes + 3 < cap) {
            memcpy(out + *len, t, bytes);
            memcpy(out + *len + bytes, "...", 3);
            *len += bytes + 3;
        }
    }
    out[*len] = '\0';
}

/* ---- the columns ------------------------------------------------------------------------------ */

/* Flink's width of a column of type t (TableauStyle.columnWidthsByType). */
static int type_width(weir_type t)
{
    int p = weir_type_precision(t), len;
    switch (t.id) {
    case WEIR_TYPE_TINYINT: len = 4; break;
    case WEIR_TYPE_SMALLINT: len = 6; break;
    case WEIR_TYPE_INT: len = 11; break;
    case WEIR_TYPE_BIGINT: len = 20; break;
    case WEIR_TYPE_DECIMAL: len = (t.precision ? p : 10) + 2; break;
    case WEIR_TYPE_BOOLEAN: len = 5; break;
    case WEIR_TYPE_DATE: len = 10; break;
    case WEIR_TYPE_TIME: len = p == 0 ? 8 : p + 9; break;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: len = p == 0 ? 19 : p <= 3 ? 23 : p <= 6 ? 26 : 29; break;
    default: len = MAX_COLUMN_WIDTH;
    }
    return len > (int)strlen(NULL_TEXT) ? len : (int)strlen(NULL_TEXT);
}

static void forget_columns(void)
{
    for (int c = 0; c < R.ncols; c++)
        free(R.names[c]);
    free(R.names);
    free(R.widths);
    R.names = NULL;
    R.widths = NULL;
    R.ncols = 0;
    R.started = false;
}

static int learn_columns(const weir_schema *schema)
{
    int n = weir_schema_ncolumns(schema);
    R.names = calloc((size_t)(n ? n : 1), sizeof *R.names);
    R.widths = calloc((size_t)(n ? n : 1), sizeof *R.widths);
    if (!R.names || !R.widths)
        return WEIR_ENOMEM;
    R.ncols = n;
    for (int c = 0; c < n; c++) {
        const char *name = weir_schema_column_name(schema, c);
        if (!(R.names[c] = strdup(name ? name : "")))
            return WEIR_ENOMEM;
        int tw = type_width(weir_schema_column_type(schema, c));
        int nw = text_width(R.names[c]);
        R.widths[c] = nw > tw ? nw : tw;
    }
    R.started = true;
    return 0;
}

/* Column c's text as the client shows it, into buf (cut at CELL_MAX, at a
 * character's start; control characters as blanks, which would break the
 * table's lines). */
static void cell_text(const weir_schema *schema, const void *row, int c, char *buf)
{
    if (weir_row_is_null(schema, row, c)) {
        memcpy(buf, NULL_TEXT, sizeof NULL_TEXT);
        return;
    }
    int w = weir_row_format_column(schema, row, c, R.zone, buf, CELL_MAX);
    if (w < 0) {
        buf[0] = '\0';
        return;
    }
    size_t n = strlen(buf);
    if ((size_t)w >= CELL_MAX) /* cut: drop a character cut in two */
        while (n && ((unsigned char)buf[n - 1] & 0xC0) == 0x80)
            buf[--n] = '\0';
    if (n && ((unsigned char)buf[n - 1] & 0xC0) == 0xC0)
        buf[--n] = '\0';
    for (size_t k = 0; k < n; k++)
        if ((unsigned char)buf[k] < 0x20 || buf[k] == 0x7F)
            buf[k] = ' ';
}

/* ---- tableau ---------------------------------------------------------------------------------- */

static void border(FILE *out, bool op)
{
    fputc('+', out);
    if (op)
        fputs("----+", out);
    for (int c = 0; c < R.ncols; c++) {
        for (int k = 0; k < R.widths[c] + 2; k++)
            fputc('-', out);
        fputc('+', out);
    }
    fputc('\n', out);
}

/* A line of cells (the op's first when op is not NULL). */
static void tableau_line(FILE *out, const char *op, const char *const *cells, const int *widths)
{
    size_t cap = 64;
    for (int c = 0; c < R.ncols; c++)
        cap += (size_t)widths[c] * 4 + 8;
    char *line = malloc(cap);
    if (!line)
        return;
    size_t len = 0;
    line[len++] = '|';
    if (op) {
        line[len++] = ' ';
        put_cell(line, cap, &len, op, 2);
        memcpy(line + len, " |", 2);
        len += 2;
    }
    for (int c = 0; c < R.ncols; c++) {
        line[len++] = ' ';
        put_cell(line, cap, &len, cells[c], widths[c]);
        memcpy(line + len, " |", 2);
        len += 2;
    }
    line[len++] = '\n';
    if (fwrite(line, 1, len, out) != len)
        R.write_failed = true;
    free(line);
}

/* ---- table ------------------------------------------------------------------------------------ */

static void cells_of(const mrow *r, const char **cells)
{
    const char *p = r->text;
    for (int c = 0; c < R.ncols; c++) {
        cells[c] = p;
        p += strlen(p) + 1;
    }
}

/* The row (its cells' texts) into the materialized table: an insertion
 * appends it, a retraction removes the newest equal row (Flink's
 * MaterializedCollectStreamResult). */
static int materialize(weir_row_kind kind, char *const *cells)
{
    size_t len = 0;
    for (int c = 0; c < R.ncols; c++)
        len += strlen(cells[c]) + 1;
    if (kind == WEIR_ROW_UPDATE_BEFORE || kind == WEIR_ROW_DELETE) {
        for (size_t i = R.nrows; i-- > R.first;) {
            const mrow *m = R.rows[i];
            if (m->len != len)
                continue;
            const char *p = m->text;
            int c = 0;
            for (; c < R.ncols; c++) {
                size_t n = strlen(cells[c]) + 1;
                if (memcmp(p, cells[c], n) != 0)
                    break;
                p += n;
            }
            if (c == R.ncols) {
                free(R.rows[i]);
                memmove(&R.rows[i], &R.rows[i + 1], (R.nrows - i - 1) * sizeof *R.rows);
                R.nrows--;
                break;
            }
        }
        return 0;
    }
    if (R.nrows - R.first >= MAX_TABLE_ROWS) /* the oldest leaves, as in Flink */
        free(R.rows[R.first++]);
    if (R.first > 0 && R.first >= R.nrows / 2) {
        memmove(R.rows, R.rows + R.first, (R.nrows - R.first) * sizeof *R.rows);
        R.nrows -= R.first;
        R.first = 0;
    }
    if (R.nrows == R.cap) {
        size_t cap = R.cap ? 2 * R.cap : 64;
        mrow **v = realloc(R.rows, cap * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        R.rows = v;
        R.cap = cap;
    }
    mrow *m = malloc(sizeof *m + len);
    if (!m)
        return WEIR_ENOMEM;
    m->len = len;
    char *p = m->text;
    for (int c = 0; c < R.ncols; c++) {
        size_t n = strlen(cells[c]) + 1;
        memcpy(p, cells[c], n);
        p += n;
    }
    R.rows[R.nrows++] = m;
    return 0;
}

static void forget_rows(void)
{
    for (size_t i = R.first; i < R.nrows; i++)
        free(R.rows[i]);
    free(R.rows);
    R.rows = NULL;
    R.first = R.nrows = R.cap = 0;
}

/* The materialized table printed once (not on a terminal): Flink's
 * tableau of a bounded result, widths from the texts (at most 30). */
static void print_table(FILE *out)
{
    size_t n = R.nrows - R.first;
    if (n == 0 || !R.started) {
        fputs("Empty set\n", out);
        return;
    }
    int *w = calloc((size_t)R.ncols, sizeof *w);
    const char **cells = calloc((size_t)R.ncols, sizeof *cells);
    if (!w || !cells) {
        free(w);
        free(cells);
        return;
    }
    for (int c = 0; c < R.ncols; c++)
        w[c] = text_width(R.names[c]);
    for (size_t i = R.first; i < R.nrows; i++) {
        cells_of(R.rows[i], cells);
        for (int c = 0; c < R.ncols; c++) {
            int tw = text_width(cells[c]);
            if (tw > w[c])
                w[c] = tw;
        }
    }
    for (int c = 0; c < R.ncols; c++)
        if (w[c] > MAX_COLUMN_WIDTH)
            w[c] = MAX_COLUMN_WIDTH;
    int *by_type = R.widths;
    R.widths = w;
    border(out, false);
    tableau_line(out, NULL, (const char *const *)R.names, w);
    border(out, false);
    for (size_t i = R.first; i < R.nrows; i++) {
        cells_of(R.rows[i], cells);
        tableau_line(out, NULL, cells, w);
    }
    border(out, false);
    R.widths = by_type;
    fprintf(out, "%zu %s in set\n", n, n > 1 ? "rows" : "row");
    free(w);
    free(cells);
}

/* ---- the table view (a terminal) -------------------------------------------------------------- */

/* One line of the screen: `text` cut to `cols` columns, cleared to its
 * end; in reverse video when `inverse`. */
static void screen_line(FILE *out, const char *text, int cols, bool inverse)
{
    if (inverse)
        fputs("\x1b[7m", out);
    int w = 0, n;
    const char *p = text;
    while (*p) {
        int cw = char_width(utf8_at(p, &n));
        if (w + cw > cols)
            break;
        fwrite(p, 1, (size_t)n, out);
        w += cw;
        p += n;
    }
    if (inverse)
        for (; w < cols; w++)
            fputc(' ', out);
    fputs("\x1b[0m\x1b[K\r\n", out);
}

static void draw(FILE *out, int rows, int cols)
{
    char *line = malloc((size_t)cols * 4 + 1024);
    if (!line)
        return;
    size_t cap = (size_t)cols * 4 + 1024;
    fputs("\x1b[H", out);
    /* the title, centred */
    const char *title = "SQL Query Result (Table)";
    int pad = (cols - (int)strlen(title)) / 2;
    snprintf(line, cap, "%*s%s", pad > 0 ? pad : 0, "", title);
    screen_line(out, line, cols, true);
    /* the state */
    char when[32] = "";
    time_t t = time(NULL);
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(when, sizeof when, "%H:%M:%S", &tm);
    size_t n = R.nrows - R.first;
    snprintf(line, cap, " %s   Rows: %zu   Updated: %s",
             R.finished ? "Table program finished." : "Refresh: 0.1 s", n, when);
    screen_line(out, line, cols, false);
    /* the column names, then the last rows that fit */
    int body = rows - 4;
    size_t len = 0;
    line[0] = '\0';
    for (int c = 0; c < R.ncols && len < (size_t)cols * 4; c++) {
        line[len++] = ' ';
        put_cell(line, cap, &len, R.names[c], R.widths[c]);
    }
    screen_line(out, line, cols, false);
    const char **cells = calloc((size_t)(R.ncols ? R.ncols : 1), sizeof *cells);
    size_t from = R.first;
    if (body > 0 && n > (size_t)body)
        from = R.nrows - (size_t)body;
    int drawn = 0;
    for (size_t i = from; cells && body > 0 && i < R.nrows; i++, drawn++) {
        cells_of(R.rows[i], cells);
        len = 0;
        line[0] = '\0';
        for (int c = 0; c < R.ncols && len < (size_t)cols * 4; c++) {
            line[len++] = ' ';
            put_cell(line, cap, &len, cells[c], R.widths[c]);
        }
        screen_line(out, line, cols, false);
    }
    for (; drawn < body; drawn++)
        fputs("\x1b[K\r\n", out);
    snprintf(line, cap, " Q Quit   Rows %zu-%zu of %zu", n ? from - R.first + 1 : 0,
             R.nrows - R.first, n);
    screen_line(out, line, cols, true);
    fputs("\x1b[J", out);
    fflush(out);
    free(cells);
    free(line);
}

static void *view_main(void *arg)
{
    (void)arg;
    struct termios old, raw;
    bool term = tcgetattr(STDIN_FILENO, &old) == 0;
    if (term) {
        raw = old;
        raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO); /* ISIG kept: Ctrl-C is SIGINT */
        raw.c_cc[VMIN] = 1;
        raw.c_cc[VTIME] = 0;
        tcsetattr(STDIN_FILENO, TCSANOW, &raw);
    }
    /* the other screen (no cursor) at the first drawing: a query refused
     * before its first 100 ms never shows it */
    bool entered = false;
    int last_rows = 0, last_cols = 0;
    bool shown_finished = false;
    for (;;) {
        struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
        bool quit = false;
        if (poll(&p, 1, REDRAW_MS) > 0 && (p.revents & POLLIN)) {
            char keys[64];
            ssize_t k = read(STDIN_FILENO, keys, sizeof keys);
            for (ssize_t i = 0; i < k; i++)
                quit |= keys[i] == 'q' || keys[i] == 'Q';
            if (k == 0)
                quit = true; /* the terminal is gone */
        } else if (p.revents & (POLLHUP | POLLERR)) {
            quit = true;
        }
        if (atomic_load(&interrupt_seen))
            break;
        pthread_mutex_lock(&R.lock);
        if (quit && !R.finished) {
            R.left_with_q = true;
            weir_sql_cancel(R.session);
        }
        if (quit || R.close_now) {
            pthread_mutex_unlock(&R.lock);
            break;
        }
        struct winsize ws = {0};
        int rows = 24, cols = 80;
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
            rows = ws.ws_row;
            cols = ws.ws_col;
        }
        if (R.dirty || rows != last_rows || cols != last_cols ||
            R.finished != shown_finished) {
            if (!entered)
                fputs("\x1b[?1049h\x1b[?25l", stdout);
            entered = true;
            if (rows != last_rows || cols != last_cols)
                fputs("\x1b[2J", stdout);
            draw(stdout, rows, cols);
            R.dirty = false;
            shown_finished = R.finished;
            last_rows = rows;
            last_cols = cols;
        }
        pthread_mutex_unlock(&R.lock);
    }
    if (entered)
        fputs("\x1b[?25h\x1b[?1049l", stdout);
    fflush(stdout);
    if (term)
        tcsetattr(STDIN_FILENO, TCSANOW, &old);
    return NULL;
}

/* ---- the shell's calls ------------------------------------------------------------------------ */

int weir_sql_shell_row(const weir_schema *schema, const void *row, void *arg)
{
    (void)arg;
    int r = 0;
    pthread_mutex_lock(&R.lock);
    if (R.mode == MODE_CHANGELOG) {
        char line[16384], *buf;
        int w = weir_row_format_zoned(schema, row, WEIR_ROW_STYLE_SQL, R.zone, line,
                                      sizeof line);
        if (w < (int)sizeof line)
            buf = line;
        else if ((buf = malloc((size_t)w + 1)))
            weir_row_format_zoned(schema, row, WEIR_ROW_STYLE_SQL, R.zone, buf, (size_t)w + 1);
        if (w < 0 || !buf) {
            r = w < 0 ? WEIR_EINVAL : WEIR_ENOMEM;
        } else {
            fputs(buf, stdout);
            fputc('\n', stdout);
            if (ferror(stdout))
                r = WEIR_EIO;
        }
        if (buf != line)
            free(buf);
        R.count++;
        pthread_mutex_unlock(&R.lock);
        return r;
    }
    if (!R.started && (r = learn_columns(schema)) != 0) {
        pthread_mutex_unlock(&R.lock);
        return r;
    }
    size_t nc = (size_t)(R.ncols ? R.ncols : 1);
    char **cells = malloc(nc * sizeof *cells);
    char *texts = malloc(nc * CELL_MAX);
    if (!cells || !texts) {
        free(cells);
        free(texts);
        pthread_mutex_unlock(&R.lock);
        return WEIR_ENOMEM;
    }
    for (int c = 0; c < R.ncols; c++) {
        cells[c] = texts + (size_t)c * CELL_MAX;
        cell_text(schema, row, c, cells[c]);
    }
    weir_row_kind kind = weir_row_get_kind(row);
    if (R.mode == MODE_TABLEAU) {
        if (R.count == 0) {
            border(stdout, true);
            tableau_line(stdout, "op", (const char *const *)R.names, R.widths);
            border(stdout, true);
        }
        tableau_line(stdout, weir_row_kind_name(kind), (const char *const *)cells, R.widths);
        fflush(stdout);
        if (R.write_failed || ferror(stdout))
            r = WEIR_EIO;
    } else {
        r = materialize(kind, cells);
        R.dirty = true;
    }
    R.count++;
    free(cells);
    free(texts);
    pthread_mutex_unlock(&R.lock);
    return r;
}

void shell_result_begin(weir_sql_session *s, bool query, bool tty)
{
    pthread_mutex_lock(&R.lock);
    forget_columns();
    forget_rows();
    const char *m = weir_sql_setting(s, MODE_KEY);
    R.mode = !m || strcasecmp(m, "changelog") == 0 ? MODE_CHANGELOG
             : strcasecmp(m, "tableau") == 0       ? MODE_TABLEAU
                                                   : MODE_TABLE;
    const char *zone = weir_sql_setting(s, "table.local-time-zone");
    char err[256];
    R.zone = NULL;
    if (zone && weir_time_zone_get(zone, &R.zone, err, sizeof err) != 0)
        R.zone = NULL; /* the session refused it at its SET */
    R.tty = tty;
    R.query = query;
    R.count = 0;
    R.write_failed = false;
    R.session = s;
    R.dirty = R.finished = R.close_now = R.left_with_q = false;
    atomic_store(&interrupt_seen, 0);
    R.view_on = false;
    if (query && tty && R.mode == MODE_TABLE) {
        fflush(stdout);
        R.view_on = pthread_create(&R.view, NULL, view_main, NULL) == 0;
    }
    pthread_mutex_unlock(&R.lock);
}

bool shell_result_end(int r, bool interrupted)
{
    bool said = false;
    pthread_mutex_lock(&R.lock);
    bool view = R.view_on;
    if (view) {
        /* a finished query stays in view until q; one that failed or was
         * cancelled leaves it at once, its message on the shell's screen */
        R.finished = true;
        R.dirty = true;
        if (r != 0)
            R.close_now = true;
    }
    pthread_mutex_unlock(&R.lock);
    if (view)
        pthread_join(R.view, NULL);
    pthread_mutex_lock(&R.lock);
    R.view_on = false;
    if (view) {
        said = R.left_with_q && r == WEIR_ECANCELED;
    } else if (!R.query) {
        /* no rows of its own */
    } else if (R.mode == MODE_TABLEAU && (r == 0 || (r == WEIR_ECANCELED && interrupted))) {
        if (R.count > 0)
            border(stdout, true);
        const char *term = R.count > 1 ? "rows" : "row";
        if (r == 0) {
            printf("Received a total of %lld %s\n", R.count, term);
        } else {
            printf("Query terminated, received a total of %lld %s\n", R.count, term);
            said = true;
        }
    } else if (R.mode == MODE_TABLE && (r == 0 || (r == WEIR_ECANCELED && interrupted))) {
        print_table(stdout);
    }
    fflush(stdout);
    forget_rows();
    forget_columns();
    pthread_mutex_unlock(&R.lock);
    return said;
}
