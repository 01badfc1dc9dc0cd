/* Counters are _Atomic uint64_t bumped with relaxed ordering: a scrape may
 * see one request's count before its histogram bucket, which Prometheus
 * tolerates; the request path never waits.  Route labels are interned once
 * into a fixed table: the common case is a lock-free scan of published,
 * immutable entries; a new pattern takes a mutex once. */
#include "metrics.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define NSTATUS 600
#define NHTTP_BUCKETS 13
#define NRUN_BUCKETS 16
#define NSTATES 5

/* From 1 ms: most requests and runs take 1-30 ms, which buckets starting
 * at 5 or 50 ms could not tell apart (issue 21). */
static const double http_bounds[NHTTP_BUCKETS] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
						  0.25, 0.5, 1, 2.5, 5, 10};
static const double run_bounds[NRUN_BUCKETS] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
						0.5, 1, 2.5, 5, 10, 30, 60, 300};
static const char *const states[NSTATES] = {"SUCCEEDED", "PARTIAL", "FAILED", "SKIPPED", "CANCELLED"};
static const char *const buckets[4] = {"succeeded", "warnings", "failed", "skipped"};

struct histogram {
	_Atomic uint64_t le[NHTTP_BUCKETS > NRUN_BUCKETS ? NHTTP_BUCKETS : NRUN_BUCKETS];
	_Atomic uint64_t count;
	_Atomic uint64_t sum_us;   /* microseconds, so the sum stays an integer */
};

struct route_series {
	char method[8];
	char pattern[128];
	_Atomic uint64_t by_status[NSTATUS];
	struct histogram duration;
};

static struct route_series routes[METRICS_MAX_ROUTES];
static _Atomic int nroutes;
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;

static _Atomic uint64_t runs_by_state[NSTATES];
static struct histogram run_duration;
static _Atomic uint64_t rows_by_bucket[4];

static struct route_series *find(const char *method, const char *route, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(routes[i].pattern, route) && !strcmp(routes[i].method, method))
			return &routes[i];
	return NULL;
}

/* The method label: one of HTTP's, never what a client made up. */
static const char *method_label(const char *m)
{
	static const char *const known[] = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};
	for (size_t i = 0; m && i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(m, known[i]))
			return known[i];
	return "other";
}

static struct route_series *intern(const char *method, const char *route)
{
	struct route_series *r = find(method, route, atomic_load_explicit(&nroutes, memory_order_acquire));
	if (r)
		return r;
	pthread_mutex_lock(&intern_lock);
	int n = atomic_load_explicit(&nroutes, memory_order_relaxed);
	r = find(method, route, n);
	if (!r && n < METRICS_MAX_ROUTES - 1) {
		r = &routes[n];
		size_t len = strlen(route) < sizeof r->pattern - 1 ? strlen(route) : sizeof r->pattern - 1;
		memcpy(r->pattern, route, len);
		r->pattern[len] = '\0';
		snprintf(r->method, sizeof r->method, "%s", method);
		atomic_store_explicit(&nroutes, n + 1, memory_order_release);
	} else if (!r) {
		/* The table is full: the last slot is the shared "other". */
		r = &routes[METRICS_MAX_ROUTES - 1];
		if (!r->pattern[0]) {
			memcpy(r->pattern, "other", 6);
			memcpy(r->method, "other", 6);
		}
	}
	pthread_mutex_unlock(&intern_lock);
	return r;
}

static void observe(struct histogram *h, const double *bounds, int nb, double seconds)
{
	if (seconds < 0)
		seconds = 0;
	for (int i = 0; i < nb; i++)
		if (seconds <= bounds[i])
			atomic_fetch_add_explicit(&h->le[i], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&h->count, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&h->sum_us, (uint64_t)(seconds * 1e6), memory_order_relaxed);
}

void metrics_http(const char *method, const char *route, int status, double seconds)
{
	struct route_series *r = intern(method_label(method), route ? route : "unmatched");
	if (status < 0 || status >= NSTATUS)
		status = 0;
	atomic_fetch_add_explicit(&r->by_status[status], 1, memory_order_relaxed);
	observe(&r->duration, http_bounds, NHTTP_BUCKETS, seconds);
}

static _Atomic uint64_t long_polls[3];
static _Atomic uint64_t uploads_held;
static _Atomic uint64_t webhook_results[3];
static struct histogram webhook_duration;

