/* Limits and cursors. */
#include "paging.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sodium.h>

#include "app/app.h"
#include "base/arena.h"
#include "base/ids.h"

bool page_limit(struct http_request *req, struct http_response *res, int *ret)
{
	const char *s = http_query(req, "limit");
	*ret = PAGE_DEFAULT;
	if (!s)
		return true;
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 1 || v > PAGE_MAX || s[0] == '+' || s[0] == ' ') {
		api_problem(req, res, CODE_INVALID_LIMIT, "limit must be a whole number from 1 to 1000.", NULL);
		return false;
	}
	*ret = (int)v;
	return true;
}

/* 128 bits of HMAC-SHA-256 over scope and position, keyed with the
 * installation's cursor key (shared by every process through the
 * database): a cursor cannot be forged or moved to another list. */
#define MAC_HEX 32

static void cursor_mac(const unsigned char *key, const char *scope, const char *position, char out[MAC_HEX + 1])
{
	crypto_auth_hmacsha256_state st;
	unsigned char mac[crypto_auth_hmacsha256_BYTES];
	crypto_auth_hmacsha256_init(&st, key, 32);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)scope, strlen(scope));
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)"\x1f", 1);
	crypto_auth_hmacsha256_update(&st, (const unsigned char *)position, strlen(position));
	crypto_auth_hmacsha256_final(&st, mac);
	sodium_bin2hex(out, MAC_HEX + 1, mac, MAC_HEX / 2);
}

char *cursor_make(struct http_request *req, const char *scope, const char *position)
{
	char mac[MAC_HEX + 1];
	cursor_mac(((const struct app *)req->app)->cursor_key, scope, position, mac);
	return arena_printf(req->arena, "%s.%s", position, mac);
}

static bool cursor_checks(struct http_request *req, const char *c, const char *scope, const char **ret_position)
{
	const char *dot = strrchr(c, '.');
	if (!dot || dot == c || strlen(dot + 1) != MAC_HEX || strlen(c) >= 200)
		return false;
	for (const char *p = c; p < dot; p++)
		if (!is_base62(*p) && *p != '_' && *p != '.')
			return false;
	char *pos = arena_strndup(req->arena, c, (size_t)(dot - c));
	char mac[MAC_HEX + 1];
	cursor_mac(((const struct app *)req->app)->cursor_key, scope, pos, mac);
	if (sodium_memcmp(mac, dot + 1, MAC_HEX))
		return false;
	*ret_position = pos;
	return true;
}

bool cursor_read(struct http_request *req, struct http_response *res, const char *scope, const char **ret_position)
{
	const char *c = http_query(req, "cursor");
	*ret_position = NULL;
	if (!c || cursor_checks(req, c, scope, ret_position))
		return true;
	api_problem(req, res, CODE_INVALID_CURSOR, "The cursor is not one this list issued; follow nextPageUrl "
		    "exactly, or leave cursor out to start over.", NULL);
	return false;
}

void cursor_invalid(struct http_request *req, struct http_response *res)
{
	api_problem(req, res, CODE_INVALID_CURSOR, "The cursor is out of range; follow nextPageUrl exactly, "
		    "or leave cursor out to start over.", NULL);
}

char *next_page_url(struct http_request *req, const char *cursor, int limit, const char *extra_query)
{
	char lim[32] = "";
	if (http_query(req, "limit"))
		snprintf(lim, sizeof lim, "&limit=%d", limit);
	return arena_printf(req->arena, "%s?%s%scursor=%s%s", req->path, extra_query ? extra_query : "",
			    extra_query ? "&" : "", cursor, lim);
}

char *position_time_id(struct http_request *req, int64_t created_at, const char *id)
{
	return arena_printf(req->arena, "%lld_%s", (long long)created_at, id);
}

/* A non-negative decimal that fits in int64 and has nothing after it
 * (or only what stop says). */
static bool parse_count(const char *s, char stop, int64_t max, int64_t *ret, const char **ret_end)
{
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (errno || v < 0 || v > max || *end != stop)
		return false;
	*ret = v;
	*ret_end = end;
	return true;
}

bool position_split(const char *pos, int64_t *ret_created_at, const char **ret_id)
{
	const char *us;
	if (!parse_count(pos, '_', INT64_MAX, ret_created_at, &us) || !us[1])
		return false;
	*ret_id = us + 1;
	return true;
}

bool position_index(const char *pos, int *ret)
{
	int64_t v;
	const char *end;
	if (!parse_count(pos, '\0', INT_MAX, &v, &end))
		return false;
	*ret = (int)v;
	return true;
}

bool time_page_read(struct http_request *req, struct http_response *res, const char *scope, struct time_page *ret)
{
	const char *pos;
	*ret = (struct time_page){0};
	if (!page_limit(req, res, &ret->limit) || !cursor_read(req, res, scope, &pos))
		return false;
	if (pos && !position_split(pos, &ret->after_created, &ret->after_id)) {
		cursor_invalid(req, res);
		return false;
	}
	return true;
}

void time_page_answer(struct http_request *req, struct http_response *res, const char *scope,
		      const struct time_page *p, json_t *data, int got, int64_t last_created, const char *last_id,
		      const char *extra_query)
{
	json_t *next = json_null();
	if (got > p->limit) {
		char *pos = position_time_id(req, last_created, last_id);
		next = json_string(next_page_url(req, cursor_make(req, scope, pos), p->limit, extra_query));
	}
	api_json(req, res, 200, json_pack("{s:s,s:o,s:o}", "object", "list", "data", data, "nextPageUrl", next));
}

const char *page_search_text(struct http_request *req, struct http_response *res)
{
	const char *q = http_query(req, "q");
	if (!q)
		return "";
	if (strlen(q) > 200) {
		api_problem(req, res, CODE_INVALID_REQUEST, "q is longer than 200 characters.", NULL);
		return NULL;
	}
	return q;
}
