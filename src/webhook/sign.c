/* Standard Webhooks signatures and the public-address rule. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <netdb.h>
#include <strings.h>

#include "store/webhooks.h"
#include "webhook.h"

int webhook_sign(const char *secret, const char *id, long long timestamp, const char *body, size_t len,
		 char *out, size_t outlen)
{
	unsigned char key[128];
	size_t klen = 0;
	if (strncmp(secret, "whsec_", 6) || sodium_base642bin(key, sizeof key, secret + 6, strlen(secret + 6), NULL,
							       &klen, NULL, sodium_base64_VARIANT_ORIGINAL))
		return -1;
	/* The signed content: "<id>.<timestamp>.<body>". */
	char head[128];
	int n = snprintf(head, sizeof head, "%s.%lld.", id, timestamp);
	crypto_auth_hmacsha256_state st;
	unsigned char mac[crypto_auth_hmacsha256_BYTES];
	crypto_auth_hmacsha256_init(&st, key, klen);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)head, (size_t)n);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)body, len);
	crypto_auth_hmacsha256_final(&st, mac);
	sodium_memzero(key, sizeof key);
	if (outlen < 3 + sodium_base64_ENCODED_LEN(sizeof mac, sodium_base64_VARIANT_ORIGINAL))
		return -1;
	memcpy(out, "v1,", 3);
	sodium_bin2base64(out + 3, outlen - 3, mac, sizeof mac, sodium_base64_VARIANT_ORIGINAL);
	return 0;
}

static bool v4_public(uint32_t a)
{
	static const struct {
		uint32_t net, mask;
	} blocked[] = {
		{0x00000000, 0xff000000}, /* 0/8 "this network" */
		{0x0a000000, 0xff000000}, /* 10/8 */
		{0x64400000, 0xffc00000}, /* 100.64/10 shared (CGN) */
		{0x7f000000, 0xff000000}, /* 127/8 loopback */
		{0xa9fe0000, 0xffff0000}, /* 169.254/16 link-local (cloud metadata) */
		{0xac100000, 0xfff00000}, /* 172.16/12 */
		{0xc0000000, 0xffffff00}, /* 192.0.0/24 protocol assignments */
		{0xc0000200, 0xffffff00}, /* 192.0.2/24 documentation */
		{0xc0586300, 0xffffff00}, /* 192.88.99/24 6to4 relay anycast (deprecated) */
		{0xc0a80000, 0xffff0000}, /* 192.168/16 */
		{0xc6120000, 0xfffe0000}, /* 198.18/15 benchmarking */
		{0xc6336400, 0xffffff00}, /* 198.51.100/24 documentation */
		{0xcb007100, 0xffffff00}, /* 203.0.113/24 documentation */
		{0xe0000000, 0xe0000000}, /* 224/3 multicast, reserved, broadcast */
	};
	for (size_t i = 0; i < sizeof blocked / sizeof blocked[0]; i++)
		if ((a & blocked[i].mask) == blocked[i].net)
			return false;
	return true;
}

static uint32_t v4_at(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* IPv6 (issue 27 item 14): global unicast 2000::/3 only — everything
 * else is unassigned or special-purpose in IANA's registry (::/128,
 * ::1, 100::/64 discard, 64:ff9b:1::/48 local NAT64, 5f00::/16 SRv6,
 * fc00::/7, fe80::/10, fec0::/10, ff00::/8) — and within it not the
 * special-purpose blocks: 2001::/23 (Teredo 2001::/32, benchmarking,
 * ORCHID…), 2001:db8::/32 and 3fff::/20 (documentation).  IPv4 carried
 * inside IPv6 (mapped ::ffff:0:0/96, compatible ::/96, SIIT
 * ::ffff:0:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged as the
 * IPv4 address it carries. */
static bool v6_public(const unsigned char *b)
{
	static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	static const unsigned char siit[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
	static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
	static const unsigned char zero[12] = {0};
	if (!memcmp(b, mapped, 12) || !memcmp(b, siit, 12) || !memcmp(b, nat64, 12) || !memcmp(b, zero, 12))
		return v4_public(v4_at(b + 12));
	if (b[0] == 0x20 && b[1] == 0x02)
		return v4_public(v4_at(b + 2));   /* 6to4 */
	if ((b[0] & 0xe0) != 0x20)
		return false;                     /* not 2000::/3 */
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] < 0x02)
		return false;                     /* 2001::/23 IETF protocol assignments */
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8)
		return false;                     /* 2001:db8::/32 documentation */
	if (b[0] == 0x3f && b[1] == 0xff && (b[2] & 0xf0) == 0)
		return false;                     /* 3fff::/20 documentation */
	return true;
}

