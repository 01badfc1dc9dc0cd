/* Environment configuration with validated values. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "envfile.h"


static void copy(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src);
}

static int env_str(const char *name, char *dst, size_t n)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 0;
	if (strlen(v) >= n) {
		fprintf(stderr, "loadline: %s is too long (max %zu bytes)\n", name, n - 1);
		return -1;
	}
	copy(dst, n, v);
	return 1;
}

static int env_long(const char *name, long long min, long long max, long long *val)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 0;
	errno = 0;
	char *end;
	long long x = strtoll(v, &end, 10);
	if (errno || *end || x < min || x > max) {
		fprintf(stderr, "loadline: %s must be a whole number from %lld to %lld, not \"%s\"\n",
			name, min, max, v);
		return -1;
	}
	*val = x;
	return 1;
}

/* A duration setting; zero_ok admits 0 (retention: keep forever). */
static int env_duration_of(const char *name, int64_t *val, bool zero_ok)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 0;
	if (duration_parse(v, val) || *val < 0 || (*val == 0 && !zero_ok)) {
		fprintf(stderr, "loadline: %s must be a duration like 30s, 5m, 72h or 30d%s, not \"%s\"\n", name,
			zero_ok ? " (0 = forever)" : "", v);
		return -1;
	}
	return 0;
}

static int env_duration(const char *name, int64_t *val)
{
	return env_duration_of(name, val, false);
}

int config_parse_rate(const char *s, int *ret_n, int64_t *ret_window_ms)
{
	const char *slash = strchr(s, '/');
	if (!slash)
		return -1;
	errno = 0;
	char *end;
	long n = strtol(s, &end, 10);
	if (errno || end != slash || n < 1 || n > 1000000)
		return -1;
	int64_t w;
	if (duration_parse(slash + 1, &w) || w <= 0)
		return -1;
	*ret_n = (int)n;
	*ret_window_ms = w;
	return 0;
}

void config_derive_urls(struct config *c)
{
	if (!c->base_url_set)
		snprintf(c->base_url, sizeof c->base_url, "http://%s", c->listen);
	if (!c->app_url_set)
		copy(c->app_url, sizeof c->app_url, c->base_url);
	if (!c->docs_url_set)
		snprintf(c->docs_url, sizeof c->docs_url, "%.500s/docs", c->base_url);
	/* Trailing slashes would make "//api/errors" links. */
	char *urls[] = {c->base_url, c->app_url, c->docs_url};
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(urls[i]);
		while (n > 0 && urls[i][n - 1] == '/')
			urls[i][--n] = '\0';
	}
	/* The error pages are served here under the path part of the docs URL
	 * when it points at this service, else under /docs. */
	size_t bl = strlen(c->base_url);
	if (!strncmp(c->docs_url, c->base_url, bl) && (c->docs_url[bl] == '/' || c->docs_url[bl] == '\0'))
		copy(c->docs_path, sizeof c->docs_path, c->docs_url + bl);
	else
		copy(c->docs_path, sizeof c->docs_path, "/docs");
}

/* ---- the settings file (config_read_env_file) ---- */

#define ENV_FILE_MAX (1 << 20)

/* The file's settings, a later line replacing an earlier one of the same
 * name (as systemd reads it). */
struct env_list {
	char **names, **values;
	int n, cap;
	const char *path;
	bool oom;
};

static void env_collect(const char *name, const char *value, void *ctx)
{
	struct env_list *l = ctx;
	int i = 0;
	while (i < l->n && strcmp(l->names[i], name))
		i++;
	if (i == l->n && l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 32;
		char **nn = realloc(l->names, (size_t)cap * sizeof *nn), **vv = realloc(l->values, (size_t)cap * sizeof *vv);
		if (nn)
			l->names = nn;
		if (vv)
			l->values = vv;
		if (!nn || !vv) {
			l->oom = true;
			return;
		}
		l->cap = cap;
	}
	char *v = strdup(value);
	if (!v || (i == l->n && !(l->names[i] = strdup(name)))) {
		free(v);
		l->oom = true;
		return;
	}
	if (i == l->n)
		l->n++;
	else
		free(l->values[i]);
	l->values[i] = v;
}

