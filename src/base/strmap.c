/* Open addressing with linear probing; the table doubles at 50% load. */
#include "strmap.h"

#include <string.h>

#include "arena.h"

struct slot {
	const char *key;
	void *value;
};

struct strmap {
	struct arena *a;
	struct slot *slots;
	size_t cap, n;
};

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

struct strmap *strmap_new(struct arena *a)
{
	struct strmap *m = arena_alloc(a, sizeof(*m));
	m->a = a;
	m->cap = 64;
	m->slots = arena_alloc(a, sizeof(struct slot) * m->cap);
	return m;
}

static struct slot *find(const struct strmap *m, const char *key)
{
	size_t i = hash(key) & (m->cap - 1);
	while (m->slots[i].key && strcmp(m->slots[i].key, key))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

void *strmap_get(const struct strmap *m, const char *key)
{
	return find(m, key)->value;
}

static void grow(struct strmap *m)
{
	struct slot *old = m->slots;
	size_t oldcap = m->cap;
	m->cap *= 2;
	m->slots = arena_alloc(m->a, sizeof(struct slot) * m->cap);
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key)
			*find(m, old[i].key) = old[i];
}

void strmap_put(struct strmap *m, const char *key, void *value)
{
	struct slot *s = find(m, key);
	if (!s->key) {
		if ((m->n + 1) * 2 > m->cap) {
			grow(m);
			s = find(m, key);
		}
		s->key = arena_strdup(m->a, key);
		m->n++;
	}
	s->value = value;
}
