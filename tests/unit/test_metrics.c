/* The metrics registry (src/metrics): counts, histogram buckets that are
 * cumulative, label escaping, the route table's "other" overflow, and
 * counts exact under concurrent updates. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "metrics/metrics.h"

static char *render(struct buf *b)
{
	buf_init(b, 1 << 22);
	struct metrics_gauges g = {.queue_depth = 3, .outbox_pending = 0, .webhooks_pending = 2};
	assert_int_equal(metrics_render(b, &g, "9.9.9"), 0);
	return (char *)buf_str(b);
}

static void test_http_series(void **state)
{
	(void)state;
	metrics_reset();
	metrics_http("GET", "/api/v1/imports/runs/{id}", 200, 0.003);
	metrics_http("GET", "/api/v1/imports/runs/{id}", 200, 0.2);
	metrics_http("GET", "/api/v1/imports/runs/{id}", 304, 0.001);
	metrics_http("GET", "/api/v1/whoami", 401, 20);
	struct buf b;
	const char *t = render(&b);
	assert_non_null(strstr(t, "loadline_http_requests_total{method=\"GET\",route=\"/api/v1/imports/runs/{id}\",status=\"200\"} 2\n"));
	assert_non_null(strstr(t, "loadline_http_requests_total{method=\"GET\",route=\"/api/v1/imports/runs/{id}\",status=\"304\"} 1\n"));
	assert_non_null(strstr(t, "loadline_http_requests_total{method=\"GET\",route=\"/api/v1/whoami\",status=\"401\"} 1\n"));
	/* Buckets are cumulative: 0.003 and 0.001 are <= 0.005, 0.2 joins at 0.25. */
	assert_non_null(strstr(t, "loadline_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/v1/imports/runs/{id}\","
				  "le=\"0.005\"} 2\n"));
	assert_non_null(strstr(t, "loadline_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/v1/imports/runs/{id}\","
				  "le=\"0.25\"} 3\n"));
	assert_non_null(strstr(t, "loadline_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/v1/whoami\","
				  "le=\"10\"} 0\n"));
	assert_non_null(strstr(t, "loadline_http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/v1/whoami\","
				  "le=\"+Inf\"} 1\n"));
	assert_non_null(strstr(t, "loadline_http_request_duration_seconds_sum{method=\"GET\",route=\"/api/v1/whoami\"} 20.000000\n"));
	assert_non_null(strstr(t, "loadline_http_request_duration_seconds_count{method=\"GET\",route=\"/api/v1/imports/runs/{id}\"} 3\n"));
	assert_non_null(strstr(t, "loadline_import_queue_depth 3\n"));
	assert_non_null(strstr(t, "loadline_outbox_pending 0\n"));
	assert_non_null(strstr(t, "loadline_build_info{version=\"9.9.9\"} 1\n"));
	buf_done(&b);
}

/* Issue 30: one series per method of a route. */
static void test_method_label(void **state)
{
	(void)state;
	metrics_reset();
	metrics_http("GET", "/imports", 200, 0.001);
	metrics_http("POST", "/imports", 303, 0.001);
	metrics_http("BREW", "/imports", 405, 0.001);
	struct buf b;
	const char *t = render(&b);
	assert_non_null(strstr(t, "loadline_http_requests_total{method=\"GET\",route=\"/imports\",status=\"200\"} 1\n"));
	assert_non_null(strstr(t, "loadline_http_requests_total{method=\"POST\",route=\"/imports\",status=\"303\"} 1\n"));
	assert_non_null(strstr(t, "loadline_http_requests_total{method=\"other\",route=\"/imports\",status=\"405\"} 1\n"));
	assert_non_null(strstr(t, "loadline_http_request_duration_seconds_count{method=\"POST\",route=\"/imports\"} 1\n"));
	buf_done(&b);
}

