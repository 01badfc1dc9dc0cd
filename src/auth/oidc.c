/* OpenID Connect relying party: discovery, keys, code redemption, ID token
 * verification. */
#include "oidc.h"

#include <cjose/cjose.h>
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/url.h"
#include "base/waiter.h"

/* Provider documents are small; anything bigger is refused. */
#define DOC_MAX (256 * 1024)
#define ID_TOKEN_MAX (16 * 1024)
#define DISCOVERY_TTL_MS (3600LL * 1000)
/* A token naming an unknown key makes us fetch the keys again, at most
 * this often, so forged kids cannot turn us into a request amplifier. */
#define JWKS_REFETCH_MS (10LL * 1000)
#define FAIL_BACKOFF_MS (5LL * 1000)
/* A sign-in whose token names a key we do not have (the provider rotated
 * its keys) waits this long for the refresher.  It is the callback, which
 * has just had an answer from the provider; nothing else ever waits. */
#define ROTATION_WAIT_MS 1500L
/* Clock skew tolerated between us and the provider. */
#define LEEWAY_MS (60LL * 1000)

static void fail(char err[OIDC_ERR_MAX], const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(char err[OIDC_ERR_MAX], const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, OIDC_ERR_MAX, fmt, ap);
	va_end(ap);
}

/* The cache of the provider's documents, one per relying party. */
struct oidc {
	char issuer[OIDC_URL_MAX];
	char client_id[256];
	char client_secret[256];
	pthread_mutex_t mu;     /* guards what follows; never held across the network */
	bool have;
	int64_t fetched_at;
	struct oidc_provider p;
	char *jwks;             /* JSON text; malloc'd */
	int64_t jwks_at;
	/* The documents are fetched by a thread of their own (started with
	 * the server, oidc_start), never by an HTTP thread: a hanging provider
	 * holds up no request.  Requests read the cache and ask for a refresh
	 * (want_jwks); only a callback whose token names an unknown key waits
	 * on `changed`, briefly.  A request never waits for a cold cache: an
	 * HTTP thread that waits holds up every connection it serves. */
	pthread_t thread;
	bool started, stop, want_jwks;
	pthread_cond_t wake, changed;
	int64_t disc_failed_at, jwks_failed_at;
	int64_t fetch_started_at;   /* of the fetch in flight; 0 when none */
};

struct oidc *oidc_new(const char *issuer, const char *client_id, const char *client_secret)
{
	struct oidc *o = calloc(1, sizeof(*o));
	if (!o)
		abort();
	snprintf(o->issuer, sizeof o->issuer, "%s", issuer ? issuer : "");
	snprintf(o->client_id, sizeof o->client_id, "%s", client_id ? client_id : "");
	snprintf(o->client_secret, sizeof o->client_secret, "%s", client_secret ? client_secret : "");
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->wake, NULL);
	pthread_cond_init(&o->changed, NULL);
	return o;
}

void oidc_free(struct oidc *o)
{
	if (!o)
		return;
	pthread_mutex_lock(&o->mu);
	o->stop = true;
	pthread_cond_broadcast(&o->wake);
	bool started = o->started;
	pthread_mutex_unlock(&o->mu);
	if (started)
		pthread_join(o->thread, NULL);
	pthread_cond_destroy(&o->wake);
	pthread_cond_destroy(&o->changed);
	pthread_mutex_destroy(&o->mu);
	free(o->jwks);
	free(o);
}

static void ask_refresher(struct oidc *o);

void oidc_start(struct oidc *o)
{
	if (!oidc_configured(o))
		return;
	pthread_mutex_lock(&o->mu);
	ask_refresher(o);
	pthread_mutex_unlock(&o->mu);
}

bool oidc_configured(const struct oidc *o)
{
	return o && o->issuer[0] && o->client_id[0];
}

/* ---- HTTP ---- */

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
	return buf_append(ud, p, size * n) ? 0 : size * n;
}

