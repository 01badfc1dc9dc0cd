/* Unit tests for the pure parts of the foundation: tokens, ids, the router,
 * the problem builder, the rate limiter, durations, HTML escaping. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/problem.h"
#include "auth/token.h"
#include "base/buf.h"
#include "base/clock.h"
#include "base/html.h"
#include "base/ids.h"
#include "base/config.h"
#include "http/guard.h"
#include "http/ratelimit.h"
#include "http/router.h"

static void test_token_format(void **state)
{
	(void)state;
	char t[TOKEN_LEN + 1];
	token_mint(t);
	assert_int_equal(strlen(t), 46);
	assert_memory_equal(t, "ll_live_", 8);
	assert_true(token_well_formed(t, strlen(t)));
	/* Every single-character change of the random part breaks the checksum. */
	for (int i = 8; i < 40; i++) {
		char u[TOKEN_LEN + 1];
		memcpy(u, t, sizeof u);
		u[i] = u[i] == 'a' ? 'b' : 'a';
		assert_false(token_well_formed(u, strlen(u)));
	}
	char w[TOKEN_LEN + 1];
	memcpy(w, t, sizeof w);
	memcpy(w, "ll_test_", 8);
	assert_false(token_well_formed(w, strlen(w)));
	assert_false(token_well_formed(t, strlen(t) - 1));
	assert_false(token_well_formed("", 0));
	memcpy(w, t, sizeof w);
	w[20] = '-';
	assert_false(token_well_formed(w, strlen(w)));
	/* Two mints differ; hashes are 64 hex chars and compare equal to themselves. */
	char t2[TOKEN_LEN + 1], h1[TOKEN_HASH_HEX], h2[TOKEN_HASH_HEX];
	token_mint(t2);
	assert_string_not_equal(t, t2);
	token_hash(t, strlen(t), h1);
	token_hash(t2, strlen(t2), h2);
	assert_int_equal(strlen(h1), 64);
	assert_true(token_hash_equal(h1, h1));
	assert_false(token_hash_equal(h1, h2));
}

static void test_token_checksum_known(void **state)
{
	(void)state;
	/* CRC32("0000...0", 32 bytes) rendered in 6 base62 digits. */
	char sum[TOKEN_CHECK_LEN + 1] = {0};
	token_checksum("00000000000000000000000000000000", sum);
	char t[TOKEN_LEN + 1];
	snprintf(t, sizeof t, "ll_live_00000000000000000000000000000000%s", sum);
	assert_true(token_well_formed(t, strlen(t)));
	assert_int_equal(strlen(sum), 6);
}

#define MANY_IDS 3000   /* several refills of a thread's 512-byte pool */

static void *make_ids(void *arg)
{
	char (*ids)[ID_MAX] = arg;
	for (int i = 0; i < MANY_IDS; i++)
		id_new("load", ids[i]);
	return NULL;
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Ids made by two threads, across many refills of their pools: every one
 * well formed, no two the same. */
static void test_ids_never_repeat(void **state)
{
	(void)state;
	char (*ids)[ID_MAX] = calloc(2 * MANY_IDS, ID_MAX);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, make_ids, ids + MANY_IDS), 0);
	make_ids(ids);
	pthread_join(t, NULL);
	for (int i = 0; i < 2 * MANY_IDS; i++)
		assert_true(id_valid(ids[i], "load"));
	qsort(ids, 2 * MANY_IDS, ID_MAX, cmp_id);
	for (int i = 1; i < 2 * MANY_IDS; i++)
		assert_string_not_equal(ids[i - 1], ids[i]);
	free(ids);
}

static void test_ids(void **state)
{
	(void)state;
	char a[ID_MAX], b[ID_MAX];
	id_new("run", a);
	id_new("run", b);
	assert_memory_equal(a, "run_", 4);
	assert_int_equal(strlen(a), 4 + ID_RANDOM_CHARS);
	assert_string_not_equal(a, b);
	assert_true(id_valid(a, "run"));
	assert_false(id_valid(a, "prj"));
	assert_false(id_valid("run_abc", "run"));
	char t[TIME_ISO_MAX];
	time_iso(1795296079313LL, t);
	assert_string_equal(t, "2026-11-21T21:21:19.313Z");
	time_iso(0, t);
	assert_string_equal(t, "1970-01-01T00:00:00.000Z");
}

