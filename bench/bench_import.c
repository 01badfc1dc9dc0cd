/* Import benchmark (issue 4): POST /api/v1/imports/jobs of a 750-row file
 * until its run is terminal, against the real server running in this
 * process (HTTP threads, one worker, the store), compared with a floor
 * measured in the same run on the same database: the same 30 projects and
 * 750 loads inserted raw in one transaction (bench/bench_floor.c).
 *
 *   bench_import URL...      sqlite:/path/x.db or postgres://...
 *   bench_import             SQLite in a temp dir, then PostgreSQL in a
 *                            throwaway cluster when initdb is installed
 *
 * Results: docs/benchmarks.md, "Import runs (POST → terminal)". */
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <expat.h>
#include <libdeflate.h>
#include <libxml/parser.h>
#include <xlsxwriter.h>
#include <zip.h>

#include "api/api.h"
#include "app/app.h"
#include "base/buf.h"
#include "base/config.h"
#include "base/ids.h"
#include "geo/geocoder.h"
#include "sheet/sheet.h"
#include "front/front.h"
#include "http/http.h"
#include "http/ratelimit.h"
#include "import/worker.h"
#include "bench_floor.h"
#include "store/reference.h"
#include "store/settings.h"
#include "store/store.h"

#define REPS 7            /* measured repetitions, after one warm-up */
#define JOBS 40
#define ROWS 750
#define SITES 60
#define NCOLS 18
#define POLL_NS 1000000L  /* 1 ms between GETs of the run: finer would be the polls measuring themselves */
#define NCUSTOMERS 5

