/* Import workers, their lease heartbeat, and the sweepers (stuck-run
 * reaper; later staging expiry and the mail outbox). */
#ifndef LOADLINE_IMPORT_WORKER_H
#define LOADLINE_IMPORT_WORKER_H

#include "store/store.h"

struct workers;

/* Starts n worker threads (n may be 0) plus the heartbeat and sweeper
 * threads, all using st. */
struct workers *workers_start(struct store *st, int n);
/* Lets running imports finish, then stops every thread.  NULL is fine. */
void workers_stop(struct workers *w);
/* Wakes idle workers at once (a run was just queued in this process). */
void workers_notify(void);
/* One sweep now (also used by tests through the CLI): returns how many
 * runs it moved. */
int sweep_once(struct store *st);

#endif
