/* Stop flag + condition variable. */
#include "waiter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

void waiter_init(struct waiter *w)
{
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	w->stop = false;
	w->wakes = 0;
}

void waiter_done(struct waiter *w)
{
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
}

unsigned long waiter_ticket(struct waiter *w)
{
	pthread_mutex_lock(&w->lock);
	unsigned long t = w->wakes;
	pthread_mutex_unlock(&w->lock);
	return t;
}

bool waiter_nap(struct waiter *w, int64_t ms)
{
	return waiter_nap_since(w, waiter_ticket(w), ms);
}

bool waiter_nap_since(struct waiter *w, unsigned long ticket, int64_t ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->lock);
	/* A spurious wake-up only means an early look for work. */
	if (!w->stop && w->wakes == ticket)
		pthread_cond_timedwait(&w->wake, &w->lock, &ts);
	bool go = !w->stop;
	pthread_mutex_unlock(&w->lock);
	return go;
}

bool waiter_stopping(struct waiter *w)
{
	pthread_mutex_lock(&w->lock);
	bool stop = w->stop;
	pthread_mutex_unlock(&w->lock);
	return stop;
}

void waiter_wake(struct waiter *w)
{
	pthread_mutex_lock(&w->lock);
	w->wakes++;
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

void waiter_stop(struct waiter *w)
{
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

void thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	int rc = pthread_create(t, NULL, fn, arg);
	if (rc) {
		/* A process that cannot start its threads cannot do its job;
		 * running on without them would lose work silently. */
		fprintf(stderr, "loadline: cannot start a thread: %s\n", strerror(rc));
		abort();
	}
}

void waiter_cond_wait_ms(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ms = ms < 1 ? 1 : ms;
	ts.tv_sec += (time_t)(ms / 1000);
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(cv, mu, &ts);
}
