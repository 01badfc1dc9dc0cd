/* The run page waits by long poll (issue 30), as `loadline push` does: its
 * script asks GET /imports/runs/{id}/wait?since=<token>, which is held —
 * without an HTTP thread (http_hold) — until the run's representation
 * changes or WAIT_S pass, and reloads the page when it changed.  The token
 * is the run's API ETag without its quotes: a digest of the run resource.
 * The run page's template has it as `working` (set, and so true, while the
 * run works).  Pages without script keep the meta refresh (in <noscript>). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "base/clock.h"
#include "base/digest.h"
#include "import/run_json.h"
#include "store/runs.h"
#include "web/page.h"

#define WAIT_S 25

const char *web_run_token(struct web_req *w, const struct run *r)
{
	json_t *o = run_json(r, &w->app->cfg);
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!s)
		return "";
	struct digest d;
	char hex[DIGEST_HEX];
	digest_init(&d);
	digest_update(&d, s, strlen(s));
	digest_final_hex(&d, hex);
	free(s);
	return arena_strndup(w->a, hex, 32);
}

/* Answers {"changed", "token"}: the script reloads the page when changed,
 * and asks again at once otherwise (after a pause when it could not be
 * held: "held" false). */
static void answer(struct web_req *w, bool changed, const char *token, bool held)
{
	json_t *o = json_pack("{s:b,s:s,s:b}", "changed", changed, "token", token, "held", held);
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	web_raw(w, 200, "application/json", s ? s : "{}", s ? strlen(s) : 2);
	free(s);
	http_add_header(w->req, w->res, "Cache-Control", "no-store");
}

static void run_wait(struct web_req *w)
{
	const char *id = web_param(w, "id"), *since = web_query(w, "since");
	/* Register, then read (as the API's long poll): a change while the
	 * run is read wakes the request.  The deadline is kept across holds. */
	if (!w->hold_until)
		w->hold_until = now_ms() + WAIT_S * 1000;
	bool holding = since && now_ms() < w->hold_until && http_hold(w->req, id, w->hold_until);
	struct run r;
	enum code rc = store_run_get(w->app->store, w->session->org.id, id, &r);
	if (web_store_answered(w, rc))
		return;
	const char *token = web_run_token(w, &r);
	bool changed = !since || strcmp(since, token);
	if (holding && !changed)
		return;   /* held until the run changes or the time is up */
	answer(w, changed, token, holding || now_ms() >= w->hold_until);
}

const struct web_handler page_run_wait = {run_wait};