static FILE *out;          /* the bench's own messages (stderr is the server log) */
static char log_path[256];

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double s[REPS];
	memcpy(s, v, sizeof(double) * (size_t)n);
	qsort(s, (size_t)n, sizeof s[0], cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double minimum(const double *v, int n)
{
	double m = v[0];
	for (int i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

static double cpu_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- The throwaway PostgreSQL cluster ---- */

struct cluster {
	char dir[64];          /* owned by postgres when we are root */
	char data[96];
	char pg_ctl[512];
	int port;
	bool running;
};

static struct cluster pg;
/* Prebuilt for the signal handler, which may only fork and exec. */
static char *stop_argv[16];
static char *rm_argv[] = {"/bin/rm", "-rf", pg.dir, NULL};

static const char *pg_bin(void)
{
	const char *b = getenv("LOADLINE_PG_BIN");
	return b && *b ? b : "/usr/lib/postgresql/15/bin";
}

/* argv[0] is an absolute path.  Runs it (as postgres when we are root, since
 * initdb and postgres refuse root) with its output appended to logfile;
 * returns the exit status, or -1. */
static int run_pg(char *const argv[], const char *logfile)
{
	char *full[24];
	int n = 0;
	if (geteuid() == 0) {
		full[n++] = access("/usr/sbin/runuser", X_OK) == 0 ? "/usr/sbin/runuser" : "/sbin/runuser";
		full[n++] = "-u";
		full[n++] = "postgres";
		full[n++] = "--";
	}
	for (int i = 0; argv[i] && n < 23; i++)
		full[n++] = argv[i];
	full[n] = NULL;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(logfile, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(full[0], full);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void spawn_wait(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void on_signal(int sig)
{
	if (pg.running) {
		spawn_wait(stop_argv);
		spawn_wait(rm_argv);
	}
	_exit(128 + sig);
}

static int free_port(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || getsockname(s, (struct sockaddr *)&a, &len)) {
		if (s >= 0)
			close(s);
		return -1;
	}
	close(s);
	return ntohs(a.sin_port);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Starts a cluster with the server's default durability settings (fsync and
 * synchronous_commit on), listening on 127.0.0.1 only, trust auth.  Extra
 * server options may come from LOADLINE_BENCH_PG_OPTS.  Returns 0 with the
 * URL in url, or -1 (nothing left running). */
static int cluster_start(char *url, size_t urllen)
{
	char initdb[512], log[160], pglog[160], opts[512];
	snprintf(initdb, sizeof initdb, "%s/initdb", pg_bin());
	snprintf(pg.pg_ctl, sizeof pg.pg_ctl, "%s/pg_ctl", pg_bin());
	snprintf(pg.dir, sizeof pg.dir, "/tmp/ll-bench-pg-XXXXXX");
	if (!mkdtemp(pg.dir))
		return -1;
	if (geteuid() == 0) {
		struct passwd *pw = getpwnam("postgres");
		if (!pw || chown(pg.dir, pw->pw_uid, pw->pw_gid)) {
			fprintf(out, "bench_import: no postgres user to run the cluster as; PostgreSQL skipped\n");
			rm_tree(pg.dir);
			return -1;
		}
	}
	chmod(pg.dir, 0700);
	snprintf(pg.data, sizeof pg.data, "%s/data", pg.dir);
	snprintf(log, sizeof log, "%s/setup.log", pg.dir);
	snprintf(pglog, sizeof pglog, "%s/postgres.log", pg.dir);
	if ((pg.port = free_port()) < 0) {
		rm_tree(pg.dir);
		return -1;
	}
	const char *extra = getenv("LOADLINE_BENCH_PG_OPTS");
	snprintf(opts, sizeof opts, "-c listen_addresses=127.0.0.1 -p %d -k %s%s%s", pg.port, pg.dir,
		 extra ? " " : "", extra ? extra : "");
	char *init_argv[] = {initdb, "-D", pg.data, "-U", "postgres", "-A", "trust", "-E", "UTF8",
			     "--locale=C", "--no-sync", NULL};
	if (run_pg(init_argv, log)) {
		fprintf(out, "bench_import: initdb failed, see %s\n", log);
		*pg.dir = 0;   /* keep the logs */
		return -1;
	}
	int n = 0;
	if (geteuid() == 0) {
		stop_argv[n++] = access("/usr/sbin/runuser", X_OK) == 0 ? "/usr/sbin/runuser" : "/sbin/runuser";
		stop_argv[n++] = "-u";
		stop_argv[n++] = "postgres";
		stop_argv[n++] = "--";
	}
	char *stop_tail[] = {pg.pg_ctl, "-D", pg.data, "-m", "immediate", "-w", "stop", NULL};
	memcpy(stop_argv + n, stop_tail, sizeof stop_tail);
	char *start_argv[] = {pg.pg_ctl, "-D", pg.data, "-l", pglog, "-w", "-t", "60", "-o", opts, "start", NULL};
	pg.running = true;   /* from here a signal stops it */
	if (run_pg(start_argv, log)) {
		pg.running = false;
		fprintf(out, "bench_import: the cluster did not start, see %s and %s\n", log, pglog);
		spawn_wait(stop_argv);
		*pg.dir = 0;   /* keep the logs */
		return -1;
	}
	snprintf(url, urllen, "postgres://postgres@127.0.0.1:%d/postgres", pg.port);
	return 0;
}

/* CPU time (ms) used so far by the cluster's postmaster and its children
 * (the backends serving our pool), from /proc/PID/schedstat; -1 when the
 * cluster is not ours or /proc cannot say. */
static double pg_cpu_ms(void)
{
	if (!pg.running)
		return -1;
	char path[160], line[512];
	snprintf(path, sizeof path, "%s/postmaster.pid", pg.data);
	FILE *f = fopen(path, "r");
	long master = -1;
	if (f) {
		if (fgets(line, sizeof line, f))
			master = strtol(line, NULL, 10);
		fclose(f);
	}
	if (master <= 0)
		return -1;
	DIR *d = opendir("/proc");
	if (!d)
		return -1;
	double total = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		if (!(f = fopen(path, "r")))
			continue;
		size_t n = fread(line, 1, sizeof line - 1, f);
		fclose(f);
		line[n] = 0;
		const char *p = strrchr(line, ')');
		long ppid = p ? strtol(p + 3, NULL, 10) : -1;   /* ") S PPID" */
		if (pid != master && ppid != master)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/schedstat", pid);
		if (!(f = fopen(path, "r")))
			continue;
		unsigned long long ns = 0;
		if (fscanf(f, "%llu", &ns) == 1)
			total += (double)ns / 1e6;
		fclose(f);
	}
	closedir(d);
	return total;
}

static void cluster_stop(void)
{
	if (pg.running) {
		char log[160];
		snprintf(log, sizeof log, "%s/setup.log", pg.dir);
		char *argv[] = {pg.pg_ctl, "-D", pg.data, "-m", "fast", "-w", "-t", "60", "stop", NULL};
		if (run_pg(argv, log))
			spawn_wait(stop_argv);
		pg.running = false;
	}
	if (*pg.dir)
		rm_tree(pg.dir);
	*pg.dir = 0;
}

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("bench_import: ", out);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	va_end(ap);
	cluster_stop();
	exit(1);
}

/* ---- The file ---- */

static const char *const customers[NCUSTOMERS] = {
	"Acme Aggregates", "Bexar County Public Works", "Lone Star Paving", "Hill Country Homes", "Travis Civil",
};

/* As messy as real files (issue 11): 40 job codes, a named pickup and a
 * named dropoff on every row (60 sites, repeating), weights in tons, lb,
 * lbs and kg, rates like $1,527.51, M/D/YYYY dates, and customers the
 * organization does not have (a LOOKUP_MISS on every row). */
static const char *const headers[NCOLS] = {
	"jobCode", "loadNo", "loadDate", "projectName", "customer", "material", "ticketNo", "weight", "rate", "notes",
	"pickupName", "pickupStreet", "pickupCity", "pickupZip", "dropoffName", "dropoffStreet", "dropoffCity",
	"dropoffZip",
};

struct city {
	const char *name, *zip;
};

static const struct city cities[] = {
	{"Austin", "78701"}, {"Austin", "78741"}, {"Georgetown", "78626"}, {"Round Rock", "78664"},
	{"Marble Falls", "78654"}, {"Pflugerville", "78660"}, {"Cedar Park", "78613"}, {"Kyle", "78640"},
	{"San Marcos", "78666"}, {"Leander", "78641"},
};

static const char *const materials[] = {"Crushed limestone", "Base #2", "Washed sand", "Rip rap",
					"Asphalt millings", "Topsoil"};
static const char *const site_kinds[] = {"Quarry", "Pit", "Yard", "Plant", "Job Site", "Batch Plant"};

/* The file as a table of strings (header first); cells[r][c], owned by a. */
struct table {
	const char *cells[ROWS + 1][NCOLS];
	int month[ROWS + 1], day[ROWS + 1];   /* loadDate, for XLSX date cells */
};

static char *cellf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A formatted cell (malloc'ed). */
static char *cellf(const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	return strdup(tmp);
}

static void site(int k, char *name, size_t nn, char *street, size_t sn, const struct city **city)
{
	snprintf(name, nn, "%s %02d", site_kinds[k % 6], k);
	snprintf(street, sn, "%d %s Rd", 100 + k * 7, k % 2 ? "Quarry" : "Ranch");
	*city = &cities[k % 10];
}

static void make_table(struct table *t, const char *salt)
{
	for (int c = 0; c < NCOLS; c++)
		t->cells[0][c] = strdup(headers[c]);
	for (int i = 0; i < ROWS; i++) {
		const char **r = t->cells[i + 1];
		int j = i % JOBS, p = (i * 7) % SITES, d = (i * 11 + 3) % SITES;
		t->month[i + 1] = 1 + (i + j) % 12;
		t->day[i + 1] = 1 + (i * 7) % 28;
		char name[64], street[64];
		const struct city *cy;
		r[0] = cellf("J-%04d", 2400 + j);
		r[1] = cellf("%d", i / JOBS + 1);
		r[2] = cellf("%d/%d/2026", t->month[i + 1], t->day[i + 1]);
		r[3] = cellf("Cedar Park Phase %d", j + 1);
		r[4] = cellf("Unknown Hauling %d", i % 7);
		r[5] = strdup(materials[(i + j) % 6]);
		r[6] = cellf("%d", 3100000 + i);
		int u = i % 4;
		int w = 20 + i % 20, f = (i * 37) % 1000;
		r[7] = u == 0 ? cellf("%d.%d tons", 18 + i % 7, i % 10) : u == 1 ? cellf("%d,%03d lb", w, f)
		       : u == 2 ? cellf("%d%03d lbs", w, f) : cellf("%d,%03d kg", w / 2, f);
		r[8] = cellf("$1,%03d.%02d", (i * 13) % 1000, (i * 51) % 100);
		r[9] = cellf("Gate code %d, call dispatch 30 min out (%s)", 1000 + i % 9000, salt);
		site(p, name, sizeof name, street, sizeof street, &cy);
		r[10] = strdup(name), r[11] = strdup(street), r[12] = strdup(cy->name), r[13] = strdup(cy->zip);
		site(d, name, sizeof name, street, sizeof street, &cy);
		r[14] = strdup(name), r[15] = strdup(street), r[16] = strdup(cy->name), r[17] = strdup(cy->zip);
	}
}

static void free_table(struct table *t)
{
	for (int i = 0; i <= ROWS; i++)
		for (int c = 0; c < NCOLS; c++)
			free((void *)t->cells[i][c]);
}

static void make_csv(struct buf *b, const struct table *t)
{
	buf_clear(b);
	for (int i = 0; i <= ROWS; i++) {
		for (int c = 0; c < NCOLS; c++) {
			const char *v = t->cells[i][c];
			if (c)
				buf_putc(b, ',');
			if (strpbrk(v, ",\""))
				buf_printf(b, "\"%s\"", v);
			else
				buf_puts(b, v);
		}
		buf_puts(b, "\r\n");
	}
}

/* The same table as Excel would save it (libxlsxwriter: shared strings,
 * styles, dates as date cells, ticket numbers as numbers), into b. */
static void make_xlsx(struct buf *b, const struct table *t)
{
	char path[] = "/tmp/bench-import-XXXXXX.xlsx";
	int fd = mkstemps(path, 5);
	if (fd < 0)
		die("mkstemps: %s", strerror(errno));
	close(fd);
	lxw_workbook *wb = workbook_new(path);
	lxw_worksheet *ws = wb ? workbook_add_worksheet(wb, "Loads") : NULL;
	if (!ws)
		die("libxlsxwriter cannot write %s", path);
	lxw_format *date = workbook_add_format(wb);
	format_set_num_format(date, "m/d/yyyy");
	for (int i = 0; i <= ROWS; i++)
		for (int c = 0; c < NCOLS; c++) {
			if (i && c == 2) {
				lxw_datetime dt = {.year = 2026, .month = t->month[i], .day = t->day[i]};
				worksheet_write_datetime(ws, (lxw_row_t)i, (lxw_col_t)c, &dt, date);
			} else if (i && c == 6) {
				worksheet_write_number(ws, (lxw_row_t)i, (lxw_col_t)c, strtod(t->cells[i][c], NULL), NULL);
			} else {
				worksheet_write_string(ws, (lxw_row_t)i, (lxw_col_t)c, t->cells[i][c], NULL);
			}
		}
	if (workbook_close(wb) != LXW_NO_ERROR)
		die("libxlsxwriter could not finish %s", path);
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t n;
	buf_clear(b);
	while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(b, chunk, n);
	if (f)
		fclose(f);
	unlink(path);
}

/* ---- HTTP ---- */

struct client {
	CURL *curl;
	struct curl_slist *hdrs;
	struct buf body;
	char base[64];
};

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
	struct buf *b = ctx;
	return buf_append(b, p, size * n) ? 0 : size * n;
}

static void client_init(struct client *c, int port)
{
	c->curl = curl_easy_init();
	if (!c->curl)
		die("curl_easy_init failed");
	buf_init(&c->body, 16u << 20);
	snprintf(c->base, sizeof c->base, "http://127.0.0.1:%d", port);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &c->body);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
}

static void client_token(struct client *c, const char *token)
{
	char h[128];
	snprintf(h, sizeof h, "Authorization: Bearer %s", token);
	curl_slist_free_all(c->hdrs);
	c->hdrs = curl_slist_append(NULL, h);
	c->hdrs = curl_slist_append(c->hdrs, "Expect:");
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, c->hdrs);
}

static void client_done(struct client *c)
{
	curl_slist_free_all(c->hdrs);
	curl_easy_cleanup(c->curl);
	buf_done(&c->body);
}

/* Sends the request set up on c; returns the status and the parsed body. */
static long perform(struct client *c, json_t **ret)
{
	buf_clear(&c->body);
	CURLcode rc = curl_easy_perform(c->curl);
	if (rc != CURLE_OK)
		die("request failed: %s", curl_easy_strerror(rc));
	long status = 0;
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	*ret = json_loadb(buf_str(&c->body), c->body.len, 0, NULL);
	if (!*ret)
		die("HTTP %ld without a JSON body: %.200s", status, buf_str(&c->body));
	return status;
}

/* POST the file; returns the run id in id. */
static void post_file(struct client *c, const char *data, size_t len, bool xlsx, char id[ID_MAX])
{
	char url[128];
	snprintf(url, sizeof url, "%s/api/v1/imports/jobs", c->base);
	curl_mime *mime = curl_mime_init(c->curl);
	curl_mimepart *part = curl_mime_addpart(mime);
	curl_mime_name(part, "file");
	curl_mime_filename(part, xlsx ? "loads.xlsx" : "loads.csv");
	curl_mime_type(part, xlsx ? "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" : "text/csv");
	curl_mime_data(part, data, len);
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_MIMEPOST, mime);
	json_t *j;
	long status = perform(c, &j);
	curl_easy_setopt(c->curl, CURLOPT_MIMEPOST, NULL);
	curl_mime_free(mime);
	const char *s = json_string_value(json_object_get(j, "id"));
	if (status != 202 || !s)
		die("POST answered %ld: %.300s", status, buf_str(&c->body));
	snprintf(id, ID_MAX, "%s", s);
	json_decref(j);
}

