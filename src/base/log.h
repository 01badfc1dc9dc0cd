/* One-line JSON logs on stderr.  Only the edges log (HTTP, worker, CLI). */
#ifndef LOADLINE_BASE_LOG_H
#define LOADLINE_BASE_LOG_H

#include <jansson.h>

/* Writes {"ts":..., "level":..., "msg":..., <fields>} as one line.
 * fields is NULL or a JSON object whose members are added (stolen). */
void log_json(const char *level, const char *msg, json_t *fields);
/* Writes one ready line (ending in a newline) as log_json would, whole. */
void log_raw(const char *line, size_t len);
/* printf-style message with no fields. */
void log_msg(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
