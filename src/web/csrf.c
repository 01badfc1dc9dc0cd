/* CSRF tokens. */
#include "csrf.h"

#include <sodium.h>
#include <string.h>

#include "base/ids.h"
#include "web/session.h"

#define PRE_COOKIE "ll_csrf"
#define PRE_LEN 32
#define PRE_TTL_S 900

static bool same(const char *a, const char *b)
{
	size_t n = strlen(a);
	return n > 0 && n == strlen(b) && sodium_memcmp(a, b, n) == 0;
}

bool csrf_check(const struct web_req *w)
{
	const char *sent = web_field(w, CSRF_FIELD);
	return w->session && sent && same(sent, w->session->csrf);
}

const char *csrf_pre_issue(struct web_req *w)
{
	char *t = arena_alloc(w->a, PRE_LEN + 1);
	base62_random(t, PRE_LEN);
	/* Only the sign-in pages post with it. */
	web_set_cookie(w, PRE_COOKIE, t, "/login", PRE_TTL_S);
	return t;
}

bool csrf_pre_check(const struct web_req *w)
{
	const char *sent = web_field(w, CSRF_FIELD), *cookie = web_cookie(w, PRE_COOKIE);
	return sent && cookie && strlen(cookie) == PRE_LEN && same(sent, cookie);
}
