/* Reviewing and confirming the mapping of a staged run (PRODUCT §6): the
 * operation the web app's review screen and `admin confirm-run` call. */
#ifndef LOADLINE_IMPORT_REVIEW_H
#define LOADLINE_IMPORT_REVIEW_H

#include "base/arena.h"
#include "import/propose.h"
#include "store/runs.h"

#define REVIEW_SAMPLES 3

struct review {
	struct run run;
	int ncols;
	const char **headers;                 /* per column */
	const char **samples[REVIEW_SAMPLES]; /* samples[k][col], "" when missing */
	int nsamples;
	struct proposal *proposal;            /* per column */
	bool expired, decided;                /* past expiresAt / no longer staged */
};

/* Loads what the review screen shows.  CODE_NOT_FOUND outside the org;
 * parse-level codes when the file cannot be read. */
enum code review_load(struct store *st, struct arena *a, const char *org_id, const char *run_id, struct review *ret);

/* Confirms fields (one wire name or NULL per column, ncols of them) for the
 * staged run's shape as `user_id`, and releases every run of the org staged
 * with that shape.  Returns CODE_OK, CODE_NOT_FOUND, CODE_STAGING_EXPIRED,
 * CODE_RUN_NOT_TERMINAL (the run is no longer waiting for review),
 * CODE_INVALID_REQUEST (wrong column count, unknown field, a field twice; a
 * message in *ret_message) or a storage error. */
enum code review_confirm(struct store *st, struct arena *a, const char *org_id, const char *run_id,
			 const char *user_id, const char *const *fields, int ncols, int *ret_released,
			 const char **ret_message);

#endif
