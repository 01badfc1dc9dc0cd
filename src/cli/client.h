/* What `loadline push` and `loadline runs` share (PRODUCT §9, §11): the
 * base URL and token, the one origin the token is sent to, requests that
 * wait and retry on 429 and 503, problems reported by code on stderr, and
 * server text printed safely. */
#ifndef LOADLINE_CLI_CLIENT_H
#define LOADLINE_CLI_CLIENT_H

#include <jansson.h>
#include <stdbool.h>

#include "http_client.h"

/* Exit statuses of push and runs: the contract a cron job branches on. */
enum { EXIT_OK = 0, EXIT_ERROR = 1, EXIT_PARTIAL = 2, EXIT_FAILED = 3, EXIT_STAGED = 4 };

struct client {
	char base[512];
	char app[512];        /* where the web app's pages are: $LOADLINE_APP_URL, else base */
	const char *token;
	const char *cmd;      /* "push", "push (dry run)", "runs": names every stderr line */
	bool json, dry_run, no_wait, strict, progress;
	bool all_or_nothing;              /* push --all-or-nothing: ?commit=all (PRODUCT §15) */
	const char *results_dir;
	const char *header_row, *sheet;   /* push --header-row, --sheet (PRODUCT §14), or NULL */
	int poll_ms;          /* LOADLINE_POLL_MS: fixed delay between polls (tests), or 0 */
	double deadline;      /* mono_ms() when --timeout expires, or 0: never */
	const char *timeout;  /* --timeout as given, for messages */
	long stall_s;         /* LOADLINE_STALL_S (tests): a request's silence limit; 0: 60 s */
};

/* The default of --timeout: the whole command, upload and waiting. */
#define CLIENT_TIMEOUT_DEFAULT "10m"

/* Base URL, token, --json, --timeout and the poll delay from argv and the
 * environment; -1 after a message when --timeout is not a duration. */
int client_init(struct client *c, const char *cmd, int argc, char **argv);

/* True once --timeout has expired (after saying so on stderr, naming what
 * was being waited for: what, e.g. "run run_x is still RUNNING", or NULL). */
bool client_expired(const struct client *c, const char *what);

/* Sleeps ms, or until --timeout expires if that comes first. */
void client_nap(const struct client *c, int ms);

/* The absolute URL of a server path or of a URL the server named, into out;
 * -1 (after a message) when it is not on the base URL's origin. */
int client_url(const struct client *c, const char *path, char *out, size_t cap);

/* Performs rq, waiting and retrying while the server answers 429 or 503;
 * -1 (after a message) on a transport error. */
int client_request(const struct client *c, const struct hc_request *rq, struct hc_response *res);
/* The same, saying what was awaited ("run X is still QUEUED") when the
 * --timeout deadline passes before or during the request, rather than
 * the transfer's own error (what NULL: the latter). */
int client_request_for(const struct client *c, const struct hc_request *rq, struct hc_response *res,
		       const char *what);

/* GET path: the 200 body as JSON, or NULL after reporting the problem. */
json_t *client_get_json(const struct client *c, const char *path);

/* method path with body (JSON, or NULL: none): the 2xx body as JSON (an
 * empty object for 204), or NULL after reporting the problem.  The status
 * through ret_status (may be NULL). */
json_t *client_call(const struct client *c, const char *method, const char *path, json_t *body, long *ret_status);

/* The usual start of a subcommand of the API client: --help (usage on
 * stdout, returns 1 with *ret_exit = 0), options checked, client_init, a
 * token.  Returns 0 to go on, else 1 with *ret_exit set. */
int client_start(struct client *c, const char *cmd, const char *usage, int argc, char **argv,
		 const char *const *allowed, const char *const *bools, int *ret_exit);

/* The n-th (0-based) argument that is neither an option nor an option's
 * value (allowed: the options that take one), or NULL. */
const char *client_arg(int argc, char **argv, const char *const *allowed, int n);

/* "loadline CMD: 401 UNAUTHORIZED: detail" on stderr, from a problem body. */
void client_problem(const struct client *c, const struct hc_response *res);

/* JSON on stdout with everything past ASCII escaped. */
void client_print_json(json_t *v);

/* A non-negative decimal up to 1,000,000, or -1. */
int client_atoi(const char *s);

static inline int jint(json_t *o, const char *k)
{
	return (int)json_integer_value(json_object_get(o, k));
}

static inline const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* "--help" or "-h" among the arguments. */
bool client_wants_help(int argc, char **argv);

#endif
