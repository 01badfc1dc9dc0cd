/* Unit tests of the front door: the streaming multipart parser, and the
 * dispatch of a real HTTP server (libmicrohttpd on a free port, SQLite in a
 * temp dir) to the error pages, the API and the web app. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "app/app.h"
#include "base/log.h"
#include "base/buf.h"
#include "base/ids.h"
#include "front/front.h"
#include "http/http.h"
#include "http/multipart.h"
#include "http/ratelimit.h"
#include "store/settings.h"
#include "store/store.h"

/* ---- multipart ---- */

struct capture {
	int parts;
	char names[4][64], files[4][64];
	bool has_file[4];
	struct buf data[4];
	int stop_after_bytes;   /* > 0: part_data returns false once this many arrived */
};

static bool cap_begin(void *ctx, const char *name, const char *file)
{
	struct capture *c = ctx;
	if (c->parts == 4)
		return false;
	snprintf(c->names[c->parts], 64, "%s", name ? name : "(none)");
	snprintf(c->files[c->parts], 64, "%s", file ? file : "");
	c->has_file[c->parts] = file != NULL;
	buf_init(&c->data[c->parts], 1 << 20);
	c->parts++;
	return true;
}

static bool cap_data(void *ctx, const char *p, size_t n)
{
	struct capture *c = ctx;
	struct buf *b = &c->data[c->parts - 1];
	buf_append(b, p, n);
	return !(c->stop_after_bytes && (int)b->len >= c->stop_after_bytes);
}

static void cap_done(struct capture *c)
{
	for (int i = 0; i < c->parts; i++)
		buf_done(&c->data[i]);
}

/* Parses body in chunks of `chunk` bytes (0 = whole). */
static enum multipart_status parse(const char *ct, const char *body, size_t chunk, struct capture *c,
				   const char **ret_err)
{
	struct multipart_sink sink = {cap_begin, cap_data, c};
	struct multipart *m = multipart_new(ct, &sink);
	assert_non_null(m);
	size_t n = strlen(body), step = chunk ? chunk : n;
	enum multipart_status st = MULTIPART_OK;
	for (size_t off = 0; off < n && st == MULTIPART_OK; off += step)
		st = multipart_feed(m, body + off, n - off < step ? n - off : step);
	if (st == MULTIPART_OK)
		st = multipart_finish(m);
	if (ret_err)
		*ret_err = multipart_error(m);
	multipart_free(m);
	return st;
}

static const char *CT = "multipart/form-data; boundary=----b0und";
static const char *BODY =
	"ignored preamble\r\n"
	"------b0und\r\n"
	"Content-Disposition: form-data; name=\"note\"\r\n\r\n"
	"hi\r\n"
	"------b0und\r\n"
	"content-disposition: form-data; name=\"file\"; filename=\"loads \\\"Q4\\\".csv\"\r\n"
	"Content-Type: text/csv\r\n\r\n"
	"a,b\r\n\r\n------b0un\r\n--\r\n------b0uNd\r\n"
	"------b0und--\r\n"
	"epilogue ------b0und\r\n";

static void test_multipart_parts_any_chunking(void **state)
{
	(void)state;
	/* Every chunk size gives the same parts and bytes: boundaries split
	 * across chunks are found, near-boundaries are data. */
	for (size_t chunk = 0; chunk <= strlen(BODY); chunk += chunk < 20 ? 1 : 7) {
		struct capture c = {0};
		assert_int_equal(parse(CT, BODY, chunk, &c, NULL), MULTIPART_OK);
		assert_int_equal(c.parts, 2);
		assert_string_equal(c.names[0], "note");
		assert_false(c.has_file[0]);
		assert_int_equal(c.data[0].len, 2);
		assert_memory_equal(c.data[0].data, "hi", 2);
		assert_string_equal(c.names[1], "file");
		assert_string_equal(c.files[1], "loads \"Q4\".csv");
		const char *want = "a,b\r\n\r\n------b0un\r\n--\r\n------b0uNd";
		assert_int_equal(c.data[1].len, strlen(want));
		assert_memory_equal(c.data[1].data, want, strlen(want));
		cap_done(&c);
	}
}