/* GET url (or POST form when form is not NULL) into out.  Returns CODE_OK
 * with *ret_status set, or CODE_SERVICE_UNAVAILABLE with a message. */
static enum code http_call(const char *url, const char *form, const char *authorization, struct buf *out,
			   long *ret_status, char err[OIDC_ERR_MAX])
{
	CURL *c = curl_easy_init();
	if (!c) {
		fail(err, "cannot start an HTTP client");
		return CODE_SERVICE_UNAVAILABLE;
	}
	struct curl_slist *h = curl_slist_append(NULL, "Accept: application/json");
	if (authorization)
		h = curl_slist_append(h, authorization);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 4000L);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	if (form)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, form);
	CURLcode rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, ret_status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	if (rc != CURLE_OK) {
		snprintf(err, OIDC_ERR_MAX, "%s: %s", url, rc == CURLE_WRITE_ERROR ? "answer too large" : curl_easy_strerror(rc));
		return CODE_SERVICE_UNAVAILABLE;
	}
	return CODE_OK;
}

/* GET a JSON document that must answer 200. */
static enum code get_json(const char *url, json_t **ret, char err[OIDC_ERR_MAX])
{
	struct buf b;
	buf_init(&b, DOC_MAX);
	long status = 0;
	enum code rc = http_call(url, NULL, NULL, &b, &status, err);
	if (!rc && status != 200) {
		snprintf(err, OIDC_ERR_MAX, "%s answered %ld", url, status);
		rc = CODE_SERVICE_UNAVAILABLE;
	}
	if (!rc && !(*ret = json_loadb(buf_str(&b), b.len, 0, NULL))) {
		snprintf(err, OIDC_ERR_MAX, "%s is not JSON", url);
		rc = CODE_INTERNAL_ERROR;
	}
	buf_done(&b);
	return rc;
}

/* ---- discovery and keys, cached ---- */

static bool copy_str(json_t *doc, const char *key, char *dst, size_t n)
{
	const char *s = json_string_value(json_object_get(doc, key));
	if (!s || strlen(s) >= n)
		return false;
	memcpy(dst, s, strlen(s) + 1);
	return true;
}

static enum code fetch_discovery(const struct oidc *o, struct oidc_provider *p, char err[OIDC_ERR_MAX])
{
	char url[OIDC_URL_MAX + 64];
	size_t n = strlen(o->issuer);
	while (n && o->issuer[n - 1] == '/')
		n--;
	snprintf(url, sizeof url, "%.*s/.well-known/openid-configuration", (int)n, o->issuer);
	json_t *doc = NULL;
	enum code rc = get_json(url, &doc, err);
	if (rc)
		return rc;
	memset(p, 0, sizeof(*p));
	if (!copy_str(doc, "issuer", p->issuer, sizeof p->issuer) ||
	    !copy_str(doc, "authorization_endpoint", p->authorization_endpoint, sizeof p->authorization_endpoint) ||
	    !copy_str(doc, "token_endpoint", p->token_endpoint, sizeof p->token_endpoint) ||
	    !copy_str(doc, "jwks_uri", p->jwks_uri, sizeof p->jwks_uri)) {
		fail(err, "the discovery document lacks issuer, an endpoint or jwks_uri");
		rc = CODE_INTERNAL_ERROR;
	} else if (json_object_get(doc, "userinfo_endpoint") &&
		   !copy_str(doc, "userinfo_endpoint", p->userinfo_endpoint, sizeof p->userinfo_endpoint)) {
		fail(err, "the discovery document's userinfo_endpoint is not usable");
		rc = CODE_INTERNAL_ERROR;
	} else if (strcmp(p->issuer, o->issuer)) {
		/* OpenID Connect Discovery 1.0 §4.3: they must be identical. */
		fail(err, "the discovery document names another issuer (%s)", p->issuer);
		rc = CODE_INTERNAL_ERROR;
	}
	json_decref(doc);
	return rc;
}

