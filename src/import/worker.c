/* Worker threads claim runs from the runs table (the queue), hold them
 * with a lease that a heartbeat keeps fresh, and process them.  A worker
 * that dies stops renewing; once the lease runs out another claims the run
 * and, since a run's writes commit in one transaction with its outcome,
 * processes it from the start exactly once. */
#include "worker.h"

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/waiter.h"
#include "pipeline.h"
#include "sweeper.h"
#include "store/runs.h"

#define RETRY_MS 1000
#define MAX_WORKERS 64

struct worker {
	struct workers *all;
	pthread_t thread;
	char owner[96];
	char run_id[ID_MAX];   /* held run, "" when idle; guarded by all->lock */
};

struct workers {
	struct store *st;
	struct worker_opts opts;
	int n;
	struct worker workers[MAX_WORKERS];
	pthread_t heartbeat, sweeper, listener;
	struct runs_listener *runs_listener;   /* PostgreSQL: other processes' new runs; else NULL */
	struct waiter w;   /* its lock also guards each worker's run_id */
};

void workers_notify(void *workers)
{
	struct workers *all = workers;
	if (all)
		waiter_wake(&all->w);
}

static void hold(struct worker *w, const char *run_id)
{
	pthread_mutex_lock(&w->all->w.lock);
	snprintf(w->run_id, sizeof w->run_id, "%s", run_id);
	pthread_mutex_unlock(&w->all->w.lock);
}

static void process_one(struct worker *w, const struct run *run)
{
	struct store *st = w->all->st;
	hold(w, run->id);
	log_json("info", "run claimed", json_pack("{s:s,s:s,s:b,s:s,s:i}", "runId", run->id, "orgId", run->org_id,
		 "dryRun", run->dry_run, "worker", w->owner, "attempt", run->attempts));
	enum code rc = pipeline_run(st, &w->all->opts.pipeline, run, w->owner);
	hold(w, "");
	store_run_changed(st, run->id);   /* long polls answer (or see it queued again) */
	if (rc) {
		/* Nothing was committed: let a worker try again shortly. */
		log_json("warn", "run will be retried", json_pack("{s:s,s:s}", "runId", run->id, "reason",
			 code_name(rc)));
		store_run_release(st, run->id, w->owner, RETRY_MS);
	}
}

/* A run staged at upload gets its file read whole here (its row count for
 * the approval mail), not on an HTTP thread.  Quick: it goes first. */
static bool triage_one(struct worker *w)
{
	struct workers *all = w->all;
	struct run run;
	if (store_run_triage_claim(all->st, w->owner, all->opts.lease_ms, &run))
		return false;
	enum code rc = staging_triage(all->st, &all->opts.staging, &run, w->owner);
	store_run_changed(all->st, run.id);
	if (rc)
		log_json("warn", "triage will be retried", json_pack("{s:s,s:s}", "runId", run.id, "reason",
			 code_name(rc)));
	return true;
}

/* With PostgreSQL's LISTEN (or this process's own hook) waking the workers
 * for every new run, the poll only finds runs that became claimable by
 * time (an expired lease, a retry): every IDLE_POLL_LISTENING_MS at most,
 * not LOADLINE_WORKER_POLL — each look is three round trips, and an idle
 * server must not wake more than a few times a second (issue 27). */
#define IDLE_POLL_LISTENING_MS 2000

static int64_t idle_poll_ms(const struct workers *all)
{
	int64_t ms = all->opts.poll_ms;
	return all->runs_listener && ms < IDLE_POLL_LISTENING_MS ? IDLE_POLL_LISTENING_MS : ms;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct workers *all = w->all;
	while (!waiter_stopping(&all->w)) {
		unsigned long ticket = waiter_ticket(&all->w);
		if (triage_one(w))
			continue;
		struct run run;
		enum code rc = store_run_claim(all->st, w->owner, all->opts.lease_ms, &run);
		if (rc == CODE_OK) {
			store_run_changed(all->st, run.id);   /* RUNNING, with startedAt */
			process_one(w, &run);
			continue;
		}
		if (rc != CODE_NOT_FOUND)
			log_json("warn", "claim failed", json_pack("{s:s,s:s}", "worker", w->owner, "reason", code_name(rc)));
		if (!waiter_nap_since(&all->w, ticket, rc == CODE_NOT_FOUND ? idle_poll_ms(all) : RETRY_MS))
			break;
	}
	return NULL;
}

static void *heartbeat_main(void *arg)
{
	struct workers *all = arg;
	int64_t every = all->opts.lease_ms / 3 > 50 ? all->opts.lease_ms / 3 : 50;
	while (waiter_nap(&all->w, every)) {
		for (int i = 0; i < all->n; i++) {
			char id[ID_MAX];
			pthread_mutex_lock(&all->w.lock);
			snprintf(id, sizeof id, "%s", all->workers[i].run_id);
			pthread_mutex_unlock(&all->w.lock);
			if (*id)
				store_run_heartbeat(all->st, id, all->workers[i].owner, all->opts.lease_ms);
		}
	}
	return NULL;
}

static void *sweeper_main(void *arg)
{
	struct workers *all = arg;
	do
		sweep_once(all->st, &all->opts.sweep);
	while (waiter_nap(&all->w, all->opts.sweep_interval_ms));
	return NULL;
}

/* Wakes this process's idle workers when another process (a `serve`)
 * makes a run claimable, instead of their next poll. */
static void *listener_main(void *arg)
{
	struct workers *all = arg;
	while (!waiter_stopping(&all->w)) {
		int r = store_runs_listener_wait(all->runs_listener, 500);
		if (r > 0)
			waiter_wake(&all->w);
		else if (r < 0 && !waiter_nap(&all->w, RETRY_MS))
			break;
	}
	return NULL;
}

struct workers *workers_start(struct store *st, const struct worker_opts *o, int n)
{
	struct workers *all = calloc(1, sizeof(*all));
	if (!all)
		abort();
	all->st = st;
	all->opts = *o;
	if (all->opts.poll_ms <= 0)
		all->opts.poll_ms = 250;   /* never a busy loop, whoever filled o */
	all->n = n > MAX_WORKERS ? MAX_WORKERS : n;
	waiter_init(&all->w);
	char host[64] = "host";
	gethostname(host, sizeof host - 1);
	/* Before the workers start: they read it (idle_poll_ms). */
	all->runs_listener = all->n > 0 ? store_runs_listen(st) : NULL;
	for (int i = 0; i < all->n; i++) {
		struct worker *w = &all->workers[i];
		w->all = all;
		snprintf(w->owner, sizeof w->owner, "%s:%d:w%d", host, (int)getpid(), i);
		thread_start(&w->thread, worker_main, w);
	}
	thread_start(&all->heartbeat, heartbeat_main, all);
	thread_start(&all->sweeper, sweeper_main, all);
	if (all->runs_listener)
		thread_start(&all->listener, listener_main, all);
	return all;
}

void workers_stop(struct workers *all)
{
	if (!all)
		return;
	waiter_stop(&all->w);
	for (int i = 0; i < all->n; i++)
		pthread_join(all->workers[i].thread, NULL);
	pthread_join(all->heartbeat, NULL);
	pthread_join(all->sweeper, NULL);
	if (all->runs_listener) {
		pthread_join(all->listener, NULL);
		store_runs_listener_close(all->runs_listener);
	}
	waiter_done(&all->w);
	free(all);
}
