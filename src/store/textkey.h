/* Match keys for names and addresses (internal to src/store). */
#ifndef LOADLINE_STORE_TEXTKEY_H
#define LOADLINE_STORE_TEXTKEY_H

#include <stddef.h>

/* Case-folded, surrounding-whitespace-trimmed key of a name. */
void text_key(const char *s, char *out, size_t n);
/* The key of a customer or branch name (name_ref_key(): NFKC, default
 * ignorables removed). */
void text_ref_key(const char *s, char *out, size_t n);
/* Normalized address key; any part may be NULL. */
void address_key(const char *street, const char *city, const char *state, const char *zip,
		 char *out, size_t n);

#endif
