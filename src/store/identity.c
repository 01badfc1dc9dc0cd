/* Organizations, users, API keys, sign-in links, reference data. */
#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "store_internal.h"
#include "textkey.h"

static void row_to_org(const struct db_res *r, int i, struct org *o)
{
	cell_copy(r, i, 0, o->id, sizeof o->id);
	cell_copy(r, i, 1, o->name, sizeof o->name);
	o->created_at = db_res_int(r, i, 2);
}

enum code store_org_create(struct store *st, const char *name, struct org *ret)
{
	struct org o = {0};
	id_new("org", o.id);
	snprintf(o.name, sizeof o.name, "%s", name);
	o.created_at = now_ms();
	struct db_param p[] = {P_TXT(o.id), P_TXT(o.name), P_INT(o.created_at)};
	enum code rc = store_exec1(st, "INSERT INTO orgs (id, name, created_at) VALUES ($1, $2, $3)", p, 3, NULL);
	if (!rc && ret)
		*ret = o;
	return rc;
}

enum code store_org_count(struct store *st, int64_t *ret_n)
{
	struct db_res *r;
	enum code rc = store_exec1(st, "SELECT COUNT(*) FROM orgs", NULL, 0, &r);
	if (!rc)
		*ret_n = db_res_int(r, 0, 0);
	db_res_free(r);
	return rc;
}

enum code store_org_list(struct store *st, void (*fn)(const struct org *o, void *ctx), void *ctx)
{
	struct db_res *r;
	enum code rc = store_exec1(st, "SELECT id, name, created_at FROM orgs ORDER BY created_at, id", NULL, 0, &r);
	if (rc)
		return rc;
	for (int i = 0; i < db_res_rows(r); i++) {
		struct org o = {0};
		row_to_org(r, i, &o);
		fn(&o, ctx);
	}
	db_res_free(r);
	return CODE_OK;
}

enum code store_metrics_gauges(struct store *st, int64_t *ret_queued, int64_t *ret_outbox, int64_t *ret_review,
			       int64_t *ret_webhooks)
{
	struct db_res *r;
	enum code rc = store_exec1(st, "SELECT (SELECT COUNT(*) FROM runs WHERE state = 'QUEUED' AND staged = 0), "
				   "(SELECT COUNT(*) FROM outbox WHERE state = 'queued'), "
				   "(SELECT COUNT(*) FROM runs WHERE state = 'QUEUED' AND staged = 1), "
				   "(SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'queued')", NULL, 0, &r);
	if (!rc) {
		*ret_queued = db_res_int(r, 0, 0);
		*ret_outbox = db_res_int(r, 0, 1);
		*ret_review = db_res_int(r, 0, 2);
		*ret_webhooks = db_res_int(r, 0, 3);
	}
	db_res_free(r);
	return rc;
}

enum code store_org_get(struct store *st, const char *id, struct org *ret)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(id)};
	enum code rc = store_exec1(st, "SELECT id, name, created_at FROM orgs WHERE id = $1", p, 1, &r);
	if ((rc = db_one_row(rc, r)) == CODE_OK)
		row_to_org(r, 0, ret);
	db_res_free(r);
	return rc;
}

#define USER_COLS "id, org_id, email, name, role, created_at"

static void row_to_user(const struct db_res *r, int i, struct user *u)
{
	cell_copy(r, i, 0, u->id, sizeof u->id);
	cell_copy(r, i, 1, u->org_id, sizeof u->org_id);
	cell_copy(r, i, 2, u->email, sizeof u->email);
	cell_copy(r, i, 3, u->name, sizeof u->name);
	const char *role = db_res_get(r, i, 4);
	u->role = role && !strcmp(role, "admin") ? ROLE_ADMIN : ROLE_MEMBER;
	u->created_at = db_res_int(r, i, 5);
}

