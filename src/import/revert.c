/* Revert runs (revert.h). */
#include "revert.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/digest.h"
#include "base/ids.h"
#include "base/log.h"
#include "base/strmap.h"
#include "metrics/metrics.h"
#include "problems.h"
#include "store/undo.h"

enum code revert_create(struct store *st, const struct run *orig, bool dry_run, const char *created_by,
			struct run *ret, char ret_existing_id[ID_MAX])
{
	struct run *run = ret;
	memset(run, 0, sizeof(*run));
	id_new_ordered("run", run->id);
	snprintf(run->org_id, sizeof run->org_id, "%s", orig->org_id);
	snprintf(run->kind, sizeof run->kind, "%s", orig->kind);
	run->state = RUN_QUEUED;
	run->dry_run = dry_run;
	/* One revert of a run at a time: the active-fingerprint index refuses
	 * a second while the first is QUEUED or RUNNING (409). */
	struct digest d;
	digest_init(&d);
	digest_update(&d, "revert\n", 7);
	digest_update(&d, orig->id, strlen(orig->id));
	digest_final_hex(&d, run->fingerprint);
	snprintf(run->file_name, sizeof run->file_name, "%s", orig->file_name);
	snprintf(run->file_format, sizeof run->file_format, "%s", orig->file_format);
	snprintf(run->created_by, sizeof run->created_by, "%s", created_by ? created_by : "");
	snprintf(run->revert_of, sizeof run->revert_of, "%s", orig->id);
	snprintf(run->commit_policy, sizeof run->commit_policy, "all");   /* one transaction, like every run */
	run->row_count = -1;
	run->not_committed = -1;
	run->created_at = now_ms();
	*ret_existing_id = '\0';
	return store_run_create(st, run, "", 0, ret_existing_id);
}

enum code revert_preview(struct store *st, struct arena *a, const struct run *orig, struct undo_report *ret)
{
	struct store_tx *tx = NULL;
	char scratch[ID_MAX];
	id_new_ordered("run", scratch);   /* records nothing: rolled back */
	enum code rc = store_tx_begin(st, &tx);
	if (!rc)
		rc = store_undo_run(tx, a, orig->org_id, orig->id, scratch, ret);
	store_tx_abort(tx);
	return rc;
}

/* The stored result of one undone record: succeeded [source, [id]] or
 * skipped [source, "changed_since", laterRunId] (results.c's compact
 * bodies; a Project's source has no loadNo). */
static void results_of(struct arena *a, const struct undo_report *u, struct result_entry **ret)
{
	struct result_entry *e = arena_alloc(a, sizeof(*e) * (size_t)(u->n + 1));
	for (int i = 0; i < u->n; i++) {
		const struct undo_item *it = &u->items[i];
		json_t *src = json_pack("[s?,s?]", it->load_no, it->job_code), *body;
		if (it->outcome == UNDO_CHANGED_SINCE)
			body = json_pack("[o,s,s?]", src, "changed_since", it->later_run);
		else
			body = json_pack("[o,[s]]", src, it->id);
		char *s = json_dumps(body, JSON_COMPACT);
		e[i] = (struct result_entry){it->outcome == UNDO_CHANGED_SINCE ? "skipped" : "succeeded", i + 1, false,
					     arena_strdup(a, s)};
		free(s);
		json_decref(body);
	}
	*ret = e;
}

/* What the revert did, kept in the run's file_detail ("revert"): the web
 * app's "Undo will remove 742 loads and restore 8; 3 changed since and
 * stay" before confirming. */
static const char *summary(struct arena *a, const struct undo_report *u)
{
	char *s = arena_printf(a, "{\"revert\":{\"removed\":%d,\"restored\":%d,\"changedSince\":%d,"
			       "\"unusedRemoved\":%d}}", u->removed, u->restored, u->changed_since, u->places_removed);
	return s;
}

static enum code undo_in_tx(struct store_tx *tx, struct arena *a, const struct run *run, const char *owner,
			    int counts[4], bool *ret_moved)
{
	struct undo_report u;
	enum code rc = run->dry_run ? store_tx_savepoint(tx) : CODE_OK;
	if (!rc)
		rc = store_undo_run(tx, a, run->org_id, run->revert_of, run->id, &u);
	if (!rc && run->dry_run)
		rc = store_tx_rollback_savepoint(tx);
	if (rc)
		return rc;
	counts[COUNT_SUCCEEDED] = u.removed + u.restored;
	counts[COUNT_WARNINGS] = counts[COUNT_FAILED] = 0;
	counts[COUNT_SKIPPED] = u.changed_since;
	struct run_move m = {.to = run_outcome(counts[0], counts[1], counts[2], counts[3]), .owner = owner,
			     .counts = counts, .row_count = u.n, .finish = true, .file_detail = summary(a, &u)};
	rc = store_run_move_tx(tx, run->id, &m, ret_moved);
	if (rc || !*ret_moved)
		return rc;
	struct result_entry *e;
	results_of(a, &u, &e);
	rc = store_results_add_all(tx, run->id, e, u.n);
	return rc ? rc : problems_store(tx, a, run->id);
}

enum code revert_run(struct store *st, const struct run *run, const char *owner)
{
	struct arena *a = arena_new();
	struct store_tx *tx = NULL;
	int counts[4] = {0};
	bool moved = false;
	double t0 = mono_ms();
	enum code rc = store_tx_begin(st, &tx);
	if (!rc)
		rc = undo_in_tx(tx, a, run, owner, counts, &moved);
	if (!rc && moved) {
		rc = store_tx_commit(tx);
	} else {
		store_tx_abort(tx);   /* failed, or cancelled / taken over meanwhile: nothing written */
	}
	if (!rc && moved) {
		enum run_state to = run_outcome(counts[0], counts[1], counts[2], counts[3]);
		metrics_run(run_state_name(to), run->started_at > 0 ? (double)(now_ms() - run->started_at) / 1000.0 : 0,
			    counts);
		log_json("info", "revert finished", json_pack("{s:s,s:s,s:s,s:b,s:i,s:i,s:f}", "runId", run->id,
			 "orgId", run->org_id, "revertOf", run->revert_of, "dryRun", run->dry_run, "undone", counts[0],
			 "changedSince", counts[3], "ms", mono_ms() - t0));
	}
	arena_free(a);
	return rc;
}