struct outcome {
	char state[16];
	int succeeded, warnings, failed, skipped;
};

static bool terminal(const char *s)
{
	return !strcmp(s, "SUCCEEDED") || !strcmp(s, "PARTIAL") || !strcmp(s, "SKIPPED") || !strcmp(s, "FAILED") ||
	       !strcmp(s, "CANCELLED");
}

/* GETs the run every POLL_NS until it is terminal. */
static void poll_run(struct client *c, const char *id, struct outcome *ret)
{
	char url[160];
	snprintf(url, sizeof url, "%s/api/v1/imports/runs/%s", c->base, id);
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
	double give_up = mono() + 300e3;
	for (;;) {
		nanosleep(&(struct timespec){.tv_nsec = POLL_NS}, NULL);
		json_t *j;
		long status = perform(c, &j);
		const char *s = json_string_value(json_object_get(j, "state"));
		if (status != 200 || !s)
			die("GET run answered %ld: %.300s", status, buf_str(&c->body));
		if (terminal(s)) {
			json_t *n = json_object_get(j, "counts");
			snprintf(ret->state, sizeof ret->state, "%s", s);
			ret->succeeded = (int)json_integer_value(json_object_get(n, "succeeded"));
			ret->warnings = (int)json_integer_value(json_object_get(n, "warnings"));
			ret->failed = (int)json_integer_value(json_object_get(n, "failed"));
			ret->skipped = (int)json_integer_value(json_object_get(n, "skipped"));
			json_decref(j);
			return;
		}
		json_decref(j);
		if (mono() > give_up)
			die("run %s still %s after 300 s", id, s);
	}
}