static const struct route routes[] = {
	{"GET", "/api/v1/whoami", NULL, 1},
	{"GET", "/api/v1/imports/runs/{id}", NULL, 2},
	{"GET", "/api/v1/imports/runs/{id}/results/{bucket}", NULL, 3},
	{"POST", "/api/v1/imports/{kind}", NULL, 4},
	{"GET", "/api/v1/imports/runs", NULL, 5},
};

static void test_router(void **state)
{
	(void)state;
	const struct route *r = NULL;
	struct route_params p;
	char allow[64];
	size_t n = sizeof routes / sizeof routes[0];
	assert_int_equal(router_match(routes, n, "GET", "/api/v1/whoami", &r, &p, allow, sizeof allow), ROUTE_FOUND);
	assert_int_equal(r->flags, 1);
	assert_int_equal(router_match(routes, n, "GET", "/api/v1/imports/runs/run_1/results/failed", &r, &p, allow,
				      sizeof allow), ROUTE_FOUND);
	assert_int_equal(r->flags, 3);
	assert_string_equal(route_param(&p, "id"), "run_1");
	assert_string_equal(route_param(&p, "bucket"), "failed");
	assert_null(route_param(&p, "nope"));
	assert_int_equal(router_match(routes, n, "GET", "/api/v1/imports/runs", &r, &p, allow, sizeof allow), ROUTE_FOUND);
	assert_int_equal(r->flags, 5);
	assert_int_equal(router_match(routes, n, "DELETE", "/api/v1/whoami", &r, &p, allow, sizeof allow), ROUTE_NO_METHOD);
	assert_string_equal(allow, "GET");
	assert_int_equal(router_match(routes, n, "GET", "/api/v1/imports/jobs", &r, &p, allow, sizeof allow), ROUTE_NO_METHOD);
	assert_string_equal(allow, "POST");
	assert_int_equal(router_match(routes, n, "GET", "/api/v1/whoami/", &r, &p, allow, sizeof allow), ROUTE_NO_PATH);
	assert_int_equal(router_match(routes, n, "GET", "/api/v1/imports/runs//results/x", &r, &p, allow, sizeof allow), ROUTE_NO_PATH);
	assert_int_equal(router_match(routes, n, "GET", "", &r, &p, allow, sizeof allow), ROUTE_NO_PATH);
	char longp[600] = "/api/v1/imports/runs/";
	memset(longp + strlen(longp), 'x', 400);
	assert_int_equal(router_match(routes, n, "GET", longp, &r, &p, allow, sizeof allow), ROUTE_NO_PATH);
}

static void test_problem(void **state)
{
	(void)state;
	json_t *extra = json_pack("{s:s}", "existingRunUrl", "/api/v1/imports/runs/run_x");
	json_t *p = problem_new(CODE_IMPORT_IN_PROGRESS, "busy", "/api/v1/imports/jobs", "req_1", "http://d", extra);
	json_decref(extra);
	assert_string_equal(json_string_value(json_object_get(p, "type")), "http://d/api/errors/IMPORT_IN_PROGRESS");
	assert_string_equal(json_string_value(json_object_get(p, "docUrl")), "http://d/api/errors/IMPORT_IN_PROGRESS");
	assert_string_equal(json_string_value(json_object_get(p, "title")), "Conflict");
	assert_int_equal(json_integer_value(json_object_get(p, "status")), 409);
	assert_string_equal(json_string_value(json_object_get(p, "code")), "IMPORT_IN_PROGRESS");
	assert_string_equal(json_string_value(json_object_get(p, "instance")), "/api/v1/imports/jobs");
	assert_string_equal(json_string_value(json_object_get(p, "requestId")), "req_1");
	assert_string_equal(json_string_value(json_object_get(p, "existingRunUrl")), "/api/v1/imports/runs/run_x");
	assert_int_equal(json_object_size(p), 9);
	json_decref(p);
	/* Invalid UTF-8 in a detail never produces an invalid body. */
	p = problem_new(CODE_NOT_FOUND, "bad \xff byte", "/x\xfe", "req_2", "http://d", NULL);
	assert_non_null(json_string_value(json_object_get(p, "detail")));
	assert_int_equal(json_object_size(p), 8);
	json_decref(p);
}

