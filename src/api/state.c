/* The API's process-wide state (state.h). */
#include "state.h"

#include <stdlib.h>
#include <unistd.h>

#include "api.h"

struct api_state *api_state_new(void)
{
	struct api_state *s = calloc(1, sizeof(*s));
	if (!s)
		abort();
	pthread_mutex_init(&s->etags_mu, NULL);
	/* Reading an upload's header and storing it take CPU and a few MB
	 * each; more at once than there are cores only adds memory. */
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	sem_init(&s->finishing, 0, (unsigned)(n < 1 ? 1 : n > 16 ? 16 : n));
	return s;
}

void api_state_free(struct api_state *s)
{
	if (!s)
		return;
	sem_destroy(&s->finishing);
	pthread_mutex_destroy(&s->etags_mu);
	free(s);
}
