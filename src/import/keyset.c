/* Open addressing with linear probing over a table of 16-byte slots of any
 * size (a slot is chosen by multiply-shift, not by masking: a table sized
 * for a known count need not round up to a power of two, which at a million
 * keys is 21 MB instead of 32); key 0 marks an empty slot (a hash of 0 is
 * stored as 1). */
#include "keyset.h"

#include <stdlib.h>

struct slot {
	uint64_t key;
	uint32_t row, content;
};

struct keyset {
	struct slot *slots;
	size_t cap, n;
};

struct keyset *keyset_new(void)
{
	struct keyset *k = calloc(1, sizeof(*k));
	if (!k)
		abort();
	k->cap = 1024;
	if (!(k->slots = calloc(k->cap, sizeof(struct slot))))
		abort();
	return k;
}

void keyset_free(struct keyset *k)
{
	if (!k)
		return;
	free(k->slots);
	free(k);
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

uint64_t keyset_hash(const char *a, const char *b)
{
	uint64_t h = fnv(14695981039346656037ull, a ? a : "");
	if (b) {
		h = fnv(h, "\x1f");
		h = fnv(h, b);
	}
	return h ? h : 1;
}

/* The slot of key, or the empty one where it would go. */
static struct slot *find(const struct keyset *k, uint64_t key)
{
	/* Mixed first (FNV's bits spread short keys that differ in their last
	 * character poorly), then scaled onto [0, cap). */
	uint64_t mixed = (key ^ (key >> 29)) * 0xbf58476d1ce4e5b9ull;
	size_t i = (size_t)(((unsigned __int128)mixed * k->cap) >> 64);
	while (k->slots[i].key && k->slots[i].key != key)
		if (++i == k->cap)
			i = 0;
	return &k->slots[i];
}

/* Moves every key into a table of cap slots. */
static void resize(struct keyset *k, size_t cap)
{
	struct keyset bigger = {.cap = cap};
	if (!(bigger.slots = calloc(bigger.cap, sizeof(struct slot))))
		abort();
	for (size_t i = 0; i < k->cap; i++)
		if (k->slots[i].key)
			*find(&bigger, k->slots[i].key) = k->slots[i];
	free(k->slots);
	k->slots = bigger.slots;
	k->cap = bigger.cap;
}

/* Slots for n keys at most 3/4 full: probes stay short. */
static size_t slots_for(size_t n)
{
	return n + n / 3 + 2;
}

void keyset_reserve(struct keyset *k, size_t n)
{
	if (slots_for(n) > k->cap)
		resize(k, slots_for(n));
}

bool keyset_put(struct keyset *k, uint64_t key, uint32_t row, uint32_t content, uint32_t *ret_row,
		uint32_t *ret_content)
{
	key = key ? key : 1;
	struct slot *s = find(k, key);
	if (s->key) {
		if (ret_row)
			*ret_row = s->row;
		if (ret_content)
			*ret_content = s->content;
		return true;
	}
	*s = (struct slot){key, row, content};
	if (++k->n * 4 > k->cap * 3)
		resize(k, k->cap * 2);
	return false;
}

bool keyset_has(const struct keyset *k, uint64_t key)
{
	return find(k, key ? key : 1)->key != 0;
}

size_t keyset_count(const struct keyset *k)
{
	return k->n;
}

size_t keyset_bytes(const struct keyset *k)
{
	return sizeof(*k) + k->cap * sizeof(struct slot);
}
