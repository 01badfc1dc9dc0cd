/* Unit tests for ID token verification (src/auth/oidc.c): tokens signed
 * here with cjose, checked against a JWKS made of the public key. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjose/cjose.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/oidc.h"

#define ISS "https://id.example.test"
#define AUD "loadline-client"
#define NONCE "n0nce-abc"
#define NOW 1795300000000LL

static cjose_jwk_t *key, *other_key;
static char *jwks;

static char *public_jwks(cjose_jwk_t *k, const char *kid)
{
	cjose_err e;
	char *pub = cjose_jwk_to_json(k, false, &e);
	json_t *j = json_loads(pub, 0, NULL);
	free(pub);
	json_object_set_new(j, "kid", json_string(kid));
	json_object_set_new(j, "use", json_string("sig"));
	json_t *doc = json_pack("{s:[o]}", "keys", j);
	char *s = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	return s;
}

static int setup(void **state)
{
	(void)state;
	static const uint8_t e65537[] = {1, 0, 1};
	cjose_err e;
	key = cjose_jwk_create_RSA_random(2048, e65537, sizeof e65537, &e);
	other_key = cjose_jwk_create_RSA_random(2048, e65537, sizeof e65537, &e);
	jwks = public_jwks(key, "k1");
	return key && other_key && jwks ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	cjose_jwk_release(key);
	cjose_jwk_release(other_key);
	free(jwks);
	return 0;
}

/* Claims of a good token; tests change them. */
static json_t *claims(void)
{
	return json_pack("{s:s,s:s,s:s,s:I,s:I,s:s,s:s,s:b,s:s}", "iss", ISS, "sub", "user-1", "aud", AUD, "exp",
			 (json_int_t)(NOW / 1000 + 300), "iat", (json_int_t)(NOW / 1000 - 5), "nonce", NONCE, "email",
			 "ada@example.test", "email_verified", 1, "name", "Ada");
}

/* Signs c (stolen) with k under alg/kid; returns a malloc'd compact JWS. */
static char *sign(cjose_jwk_t *k, const char *alg, const char *kid, json_t *c)
{
	cjose_err e;
	cjose_header_t *h = cjose_header_new(&e);
	cjose_header_set(h, CJOSE_HDR_ALG, alg, &e);
	if (kid)
		cjose_header_set(h, CJOSE_HDR_KID, kid, &e);
	char *payload = json_dumps(c, JSON_COMPACT);
	json_decref(c);
	cjose_jws_t *jws = cjose_jws_sign(k, h, (const uint8_t *)payload, strlen(payload), &e);
	free(payload);
	cjose_header_release(h);
	const char *ser = NULL;
	assert_true(jws && cjose_jws_export(jws, &ser, &e));
	char *out = strdup(ser);
	cjose_jws_release(jws);
	return out;
}

static enum code verify(const char *tok, const char *nonce, struct oidc_claims *ret, char *err)
{
	return oidc_verify_with_keys(tok, jwks, ISS, AUD, nonce, NOW, ret, err);
}

static void test_good_token(void **state)
{
	(void)state;
	char err[OIDC_ERR_MAX] = "";
	struct oidc_claims c;
	char *tok = sign(key, "RS256", "k1", claims());
	assert_int_equal(verify(tok, NONCE, &c, err), CODE_OK);
	assert_string_equal(c.sub, "user-1");
	assert_string_equal(c.email, "ada@example.test");
	assert_true(c.email_verified);
	assert_string_equal(c.name, "Ada");
	/* a token without kid is checked against every fitting key */
	char *nokid = sign(key, "RS256", NULL, claims());
	assert_int_equal(verify(nokid, NONCE, &c, err), CODE_OK);
	free(tok);
	free(nokid);
}

static void expect_refused(char *tok, const char *nonce, const char *why)
{
	char err[OIDC_ERR_MAX] = "";
	struct oidc_claims c;
	assert_int_equal(verify(tok, nonce, &c, err), CODE_UNAUTHORIZED);
	if (!strstr(err, why))
		fail_msg("expected \"%s\" in \"%s\"", why, err);
	free(tok);
}

