/* loadline serve / worker / migrate: the long-running processes. */
#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <time.h>

#include "api/api.h"
#include "import/envelope.h"
#include "app/app.h"
#include "auth/oidc.h"
#include "base/log.h"
#include "base/waiter.h"
#include "cli.h"
#include "common.h"
#include "geo/geocoder.h"
#include "front/front.h"
#include "http/ratelimit.h"
#include "import/worker.h"
#include "mail/mailer.h"
#include "notify/notify.h"
#include "webhook/webhook.h"
#include "store/runs.h"
#include "store/settings.h"

/* Blocks the stop signals in every thread started after this, so that the
 * main thread alone receives them through sigwait. */
static void block_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	pthread_sigmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int wait_for_stop(sigset_t *set)
{
	int sig = 0;
	sigwait(set, &sig);
	return sig;
}

static int parse_workers(struct config *cfg, int argc, char **argv)
{
	const char *w = opt(argc, argv, "--workers");
	if (!w)
		return 0;
	char *end;
	long n = strtol(w, &end, 10);
	if (*end || n < 0 || n > 64) {
		fprintf(stderr, "loadline: --workers must be a number from 0 to 64, not \"%s\"\n", w);
		return -1;
	}
	cfg->workers = (int)n;
	return 0;
}

/* libcurl before any thread: sign-in fetches the OIDC provider's documents
 * and the mailer talks SMTP. */
static int curl_start(void)
{
	CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
	if (rc)
		fprintf(stderr, "loadline: cannot initialise libcurl: %s\n", curl_easy_strerror(rc));
	return rc ? -1 : 0;
}

/* The background threads every serving or working process runs; their
 * wake-up calls become the application's hooks. */
struct background {
	struct workers *workers;
	struct mailer *mailer;
	struct webhooks *webhooks;
};

static void background_start(struct app *app, struct background *bg)
{
	const struct config *c = &app->cfg;
	struct worker_opts wo = {
		.pipeline = {.max_rows = c->max_rows, .batch_rows = c->import_batch_rows,
			     .debug_row_delay_ms = c->debug_row_delay_ms,
			     .geo = app->geo, .spool_dir = c->spool_dir},
		.lease_ms = c->lease_ms, .sweep_interval_ms = c->sweep_interval_ms,
		.sweep = {.run_timeout_ms = c->run_timeout_ms, .keep_uploads_ms = c->keep_uploads_ms,
			  .keep_results_ms = c->keep_results_ms},
		.poll_ms = c->worker_poll_ms,
	};
	bg->mailer = mailer_start(app->store, app->notify, c->smtp_url, c->mail_from);
	/* Said at start-up, as in Settings and /readyz (issue 30). */
	if (!*c->smtp_url)
		log_json("warn", "mail is off: LOADLINE_SMTP_URL is not set", json_pack("{s:s}", "detail", "approval "
			 "and webhook mails stay in the outbox; each approval's review link is logged instead"));
	wo.staging = (struct staging_opts){.max_rows = c->max_rows, .app_url = c->app_url,
					   .mail_queued = mailer_notify, .mail_arg = bg->mailer,
					   .no_smtp = !*c->smtp_url};
	bg->workers = workers_start(app->store, &wo, c->workers);
	app->run_queued = (struct app_hook){workers_notify, bg->workers};
	struct webhook_opts ho = {.cfg = c, .retry_min_ms = c->webhook_retry_min_ms,
				  .retry_for_ms = c->webhook_retry_for_ms, .allow_http = c->webhook_allow_http,
				  .allow_private = c->webhook_allow_private, .mail_queued = mailer_notify,
				  .mail_arg = bg->mailer, .notify = app->notify};
	bg->webhooks = webhooks_start(app->store, &ho);
}

static void background_stop(struct background *bg)
{
	webhooks_stop(bg->webhooks);
	workers_stop(bg->workers);
	mailer_stop(bg->mailer);
}

/* Everything the HTTP side needs besides the store. */
static int lease_allowance(void *arg, const char *key, int64_t now, int64_t interval, int64_t span, int want,
			   int *ret_granted, int64_t *ret_tat)
{
	return store_rate_lease(arg, key, now, interval, span, want, ret_granted, ret_tat) ? -1 : 0;
}

static int serving_parts(struct app *app)
{
	const struct config *c = &app->cfg;
	if (store_secret(app->store, "cursor-mac", app->cursor_key, sizeof app->cursor_key)) {
		fprintf(stderr, "loadline: cannot read the page-cursor key from the database\n");
		return -1;
	}
	app->rl = ratelimit_new(c->rate_limit, c->rate_window_ms);
	app->api = api_state_new();
	app->uploads = malloc(sizeof(*app->uploads));
	if (!app->uploads)
		abort();
	upload_slots_init(app->uploads, app->notify);
	/* On PostgreSQL every serve process shares each token's budget. */
	if (store_is_postgres(app->store))
		ratelimit_share(app->rl, lease_allowance, app->store);
	app->oidc = oidc_new(c->oidc_issuer, c->oidc_client_id, c->oidc_client_secret);
	oidc_start(app->oidc);
	return 0;
}

/* Every connection is a descriptor: lift the soft limit to the hard one,
 * so LOADLINE_MAX_CONNECTIONS is what bounds them, not a default of 1024. */
