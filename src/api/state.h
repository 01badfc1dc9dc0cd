/* The API's process-wide state (struct api_state, owned by the application
 * object as app->api): what the endpoints share across requests. */
#ifndef LOADLINE_API_STATE_H
#define LOADLINE_API_STATE_H

#include <pthread.h>

#include "base/ids.h"

/* ETags of terminal runs, which never change again: a client polling a
 * finished run with If-None-Match gets its 304 without a database read.
 * Direct-mapped by run id; a collision only costs the read. */
#define TERMINAL_ETAGS 4096

struct terminal_etag {
	char run_id[ID_MAX], org_id[ID_MAX], etag[40];
};

struct api_state {
	pthread_mutex_t etags_mu;
	struct terminal_etag etags[TERMINAL_ETAGS];
};

#endif