/* The "txnMs" of the worker's "run finished" line for run id (the time from
 * the start of the write transaction to its commit), or -1. */
static double commit_ms_once(const char *id)
{
	FILE *f = fopen(log_path, "r");
	if (!f)
		return -1;
	char line[4096];
	double ms = -1;
	while (fgets(line, sizeof line, f)) {
		if (!strstr(line, "\"run finished\"") || !strstr(line, id))
			continue;
		json_t *j = json_loads(line, 0, NULL);
		ms = json_number_value(json_object_get(j, "txnMs"));
		json_decref(j);
	}
	fclose(f);
	return ms;
}

/* The worker logs just after its commit, which the client may see first. */
static double commit_ms(const char *id)
{
	for (int i = 0; i < 200; i++) {
		double ms = commit_ms_once(id);
		if (ms >= 0)
			return ms;
		nanosleep(&(struct timespec){.tv_nsec = 5000000L}, NULL);
	}
	return -1;
}

/* ---- One backend ---- */

/* Wall time and CPU time of one measured step.  CPU is the server's work:
 * this process's threads (minus the client's, when the client is not the
 * one doing the work) plus the PostgreSQL backends when the cluster is ours. */
struct meter {
	double wall, proc, thread, pg;
};

static void meter_start(struct meter *m)
{
	m->pg = pg_cpu_ms();
	m->thread = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
	m->proc = cpu_ms(CLOCK_PROCESS_CPUTIME_ID);
	m->wall = mono();
}

static double last_pg_cpu;   /* the PostgreSQL part of the last meter_stop's CPU */

static void meter_stop(const struct meter *m, bool client_is_work, double *ret_wall, double *ret_cpu)
{
	*ret_wall = mono() - m->wall;
	double proc = cpu_ms(CLOCK_PROCESS_CPUTIME_ID) - m->proc;
	double thread = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - m->thread;
	double pgc = m->pg >= 0 ? pg_cpu_ms() - m->pg : 0;
	*ret_cpu = (client_is_work ? proc : proc - thread) + pgc;
	last_pg_cpu = pgc;
}

struct result {
	double floor[REPS], import[REPS], repush[REPS], commit[REPS], noop[REPS], setfloor[REPS];
	double reqfloor[REPS];   /* informative (SQLite): the records plus the run, its upload and results */
	bool has_reqfloor;
	bool has_setfloor;
	double ximport[REPS], xrepush[REPS], xcommit[REPS];
	double floor_cpu[REPS], import_cpu[REPS], repush_cpu[REPS];
	double floor_pg[REPS], import_pg[REPS];   /* of which PostgreSQL backends */
	struct outcome first, again, xfirst, xagain;
	bool pg_cpu;
};

/* A fresh organization with its customers and a token. */
static void new_org(struct store *st, int rep, char org_id[ID_MAX], char token[TOKEN_LEN + 1])
{
	char name[64];
	struct org o;
	struct api_key k;
	snprintf(name, sizeof name, "Bench org %d", rep);
	if (store_org_create(st, name, &o) || store_key_create(st, o.id, "bench", token, &k))
		die("cannot create the organization");
	for (int i = 0; i < NCUSTOMERS; i++) {
		char cid[ID_MAX], dup[ID_MAX];
		if (store_ref_create(st, REF_CUSTOMER, o.id, customers[i], cid, dup))
			die("cannot add a customer");
	}
	snprintf(org_id, ID_MAX, "%s", o.id);
}

/* The floor of everything a CSV import committed, with the stored upload's
 * size and the result sizes of run_id, in an organization of its own; its
 * wall ms. */
static double required_writes_ms(struct store *st, const char *run_id, int rep)
{
	struct bench_result_size *sizes;
	int nsizes;
	size_t file_len;
	if (store_bench_result_sizes(st, run_id, &sizes, &nsizes) || store_bench_upload_size(st, run_id, &file_len))
		die("cannot read the results' and the upload's sizes");
	char org_id[ID_MAX], token[TOKEN_LEN + 1];
	new_org(st, rep * 2 + 200, org_id, token);
	struct meter m;
	double ms, cpu;
	meter_start(&m);
	if (store_bench_required_writes(st, org_id, JOBS, ROWS, SITES, file_len, sizes, nsizes))
		die("the required-writes floor failed");
	meter_stop(&m, true, &ms, &cpu);
	free(sizes);
	return ms;
}

/* The application object of the bench's in-process server. */
static struct app bench_app;