enum code store_user_add(struct store *st, const char *org_id, const char *email,
			 const char *name, enum user_role role, struct user *ret,
			 char *err, size_t errlen)
{
	struct user u = {0};
	id_new("usr", u.id);
	snprintf(u.org_id, sizeof u.org_id, "%s", org_id);
	snprintf(u.email, sizeof u.email, "%s", email);
	snprintf(u.name, sizeof u.name, "%s", name);
	u.role = role;
	u.created_at = now_ms();
	char ekey[EMAIL_MAX_LEN * 4 + 1], nkey[NAME_MAX_LEN * 4 + 1];
	text_key(email, ekey, sizeof ekey);
	text_key(name, nkey, sizeof nkey);
	struct db_param p[] = {P_TXT(u.id), P_TXT(org_id), P_TXT(email), P_TXT(ekey), P_TXT(name),
			       P_TXT(nkey), P_TXT(role == ROLE_ADMIN ? "admin" : "member"), P_INT(u.created_at)};
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	enum code rc = db_exec(db, "INSERT INTO users (id, org_id, email, email_key, name, name_key, role, created_at) "
			       "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", p, 8, NULL);
	if (rc && db_last_was_conflict(db)) {
		snprintf(err, errlen, "a user with email %s already exists", email);
		rc = CODE_INVALID_REQUEST;
	} else if (rc == CODE_INTERNAL_ERROR) {
		snprintf(err, errlen, "%s", db_errmsg(db));
	}
	store_release(st, db);
	if (!rc && ret)
		*ret = u;
	return rc;
}

static enum code user_where(struct store *st, const char *where, const char *arg, struct user *ret)
{
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT " USER_COLS " FROM users WHERE %s", where);
	struct db_res *r;
	struct db_param p[] = {P_TXT(arg)};
	enum code rc = store_exec1(st, sql, p, 1, &r);
	if ((rc = db_one_row(rc, r)) == CODE_OK)
		row_to_user(r, 0, ret);
	db_res_free(r);
	return rc;
}

enum code store_user_by_email(struct store *st, const char *email, struct user *ret)
{
	char ekey[EMAIL_MAX_LEN * 4 + 1];
	text_key(email, ekey, sizeof ekey);
	return user_where(st, "email_key = $1", ekey, ret);
}

enum code store_user_get(struct store *st, const char *id, struct user *ret)
{
	return user_where(st, "id = $1", id, ret);
}

#define KEY_COLS "k.id, k.org_id, k.name, k.prefix, k.created_at, k.last_used_at, k.revoked_at, k.token_hash"

static void row_to_key(const struct db_res *r, int i, struct api_key *k)
{
	cell_copy(r, i, 0, k->id, sizeof k->id);
	cell_copy(r, i, 1, k->org_id, sizeof k->org_id);
	cell_copy(r, i, 2, k->name, sizeof k->name);
	cell_copy(r, i, 3, k->prefix, sizeof k->prefix);
	k->created_at = db_res_int(r, i, 4);
	k->last_used_at = db_res_int(r, i, 5);
	k->revoked_at = db_res_int(r, i, 6);
}

enum code store_key_create(struct store *st, const char *org_id, const char *name,
			   char ret_token[TOKEN_LEN + 1], struct api_key *ret)
{
	struct api_key k = {0};
	id_new("key", k.id);
	snprintf(k.org_id, sizeof k.org_id, "%s", org_id);
	snprintf(k.name, sizeof k.name, "%s", name && *name ? name : "API key");
	token_mint(ret_token);
	snprintf(k.prefix, sizeof k.prefix, "%.*s", TOKEN_DISPLAY_LEN, ret_token);
	k.created_at = now_ms();
	char hash[TOKEN_HASH_HEX];
	token_hash(ret_token, TOKEN_LEN, hash);
	struct db_param p[] = {P_TXT(k.id), P_TXT(org_id), P_TXT(k.name), P_TXT(k.prefix), P_TXT(hash),
			       P_INT(k.created_at)};
	enum code rc = store_exec1(st, "INSERT INTO api_keys (id, org_id, name, prefix, token_hash, created_at) "
				   "VALUES ($1, $2, $3, $4, $5, $6)", p, 6, NULL);
	if (!rc && ret)
		*ret = k;
	return rc;
}

/* last_used_at is written at most once a second per key: enough for people
 * reading it, and it keeps a busy token from turning every read into a write. */
#define LAST_USED_GRANULARITY_MS 1000

