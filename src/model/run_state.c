/* Run state table. */
#include "run_state.h"

#include <stdio.h>
#include <string.h>

static const char *const names[RUN__COUNT] = {
	"QUEUED", "RUNNING", "SUCCEEDED", "PARTIAL", "SKIPPED", "FAILED", "CANCELLED",
};

/* allowed[from][to] */
static const bool allowed[RUN__COUNT][RUN__COUNT] = {
	/* Accepted runs wait; staging keeps them QUEUED; a worker claims them;
	 * the reaper, staging expiry or a parse error fails them; an operator
	 * cancels them. */
	[RUN_QUEUED] = {[RUN_QUEUED] = true, [RUN_RUNNING] = true, [RUN_FAILED] = true,
			[RUN_CANCELLED] = true},
	/* Processing ends in an outcome, or FAILED (parse error, reaper), or
	 * CANCELLED; RUNNING -> RUNNING is a reclaim after a worker died. */
	[RUN_RUNNING] = {[RUN_RUNNING] = true, [RUN_SUCCEEDED] = true, [RUN_PARTIAL] = true,
			 [RUN_SKIPPED] = true, [RUN_FAILED] = true, [RUN_CANCELLED] = true},
};

const char *run_state_name(enum run_state s)
{
	return (unsigned)s < RUN__COUNT ? names[s] : "UNKNOWN";
}

enum run_state run_state_from_name(const char *name)
{
	for (int i = 0; i < RUN__COUNT; i++)
		if (name && !strcmp(names[i], name))
			return (enum run_state)i;
	return RUN__COUNT;
}

bool run_state_terminal(enum run_state s)
{
	return s >= RUN_SUCCEEDED && s < RUN__COUNT;
}

bool run_move_allowed(enum run_state from, enum run_state to)
{
	if ((unsigned)from >= RUN__COUNT || (unsigned)to >= RUN__COUNT)
		return false;
	return allowed[from][to];
}

void run_move_sources_sql(enum run_state to, char *out, unsigned outlen)
{
	size_t used = 0;
	out[0] = '\0';
	for (int from = 0; from < RUN__COUNT; from++) {
		if (!run_move_allowed((enum run_state)from, to))
			continue;
		int n = snprintf(out + used, outlen - used, "%s'%s'", used ? "," : "", names[from]);
		if (n < 0 || (size_t)n >= outlen - used)
			break;
		used += (size_t)n;
	}
	if (!used)
		snprintf(out, outlen, "'-'");   /* matches nothing */
}

enum run_state run_outcome(int s, int w, int f, int k)
{
	(void)k;
	if (f == 0 && w == 0 && s > 0)
		return RUN_SUCCEEDED;
	if (s == 0 && f == 0)
		return RUN_SKIPPED;
	return RUN_PARTIAL;
}