static void test_ratelimit(void **state)
{
	(void)state;
	struct ratelimit *rl = ratelimit_new(5, 60000);
	int64_t t = 1000000;
	for (int i = 0; i < 5; i++) {
		struct ratelimit_verdict v = ratelimit_take(rl, "key_a", t);
		assert_true(v.allowed);
		assert_int_equal(v.remaining, 4 - i);
		assert_int_equal(v.limit, 5);
	}
	struct ratelimit_verdict v = ratelimit_take(rl, "key_a", t);
	assert_false(v.allowed);
	assert_int_equal(v.remaining, 0);
	assert_int_equal(v.retry_after_s, 12);   /* one interval = 60 s / 5 */
	/* Another key is untouched by key_a's flood. */
	assert_true(ratelimit_take(rl, "key_b", t).allowed);
	/* After one interval, exactly one more request fits. */
	assert_true(ratelimit_take(rl, "key_a", t + 12000).allowed);
	assert_false(ratelimit_take(rl, "key_a", t + 12000).allowed);
	ratelimit_free(rl);
	int n;
	int64_t w;
	assert_int_equal(config_parse_rate("600/60s", &n, &w), 0);
	assert_int_equal(n, 600);
	assert_int_equal(w, 60000);
	assert_int_equal(config_parse_rate("10/2m", &n, &w), 0);
	assert_int_equal(w, 120000);
	assert_int_equal(config_parse_rate("0/60s", &n, &w), -1);
	assert_int_equal(config_parse_rate("abc", &n, &w), -1);
	assert_int_equal(config_parse_rate("5/", &n, &w), -1);
}

/* Requests allowed for one key at time t until the first refusal. */
static int allowed_at(struct ratelimit *rl, int64_t t)
{
	int n = 0;
	while (ratelimit_take(rl, "k", t).allowed)
		n++;
	return n;
}

static void test_ratelimit_exact_at_any_rate(void **state)
{
	(void)state;
	/* 1,000,000 per second: the whole burst at once, then exactly 1,000 per
	 * millisecond and 1,000,000 per second more, never rounded to the
	 * 1,000/s a millisecond clock would give. */
	struct ratelimit *rl = ratelimit_new(1000000, 1000);
	int64_t t = 5000000;
	assert_int_equal(allowed_at(rl, t), 1000000);
	assert_int_equal(allowed_at(rl, t + 1), 1000);
	assert_int_equal(allowed_at(rl, t + 1001), 1000000);
	struct ratelimit_verdict v = ratelimit_take(rl, "k", t + 1001);
	assert_false(v.allowed);
	assert_int_equal(v.retry_after_s, 1);
	ratelimit_free(rl);
	/* 100000/60s: 100,000 at once (not 60,000), then one per 0.6 ms. */
	rl = ratelimit_new(100000, 60000);
	assert_int_equal(allowed_at(rl, t), 100000);
	assert_int_equal(allowed_at(rl, t + 3), 5);
	v = ratelimit_take(rl, "k2", t);
	assert_int_equal(v.limit, 100000);
	assert_int_equal(v.remaining, 99999);
	ratelimit_free(rl);
	/* 7/1s: seven a second exactly, over a long run. */
	rl = ratelimit_new(7, 1000);
	int n = allowed_at(rl, t);
	for (int s = 1; s <= 100; s++)
		n += allowed_at(rl, t + s * 1000);
	assert_int_equal(n, 7 + 700);
	ratelimit_free(rl);
}

/* Issue 11 goal 7 / issue 12: the limit enforced is the limit configured,
 * at any rate.  A bucket of N allows exactly N at once, then exactly one
 * more per window/N, and the whole window refills exactly N. */
