/*
 * hostpool.c -- pinned staging units and the worker threads that fill and drain them (see hostpool.h).
 *
 * Why: page-locking a caller's fresh buffers costs about as much as copying them (docs/RESULTS.md,
 * "Host-side costs"), and a pageable cudaMemcpy runs the driver's own single-threaded staging.  Here the host copies into a few pinned units are split over threads and
 * overlap the DMA of the unit before, and the units stay for the next call.
 */
#define _GNU_SOURCE
#include "hostpool.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

/* ---- worker threads ------------------------------------------------------------------------- */

typedef struct par_job {
    void (*fn)(void *ctx, size_t i);
    void *ctx;
    size_t n, next, done;
    struct par_job *link; /* the queue of jobs with tasks not yet handed out */
} par_job;

#define SMK_PAR_MAX_WORKERS 7

static pthread_mutex_t g_par_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_par_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t g_par_done = PTHREAD_COND_INITIALIZER;
static par_job *g_par_queue = NULL;
static int g_par_workers = -1; /* -1: not started yet */
static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

/* Pinned pool state (below), reset with the workers in a forked child. */
static pthread_mutex_t g_stage_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_stage_cv = PTHREAD_COND_INITIALIZER;
static void *g_idle = NULL; /* free list threaded through the idle units' first bytes */
static size_t g_nidle = 0, g_held = 0, g_inuse = 0, g_peak = 0;
static size_t g_cap = SMK_STAGE_CAP_DEFAULT / SMK_STAGE_UNIT_BYTES; /* in units */

/* A forked child has none of the parent's threads, and CUDA does not work in it: start from nothing
 * (the parent's pinned units are not the child's to free). */
static void atfork_child(void)
{
    pthread_mutex_init(&g_par_lock, NULL);
    pthread_cond_init(&g_par_work, NULL);
    pthread_cond_init(&g_par_done, NULL);
    g_par_queue = NULL;
    g_par_workers = -1;
    pthread_mutex_init(&g_stage_lock, NULL);
    pthread_cond_init(&g_stage_cv, NULL);
    g_idle = NULL;
    g_nidle = g_held = g_inuse = g_peak = 0;
}

static void register_atfork(void) { (void)pthread_atfork(NULL, NULL, atfork_child); }

/* With g_par_lock held: the next task of the first queued job (the job leaves the queue with its
 * last task). */
static par_job *take_task(size_t *i)
{
    par_job *j = g_par_queue;
    if (!j)
        return NULL;
    *i = j->next++;
    if (j->next == j->n)
        g_par_queue = j->link;
    return j;
}

static void finish_task(par_job *j)
{
    if (++j->done == j->n)
        pthread_cond_broadcast(&g_par_done);
}

static void *par_worker(void *unused)
{
    pthread_mutex_lock(&g_par_lock);
    for (;;) {
        size_t i;
        par_job *j;
        while (!(j = take_task(&i)))
            pthread_cond_wait(&g_par_work, &g_par_lock);
        pthread_mutex_unlock(&g_par_lock);
        j->fn(j->ctx, i);
        pthread_mutex_lock(&g_par_lock);
        finish_task(j); /* j may be gone once the lock is dropped */
    }
    return NULL;
}