/* base64url(JSON) for hand-made token parts. */
static char *b64(const char *s)
{
	size_t n = sodium_base64_ENCODED_LEN(strlen(s), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	char *out = malloc(n);
	sodium_bin2base64(out, n, (const unsigned char *)s, strlen(s), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	return out;
}

static void test_tampered_payload(void **state)
{
	(void)state;
	char *tok = sign(key, "RS256", "k1", claims());
	char *dot1 = strchr(tok, '.'), *dot2 = strchr(dot1 + 1, '.');
	json_t *c = claims();
	json_object_set_new(c, "email", json_string("mallory@example.test"));
	char *text = json_dumps(c, JSON_COMPACT), *p = b64(text);
	json_decref(c);
	char forged[8192];
	snprintf(forged, sizeof forged, "%.*s.%s%s", (int)(dot1 - tok), tok, p, dot2);
	free(text);
	free(p);
	free(tok);
	expect_refused(strdup(forged), NONCE, "signature");
}

static void test_signed_by_another_key(void **state)
{
	(void)state;
	expect_refused(sign(other_key, "RS256", "k1", claims()), NONCE, "signature");
}

static void test_claims_checked(void **state)
{
	(void)state;
	json_t *c;
	c = claims(), json_object_set_new(c, "iss", json_string("https://evil.test"));
	expect_refused(sign(key, "RS256", "k1", c), NONCE, "another issuer");
	c = claims(), json_object_set_new(c, "aud", json_string("someone-else"));
	expect_refused(sign(key, "RS256", "k1", c), NONCE, "another client");
	c = claims(), json_object_set_new(c, "aud", json_pack("[s,s]", AUD, "other"));
	expect_refused(sign(key, "RS256", "k1", c), NONCE, "another client");     /* no azp */
	c = claims(), json_object_set_new(c, "exp", json_integer(NOW / 1000 - 120));
	expect_refused(sign(key, "RS256", "k1", c), NONCE, "expired");
	c = claims(), json_object_del(c, "exp");
	expect_refused(sign(key, "RS256", "k1", c), NONCE, "expired");
	c = claims(), json_object_set_new(c, "iat", json_integer(NOW / 1000 + 3600));
	expect_refused(sign(key, "RS256", "k1", c), NONCE, "future");
	expect_refused(sign(key, "RS256", "k1", claims()), "another-nonce", "nonce");
	c = claims(), json_object_del(c, "nonce");
	expect_refused(sign(key, "RS256", "k1", c), NONCE, "nonce");
	c = claims(), json_object_del(c, "sub");
	expect_refused(sign(key, "RS256", "k1", c), NONCE, "subject");
}

static void test_several_audiences_with_azp(void **state)
{
	(void)state;
	json_t *c = claims();
	json_object_set_new(c, "aud", json_pack("[s,s]", "other", AUD));
	json_object_set_new(c, "azp", json_string(AUD));
	char *tok = sign(key, "RS256", "k1", c);
	char err[OIDC_ERR_MAX];
	struct oidc_claims out;
	assert_int_equal(verify(tok, NONCE, &out, err), CODE_OK);
	free(tok);
}

static void test_only_asymmetric_algorithms(void **state)
{
	(void)state;
	/* alg none: no signature at all */
	char *h = b64("{\"alg\":\"none\"}");
	json_t *c = claims();
	char *text = json_dumps(c, JSON_COMPACT), *p = b64(text);
	json_decref(c);
	char tok[8192];
	snprintf(tok, sizeof tok, "%s.%s.", h, p);
	expect_refused(strdup(tok), NONCE, "");
	free(h);
	free(text);
	free(p);
	/* HS256 keyed with the provider's public key (the classic confusion) */
	cjose_err e;
	char *pub = cjose_jwk_to_json(key, false, &e);
	cjose_jwk_t *oct = cjose_jwk_create_oct_spec((const uint8_t *)pub, strlen(pub), &e);
	free(pub);
	expect_refused(sign(oct, "HS256", "k1", claims()), NONCE, "algorithm (HS256) is not accepted");
	cjose_jwk_release(oct);
}

static void test_unknown_kid_is_not_found(void **state)
{
	(void)state;
	char *tok = sign(key, "RS256", "rotated", claims());
	char err[OIDC_ERR_MAX];
	struct oidc_claims c;
	assert_int_equal(verify(tok, NONCE, &c, err), CODE_NOT_FOUND);
	free(tok);
}

static void test_email_verified_must_be_true(void **state)
{
	(void)state;
	json_t *c = claims();
	json_object_set_new(c, "email_verified", json_string("true"));
	char *tok = sign(key, "RS256", "k1", c);
	char err[OIDC_ERR_MAX];
	struct oidc_claims out;
	assert_int_equal(verify(tok, NONCE, &out, err), CODE_OK);
	assert_false(out.email_verified);
	free(tok);
}

static void test_garbage(void **state)
{
	(void)state;
	const char *bad[] = {"", "a.b.c", "not a token", "....", "eyJhbGciOiJSUzI1NiJ9.e30"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_refused(strdup(bad[i]), NONCE, "");
}

static void test_pkce_challenge(void **state)
{
	(void)state;
	/* RFC 7636 appendix B */
	char out[OIDC_CHALLENGE_LEN + 1];
	oidc_pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", out);
	assert_string_equal(out, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_token),
		cmocka_unit_test(test_tampered_payload),
		cmocka_unit_test(test_signed_by_another_key),
		cmocka_unit_test(test_claims_checked),
		cmocka_unit_test(test_several_audiences_with_azp),
		cmocka_unit_test(test_only_asymmetric_algorithms),
		cmocka_unit_test(test_unknown_kid_is_not_found),
		cmocka_unit_test(test_email_verified_must_be_true),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_pkce_challenge),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