static void exact_rate(int limit, int64_t window_ms)
{
	struct ratelimit *rl = ratelimit_new(limit, window_ms);
	int64_t t = 1764000000LL * 1000000000LL;   /* an epoch time in ns */
	int allowed = 0;
	for (int i = 0; i < limit + 10; i++)
		allowed += ratelimit_take_ns(rl, "k", t).allowed;
	assert_int_equal(allowed, limit);
	struct ratelimit_verdict v = ratelimit_take_ns(rl, "k", t);
	assert_false(v.allowed);
	assert_int_equal(v.limit, limit);
	/* Half a window later exactly half the budget is back (limits here
	 * are even), and after a full window all of it. */
	int64_t window_ns = window_ms * 1000000LL;
	allowed = 0;
	for (int i = 0; i < limit; i++)
		allowed += ratelimit_take_ns(rl, "k", t + window_ns / 2).allowed;
	assert_int_equal(allowed, limit / 2);
	allowed = 0;
	for (int i = 0; i < limit + 10; i++)
		allowed += ratelimit_take_ns(rl, "k", t + window_ns / 2 + window_ns).allowed;
	assert_int_equal(allowed, limit);
	ratelimit_free(rl);
}

static void test_ratelimit_exact(void **state)
{
	(void)state;
	exact_rate(1000000, 1000);
	exact_rate(100000, 60000);
	/* A rate whose interval is not a whole number of ns (1 s / 3). */
	struct ratelimit *rl = ratelimit_new(3, 1000);
	int64_t t = 5000000000LL;
	for (int i = 0; i < 3; i++)
		assert_true(ratelimit_take_ns(rl, "k", t).allowed);
	assert_false(ratelimit_take_ns(rl, "k", t + 333333333).allowed);
	assert_true(ratelimit_take_ns(rl, "k", t + 333333334).allowed);
	ratelimit_free(rl);
}

/* The database side of the shared budget, in memory: the same arithmetic
 * as store_rate_lease's UPDATE. */
static int64_t fake_tat;
static int fake_lease(void *arg, const char *key, int64_t now, int64_t iv, int64_t span, int want, int *ret_n,
		      int64_t *ret_tat)
{
	(void)arg;
	(void)key;
	int64_t b = fake_tat > now ? fake_tat : now;
	int64_t fit = (now + span - b) / iv;
	int n = fit < want ? (int)fit : want;
	fake_tat = b + n * iv;
	*ret_n = n;
	*ret_tat = fake_tat;
	return 0;
}

/* Two processes leasing batches from one budget: together they never admit
 * more than the limit in a burst, nor more than limit + elapsed/interval
 * over any stretch (slots are never used late). */
static void test_ratelimit_shared(void **state)
{
	(void)state;
	fake_tat = 0;
	struct ratelimit *a = ratelimit_new(200, 60000), *b = ratelimit_new(200, 60000);
	ratelimit_share(a, fake_lease, NULL);
	ratelimit_share(b, fake_lease, NULL);
	int64_t t = 1764000000LL * 1000000000LL;   /* interval: 60 s / 200 = 0.3 s */
	int ok = 0;
	for (int i = 0; i < 400; i++)
		ok += ratelimit_take_ns(i % 3 ? a : b, "k", t).allowed;
	assert_true(ok <= 200 && ok >= 200 - 2 * 4);
	/* Then a request every 0.1 s for 60 s, alternating: at most one new
	 * slot per interval (200 more), whatever the leases left over. */
	int later = 0;
	for (int i = 1; i <= 600; i++)
		later += ratelimit_take_ns(i % 2 ? a : b, "k", t + i * 100000000LL).allowed;
	assert_true(later <= 200 + 1);
	assert_true(later >= 200 - 2 * 4 - 1);
	ratelimit_free(a);
	ratelimit_free(b);
}

