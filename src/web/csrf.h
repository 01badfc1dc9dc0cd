/* Cross-site request forgery checks: every form carries a token in the
 * field "csrf", and a POST whose token does not match is refused (403).
 * Signed in, the token is the session's CSRF secret (stored with the
 * session).  The few forms shown before sign-in (the sign-in link's
 * confirmation) use a double-submit cookie instead. */
#ifndef LOADLINE_WEB_CSRF_H
#define LOADLINE_WEB_CSRF_H

#include <stdbool.h>

#include "web/page.h"

#define CSRF_FIELD "csrf"

/* True when the posted token equals the session's (constant time). */
bool csrf_check(const struct web_req *w);
/* For a signed-out form: sets a short-lived cookie and returns the token
 * to put in the form. */
const char *csrf_pre_issue(struct web_req *w);
/* True when the posted token equals that cookie. */
bool csrf_pre_check(const struct web_req *w);

#endif
