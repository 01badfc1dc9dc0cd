/* The poll path's server CPU per request (issue 11 goal 6): GET
 * /api/v1/imports/runs/{id} with If-None-Match (304), as a client polls a
 * finished run, against a floor measured in the same process: a bare
 * libmicrohttpd handler answering the same 304 with the same threading
 * flags.  The server side is pinned to one core; the client (curl, one
 * keep-alive connection, many URLs) runs as a child process on another, so
 * its CPU is not counted.  Server CPU = this process's rusage delta. */

#include <fcntl.h>
#include <microhttpd.h>
#include <sched.h>
#include <stdbool.h>
#include <time.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/api.h"
#include "app/app.h"
#include "front/front.h"
#include "http/http.h"
#include "http/ratelimit.h"
#include "import/worker.h"
#include "store/settings.h"
#include "store/store.h"

extern char **environ;

#define REQUESTS 4000
#define ROUNDS 7

static int errfd = 2;

static void die(const char *m)
{
	dprintf(errfd, "bench_poll: %s\n", m);
	exit(1);
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* Runs curl with argv; returns its exit status; output to out (or null). */
static int run_curl(char *const argv[], const char *out_path)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	/* The client on core 1, the servers (this process) on core 0. */
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	pid_t pid;
	if (posix_spawn(&pid, "/usr/bin/curl", &fa, &at, argv, environ))
		die("cannot run /usr/bin/curl");
	sched_setaffinity(pid, sizeof set, &set);
	int st = 0;
	waitpid(pid, &st, 0);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Server CPU per request (µs) of REQUESTS keep-alive GETs of url. */
static double per_request_us(const char *url, const char *token, const char *etag)
{
	char glob[600], auth[200], inm[200];
	snprintf(glob, sizeof glob, "%s?poll=[1-%d]", url, REQUESTS);
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
	snprintf(inm, sizeof inm, "If-None-Match: %s", etag);
	char *argv[] = {"curl", "-s", "-o", "/dev/null", "-H", auth, "-H", inm, glob, NULL};
	double t0 = cpu_s();
	int rc = run_curl(argv, NULL);
	if (rc) {
		dprintf(errfd, "bench_poll: curl %s exited %d\n", glob, rc);
		exit(1);
	}
	return (cpu_s() - t0) / REQUESTS * 1e6;
}

/* ---- the floor: a bare handler ---- */

static enum MHD_Result bare(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			    const char *version, const char *data, size_t *size, void **state)
{
	(void)cls, (void)url, (void)method, (void)version, (void)data, (void)size;
	if (!*state) {
		*state = (void *)1;
		return MHD_YES;
	}
	struct MHD_Response *r = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(r, "ETag", "\"0123456789abcdef0123456789abcdef\"");
	MHD_add_response_header(r, "Cache-Control", "no-cache");
	enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_NOT_MODIFIED, r);
	MHD_destroy_response(r);
	return ret;
}

/* Goal 7: the rate limiter exact at 1,000,000 requests per second, and
 * what a decision costs. */
static void limiter_goal(void)
{
	struct ratelimit *rl = ratelimit_new(1000000, 1000);
	int64_t t = 5000000;
	long got[3] = {0, 0, 0};
	const int64_t at[3] = {t, t + 1, t + 1001};
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (int i = 0; i < 3; i++)
		while (ratelimit_take(rl, "k", at[i]).allowed)
			got[i]++;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	long total = got[0] + got[1] + got[2] + 3;
	double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)total;
	bool exact = got[0] == 1000000 && got[1] == 1000 && got[2] == 1000000;
	printf("rate limiter at 1,000,000/1s: %ld at once, %ld after 1 ms, %ld after 1 s more (want 1000000, 1000, "
	       "1000000); %.0f ns a decision\n", got[0], got[1], got[2], ns);
	printf("goal rate limiter exact at any rate: %s\n", exact ? "HOLDS" : "MISSED");
	ratelimit_free(rl);
}

