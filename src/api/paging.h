/* List paging: the `limit` parameter and opaque, tamper-evident cursors. */
#ifndef LOADLINE_API_PAGING_H
#define LOADLINE_API_PAGING_H

#include <stdbool.h>
#include <stdint.h>

#include "api.h"

#define PAGE_DEFAULT 100
#define PAGE_MAX 1000

/* Reads ?limit (1..1000, default 100); answers INVALID_LIMIT and returns
 * false when it is anything else. */
bool page_limit(struct http_request *req, struct http_response *res, int *ret);

/* A cursor is "<position>.<MAC>": a keyed MAC (the installation's cursor
 * key, app->cursor_key) binds the position to its list, so a cursor from
 * another list, or edited by hand, fails the check.  scope names the list
 * (run id + bucket, or org id). */
char *cursor_make(struct http_request *req, const char *scope, const char *position);
/* Decodes ?cursor into position (NULL when absent); answers INVALID_CURSOR
 * and returns false when it does not check out. */
bool cursor_read(struct http_request *req, struct http_response *res, const char *scope, const char **ret_position);
/* Answers INVALID_CURSOR for a cursor whose position is out of range. */
void cursor_invalid(struct http_request *req, struct http_response *res);
/* Positions of lists ordered by (created_at, id): "<ms>_<id>". */
char *position_time_id(struct http_request *req, int64_t created_at, const char *id);
/* Splits such a position; false when it is malformed or out of range. */
bool position_split(const char *pos, int64_t *ret_created_at, const char **ret_id);
/* Positions of lists ordered by a row number: a decimal in 0..INT_MAX. */
bool position_index(const char *pos, int *ret);
/* Builds "<path>?cursor=C[&limit=N]" with C percent-safe (base62 and '.', '_'). */
char *next_page_url(struct http_request *req, const char *cursor, int limit, const char *extra_query);

/* The ?q of a searchable list: "" when absent; NULL after answering 400
 * INVALID_REQUEST when it is longer than 200 characters. */
const char *page_search_text(struct http_request *req, struct http_response *res);

/* A page of a list ordered by (created_at, id), as the list endpoints read
 * it: the limit, and the position after which the page starts (after_id
 * NULL on the first page). */
struct time_page {
	int limit;
	int64_t after_created;
	const char *after_id;
};

/* Reads ?limit and ?cursor for the list named scope; answers the problem
 * and returns false when either is wrong. */
bool time_page_read(struct http_request *req, struct http_response *res, const char *scope, struct time_page *ret);
/* Answers 200 with {object: list, data, nextPageUrl}: data (stolen) holds
 * up to limit items; when the store gave more (got > limit), the next page
 * starts after the last shown one (last_created, last_id), and
 * extra_query (may be NULL) is kept in its URL. */
void time_page_answer(struct http_request *req, struct http_response *res, const char *scope,
		      const struct time_page *p, json_t *data, int got, int64_t last_created, const char *last_id,
		      const char *extra_query);

#endif
