/* Webhook signatures (Standard Webhooks), the public-address rule, the
 * endpoint URL check and the backoff (src/webhook/). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sodium.h>
#include <string.h>

#include "webhook/webhook.h"

/* The specification's published example: secret, msg id, timestamp, body
 * and the signature its reference libraries compute. */
static void test_sign_matches_the_spec_vector(void **state)
{
	(void)state;
	const char *body = "{\"test\": 2432232314}";
	char sig[128];
	assert_int_equal(webhook_sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
				      1614265330, body, strlen(body), sig, sizeof sig), 0);
	assert_string_equal(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
	assert_int_equal(webhook_sign("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "m", 1, "", 0, sig, sizeof sig), -1);
	assert_int_equal(webhook_sign("whsec_not base64!", "m", 1, "", 0, sig, sizeof sig), -1);
	char secret[80];
	webhook_new_secret(secret);
	unsigned char key[64];
	size_t klen = 0;
	assert_int_equal(strncmp(secret, "whsec_", 6), 0);
	assert_int_equal(sodium_base642bin(key, sizeof key, secret + 6, strlen(secret + 6), NULL, &klen, NULL,
					   sodium_base64_VARIANT_ORIGINAL), 0);
	assert_int_equal(klen, 24);
}

static bool public4(const char *a)
{
	struct sockaddr_in s = {.sin_family = AF_INET};
	assert_int_equal(inet_pton(AF_INET, a, &s.sin_addr), 1);
	return webhook_address_public((struct sockaddr *)&s);
}

static bool public6(const char *a)
{
	struct sockaddr_in6 s = {.sin6_family = AF_INET6};
	assert_int_equal(inet_pton(AF_INET6, a, &s.sin6_addr), 1);
	return webhook_address_public((struct sockaddr *)&s);
}

static void test_only_public_addresses(void **state)
{
	(void)state;
	const char *refused4[] = {"127.0.0.1", "127.9.9.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
				  "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255",
				  "198.18.0.1", "192.0.2.10"};
	for (size_t i = 0; i < sizeof refused4 / sizeof refused4[0]; i++)
		assert_false(public4(refused4[i]));
	assert_true(public4("93.184.216.34"));
	assert_true(public4("172.32.0.1"));
	assert_true(public4("8.8.8.8"));
	const char *refused6[] = {"::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1",
				  "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "2001:db8::1"};
	for (size_t i = 0; i < sizeof refused6 / sizeof refused6[0]; i++)
		assert_false(public6(refused6[i]));
	assert_true(public6("2606:4700:4700::1111"));
	assert_true(public6("::ffff:8.8.8.8"));
	/* Issue 27 item 14: every IANA special-purpose range, and any address
	 * embedding a refused IPv4 address (NAT64, 6to4, SIIT). */
	const char *special6[] = {"64:ff9b:1::808:808", "64:ff9b:1::1", "::ffff:0:7f00:1", "::ffff:0:a00:1",
				  "2002:7f00:1::1", "2002:a00:1::1", "2002:c0a8:101::1", "fec0::1", "feff::1",
				  "100::1", "100::ffff:ffff:ffff:ffff", "2001::1", "2001:0:4136:e378::1",
				  "2001:2::1", "2001:10::1", "2001:1ff::1", "3fff::1", "5f00::1", "4000::1",
				  "1000::1", "e000::1", "64:ff9b::7f00:1", "::7f00:1"};
	for (size_t i = 0; i < sizeof special6 / sizeof special6[0]; i++)
		if (public6(special6[i]))
			fail_msg("%s should be refused", special6[i]);
	assert_true(public6("64:ff9b::808:808"));     /* NAT64 of a public address */
	assert_true(public6("2002:808:808::1"));      /* 6to4 of a public address */
	assert_true(public6("2001:200::1"));          /* past 2001::/23: allocated, global */
	assert_true(public6("2a00:1450:4001::200e"));
}

static void test_url_check(void **state)
{
	(void)state;
	assert_null(webhook_url_check("https://hooks.example.com/x?y=1", false));
	assert_non_null(webhook_url_check("http://hooks.example.com/", false));
	assert_null(webhook_url_check("http://hooks.example.com/", true));
	assert_non_null(webhook_url_check("ftp://hooks.example.com/", true));
	assert_non_null(webhook_url_check("https://u:p@hooks.example.com/", false));
	assert_non_null(webhook_url_check("https://hooks.example.com/a b", false));
	assert_non_null(webhook_url_check("hooks.example.com", false));
	assert_non_null(webhook_url_check("", false));
	assert_non_null(webhook_url_check(NULL, false));
}

static void test_backoff_doubles_to_an_hour(void **state)
{
	(void)state;
	assert_int_equal(webhook_backoff(1, 60000), 60000);
	assert_int_equal(webhook_backoff(2, 60000), 120000);
	assert_int_equal(webhook_backoff(6, 60000), 1920000);
	assert_int_equal(webhook_backoff(7, 60000), 3600000);
	assert_int_equal(webhook_backoff(1000, 60000), 3600000);
}

int main(void)
{
	if (sodium_init() < 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sign_matches_the_spec_vector),
		cmocka_unit_test(test_only_public_addresses),
		cmocka_unit_test(test_url_check),
		cmocka_unit_test(test_backoff_doubles_to_an_hour),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