void metrics_long_poll(enum long_poll_outcome o)
{
	atomic_fetch_add_explicit(&long_polls[o], 1, memory_order_relaxed);
}

void metrics_upload_held(void)
{
	atomic_fetch_add_explicit(&uploads_held, 1, memory_order_relaxed);
}

static void long_poll_series(struct buf *b, const struct metrics_gauges *g)
{
	static const char *const names[] = {"changed", "timeout", "refused"};
	buf_puts(b, "# HELP loadline_long_polls_total Long polls (GET run with Prefer: wait) answered, by why: the "
		    "run changed, the wait was over, or none could be held (LOADLINE_MAX_WAITERS).\n"
		    "# TYPE loadline_long_polls_total counter\n");
	for (int i = 0; i < 3; i++)
		buf_printf(b, "loadline_long_polls_total{outcome=\"%s\"} %llu\n", names[i],
			   (unsigned long long)atomic_load_explicit(&long_polls[i], memory_order_relaxed));
	buf_printf(b, "# HELP loadline_uploads_held_total Uploads that found every upload slot (one per core) "
		   "taken and were held, without an HTTP thread, until one freed.\n"
		   "# TYPE loadline_uploads_held_total counter\nloadline_uploads_held_total %llu\n",
		   (unsigned long long)atomic_load_explicit(&uploads_held, memory_order_relaxed));
	if (g && g->held >= 0)
		buf_printf(b, "# HELP loadline_long_polls_held Requests this process holds now without a thread: long "
			   "polls, and uploads waiting for an upload slot.\n"
			   "# TYPE loadline_long_polls_held gauge\nloadline_long_polls_held %lld\n", (long long)g->held);
}

void metrics_run(const char *state, double seconds, const int rows[4])
{
	for (int i = 0; i < NSTATES; i++)
		if (!strcmp(state, states[i]))
			atomic_fetch_add_explicit(&runs_by_state[i], 1, memory_order_relaxed);
	if (seconds >= 0)
		observe(&run_duration, run_bounds, NRUN_BUCKETS, seconds);
	for (int i = 0; rows && i < 4; i++)
		if (rows[i] > 0)
			atomic_fetch_add_explicit(&rows_by_bucket[i], (uint64_t)rows[i], memory_order_relaxed);
}

static uint64_t get(_Atomic uint64_t *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

/* Label values are route patterns and fixed names; escape \ " and newline
 * all the same, as the format requires. */
static void label(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			buf_putc(b, '\\');
		if (*s == '\n') {
			buf_puts(b, "\\n");
			continue;
		}
		buf_putc(b, *s);
	}
}

/* The labels of a histogram's lines before le: "" or `method="…",route="…",`. */
static void route_labels(struct buf *b, const struct route_series *r)
{
	if (!r)
		return;
	buf_printf(b, "method=\"%s\",route=\"", r->method);
	label(b, r->pattern);
	buf_puts(b, "\",");
}

static void histogram_lines(struct buf *b, const char *name, const struct route_series *route, struct histogram *h,
			    const double *bounds, int nb)
{
	for (int i = 0; i < nb; i++) {
		buf_printf(b, "%s_bucket{", name);
		route_labels(b, route);
		buf_printf(b, "le=\"%g\"} %llu\n", bounds[i], (unsigned long long)get(&h->le[i]));
	}
	uint64_t count = get(&h->count);
	buf_printf(b, "%s_bucket{", name);
	route_labels(b, route);
	buf_printf(b, "le=\"+Inf\"} %llu\n", (unsigned long long)count);
	/* _sum and _count: the same labels without le (and no braces without any). */
	struct buf l;
	buf_init(&l, 512);
	route_labels(&l, route);
	if (l.len)
		l.data[--l.len] = '\0';   /* the trailing comma */
	const char *labels = buf_str(&l);
	buf_printf(b, "%s_sum%s%s%s %.6f\n", name, *labels ? "{" : "", labels, *labels ? "}" : "",
		   (double)get(&h->sum_us) / 1e6);
	buf_printf(b, "%s_count%s%s%s %llu\n", name, *labels ? "{" : "", labels, *labels ? "}" : "",
		   (unsigned long long)count);
	buf_done(&l);
}

