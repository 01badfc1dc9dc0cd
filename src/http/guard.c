/* The connection guard (guard.h): header deadlines and the share of the
 * connection cap that connections still sending headers may hold. */
#include "guard.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

enum gstate { G_FRESH, G_BUSY, G_WAITING, G_DYING };

/* An address key: 8 bytes of address and its family (4 or 6). */
#define ADDR_KEY 9

struct guard_conn {
	int fd;
	bool started;             /* libmicrohttpd owns fd open */
	bool trusted;             /* its request was authenticated */
	enum gstate state;
	double deadline;          /* FRESH, WAITING: headers due by then */
	double since;             /* BUSY: when its request's headers were in */
	unsigned char addr[ADDR_KEY]; /* its client's address key (addr_key) */
	struct guard_conn *prev, *next;   /* in its state's list, oldest first */
};

/* Connections counted per client address key (addr_key).  Open
 * addressing, linear probing, backward-shift deletion; n == 0: free. */
struct addr_count {
	unsigned char key[ADDR_KEY];
	unsigned n;
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
	struct glist fresh, waiting, busy;
	unsigned per_ip;            /* connections per address key at most (0: any) */
	struct addr_count *addrs;   /* 4 * cap slots at least, a power of two */
	size_t naddr_slots, naddrs; /* slots, slots in use */
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

/* A client's address key: an IPv4 address (also mapped into IPv6), or
 * the /64 of an IPv6 one, since one host usually has a whole /64. */
static void addr_key(const struct sockaddr *sa, unsigned char key[ADDR_KEY])
{
	memset(key, 0, ADDR_KEY);
	if (sa && sa->sa_family == AF_INET) {
		memcpy(key, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		key[8] = 4;
	} else if (sa && sa->sa_family == AF_INET6) {
		const unsigned char *b = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		if (!memcmp(b, mapped, 12))
			memcpy(key, b + 12, 4);
		else
			memcpy(key, b, 8);
		key[8] = memcmp(b, mapped, 12) ? 6 : 4;
	}
}

static size_t addr_hash(const struct guard *g, const unsigned char key[ADDR_KEY])
{
	uint64_t h;
	memcpy(&h, key, 8);
	h = (h ^ key[8]) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 32) & (g->naddr_slots - 1);
}

/* The slot of key: its entry, or the free slot where it would go. */
static struct addr_count *addr_slot(struct guard *g, const unsigned char key[ADDR_KEY])
{
	size_t i = addr_hash(g, key);
	while (g->addrs[i].n && memcmp(g->addrs[i].key, key, ADDR_KEY))
		i = (i + 1) & (g->naddr_slots - 1);
	return &g->addrs[i];
}

static void addr_add(struct guard *g, const unsigned char key[ADDR_KEY])
{
	struct addr_count *e = addr_slot(g, key);
	if (!e->n)
		g->naddrs++;
	memcpy(e->key, key, ADDR_KEY);
	e->n++;
}

/* One connection of key fewer; a slot that empties is refilled from the
 * run of slots after it, so no look-up stops early at a hole. */
static void addr_remove(struct guard *g, const unsigned char key[ADDR_KEY])
{
	struct addr_count *e = addr_slot(g, key);
	if (!e->n || --e->n)
		return;
	g->naddrs--;
	size_t mask = g->naddr_slots - 1, hole = (size_t)(e - g->addrs);
	for (size_t j = (hole + 1) & mask; g->addrs[j].n; j = (j + 1) & mask) {
		size_t home = addr_hash(g, g->addrs[j].key);
		/* j's entry may move to the hole when its home is not in (hole, j]. */
		if ((j > hole && (home <= hole || home > j)) || (j < hole && home <= hole && home > j)) {
			g->addrs[hole] = g->addrs[j];
			g->addrs[j].n = 0;
			hole = j;
		}
	}
}

static unsigned addr_count_of(struct guard *g, const unsigned char key[ADDR_KEY])
{
	return addr_slot(g, key)->n;
}

/* Takes c out of its state's list (lock held). */
static void unlink_state(struct guard *g, struct guard_conn *c)
{
	if (c->state == G_FRESH)
		unlink_from(&g->fresh, c);
	else if (c->state == G_WAITING)
		unlink_from(&g->waiting, c);
	else if (c->state == G_BUSY)
		unlink_from(&g->busy, c);
}

/* c no longer holds a slot (lock held).  Its address still counts until
 * it is freed (forget): libmicrohttpd counts a connection shut down but
 * not yet closed against the per-address limit too. */
static void leave(struct guard *g, struct guard_conn *c)
{
	if (c->state != G_DYING)
		unlink_state(g, c);
}

static void forget(struct guard *g, struct guard_conn *c)
{
	addr_remove(g, c->addr);
	free(c);
}

struct guard *guard_new(unsigned cap, unsigned per_ip, double header_ms, double idle_ms)
{
	struct guard *g = calloc(1, sizeof(*g));
	if (!g)
		abort();
	pthread_mutex_init(&g->mu, NULL);
	g->cap = cap ? cap : 1;
	g->fresh_cap = g->cap - g->cap / 4;
	g->header_ms = header_ms;
	g->idle_ms = idle_ms;
	g->per_ip = per_ip;
	g->naddr_slots = 16;
	while (g->naddr_slots < 4 * (size_t)g->cap)
		g->naddr_slots *= 2;
	if (!(g->addrs = calloc(g->naddr_slots, sizeof(*g->addrs))))
		abort();
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
	free_list(&g->busy);
	free(g->addrs);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

/* Ends c's claim to a slot (lock held).  A started connection is shut
 * down and stays allocated until guard_closed; one libmicrohttpd never
 * reported is forgotten (its fd is not ours to touch). */
static void drop(struct guard *g, struct guard_conn *c)
{
	leave(g, c);
	if (c->started) {
		shutdown(c->fd, SHUT_RDWR);
		c->state = G_DYING;
	} else {
		forget(g, c);
	}
}

/* Who makes room in l (lock held): a connection libmicrohttpd owns, of the
 * address with the most connections, the oldest of that address — so a
 * flood from a few addresses loses its own connections first, not other
 * clients' (issue 27 item 10).  Of BUSY ones, only a request that was not
 * authenticated and has run since before busy_before (a slow anonymous
 * body): authenticated requests keep their capacity. */
static struct guard_conn *victim_in(struct guard *g, const struct glist *l, double busy_before)
{
	struct guard_conn *best = NULL;
	unsigned best_n = 0;
	for (struct guard_conn *c = l->head; c; c = c->next) {
		if (!c->started || (c->state == G_BUSY && (c->trusted || c->since > busy_before)))
			continue;
		unsigned n = addr_count_of(g, c->addr);
		if (n > best_n) {   /* ties: the older, met first */
			best = c;
			best_n = n;
		}
	}
	return best;
}

/* Room for a newcomer (lock held): false when every slot holds a request
 * that is authenticated or young. */
static bool make_room(struct guard *g, double now_ms)
{
	unsigned total = g->fresh.n + g->waiting.n + g->busy.n;
	if (total < g->cap && g->fresh.n < g->fresh_cap)
		return true;
	struct guard_conn *victim = victim_in(g, &g->fresh, 0);
	/* At the cap with no FRESH one (a FRESH one not started yet soon is): the most-represented address's
	 * connection idle the longest between two requests (a keep-alive
	 * flood; closing an idle kept-alive connection is HTTP's right, its
	 * client opens another when it has a request), then its slowest
	 * anonymous request. */
	if (!victim && total >= g->cap && g->fresh.n == 0)
		victim = victim_in(g, &g->waiting, 0);
	if (!victim && total >= g->cap && g->fresh.n == 0)
		victim = victim_in(g, &g->busy, now_ms - g->header_ms);
	if (victim)
		drop(g, victim);
	return victim || total < g->cap;
}

struct guard_conn *guard_admit(struct guard *g, int fd, const struct sockaddr *peer, double now_ms)
{
	struct guard_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	addr_key(peer, c->addr);
	pthread_mutex_lock(&g->mu);
	/* Over its address's share, or (connections shut down but not yet
	 * closed still count) with the table 3/4 full: refused before anyone
	 * makes room for it. */
	unsigned mine = addr_count_of(g, c->addr);
	bool full = (g->per_ip && mine >= g->per_ip) || (!mine && g->naddrs >= g->naddr_slots / 4 * 3);
	if (full || !make_room(g, now_ms)) {
		pthread_mutex_unlock(&g->mu);
		free(c);
		return NULL;
	}
	c->fd = fd;
	c->state = G_FRESH;
	c->deadline = now_ms + g->header_ms;
	addr_add(g, c->addr);
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
		leave(g, gc);
		gc->state = G_DYING;   /* guard_closed frees it */
	} else if (gc->state == G_FRESH) {
		leave(g, gc);
		forget(g, gc);
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

void guard_headers(struct guard *g, struct guard_conn *gc, double now_ms)
{
	pthread_mutex_lock(&g->mu);
	if (gc->state == G_FRESH || gc->state == G_WAITING) {
		unlink_state(g, gc);
		gc->state = G_BUSY;
		gc->since = now_ms;
		gc->trusted = false;
		link_tail(&g->busy, gc);
	}
	pthread_mutex_unlock(&g->mu);
}

void guard_trust(struct guard *g, struct guard_conn *gc)
{
	pthread_mutex_lock(&g->mu);
	gc->trusted = true;
	pthread_mutex_unlock(&g->mu);
}

void guard_idle(struct guard *g, struct guard_conn *gc, double now_ms)
{
	pthread_mutex_lock(&g->mu);
	if (gc->state == G_BUSY) {
		unlink_from(&g->busy, gc);
		gc->state = G_WAITING;
		gc->deadline = now_ms + g->idle_ms + g->header_ms;
		link_tail(&g->waiting, gc);
	}
	pthread_mutex_unlock(&g->mu);
}

void guard_closed(struct guard *g, struct guard_conn *gc)
{
	pthread_mutex_lock(&g->mu);
	leave(g, gc);
	forget(g, gc);
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
	*total = g->fresh.n + g->waiting.n + g->busy.n;
	*fresh = g->fresh.n;
	pthread_mutex_unlock(&g->mu);
}

unsigned guard_address_count(struct guard *g, const struct sockaddr *peer)
{
	unsigned char key[ADDR_KEY];
	addr_key(peer, key);
	pthread_mutex_lock(&g->mu);
	unsigned n = addr_count_of(g, key);
	pthread_mutex_unlock(&g->mu);
	return n;
}