static void raise_fd_limit(void)
{
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The listening sockets (the API's; the metrics listener's or -1), before
 * anything else: a second serve on an address in use stops here, before it
 * opens (or migrates) a database or starts workers. */
static int listen_all(const struct config *c, int fds[2])
{
	fds[1] = -1;
	if ((fds[0] = http_listen(c->listen, c->reuseport)) < 0)
		return -1;
	if (c->metrics_listen[0] && (fds[1] = http_listen(c->metrics_listen, c->reuseport)) < 0) {
		close(fds[0]);
		return -1;
	}
	return 0;
}

static void close_all(const int fds[2])
{
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Serves on both sockets (taken over); NULL when either cannot start. */
static struct http_server *http_start_all(struct app *app, const int fds[2], struct http_app hooks[2],
					  struct http_server **ret_metrics)
{
	const struct config *c = &app->cfg;
	struct http_server *srv = http_start_fd(fds[0], c->listen, c->http_threads, front_app(app, &hooks[0]));
	*ret_metrics = NULL;
	if (fds[1] < 0)
		return srv;
	if (!srv) {
		close(fds[1]);
		return NULL;
	}
	*ret_metrics = http_start_fd(fds[1], c->metrics_listen, 1, front_metrics_app(app, &hooks[1]));
	if (!*ret_metrics) {
		http_stop(srv, 0);
		return NULL;
	}
	return srv;
}

int cli_serve(struct app *app, int argc, char **argv)
{
	static const char *usage = "loadline serve [--listen HOST:PORT] [--workers N]";
	static const char *const ok[] = {"--listen", "--workers", NULL};
	struct config *c = &app->cfg;
	if (opts_check(argc, argv, ok, NULL, usage) || parse_workers(c, argc, argv))
		return 2;
	const char *listen = opt(argc, argv, "--listen");
	if (listen) {
		snprintf(c->listen, sizeof c->listen, "%s", listen);
		config_derive_urls(c);
	}
	sigset_t set;
	block_signals(&set);
	raise_fd_limit();
	int fds[2];
	if (listen_all(c, fds))
		return 1;
	if (curl_start()) {
		close_all(fds);
		return 1;
	}
	int ret = 1;
	struct http_server *srv = NULL, *msrv = NULL;
	struct http_app hooks[2];
	if (cli_geocoder(app) || !cli_store(app, app_store_pool_size(c, c->http_threads)) || serving_parts(app)) {
		close_all(fds);
		goto out;
	}
	/* Before any other thread: the hub's listener hears other processes'
	 * run changes and queued work (src/notify). */
	notify_start(app->notify);
	store_bound_waits(app->store, c->lease_ms);
	store_checkpoint_in_background(app->store);
	struct background bg;
	background_start(app, &bg);
	if ((srv = http_start_all(app, fds, hooks, &msrv)))
		atomic_store(&app->http, srv);
	if (srv) {
		log_json("info", "listening", json_pack("{s:s,s:s,s:s,s:i}", "url", c->base_url, "appUrl", c->app_url,
			 "db", store_is_postgres(app->store) ? "postgres" : "sqlite", "workers", c->workers));
		int sig = wait_for_stop(&set);
		log_json("info", "stopping", json_pack("{s:s}", "signal", sig == SIGINT ? "SIGINT" : "SIGTERM"));
		if (msrv)
			http_stop(msrv, 1000);
		atomic_store(&app->http, NULL);
		http_stop(srv, 30000);
		ret = 0;
	}
	background_stop(&bg);
out:
	notify_stop(app->notify);   /* its listener uses the store */
	ratelimit_free(app->rl);
	api_state_free(app->api);
	if (app->uploads) {
		upload_slots_destroy(app->uploads);
		free(app->uploads);
		app->uploads = NULL;
	}
	oidc_free(app->oidc);
	store_close(app->store);
	geo_close(app->geo);
	curl_global_cleanup();
	if (!ret)
		log_json("info", "stopped", NULL);
	return ret;
}

int cli_migrate(struct app *app, int argc, char **argv)
{
	static const char *const ok[] = {NULL};
	if (opts_check(argc, argv, ok, NULL, "loadline migrate"))
		return 2;
	struct store *st = cli_store(app, 1);
	if (!st)
		return 1;
	store_close(st);
	return 0;
}

int cli_worker(struct app *app, int argc, char **argv)
{
	static const char *const ok[] = {"--workers", NULL};
	if (opts_check(argc, argv, ok, NULL, "loadline worker [--workers N]") || parse_workers(&app->cfg, argc, argv))
		return 2;
	sigset_t set;
	block_signals(&set);
	if (curl_start())
		return 1;
	if (cli_geocoder(app) || !cli_store(app, app_store_pool_size(&app->cfg, 0))) {
		geo_close(app->geo);
		curl_global_cleanup();
		return 1;
	}
	notify_start(app->notify);
	store_bound_waits(app->store, app->cfg.lease_ms);
	store_checkpoint_in_background(app->store);
	/* A worker has no API listener; with LOADLINE_METRICS_LISTEN its run
	 * metrics are scraped there. */
	struct http_server *msrv = NULL;
	struct http_app mhooks;
	if (app->cfg.metrics_listen[0] &&
	    !(msrv = http_start(app->cfg.metrics_listen, 1, front_metrics_app(app, &mhooks)))) {
		notify_stop(app->notify);
		store_close(app->store);
		curl_global_cleanup();
		return 1;
	}
	struct background bg;
	background_start(app, &bg);
	log_json("info", "workers started", json_pack("{s:i,s:s}", "workers", app->cfg.workers, "db",
		 store_is_postgres(app->store) ? "postgres" : "sqlite"));
	wait_for_stop(&set);
	background_stop(&bg);
	http_stop(msrv, 1000);
	notify_stop(app->notify);
	store_close(app->store);
	curl_global_cleanup();
	log_json("info", "stopped", NULL);
	return 0;
}