static void http_series(struct buf *b, int n)
{
	buf_puts(b, "# HELP loadline_http_requests_total HTTP requests answered, by method, route pattern and status.\n"
		    "# TYPE loadline_http_requests_total counter\n");
	for (int i = 0; i < n; i++)
		for (int s = 0; s < NSTATUS; s++) {
			uint64_t v = get(&routes[i].by_status[s]);
			if (!v)
				continue;
			buf_printf(b, "loadline_http_requests_total{method=\"%s\",route=\"", routes[i].method);
			label(b, routes[i].pattern);
			buf_printf(b, "\",status=\"%d\"} %llu\n", s, (unsigned long long)v);
		}
	buf_puts(b, "# HELP loadline_http_request_duration_seconds Time from request headers to response, by method and route.\n"
		    "# TYPE loadline_http_request_duration_seconds histogram\n");
	for (int i = 0; i < n; i++)
		histogram_lines(b, "loadline_http_request_duration_seconds", &routes[i], &routes[i].duration,
				http_bounds, NHTTP_BUCKETS);
}

void metrics_webhook(enum webhook_result r, double seconds)
{
	atomic_fetch_add_explicit(&webhook_results[r], 1, memory_order_relaxed);
	observe(&webhook_duration, http_bounds, NHTTP_BUCKETS, seconds);
}

static void webhook_series(struct buf *b, const struct metrics_gauges *g)
{
	static const char *const names[] = {"delivered", "retrying", "failed"};
	buf_puts(b, "# HELP loadline_webhook_deliveries_total Webhook delivery attempts made by this process, by result: "
		    "delivered (2xx), failed and retried later, or failed for good (its retry window is over).\n"
		    "# TYPE loadline_webhook_deliveries_total counter\n");
	for (int i = 0; i < 3; i++)
		buf_printf(b, "loadline_webhook_deliveries_total{result=\"%s\"} %llu\n", names[i],
			   (unsigned long long)get(&webhook_results[i]));
	buf_puts(b, "# HELP loadline_webhook_delivery_duration_seconds Time of a webhook delivery attempt, request "
		    "to answer or failure.\n# TYPE loadline_webhook_delivery_duration_seconds histogram\n");
	histogram_lines(b, "loadline_webhook_delivery_duration_seconds", NULL, &webhook_duration, http_bounds,
			NHTTP_BUCKETS);
	if (g && g->webhooks_pending >= 0)
		buf_printf(b, "# HELP loadline_webhook_pending Webhook deliveries waiting to be made (due now or at "
			   "a later retry), database-wide.\n# TYPE loadline_webhook_pending gauge\n"
			   "loadline_webhook_pending %lld\n", (long long)g->webhooks_pending);
}

static void run_series(struct buf *b)
{
	buf_puts(b, "# HELP loadline_import_runs_total Import runs that reached a terminal state in this process.\n"
		    "# TYPE loadline_import_runs_total counter\n");
	for (int i = 0; i < NSTATES; i++)
		buf_printf(b, "loadline_import_runs_total{state=\"%s\"} %llu\n", states[i],
			   (unsigned long long)get(&runs_by_state[i]));
	buf_puts(b, "# HELP loadline_import_run_duration_seconds Processing time of a run, claim to outcome.\n"
		    "# TYPE loadline_import_run_duration_seconds histogram\n");
	histogram_lines(b, "loadline_import_run_duration_seconds", NULL, &run_duration, run_bounds, NRUN_BUCKETS);
	buf_puts(b, "# HELP loadline_import_rows_total Rows of finished runs, by result bucket.\n"
		    "# TYPE loadline_import_rows_total counter\n");
	for (int i = 0; i < 4; i++)
		buf_printf(b, "loadline_import_rows_total{bucket=\"%s\"} %llu\n", buckets[i],
			   (unsigned long long)get(&rows_by_bucket[i]));
}

/* ---- the standard process series (Prometheus client conventions) ---- */

/* Descriptors open now: the entries of /proc/self/fd, less the one
 * opendir itself holds; -1 when it cannot be read. */
static long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	long n = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;
}

/* From /proc/self/stat: virtual size and resident pages, and the start
 * time in clock ticks after boot.  false when it cannot be read. */
