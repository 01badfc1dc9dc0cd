/* The list of schema migrations (internal to src/store). */
#ifndef LOADLINE_STORE_MIGRATIONS_H
#define LOADLINE_STORE_MIGRATIONS_H

struct migration {
	int version;
	const char *name;
	const char *sql;
};

extern const struct migration migrations[];
extern const int migrations_count;

#endif