static int cpus_available(void)
{
    cpu_set_t set;
    long n;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* With g_par_lock held: start the workers once (as many as the CPUs we may run on, minus the
 * caller, at most SMK_PAR_MAX_WORKERS).  They block every signal: Python's handlers belong to the
 * main thread. */
static void start_workers(void)
{
    int want = cpus_available() - 1, i;
    sigset_t all, old;
    pthread_attr_t attr;
    pthread_once(&g_atfork_once, register_atfork);
    g_par_workers = 0;
    want = want > SMK_PAR_MAX_WORKERS ? SMK_PAR_MAX_WORKERS : want;
    if (want <= 0 || pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (i = 0; i < want; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, par_worker, NULL) != 0)
            break;
        g_par_workers++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

int smk_par_threads(void)
{
    int n;
    pthread_mutex_lock(&g_par_lock);
    if (g_par_workers < 0)
        start_workers();
    n = g_par_workers + 1;
    pthread_mutex_unlock(&g_par_lock);
    return n;
}

void smk_par_for(size_t n, void (*fn)(void *ctx, size_t i), void *ctx)
{
    par_job job = {fn, ctx, n, 0, 0, NULL}, **q;
    size_t i;
    if (n == 0)
        return;
    pthread_mutex_lock(&g_par_lock);
    if (g_par_workers < 0)
        start_workers();
    if (n == 1 || g_par_workers == 0) {
        pthread_mutex_unlock(&g_par_lock);
        for (i = 0; i < n; i++)
            fn(ctx, i);
        return;
    }
    for (q = &g_par_queue; *q; q = &(*q)->link)
        ;
    *q = &job;
    pthread_cond_broadcast(&g_par_work);
    while (job.next < job.n) { /* the caller works on its own job: it never waits for a busy pool */
        i = job.next++;
        if (job.next == job.n) { /* unlink: the job may sit anywhere in the queue */
            for (q = &g_par_queue; *q != &job; q = &(*q)->link)
                ;
            *q = job.link;
        }
        pthread_mutex_unlock(&g_par_lock);
        fn(ctx, i);
        pthread_mutex_lock(&g_par_lock);
        finish_task(&job);
    }
    while (job.done < job.n)
        pthread_cond_wait(&g_par_done, &g_par_lock);
    pthread_mutex_unlock(&g_par_lock);
}

/* ---- the pinned staging pool ---------------------------------------------------------------- */

static void *pop_idle(void)
{
    void *u = g_idle;
    if (u) {
        memcpy(&g_idle, u, sizeof(void *));
        g_nidle--;
    }
    return u;
}

static void push_idle(void *u)
{
    memcpy(u, &g_idle, sizeof(void *));
    g_idle = u;
    g_nidle++;
}

int smk_stage_acquire(smk_stage_set *set, int want)
{
    int i;
    memset(set, 0, sizeof *set);
    pthread_once(&g_atfork_once, register_atfork);
    want = want < 1 ? 1 : want > SMK_STAGE_SET_MAX ? SMK_STAGE_SET_MAX : want;
    pthread_mutex_lock(&g_stage_lock);
    /* Idle units first, new ones while in-use + want stays within the cap; else wait for units to come
     * back.  Only units in use can come back, and want <= cap, so with none in use this never waits. */
    for (;;) {
        if ((size_t)want > g_cap)
            want = (int)g_cap;
        if (want == 0 || g_inuse == 0 || g_inuse + (size_t)want <= g_cap)
            break;
        pthread_cond_wait(&g_stage_cv, &g_stage_lock);
    }
    for (i = 0; i < want; i++) {
        void *u = pop_idle();
        if (!u) {
            if (cudaHostAlloc(&u, SMK_STAGE_UNIT_BYTES, cudaHostAllocPortable) != cudaSuccess) {
                (void)cudaGetLastError(); /* no pinned memory to be had: the caller stays pageable */
                break;
            }
            g_held++;
        }
        set->unit[set->n++] = u;
    }
    if (set->n < want) { /* all or nothing */
        while (set->n > 0)
            push_idle(set->unit[--set->n]);
    }
    g_inuse += (size_t)set->n;
    if (g_held > g_peak)
        g_peak = g_held;
    pthread_mutex_unlock(&g_stage_lock);
    return set->n;
}

void smk_stage_release(smk_stage_set *set)
{
    void *excess[SMK_STAGE_SET_MAX];
    int nx = 0, u;
    for (u = 0; u < set->n_ev; u++) { /* no DMA may use a unit once it is back in the pool */
        if (set->pending[u] && cudaEventSynchronize(set->ev[u]) != cudaSuccess)
            (void)cudaGetLastError();
        (void)cudaEventDestroy(set->ev[u]);
    }
    set->n_ev = 0;
    if (set->n == 0)
        return;
    pthread_mutex_lock(&g_stage_lock);
    g_inuse -= (size_t)set->n;
    while (set->n > 0) {
        void *unit = set->unit[--set->n];
        if (g_held > g_cap) { /* the cap was lowered meanwhile */
            excess[nx++] = unit;
            g_held--;
        } else {
            push_idle(unit);
        }
    }
    pthread_cond_broadcast(&g_stage_cv);
    pthread_mutex_unlock(&g_stage_lock);
    while (nx > 0)
        (void)cudaFreeHost(excess[--nx]);
}

void smk_stage_trim(void)
{
    void *list;
    pthread_mutex_lock(&g_stage_lock);
    list = g_idle;
    g_held -= g_nidle;
    g_idle = NULL;
    g_nidle = 0;
    pthread_mutex_unlock(&g_stage_lock);
    while (list) {
        void *next;
        memcpy(&next, list, sizeof(void *));
        if (cudaFreeHost(list) != cudaSuccess)
            (void)cudaGetLastError();
        list = next;
    }
}

void smk_stage_set_cap(size_t bytes)
{
    pthread_mutex_lock(&g_stage_lock);
    g_cap = bytes / SMK_STAGE_UNIT_BYTES;
    pthread_cond_broadcast(&g_stage_cv);
    pthread_mutex_unlock(&g_stage_lock);
    smk_stage_trim(); /* idle units above the new cap go now; units in use when they come back */
}

void smk_stage_info(size_t *held, size_t *in_use, size_t *cap, size_t *peak)
{
    pthread_mutex_lock(&g_stage_lock);
    *held = g_held * SMK_STAGE_UNIT_BYTES;
    *in_use = g_inuse * SMK_STAGE_UNIT_BYTES;
    *cap = g_cap * SMK_STAGE_UNIT_BYTES;
    *peak = g_peak * SMK_STAGE_UNIT_BYTES;
    pthread_mutex_unlock(&g_stage_lock);
}

/* ---- staged copies -------------------------------------------------------------------------- */

/* The transfer in pieces that fit a unit: rows [r0, r0 + nr) x bytes [off, off + len) of each row,
 * packed in the unit with pitch len.  Rows are grouped when a row fits a piece, else split. */
typedef struct {
    size_t width, rows, piece;    /* piece: bytes per unit this transfer uses */
    size_t per_row, rows_per;     /* pieces per row (split rows) / rows per piece (grouped rows) */
    size_t count;
} plan;

typedef struct {
    size_t r0, nr, off, len;
} piece;

static plan make_plan(size_t width, size_t rows)
{
    const size_t total = width * rows, min_piece = (size_t)256 << 10;
    plan pl;
    size_t b = total >= 4 * SMK_STAGE_UNIT_BYTES ? SMK_STAGE_UNIT_BYTES : (total + 3) / 4;
    b = b < min_piece ? min_piece : b > SMK_STAGE_UNIT_BYTES ? SMK_STAGE_UNIT_BYTES : b;
    pl.width = width, pl.rows = rows, pl.piece = b;
    if (width <= b) {
        pl.rows_per = b / width, pl.per_row = 0;
        pl.count = (rows + pl.rows_per - 1) / pl.rows_per;
    } else {
        pl.per_row = (width + b - 1) / b, pl.rows_per = 0;
        pl.count = rows * pl.per_row;
    }
    return pl;
}

static piece piece_of(const plan *pl, size_t k)
{
    piece p;
    if (pl->rows_per) {
        p.r0 = k * pl->rows_per, p.off = 0, p.len = pl->width;
        p.nr = pl->rows - p.r0 < pl->rows_per ? pl->rows - p.r0 : pl->rows_per;
    } else {
        p.r0 = k / pl->per_row, p.nr = 1, p.off = (k % pl->per_row) * pl->piece;
        p.len = pl->width - p.off < pl->piece ? pl->width - p.off : pl->piece;
    }
    return p;
}

/* One piece's host copy, split into tasks: by rows when it has several, else by bytes. */
typedef struct {
    char *host;
    size_t hpitch;
    char *unit;
    piece p;
    size_t tasks;
    int to_unit;
} host_copy;

static void host_copy_task(void *ctx, size_t t)
{
    const host_copy *c = (const host_copy *)ctx;
    const piece *p = &c->p;
    size_t r, a, b;
    if (p->nr > 1) {
        a = p->nr * t / c->tasks, b = p->nr * (t + 1) / c->tasks;
        for (r = a; r < b; r++) {
            char *h = c->host + (p->r0 + r) * c->hpitch + p->off, *u = c->unit + r * p->len;
            if (c->to_unit)
                memcpy(u, h, p->len);
            else
                memcpy(h, u, p->len);
        }
    } else {
        a = p->len * t / c->tasks, b = p->len * (t + 1) / c->tasks;
        if (c->to_unit)
            memcpy(c->unit + a, c->host + p->r0 * c->hpitch + p->off + a, b - a);
        else
            memcpy(c->host + p->r0 * c->hpitch + p->off + a, c->unit + a, b - a);
    }
}

static void host_copy_piece(char *host, size_t hpitch, void *unit, piece p, int to_unit)
{
    const size_t bytes = p.nr * p.len, grain = (size_t)256 << 10;
    size_t tasks = bytes / grain, threads = (size_t)smk_par_threads();
    host_copy c;
    tasks = tasks < 1 ? 1 : tasks > threads ? threads : tasks;
    if (p.nr > 1 && tasks > p.nr)
        tasks = p.nr;
    c.host = host, c.hpitch = hpitch, c.unit = (char *)unit, c.p = p, c.tasks = tasks, c.to_unit = to_unit;
    smk_par_for(tasks, host_copy_task, &c);
}

/* The set's events, made on its first copy. */
static smk_status set_events(smk_stage_set *set)
{
    while (set->n_ev < set->n) {
        cudaError_t e = cudaEventCreateWithFlags(&set->ev[set->n_ev], cudaEventDisableTiming);
        if (e != cudaSuccess)
            return smk_rt_fail(e, "creating a staging event");
        set->pending[set->n_ev++] = 0;
    }
    return smk_ok();
}

/* Wait until no DMA uses unit u. */
static cudaError_t unit_free(smk_stage_set *set, int u)
{
    cudaError_t e = set->pending[u] ? cudaEventSynchronize(set->ev[u]) : cudaSuccess;
    if (e == cudaSuccess)
        set->pending[u] = 0;
    return e;
}

static cudaError_t unit_used(smk_stage_set *set, int u, cudaStream_t stream)
{
    cudaError_t e = cudaEventRecord(set->ev[u], stream);
    set->pending[u] = 1; /* even on failure: release then waits on what was recorded before */
    return e;
}

static smk_status check_set(smk_stage_set *set)
{
    if (set->n < 1 || set->n > SMK_STAGE_SET_MAX)
        return smk_rt_fail(cudaErrorInvalidValue, "staging without staging units");
    return set_events(set);
}

smk_status smk_stage_h2d(smk_stage_set *set, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t rows, cudaStream_t stream)
{
    const plan pl = make_plan(width, rows);
    cudaError_t e = cudaSuccess;
    smk_status s;
    size_t k;
    if (width == 0 || rows == 0)
        return smk_ok();
    if ((s = check_set(set)).code != SMK_OK)
        return s;
    for (k = 0; k < pl.count && e == cudaSuccess; k++) {
        const piece p = piece_of(&pl, k);
        const int u = set->next;
        set->next = (u + 1) % set->n;
        if ((e = unit_free(set, u)) != cudaSuccess)
            break;
        host_copy_piece((char *)src, spitch, set->unit[u], p, 1);
        e = cudaMemcpy2DAsync((char *)dst + p.r0 * dpitch + p.off, dpitch, set->unit[u], p.len, p.len, p.nr,
                              cudaMemcpyHostToDevice, stream);
        if (e == cudaSuccess)
            e = unit_used(set, u, stream);
    }
    return e == cudaSuccess ? smk_ok() : smk_rt_fail(e, "copying host to device through the staging units");
}

/* Piece k of a download into unit u (ordered after any earlier DMA of u: one stream). */
static cudaError_t enqueue_d2h(smk_stage_set *set, const plan *pl, size_t k, int u, const void *src, size_t spitch,
                               cudaStream_t stream)
{
    const piece p = piece_of(pl, k);
    cudaError_t e = cudaMemcpy2DAsync(set->unit[u], p.len, (const char *)src + p.r0 * spitch + p.off, spitch, p.len,
                                      p.nr, cudaMemcpyDeviceToHost, stream);
    return e == cudaSuccess ? unit_used(set, u, stream) : e;
}

smk_status smk_stage_d2h(smk_stage_set *set, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t rows, cudaStream_t stream)
{
    const plan pl = make_plan(width, rows);
    cudaError_t e = cudaSuccess;
    smk_status s;
    size_t k, n;
    int first;
    if (width == 0 || rows == 0)
        return smk_ok();
    if ((s = check_set(set)).code != SMK_OK)
        return s;
    n = (size_t)set->n, first = set->next; /* piece k goes through unit (first + k) mod n */
    for (k = 0; k < pl.count && k < n && e == cudaSuccess; k++)
        e = enqueue_d2h(set, &pl, k, (int)((first + k) % n), src, spitch, stream);
    for (k = 0; k < pl.count && e == cudaSuccess; k++) {
        const int u = (int)((first + k) % n);
        if ((e = unit_free(set, u)) != cudaSuccess)
            break;
        host_copy_piece((char *)dst, dpitch, set->unit[u], piece_of(&pl, k), 0);
        if (k + n < pl.count)
            e = enqueue_d2h(set, &pl, k + n, u, src, spitch, stream);
    }
    set->next = (int)((first + pl.count) % n);
    return e == cudaSuccess ? smk_ok() : smk_rt_fail(e, "copying device to host through the staging units");
}
