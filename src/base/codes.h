/* Wire codes: the closed enum generated from codes.def, and its table. */
#ifndef LOADLINE_BASE_CODES_H
#define LOADLINE_BASE_CODES_H

enum code_kind {
	CODE_KIND_ENVELOPE,
	CODE_KIND_API,
	CODE_KIND_PARSE,
	CODE_KIND_ROW_ERROR,
	CODE_KIND_ROW_WARNING,
};

/* CODE_OK is 0 so that functions can return `enum code` and test `if (rc)`. */
enum code {
	CODE_OK = 0,
#define X(name, status, kind, summary, hint) CODE_##name,
#include "codes.def"
#undef X
	CODE__COUNT
};

/* Stable wire name ("MISSING_FILE"); "OK" for CODE_OK; NULL out of range. */
const char *code_name(enum code c);
/* HTTP status of a synchronous code; 0 for parse and per-row codes. */
int code_status(enum code c);
enum code_kind code_kind(enum code c);
const char *code_kind_name(enum code_kind k);
/* One sentence saying what happened. */
const char *code_summary(enum code c);
/* One sentence saying what the client should do. */
const char *code_hint(enum code c);
/* Looks a wire name up; returns CODE_OK (0) when unknown. */
enum code code_from_name(const char *name);
/* HTTP reason phrase for a status ("Not Found"), "Unknown" for others. */
const char *http_reason(int status);

#endif
