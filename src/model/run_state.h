/* Import run states and the one table of allowed moves (SPEC "States and
 * transitions").  Every state change in storage is checked against it. */
#ifndef LOADLINE_MODEL_RUN_STATE_H
#define LOADLINE_MODEL_RUN_STATE_H

#include <stdbool.h>

enum run_state {
	RUN_QUEUED,
	RUN_RUNNING,
	RUN_SUCCEEDED,
	RUN_PARTIAL,
	RUN_SKIPPED,
	RUN_FAILED,
	RUN_CANCELLED,
	RUN__COUNT
};

const char *run_state_name(enum run_state s);
/* RUN__COUNT when the name is unknown. */
enum run_state run_state_from_name(const char *name);
bool run_state_terminal(enum run_state s);
/* True when from -> to is a stated move.  QUEUED -> QUEUED (staging for
 * review) and RUNNING -> RUNNING (a crashed worker's run claimed again) are
 * moves too. */
bool run_move_allowed(enum run_state from, enum run_state to);
/* Writes "'QUEUED','RUNNING'" — the states from which `to` may be reached —
 * for use in a SQL IN list (state names are constants, never user input). */
void run_move_sources_sql(enum run_state to, char *out, unsigned outlen);

/* Outcome of processing (PRODUCT.md §5): S succeeded rows, W rows with
 * warnings, F failed, K skipped. */
enum run_state run_outcome(int s, int w, int f, int k);

#endif
