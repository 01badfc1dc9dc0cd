/* Word tables of the header proposer (propose.c): synonyms of every jobs
 * schema field, spelling canonicalization, address group and part words.
 * Internal to src/import; docs/column-mapping.md summarizes them.  Every
 * phrase is written in the proposer's canonical token form (lower case,
 * canonical words, one space between words); test_propose.c checks that
 * each one normalizes to itself, so a table entry cannot silently never
 * match. */
#ifndef LOADLINE_IMPORT_SYNONYMS_H
#define LOADLINE_IMPORT_SYNONYMS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/schema.h"

/* A direction that is no location: the customer's billing address ("Bill
 * To City", "Customer Address").  Columns in it are ignored, since billing
 * addresses are no pickup or dropoff. */
#define GROUP_BILLING GROUP__COUNT

struct synonym {
	const char *phrase;  /* canonical tokens */
	enum field field;    /* FIELD_NONE: a column known to be irrelevant */
	int score;           /* 0..100 for a whole-header match */
	bool whole;          /* only the whole header matches, never a subset */
};

struct canon {
	const char *from, *to; /* one token to one token */
};

struct rewrite {
	const char *from, *to; /* token sequence to one token */
};

struct group_word {
	const char *word;
	int dir;      /* GROUP_PICKUP, GROUP_DROPOFF, GROUP_BILLING, or GROUP_NONE */
	bool project; /* names the project ("job site"), not the load */
	bool strong;  /* alone, names a location ("Consignee", "Origin") */
};

struct part_word {
	const char *word;
	enum addr_part part;
};

extern const struct synonym syn_table[];
extern const size_t syn_table_len;
extern const struct canon syn_canon[];
extern const size_t syn_canon_len;
extern const struct rewrite syn_rewrites[];
extern const size_t syn_rewrites_len;
extern const struct group_word syn_group_words[];
extern const size_t syn_group_words_len;
extern const struct part_word syn_part_words[];
extern const size_t syn_part_words_len;
extern const char *const syn_stop_words[];
extern const size_t syn_stop_words_len;
extern const char *const syn_rule_words[];
extern const size_t syn_rule_words_len;

/* One token's canonical spelling ("nbr" -> "no"); NULL when it has none. */
const char *syn_canon_of(const char *tok);
/* The group or part word entry of a token; NULL when it is none. */
const struct group_word *syn_group_word(const char *tok);
const struct part_word *syn_part_word(const char *tok);
bool syn_is_stop_word(const char *tok);

/* True when the slice is a word of the tables (any token of any entry):
 * compound splitting only cuts glued headers into such words. */
bool syn_known(const char *w, size_t len);

/* Words typos are corrected to: the table words of 3 letters or more
 * (3-letter ones only take swapped letters, "jbo").
 * Sorted, unique, built once (thread-safe); sets *ret_n. */
const char *const *syn_fuzzy_targets(size_t *ret_n);

#endif
