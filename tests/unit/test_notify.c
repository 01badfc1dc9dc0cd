/* The notification hub (src/notify): the held-request table (topics,
 * deadlines, free slots, organizations' shares), register-then-read, and
 * the futex words between two hubs sharing one page, as two processes do. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "base/clock.h"
#include "base/waiter.h"
#include "notify/notify.h"

static atomic_int resumed[64];

static void resume(void *who)
{
	atomic_fetch_add(&resumed[(intptr_t)who], 1);
}

static void reset(void)
{
	for (int i = 0; i < 64; i++)
		atomic_store(&resumed[i], 0);
}

static void sleep_ms(int ms)
{
	nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

static int wait_resumed(int who, int ms)
{
	for (int i = 0; i < ms && !atomic_load(&resumed[who]); i++)
		sleep_ms(1);
	return atomic_load(&resumed[who]);
}

/* A run change wakes that run's parked requests only, each once. */
static void test_wake_by_topic(void **state)
{
	(void)state;
	reset();
	struct notify *n = notify_new(16, 0);
	notify_start(n);
	int64_t later = now_ms() + 60000;
	int a = notify_hold_add(n, "run_a", "org_1", later, resume, (void *)1);
	int b = notify_hold_add(n, "run_b", "org_1", later, resume, (void *)2);
	int a2 = notify_hold_add(n, "run_a", "org_2", later, resume, (void *)3);
	assert_true(a >= 0 && b >= 0 && a2 >= 0);
	assert_true(notify_hold_park(n, a) && notify_hold_park(n, b) && notify_hold_park(n, a2));
	assert_int_equal(notify_held(n), 3);
	notify_run_changed(n, "run_a");
	assert_int_equal(atomic_load(&resumed[1]), 1);
	assert_int_equal(atomic_load(&resumed[3]), 1);
	assert_int_equal(atomic_load(&resumed[2]), 0);
	assert_int_equal(notify_held(n), 1);
	notify_run_changed(n, "run_a");   /* nobody left for run_a */
	assert_int_equal(atomic_load(&resumed[1]), 1);
	notify_run_changed(n, NULL);      /* some run: everyone */
	assert_int_equal(atomic_load(&resumed[2]), 1);
	assert_int_equal(notify_held(n), 0);
	notify_free(n);
}

/* Register, then read: a change after registering but before parking is
 * not lost — the park says so and nothing is ever resumed unparked. */
static void test_change_between_register_and_park(void **state)
{
	(void)state;
	reset();
	struct notify *n = notify_new(4, 0);
	notify_start(n);
	int h = notify_hold_add(n, "run_x", "org", now_ms() + 60000, resume, (void *)5);
	notify_run_changed(n, "run_x");
	assert_int_equal(atomic_load(&resumed[5]), 0);
	assert_false(notify_hold_park(n, h));
	assert_int_equal(notify_held(n), 0);
	h = notify_hold_add(n, "run_x", "org", now_ms() + 60000, resume, (void *)5);
	notify_hold_cancel(n, h);           /* answered instead */
	assert_int_equal(notify_held(n), 0);
	notify_free(n);
}

/* Deadlines come out of the heap in order; an earlier new one is not
 * kept waiting behind a later one. */
static void test_deadlines(void **state)
{
	(void)state;
	reset();
	struct notify *n = notify_new(8, 0);
	notify_start(n);
	int64_t t = now_ms();
	int late = notify_hold_add(n, "r1", "o", t + 60000, resume, (void *)10);
	assert_true(notify_hold_park(n, late));
	int soon = notify_hold_add(n, "r2", "o", t + 50, resume, (void *)11);
	assert_true(notify_hold_park(n, soon));
	int mid = notify_hold_add(n, "r3", "o", t + 150, resume, (void *)12);
	assert_true(notify_hold_park(n, mid));
	assert_int_equal(wait_resumed(11, 2000), 1);
	assert_int_equal(atomic_load(&resumed[12]), 0);
	assert_int_equal(wait_resumed(12, 2000), 1);
	assert_int_equal(atomic_load(&resumed[10]), 0);
	assert_int_equal(notify_held(n), 1);
	notify_stop(n);                     /* resumes the rest */
	assert_int_equal(atomic_load(&resumed[10]), 1);
	notify_free(n);
}

/* The table's size and an organization's share; freed slots are reused. */
static void test_limits_and_free_list(void **state)
{
	(void)state;
	struct notify *n = notify_new(4, 2);
	int64_t later = now_ms() + 60000;
	int h[4];
	h[0] = notify_hold_add(n, "r", "org_a", later, resume, (void *)1);
	h[1] = notify_hold_add(n, "r", "org_a", later, resume, (void *)1);
	assert_int_equal(notify_hold_add(n, "r", "org_a", later, resume, (void *)1), NOTIFY_HOLD_NONE);
	h[2] = notify_hold_add(n, "r", "org_b", later, resume, (void *)1);
	h[3] = notify_hold_add(n, "r", "org_c", later, resume, (void *)1);
	for (int i = 0; i < 4; i++)
		assert_true(h[i] >= 0);
	assert_int_equal(notify_hold_add(n, "r", "org_d", later, resume, (void *)1), NOTIFY_HOLD_NONE);
	notify_hold_cancel(n, h[0]);
	assert_true(notify_hold_add(n, "r", "org_a", later, resume, (void *)1) >= 0);
	for (int round = 0; round < 1000; round++) {   /* no slot leaks */
		notify_hold_cancel(n, h[3]);
		h[3] = notify_hold_add(n, "r", "org_e", later, resume, (void *)1);
		assert_true(h[3] >= 0);
	}
	notify_holds_close(n);
	assert_int_equal(notify_hold_add(n, "r", "org_f", later, resume, (void *)1), NOTIFY_HOLD_NONE);
	notify_free(n);
}

/* Two hubs on one MAP_SHARED page, as two processes of one SQLite
 * database: a run change in one wakes the other's held requests and a
 * queued delivery its sender; a hub's own events do not come back to it. */
static void test_shared_page_between_hubs(void **state)
{
	(void)state;
	reset();
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(page != MAP_FAILED);
	struct notify *a = notify_new(4, 0), *b = notify_new(4, 0);
	notify_use_shared(a, page);
	notify_use_shared(b, page);
	notify_start(a);
	notify_start(b);
	int h = notify_hold_add(b, "run_q", "o", now_ms() + 60000, resume, (void *)20);
	assert_true(notify_hold_park(b, h));
	int own = notify_hold_add(a, "run_other", "o", now_ms() + 60000, resume, (void *)21);
	assert_true(notify_hold_park(a, own));
	struct waiter *w = notify_waiter(b, NOTIFY_WEBHOOKS);
	unsigned long ticket = waiter_ticket(w);
	notify_run_changed(a, "run_q");
	assert_int_equal(wait_resumed(20, 2000), 1);
	notify_work(a, NOTIFY_WEBHOOKS);
	int64_t t0 = now_ms();
	assert_true(waiter_nap_since(w, ticket, 2000));
	assert_true(now_ms() - t0 < 1000);
	sleep_ms(50);
	assert_int_equal(atomic_load(&resumed[21]), 0);   /* a's own change did not wake a's others */
	assert_true(notify_listener_wakeups(a) >= 1);
	notify_free(a);
	notify_free(b);
	munmap(page, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wake_by_topic),
		cmocka_unit_test(test_change_between_register_and_park),
		cmocka_unit_test(test_deadlines),
		cmocka_unit_test(test_limits_and_free_list),
		cmocka_unit_test(test_shared_page_between_hubs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