bool webhook_address_public(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return v4_public(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
	if (sa->sa_family != AF_INET6)
		return false;
	return v6_public(((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr);
}

const char *webhook_url_check(const char *u, bool allow_http)
{
	if (!u || !*u)
		return "url is required: the https:// address your receiver answers at.";
	if (strlen(u) > WEBHOOK_URL_MAX)
		return "url is longer than 2,048 characters.";
	for (const char *p = u; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return "url contains a space or control character.";
	const char *why = NULL;
	CURLU *h = curl_url();
	char *scheme = NULL, *host = NULL, *user = NULL;
	if (!h || curl_url_set(h, CURLUPART_URL, u, 0) || curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) ||
	    curl_url_get(h, CURLUPART_HOST, &host, 0) || !*host)
		why = "url is not an absolute URL with a host.";
	else if (strcasecmp(scheme, "https") && !(allow_http && !strcasecmp(scheme, "http")))
		why = allow_http ? "url must start with https:// or http://."
				 : "url must start with https://: deliveries are sent over TLS only.";
	else if (!curl_url_get(h, CURLUPART_USER, &user, 0))
		why = "url must not carry a user name or password; authenticate deliveries by their signature.";
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	curl_url_cleanup(h);
	return why;
}

/* The host of url as an address when it is a literal one (brackets of an
 * IPv6 literal removed); false when it is a name. */
static bool literal(const char *host, struct sockaddr_storage *ss)
{
	char h[64];
	size_t n = strlen(host);
	if (host[0] == '[' && n > 2 && n - 2 < sizeof h) {
		memcpy(h, host + 1, n - 2);
		h[n - 2] = '\0';
	} else if (n < sizeof h) {
		memcpy(h, host, n + 1);
	} else {
		return false;
	}
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	if (inet_pton(AF_INET6, h, &s6->sin6_addr) == 1)
		return (s6->sin6_family = AF_INET6), true;
	if (inet_pton(AF_INET, h, &s4->sin_addr) == 1)
		return (s4->sin_family = AF_INET), true;
	return false;
}

/* Whether every address name resolves to is non-public (false when it
 * does not resolve now: that may change before a delivery). */
static bool resolves_only_private(const char *name)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	if (getaddrinfo(name, NULL, &hints, &res) || !res)
		return false;
	bool any_public = false;
	for (struct addrinfo *ai = res; ai && !any_public; ai = ai->ai_next)
		any_public = webhook_address_public(ai->ai_addr);
	freeaddrinfo(res);
	return !any_public;
}

const char *webhook_url_deliverable(const char *url)
{
	CURLU *h = curl_url();
	char *host = NULL;
	const char *why = NULL;
	if (h && !curl_url_set(h, CURLUPART_URL, url, 0) && !curl_url_get(h, CURLUPART_HOST, &host, 0)) {
		struct sockaddr_storage ss;
		bool lit = literal(host, &ss);
		if (lit ? !webhook_address_public((struct sockaddr *)&ss) : resolves_only_private(host))
			why = "url's host is not a public address: deliveries to it would never be made.";
	}
	curl_free(host);
	curl_url_cleanup(h);
	return why;
}

void webhook_new_secret(char *out)
{
	unsigned char key[24];
	randombytes_buf(key, sizeof key);
	memcpy(out, "whsec_", 6);
	sodium_bin2base64(out + 6, WEBHOOK_SECRET_MAX - 6, key, sizeof key, sodium_base64_VARIANT_ORIGINAL);
	sodium_memzero(key, sizeof key);
}