static void test_multipart_malformed(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"--XX\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc",            /* no close */
		"no boundary anywhere",                                                       /* no part */
		"--XX\r\nContent-Disposition: form-data; name=\"file\"\nX: y\r\n\r\nabc\r\n--XX--", /* bare LF */
		"--XXjunk\r\n\r\nabc\r\n--XX--",                                              /* junk after delimiter */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct capture c = {0};
		const char *err = NULL;
		assert_int_equal(parse("multipart/form-data; boundary=XX", bad[i], 3, &c, &err), MULTIPART_MALFORMED);
		assert_non_null(err);
		cap_done(&c);
	}
	/* Header block over 8 KiB. */
	char *big = malloc(10000);
	strcpy(big, "--XX\r\nX-Pad: ");
	memset(big + strlen(big), 'a', 9000);
	strcpy(big + 13 + 9000, "\r\n\r\nz\r\n--XX--");
	struct capture c = {0};
	assert_int_equal(parse("multipart/form-data; boundary=XX", big, 0, &c, NULL), MULTIPART_MALFORMED);
	cap_done(&c);
	free(big);
}

static void test_multipart_boundary_and_stop(void **state)
{
	(void)state;
	struct multipart_sink sink = {cap_begin, cap_data, NULL};
	static const char *const refused[] = {
		NULL, "text/csv", "multipart/form-data", "multipart/form-data; boundary=",
		"multipart/form-data; boundary=\"trailing \"", "multipart/form-data; boundary=bad\x01",
		"multipart/form-data; boundary=12345678901234567890123456789012345678901234567890123456789012345678901",
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		assert_null(multipart_new(refused[i], &sink));
	struct multipart *m = multipart_new("Multipart/Form-Data; charset=utf-8; BOUNDARY=\"a b\"", &sink);
	assert_non_null(m);
	multipart_free(m);
	/* A sink that says stop stops the parse for good. */
	struct capture c = {.stop_after_bytes = 1};
	assert_int_equal(parse(CT, BODY, 0, &c, NULL), MULTIPART_STOPPED);
	cap_done(&c);
}

/* ---- dispatch through a real server ---- */

struct reply {
	long status;
	struct buf body;
	char content_type[128];
};

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
	buf_append(&((struct reply *)ud)->body, p, size * n);
	return size * n;
}

/* With extra request headers (NULL: none but curl's Host and Accept). */
static void get_with(int port, const char *path, struct curl_slist *headers, struct reply *r)
{
	char url[16384];
	snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
	buf_init(&r->body, 1 << 20);
	CURL *c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	if (headers)
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	assert_int_equal(curl_easy_perform(c), CURLE_OK);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	char *ct = NULL;
	curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
	snprintf(r->content_type, sizeof r->content_type, "%s", ct ? ct : "");
	buf_append(&r->body, "", 1);
	curl_easy_cleanup(c);
}

static void get(int port, const char *path, struct reply *r)
{
	get_with(port, path, NULL, r);
}

/* A request of exactly nfields header fields: Host and nfields - 1 more
 * (curl's Accept removed). */
static void get_fields(int port, const char *path, int nfields, struct reply *r)
{
	struct curl_slist *h = curl_slist_append(NULL, "Accept:");
	for (int i = 1; i < nfields; i++) {
		char line[32];
		snprintf(line, sizeof line, "X-%04d: v", i);
		h = curl_slist_append(h, line);
	}
	get_with(port, path, h, r);
	curl_slist_free_all(h);
}

