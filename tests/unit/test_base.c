/* Unit tests for src/base: arena, buf, code table, waiter. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <sodium.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/codes.h"
#include "base/digest.h"
#include "base/envfile.h"
#include "base/ids.h"
#include "base/text.h"
#include "base/url.h"
#include "base/waiter.h"
#include "base/clock.h"

static void count_cleanup(void *p)
{
	(*(int *)p)++;
}

/* A held long poll drops what its handler built after it registered
 * (issue 27): arena_rewind frees the blocks allocated after the mark —
 * later blocks and big one-offs — runs the cleanups registered after it,
 * and keeps what came before. */
static void test_arena_mark_rewind(void **state)
{
	(void)state;
	struct arena *a = arena_new_sized(4096 - 64);
	assert_int_equal(arena_reserved(a), 4096 - 64);
	char *kept = arena_strdup(a, "registered");
	int before = 0, after = 0;
	arena_cleanup(a, count_cleanup, &before);
	size_t reserved = arena_reserved(a);
	struct arena_mark m = arena_mark(a);
	for (int i = 0; i < 100; i++)
		arena_alloc(a, 700);            /* several 16 KiB blocks */
	arena_alloc(a, 100 * 1024);         /* a big one-off behind the head */
	arena_cleanup(a, count_cleanup, &after);
	assert_true(arena_reserved(a) > reserved + 100 * 1024);
	arena_rewind(a, m);
	assert_int_equal(after, 1);
	assert_int_equal(before, 0);
	assert_int_equal(arena_reserved(a), reserved);
	assert_string_equal(kept, "registered");
	/* A one-off right behind the mark's head, then rewound again. */
	struct arena_mark m2 = arena_mark(a);
	char *big = arena_alloc(a, 64 * 1024);
	memset(big, 'x', 64 * 1024);
	arena_rewind(a, m2);
	assert_int_equal(arena_reserved(a), reserved);
	char *next = arena_strdup(a, "again");
	assert_string_equal(next, "again");
	assert_string_equal(kept, "registered");
	arena_free(a);
	assert_int_equal(before, 1);
	assert_int_equal(after, 1);
}

static void test_arena_alloc_and_big(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	char *s = arena_strdup(a, "hello");
	assert_string_equal(s, "hello");
	size_t base = arena_reserved(a);
	/* A 5 MB one-off: zeroed, aligned, its own block behind the head. */
	const size_t big_n = 5u << 20;
	unsigned char *big = arena_alloc(a, big_n);
	assert_int_equal((uintptr_t)big % 16, 0);
	for (size_t i = 0; i < big_n; i += 4093)
		assert_int_equal(big[i], 0);
	memset(big, 'x', big_n);
	assert_true(arena_reserved(a) >= base + big_n);
	/* The head keeps filling after the one-off. */
	char *p = arena_printf(a, "%s-%d", s, 42);
	assert_string_equal(p, "hello-42");
	assert_int_equal(big[big_n - 1], 'x');
	/* Reset gives the big block back and keeps one ordinary block. */
	arena_reset(a);
	assert_int_equal(arena_reserved(a), base);
	assert_string_equal(arena_strdup(a, "again"), "again");
	/* Many small blocks, then a reset: again one ordinary block. */
	for (int i = 0; i < 1000; i++)
		arena_alloc(a, 1000);
	assert_true(arena_reserved(a) > base);
	arena_reset(a);
	assert_int_equal(arena_reserved(a), base);
	arena_free(a);
	arena_free(NULL);
}

static void test_url_encode(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	assert_string_equal(url_encode(a, "a-b._~Z9", NULL), "a-b._~Z9");
	assert_string_equal(url_encode(a, "x y/z?&=%", NULL), "x%20y%2Fz%3F%26%3D%25");
	assert_string_equal(url_encode(a, "/imports/runs?x=1", "/"), "/imports/runs%3Fx%3D1");
	assert_string_equal(url_encode(a, "\xc3\xa9\x01", NULL), "%C3%A9%01");
	assert_string_equal(url_encode(a, "", NULL), "");
	arena_free(a);
}

/* Strict UTF-8 (issue 20 item 11): what PostgreSQL accepts, no more. */
static void test_text_utf8_valid(void **state)
{
	(void)state;
	const char *good[] = {"", "abc", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x9a\x9a", "\xed\x9f\xbf",
			      "\xf4\x8f\xbf\xbf", "\xef\xbf\xbd"};
	const char *bad[] = {"\xff\xfe", "abc\xc3", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
			     "\xf0\x80\x80\x80", "\x80", "\xe2\x82", "\xf5\x80\x80\x80"};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		assert_true(text_utf8_valid(good[i]));
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_false(text_utf8_valid(bad[i]));
}

