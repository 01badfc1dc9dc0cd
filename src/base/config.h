/* Configuration from the environment (PRODUCT.md §1); flags override fields
 * after config_load.  The application object (src/app/app.h) owns the one
 * instance of a process; it is read-only once the process serves. */
#ifndef LOADLINE_BASE_CONFIG_H
#define LOADLINE_BASE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct config {
	char db[1024];           /* LOADLINE_DB; sqlite:./data/loadline.db */
	char listen[256];        /* LOADLINE_LISTEN; 127.0.0.1:8080 */
	char metrics_listen[256]; /* LOADLINE_METRICS_LISTEN: /metrics on its own address; "" = on listen */
	char base_url[512];      /* LOADLINE_BASE_URL; http://<listen> */
	char app_url[512];       /* LOADLINE_APP_URL; base URL */
	char docs_url[512];      /* LOADLINE_DOCS_URL; <base>/docs */
	char smtp_url[512];      /* LOADLINE_SMTP_URL; empty = outbox only */
	char mail_from[256];     /* LOADLINE_MAIL_FROM */
	char oidc_issuer[512];
	char spool_dir[1024];    /* LOADLINE_SPOOL_DIR; $TMPDIR or /tmp: uploads as they arrive */
	char gazetteer[1024];    /* LOADLINE_GAZETTEER; "" = next to the program, else {datadir}/loadline */
	char oidc_client_id[256];
	char oidc_client_secret[256];
	int rate_limit;          /* requests per window (LOADLINE_RATE_LIMIT "600/60s") */
	int64_t rate_window_ms;
	int max_rows;            /* LOADLINE_MAX_ROWS 750 */
	int import_batch_rows;   /* LOADLINE_IMPORT_BATCH_ROWS 2000: rows a run commits at a time (1-5000) */
	size_t max_file_bytes;   /* LOADLINE_MAX_FILE_BYTES 5242880 */
	int64_t staging_ttl_ms;  /* LOADLINE_STAGING_TTL 72h */
	int64_t run_timeout_ms;  /* LOADLINE_RUN_TIMEOUT 30m */
	int64_t sweep_interval_ms; /* LOADLINE_SWEEP_INTERVAL 30s */
	int64_t worker_poll_ms;    /* LOADLINE_WORKER_POLL 250ms: an idle worker's look at the queue */
	int64_t lease_ms;        /* LOADLINE_LEASE 30s: a worker's claim on a run */
	int64_t session_ttl_ms;  /* LOADLINE_SESSION_TTL 12h: a web sign-in lasts this long */
	int64_t keep_uploads_ms; /* LOADLINE_KEEP_UPLOADS 30d: stored uploads of finished runs */
	int64_t keep_results_ms; /* LOADLINE_KEEP_RESULTS 90d: per-row results of finished runs */
	int workers;             /* serve --workers, default 2 */
	int http_threads;        /* LOADLINE_HTTP_THREADS, default 8 */
	int max_connections;     /* LOADLINE_MAX_CONNECTIONS, default 4096 */
	int max_connections_per_ip; /* LOADLINE_MAX_CONNECTIONS_PER_IP, default 64; 0 = no limit */
	int64_t idle_timeout_ms; /* LOADLINE_IDLE_TIMEOUT, default 15s: a silent connection is closed */
	int64_t header_timeout_ms; /* LOADLINE_HEADER_TIMEOUT, default 5s: request line + headers due */
	bool reuseport;          /* LOADLINE_REUSEPORT=1: share the listen port (SO_REUSEPORT) */
	bool log_debug;          /* LOADLINE_LOG_LEVEL=debug: health probes' access lines too */
	int max_waiters;         /* LOADLINE_MAX_WAITERS, default 1000: long polls held at once */
	int min_body_rate;       /* LOADLINE_MIN_BODY_RATE, default 1024: bytes/s a body must average */
	int max_waiters_per_org; /* LOADLINE_MAX_WAITERS_PER_ORG, default a quarter of them: one org's share */
	bool webhook_allow_http;    /* LOADLINE_WEBHOOK_ALLOW_HTTP=1: http:// endpoints (tests) */
	bool webhook_allow_private; /* LOADLINE_WEBHOOK_ALLOW_PRIVATE=1: deliver to private addresses (tests) */
	int64_t webhook_retry_min_ms; /* LOADLINE_WEBHOOK_RETRY_MIN 1m: first retry, doubling up to 1 h */
	int64_t webhook_retry_for_ms; /* LOADLINE_WEBHOOK_RETRY_FOR 72h: then the endpoint is disabled */
	int debug_poll_read_delay_ms;   /* LOADLINE_DEBUG_POLL_READ_DELAY_MS: a long poll waits this long after
					 * reading its run (the missed-wake-up test) */
	int debug_row_delay_ms;  /* LOADLINE_DEBUG_ROW_DELAY_MS: fault-injection for
				  * recovery tests (slows each written row); 0 in production */
	char docs_path[512];     /* path under which this process serves the error pages */
	bool base_url_set, app_url_set, docs_url_set;  /* given, not derived */
};

/* The packaged settings file, which the systemd units read too. */
#define CONFIG_ENV_FILE "/etc/loadline/loadline.env"

/* For the commands that open a database (serve, worker, migrate, admin):
 * when LOADLINE_DB is not in the environment, the settings of
 * $LOADLINE_ENV_FILE (default CONFIG_ENV_FILE; set and empty: none) are
 * put into the environment, each only when that variable is not there
 * already, before config_load.  A default file that does not exist is no
 * error; one that exists and cannot be read is (it names the database the
 * operator means), unless db_given (--db chose the database: a warning).
 * Returns 0, or -1 with a message on stderr. */
int config_read_env_file(bool db_given);
/* Fills c from defaults and the environment.  Returns 0, or -1 with a
 * message on stderr naming the variable that is wrong. */
int config_load(struct config *c);
/* Recomputes what defaults from --listen (URLs, docs_path), after flags
 * changed it. */
void config_derive_urls(struct config *c);
/* Parses "N/WINDOW" such as "600/60s". */
int config_parse_rate(const char *s, int *ret_n, int64_t *ret_window_ms);

#endif
