/* OpenID Connect relying party: the client side of the authorization code
 * flow with PKCE (RFC 6749, RFC 7636, OpenID Connect Core 1.0) against the
 * provider at LOADLINE_OIDC_ISSUER.
 *
 * The provider's discovery document and signing keys (JWKS) are fetched
 * with libcurl and cached for the process; ID tokens are verified with
 * cjose: the signature against the provider's keys (asymmetric algorithms
 * only, the key's type matching the algorithm), then iss, aud/azp, exp, iat
 * and nonce.  Knows nothing of HTTP serving, sessions or users. */
#ifndef LOADLINE_AUTH_OIDC_H
#define LOADLINE_AUTH_OIDC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/codes.h"

#define OIDC_URL_MAX 1024
#define OIDC_ERR_MAX 256
/* PKCE: the verifier and its S256 challenge (43 base64url characters). */
#define OIDC_CHALLENGE_LEN 43

/* A relying party: the configured client (issuer, id, secret) and its
 * cache of the provider's discovery document and keys.  Owned by the
 * application object; safe to use from every HTTP thread. */
struct oidc;
/* NULL or "" values leave sign-in unconfigured (oidc_configured false). */
struct oidc *oidc_new(const char *issuer, const char *client_id, const char *client_secret);
void oidc_free(struct oidc *o);

struct oidc_provider {
	char issuer[OIDC_URL_MAX];
	char authorization_endpoint[OIDC_URL_MAX];
	char token_endpoint[OIDC_URL_MAX];
	char jwks_uri[OIDC_URL_MAX];
	char userinfo_endpoint[OIDC_URL_MAX];   /* "" when the provider has none */
};

struct oidc_claims {
	char sub[256];
	char email[256];
	bool email_verified;
	char name[256];
};

/* True when LOADLINE_OIDC_ISSUER and LOADLINE_OIDC_CLIENT_ID are set. */
bool oidc_configured(const struct oidc *o);
/* Starts fetching the provider's documents (discovery, then keys) on the
 * refresher thread, so that sign-ins find them cached: serving processes
 * call it at start.  Nothing when sign-in is not configured. */
void oidc_start(struct oidc *o);

/* The provider's endpoints, from its discovery document (cached for an
 * hour).  CODE_SERVICE_UNAVAILABLE when it cannot be fetched, or
 * CODE_INTERNAL_ERROR when it is not a valid document for the configured
 * issuer; a message in err either way.  Thread-safe. */
enum code oidc_discover(struct oidc *o, struct oidc_provider *ret, char err[OIDC_ERR_MAX]);

/* The S256 PKCE challenge of verifier: BASE64URL(SHA-256(verifier)). */
void oidc_pkce_challenge(const char *verifier, char out[OIDC_CHALLENGE_LEN + 1]);

/* The URL to send the browser to (arena-owned). */
const char *oidc_authorize_url(const struct oidc *o, struct arena *a, const struct oidc_provider *p, const char *redirect_uri,
			       const char *state, const char *nonce, const char *challenge);

/* Redeems an authorization code at the token endpoint (client_secret_basic
 * when a secret is configured, else a public client) and returns the ID
 * token and the access token (arena-owned; the access token may be NULL).  CODE_UNAUTHORIZED when the provider refuses (a used
 * or unknown code: invalid_grant), CODE_SERVICE_UNAVAILABLE when it cannot
 * be reached; a message in err. */
enum code oidc_redeem(const struct oidc *o, struct arena *a, const struct oidc_provider *p, const char *code, const char *redirect_uri,
		      const char *verifier, const char **ret_id_token, const char **ret_access_token,
		      char err[OIDC_ERR_MAX]);

/* Verifies id_token with the provider's cached keys (fetched again once
 * when the token names a key the cache does not have) and fills ret.
 * CODE_UNAUTHORIZED with a message in err when anything does not check
 * out; CODE_SERVICE_UNAVAILABLE when the keys cannot be fetched. */
enum code oidc_verify(struct oidc *o, const struct oidc_provider *p, const char *id_token, const char *nonce,
		      struct oidc_claims *ret, char err[OIDC_ERR_MAX]);

/* Completes verified claims that lack the email from the UserInfo
 * endpoint: providers that follow OpenID Connect Core §5.4 strictly put
 * scope claims there, not in the ID token.  The UserInfo sub must equal the
 * ID token's (§5.3.2).  CODE_OK (also when nothing was needed or possible),
 * CODE_UNAUTHORIZED or CODE_SERVICE_UNAVAILABLE with a message. */
enum code oidc_userinfo(const struct oidc_provider *p, const char *access_token, struct oidc_claims *claims,
			char err[OIDC_ERR_MAX]);

/* The verification itself, with the keys given (JWKS JSON text), for the
 * unit tests: signature, alg, iss == issuer, aud contains client_id (azp
 * == client_id when there are several audiences), exp > now - leeway,
 * iat < now + leeway, nonce.  CODE_UNAUTHORIZED and a message on failure;
 * CODE_NOT_FOUND when no key of jwks matches the token (the caller may
 * fetch the keys again). */
enum code oidc_verify_with_keys(const char *id_token, const char *jwks, const char *issuer, const char *client_id,
				const char *nonce, int64_t now_ms, struct oidc_claims *ret, char err[OIDC_ERR_MAX]);

#endif