static void test_duration_and_html(void **state)
{
	(void)state;
	int64_t ms;
	assert_int_equal(duration_parse("72h", &ms), 0);
	assert_int_equal(ms, 72LL * 3600 * 1000);
	assert_int_equal(duration_parse("2s", &ms), 0);
	assert_int_equal(ms, 2000);
	assert_int_equal(duration_parse("30", &ms), 0);
	assert_int_equal(ms, 30000);
	assert_int_equal(duration_parse("250ms", &ms), 0);
	assert_int_equal(ms, 250);
	assert_int_equal(duration_parse("5m", &ms), 0);
	assert_int_equal(ms, 300000);
	assert_int_equal(duration_parse("5mss", &ms), -1);
	assert_int_equal(duration_parse("-1s", &ms), -1);
	assert_int_equal(duration_parse("5d", &ms), 0);
	assert_int_equal(ms, 5LL * 86400000);
	assert_int_equal(duration_parse("5w", &ms), -1);
	assert_int_equal(duration_parse("99999999999999999999h", &ms), -1);
	struct buf b;
	buf_init(&b, 1024);
	html_escape(&b, "<script>alert('x')&\"</script>");
	assert_string_equal(buf_str(&b), "&lt;script&gt;alert(&#39;x&#39;)&amp;&quot;&lt;/script&gt;");
	buf_clear(&b);
	html_escape_code(&b, "use `a<b` now");
	assert_string_equal(buf_str(&b), "use <code>a&lt;b</code> now");
	buf_done(&b);
}

/* True when the guard shut down the connection whose far end is peer. */
static bool was_shut(int peer)
{
	char c;
	return recv(peer, &c, 1, MSG_DONTWAIT) == 0;
}

/* The connection guard (issue 20 item 2): connections still sending their
 * first headers hold at most 3/4 of the cap, a newcomer beyond that takes
 * the oldest one's place, and a connection past its header deadline is
 * shut down; connections that completed a request are never evicted. */
static void test_connection_guard(void **state)
{
	(void)state;
	struct guard *g = guard_new(8, 0, 100, 1000);   /* 6 FRESH at most */
	int sv[10][2];
	struct guard_conn *gc[10];
	for (int i = 0; i < 10; i++)
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
	for (int i = 0; i < 6; i++) {
		assert_non_null(gc[i] = guard_admit(g, sv[i][0], NULL, 0));
		assert_ptr_equal(guard_started(g, sv[i][0]), gc[i]);
	}
	guard_headers(g, gc[1], 0);   /* a request came in on the second */
	unsigned total, fresh;
	guard_counts(g, &total, &fresh);
	assert_int_equal(total, 6);
	assert_int_equal(fresh, 5);
	/* Room for one more FRESH one, then the oldest FRESH makes room. */
	assert_non_null(gc[6] = guard_admit(g, sv[6][0], NULL, 10));
	assert_ptr_equal(guard_started(g, sv[6][0]), gc[6]);
	assert_false(was_shut(sv[0][1]));
	assert_non_null(gc[7] = guard_admit(g, sv[7][0], NULL, 20));
	assert_ptr_equal(guard_started(g, sv[7][0]), gc[7]);
	assert_true(was_shut(sv[0][1]));    /* the oldest FRESH one */
	assert_false(was_shut(sv[1][1]));   /* it had sent a request */
	guard_closed(g, gc[0]);             /* libmicrohttpd closes it */
	/* Past the header deadline (100 ms after the accept) every FRESH one
	 * goes; the busy one stays, and so does the kept-alive one until the
	 * idle time plus the header time after its response. */
	guard_idle(g, gc[1], 50);
	assert_true(guard_expire(g, 99, 250) <= 1);
	assert_false(was_shut(sv[2][1]));
	guard_expire(g, 125, 250);
	for (int i = 2; i < 8; i++)
		assert_true(was_shut(sv[i][1]));
	assert_false(was_shut(sv[1][1]));
	guard_expire(g, 50 + 1000 + 100, 250);
	assert_true(was_shut(sv[1][1]));
	for (int i = 1; i < 8; i++)
		guard_closed(g, gc[i]);
	guard_counts(g, &total, &fresh);
	assert_int_equal(total, 0);
	for (int i = 0; i < 10; i++) {
		close(sv[i][0]);
		close(sv[i][1]);
	}
	guard_free(g);
}