static void bench_backend(const char *url, struct result *r)
{
	struct store *st = NULL;
	char err[512];
	struct config *cfg = &bench_app.cfg;
	int pool = cfg->http_threads + cfg->workers + 3;
	if (store_open(url, pool, &st, err, sizeof err) || store_migrate(st, err, sizeof err))
		die("%s: %s", url, err);
	bench_app.store = st;
	/* What `loadline serve` does with its store before it serves. */
	store_bound_waits(st, cfg->lease_ms);
	store_checkpoint_in_background(st);
	bench_app.rl = ratelimit_new(cfg->rate_limit, cfg->rate_window_ms);
	bench_app.api = api_state_new();
	if (store_secret(st, "cursor-mac", bench_app.cursor_key, sizeof bench_app.cursor_key))
		die("cannot read the cursor key");
	struct http_app hooks;
	struct http_server *srv = http_start(cfg->listen, cfg->http_threads, front_app(&bench_app, &hooks));
	if (!srv)
		die("cannot start the HTTP server");
	struct worker_opts wo = {.pipeline = {.max_rows = cfg->max_rows, .geo = bench_app.geo},
				 .lease_ms = cfg->lease_ms, .sweep = {.run_timeout_ms = cfg->run_timeout_ms},
				 .sweep_interval_ms = cfg->sweep_interval_ms};
	struct workers *workers = workers_start(st, &wo, cfg->workers);
	bench_app.run_queued = (struct app_hook){workers_notify, workers};
	struct client c = {0};
	client_init(&c, http_port(srv));
	struct buf csv, xlsx;
	buf_init(&csv, 8u << 20);
	buf_init(&xlsx, 16u << 20);
	r->pg_cpu = pg_cpu_ms() >= 0;
	bool sqlite = !strncmp(url, "sqlite:", 7);
	r->has_reqfloor = sqlite;

	/* Rep -1 warms caches, connections and the page cache; not counted.
	 * Each rep has its own organizations (one for the CSV, one for the
	 * XLSX), so each import creates all 40 projects, 60 locations and 750
	 * loads, as the floor does. */
	for (int rep = -1; rep < REPS; rep++) {
		char org_id[ID_MAX], token[TOKEN_LEN + 1], salt[32], run_id[ID_MAX];
		char rnd[9] = {0};
		base62_random(rnd, 8);
		snprintf(salt, sizeof salt, "rep %d %s", rep, rnd);
		struct table *t = calloc(1, sizeof *t);
		make_table(t, salt);
		make_csv(&csv, t);
		make_xlsx(&xlsx, t);
		free_table(t);
		free(t);
		struct meter m;
		double floor_ms, floor_cpu, import_ms, import_cpu, repush_ms, repush_cpu, noop_ms, noop_cpu, x_ms, xr_ms,
		       ignore;

		new_org(st, rep * 2, org_id, token);
		meter_start(&m);
		if (store_bench_raw_insert(st, org_id, JOBS, ROWS, SITES))
			die("the floor's inserts failed");
		meter_stop(&m, true, &floor_ms, &floor_cpu);
		double floor_pg = last_pg_cpu;
		meter_start(&m);
		if (store_bench_noop_reads(st, org_id))
			die("the no-op floor's reads failed");
		meter_stop(&m, true, &noop_ms, &noop_cpu);
		/* PostgreSQL: the bulk loader's floor, COPY + set-based upserts. */
		double set_ms = 0, set_cpu;
		bool set_done = false;
		new_org(st, rep * 2 + 1, org_id, token);
		meter_start(&m);
		if (store_bench_copy_floor(st, org_id, JOBS, ROWS, SITES, &set_done))
			die("the COPY floor failed");
		meter_stop(&m, true, &set_ms, &set_cpu);

		/* CSV: first import, then the identical re-push. */
		new_org(st, rep * 2 + 100, org_id, token);
		client_token(&c, token);
		struct outcome first, again, xfirst, xagain;
		meter_start(&m);
		post_file(&c, csv.data, csv.len, false, run_id);
		poll_run(&c, run_id, &first);
		meter_stop(&m, false, &import_ms, &import_cpu);
		double import_pg = last_pg_cpu;
		double cm = commit_ms(run_id);
		if (first.succeeded != ROWS || first.failed || first.skipped)
			die("first import of rep %d ended %s with %d succeeded, %d failed, %d skipped (want %d "
			    "succeeded): the file is not what the benchmark means to measure",
			    rep, first.state, first.succeeded, first.failed, first.skipped, ROWS);
		/* SQLite only (PostgreSQL's floor is the bulk loader's; a
		 * row-by-row one would say nothing): the floor of everything the
		 * import committed (records, run, upload as stored, results of
		 * the sizes it wrote): SQLite's import verdict (issue 21). */
		double req_ms = sqlite ? required_writes_ms(st, run_id, rep) : 0;
		meter_start(&m);
		post_file(&c, csv.data, csv.len, false, run_id);
		poll_run(&c, run_id, &again);
		meter_stop(&m, false, &repush_ms, &repush_cpu);
		if (strcmp(again.state, "SKIPPED") || again.skipped != ROWS)
			die("re-push of rep %d ended %s with %d skipped", rep, again.state, again.skipped);

		/* XLSX: the same rows as a workbook, in an organization of its own. */
		new_org(st, rep * 2 + 101, org_id, token);
		client_token(&c, token);
		meter_start(&m);
		post_file(&c, xlsx.data, xlsx.len, true, run_id);
		poll_run(&c, run_id, &xfirst);
		meter_stop(&m, false, &x_ms, &ignore);
		double xcm = commit_ms(run_id);
		if (xfirst.succeeded != ROWS || xfirst.failed)
			die("XLSX import of rep %d ended %s with %d succeeded, %d failed", rep, xfirst.state,
			    xfirst.succeeded, xfirst.failed);
		meter_start(&m);
		post_file(&c, xlsx.data, xlsx.len, true, run_id);
		poll_run(&c, run_id, &xagain);
		meter_stop(&m, false, &xr_ms, &ignore);
		if (strcmp(xagain.state, "SKIPPED"))
			die("XLSX re-push of rep %d ended %s", rep, xagain.state);
		if (set_done)
			fprintf(out, "  rep %d: COPY + set-based floor %.1f ms\n", rep, set_ms);
		fprintf(out, "  rep %d: floor %.1f ms, CSV import %.1f ms (cpu %.1f, write txn %.1f), re-push %.1f ms "
			"(no-op floor %.1f); XLSX (%zu bytes) import %.1f ms (write txn %.1f), re-push %.1f ms\n", rep,
			floor_ms, import_ms, import_cpu, cm, repush_ms, noop_ms, xlsx.len, x_ms, xcm, xr_ms);
		if (rep < 0)
			continue;
		r->floor[rep] = floor_ms;
		r->floor_cpu[rep] = floor_cpu;
		r->import[rep] = import_ms;
		r->import_cpu[rep] = import_cpu;
		r->floor_pg[rep] = floor_pg;
		r->import_pg[rep] = import_pg;
		r->commit[rep] = cm;
		r->repush[rep] = repush_ms;
		r->repush_cpu[rep] = repush_cpu;
		r->noop[rep] = noop_ms;
		r->setfloor[rep] = set_ms;
		r->reqfloor[rep] = req_ms;
		r->has_setfloor = set_done;
		r->ximport[rep] = x_ms;
		r->xrepush[rep] = xr_ms;
		r->xcommit[rep] = xcm;
		r->first = first;
		r->again = again;
		r->xfirst = xfirst;
		r->xagain = xagain;
	}
	buf_done(&xlsx);
	buf_done(&csv);
	client_done(&c);
	http_stop(srv, 10000);
	workers_stop(workers);
	bench_app.run_queued = (struct app_hook){0};
	ratelimit_free(bench_app.rl);
	bench_app.rl = NULL;
	api_state_free(bench_app.api);
	bench_app.api = NULL;
	bench_app.store = NULL;
	store_close(st);
}