static void test_text_one_line(void **state)
{
	(void)state;
	struct arena *a = arena_new();
	assert_string_equal(text_one_line(a, "a\r\nBcc: x\tz", 100), "a  Bcc: x z");
	assert_string_equal(text_one_line(a, "p\xe2\x80\xa8q\xc2\x85r\x7f", 100), "p q r ");
	assert_string_equal(text_one_line(a, "caf\xc3\xa9 \xff", 100), "caf\xc3\xa9 ?");
	assert_string_equal(text_one_line(a, "abcdef", 4), "abcd...");
	assert_string_equal(text_one_line(a, "ab\xc3\xa9", 3), "ab...");   /* never half a character */
	assert_string_equal(text_one_line(a, NULL, 10), "");
	arena_free(a);
}

static void test_buf_cap(void **state)
{
	(void)state;
	struct buf b;
	buf_init(&b, 8);
	assert_int_equal(buf_puts(&b, "1234"), 0);
	assert_int_equal(buf_printf(&b, "%d", 5678), 0);
	assert_int_equal(buf_putc(&b, 'x'), -1);
	assert_string_equal(buf_str(&b), "12345678");
	assert_int_equal(b.len, 8);
	buf_done(&b);
	assert_string_equal(buf_str(&b), "");
}

static void test_codes_table(void **state)
{
	(void)state;
	assert_string_equal(code_name(CODE_MISSING_FILE), "MISSING_FILE");
	assert_int_equal(code_status(CODE_UNAUTHORIZED), 401);
	assert_int_equal(code_status(CODE_TOO_LARGE), 413);
	assert_int_equal(code_status(CODE_UNSUPPORTED_MIME), 415);
	assert_int_equal(code_kind(CODE_LOOKUP_MISS), CODE_KIND_ROW_WARNING);
	assert_int_equal(code_from_name("STAGING_EXPIRED"), CODE_STAGING_EXPIRED);
	assert_int_equal(code_from_name("NOPE"), CODE_OK);
	assert_null(code_name((enum code)9999));
	/* Every code has a summary and a hint, and names are UPPER_SNAKE_CASE. */
	for (int c = 1; c < CODE__COUNT; c++) {
		const char *n = code_name((enum code)c);
		assert_true(strlen(code_summary((enum code)c)) > 10);
		assert_true(strlen(code_hint((enum code)c)) > 10);
		for (const char *q = n; *q; q++)
			assert_true((*q >= 'A' && *q <= 'Z') || *q == '_');
	}
}

/* A wake-up between looking for work and napping is not lost: the nap
 * with the ticket taken before the look returns at once. */
static void test_waiter_keeps_a_wakeup_that_came_early(void **state)
{
	(void)state;
	struct waiter w;
	waiter_init(&w);
	unsigned long ticket = waiter_ticket(&w);
	waiter_wake(&w);   /* (the look found nothing; then work arrived) */
	int64_t t0 = now_ms();
	assert_true(waiter_nap_since(&w, ticket, 5000));
	assert_true(now_ms() - t0 < 1000);
	/* Positive control: with a fresh ticket the nap lasts. */
	t0 = now_ms();
	assert_true(waiter_nap_since(&w, waiter_ticket(&w), 200));
	assert_true(now_ms() - t0 >= 150);
	waiter_stop(&w);
	assert_false(waiter_nap(&w, 5000));
	waiter_done(&w);
}

/* The digest is SHA-256: the FIPS 180-2 vectors, and libsodium's digest of
 * the same bytes fed in pieces of every size from 1 to 97 (fingerprints and
 * content hashes stored before nettle must still match). */
