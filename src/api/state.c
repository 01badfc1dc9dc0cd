/* The API's process-wide state (state.h). */
#include "state.h"

#include <stdlib.h>

#include "api.h"

struct api_state *api_state_new(void)
{
	struct api_state *s = calloc(1, sizeof(*s));
	if (!s)
		abort();
	pthread_mutex_init(&s->etags_mu, NULL);
	return s;
}

void api_state_free(struct api_state *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->etags_mu);
	free(s);
}