static void test_dispatch_routes(void **state)
{
	(void)state;
	char dir[] = "/tmp/ll-dispatch-XXXXXX";
	assert_non_null(mkdtemp(dir));
	static struct app app;
	assert_int_equal(config_load(&app.cfg), 0);
	snprintf(app.cfg.db, sizeof app.cfg.db, "sqlite:%s/t.db", dir);
	snprintf(app.cfg.listen, sizeof app.cfg.listen, "127.0.0.1:0");
	app.cfg.base_url_set = app.cfg.docs_url_set = app.cfg.app_url_set = false;
	config_derive_urls(&app.cfg);
	char err[256];
	assert_int_equal(store_open(app.cfg.db, 4, &app.store, err, sizeof err), CODE_OK);
	assert_int_equal(store_migrate(app.store, err, sizeof err), CODE_OK);
	assert_int_equal(store_secret(app.store, "cursor-mac", app.cursor_key, sizeof app.cursor_key), CODE_OK);
	app.rl = ratelimit_new(100, 60000);
	app.api = api_state_new();
	struct http_app hooks;
	struct http_server *srv = http_start(app.cfg.listen, 2, front_app(&app, &hooks));
	assert_non_null(srv);
	int port = http_port(srv);
	struct reply r;

	get(port, "/docs/api/errors/NOT_FOUND", &r);            /* error page */
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.content_type, "text/html"));
	assert_non_null(strstr(r.body.data, "NOT_FOUND"));
	buf_done(&r.body);

	get(port, "/healthz", &r);                               /* API, public */
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body.data, "\"ok\""));
	buf_done(&r.body);

	get(port, "/api/v1/whoami", &r);                         /* API, needs a token */
	assert_int_equal(r.status, 401);
	assert_string_equal(r.content_type, "application/problem+json");
	buf_done(&r.body);

	get(port, "/imports", &r);                               /* web app: sign-in first */
	assert_int_equal(r.status, 303);
	buf_done(&r.body);

	char longpath[9000] = "/api/v1/";
	memset(longpath + 8, 'a', 8500);
	longpath[8508] = '\0';
	get(port, longpath, &r);                                 /* size check first */
	assert_int_equal(r.status, 414);
	buf_done(&r.body);

	get_fields(port, "/healthz", HTTP_MAX_HEADER_FIELDS, &r); /* at most 100 header fields */
	assert_int_equal(r.status, 200);
	buf_done(&r.body);
	get_fields(port, "/healthz", HTTP_MAX_HEADER_FIELDS + 1, &r);
	assert_int_equal(r.status, 431);
	assert_string_equal(r.content_type, "application/problem+json");
	assert_non_null(strstr(r.body.data, "\"HEADERS_TOO_LARGE\""));
	buf_done(&r.body);
	get_fields(port, "/healthz", 2 * HTTP_MAX_HEADER_FIELDS, &r); /* ours, not libmicrohttpd's */
	assert_int_equal(r.status, 431);
	assert_string_equal(r.content_type, "application/problem+json");
	buf_done(&r.body);

	http_stop(srv, 1000);
	ratelimit_free(app.rl);
	api_state_free(app.api);
	store_close(app.store);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* ---- the access line: the fast path writes exactly what log_json would ---- */

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static char *jansson_line(const char *ts, const struct log_access *a)
{
	json_t *o = json_object();
	json_object_set_new(o, "ts", json_string(ts));
	json_object_set_new(o, "level", json_string(a->debug ? "debug" : "info"));
	json_object_set_new(o, "msg", json_string("request"));
	json_object_set_new(o, "requestId", json_string(a->request_id));
	json_object_set_new(o, "orgId", a->org_id[0] ? json_string(a->org_id) : json_null());
	json_object_set_new(o, "method", json_string(a->method));
	json_object_set_new(o, "path", json_string(a->path));
	json_object_set_new(o, "status", json_integer(a->status));
	json_object_set_new(o, "durationMs", json_real(a->duration_ms));
	json_object_set_new(o, "client", str_or_null(a->client));
	json_object_set_new(o, "userAgent", str_or_null(a->user_agent));
	json_object_set_new(o, "keyPrefix", str_or_null(a->key_prefix));
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(6));
	json_decref(o);
	return s;
}

