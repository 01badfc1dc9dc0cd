/* The connection guard (guard.h): header deadlines and the share of the
 * connection cap that connections still sending headers may hold. */
#include "guard.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>

enum gstate { G_FRESH, G_BUSY, G_WAITING, G_DYING };

struct guard_conn {
	int fd;
	bool started;             /* libmicrohttpd owns fd open */
	enum gstate state;
	double deadline;          /* FRESH, WAITING: headers due by then */
	struct guard_conn *prev, *next;   /* in its state's list, oldest first */
};

/* A list oldest first: deadlines grow along it, since every entry of one
 * list got the same allowance. */
struct glist {
	struct guard_conn *head, *tail;
	unsigned n;
};

struct guard {
	pthread_mutex_t mu;
	unsigned cap, fresh_cap;
	double header_ms, idle_ms;
	struct glist fresh, waiting;
	unsigned busy;
};

static void link_tail(struct glist *l, struct guard_conn *c)
{
	c->next = NULL;
	c->prev = l->tail;
	if (l->tail)
		l->tail->next = c;
	else
		l->head = c;
	l->tail = c;
	l->n++;
}

static void unlink_from(struct glist *l, struct guard_conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		l->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		l->tail = c->prev;
	c->prev = c->next = NULL;
	l->n--;
}

/* Takes c out of whatever it is counted in (lock held). */
static void leave_state(struct guard *g, struct guard_conn *c)
{
	if (c->state == G_FRESH)
		unlink_from(&g->fresh, c);
	else if (c->state == G_WAITING)
		unlink_from(&g->waiting, c);
	else if (c->state == G_BUSY)
		g->busy--;
}

struct guard *guard_new(unsigned cap, double header_ms, double idle_ms)
{
	struct guard *g = calloc(1, sizeof(*g));
	if (!g)
		abort();
	pthread_mutex_init(&g->mu, NULL);
	g->cap = cap ? cap : 1;
	g->fresh_cap = g->cap - g->cap / 4;
	g->header_ms = header_ms;
	g->idle_ms = idle_ms;
	return g;
}

static void free_list(struct glist *l)
{
	while (l->head) {
		struct guard_conn *c = l->head;
		unlink_from(l, c);
		free(c);
	}
}

/* Only after the server stopped: no connection is left to report. */
void guard_free(struct guard *g)
{
	if (!g)
		return;
	free_list(&g->fresh);
	free_list(&g->waiting);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

/* Ends c's claim to a slot (lock held).  A started connection is shut
 * down and stays allocated until guard_closed; one libmicrohttpd never
 * reported is forgotten (its fd is not ours to touch). */
static void drop(struct guard *g, struct guard_conn *c)
{
	leave_state(g, c);
	if (c->started) {
		shutdown(c->fd, SHUT_RDWR);
		c->state = G_DYING;
	} else {
		free(c);
	}
}

/* The oldest connection of l libmicrohttpd owns, or NULL (lock held). */
static struct guard_conn *oldest_started(struct glist *l)
{
	for (struct guard_conn *c = l->head; c; c = c->next)
		if (c->started)
			return c;
	return NULL;
}

struct guard_conn *guard_admit(struct guard *g, int fd, double now_ms)
{
	struct guard_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	pthread_mutex_lock(&g->mu);
	unsigned total = g->fresh.n + g->waiting.n + g->busy;
	if (total >= g->cap || g->fresh.n >= g->fresh_cap) {
		struct guard_conn *victim = oldest_started(&g->fresh);
		/* At the cap with no FRESH one: the connection idle the longest
		 * between two requests (issue 27 item 10: a keep-alive flood, one
		 * GET every few seconds per connection, locked everyone out).
		 * Closing an idle kept-alive connection is HTTP's right; its
		 * client opens another when it has a request. */
		if (!victim && total >= g->cap && g->fresh.n == 0)
			victim = oldest_started(&g->waiting);
		if (victim)
			drop(g, victim);
		else if (total >= g->cap) {
			pthread_mutex_unlock(&g->mu);
			free(c);
			return NULL;
		}
	}
	c->fd = fd;
	c->state = G_FRESH;
	c->deadline = now_ms + g->header_ms;
	link_tail(&g->fresh, c);
	pthread_mutex_unlock(&g->mu);
	return c;
}

/* Called by the acceptor, the one thread that calls guard_expire (the only
 * other place an entry not started is freed), so gc is still there. */
void guard_abandon(struct guard *g, struct guard_conn *gc)
{
	pthread_mutex_lock(&g->mu);
	if (gc->started) {
		leave_state(g, gc);
		gc->state = G_DYING;   /* guard_closed frees it */
	} else if (gc->state == G_FRESH) {
		unlink_from(&g->fresh, gc);
		free(gc);
	}
	pthread_mutex_unlock(&g->mu);
}

struct guard_conn *guard_started(struct guard *g, int fd)
{
	pthread_mutex_lock(&g->mu);
	struct guard_conn *c = g->fresh.tail; /* just admitted: near the end */
	while (c && (c->fd != fd || c->started))
		c = c->prev;
	if (c)
		c->started = true;
	pthread_mutex_unlock(&g->mu);
	return c;
}

void guard_headers(struct guard *g, struct guard_conn *gc)
{
	pthread_mutex_lock(&g->mu);
	if (gc->state == G_FRESH || gc->state == G_WAITING) {
		leave_state(g, gc);
		gc->state = G_BUSY;
		g->busy++;
	}
	pthread_mutex_unlock(&g->mu);
}

void guard_idle(struct guard *g, struct guard_conn *gc, double now_ms)
{
	pthread_mutex_lock(&g->mu);
	if (gc->state == G_BUSY) {
		g->busy--;
		gc->state = G_WAITING;
		gc->deadline = now_ms + g->idle_ms + g->header_ms;
		link_tail(&g->waiting, gc);
	}
	pthread_mutex_unlock(&g->mu);
}

void guard_closed(struct guard *g, struct guard_conn *gc)
{
	pthread_mutex_lock(&g->mu);
	leave_state(g, gc);
	free(gc);
	pthread_mutex_unlock(&g->mu);
}

/* Drops the entries of l past their deadline; the time to the next one. */
static double expire_list(struct guard *g, struct glist *l, double now_ms, double wait)
{
	while (l->head && l->head->deadline <= now_ms)
		drop(g, l->head);
	if (l->head && l->head->deadline - now_ms < wait)
		wait = l->head->deadline - now_ms;
	return wait;
}

double guard_expire(struct guard *g, double now_ms, double max_wait_ms)
{
	pthread_mutex_lock(&g->mu);
	double wait = expire_list(g, &g->fresh, now_ms, max_wait_ms);
	wait = expire_list(g, &g->waiting, now_ms, wait);
	pthread_mutex_unlock(&g->mu);
	return wait;
}

void guard_counts(struct guard *g, unsigned *total, unsigned *fresh)
{
	pthread_mutex_lock(&g->mu);
	*total = g->fresh.n + g->waiting.n + g->busy;
	*fresh = g->fresh.n;
	pthread_mutex_unlock(&g->mu);
}
