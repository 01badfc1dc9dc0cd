/* loadline serve / worker / migrate: the long-running processes. */
#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "base/config.h"
#include "base/log.h"
#include "cli.h"
#include "common.h"
#include "http/ratelimit.h"
#include "import/worker.h"
#include "mail/mailer.h"
#include "store/settings.h"
#include "web/web.h"

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

static int parse_workers(int argc, char **argv)
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
	g_config.workers = (int)n;
	return 0;
}

int cli_serve(int argc, char **argv)
{
	static const char *usage = "loadline serve [--listen HOST:PORT] [--workers N]";
	static const char *const ok[] = {"--listen", "--workers", NULL};
	if (opts_check(argc, argv, ok, NULL, usage) || parse_workers(argc, argv))
		return 2;
	const char *listen = opt(argc, argv, "--listen");
	if (listen) {
		snprintf(g_config.listen, sizeof g_config.listen, "%s", listen);
		config_derive_urls();
	}
	sigset_t set;
	block_signals(&set);
	/* Before any thread: sign-in fetches the OIDC provider's documents. */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	struct store *st = cli_store(g_config.http_threads + g_config.workers + 2);
	if (!st)
		return 1;
	g_api.store = st;
	if (store_secret(st, "cursor-mac", g_api.cursor_key, sizeof g_api.cursor_key)) {
		fprintf(stderr, "loadline: cannot read the page-cursor key from the database\n");
		store_close(st);
		return 1;
	}
	web_init(st);
	g_api.rl = ratelimit_new(g_config.rate_limit, g_config.rate_window_ms);
	struct http_server *srv = http_start(g_config.listen, g_config.http_threads, api_app());
	if (!srv) {
		ratelimit_free(g_api.rl);
		store_close(st);
		return 1;
	}
	struct workers *workers = workers_start(st, g_config.workers);
	struct mailer *mailer = mailer_start(st);
	log_json("info", "listening", json_pack("{s:s,s:s,s:s,s:i}", "url", g_config.base_url, "appUrl",
		 g_config.app_url, "db", store_is_postgres(st) ? "postgres" : "sqlite", "workers", g_config.workers));
	int sig = wait_for_stop(&set);
	log_json("info", "stopping", json_pack("{s:s}", "signal", sig == SIGINT ? "SIGINT" : "SIGTERM"));
	http_stop(srv, 30000);
	workers_stop(workers);
	mailer_stop(mailer);
	ratelimit_free(g_api.rl);
	store_close(st);
	curl_global_cleanup();
	log_json("info", "stopped", NULL);
	return 0;
}

int cli_migrate(int argc, char **argv)
{
	static const char *const ok[] = {NULL};
	if (opts_check(argc, argv, ok, NULL, "loadline migrate"))
		return 2;
	struct store *st = cli_store(1);
	if (!st)
		return 1;
	store_close(st);
	return 0;
}

int cli_worker(int argc, char **argv)
{
	static const char *const ok[] = {"--workers", NULL};
	if (opts_check(argc, argv, ok, NULL, "loadline worker [--workers N]") || parse_workers(argc, argv))
		return 2;
	sigset_t set;
	block_signals(&set);
	struct store *st = cli_store(g_config.workers + 2);
	if (!st)
		return 1;
	struct workers *workers = workers_start(st, g_config.workers);
	struct mailer *mailer = mailer_start(st);
	log_json("info", "workers started", json_pack("{s:i,s:s}", "workers", g_config.workers, "db",
		 store_is_postgres(st) ? "postgres" : "sqlite"));
	wait_for_stop(&set);
	workers_stop(workers);
	mailer_stop(mailer);
	store_close(st);
	log_json("info", "stopped", NULL);
	return 0;
}
