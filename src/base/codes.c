/* The table behind codes.h, expanded from codes.def. */
#include "codes.h"

#include <string.h>

struct code_info {
	const char *name;
	int status;
	enum code_kind kind;
	const char *summary;
	const char *hint;
};

static const struct code_info table[CODE__COUNT] = {
	[CODE_OK] = {"OK", 200, CODE_KIND_API, "Success.", ""},
#define X(n, st, k, su, hi) [CODE_##n] = {#n, st, CODE_KIND_##k, su, hi},
#include "codes.def"
#undef X
};

static const struct code_info *lookup(enum code c)
{
	if ((int)c < 0 || c >= CODE__COUNT)
		return NULL;
	return &table[c];
}

const char *code_name(enum code c)
{
	const struct code_info *i = lookup(c);
	return i ? i->name : NULL;
}

int code_status(enum code c)
{
	const struct code_info *i = lookup(c);
	return i ? i->status : 500;
}

enum code_kind code_kind(enum code c)
{
	const struct code_info *i = lookup(c);
	return i ? i->kind : CODE_KIND_API;
}

const char *code_kind_name(enum code_kind k)
{
	switch (k) {
	case CODE_KIND_ENVELOPE: return "envelope";
	case CODE_KIND_API: return "request";
	case CODE_KIND_PARSE: return "parse";
	case CODE_KIND_ROW_ERROR: return "row-error";
	case CODE_KIND_ROW_WARNING: return "row-warning";
	}
	return "request";
}

const char *code_summary(enum code c)
{
	const struct code_info *i = lookup(c);
	return i ? i->summary : "";
}

const char *code_hint(enum code c)
{
	const struct code_info *i = lookup(c);
	return i ? i->hint : "";
}

enum code code_from_name(const char *name)
{
	if (!name)
		return CODE_OK;
	for (int c = 1; c < CODE__COUNT; c++)
		if (strcmp(table[c].name, name) == 0)
			return (enum code)c;
	return CODE_OK;
}

const char *http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 204: return "No Content";
	case 302: return "Found";
	case 303: return "See Other";
	case 304: return "Not Modified";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 409: return "Conflict";
	case 410: return "Gone";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 415: return "Unsupported Media Type";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	}
	return "Unknown";
}
