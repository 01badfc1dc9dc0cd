/* Structured logs: one JSON object per line, written whole under a lock so
 * concurrent threads never interleave lines. */
#include "log.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
