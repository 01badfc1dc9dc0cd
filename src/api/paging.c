/* Limits and cursors. */
#include "paging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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

static void checksum(const char *scope, const char *position, char out[7])
{
	uLong crc = crc32(0L, (const Bytef *)scope, (uInt)strlen(scope));
	crc = crc32(crc, (const Bytef *)"|", 1);
	crc = crc32(crc, (const Bytef *)position, (uInt)strlen(position));
	base62_encode_u64(crc, out, 6);
	out[6] = '\0';
}

char *cursor_make(struct http_request *req, const char *scope, const char *position)
{
	char sum[7];
	checksum(scope, position, sum);
	return arena_printf(req->arena, "%s.%s", position, sum);
}

bool cursor_read(struct http_request *req, struct http_response *res, const char *scope, const char **ret_position)
{
	const char *c = http_query(req, "cursor");
	*ret_position = NULL;
	if (!c)
		return true;
	const char *dot = strrchr(c, '.');
	bool ok = dot && strlen(dot + 1) == 6 && dot > c && strlen(c) < 200;
	for (const char *p = c; ok && p < dot; p++)
		ok = is_base62(*p) || *p == '_' || *p == '.';
	if (ok) {
		char *pos = arena_strndup(req->arena, c, (size_t)(dot - c));
		char sum[7];
		checksum(scope, pos, sum);
		ok = !strcmp(sum, dot + 1);
		*ret_position = pos;
	}
	if (!ok)
		api_problem(req, res, CODE_INVALID_CURSOR, "The cursor is not one this list issued; follow nextPageUrl "
			    "exactly, or leave cursor out to start over.", NULL);
	return ok;
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

void position_split(const char *pos, int64_t *ret_created_at, const char **ret_id)
{
	const char *us = strchr(pos, '_');
	*ret_created_at = strtoll(pos, NULL, 10);
	*ret_id = us ? us + 1 : "";
}