/* ---- Authenticated keys, kept in memory ----
 *
 * A token check is a read of api_keys joined to orgs: on SQLite a read
 * transaction (shared-memory locks, two fcntl calls) for every API request,
 * most of the poll path's own cost.  The answer is kept per store, keyed by
 * the token's hash, and trusted only while the revocation generation is the
 * one it was read under.  Every revocation (store_key_revoke, the only
 * writer of api_keys.revoked_at; keys and orgs are never deleted or renamed)
 * commits and then bumps the generation, so a revoked token fails on the
 * next request in every process.
 *
 * On SQLite the generation is a 64-bit counter in a small shared file next
 * to the database, DBPATH-authgen, mapped by every process that opens it:
 * WAL already requires all of them to be on one host and to share memory
 * (the -shm file), so this adds no new requirement.  An in-memory database
 * has no other process and counts in-process.  On PostgreSQL the processes
 * may be on several hosts: nothing is cached there and every request reads
 * the database, as before.  As a backstop (a revoker that died between its
 * commit and its bump) an entry is read again after AUTH_TTL_MS anyway. */
#define AUTH_SLOTS 256
#define AUTH_TTL_MS 10000
#define AUTHGEN_BYTES 4096

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "the shared generation needs lock-free 64-bit atomics");

/* Entries are found by a keyed 128-bit SipHash of the presented token
 * (a per-process random key): a hit costs neither the SHA-256 the database
 * is searched by nor the format check, and nothing kept in memory lets
 * anyone recompute a token. */
#define AUTH_MAC_BYTES crypto_shorthash_siphashx24_BYTES

struct auth_entry {
	unsigned char mac[AUTH_MAC_BYTES];
	bool used;
	uint64_t gen;
	int64_t checked_at;
	struct api_key key;
	struct org org;
};

struct auth_cache {
	_Atomic uint64_t *gen;   /* the generation: in the shared file, or &local */
	_Atomic uint64_t local;
	void *map;
	struct auth_entry e[AUTH_SLOTS];
};

/* Guards every store's cache (creation, slots); held for a copy at most. */
static pthread_mutex_t auth_mu = PTHREAD_MUTEX_INITIALIZER;

void auth_cache_free(struct auth_cache *c)
{
	if (!c)
		return;
	if (c->map)
		munmap(c->map, AUTHGEN_BYTES);
	free(c);
}

/* Maps DBPATH-authgen (created with the database file's permissions, like
 * SQLite's own -wal and -shm); NULL when it cannot be. */
void *store_map_authgen(const char *db_path)
{
	char path[1100];
	if ((size_t)snprintf(path, sizeof path, "%s-authgen", db_path) >= sizeof path)
		return NULL;
	struct stat dbst;
	bool have_db = stat(db_path, &dbst) == 0;
	mode_t mode = have_db ? (dbst.st_mode & 0666) : 0600;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode ? mode : 0600);
	if (fd < 0)
		return NULL;
	/* Created by root (an admin command), it still belongs to whoever owns
	 * the database, as SQLite does with -wal and -shm. */
	if (have_db && geteuid() == 0 && fchown(fd, dbst.st_uid, dbst.st_gid))
		log_msg("warn", "cannot give %s to the database's owner", path);
	struct stat fst;
	void *m = MAP_FAILED;
	/* Two processes may both extend it: the same size, zero-filled. */
	if (fstat(fd, &fst) == 0 && (fst.st_size >= AUTHGEN_BYTES || ftruncate(fd, AUTHGEN_BYTES) == 0))
		m = mmap(NULL, AUTHGEN_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return m == MAP_FAILED ? NULL : m;
}

/* The store's cache, created on first use; NULL on PostgreSQL, or when the
 * shared generation cannot be mapped (then every check reads the database,
 * and revocations refuse to go ahead: other processes could not learn of
 * them).  Called with auth_mu held. */
static struct auth_cache *auth_cache_locked(struct store *st, bool *ret_unsignalled)
{
	*ret_unsignalled = false;
	if (store_kind(st) != DB_SQLITE)
		return NULL;
	struct auth_cache **slot = store_auth_cache(st);
	if (*slot)
		return *slot;
	const char *path = store_url(st) + 7;
	if (!strncmp(path, "//", 2))
		path += 2;
	void *map = NULL;
	if (strcmp(path, ":memory:")) {
		static bool warned;
		if (!(map = store_map_authgen(path))) {
			if (!warned)
				log_msg("error", "cannot map %s-authgen: API tokens are checked in the database on every "
					"request, and revocations fail", path);
			warned = true;
			*ret_unsignalled = true;
			return NULL;
		}
	}
	struct auth_cache *c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	c->map = map;
	c->gen = map ? (_Atomic uint64_t *)map + 1 : &c->local;
	*slot = c;
	return c;
}

