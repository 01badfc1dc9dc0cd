/* One-line JSON logs on stderr.  Only the edges log (HTTP, worker, CLI). */
#ifndef LOADLINE_BASE_LOG_H
#define LOADLINE_BASE_LOG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Writes {"ts":..., "level":..., "msg":..., <fields>} as one line.
 * fields is NULL or a JSON object whose members are added (stolen). */
void log_json(const char *level, const char *msg, json_t *fields);
/* Writes one ready line (ending in a newline) as log_json would, whole. */
void log_raw(const char *line, size_t len);
/* A JSON string of s; invalid UTF-8 bytes become U+FFFD; NULL gives null. */
json_t *log_json_str(const char *s);

/* One request's access line: {"ts","level":"info"|"debug","msg":"request",
 * "requestId","orgId" (null when ""),"method","path","status","durationMs",
 * "client","userAgent","keyPrefix"} (the last three null when NULL or ""). */
struct log_access {
	const char *request_id, *org_id, *method, *path;
	int status;
	double duration_ms;   /* whole hundredths */
	const char *client;       /* the peer's address */
	const char *user_agent;   /* the User-Agent header; log_access keeps its first LOG_UA_MAX bytes */
	const char *key_prefix;   /* the authenticating API key's display prefix (ll_live_XXXX), never the token */
	bool debug;               /* level "debug" (health probes) rather than "info" */
};
#define LOG_UA_MAX 256
/* Writes a's line (log_raw when no field needs escaping, else log_json). */
void log_access(const struct log_access *a);
/* a's line as log_json writes it, into out: its length (with the newline),
 * or 0 when a field needs escaping (log_json must write it) or it does not
 * fit.  ts is the time_iso of now.  (Exposed for tests.) */
size_t log_access_line(char *out, size_t cap, const char *ts, const struct log_access *a);
/* printf-style message with no fields. */
void log_msg(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