static void test_digest_is_sha256(void **state)
{
	(void)state;
	struct digest d;
	char hex[DIGEST_HEX];
	digest_init(&d);
	digest_update(&d, "abc", 3);
	digest_final_hex(&d, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	digest_init(&d);
	digest_final_hex(&d, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_true(sodium_init() >= 0);
	size_t n = 100000;
	unsigned char *buf = malloc(n);
	randombytes_buf(buf, n);
	unsigned char want[crypto_hash_sha256_BYTES], got[DIGEST_BYTES];
	crypto_hash_sha256(want, buf, n);
	for (size_t piece = 1; piece <= 97; piece += 8) {
		digest_init(&d);
		for (size_t at = 0; at < n; at += piece)
			digest_update(&d, buf + at, n - at < piece ? n - at : piece);
		digest_final(&d, got);
		assert_memory_equal(got, want, DIGEST_BYTES);
	}
	free(buf);
}

/* The systemd EnvironmentFile subset of loadline.env(5). */
struct env_seen {
	char out[1024];
	int bad[8], nbad;
};

static void env_seen_set(const char *name, const char *value, void *ctx)
{
	struct env_seen *e = ctx;
	size_t n = strlen(e->out);
	snprintf(e->out + n, sizeof e->out - n, "%s=[%s]\n", name, value);
}

static void env_seen_bad(int lineno, void *ctx)
{
	struct env_seen *e = ctx;
	if (e->nbad < 8)
		e->bad[e->nbad++] = lineno;
}

static void test_envfile_subset(void **state)
{
	(void)state;
	static const char text[] =
		"# comment\n"
		"  ; another\n"
		"\n"
		"A=plain value  \n"
		"B = \"double \\\"q\\\" \\$x \\n\" tail\r\n"
		"C='single \\ # kept'\n"
		"D=a\\ b # not a comment\n"
		"1BAD=x\n"
		"E=\"unterminated\n"
		"no equals\n"
		"F=\n"
		"G=last";
	struct env_seen e = {0};
	struct envfile_cb cb = {env_seen_set, env_seen_bad, &e};
	assert_int_equal(envfile_parse(text, sizeof text - 1, &cb), 6);
	assert_string_equal(e.out, "A=[plain value]\n"
				   "B=[double \"q\" $x \\n tail]\n"
				   "C=[single \\ # kept]\n"
				   "D=[a b # not a comment]\n"
				   "F=[]\n"
				   "G=[last]\n");
	assert_int_equal(e.nbad, 3);
	assert_int_equal(e.bad[0], 8);
	assert_int_equal(e.bad[1], 9);
	assert_int_equal(e.bad[2], 10);
	/* A NUL byte in a line: the line is refused, not cut short. */
	struct env_seen z = {0};
	cb.ctx = &z;
	assert_int_equal(envfile_parse("H=a\0b\nI=c\n", 10, &cb), 1);
	assert_string_equal(z.out, "I=[c]\n");
	assert_int_equal(z.nbad, 1);
}

/* buf_put_int writes what "%lld" writes, at the ends of the range too. */
static void test_buf_put_int(void **state)
{
	(void)state;
	const long long vals[] = {0, 7, -1, 42, 1000000, -987654321, LLONG_MAX, LLONG_MIN};
	struct buf b;
	buf_init(&b, 1024);
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		char want[32];
		snprintf(want, sizeof want, "%lld", vals[i]);
		buf_clear(&b);
		assert_int_equal(buf_put_int(&b, vals[i]), 0);
		assert_string_equal(buf_str(&b), want);
	}
	buf_done(&b);
}

/* Ids of rows added in bulk sort in creation order (their table's id index
 * grows at its end, docs/benchmarks.md "Growth"), stay valid ids of the same
 * length, and keep a random part. */
static void test_ordered_ids_sort_by_creation(void **state)
{
	(void)state;
	assert_int_equal(ids_init(), 0);
	char prev[ID_MAX], id[ID_MAX], again[ID_MAX];
	id_new_ordered("load", prev);
	for (int i = 0; i < 5; i++) {
		struct timespec two_ms = {0, 2000000};
		nanosleep(&two_ms, NULL);
		id_new_ordered("load", id);
		assert_true(id_valid(id, "load"));
		assert_true(strcmp(prev, id) < 0);
		memcpy(prev, id, sizeof id);
	}
	id_new_ordered("load", again);
	assert_memory_not_equal(id + 5 + ID_TIME_CHARS, again + 5 + ID_TIME_CHARS, ID_RANDOM_CHARS - ID_TIME_CHARS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arena_alloc_and_big),
		cmocka_unit_test(test_arena_mark_rewind),
		cmocka_unit_test(test_digest_is_sha256),
		cmocka_unit_test(test_buf_cap),
		cmocka_unit_test(test_buf_put_int),
		cmocka_unit_test(test_url_encode),
		cmocka_unit_test(test_text_one_line),
		cmocka_unit_test(test_text_utf8_valid),
		cmocka_unit_test(test_codes_table),
		cmocka_unit_test(test_envfile_subset),
		cmocka_unit_test(test_ordered_ids_sort_by_creation),
		cmocka_unit_test(test_waiter_keeps_a_wakeup_that_came_early),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
