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
	unsigned long wakes;   /* how many wake-ups so far: what a nap checks */
};

void waiter_init(struct waiter *w);
void waiter_done(struct waiter *w);
/* Sleeps up to ms or until woken; returns false once stopping. */
bool waiter_nap(struct waiter *w, int64_t ms);
/* The wake-up count, read before looking for work: napping with it
 * (waiter_nap_since) returns at once when a wake-up came in between, so
 * that one is not lost while the thread was not yet asleep. */
unsigned long waiter_ticket(struct waiter *w);
bool waiter_nap_since(struct waiter *w, unsigned long ticket, int64_t ms);
bool waiter_stopping(struct waiter *w);
void waiter_wake(struct waiter *w);   /* wakes every sleeper */
void waiter_stop(struct waiter *w);   /* sets the flag and wakes every sleeper */

/* pthread_create, or abort with a message: the background threads are the
 * process's job (workers, heartbeat, sweeper, mailer). */
/* pthread_cond_timedwait for at most ms milliseconds (the mutex held). */
void waiter_cond_wait_ms(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t ms);
void thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