static struct app app;

int main(void)
{
	limiter_goal();
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof one, &one))
		die("cannot pin to core 0");
	/* The access log is part of the server's cost, but not of the output. */
	errfd = dup(2);
	if (!freopen("/dev/null", "w", stderr))
		die("cannot silence the log");
	if (config_load(&app.cfg))
		die("bad configuration");
	app.cfg.http_threads = 1;
	char dir[] = "/tmp/bench-poll-XXXXXX", url[600], err[512];
	if (!mkdtemp(dir))
		die("mkdtemp");
	snprintf(url, sizeof url, "sqlite:%s/loadline.db", dir);
	if (store_open(url, 4, &app.store, err, sizeof err) || store_migrate(app.store, err, sizeof err))
		die(err);
	app.rl = ratelimit_new(1000000000, 1000);
	app.api = api_state_new();
	if (store_secret(app.store, "cursor-mac", app.cursor_key, sizeof app.cursor_key))
		die("cursor key");
	struct org o;
	struct api_key k;
	char token[TOKEN_LEN + 1];
	if (store_org_create(app.store, "Poll org", &o) || store_key_create(app.store, o.id, "poll", token, &k))
		die("org");
	struct http_app hooks;
	snprintf(app.cfg.listen, sizeof app.cfg.listen, "127.0.0.1:0");
	struct http_server *srv = http_start(app.cfg.listen, 1, front_app(&app, &hooks));
	if (!srv)
		die("server");
	struct worker_opts wo = {.pipeline = {.max_rows = 750},
				 .lease_ms = 30000, .sweep = {.run_timeout_ms = 1800000}, .sweep_interval_ms = 30000};
	struct workers *workers = workers_start(app.store, &wo, 1);
	app.run_queued = (struct app_hook){workers_notify, workers};

	/* One finished run to poll. */
	char path[600], base[100], auth[200], form[700];
	snprintf(path, sizeof path, "%s/loads.csv", dir);
	FILE *f = fopen(path, "w");
	fputs("jobCode,loadNo,loadDate\nJ-1,L-1,2026-11-02\n", f);
	fclose(f);
	snprintf(base, sizeof base, "http://127.0.0.1:%d", http_port(srv));
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
	snprintf(form, sizeof form, "file=@%s", path);
	char post_url[200], out[700];
	snprintf(post_url, sizeof post_url, "%s/api/v1/imports/jobs", base);
	snprintf(out, sizeof out, "%s/run.json", dir);
	char *post[] = {"curl", "-s", "-H", auth, "-F", form, post_url, NULL};
	if (run_curl(post, out))
		die("upload failed");
	char body[4096] = "";
	f = fopen(out, "r");
	size_t n = fread(body, 1, sizeof body - 1, f);
	body[n] = '\0';
	fclose(f);
	char *at = strstr(body, "\"id\":\""), id[64];
	if (!at || sscanf(at + 6, "%63[^\"]", id) != 1)
		die(body);
	char run_url[300], hdr[700];
	snprintf(run_url, sizeof run_url, "%s/api/v1/imports/runs/%s", base, id);
	snprintf(hdr, sizeof hdr, "%s/headers", dir);
	char etag[100] = "";
	for (int tries = 0; tries < 200 && !*etag; tries++) {
		usleep(50000);
		char *get[] = {"curl", "-s", "-D", hdr, "-H", auth, run_url, NULL};
		run_curl(get, out);
		f = fopen(out, "r");
		n = fread(body, 1, sizeof body - 1, f);
		body[n] = '\0';
		fclose(f);
		if (!strstr(body, "\"SUCCEEDED\""))
			continue;
		f = fopen(hdr, "r");
		char line[300];
		while (fgets(line, sizeof line, f))
			if (!strncasecmp(line, "ETag: ", 6))
				sscanf(line + 6, "%99s", etag);
		fclose(f);
	}
	if (!*etag)
		die("the run did not finish");
	/* The run is done: no worker thread may spend this process's CPU (an
	 * idle one polls for runs) while the servers are measured. */
	workers_stop(workers);
	app.run_queued = (struct app_hook){0};

	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC, 0, NULL,
						NULL, bare, NULL, MHD_OPTION_THREAD_POOL_SIZE, 1u, MHD_OPTION_END);
	if (!d)
		die("bare daemon");
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	char bare_url[200];
	snprintf(bare_url, sizeof bare_url, "http://127.0.0.1:%u/api/v1/imports/runs/%s", di->port, id);
	/* Not the goal's floor, only to tell where the difference goes: the same
	 * bare handler with the daemon options Loadline's server sets (its
	 * connection memory, which libmicrohttpd zeroes after each request, and
	 * an idle timeout, which arms a timer on every wait). */
	struct MHD_Daemon *d2 = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC, 0, NULL,
						 NULL, bare, NULL, MHD_OPTION_THREAD_POOL_SIZE, 1u,
						 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONNECTION_MEMORY,
						 MHD_OPTION_CONNECTION_TIMEOUT, 15u, MHD_OPTION_END);
	if (!d2)
		die("bare daemon");
	const union MHD_DaemonInfo *di2 = MHD_get_daemon_info(d2, MHD_DAEMON_INFO_BIND_PORT);
	char bare2_url[200];
	snprintf(bare2_url, sizeof bare2_url, "http://127.0.0.1:%u/api/v1/imports/runs/%s", di2->port, id);

	double best_real = 1e9, best_bare = 1e9, best_bare2 = 1e9, paired[ROUNDS];
	bool only = getenv("BENCH_POLL_ONLY") != NULL;
	for (int r = 0; r < ROUNDS; r++) {
		/* BENCH_POLL_ONLY=1: only the real server (for profiling). */
		double b = only ? 1 : per_request_us(bare_url, token, etag);
		double x = per_request_us(run_url, token, etag);
		double b2 = only ? 1 : per_request_us(bare2_url, token, etag);
		if (b < best_bare) best_bare = b;
		if (x < best_real) best_real = x;
		if (b2 < best_bare2) best_bare2 = b2;
		paired[r] = x / b;
	}
	/* Each round's two servers ran back to back, under the same load: the
	 * median of the rounds' own ratios moves less with a shared machine's
	 * load than the ratio of two minima taken at different moments. */
	for (int i = 1; i < ROUNDS; i++)
		for (int j = i; j > 0 && paired[j] < paired[j - 1]; j--) {
			double t = paired[j];
			paired[j] = paired[j - 1];
			paired[j - 1] = t;
		}
	double ratio = best_real / best_bare;
	printf("poll path (GET run, 304), server CPU per request, best of %d x %d, one core:\n", ROUNDS, REQUESTS);
	printf("  loadline %.1f us   bare libmicrohttpd %.1f us   best against best %.2fx (informative)\n", best_real,
	       best_bare, ratio);
	/* Issue 21 item 4: the goal is judged on the median of the pairs. */
	printf("  goal poll <= 1.25x a bare handler, median of %d alternating pairs (loadline / bare, back to back): "
	       "%.2fx (%.2f-%.2fx): %s\n", ROUNDS, paired[ROUNDS / 2], paired[0], paired[ROUNDS - 1],
	       paired[ROUNDS / 2] <= 1.25 ? "HOLDS" : "MISSED");
	printf("  (bare with Loadline's daemon options, %d KiB connection memory and idle timeout: %.1f us, "
	       "loadline / that %.2fx)\n", HTTP_CONNECTION_MEMORY / 1024, best_bare2, best_real / best_bare2);
	MHD_stop_daemon(d2);
	MHD_stop_daemon(d);
	http_stop(srv, 1000);
	ratelimit_free(app.rl);
	store_close(app.store);
	return 0;
}