static void report_header(void)
{
	printf("\n| Backend | Floor ms | CSV import ms (median / min) | Import / floor | Write txn ms | "
	       "Re-push ms | No-op floor ms | Re-push / no-op | XLSX import ms | XLSX re-push ms |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|\n");
}

static void report(const char *backend, const struct result *r)
{
	double f = median(r->floor, REPS), im = median(r->import, REPS), rp = median(r->repush, REPS);
	double no = median(r->noop, REPS);
	printf("| %s | %.1f | %.1f / %.1f | **%.1f×** | %.1f | %.1f | %.1f | **%.1f×** | %.1f | %.1f |\n", backend, f,
	       im, minimum(r->import, REPS), im / f, median(r->commit, REPS), rp, no, rp / no,
	       median(r->ximport, REPS), median(r->xrepush, REPS));
}

/* Goal 2 of issue 11, as the bench measured it. */
static void report_goals(const char *backend, const struct result *r)
{
	double f = median(r->floor, REPS), im = median(r->import, REPS), xi = median(r->ximport, REPS);
	double rp = median(r->repush, REPS), no = median(r->noop, REPS);
	if (r->has_setfloor) {
		/* On PostgreSQL the goal's floor is the bulk loader's. */
		double sf = median(r->setfloor, REPS);
		printf("%s COPY + set-based floor: %.1f ms (row-by-row floor %.1f ms)\n", backend, sf, f);
		f = sf;
	}
	/* Goal 1's measurement: the worker's transaction is part of what the
	 * client waits for, so it can never be longer (to the log's 0.1 ms). */
	int within = 0;
	for (int i = 0; i < REPS; i++)
		within += (r->commit[i] <= r->import[i] + 0.1) + (r->xcommit[i] <= r->ximport[i] + 0.1);
	printf("goal 1 %s: %d rows, %d job codes, a named pickup and dropoff on every row (%d sites), weights in tons, "
	       "lb, lbs and kg, unknown customers; CSV and XLSX, and each re-pushed (all SKIPPED); write transaction "
	       "within the client-visible import in %d of %d imports: %s\n", backend, ROWS, JOBS, SITES, within,
	       2 * REPS, within == 2 * REPS ? "HOLDS" : "MISSED");
	if (r->has_reqfloor) {
		/* SQLite (issue 21): judged against everything the import must
		 * commit; the records-only floor is informative. */
		double rq = median(r->reqfloor, REPS);
		printf("goal %s CSV import <= 2x floor of everything it commits (records, run and upload as stored, "
		       "results of the sizes it wrote: %.1f ms): %.2fx %s\n", backend, rq, im / rq,
		       im / rq <= 2 ? "HOLDS" : "MISSED");
		printf("(informative) %s CSV import / records-only floor: %.2fx\n", backend, im / f);
	} else {
		printf("goal %s CSV import <= 2x floor: %.2fx %s\n", backend, im / f, im / f <= 2 ? "HOLDS" : "MISSED");
	}
	printf("goal %s XLSX import <= 2x floor: %.2fx %s\n", backend, xi / f, xi / f <= 2 ? "HOLDS" : "MISSED");
	printf("goal %s re-push <= 2x no-op floor: %.2fx %s\n", backend, rp / no, rp / no <= 2 ? "HOLDS" : "MISSED");
}

static void report_cpu_header(void)
{
	printf("\nCPU time (server threads%s), medians:\n\n", " + PostgreSQL backends when the cluster is ours");
	printf("| Backend | Floor CPU ms (PostgreSQL) | Import CPU ms (PostgreSQL) | Import / floor | "
	       "Re-push CPU ms |\n");
	printf("|---|---|---|---|---|\n");
}

static void report_cpu(const char *backend, const struct result *r)
{
	double f = median(r->floor_cpu, REPS), im = median(r->import_cpu, REPS);
	printf("| %s%s | %.1f (%.1f) | %.1f (%.1f) | **%.1f×** | %.1f |\n", backend,
	       strcmp(backend, "sqlite") && !r->pg_cpu ? " (server CPU not counted)" : "", f,
	       median(r->floor_pg, REPS), im, median(r->import_pg, REPS), im / f, median(r->repush_cpu, REPS));
}

/* ---- The XLSX reader against openpyxl (issue 11 goal 4) ---- */

/* Thread CPU ms of reading data through the sheet API, every cell, best of
 * 9; the number of non-empty cells in *ret_cells. */
static double reader_ms(const char *data, size_t len, long *ret_cells)
{
	double best = 1e9;
	for (int k = 0; k < 9; k++) {
		double t0 = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
		struct sheet_limits lim;
		sheet_limits_default(&lim);
		struct sheet *sh = NULL;
		const char *msg;
		long cells = 0;
		if (sheet_open(data, len, &lim, &sh, &msg))
			die("the reader refused the bench workbook: %s", msg);
		const struct sheet_row *r = sheet_header(sh);
		do {
			for (size_t j = 0; j < r->ncells; j++)
				cells += r->lens[j] > 0;
		} while (sheet_next_row(sh, &r) == CODE_OK && r);
		sheet_free(sh);
		double t = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (t < best)
			best = t;
		*ret_cells = cells;
	}
	return best;
}

static void floor_start(void *c, const xmlChar *l, const xmlChar *p, const xmlChar *u, int nns,
			const xmlChar **ns, int na, int nd, const xmlChar **at)
{
	(void)c, (void)l, (void)p, (void)u, (void)nns, (void)ns, (void)na, (void)nd, (void)at;
}

static void floor_end(void *c, const xmlChar *l, const xmlChar *p, const xmlChar *u)
{
	(void)c, (void)l, (void)p, (void)u;
}

static void floor_text(void *c, const xmlChar *s, int n)
{
	(void)c, (void)s, (void)n;
}

static void expat_start(void *u, const XML_Char *n, const XML_Char **a)
{
	(void)u, (void)n, (void)a;
}

static void expat_end(void *u, const XML_Char *n)
{
	(void)u, (void)n;
}

static void expat_text(void *u, const XML_Char *s, int n)
{
	(void)u, (void)s, (void)n;
}

