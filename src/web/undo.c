/* "Undo this import" (PRODUCT §15, admins): GET shows what the undo would
 * do, computed now and rolled back ("Undo will remove 742 loads and
 * restore 8; 3 changed since and stay"); POST makes the revert run, as
 * POST /api/v1/imports/runs/{id}/revert does. */
#include "app/app.h"
#include "base/clock.h"
#include "import/intake.h"
#include "import/revert.h"
#include "store/undo.h"
#include "web/page.h"

/* The run to undo, or NULL after an error page (404, not finished, 410). */
static bool undoable(struct web_req *w, struct run *r)
{
	enum code rc = store_run_get(w->app->store, w->session->org.id, web_param(w, "id"), r);
	if (web_store_answered(w, rc))
		return false;
	if (!run_state_terminal(r->state)) {
		web_error(w, 409, "Not finished (RUN_NOT_TERMINAL)", "This import is still running; it can be "
			  "undone once it has finished.");
		return false;
	}
	if (run_results_expired(r, w->app->cfg.keep_results_ms, now_ms())) {
		web_error(w, 410, "Too old to undo (RESULTS_EXPIRED)", "What this import changed was deleted with "
			  "its results; it can no longer be undone.");
		return false;
	}
	return true;
}

static const char *plural(int n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void confirm(struct web_req *w)
{
	struct run r;
	struct undo_report u;
	if (!undoable(w, &r))
		return;
	if (revert_preview(w->app->store, w->a, &r, &u)) {
		web_unavailable(w);
		return;
	}
	const char *summary = arena_printf(w->a, "Undo will remove %d %s and restore %d; %d changed since and %s.",
					   u.removed, plural(u.removed, "load", "loads"), u.restored, u.changed_since,
					   plural(u.changed_since, "stays", "stay"));
	struct tmpl_var v[] = {
		T_TEXT("id", r.id),
		T_TEXT("file_name", r.file_name),
		T_TEXT("summary", summary),
		T_TEXT("csrf", web_csrf_token(w)),
	};
	struct web_page_opts o = {.nav = NAV_IMPORTS};
	web_page(w, 200, "Undo this import", tmpl_render(w->a, "undo.html", v, sizeof v / sizeof v[0]), &o);
}

const struct web_handler page_run_undo_get = {confirm};

static void undo(struct web_req *w)
{
	struct run r, run;
	if (!undoable(w, &r))
		return;
	char existing[ID_MAX];
	enum code rc = revert_create(w->app->store, &r, false,
				     intake_who_user(w->a, w->session->user.id, w->session->user.email), &run, existing);
	if (rc == CODE_IMPORT_IN_PROGRESS) {
		web_redirect(w, arena_printf(w->a, "/imports/runs/%s?already=1", existing));
		return;
	}
	if (web_store_answered(w, rc))
		return;
	app_hook_call(&w->app->run_queued);
	web_redirect(w, arena_printf(w->a, "/imports/runs/%s", run.id));
}

const struct web_handler page_run_undo = {undo};