static unsigned char auth_mac_key[crypto_shorthash_siphashx24_KEYBYTES];
static pthread_once_t auth_mac_once = PTHREAD_ONCE_INIT;

static void auth_mac_init(void)
{
	randombytes_buf(auth_mac_key, sizeof auth_mac_key);
}

static void auth_mac(const char *token, size_t len, unsigned char mac[AUTH_MAC_BYTES])
{
	pthread_once(&auth_mac_once, auth_mac_init);
	crypto_shorthash_siphashx24(mac, (const unsigned char *)token, len, auth_mac_key);
}

static struct auth_entry *auth_slot(struct auth_cache *c, const unsigned char *mac)
{
	unsigned h = (unsigned)mac[0] | (unsigned)mac[1] << 8 | (unsigned)mac[2] << 16;
	return &c->e[h % AUTH_SLOTS];
}

enum auth_hit { AUTH_MISS, AUTH_HIT, AUTH_HIT_STALE_USE };

/* Looks the token up; gets the generation to read the database under. */
static enum auth_hit auth_lookup(struct store *st, const unsigned char *mac, int64_t now, uint64_t *ret_gen,
				 bool *ret_cached, struct api_key *ret_key, struct org *ret_org)
{
	bool unsignalled;
	enum auth_hit hit = AUTH_MISS;
	pthread_mutex_lock(&auth_mu);
	struct auth_cache *c = auth_cache_locked(st, &unsignalled);
	*ret_cached = c != NULL;
	if (c) {
		uint64_t gen = atomic_load_explicit(c->gen, memory_order_acquire);
		*ret_gen = gen;
		const struct auth_entry *e = auth_slot(c, mac);
		if (e->used && e->gen == gen && now - e->checked_at < AUTH_TTL_MS && now >= e->checked_at &&
		    !sodium_memcmp(e->mac, mac, AUTH_MAC_BYTES)) {
			*ret_key = e->key;
			*ret_org = e->org;
			hit = now - e->key.last_used_at >= LAST_USED_GRANULARITY_MS ? AUTH_HIT_STALE_USE : AUTH_HIT;
		}
	}
	pthread_mutex_unlock(&auth_mu);
	return hit;
}

/* Keeps (key, org) for the token, as read under generation gen. */
static void auth_keep(struct store *st, const unsigned char *mac, uint64_t gen, int64_t now, const struct api_key *k,
		      const struct org *o)
{
	bool unsignalled;
	pthread_mutex_lock(&auth_mu);
	struct auth_cache *c = auth_cache_locked(st, &unsignalled);
	if (c) {
		struct auth_entry *e = auth_slot(c, mac);
		memcpy(e->mac, mac, AUTH_MAC_BYTES);
		e->used = true;
		e->gen = gen;
		e->checked_at = now;
		e->key = *k;
		e->org = *o;
	}
	pthread_mutex_unlock(&auth_mu);
}

static void auth_forget(struct store *st, const unsigned char *mac)
{
	bool unsignalled;
	pthread_mutex_lock(&auth_mu);
	struct auth_cache *c = auth_cache_locked(st, &unsignalled);
	if (c) {
		struct auth_entry *e = auth_slot(c, mac);
		if (!sodium_memcmp(e->mac, mac, AUTH_MAC_BYTES))
			e->used = false;
	}
	pthread_mutex_unlock(&auth_mu);
}

/* A kept key's once-a-second last_used_at write, which also re-checks that
 * it is live (a revocation whose bump was lost is seen here). */