static void assert_line_as_jansson(const struct log_access *a)
{
	char line[1024];
	size_t n = log_access_line(line, sizeof line, "2026-11-25T07:42:17.045Z", a);
	char *want = jansson_line("2026-11-25T07:42:17.045Z", a);
	assert_true(n > 0);
	assert_int_equal(n, strlen(want) + 1);
	assert_memory_equal(line, want, n - 1);
	assert_int_equal(line[n - 1], '\n');
	free(want);
}

static void test_access_line_matches_log_json(void **state)
{
	(void)state;
	const char *paths[] = {"/api/v1/imports/runs/run_abc", "/", "/healthz", "/a%20b/~x?y"};
	const char *orgs[] = {"", "org_0123456789abcdef"};
	const double durs[] = {0, 0.01, 0.12, 1, 12.5, 999.99, 100000, 123456.78, 1234567.89, 98765432.1, 1e12};
	const int statuses[] = {200, 304, 401, 429, 503};
	/* client, user agent, key prefix, level: absent, empty and present */
	const char *clients[] = {NULL, "127.0.0.1", "2001:db8::1"};
	const char *agents[] = {NULL, "", "curl/7.88.1", "loadline/0.1.0 (push)"};
	const char *keys[] = {NULL, "", "ll_live_AbC9"};
	for (size_t p = 0; p < sizeof paths / sizeof *paths; p++)
		for (size_t g = 0; g < 2; g++)
			for (size_t d = 0; d < sizeof durs / sizeof *durs; d++) {
				struct http_request req = {.method = "GET", .path = paths[p]};
				snprintf(req.request_id, sizeof req.request_id, "req_0123456789abcdefXYZ");
				snprintf(req.org_id, sizeof req.org_id, "%s", orgs[g]);
				assert_line_as_jansson(&(struct log_access){
					req.request_id, req.org_id, req.method, req.path, statuses[d % 5], durs[d],
					clients[d % 3], agents[(d + p) % 4], keys[(d + g) % 3], d % 2 == 1});
			}
	/* Every duration as on_done rounds it (whole hundredths), and beyond. */
	for (long long h = 0; h < 1100000; h += h < 2000 ? 1 : 997) {
		struct http_request req = {.method = "GET", .path = "/x"};
		assert_line_as_jansson(&(struct log_access){req.request_id, req.org_id, req.method, req.path, 304,
							    (double)h / 100.0, "10.0.0.1", "ua", "ll_live_XXXX", false});
	}
	/* What needs escaping is left to log_json: in the path, the user agent
	 * (a client's choice: quotes, control characters, non-ASCII). */
	const char *odd[] = {"/a\"b", "/a\\b", "/caf\xc3\xa9", "/a\nb", "/\xff"};
	char line[1024];
	for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
		struct http_request req = {.method = "GET", .path = odd[i]};
		assert_int_equal(log_access_line(line, sizeof line, "2026-11-25T07:42:17.045Z",
						 &(struct log_access){req.request_id, req.org_id, req.method, req.path, 200, 1,
								      NULL, NULL, NULL, false}),
				 0);
		req.path = "/ok";
		assert_int_equal(log_access_line(line, sizeof line, "2026-11-25T07:42:17.045Z",
						 &(struct log_access){req.request_id, req.org_id, req.method, req.path, 200, 1,
								      "::1", odd[i], NULL, false}),
				 0);
	}
	/* Too small a buffer is not an overflow. */
	struct http_request req = {.method = "GET", .path = "/x"};
	char small[40];
	assert_int_equal(log_access_line(small, sizeof small, "2026-11-25T07:42:17.045Z",
					 &(struct log_access){req.request_id, req.org_id, req.method, req.path, 200, 1,
							      NULL, NULL, NULL, false}),
			 0);
}

int main(void)
{
	ids_init();
	curl_global_init(CURL_GLOBAL_DEFAULT);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multipart_parts_any_chunking),
		cmocka_unit_test(test_multipart_malformed),
		cmocka_unit_test(test_multipart_boundary_and_stop),
		cmocka_unit_test(test_dispatch_routes),
		cmocka_unit_test(test_access_line_matches_log_json),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