static struct sockaddr_in ipv4(unsigned a)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(a)};
	return sin;
}

/* Issue 27 item 10: the address with the most connections loses its own
 * first, not the oldest connection overall. */
static void test_guard_most_represented_first(void **state)
{
	(void)state;
	struct guard *g = guard_new(8, 0, 100, 1000);   /* 6 FRESH at most */
	struct sockaddr_in a = ipv4(0x0a000001), b = ipv4(0x0a000002), c = ipv4(0x0a000003);
	int sv[7][2];
	struct guard_conn *gc[7];
	for (int i = 0; i < 7; i++) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
		struct sockaddr_in *who = i < 2 ? &b : i < 6 ? &a : &c;   /* B first, then 4 of A */
		assert_non_null(gc[i] = guard_admit(g, sv[i][0], (struct sockaddr *)who, i));
		assert_ptr_equal(guard_started(g, sv[i][0]), gc[i]);
	}
	assert_false(was_shut(sv[0][1]));   /* B's, the oldest overall, stays */
	assert_true(was_shut(sv[2][1]));    /* A's oldest made room */
	/* Shut down, it counts against its address until it is closed. */
	assert_int_equal(guard_address_count(g, (struct sockaddr *)&a), 4);
	assert_int_equal(guard_address_count(g, (struct sockaddr *)&b), 2);
	guard_closed(g, gc[2]);
	assert_int_equal(guard_address_count(g, (struct sockaddr *)&a), 3);
	gc[2] = NULL;
	for (int i = 0; i < 7; i++) {
		if (gc[i])
			guard_closed(g, gc[i]);
		close(sv[i][0]);
		close(sv[i][1]);
	}
	assert_int_equal(guard_address_count(g, (struct sockaddr *)&a), 0);
	guard_free(g);
}

/* The per-address share is the guard's: a newcomer over it is refused
 * before anyone makes room, and a connection shut down counts until it is
 * closed (libmicrohttpd's own limit counts it too; issue 27 item 10). */
static void test_guard_per_address_share(void **state)
{
	(void)state;
	struct guard *g = guard_new(8, 2, 100, 1000);
	struct sockaddr_in a = ipv4(0x0a000001), b = ipv4(0x0a000002);
	int sv[3][2];
	struct guard_conn *gc[3];
	for (int i = 0; i < 3; i++)
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
	for (int i = 0; i < 2; i++) {
		assert_non_null(gc[i] = guard_admit(g, sv[i][0], (struct sockaddr *)&a, i));
		assert_ptr_equal(guard_started(g, sv[i][0]), gc[i]);
	}
	assert_null(guard_admit(g, sv[2][0], (struct sockaddr *)&a, 5));
	assert_false(was_shut(sv[0][1]));
	guard_expire(g, 100.5, 250);        /* the first is past its deadline */
	assert_true(was_shut(sv[0][1]));
	assert_null(guard_admit(g, sv[2][0], (struct sockaddr *)&a, 101));   /* not closed yet */
	guard_closed(g, gc[0]);
	assert_non_null(gc[2] = guard_admit(g, sv[2][0], (struct sockaddr *)&a, 102));
	guard_abandon(g, gc[2]);
	struct guard_conn *other = guard_admit(g, sv[2][0], (struct sockaddr *)&b, 103);
	assert_non_null(other);
	guard_abandon(g, other);
	guard_closed(g, gc[1]);
	for (int i = 0; i < 3; i++) {
		close(sv[i][0]);
		close(sv[i][1]);
	}
	guard_free(g);
}

/* At the cap with every connection running a request: a slow anonymous
 * request of the most-represented address makes room; authenticated and
 * young requests never do. */