/* The parts of the workbook every reader of it needs. */
static const char *const floor_parts[] = {"[Content_Types].xml", "_rels/.rels", "xl/_rels/workbook.xml.rels",
					  "xl/workbook.xml", "xl/styles.xml", "xl/sharedStrings.xml",
					  "xl/worksheets/sheet1.xml"};
#define NFLOOR_PARTS (sizeof floor_parts / sizeof floor_parts[0])

/* One floor: open the workbook's zip and give each of floor_parts to
 * read_part (which skips a part it cannot open).  Best of 9, thread CPU ms. */
static double floor_ms(const char *data, size_t len, void (*read_part)(zip_t *za, const char *name, void *ctx),
		       void *ctx)
{
	double best = 1e9;
	for (int k = 0; k < 9; k++) {
		double t0 = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
		zip_error_t err;
		zip_error_init(&err);
		zip_source_t *src = zip_source_buffer_create(data, len, 0, &err);
		zip_t *za = src ? zip_open_from_source(src, ZIP_RDONLY, &err) : NULL;
		if (!za)
			die("the bench workbook is not a zip");
		for (size_t i = 0; i < NFLOOR_PARTS; i++)
			read_part(za, floor_parts[i], ctx);
		zip_discard(za);
		zip_error_fini(&err);
		double t = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (t < best)
			best = t;
	}
	return best;
}

static char floor_chunk[16384];

static void sax_feed(void *ctxt, const char *s, int n, int last)
{
	xmlParseChunk(ctxt, s, n, last);
}

static void expat_feed(void *xp, const char *s, int n, int last)
{
	XML_Parse(xp, s, n, last);
}

/* Gives a part of the workbook to feed as libzip inflates it, chunk by
 * chunk, then once more with last set. */
static void stream_part(zip_t *za, const char *name, void (*feed)(void *, const char *, int, int), void *parser)
{
	zip_file_t *zf = zip_fopen(za, name, 0);
	if (!zf)
		return;
	zip_int64_t n;
	while ((n = zip_fread(zf, floor_chunk, sizeof floor_chunk)) > 0)
		feed(parser, floor_chunk, (int)n, 0);
	feed(parser, floor_chunk, 0, 1);
	zip_fclose(zf);
}

/* libxml2's SAX2 push parser with empty callbacks, in 16 KiB chunks as
 * the reader does (unzipped by libzip + zlib). */
static void sax_part(zip_t *za, const char *name, void *handler)
{
	xmlParserCtxtPtr ctxt = xmlCreatePushParserCtxt(handler, NULL, NULL, 0, NULL);
	xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	stream_part(za, name, sax_feed, ctxt);
	xmlFreeParserCtxt(ctxt);
}

/* The same with libexpat (Debian's libexpat1) in place of libxml2, with
 * namespaces and empty callbacks. */
static void expat_part(zip_t *za, const char *name, void *unused)
{
	(void)unused;
	XML_Parser xp = XML_ParserCreateNS(NULL, '\x01');
	XML_SetElementHandler(xp, expat_start, expat_end);
	XML_SetCharacterDataHandler(xp, expat_text);
	stream_part(za, name, expat_feed, xp);
	XML_ParserFree(xp);
}

/* Under any reader of these bytes, whatever parses them: the part inflated
 * whole with libdeflate (CRC-32 checked), as the reader does, and nothing
 * parsed. */
static void inflate_part(zip_t *za, const char *name, void *decompressor)
{
	zip_stat_t st;
	if (zip_stat(za, name, 0, &st) || st.comp_method != ZIP_CM_DEFLATE)
		return;
	zip_file_t *zf = zip_fopen(za, name, ZIP_FL_COMPRESSED);
	char *comp = malloc(st.comp_size), *raw = malloc(st.size);
	size_t got = 0;
	if (!zf || !comp || !raw || zip_fread(zf, comp, st.comp_size) != (zip_int64_t)st.comp_size ||
	    libdeflate_deflate_decompress(decompressor, comp, st.comp_size, raw, st.size, &got) ||
	    libdeflate_crc32(0, raw, got) != st.crc)
		die("cannot inflate %s", name);
	zip_fclose(zf);
	free(comp);
	free(raw);
}

/* The floor of any libxml2-based reader. */
static double sax_floor_ms(const char *data, size_t len)
{
	xmlSAXHandler h;
	memset(&h, 0, sizeof h);
	h.initialized = XML_SAX2_MAGIC;
	h.startElementNs = floor_start;
	h.endElementNs = floor_end;
	h.characters = floor_text;
	return floor_ms(data, len, sax_part, &h);
}

static double expat_floor_ms(const char *data, size_t len)
{
	return floor_ms(data, len, expat_part, NULL);
}

static double inflate_floor_ms(const char *data, size_t len)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	if (!d)
		die("out of memory");
	double ms = floor_ms(data, len, inflate_part, d);
	libdeflate_free_decompressor(d);
	return ms;
}

#define ROUNDS_XLSX 4