static void env_bad(int lineno, void *ctx)
{
	const struct env_list *l = ctx;
	fprintf(stderr, "loadline: %s:%d is not NAME=VALUE and is ignored (see loadline.env(5))\n", l->path, lineno);
}

/* The whole file into *ret (malloc'd): 0, or an errno value. */
static int read_small_file(const char *path, char **ret, size_t *ret_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	struct stat st;
	char *buf = NULL;
	int e = fstat(fd, &st) ? errno : st.st_size > ENV_FILE_MAX ? EFBIG : 0;
	if (!e && !(buf = malloc((size_t)st.st_size + 1)))
		e = ENOMEM;
	size_t len = 0;
	while (!e && len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? errno : 0;
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	if (e) {
		free(buf);
		return e;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* Puts the settings into the environment, each only when it is not there. */
static int env_apply(const char *path, const char *text, size_t len)
{
	struct env_list l = {.path = path};
	struct envfile_cb cb = {env_collect, env_bad, &l};
	int rc = envfile_parse(text, len, &cb) < 0 || l.oom ? -1 : 0;
	for (int i = 0; i < l.n; i++) {
		if (!rc && setenv(l.names[i], l.values[i], 0))
			rc = -1;
		free(l.names[i]);
		free(l.values[i]);
	}
	free(l.names);
	free(l.values);
	if (rc)
		fprintf(stderr, "loadline: out of memory reading %s\n", path);
	return rc;
}

int config_read_env_file(bool db_given)
{
	if (getenv("LOADLINE_DB"))
		return 0;   /* the environment names the database: a unit, or the operator */
	const char *path = getenv("LOADLINE_ENV_FILE");
	bool chosen = path != NULL;
	if (chosen && !*path)
		return 0;
	if (!chosen)
		path = CONFIG_ENV_FILE;
	char *text = NULL;
	size_t len = 0;
	int e = read_small_file(path, &text, &len);
	if (e == ENOENT && !chosen)
		return 0;   /* not an installed system: the built-in defaults */
	if (e && db_given && !chosen) {
		fprintf(stderr, "loadline: warning: %s not read (%s); --db names the database\n", path, strerror(e));
		return 0;
	}
	if (e) {
		fprintf(stderr, "loadline: cannot read the settings in %s%s: %s", path, chosen ? " (LOADLINE_ENV_FILE)" : "",
			e == EFBIG ? "larger than 1 MiB" : strerror(e));
		if (e == EACCES)
			fputs(". They name the installed database: run this as the loadline user (sudo -u loadline "
			      "loadline ...) or as root, or choose the database with --db or LOADLINE_DB", stderr);
		fputc('\n', stderr);
		return -1;
	}
	int rc = env_apply(path, text, len);
	free(text);
	return rc;
}

static void config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	copy(c->db, sizeof c->db, "sqlite:./data/loadline.db");
	copy(c->listen, sizeof c->listen, "127.0.0.1:8080");
	copy(c->mail_from, sizeof c->mail_from, "Loadline <loadline@localhost>");
	c->rate_limit = 600;
	c->rate_window_ms = 60000;
	c->max_rows = 750;
	c->import_batch_rows = 2000;
	c->max_file_bytes = 5242880;
	c->staging_ttl_ms = 72LL * 3600 * 1000;
	c->run_timeout_ms = 30LL * 60 * 1000;
	c->sweep_interval_ms = 30000;
	c->lease_ms = 30000;
	c->worker_poll_ms = 250;
	c->session_ttl_ms = 12LL * 3600 * 1000;
	c->keep_uploads_ms = 30LL * 24 * 3600 * 1000;
	c->keep_results_ms = 90LL * 24 * 3600 * 1000;
	c->workers = 2;
	c->http_threads = 8;
	c->max_connections = 4096;
	c->max_connections_per_ip = 64;
	c->idle_timeout_ms = 15000;
	c->header_timeout_ms = 5000;
	c->min_body_rate = 1024;
	c->max_waiters = 1000;
	c->webhook_retry_min_ms = 60000;
	c->webhook_retry_for_ms = 72LL * 3600 * 1000;
}

/* The texts: addresses, URLs, mail, OIDC.  Returns non-zero when one is
 * wrong (the message is on stderr). */
static int load_texts(struct config *c)
{
	int rc = 0, r;
	rc |= env_str("LOADLINE_DB", c->db, sizeof c->db) < 0;
	rc |= env_str("LOADLINE_LISTEN", c->listen, sizeof c->listen) < 0;
	rc |= env_str("LOADLINE_METRICS_LISTEN", c->metrics_listen, sizeof c->metrics_listen) < 0;
	rc |= (r = env_str("LOADLINE_BASE_URL", c->base_url, sizeof c->base_url)) < 0;
	c->base_url_set = r > 0;
	rc |= (r = env_str("LOADLINE_APP_URL", c->app_url, sizeof c->app_url)) < 0;
	c->app_url_set = r > 0;
	rc |= (r = env_str("LOADLINE_DOCS_URL", c->docs_url, sizeof c->docs_url)) < 0;
	c->docs_url_set = r > 0;
	rc |= env_str("LOADLINE_SMTP_URL", c->smtp_url, sizeof c->smtp_url) < 0;
	rc |= env_str("LOADLINE_MAIL_FROM", c->mail_from, sizeof c->mail_from) < 0;
	rc |= env_str("LOADLINE_GAZETTEER", c->gazetteer, sizeof c->gazetteer) < 0;
	const char *tmp = getenv("TMPDIR");
	copy(c->spool_dir, sizeof c->spool_dir, tmp && *tmp ? tmp : "/tmp");
	rc |= env_str("LOADLINE_SPOOL_DIR", c->spool_dir, sizeof c->spool_dir) < 0;
	rc |= env_str("LOADLINE_OIDC_ISSUER", c->oidc_issuer, sizeof c->oidc_issuer) < 0;
	rc |= env_str("LOADLINE_OIDC_CLIENT_ID", c->oidc_client_id, sizeof c->oidc_client_id) < 0;
	rc |= env_str("LOADLINE_OIDC_CLIENT_SECRET", c->oidc_client_secret, sizeof c->oidc_client_secret) < 0;

	const char *lv = getenv("LOADLINE_LOG_LEVEL");
	if (lv && *lv && strcmp(lv, "info") && strcmp(lv, "debug")) {
		fprintf(stderr, "loadline: LOADLINE_LOG_LEVEL must be info or debug, not \"%s\"\n", lv);
		rc = 1;
	}
	c->log_debug = lv && !strcmp(lv, "debug");
	const char *rl = getenv("LOADLINE_RATE_LIMIT");
	if (rl && *rl && config_parse_rate(rl, &c->rate_limit, &c->rate_window_ms)) {
		fprintf(stderr, "loadline: LOADLINE_RATE_LIMIT must look like 600/60s (requests/window), not \"%s\"\n", rl);
		rc = 1;
	}
	return rc;
}

static int load_numbers(struct config *c)
{
	int rc = 0, r;
	long long v;
	if ((r = env_long("LOADLINE_MAX_ROWS", 1, 1000000, &v)) < 0) rc = 1;
	else if (r) c->max_rows = (int)v;
	if ((r = env_long("LOADLINE_MAX_FILE_BYTES", 1, 1LL << 30, &v)) < 0) rc = 1;
	else if (r) c->max_file_bytes = (size_t)v;
	if ((r = env_long("LOADLINE_MAX_WAITERS", 0, 100000, &v)) < 0) rc = 1;
	else if (r) c->max_waiters = (int)v;
	/* Default: a quarter of the table per organization (issue 27 item 15),
	 * so that one organization's pollers cannot take every slot. */
	c->max_waiters_per_org = c->max_waiters / 4 > 0 ? c->max_waiters / 4 : 1;
	if ((r = env_long("LOADLINE_MIN_BODY_RATE", 0, 1 << 30, &v)) < 0) rc = 1;
	else if (r) c->min_body_rate = (int)v;
	if ((r = env_long("LOADLINE_MAX_WAITERS_PER_ORG", 1, 100000, &v)) < 0) rc = 1;
	else if (r) c->max_waiters_per_org = (int)v;
	if ((r = env_long("LOADLINE_HTTP_THREADS", 1, 256, &v)) < 0) rc = 1;
	else if (r) c->http_threads = (int)v;
	if ((r = env_long("LOADLINE_MAX_CONNECTIONS", 16, 1000000, &v)) < 0) rc = 1;
	else if (r) c->max_connections = (int)v;
	if ((r = env_long("LOADLINE_MAX_CONNECTIONS_PER_IP", 0, 1000000, &v)) < 0) rc = 1;
	else if (r) c->max_connections_per_ip = (int)v;
	if ((r = env_long("LOADLINE_REUSEPORT", 0, 1, &v)) < 0) rc = 1;
	else if (r) c->reuseport = v == 1;
	if ((r = env_long("LOADLINE_WEBHOOK_ALLOW_HTTP", 0, 1, &v)) < 0) rc = 1;
	else if (r) c->webhook_allow_http = v == 1;
	if ((r = env_long("LOADLINE_WEBHOOK_ALLOW_PRIVATE", 0, 1, &v)) < 0) rc = 1;
	else if (r) c->webhook_allow_private = v == 1;
	if ((r = env_long("LOADLINE_IMPORT_BATCH_ROWS", 1, 5000, &v)) < 0) rc = 1;
	else if (r) c->import_batch_rows = (int)v;
	if ((r = env_long("LOADLINE_DEBUG_ROW_DELAY_MS", 0, 10000, &v)) < 0) rc = 1;
	else if (r) c->debug_row_delay_ms = (int)v;
	if ((r = env_long("LOADLINE_DEBUG_POLL_READ_DELAY_MS", 0, 10000, &v)) < 0) rc = 1;
	else if (r) c->debug_poll_read_delay_ms = (int)v;
	return rc;
}

static int load_durations(struct config *c)
{
	int rc = 0;
	rc |= env_duration("LOADLINE_STAGING_TTL", &c->staging_ttl_ms) < 0;
	rc |= env_duration("LOADLINE_RUN_TIMEOUT", &c->run_timeout_ms) < 0;
	rc |= env_duration("LOADLINE_SWEEP_INTERVAL", &c->sweep_interval_ms) < 0;
	rc |= env_duration("LOADLINE_LEASE", &c->lease_ms) < 0;
	rc |= env_duration("LOADLINE_WORKER_POLL", &c->worker_poll_ms) < 0;
	rc |= env_duration("LOADLINE_SESSION_TTL", &c->session_ttl_ms) < 0;
	rc |= env_duration("LOADLINE_IDLE_TIMEOUT", &c->idle_timeout_ms) < 0;
	rc |= env_duration("LOADLINE_HEADER_TIMEOUT", &c->header_timeout_ms) < 0;
	rc |= env_duration("LOADLINE_WEBHOOK_RETRY_MIN", &c->webhook_retry_min_ms) < 0;
	rc |= env_duration("LOADLINE_WEBHOOK_RETRY_FOR", &c->webhook_retry_for_ms) < 0;
	rc |= env_duration_of("LOADLINE_KEEP_UPLOADS", &c->keep_uploads_ms, true) < 0;
	rc |= env_duration_of("LOADLINE_KEEP_RESULTS", &c->keep_results_ms, true) < 0;
	return rc;
}

int config_load(struct config *c)
{
	config_defaults(c);
	int rc = load_texts(c);
	rc |= load_numbers(c);
	rc |= load_durations(c);
	config_derive_urls(c);
	return rc ? -1 : 0;
}
