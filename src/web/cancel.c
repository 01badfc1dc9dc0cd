/* "Cancel import" (PRODUCT §16, admins): POST stops a QUEUED or RUNNING
 * run, as POST /api/v1/imports/runs/{id}/cancel does, and shows its page:
 * CANCELLED, with what it committed before (which can then be undone). */
#include "app/app.h"
#include "store/runs.h"
#include "web/page.h"

static void cancel(struct web_req *w)
{
	struct run r;
	enum code rc = store_run_get(w->app->store, w->session->org.id, web_param(w, "id"), &r);
	if (web_store_answered(w, rc))
		return;
	bool moved = false;
	if (!run_state_terminal(r.state) && web_store_answered(w, store_run_cancel(w->app->store, r.id, &moved)))
		return;
	if (!moved && run_state_terminal(r.state)) {
		web_error(w, 409, "Already finished (RUN_ALREADY_TERMINAL)", "This import had already finished, so there "
			  "was nothing to cancel. To take back what it wrote, use Undo this import on its page.");
		return;
	}
	/* Moved, or finished between the read and the cancel: its page says which. */
	web_redirect(w, arena_printf(w->a, "/imports/runs/%s", r.id));
}

const struct web_handler page_run_cancel = {cancel};