static enum code auth_touch(struct store *st, const unsigned char *mac, uint64_t gen, int64_t now, struct api_key *k,
			    const struct org *o)
{
	struct db_res *r = NULL;
	struct db_param u[] = {P_INT(now), P_TXT(k->id)};
	enum code rc = store_exec1(st, "UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND revoked_at IS NULL "
				   "RETURNING id", u, 2, &r);
	bool gone = rc == CODE_OK && db_res_rows(r) == 0;
	db_res_free(r);
	if (gone) {
		auth_forget(st, mac);
		return CODE_UNAUTHORIZED;
	}
	/* A failed bookkeeping write does not fail the request. */
	if (rc == CODE_OK) {
		k->last_used_at = now;
		auth_keep(st, mac, gen, now, k, o);
	}
	return CODE_OK;
}

enum code store_key_authenticate(struct store *st, const char *token, size_t len,
				 struct api_key *ret_key, struct org *ret_org)
{
	if (len != TOKEN_LEN)
		return CODE_UNAUTHORIZED;
	unsigned char mac[AUTH_MAC_BYTES];
	auth_mac(token, len, mac);
	int64_t now = now_ms();
	uint64_t gen = 0;
	bool cached = false;
	switch (auth_lookup(st, mac, now, &gen, &cached, ret_key, ret_org)) {
	case AUTH_HIT:
		return CODE_OK;
	case AUTH_HIT_STALE_USE:
		return auth_touch(st, mac, gen, now, ret_key, ret_org);
	case AUTH_MISS:
		break;
	}
	if (!token_well_formed(token, len))
		return CODE_UNAUTHORIZED;
	char hash[TOKEN_HASH_HEX];
	token_hash(token, len, hash);
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_res *r = NULL;
	struct db_param p[] = {P_TXT(hash)};
	enum code rc = db_exec(db, "SELECT " KEY_COLS ", o.id, o.name, o.created_at FROM api_keys k "
			       "JOIN orgs o ON o.id = k.org_id WHERE k.token_hash = $1", p, 1, &r);
	if (rc)
		goto out;
	/* The index found the row by hash; compare again in constant time so
	 * the answer never depends on how much of a hash matched. */
	if (db_res_rows(r) != 1 || !token_hash_equal(db_res_get(r, 0, 7), hash) || !db_res_null(r, 0, 6)) {
		rc = CODE_UNAUTHORIZED;
		goto out;
	}
	row_to_key(r, 0, ret_key);
	cell_copy(r, 0, 8, ret_org->id, sizeof ret_org->id);
	cell_copy(r, 0, 9, ret_org->name, sizeof ret_org->name);
	ret_org->created_at = db_res_int(r, 0, 10);
	if (now - ret_key->last_used_at >= LAST_USED_GRANULARITY_MS) {
		struct db_param u[] = {P_INT(now), P_TXT(ret_key->id)};
		if (db_exec(db, "UPDATE api_keys SET last_used_at = $1 WHERE id = $2", u, 2, NULL) == CODE_OK)
			ret_key->last_used_at = now;
		/* A failed bookkeeping write does not fail the request. */
	}
out:
	db_res_free(r);
	store_release(st, db);
	if (rc == CODE_OK && cached)
		auth_keep(st, mac, gen, now, ret_key, ret_org);
	return rc;
}

enum code store_key_revoke(struct store *st, const char *org_id, const char *key_id)
{
	bool unsignalled;
	pthread_mutex_lock(&auth_mu);
	struct auth_cache *c = auth_cache_locked(st, &unsignalled);
	pthread_mutex_unlock(&auth_mu);
	/* Processes that keep keys could not learn of this revocation. */
	if (unsignalled)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_res *r;
	struct db_param p[] = {P_INT(now_ms()), P_TXT(key_id), P_TXT(org_id)};
	enum code rc = store_exec1(st, "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) "
				   "WHERE id = $2 AND (CAST($3 AS TEXT) IS NULL OR org_id = $3) RETURNING id", p, 3, &r);
	/* After the commit: every process's kept keys are read again. */
	if (c)
		atomic_fetch_add_explicit(c->gen, 1, memory_order_acq_rel);
	if (!rc && db_res_rows(r) == 0)
		rc = CODE_NOT_FOUND;
	db_res_free(r);
	return rc;
}