static void xlsx_vs_openpyxl(void)
{
	struct table *t = calloc(1, sizeof *t);
	struct buf x;
	buf_init(&x, 16u << 20);
	make_table(t, "openpyxl");
	make_xlsx(&x, t);
	free_table(t);
	free(t);
	char path[] = "/tmp/bench-openpyxl-XXXXXX.xlsx";
	int fd = mkstemps(path, 5);
	if (fd < 0 || write(fd, x.data, x.len) != (ssize_t)x.len)
		die("cannot write %s", path);
	close(fd);
	/* The machine (a shared VM) runs the same code at two speeds minutes
	 * apart, so the reader and openpyxl are measured in turns, four rounds,
	 * and each keeps its best: both get the same chances at a fast slot. */
	long cells = 0, py_cells = -1;
	double c_ms = 1e9, floor = 1e9, efloor = 1e9, ifloor = 1e9, py_s = -1, round_ratio[ROUNDS_XLSX];
	double round_sax[ROUNDS_XLSX];
	for (int k = 0; k < ROUNDS_XLSX; k++) {
		double c = reader_ms(x.data, x.len, &cells);
		c_ms = c < c_ms ? c : c_ms;
		double f = sax_floor_ms(x.data, x.len), e = expat_floor_ms(x.data, x.len), i = inflate_floor_ms(x.data, x.len);
		floor = f < floor ? f : floor;
		efloor = e < efloor ? e : efloor;
		ifloor = i < ifloor ? i : ifloor;
		round_sax[k] = c / f;
		char cmd[512];
		snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/openpyxl_read.py %s 5", BENCH_SOURCE_DIR, path);
		FILE *p = popen(cmd, "r");
		double py = -1;
		long pc = -1;
		if (!p || fscanf(p, "%lf %ld", &py, &pc) != 2)
			py = -1;
		if (p)
			pclose(p);
		if (py > 0 && (py_s < 0 || py < py_s)) {
			py_s = py;
			py_cells = pc;
		}
		round_ratio[k] = py > 0 ? py * 1e3 / c : -1;
	}
	/* LOADLINE_BENCH_KEEP_XLSX=PATH keeps a copy (profiling, bench_sheet --time). */
	const char *keep = getenv("LOADLINE_BENCH_KEEP_XLSX");
	if (keep && rename(path, keep))
		perror(keep);
	unlink(path);
	printf("\nXLSX reader on the %d x %d bench workbook (%zu bytes): %.2f ms CPU, %ld cells\n", ROWS + 1, NCOLS,
	       x.len, c_ms, cells);
	printf("floor of a libxml2 reader (unzip + SAX2, empty callbacks): %.2f ms CPU; reader / floor in each round:",
	       floor);
	for (int k = 0; k < ROUNDS_XLSX; k++)
		printf(" %.2fx", round_sax[k]);
	printf("\ngoal XLSX reader within 1.2x of the unzip + SAX2 floor: %.2fx (best against best) %s\n",
	       c_ms / floor, c_ms <= 1.2 * floor ? "HOLDS" : "MISSED");
	if (py_s < 0) {
		printf("XLSX reader against openpyxl: not measured (python3-openpyxl missing?)\n");
	} else {
		double ratio = py_s * 1e3 / c_ms;
		printf("openpyxl read-only: %.2f ms CPU, %ld cells\n", py_s * 1e3, py_cells);
		printf("floor of a libxml2 reader (unzip + SAX2, empty callbacks): %.2f ms CPU, %.1fx openpyxl at best\n",
		       floor, py_s * 1e3 / floor);
		printf("floor of an expat reader (unzip + expat, empty callbacks): %.2f ms CPU, %.1fx openpyxl at best\n",
		       efloor, py_s * 1e3 / efloor);
		printf("floor of any reader (unzip with libdeflate, no parsing): %.2f ms CPU, %.1fx openpyxl at best; "
		       "reader / this floor %.2fx\n", ifloor, py_s * 1e3 / ifloor, c_ms / ifloor);
		printf("each round's own ratio:");
		for (int k = 0; k < ROUNDS_XLSX; k++)
			printf(" %.1fx", round_ratio[k]);
		printf("\nXLSX reader against openpyxl (informative; the goal of issue 11 was >= 20x): %.1fx (best against "
		       "best)\n", ratio);
	}
	buf_done(&x);
}

static struct result results[8];
static const char *labels[8];
static int nresults;

static void run_url(const char *url, const char *label)
{
	if (nresults == 8)
		die("at most 8 databases");
	struct result *r = &results[nresults];
	fprintf(out, "%s: %s, %d rows (%d jobs, %d named sites, unknown customers, mixed units), %d reps after a "
		"warm-up\n", label, url, ROWS, JOBS, SITES, REPS);
	bench_backend(url, r);
	fprintf(out, "  first import: %s, %d succeeded (%d with warnings); re-push: %s, %d skipped; XLSX: %s, %d "
		"succeeded; re-push %s\n", r->first.state, r->first.succeeded, r->first.warnings, r->again.state,
		r->again.skipped, r->xfirst.state, r->xfirst.succeeded, r->xagain.state);
	labels[nresults++] = label;
}

int main(int argc, char **argv)
{
	out = fdopen(dup(2), "w");
	if (!out)
		return 1;
	setvbuf(out, NULL, _IOLBF, 0);
	struct config *cfg = &bench_app.cfg;
	if (config_load(cfg) || ids_init())
		return 1;
	/* As `loadline serve --listen 127.0.0.1:0 --workers 1`.  The rate limit
	 * is lifted: polling every millisecond is not a client the limit is for. */
	snprintf(cfg->listen, sizeof cfg->listen, "127.0.0.1:0");
	config_derive_urls(cfg);
	cfg->workers = 1;
	cfg->rate_limit = 1000000;
	char gerr[512];
	if (!(bench_app.geo = geo_open_default(cfg->gazetteer, gerr, sizeof gerr)))
		die("%s", gerr);
	signal(SIGPIPE, SIG_IGN);
	/* Whatever ends the bench also stops a cluster it started. */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGABRT, on_signal);
	curl_global_init(CURL_GLOBAL_DEFAULT);

	/* The server's JSON log goes to a file; the worker's "run finished"
	 * lines give the commit time of each run. */
	snprintf(log_path, sizeof log_path, "/tmp/bench_import-%d.log", (int)getpid());
	if (!freopen(log_path, "w", stderr))
		die("cannot write %s", log_path);
	fprintf(out, "server log: %s\n", log_path);

	if (argc > 1 && !strcmp(argv[1], "--xlsx-reader")) {
		xlsx_vs_openpyxl();   /* goal 4 alone */
		return 0;
	}
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			run_url(argv[i], strncmp(argv[i], "sqlite:", 7) ? "postgres" : "sqlite");
	} else {
		char dir[] = "/tmp/ll-bench-sqlite-XXXXXX", url[128];
		if (!mkdtemp(dir))
			die("mkdtemp: %s", strerror(errno));
		snprintf(url, sizeof url, "sqlite:%s/bench.db", dir);
		run_url(url, "sqlite");
		rm_tree(dir);
		char initdb[512];
		snprintf(initdb, sizeof initdb, "%s/initdb", pg_bin());
		if (access(initdb, X_OK)) {
			fprintf(out, "no %s: PostgreSQL skipped\n", initdb);
		} else if (cluster_start(url, sizeof url) == 0) {
			run_url(url, "postgres");
			cluster_stop();
		} else {
			cluster_stop();
		}
	}
	xlsx_vs_openpyxl();
	report_header();
	for (int i = 0; i < nresults; i++)
		report(labels[i], &results[i]);
	report_cpu_header();
	for (int i = 0; i < nresults; i++)
		report_cpu(labels[i], &results[i]);
	printf("\n");
	for (int i = 0; i < nresults; i++)
		report_goals(labels[i], &results[i]);
	curl_global_cleanup();
	return 0;
}
