/* A stop flag with a condition variable: what background threads sleep on,
 * so that they wake at once when there is work or when the process stops. */
#ifndef LOADLINE_BASE_WAITER_H
#define LOADLINE_BASE_WAITER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct waiter {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
};

void waiter_init(struct waiter *w);
void waiter_done(struct waiter *w);
/* Sleeps up to ms or until woken; returns false once stopping. */
bool waiter_nap(struct waiter *w, int64_t ms);
bool waiter_stopping(struct waiter *w);
void waiter_wake(struct waiter *w);   /* wakes every sleeper */
void waiter_stop(struct waiter *w);   /* sets the flag and wakes every sleeper */

/* pthread_create, or abort with a message: the background threads are the
 * process's job (workers, heartbeat, sweeper, mailer). */
void thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