enum code store_key_list(struct store *st, const char *org_id,
			 void (*fn)(const struct api_key *k, void *ctx), void *ctx)
{
	struct db_res *r;
	struct db_param p[] = {P_TXT(org_id)};
	enum code rc = store_exec1(st, "SELECT " KEY_COLS " FROM api_keys k WHERE k.org_id = $1 "
				   "ORDER BY k.created_at DESC, k.id", p, 1, &r);
	if (rc)
		return rc;
	for (int i = 0; i < db_res_rows(r); i++) {
		struct api_key k = {0};
		row_to_key(r, i, &k);
		fn(&k, ctx);
	}
	db_res_free(r);
	return CODE_OK;
}

enum code store_login_link_create(struct store *st, const char *user_id, int64_t ttl_ms,
				  char ret_token[TOKEN_LEN + 1])
{
	token_mint_link(ret_token);
	char hash[TOKEN_HASH_HEX];
	token_hash(ret_token, TOKEN_LEN, hash);
	int64_t now = now_ms();
	struct db_param p[] = {P_TXT(hash), P_TXT(user_id), P_INT(now), P_INT(now + ttl_ms)};
	return store_exec1(st, "INSERT INTO login_links (token_hash, user_id, created_at, expires_at) "
			   "VALUES ($1, $2, $3, $4)", p, 4, NULL);
}

enum code store_login_link_use(struct store *st, const char *token, struct user *ret)
{
	if (!token_link_well_formed(token, strlen(token)))
		return CODE_NOT_FOUND;
	char hash[TOKEN_HASH_HEX];
	token_hash(token, TOKEN_LEN, hash);
	int64_t now = now_ms();
	struct db_res *r;
	struct db_param p[] = {P_INT(now), P_TXT(hash)};
	/* One statement marks it used, so two concurrent uses cannot both win. */
	enum code rc = store_exec1(st, "UPDATE login_links SET used_at = $1 WHERE token_hash = $2 "
				   "AND used_at IS NULL AND expires_at > $1 RETURNING user_id", p, 2, &r);
	if (rc)
		return rc;
	char uid[ID_MAX] = "";
	if (!db_one_row(rc, r))
		cell_copy(r, 0, 0, uid, sizeof uid);
	db_res_free(r);
	return *uid ? store_user_get(st, uid, ret) : CODE_NOT_FOUND;
}

enum code store_location_add(struct store *st, const char *org_id, const struct location *loc,
			     char ret_id[ID_MAX])
{
	char nkey[NAME_MAX_LEN * 4 + 1], akey[1024];
	id_new("loc", ret_id);
	if (loc->name)
		text_key(loc->name, nkey, sizeof nkey);
	address_key(loc->street, loc->city, loc->state, loc->zip, akey, sizeof akey);
	struct db_param p[] = {P_TXT(ret_id), P_TXT(org_id), P_TXT(loc->name), P_TXT(loc->name ? nkey : NULL),
			       P_TXT(loc->street), P_TXT(loc->city), P_TXT(loc->state), P_TXT(loc->zip),
			       P_TXT(akey), P_INT(now_ms()), loc->has_coords ? P_INT(loc->lat_e6) : P_NULL,
			       loc->has_coords ? P_INT(loc->lon_e6) : P_NULL,
			       P_TXT(loc->geocode_precision ? loc->geocode_precision : "none"), P_TXT(loc->geocode_source)};
	return store_exec1(st, "INSERT INTO locations (id, org_id, name, name_key, street, city, state, zip, "
			   "address_key, created_at, lat_e6, lon_e6, geocode_precision, geocode_source) "
			   "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)", p, 14, NULL);
}

enum code store_set_approvers(struct store *st, const char *org_id, const char *const *emails, int n)
{
	struct db *db = store_acquire(st);
	if (!db)
		return CODE_SERVICE_UNAVAILABLE;
	struct db_param p[] = {P_TXT(org_id), P_NULL};
	enum code rc = db_begin_write(db);
	if (!rc)
		rc = db_exec(db, "DELETE FROM approvers WHERE org_id = $1", p, 1, NULL);
	for (int i = 0; !rc && i < n; i++) {
		p[1] = P_TXT(emails[i]);
		rc = db_exec(db, "INSERT INTO approvers (org_id, email) VALUES ($1, $2) ON CONFLICT DO NOTHING",
			     p, 2, NULL);
	}
	rc = db_finish(db, rc);
	store_release(st, db);
	return rc;
}