static void test_webhook_series(void **state)
{
	(void)state;
	metrics_reset();
	metrics_webhook(WEBHOOK_DELIVERED, 0.004);
	metrics_webhook(WEBHOOK_RETRYING, 10);
	struct buf b;
	const char *t = render(&b);
	assert_non_null(strstr(t, "loadline_webhook_deliveries_total{result=\"delivered\"} 1\n"));
	assert_non_null(strstr(t, "loadline_webhook_deliveries_total{result=\"retrying\"} 1\n"));
	assert_non_null(strstr(t, "loadline_webhook_deliveries_total{result=\"failed\"} 0\n"));
	assert_non_null(strstr(t, "loadline_webhook_delivery_duration_seconds_bucket{le=\"0.005\"} 1\n"));
	assert_non_null(strstr(t, "loadline_webhook_delivery_duration_seconds_count 2\n"));
	assert_non_null(strstr(t, "loadline_webhook_pending 2\n"));
	buf_done(&b);
}

static void test_run_series_and_escaping(void **state)
{
	(void)state;
	metrics_reset();
	int rows[4] = {740, 2, 8, 0};
	metrics_run("PARTIAL", 0.3, rows);
	metrics_run("FAILED", 400, NULL);
	metrics_http("GET", "a\"b\\c\nd", 200, 0);
	struct buf b;
	const char *t = render(&b);
	assert_non_null(strstr(t, "loadline_import_runs_total{state=\"PARTIAL\"} 1\n"));
	assert_non_null(strstr(t, "loadline_import_runs_total{state=\"FAILED\"} 1\n"));
	assert_non_null(strstr(t, "loadline_import_runs_total{state=\"SUCCEEDED\"} 0\n"));
	assert_non_null(strstr(t, "loadline_import_rows_total{bucket=\"succeeded\"} 740\n"));
	assert_non_null(strstr(t, "loadline_import_rows_total{bucket=\"failed\"} 8\n"));
	assert_non_null(strstr(t, "loadline_import_run_duration_seconds_bucket{le=\"0.5\"} 1\n"));
	assert_non_null(strstr(t, "loadline_import_run_duration_seconds_bucket{le=\"300\"} 1\n"));
	assert_non_null(strstr(t, "loadline_import_run_duration_seconds_bucket{le=\"+Inf\"} 2\n"));
	assert_non_null(strstr(t, "route=\"a\\\"b\\\\c\\nd\""));
	buf_done(&b);
}

static void test_route_table_overflow(void **state)
{
	(void)state;
	metrics_reset();
	char name[32];
	for (int i = 0; i < METRICS_MAX_ROUTES + 10; i++) {
		snprintf(name, sizeof name, "/r%d", i);
		metrics_http("GET", name, 200, 0);
	}
	struct buf b;
	const char *t = render(&b);
	assert_non_null(strstr(t, "route=\"/r0\",status=\"200\"} 1\n"));
	/* METRICS_MAX_ROUTES - 1 own slots, the 11 past them share "other". */
	assert_non_null(strstr(t, "route=\"other\",status=\"200\"} 11\n"));
	assert_null(strstr(t, "route=\"/r170\""));
	buf_done(&b);
}

#define THREADS 8
#define PER_THREAD 20000

static void *hammer(void *arg)
{
	const char *route = arg;
	for (int i = 0; i < PER_THREAD; i++)
		metrics_http("GET", i % 2 ? route : "/shared", 200, 0.001);
	return NULL;
}

static void test_concurrent_counts_are_exact(void **state)
{
	(void)state;
	metrics_reset();
	pthread_t th[THREADS];
	char names[THREADS][16];
	for (int i = 0; i < THREADS; i++) {
		snprintf(names[i], sizeof names[i], "/t%d", i % 4);
		pthread_create(&th[i], NULL, hammer, names[i]);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	struct buf b;
	const char *t = render(&b);
	char want[128];
	snprintf(want, sizeof want, "route=\"/shared\",status=\"200\"} %d\n", THREADS * PER_THREAD / 2);
	assert_non_null(strstr(t, want));
	snprintf(want, sizeof want, "route=\"/t0\",status=\"200\"} %d\n", 2 * PER_THREAD / 2);
	assert_non_null(strstr(t, want));
	/* Each route is interned exactly once. */
	assert_null(strstr(strstr(t, "route=\"/t1\",status") + 1, "route=\"/t1\",status"));
	buf_done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_http_series),
		cmocka_unit_test(test_method_label),
		cmocka_unit_test(test_webhook_series),
		cmocka_unit_test(test_run_series_and_escaping),
		cmocka_unit_test(test_route_table_overflow),
		cmocka_unit_test(test_concurrent_counts_are_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
