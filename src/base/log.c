/* Structured logs: one JSON object per line, written whole under a lock so
 * concurrent threads never interleave lines. */
#include "log.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void log_json(const char *level, const char *msg, json_t *fields)
{
	json_t *o = json_object();
	char ts[TIME_ISO_MAX];
	time_iso(now_ms(), ts);
	json_object_set_new(o, "ts", json_string(ts));
	json_object_set_new(o, "level", json_string(level));
	json_t *m = json_string(msg ? msg : "");
	json_object_set_new(o, "msg", m ? m : json_string("(invalid UTF-8)"));
	if (fields && json_is_object(fields))
		json_object_update(o, fields);
	json_decref(fields);
	char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(6));
	json_decref(o);
	if (!line)
		return;
	pthread_mutex_lock(&lock);
	fputs(line, stderr);
	fputc('\n', stderr);
	fflush(stderr);
	pthread_mutex_unlock(&lock);
	free(line);
}

/* Straight to descriptor 2, not through stdio: stderr is unbuffered and
 * every stdio writer above flushes under the same lock, so nothing is ever
 * pending there to overtake, and the access line (once a request) skips
 * stdio's own lock and copy.  Whole under the lock, as before. */
void log_raw(const char *line, size_t len)
{
	pthread_mutex_lock(&lock);
	while (len) {
		ssize_t n = write(STDERR_FILENO, line, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* as fwrite: a log that cannot be written is dropped */
		line += n;
		len -= (size_t)n;
	}
	pthread_mutex_unlock(&lock);
}

void log_msg(const char *level, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	log_json(level, msg, NULL);
}

/* ---- the access line ---- */

/* The access line through jansson: for any field that needs escaping. */
static void access_json(const struct log_access *a)
{
	json_t *f = json_object();
	json_object_set_new(f, "requestId", json_string(a->request_id));
	json_object_set_new(f, "orgId", a->org_id[0] ? json_string(a->org_id) : json_null());
	json_object_set_new(f, "method", log_json_str(a->method));
	json_object_set_new(f, "path", log_json_str(a->path));
	json_object_set_new(f, "status", json_integer(a->status));
	json_object_set_new(f, "durationMs", json_real(a->duration_ms));
	json_object_set_new(f, "client", a->client && *a->client ? log_json_str(a->client) : json_null());
	json_object_set_new(f, "userAgent", a->user_agent && *a->user_agent ? log_json_str(a->user_agent) : json_null());
	json_object_set_new(f, "keyPrefix", a->key_prefix && *a->key_prefix ? log_json_str(a->key_prefix) : json_null());
	log_json(a->debug ? "debug" : "info", "request", f);
}

/* True when s goes into a JSON string as it is (printable ASCII, no quote
 * or backslash): what jansson would write too, escaping nothing. */
static bool json_plain(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\')
			return false;
	return true;
}

static char *put(char *o, const char *end, const char *s)
{
	size_t n = strlen(s);
	if (!o || (size_t)(end - o) <= n)
		return NULL;
	memcpy(o, s, n);
	return o + n;
}

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" as time_iso writes it; the part up to the
 * seconds is formatted once a second per thread. */
static void iso_now(char out[TIME_ISO_MAX])
{
	static _Thread_local int64_t cached_s = -1;
	static _Thread_local char prefix[TIME_ISO_MAX];
	int64_t ms = now_ms();
	if (ms < 0) {
		time_iso(ms, out);
		return;
	}
	if (ms / 1000 != cached_s) {
		time_iso(ms / 1000 * 1000, prefix);
		cached_s = ms / 1000;
	}
	memcpy(out, prefix, 20); /* through the seconds and the '.' */
	int m = (int)(ms % 1000);
	out[20] = (char)('0' + m / 100);
	out[21] = (char)('0' + m / 10 % 10);
	out[22] = (char)('0' + m % 10);
	out[23] = 'Z';
	out[24] = '\0';
}

/* v in decimal at out; returns the end (not terminated). */
static char *utoa(unsigned long long v, char *out)
{
	char tmp[24];
	int k = 0;
	do
		tmp[k++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (k)
		*out++ = tmp[--k];
	return out;
}

/* A real as jansson writes it with JSON_REAL_PRECISION(6) (jsonp_dtostr):
 * %.6g, ".0" when it reads as an integer, no '+' or leading zeros in the
 * exponent.  Durations are whole hundredths: below 10,000 ms that is at most
 * six significant digits, which %.6g writes exactly, trailing zeros cut. */
static bool json_real6(double v, char *out, size_t cap)
{
	long long h = (long long)(v * 100 + (v >= 0 ? 0.5 : -0.5));
	if (v >= 0 && h < 1000000 && (double)h / 100.0 == v && cap >= 16) {
		int n = (int)(utoa((unsigned long long)(h / 100), out) - out);
		int frac = (int)(h % 100);
		out[n++] = '.';
		out[n++] = (char)('0' + frac / 10);
		if (frac % 10)
			out[n++] = (char)('0' + frac % 10);
		out[n] = '\0';
		return true;
	}
	int n = snprintf(out, cap, "%.6g", v);
	if (n < 0 || (size_t)n + 3 >= cap)
		return false;
	if (!strchr(out, '.') && !strchr(out, 'e'))
		memcpy(out + n, ".0", 3);
	char *e = strchr(out, 'e');
	if (e) {
		char *start = e + 1, *end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start)
			memmove(start, end, strlen(end) + 1);
	}
	return true;
}

/* ,"key":"s" or ,"key":null (NULL or ""). */
static char *put_opt(char *o, const char *end, const char *key, const char *s)
{
	o = put(o, end, ",\"");
	o = put(o, end, key);
	if (!s || !*s)
		return put(o, end, "\":null");
	o = put(o, end, "\":\"");
	o = put(o, end, s);
	return put(o, end, "\"");
}

static bool plain_or_null(const char *s)
{
	return !s || json_plain(s);
}

size_t log_access_line(char *out, size_t cap, const char *ts, const struct log_access *a)
{
	int status = a->status;
	if (!json_plain(a->request_id) || !json_plain(a->org_id) || !json_plain(a->method) ||
	    !json_plain(a->path) || !json_plain(ts) || !plain_or_null(a->client) || !plain_or_null(a->user_agent) ||
	    !plain_or_null(a->key_prefix))
		return 0;
	char num[64], st[16];
	if (!json_real6(a->duration_ms, num, sizeof num))
		return 0;
	if (status < 0)
		return 0;
	*utoa((unsigned long long)status, st) = '\0';
	const char *end = out + cap;
	char *o = put(out, end, "{\"ts\":\"");
	o = put(o, end, ts);
	o = put(o, end, a->debug ? "\",\"level\":\"debug\",\"msg\":\"request\",\"requestId\":\""
				 : "\",\"level\":\"info\",\"msg\":\"request\",\"requestId\":\"");
	o = put(o, end, a->request_id);
	if (a->org_id[0]) {
		o = put(o, end, "\",\"orgId\":\"");
		o = put(o, end, a->org_id);
		o = put(o, end, "\",\"method\":\"");
	} else {
		o = put(o, end, "\",\"orgId\":null,\"method\":\"");
	}
	o = put(o, end, a->method);
	o = put(o, end, "\",\"path\":\"");
	o = put(o, end, a->path);
	o = put(o, end, "\",\"status\":");
	o = put(o, end, st);
	o = put(o, end, ",\"durationMs\":");
	o = put(o, end, num);
	o = put_opt(o, end, "client", a->client);
	o = put_opt(o, end, "userAgent", a->user_agent);
	o = put_opt(o, end, "keyPrefix", a->key_prefix);
	o = put(o, end, "}\n");
	return o ? (size_t)(o - out) : 0;
}

/* The first LOG_UA_MAX bytes of ua into out, cut before a UTF-8
 * character that does not fit whole. */
static const char *cap_user_agent(const char *ua, char out[LOG_UA_MAX + 1])
{
	if (!ua || strlen(ua) <= LOG_UA_MAX)
		return ua;
	size_t n = LOG_UA_MAX;
	while (n > 0 && ((unsigned char)ua[n] & 0xC0) == 0x80)
		n--;
	memcpy(out, ua, n);
	out[n] = '\0';
	return out;
}

void log_access(const struct log_access *a)
{
	/* The line log_json would write, formatted directly when no field
	 * needs escaping (every request the API answers). */
	char ts[TIME_ISO_MAX], line[8192 + 1024], ua[LOG_UA_MAX + 1];
	struct log_access c = *a;
	c.user_agent = cap_user_agent(a->user_agent, ua);
	iso_now(ts);
	size_t n = log_access_line(line, sizeof line, ts, &c);
	if (n)
		log_raw(line, n);
	else
		access_json(&c);
}

json_t *log_json_str(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	/* Invalid UTF-8 never reaches a log or the wire as is. */
	size_t n = strlen(s);
	char *fixed = malloc(n * 3 + 1), *o = fixed;
	if (!fixed)
		abort();
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x80) {
			*o++ = (char)*p;
		} else {
			memcpy(o, "\xEF\xBF\xBD", 3);
			o += 3;
		}
	}
	*o = '\0';
	j = json_string(fixed);
	free(fixed);
	return j ? j : json_string("");
}