static enum code not_responding(char err[OIDC_ERR_MAX])
{
	fail(err, "the sign-in provider is not responding; try again in a few seconds");
	return CODE_SERVICE_UNAVAILABLE;
}

/* Fetches the JWKS text (malloc'd) without holding any lock. */
static enum code fetch_jwks(const struct oidc_provider *p, char **ret, char err[OIDC_ERR_MAX])
{
	json_t *doc = NULL;
	enum code rc = get_json(p->jwks_uri, &doc, err);
	if (!rc && !json_is_array(json_object_get(doc, "keys"))) {
		fail(err, "the JWKS has no keys array");
		rc = CODE_INTERNAL_ERROR;
	}
	*ret = rc ? NULL : json_dumps(doc, JSON_COMPACT);
	if (!rc && !*ret)
		rc = CODE_INTERNAL_ERROR;
	json_decref(doc);
	return rc;
}

static bool disc_due(const struct oidc *o, int64_t now)
{
	return (!o->have || now - o->fetched_at > DISCOVERY_TTL_MS) && now - o->disc_failed_at >= FAIL_BACKOFF_MS;
}

static bool jwks_due(const struct oidc *o, int64_t now)
{
	bool wanted = !o->jwks || now - o->jwks_at > DISCOVERY_TTL_MS || (o->want_jwks && now - o->jwks_at > JWKS_REFETCH_MS);
	return o->have && wanted && now - o->jwks_failed_at >= FAIL_BACKOFF_MS;
}

/* One fetch with the lock released; lock held on entry and exit. */
static void refresh_one(struct oidc *o, bool discovery)
{
	struct oidc_provider p = o->p;
	o->fetch_started_at = now_ms();
	pthread_mutex_unlock(&o->mu);
	char err[OIDC_ERR_MAX] = "", *text = NULL;
	enum code rc = discovery ? fetch_discovery(o, &p, err) : fetch_jwks(&p, &text, err);
	pthread_mutex_lock(&o->mu);
	o->fetch_started_at = 0;
	int64_t now = now_ms();
	if (rc && discovery)
		o->disc_failed_at = now;
	else if (rc)
		o->jwks_failed_at = now;
	else if (discovery) {
		o->p = p;
		o->have = true;
		o->fetched_at = now;
	} else {
		free(o->jwks);
		o->jwks = text;
		o->jwks_at = now;
		o->want_jwks = false;
	}
	pthread_cond_broadcast(&o->changed);
}

