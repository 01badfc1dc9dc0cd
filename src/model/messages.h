/* The `message` of per-row results (PRODUCT §5, §13 "Compact results"): a
 * diagnostic keeps a message kind and up to four short arguments (the
 * quoted cell, a count, a ZIP), and msg_render() makes the sentence when
 * the result is read.  The kind numbers are stored in run_results: append
 * only, never renumber. */
#ifndef LOADLINE_MODEL_MESSAGES_H
#define LOADLINE_MODEL_MESSAGES_H

#include "base/arena.h"
#include "base/codes.h"
#include "model/schema.h"

enum msg_kind {
	MSG_SUMMARY = 0,         /* the code's summary */
	MSG_LITERAL = 1,         /* arg0 is the text (results stored before compact results) */
	MSG_REQUIRED = 2,        /* <field> is required ... */
	MSG_MISMATCH = 3,        /* arg0 quoted cell, arg1 enum norm_why (decimal) */
	MSG_TOO_LONG = 4,        /* arg0 quoted cell, arg1 its length in characters */
	MSG_CONVERTED = 5,       /* arg0 quoted cell, arg1 the pounds; arg2 the column header and
				  * arg3 its unit when the unit came from the header */
	MSG_KEY_CONFLICT = 6,    /* arg0 earlier row number, arg1 jobCode, arg2 loadNo (quoted) */
	MSG_NO_USER = 7,         /* arg0 quoted name */
	MSG_NO_NAMED = 8,        /* arg0 quoted name; customer or branch by the field */
	MSG_NO_STREET = 9,       /* city, state or ZIP without a street */
	MSG_LOC_AMBIGUOUS = 10,  /* arg0 quoted location name */
	MSG_LOC_MISMATCH = 11,   /* arg0 quoted location name */
	MSG_LOC_MISS = 12,       /* arg0 quoted location name */
	MSG_GEO_NO_ZIP = 13,     /* a full address without its ZIP */
	MSG_GEO_UNKNOWN_ZIP = 14,/* arg0 quoted ZIP */
	MSG_GEO_STATE = 15,      /* arg0 ZIP, arg1 its state, arg2 its city, arg3 the row's state */
	MSG__COUNT
};

#define MSG_MAX_ARGS 4
/* How many characters of a cell a message quotes (norm_quote). */
#define MSG_QUOTE_CHARS 60

struct msg {
	enum msg_kind kind;
	const char *arg[MSG_MAX_ARGS];   /* NULL past the kind's arguments */
};

/* The sentence of m for code c about field f (FIELD_NONE: the row).  Never
 * NULL; a missing argument reads as "", an unknown kind as the code's
 * summary: stored results never make it fail. */
const char *msg_render(struct arena *a, enum code c, enum field f, const struct msg *m);

#endif