static void test_guard_busy_anonymous_make_room(void **state)
{
	(void)state;
	struct guard *g = guard_new(4, 0, 100, 1000);
	struct sockaddr_in a = ipv4(0x0a000001), b = ipv4(0x0a000002);
	int sv[6][2];
	struct guard_conn *gc[6];
	for (int i = 0; i < 6; i++)
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
	for (int i = 0; i < 4; i++) {   /* B's anonymous first, then A: trusted, anonymous, anonymous */
		struct sockaddr_in *who = i == 0 ? &b : &a;
		assert_non_null(gc[i] = guard_admit(g, sv[i][0], (struct sockaddr *)who, i));
		assert_ptr_equal(guard_started(g, sv[i][0]), gc[i]);
		guard_headers(g, gc[i], i);
	}
	guard_trust(g, gc[1]);
	assert_null(guard_admit(g, sv[4][0], (struct sockaddr *)&b, 50));   /* all young */
	assert_non_null(gc[4] = guard_admit(g, sv[4][0], (struct sockaddr *)&b, 200));
	assert_true(was_shut(sv[2][1]));    /* A's oldest anonymous one */
	assert_false(was_shut(sv[0][1]));   /* B's is older, but B has fewer */
	assert_false(was_shut(sv[1][1]));   /* authenticated */
	guard_closed(g, gc[2]);
	assert_ptr_equal(guard_started(g, sv[4][0]), gc[4]);
	guard_headers(g, gc[4], 200);
	guard_trust(g, gc[4]);
	guard_trust(g, gc[0]);
	guard_trust(g, gc[3]);
	assert_null(guard_admit(g, sv[5][0], (struct sockaddr *)&b, 10000));   /* all authenticated */
	for (int i = 0; i < 6; i++) {
		if (i != 2 && i != 5)
			guard_closed(g, gc[i]);
		close(sv[i][0]);
		close(sv[i][1]);
	}
	guard_free(g);
}

/* Addresses whose table slots collide now and then (consecutive ones
 * never do). */
static unsigned scattered(int k)
{
	return ((unsigned)(k + 1) * 0x01000193u) ^ 0x5bd1e995u;
}

/* The per-address counts under many arrivals and departures (the table
 * deletes by shifting entries back): equal to a plain count. */
static void test_guard_address_counts(void **state)
{
	(void)state;
	enum { CAP = 8, ADDRS = 12, STEPS = 4000 };   /* 16 slots: collisions */
	struct guard *g = guard_new(CAP, 0, 1e9, 1e9);
	struct guard_conn *live[CAP] = {0};
	int fds[CAP], who[CAP], plain[ADDRS] = {0};
	unsigned seed = 7;
	for (int step = 0; step < STEPS; step++) {
		seed = seed * 1103515245u + 12345u;
		int slot = (int)((seed >> 8) % CAP), addr = (int)((seed >> 20) % ADDRS);
		if (live[slot]) {
			guard_abandon(g, live[slot]);
			plain[who[slot]]--;
			live[slot] = NULL;
			continue;
		}
		struct sockaddr_in sin = ipv4(scattered(addr));
		fds[slot] = -1;   /* never started: the guard does not touch it */
		assert_non_null(live[slot] = guard_admit(g, fds[slot], (struct sockaddr *)&sin, step));
		who[slot] = addr;
		plain[addr]++;
		for (int k = 0; k < ADDRS; k++) {
			struct sockaddr_in q = ipv4(scattered(k));
			assert_int_equal(guard_address_count(g, (struct sockaddr *)&q), plain[k]);
		}
	}
	for (int i = 0; i < CAP; i++)
		if (live[i]) {
			guard_abandon(g, live[i]);
		}
	guard_free(g);
}

int main(void)
{
	ids_init();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_format),
		cmocka_unit_test(test_token_checksum_known),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_ids_never_repeat),
		cmocka_unit_test(test_router),
		cmocka_unit_test(test_connection_guard),
		cmocka_unit_test(test_guard_most_represented_first),
		cmocka_unit_test(test_guard_busy_anonymous_make_room),
		cmocka_unit_test(test_guard_per_address_share),
		cmocka_unit_test(test_guard_address_counts),
		cmocka_unit_test(test_problem),
		cmocka_unit_test(test_ratelimit),
		cmocka_unit_test(test_ratelimit_exact_at_any_rate),
		cmocka_unit_test(test_ratelimit_exact),
		cmocka_unit_test(test_ratelimit_shared),
		cmocka_unit_test(test_duration_and_html),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