static void *refresher_main(void *arg)
{
	struct oidc *o = arg;
	pthread_mutex_lock(&o->mu);
	while (!o->stop) {
		int64_t now = now_ms();
		if (disc_due(o, now)) {
			refresh_one(o, true);
		} else if (jwks_due(o, now)) {
			refresh_one(o, false);
		} else {
			/* Wake for requests, and every second for back-offs and TTLs. */
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_cond_timedwait(&o->wake, &o->mu, &ts);
		}
	}
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

/* Lock held: starts the refresher on first use and wakes it. */
static void ask_refresher(struct oidc *o)
{
	if (!o->started) {
		thread_start(&o->thread, refresher_main, o);
		o->started = true;
	}
	pthread_cond_signal(&o->wake);
}

/* Lock held: waits for the refresher to finish a fetch that changes
 * *stamp (a fetch time) or fails, but never past ROTATION_WAIT_MS after
 * the fetch in flight began: requests that arrive while a hanging provider
 * is being asked share one short wait, then get 503 at once. */
static void wait_for_fetch(struct oidc *o, const int64_t *stamp, const int64_t *failed_at)
{
	int64_t before = *stamp, since = now_ms();
	int64_t left = (o->fetch_started_at ? o->fetch_started_at : since) + ROTATION_WAIT_MS - since;
	if (left <= 0)
		return;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (long)left * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	while (*stamp == before && *failed_at < since && !o->stop &&
	       pthread_cond_timedwait(&o->changed, &o->mu, &until) == 0)
		;
}

enum code oidc_discover(struct oidc *o, struct oidc_provider *ret, char err[OIDC_ERR_MAX])
{
	pthread_mutex_lock(&o->mu);
	if (!o->have || now_ms() - o->fetched_at > DISCOVERY_TTL_MS)
		ask_refresher(o);   /* never waited for (struct oidc) */
	/* A stale document beats none while the refresher renews it. */
	enum code rc = o->have ? CODE_OK : not_responding(err);
	if (!rc)
		*ret = o->p;
	pthread_mutex_unlock(&o->mu);
	return rc;
}

/* The cached keys (a malloc'd copy).  refresh: a key was not found (it may
 * have been rotated), so ask for a new fetch, at most every
 * JWKS_REFETCH_MS, and wait for it briefly. */
static enum code jwks_text(struct oidc *o, const struct oidc_provider *p, bool refresh, char **ret, char err[OIDC_ERR_MAX])
{
	(void)p;
	pthread_mutex_lock(&o->mu);
	bool may = now_ms() - o->jwks_failed_at >= FAIL_BACKOFF_MS;
	if (!o->jwks || (refresh && now_ms() - o->jwks_at > JWKS_REFETCH_MS)) {
		o->want_jwks = true;
		ask_refresher(o);
		/* A rotated key is waited for; keys never fetched are not. */
		if (may && o->jwks)
			wait_for_fetch(o, &o->jwks_at, &o->jwks_failed_at);
	}
	*ret = o->jwks ? strdup(o->jwks) : NULL;
	enum code rc = *ret ? CODE_OK : not_responding(err);
	pthread_mutex_unlock(&o->mu);
	return rc;
}

/* ---- the authorization request ---- */

void oidc_pkce_challenge(const char *verifier, char out[OIDC_CHALLENGE_LEN + 1])
{
	unsigned char h[crypto_hash_sha256_BYTES];
	crypto_hash_sha256(h, (const unsigned char *)verifier, strlen(verifier));
	sodium_bin2base64(out, OIDC_CHALLENGE_LEN + 1, h, sizeof h, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

/* Percent-encodes everything but RFC 3986 unreserved characters. */
static const char *pct(struct arena *a, const char *s)
{
	return url_encode(a, s, NULL);
}

const char *oidc_authorize_url(const struct oidc *o, struct arena *a, const struct oidc_provider *p, const char *redirect_uri,
			       const char *state, const char *nonce, const char *challenge)
{
	const char *sep = strchr(p->authorization_endpoint, '?') ? "&" : "?";
	return arena_printf(a, "%s%sresponse_type=code&client_id=%s&redirect_uri=%s&scope=openid%%20email%%20profile"
			    "&state=%s&nonce=%s&code_challenge=%s&code_challenge_method=S256",
			    p->authorization_endpoint, sep, pct(a, o->client_id), pct(a, redirect_uri),
			    pct(a, state), pct(a, nonce), pct(a, challenge));
}

/* ---- the token request ---- */

/* "Authorization: Basic base64(urlenc(id):urlenc(secret))" (RFC 6749 §2.3.1). */
static const char *basic_auth(const struct oidc *o, struct arena *a)
{
	const char *pair = arena_printf(a, "%s:%s", pct(a, o->client_id), pct(a, o->client_secret));
	size_t n = strlen(pair);
	size_t cap = sodium_base64_ENCODED_LEN(n, sodium_base64_VARIANT_ORIGINAL);
	char *b64 = arena_alloc(a, cap);
	sodium_bin2base64(b64, cap, (const unsigned char *)pair, n, sodium_base64_VARIANT_ORIGINAL);
	return arena_printf(a, "Authorization: Basic %s", b64);
}

enum code oidc_redeem(const struct oidc *o, struct arena *a, const struct oidc_provider *p, const char *code, const char *redirect_uri,
		      const char *verifier, const char **ret_id_token, const char **ret_access_token,
		      char err[OIDC_ERR_MAX])
{
	bool confidential = o->client_secret[0] != '\0';
	const char *form = arena_printf(a, "grant_type=authorization_code&code=%s&redirect_uri=%s&code_verifier=%s%s%s",
					pct(a, code), pct(a, redirect_uri), pct(a, verifier),
					confidential ? "" : "&client_id=", confidential ? "" : pct(a, o->client_id));
	struct buf b;
	buf_init(&b, DOC_MAX);
	long status = 0;
	enum code rc = http_call(p->token_endpoint, form, confidential ? basic_auth(o, a) : NULL, &b, &status, err);
	json_t *doc = rc ? NULL : json_loadb(buf_str(&b), b.len, 0, NULL);
	buf_done(&b);
	if (rc)
		return rc;
	const char *id_token = json_string_value(json_object_get(doc, "id_token"));
	if (status != 200 || !id_token) {
		const char *e = json_string_value(json_object_get(doc, "error"));
		snprintf(err, OIDC_ERR_MAX, "the token endpoint answered %ld%s%s", status, e ? ": " : " without an ID token",
			 e ? e : "");
		json_decref(doc);
		return status >= 500 ? CODE_SERVICE_UNAVAILABLE : CODE_UNAUTHORIZED;
	}
	*ret_id_token = arena_strdup(a, id_token);
	*ret_access_token = arena_strdup(a, json_string_value(json_object_get(doc, "access_token")));
	json_decref(doc);
	return CODE_OK;
}

enum code oidc_userinfo(const struct oidc_provider *p, const char *access_token, struct oidc_claims *claims,
			char err[OIDC_ERR_MAX])
{
	if (claims->email[0] || !p->userinfo_endpoint[0] || !access_token || strlen(access_token) > 4096)
		return CODE_OK;
	char auth[4200];
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", access_token);
	struct buf b;
	buf_init(&b, DOC_MAX);
	long status = 0;
	enum code rc = http_call(p->userinfo_endpoint, NULL, auth, &b, &status, err);
	json_t *doc = rc ? NULL : json_loadb(buf_str(&b), b.len, 0, NULL);
	buf_done(&b);
	if (rc)
		return rc;
	const char *sub = json_string_value(json_object_get(doc, "sub"));
	const char *email = json_string_value(json_object_get(doc, "email"));
	const char *name = json_string_value(json_object_get(doc, "name"));
	if (status != 200 || !sub || strcmp(sub, claims->sub)) {
		snprintf(err, OIDC_ERR_MAX, "the UserInfo endpoint answered %ld%s", status,
			 status == 200 ? " for another subject" : "");
		json_decref(doc);
		return status >= 500 ? CODE_SERVICE_UNAVAILABLE : CODE_UNAUTHORIZED;
	}
	if (email && strlen(email) < sizeof claims->email) {
		snprintf(claims->email, sizeof claims->email, "%s", email);
		claims->email_verified = json_is_true(json_object_get(doc, "email_verified"));
	}
	if (name && !claims->name[0])
		snprintf(claims->name, sizeof claims->name, "%s", name);
	json_decref(doc);
	return CODE_OK;
}

/* ---- ID token verification ---- */

/* The JWK key type an accepted algorithm needs; NULL for any other (none,
 * HS*: a symmetric alg would let anyone holding a public key sign). */
static const char *kty_for(const char *alg)
{
	static const char *const rsa[] = {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"};
	static const char *const ec[] = {"ES256", "ES384", "ES512"};
	for (size_t i = 0; alg && i < 6; i++)
		if (!strcmp(alg, rsa[i]))
			return "RSA";
	for (size_t i = 0; alg && i < 3; i++)
		if (!strcmp(alg, ec[i]))
			return "EC";
	return NULL;
}

static bool key_fits(json_t *k, const char *kty, const char *alg, const char *kid)
{
	const char *s;
	if (!(s = json_string_value(json_object_get(k, "kty"))) || strcmp(s, kty))
		return false;
	if ((s = json_string_value(json_object_get(k, "use"))) && strcmp(s, "sig"))
		return false;
	if ((s = json_string_value(json_object_get(k, "alg"))) && strcmp(s, alg))
		return false;
	return !kid || ((s = json_string_value(json_object_get(k, "kid"))) && !strcmp(s, kid));
}

/* CODE_OK when one key of jwks verifies the signature, CODE_NOT_FOUND when
 * no key fits the token, CODE_UNAUTHORIZED when none that fits verifies. */
static enum code check_signature(cjose_jws_t *jws, const char *jwks, const char *kty, const char *alg, const char *kid)
{
	json_t *doc = json_loads(jwks, 0, NULL);
	json_t *keys = json_object_get(doc, "keys");
	bool fitting = false, ok = false;
	size_t i;
	json_t *k;
	json_array_foreach(keys, i, k) {
		if (ok || !key_fits(k, kty, alg, kid))
			continue;
		fitting = true;
		char *text = json_dumps(k, JSON_COMPACT);
		cjose_err e;
		cjose_jwk_t *jwk = text ? cjose_jwk_import(text, strlen(text), &e) : NULL;
		free(text);
		cjose_jwk_kty_t want = !strcmp(kty, "RSA") ? CJOSE_JWK_KTY_RSA : CJOSE_JWK_KTY_EC;
		ok = jwk && cjose_jwk_get_kty(jwk, &e) == want && cjose_jws_verify(jws, jwk, &e);
		cjose_jwk_release(jwk);
	}
	json_decref(doc);
	return ok ? CODE_OK : fitting ? CODE_UNAUTHORIZED : CODE_NOT_FOUND;
}

static bool aud_ok(json_t *claims, const char *client_id)
{
	json_t *aud = json_object_get(claims, "aud");
	if (json_is_string(aud))
		return !strcmp(json_string_value(aud), client_id);
	if (!json_is_array(aud) || json_array_size(aud) == 0)
		return false;
	bool found = false;
	size_t i;
	json_t *v;
	json_array_foreach(aud, i, v)
		found |= json_is_string(v) && !strcmp(json_string_value(v), client_id);
	/* Core §3.1.3.7 items 4-5: with several audiences, azp names us. */
	const char *azp = json_string_value(json_object_get(claims, "azp"));
	return found && (json_array_size(aud) == 1 || (azp && !strcmp(azp, client_id)));
}

static bool same_secret(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	size_t n = strlen(a);
	return n > 0 && n == strlen(b) && sodium_memcmp(a, b, n) == 0;
}

static enum code check_claims(json_t *c, const char *issuer, const char *client_id, const char *nonce, int64_t now,
			      struct oidc_claims *ret, char err[OIDC_ERR_MAX])
{
	const char *iss = json_string_value(json_object_get(c, "iss"));
	json_t *exp = json_object_get(c, "exp"), *iat = json_object_get(c, "iat");
	const char *sub = json_string_value(json_object_get(c, "sub"));
	if (!iss || strcmp(iss, issuer)) {
		fail(err, "the ID token is from another issuer (%s)", iss ? iss : "none");
		return CODE_UNAUTHORIZED;
	}
	if (!aud_ok(c, client_id)) {
		fail(err, "the ID token is for another client");
		return CODE_UNAUTHORIZED;
	}
	if (!json_is_number(exp) || json_number_value(exp) * 1000.0 <= (double)(now - LEEWAY_MS)) {
		fail(err, "the ID token has expired");
		return CODE_UNAUTHORIZED;
	}
	if (!json_is_number(iat) || json_number_value(iat) * 1000.0 > (double)(now + LEEWAY_MS)) {
		fail(err, "the ID token is issued in the future");
		return CODE_UNAUTHORIZED;
	}
	if (!same_secret(json_string_value(json_object_get(c, "nonce")), nonce)) {
		fail(err, "the ID token's nonce is not the one sent");
		return CODE_UNAUTHORIZED;
	}
	if (!sub || !*sub || strlen(sub) >= sizeof ret->sub) {
		fail(err, "the ID token has no usable subject");
		return CODE_UNAUTHORIZED;
	}
	memset(ret, 0, sizeof(*ret));
	snprintf(ret->sub, sizeof ret->sub, "%s", sub);
	const char *email = json_string_value(json_object_get(c, "email"));
	const char *name = json_string_value(json_object_get(c, "name"));
	if (email && strlen(email) < sizeof ret->email)
		snprintf(ret->email, sizeof ret->email, "%s", email);
	snprintf(ret->name, sizeof ret->name, "%s", name ? name : "");
	/* Only a JSON true counts (some providers send the string "true"). */
	ret->email_verified = json_is_true(json_object_get(c, "email_verified"));
	return CODE_OK;
}

enum code oidc_verify_with_keys(const char *id_token, const char *jwks, const char *issuer, const char *client_id,
				const char *nonce, int64_t now_ms, struct oidc_claims *ret, char err[OIDC_ERR_MAX])
{
	size_t len = id_token ? strlen(id_token) : 0;
	cjose_err e;
	cjose_jws_t *jws = len && len <= ID_TOKEN_MAX ? cjose_jws_import(id_token, len, &e) : NULL;
	if (!jws) {
		fail(err, "the ID token is not a signed JWT");
		return CODE_UNAUTHORIZED;
	}
	cjose_header_t *h = cjose_jws_get_protected(jws);
	const char *alg = h ? cjose_header_get(h, CJOSE_HDR_ALG, &e) : NULL;
	const char *kid = h ? cjose_header_get(h, CJOSE_HDR_KID, &e) : NULL;
	const char *kty = kty_for(alg);
	enum code rc = CODE_UNAUTHORIZED;
	if (!kty) {
		fail(err, "the ID token's algorithm (%s) is not accepted", alg ? alg : "none");
		goto out;
	}
	rc = check_signature(jws, jwks, kty, alg, kid);
	if (rc == CODE_NOT_FOUND) {
		fail(err, "no key of the provider matches the ID token (kid %s)", kid ? kid : "none");
		goto out;
	}
	if (rc) {
		fail(err, "the ID token's signature does not verify");
		goto out;
	}
	uint8_t *payload = NULL;
	size_t plen = 0;
	json_t *claims = cjose_jws_get_plaintext(jws, &payload, &plen, &e) ? json_loadb((const char *)payload, plen, 0, NULL)
									     : NULL;
	if (!json_is_object(claims)) {
		fail(err, "the ID token's payload is not a JSON object");
		rc = CODE_UNAUTHORIZED;
	} else {
		rc = check_claims(claims, issuer, client_id, nonce, now_ms, ret, err);
	}
	json_decref(claims);
out:
	cjose_jws_release(jws);
	return rc;
}

enum code oidc_verify(struct oidc *o, const struct oidc_provider *p, const char *id_token, const char *nonce,
		      struct oidc_claims *ret, char err[OIDC_ERR_MAX])
{
	enum code rc = CODE_NOT_FOUND;
	/* A key the cache does not know may be a rotated one: fetch once more. */
	for (int attempt = 0; attempt < 2 && rc == CODE_NOT_FOUND; attempt++) {
		char *jwks = NULL;
		enum code krc = jwks_text(o, p, attempt > 0, &jwks, err);
		if (krc)
			return krc == CODE_INTERNAL_ERROR ? CODE_UNAUTHORIZED : krc;
		rc = oidc_verify_with_keys(id_token, jwks, p->issuer, o->client_id, nonce, now_ms(), ret, err);
		free(jwks);
	}
	return rc == CODE_NOT_FOUND ? CODE_UNAUTHORIZED : rc;
}