static bool proc_stat(unsigned long long *vsize, long long *rss_pages, unsigned long long *start_ticks)
{
	FILE *f = fopen("/proc/self/stat", "re");
	if (!f)
		return false;
	char line[1024];
	bool ok = fgets(line, sizeof line, f) != NULL;
	fclose(f);
	/* The command name (field 2) may hold spaces and parentheses: the
	 * fields after it start past its last ')'. */
	const char *p = ok ? strrchr(line, ')') : NULL;
	/* Fields 3.. : state, then 19 numbers up to starttime (22), vsize (23), rss (24). */
	return p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d "
			   "%llu %llu %lld", start_ticks, vsize, rss_pages) == 3;
}

/* The wall-clock time the process started: its start in /proc/self/stat
 * is counted on the boot-time clock, which the process can read itself
 * (/proc/stat's btime is hidden from the packaged units, ProcSubset=pid). */
static double start_time(unsigned long long start_ticks)
{
	struct timespec boot, real;
	long hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) || clock_gettime(CLOCK_REALTIME, &real))
		return -1;
	double since_start = (double)boot.tv_sec + boot.tv_nsec / 1e9 - (double)start_ticks / (double)hz;
	return (double)real.tv_sec + real.tv_nsec / 1e9 - since_start;
}

static void gauge(struct buf *b, const char *name, const char *type, const char *help, double v)
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n", name, help, name, type, name, v);
}

static void process_series(struct buf *b)
{
	struct rusage ru;
	if (!getrusage(RUSAGE_SELF, &ru))
		gauge(b, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
		      (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			      (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	unsigned long long vsize, start;
	long long rss;
	if (proc_stat(&vsize, &rss, &start)) {
		gauge(b, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
		      (double)rss * (double)sysconf(_SC_PAGESIZE));
		gauge(b, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", (double)vsize);
		double t = start_time(start);
		if (t > 0)
			gauge(b, "process_start_time_seconds", "gauge",
			      "Start time of the process since unix epoch in seconds.", t);
	}
	long fds = open_fds();
	if (fds >= 0)
		gauge(b, "process_open_fds", "gauge", "Number of open file descriptors.", (double)fds);
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		gauge(b, "process_max_fds", "gauge", "Maximum number of open file descriptors.", (double)rl.rlim_cur);
}

int metrics_render(struct buf *b, const struct metrics_gauges *g, const char *version)
{
	int n = atomic_load_explicit(&nroutes, memory_order_acquire);
	/* The shared "other" slot is in use only once the table is full. */
	http_series(b, routes[METRICS_MAX_ROUTES - 1].pattern[0] ? METRICS_MAX_ROUTES : n);
	run_series(b);
	if (g && g->queue_depth >= 0)
		buf_printf(b, "# HELP loadline_import_queue_depth Runs waiting for a worker (QUEUED, not staged).\n"
			   "# TYPE loadline_import_queue_depth gauge\nloadline_import_queue_depth %lld\n",
			   (long long)g->queue_depth);
	if (g && g->awaiting_review >= 0)
		buf_printf(b, "# HELP loadline_import_runs_awaiting_review Runs staged for mapping review (QUEUED, "
			   "staged), database-wide.\n# TYPE loadline_import_runs_awaiting_review gauge\n"
			   "loadline_import_runs_awaiting_review %lld\n", (long long)g->awaiting_review);
	if (g && g->outbox_pending >= 0)
		buf_printf(b, "# HELP loadline_outbox_pending Mails in the outbox not yet delivered.\n"
			   "# TYPE loadline_outbox_pending gauge\nloadline_outbox_pending %lld\n",
			   (long long)g->outbox_pending);
	long_poll_series(b, g);
	webhook_series(b, g);
	process_series(b);
	buf_puts(b, "# HELP loadline_build_info The running build.\n# TYPE loadline_build_info gauge\n"
		    "loadline_build_info{version=\"");
	label(b, version);
	return buf_puts(b, "\"} 1\n");
}

void metrics_reset(void)
{
	pthread_mutex_lock(&intern_lock);
	memset(routes, 0, sizeof routes);
	atomic_store(&nroutes, 0);
	memset(runs_by_state, 0, sizeof runs_by_state);
	memset(&run_duration, 0, sizeof run_duration);
	memset(rows_by_bucket, 0, sizeof rows_by_bucket);
	memset(long_polls, 0, sizeof long_polls);
	atomic_store(&uploads_held, 0);
	memset(webhook_results, 0, sizeof webhook_results);
	memset(&webhook_duration, 0, sizeof webhook_duration);
	pthread_mutex_unlock(&intern_lock);
}
