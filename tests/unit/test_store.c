/* Unit tests of the store on both backends (a SQLite file in a temp dir and
 * the throwaway PostgreSQL that tests/unit/with_services.py starts), and of
 * the mailer against a real SMTP server (aiosmtpd, same wrapper).  Without
 * the wrapper's services the tests fail: nothing is skipped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <curl/curl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/app.h"
#include "base/arena.h"
#include "base/clock.h"
#include "base/ids.h"
#include "base/spool.h"
#include "import/results.h"
#include "mail/mailer.h"
#include "model/messages.h"
#include "model/names.h"
#include "store/records.h"
#include "store/outbox.h"
#include "store/reference.h"
#include "store/retention.h"
#include "store/runs.h"
#include "store/settings.h"
#include "store/store.h"
#include "store/store_internal.h"

static char sqlite_dir[] = "/tmp/ll-store-XXXXXX";

static struct store *open_store(const char *url)
{
	struct store *st = NULL;
	char err[512] = "";
	enum code rc = store_open(url, 4, &st, err, sizeof err);
	if (rc)
		fail_msg("store_open(%s): %s", url, err);
	assert_int_equal(store_migrate(st, err, sizeof err), CODE_OK);
	/* A second migrate is a no-op. */
	assert_int_equal(store_migrate(st, err, sizeof err), CODE_OK);
	return st;
}

static void identity(struct store *st)
{
	struct org o, o2;
	assert_int_equal(store_org_create(st, "Acme Freight", &o), CODE_OK);
	assert_int_equal(store_org_get(st, o.id, &o2), CODE_OK);
	assert_string_equal(o2.name, "Acme Freight");
	assert_int_equal(store_org_get(st, "org_doesnotexistdoesnotexis", &o2), CODE_NOT_FOUND);
	struct user u, u2;
	char err[256] = "";
	char email[64];
	snprintf(email, sizeof email, "admin-%s@acme.test", o.id);
	assert_int_equal(store_user_add(st, o.id, email, "Ann", ROLE_ADMIN, &u, err, sizeof err), CODE_OK);
	assert_int_equal(store_user_add(st, o.id, email, "Dup", ROLE_MEMBER, &u2, err, sizeof err),
			 CODE_INVALID_REQUEST);
	assert_true(strlen(err) > 0);
	assert_int_equal(store_user_by_email(st, email, &u2), CODE_OK);
	assert_string_equal(u2.id, u.id);
	assert_int_equal(u2.role, ROLE_ADMIN);

	char token[TOKEN_LEN + 1];
	struct api_key k, k2;
	struct org ko;
	assert_int_equal(store_key_create(st, o.id, "ci", token, &k), CODE_OK);
	assert_int_equal(store_key_authenticate(st, token, strlen(token), &k2, &ko), CODE_OK);
	assert_string_equal(k2.id, k.id);
	assert_string_equal(ko.id, o.id);
	/* One character off: the checksum or the hash rejects it. */
	token[10] = token[10] == 'a' ? 'b' : 'a';
	assert_int_equal(store_key_authenticate(st, token, strlen(token), &k2, &ko), CODE_UNAUTHORIZED);
	token[10] = k.prefix[0] ? token[10] : token[10];
	assert_int_equal(store_key_revoke(st, "org_other", k.id), CODE_NOT_FOUND);
	assert_int_equal(store_key_revoke(st, o.id, k.id), CODE_OK);
}

static struct run new_run(const char *org_id, const char *fingerprint)
{
	struct run r = {0};
	id_new("run", r.id);
	snprintf(r.org_id, sizeof r.org_id, "%s", org_id);
	snprintf(r.kind, sizeof r.kind, "jobs");
	r.state = RUN_QUEUED;
	snprintf(r.fingerprint, sizeof r.fingerprint, "%s", fingerprint);
	snprintf(r.file_name, sizeof r.file_name, "loads.csv");
	snprintf(r.file_format, sizeof r.file_format, "csv");
	r.row_count = -1;
	r.created_at = now_ms();
	return r;
}

static void runs(struct store *st)
{
	struct org o;
	assert_int_equal(store_org_create(st, "Runs Org", &o), CODE_OK);
	char existing[ID_MAX] = "";
	struct run a = new_run(o.id, "f1"), b = new_run(o.id, "f1");
	const char file[] = "jobCode,loadNo,loadDate\nJ,1,2026-11-01\n";
	assert_int_equal(store_run_create(st, &a, file, sizeof file - 1, existing), CODE_OK);
	/* The same file while the first is active: refused, naming the first. */
	assert_int_equal(store_run_create(st, &b, file, sizeof file - 1, existing), CODE_IMPORT_IN_PROGRESS);
	assert_string_equal(existing, a.id);
	unsigned char *data = NULL;
	size_t len = 0;
	assert_int_equal(store_run_file(st, a.id, &data, &len), CODE_OK);
	assert_int_equal(len, sizeof file - 1);
	assert_memory_equal(data, file, len);
	free(data);

	struct run claimed;
	assert_int_equal(store_run_claim(st, "w1", 30000, &claimed), CODE_OK);
	assert_string_equal(claimed.id, a.id);
	assert_int_equal(claimed.state, RUN_RUNNING);
	assert_int_equal(store_run_claim(st, "w2", 30000, &claimed), CODE_NOT_FOUND);
	/* Only the lease holder may finish it. */
	int counts[4] = {1, 0, 0, 0};
	struct run_move done = {.to = RUN_SUCCEEDED, .owner = "w2", .counts = counts, .row_count = 1, .finish = true};
	bool moved = true;
	assert_int_equal(store_run_move(st, a.id, &done, &moved), CODE_OK);
	assert_false(moved);
	done.owner = "w1";
	assert_int_equal(store_run_move(st, a.id, &done, &moved), CODE_OK);
	assert_true(moved);
	/* A terminal run moves no more. */
	struct run_move cancel = {.to = RUN_CANCELLED, .row_count = -1, .finish = true};
	assert_int_equal(store_run_move(st, a.id, &cancel, &moved), CODE_OK);
	assert_false(moved);
	struct run got;
	assert_int_equal(store_run_get(st, o.id, a.id, &got), CODE_OK);
	assert_int_equal(got.state, RUN_SUCCEEDED);
	assert_int_equal(got.counts[0], 1);
	assert_int_equal(store_run_get(st, "org_other", a.id, &got), CODE_NOT_FOUND);
	/* Terminal now: the same file may run again. */
	assert_int_equal(store_run_create(st, &b, file, sizeof file - 1, existing), CODE_OK);

	/* A staged run whose file cannot import is unstaged by its triage
	 * holder only, then claimable like any queued run. */
	assert_int_equal(store_run_claim(st, "w1", 30000, &claimed), CODE_OK);   /* b out of the way */
	struct run s = new_run(o.id, "f-staged");
	s.staged = true;
	snprintf(s.shape_key, sizeof s.shape_key, "shape");
	s.expires_at = s.created_at + 60000;
	assert_int_equal(store_run_create(st, &s, file, sizeof file - 1, existing), CODE_OK);
	assert_int_equal(store_run_claim(st, "w2", 30000, &claimed), CODE_NOT_FOUND);   /* staged */
	assert_int_equal(store_run_triage_claim(st, "w2", 30000, &claimed), CODE_OK);
	assert_int_equal(store_run_unstage(st, s.id, "w3"), CODE_OK);
	assert_int_equal(store_run_get(st, o.id, s.id, &got), CODE_OK);
	assert_true(got.staged);
	assert_int_equal(store_run_unstage(st, s.id, "w2"), CODE_OK);
	assert_int_equal(store_run_get(st, o.id, s.id, &got), CODE_OK);
	assert_false(got.staged);
	assert_int_equal(store_run_claim(st, "w2", 30000, &claimed), CODE_OK);
	assert_string_equal(claimed.id, s.id);
}

static void outbox_and_secrets(struct store *st)
{
	struct org o;
	assert_int_equal(store_org_create(st, "Mail Org", &o), CODE_OK);
	struct outbox_mail m = {0};
	id_new("mail", m.id);
	snprintf(m.org_id, sizeof m.org_id, "%s", o.id);
	m.recipients = "a@x.test,b@y.test";
	m.subject = "Review";
	m.body = "Body";
	struct run r = new_run(o.id, "f-mail");
	r.staged = true;
	snprintf(r.shape_key, sizeof r.shape_key, "shape");
	r.expires_at = r.created_at + 60000;
	snprintf(m.run_id, sizeof m.run_id, "%s", r.id);
	char existing[ID_MAX];
	const char file[] = "jobCode,loadNo\nJ,1\n";
	assert_int_equal(store_run_create(st, &r, file, sizeof file - 1, existing), CODE_OK);
	struct arena *a = arena_new();
	struct outbox_mail got;
	/* Staged at upload: no mail until a worker has triaged it. */
	assert_int_equal(store_outbox_claim(st, a, 60000, &got), CODE_NOT_FOUND);
	struct run t;
	assert_int_equal(store_run_triage_claim(st, "w1", 30000, &t), CODE_OK);
	assert_string_equal(t.id, r.id);
	assert_int_equal(t.state, RUN_QUEUED);   /* triage does not change the state */
	assert_int_equal(store_run_triage_claim(st, "w2", 30000, &t), CODE_NOT_FOUND);   /* held */
	bool done = true;
	assert_int_equal(store_run_triaged(st, r.id, "w2", 1, &m, &done), CODE_OK);   /* not its holder */
	assert_false(done);
	assert_int_equal(store_outbox_claim(st, a, 60000, &got), CODE_NOT_FOUND);
	assert_int_equal(store_run_triaged(st, r.id, "w1", 1, &m, &done), CODE_OK);
	assert_true(done);
	assert_int_equal(store_run_get(st, o.id, r.id, &t), CODE_OK);
	assert_int_equal(t.row_count, 1);
	assert_true(t.staged);
	assert_int_equal(store_run_triage_claim(st, "w2", 30000, &t), CODE_NOT_FOUND);   /* triaged once */
	assert_int_equal(store_outbox_claim(st, a, 60000, &got), CODE_OK);
	assert_string_equal(got.run_id, r.id);
	assert_string_equal(got.recipients, "a@x.test,b@y.test");
	/* Held: nobody else claims it meanwhile. */
	assert_int_equal(store_outbox_claim(st, a, 60000, &got), CODE_NOT_FOUND);
	assert_int_equal(store_outbox_record(st, got.id, 1, true, "sent", now_ms()), CODE_OK);
	arena_free(a);

	unsigned char k1[32], k2[32];
	assert_int_equal(store_secret(st, "test-key", k1, sizeof k1), CODE_OK);
	assert_int_equal(store_secret(st, "test-key", k2, sizeof k2), CODE_OK);
	assert_memory_equal(k1, k2, sizeof k1);   /* created once, then read */
	assert_int_equal(store_secret(st, "other-key", k2, sizeof k2), CODE_OK);
	assert_memory_not_equal(k1, k2, sizeof k1);
}

static void locations(struct store *st)
{
	struct org o;
	assert_int_equal(store_org_create(st, "Loc Org", &o), CODE_OK);
	struct location l = {.name = "Yard A", .street = "1 Main St", .city = "Springfield", .state = "IL",
			     .zip = "62701"};
	char id1[ID_MAX], id2[ID_MAX];
	assert_int_equal(store_location_add(st, o.id, &l, id1), CODE_OK);
	assert_int_equal(store_location_add(st, o.id, &l, id2), CODE_OK);   /* people may repeat a name */
	assert_string_not_equal(id1, id2);
	char cid[ID_MAX];
	char dupid[ID_MAX], cid2[ID_MAX];
	assert_int_equal(store_ref_create(st, REF_CUSTOMER, o.id, "  ACME Corp ", cid, dupid), CODE_OK);
	assert_int_equal(store_ref_create(st, REF_CUSTOMER, o.id, " acme corp", cid2, dupid), CODE_DUPLICATE_NAME);
	assert_string_equal(dupid, cid);
	assert_true(!strncmp(cid, "cus_", 4));
}

/* Two stores on one database stand for two processes: each keeps the keys
 * it authenticated, and a revocation through either is seen by the other on
 * its next check (SQLite: the shared DBPATH-authgen generation). */
static void revocation_across_stores(struct store *st, const char *url)
{
	struct store *st2 = open_store(url);
	struct org o;
	assert_int_equal(store_org_create(st, "Two Processes", &o), CODE_OK);
	char t1[TOKEN_LEN + 1], t2[TOKEN_LEN + 1];
	struct api_key k1, k2, k;
	struct org ko;
	assert_int_equal(store_key_create(st, o.id, "one", t1, &k1), CODE_OK);
	assert_int_equal(store_key_create(st, o.id, "two", t2, &k2), CODE_OK);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(store_key_authenticate(st, t1, TOKEN_LEN, &k, &ko), CODE_OK);
		assert_string_equal(k.id, k1.id);
		assert_string_equal(ko.id, o.id);
		assert_string_equal(ko.name, "Two Processes");
		assert_int_equal(store_key_authenticate(st2, t1, TOKEN_LEN, &k, &ko), CODE_OK);
		assert_int_equal(store_key_authenticate(st, t2, TOKEN_LEN, &k, &ko), CODE_OK);
		assert_string_equal(k.id, k2.id);
		assert_int_equal(store_key_authenticate(st2, t2, TOKEN_LEN, &k, &ko), CODE_OK);
	}
	/* Revoked through the other store: refused here at once, and there. */
	assert_int_equal(store_key_revoke(st2, NULL, k1.id), CODE_OK);
	assert_int_equal(store_key_authenticate(st, t1, TOKEN_LEN, &k, &ko), CODE_UNAUTHORIZED);
	assert_int_equal(store_key_authenticate(st2, t1, TOKEN_LEN, &k, &ko), CODE_UNAUTHORIZED);
	assert_int_equal(store_key_authenticate(st, t2, TOKEN_LEN, &k, &ko), CODE_OK);
	/* And the other way round. */
	assert_int_equal(store_key_revoke(st, o.id, k2.id), CODE_OK);
	assert_int_equal(store_key_authenticate(st2, t2, TOKEN_LEN, &k, &ko), CODE_UNAUTHORIZED);
	assert_int_equal(store_key_authenticate(st, t2, TOKEN_LEN, &k, &ko), CODE_UNAUTHORIZED);
	/* A token one character off a kept one is still checked in full. */
	char t3[TOKEN_LEN + 1];
	struct api_key k3;
	assert_int_equal(store_key_create(st, o.id, "three", t3, &k3), CODE_OK);
	assert_int_equal(store_key_authenticate(st, t3, TOKEN_LEN, &k, &ko), CODE_OK);
	t3[TOKEN_LEN - 1] = t3[TOKEN_LEN - 1] == 'a' ? 'b' : 'a';
	assert_int_equal(store_key_authenticate(st, t3, TOKEN_LEN, &k, &ko), CODE_UNAUTHORIZED);
	store_close(st2);
}

/* PRODUCT §11 "Problems, grouped": results_problems over stored compact
 * rows.  A problem twice in one row counts once; null and "" values are
 * separate groups; ties go by first appearance; more rows than one batch
 * of store_results_problem_rows (500) are all read. */
static void problems(struct store *st)
{
	struct org o;
	assert_int_equal(store_org_create(st, "Problems Org", &o), CODE_OK);
	struct run r = new_run(o.id, "problems");
	char existing[ID_MAX];
	assert_int_equal(store_run_create(st, &r, "x", 1, existing), CODE_OK);
	enum { BIG = 1200 };
	struct arena *a = arena_new();
	struct result_entry *e = arena_alloc(a, sizeof(*e) * (BIG + 8));
	int n = 0;
	const char *src = "[\"L\",\"J\"]";
	e[n++] = (struct result_entry){"failed", 2, false, arena_printf(a, "[%s,[[\"TYPE_MISMATCH\",\"weight\",5,%d,"
		"\"abc\",0,\"1\"],[\"TYPE_MISMATCH\",\"weight\",5,%d,\"abc\",0,\"1\"]]]", src, MSG_MISMATCH, MSG_MISMATCH)};
	e[n++] = (struct result_entry){"succeeded", 3, true, arena_printf(a, "[%s,[\"load_x\"],[[\"LOOKUP_MISS\","
		"\"customer\",4,%d,\" Acme \",0],[\"LOOKUP_MISS\",\"branch\",3,%d,\"\",0]]]", src, MSG_NO_NAMED, MSG_NO_NAMED)};
	e[n++] = (struct result_entry){"succeeded", 4, true, arena_printf(a, "[%s,[\"load_y\"],[[\"LOOKUP_MISS\","
		"\"branch\",-1,%d,null],[\"LOOKUP_MISS\",\"customer\",4,%d,\" Acme \",0]]]", src, MSG_NO_NAMED, MSG_NO_NAMED)};
	e[n++] = (struct result_entry){"skipped", 5, false, arena_printf(a, "[%s,\"duplicate_of_prior_import\"]", src)};
	e[n++] = (struct result_entry){"succeeded", 6, false, arena_printf(a, "[%s,[\"load_z\"]]", src)};
	for (int i = 0; i < BIG; i++)
		e[n++] = (struct result_entry){"succeeded", 7 + i, true, arena_printf(a, "[%s,[],[[\"LOOKUP_MISS\","
			"\"customer\",4,%d,\"Big\",0]]]", src, MSG_NO_NAMED)};
	struct store_tx *tx;
	assert_int_equal(store_tx_begin(st, &tx), CODE_OK);
	assert_int_equal(store_results_add_all(tx, r.id, e, n), CODE_OK);
	assert_int_equal(store_tx_commit(tx), CODE_OK);

	struct run_problem **g;
	int ng = 0;
	assert_int_equal(results_problems(st, a, r.id, "https://docs.test", &g, &ng), CODE_OK);
	assert_int_equal(ng, 5);
	/* Errors first (issue 30): row 2's mismatch, counted once. */
	assert_string_equal(g[0]->code, "TYPE_MISMATCH");
	assert_true(g[0]->error);
	assert_int_equal(g[0]->row_count, 1);
	assert_null(g[0]->fix_type);
	assert_string_equal(g[1]->value, "Big");
	assert_int_equal(g[1]->row_count, BIG);
	assert_int_equal(g[1]->nrows, PROBLEM_ROWS_SHOWN);
	assert_int_equal(g[1]->rows[0], 7);
	assert_int_equal(g[1]->rows[19], 26);
	assert_string_equal(g[2]->value, " Acme ");
	assert_int_equal(g[2]->row_count, 2);
	assert_string_equal(g[2]->fix_type, "create_customer");
	assert_string_equal(g[2]->fix_name, "Acme");
	assert_non_null(strstr(g[2]->message, "No customer named \" Acme \""));
	assert_string_equal(g[2]->doc_url, "https://docs.test/api/errors/LOOKUP_MISS");
	assert_string_equal(g[3]->value, "");                /* row 3: "" ... */
	assert_null(g[3]->fix_type);                         /* ... is no name to create */
	assert_null(g[4]->value);                            /* row 4: null, another group */
	assert_null(g[4]->column);
	assert_false(g[4]->error);
	arena_free(a);
}

/* Loads found by key (issue 29): keys spread over many Projects (the OR of
 * pairs) and keys sharing few Projects (an IN list a Project) find exactly
 * the Loads with those keys — never a Load of one Project under another's
 * load number — and nothing for keys that do not exist. */
static void loads_by_key(struct store *st)
{
	struct org o;
	assert_int_equal(store_org_create(st, "Keys Org", &o), CODE_OK);
	enum { PROJECTS = 300, PER = 3 };
	struct arena *a = arena_new();
	struct project_rec *p = arena_alloc(a, sizeof(*p) * PROJECTS);
	struct load_rec *l = arena_alloc(a, sizeof(*l) * PROJECTS * PER);
	for (int j = 0; j < PROJECTS; j++) {
		id_new("prj", p[j].id);
		p[j].job_code = arena_printf(a, "J%d", j);
		p[j].name = p[j].job_code;
		for (int k = 0; k < PER; k++) {
			struct load_rec *x = &l[j * PER + k];
			id_new_ordered("load", x->id);
			x->project_id = p[j].id;
			x->load_no = arena_printf(a, "%d", k + (j % 2) * 100);   /* odd jobs: 100.. */
			x->load_date = "2026-11-02";
			x->content_hash = "h";
		}
	}
	struct store_tx *tx;
	assert_int_equal(store_tx_begin(st, &tx), CODE_OK);
	assert_int_equal(store_projects_insert_many(tx, o.id, NULL, p, PROJECTS), CODE_OK);
	assert_int_equal(store_load_insert_many(tx, o.id, NULL, l, PROJECTS * PER), CODE_OK);
	/* Spread: one key of each Project (its first load), plus an even job's
	 * id with an odd job's number and a number nobody has. */
	const char *pids[PROJECTS + 2], *nos[PROJECTS + 2];
	for (int j = 0; j < PROJECTS; j++) {
		pids[j] = p[j].id;
		nos[j] = l[j * PER].load_no;
	}
	pids[PROJECTS] = p[0].id, nos[PROJECTS] = "100";
	pids[PROJECTS + 1] = p[1].id, nos[PROJECTS + 1] = "nope";
	struct load_rec *got;
	int ngot = 0;
	assert_int_equal(store_loads_find_pairs(tx, a, pids, nos, PROJECTS + 2, &got, &ngot), CODE_OK);
	assert_int_equal(ngot, PROJECTS);
	for (int i = 0; i < ngot; i++) {
		int j = atoi(got[i].job_code + 1);
		assert_string_equal(got[i].project_id, p[j].id);
		assert_string_equal(got[i].id, l[j * PER].id);
	}
	/* Grouped: every key of 5 Projects, and the cross keys again. */
	int n = 0;
	for (int j = 0; j < 5; j++)
		for (int k = 0; k < PER; k++, n++) {
			pids[n] = p[j].id;
			nos[n] = l[j * PER + k].load_no;
		}
	pids[n] = p[2].id, nos[n++] = "101";
	assert_int_equal(store_loads_find_pairs(tx, a, pids, nos, n, &got, &ngot), CODE_OK);
	assert_int_equal(ngot, 5 * PER);
	for (int i = 0; i < ngot; i++) {
		int j = atoi(got[i].job_code + 1);
		assert_true(j < 5);
		assert_string_equal(got[i].project_id, p[j].id);
	}
	store_tx_abort(tx);
	arena_free(a);
}

static int forgets;
static void count_forget(void *spool)
{
	forgets++;
	spool_forget(spool);
}

static int64_t sql_int(struct store *st, const char *sql, const char *id)
{
	struct db_param p[] = {P_TXT(id)};
	struct db_res *r = NULL;
	enum code rc = store_exec1(st, sql, p, 1, &r);
	rc = db_one_row(rc, r);
	if (rc)
		fail_msg("%s: %s", sql, code_name(rc));
	int64_t v = db_res_null(r, 0, 0) ? -1 : db_res_int(r, 0, 0);
	db_res_free(r);
	return v;
}

/* One upload of len bytes (text: CSV-like lines, else bytes that do not
 * deflate) through a spool, as the envelope hands it over; checks how it
 * is stored and that both readers give back exactly its bytes.  Returns
 * the run's id in id. */
static void upload_through_spool(struct store *st, const char *org_id, size_t len, bool text, bool want_parts,
				 char id[ID_MAX])
{
	struct spool in;
	assert_int_equal(spool_open(&in, sqlite_dir, len), 0);
	unsigned char *bytes = malloc(len);
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		char c = "J1,L,2026-11-01,1200 lb,Main St\n"[i % 32];
		/* Lines whose digits vary deflate to about a third: parts too. */
		bytes[i] = text ? (unsigned char)(c >= '0' && c <= '9' ? '0' + (char)(x % 10) : c) : (unsigned char)x;
	}
	assert_int_equal(spool_write(&in, bytes, len), 0);
	assert_int_equal(spool_map(&in), 0);
	char fp[32];
	snprintf(fp, sizeof fp, "parts-%zu-%d", len, text);
	struct run r = new_run(org_id, fp);
	char existing[ID_MAX] = "";
	forgets = 0;
	struct upload_bytes u = {in.map, in.len, count_forget, &in, sqlite_dir};
	assert_int_equal(store_run_create_upload(st, &r, &u, existing), CODE_OK);
	snprintf(id, ID_MAX, "%s", r.id);
	spool_close(&in);
	int64_t parts = sql_int(st, "SELECT parts FROM run_files WHERE run_id = $1", id);
	assert_int_equal(sql_int(st, "SELECT COUNT(*) FROM run_file_parts WHERE run_id = $1", id), parts < 0 ? 0 : parts);
	if (!want_parts) {
		assert_int_equal(parts, -1);
	} else {
		int64_t stored = sql_int(st, "SELECT SUM(length(content)) FROM run_file_parts WHERE run_id = $1", id);
		assert_int_equal(parts, (stored + UPLOAD_PART - 1) / UPLOAD_PART);
		assert_true(parts >= 2);
		assert_true(text ? stored < (int64_t)len / 2 : stored == (int64_t)len);
		/* Each part at most 1 MiB, and the upload's pages were dropped
		 * as it was deflated or written. */
		assert_true(sql_int(st, "SELECT MAX(length(content)) FROM run_file_parts WHERE run_id = $1", id) <=
			    UPLOAD_PART);
		assert_true(forgets >= 8);
		assert_int_equal(sql_int(st, "SELECT raw_size FROM run_files WHERE run_id = $1", id),
				 text ? (int64_t)len : -1);
	}
	unsigned char *data = NULL;
	size_t got = 0;
	assert_int_equal(store_run_file(st, id, &data, &got), CODE_OK);
	assert_int_equal(got, len);
	assert_memory_equal(data, bytes, len);
	free(data);
	struct spool out;
	assert_int_equal(spool_open(&out, sqlite_dir, SIZE_MAX / 2), 0);
	assert_int_equal(store_run_file_spool(st, id, &out), CODE_OK);
	assert_int_equal(spool_map(&out), 0);
	assert_int_equal(out.len, len);
	assert_memory_equal(out.map, bytes, len);
	spool_close(&out);
	free(bytes);
}

/* Big uploads stored in parts (issue 29, migration 21): over 8 MiB from a
 * spool, deflated when that pays (text) and as they are otherwise, in
 * parts of at most 1 MiB that both readers join back exactly; smaller
 * ones stay one value.  A missing part is an error, never a short file,
 * and retention deletes the parts with the upload. */
static void uploads_in_parts(struct store *st)
{
	struct org o;
	assert_int_equal(store_org_create(st, "Parts Org", &o), CODE_OK);
	char text_id[ID_MAX], raw_id[ID_MAX], small_id[ID_MAX];
	size_t big = UPLOAD_PARTS_OVER + 12345;
	upload_through_spool(st, o.id, big, true, true, text_id);
	upload_through_spool(st, o.id, big, false, true, raw_id);
	upload_through_spool(st, o.id, UPLOAD_PARTS_OVER - 1, false, false, small_id);
	struct db_param p[] = {P_TXT(raw_id)};
	assert_int_equal(store_exec1(st, "DELETE FROM run_file_parts WHERE run_id = $1 AND seq = 3", p, 1, NULL),
			 CODE_OK);
	unsigned char *data = NULL;
	size_t len = 0;
	assert_int_equal(store_run_file(st, raw_id, &data, &len), CODE_NOT_FOUND);
	struct spool out;
	assert_int_equal(spool_open(&out, sqlite_dir, SIZE_MAX / 2), 0);
	assert_int_not_equal(store_run_file_spool(st, raw_id, &out), CODE_OK);
	spool_close(&out);
	assert_int_equal(store_retention_delete_upload(st, text_id, now_ms()), CODE_OK);
	assert_int_equal(store_retention_delete_upload(st, raw_id, now_ms()), CODE_OK);
	assert_int_equal(sql_int(st, "SELECT COUNT(*) FROM run_file_parts WHERE run_id = $1", text_id), 0);
	assert_int_equal(sql_int(st, "SELECT COUNT(*) FROM run_file_parts WHERE run_id = $1", raw_id), 0);
}

static void run_all(const char *url)
{
	struct store *st = open_store(url);
	identity(st);
	revocation_across_stores(st, url);
	runs(st);
	outbox_and_secrets(st);
	locations(st);
	problems(st);
	loads_by_key(st);
	uploads_in_parts(st);
	store_close(st);
}

static void test_store_sqlite(void **state)
{
	(void)state;
	char url[128];
	snprintf(url, sizeof url, "sqlite:%s/t.db", sqlite_dir);
	run_all(url);
}

static void test_store_postgres(void **state)
{
	(void)state;
	const char *url = getenv("LOADLINE_TEST_PG_URL");
	if (!url)
		fail_msg("LOADLINE_TEST_PG_URL is not set: run through tests/unit/with_services.py");
	run_all(url);
}

static long long file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) ? -1 : (long long)sb.st_size;
}

/* With store_checkpoint_in_background, a commit that leaves the write-ahead
 * log past its checkpoint size (1,000 pages) does not copy it into the
 * database itself: the store's checkpointer thread does, soon after.  The
 * database file grows only when a checkpoint copies the log into it. */
static void test_sqlite_checkpoints_in_background(void **state)
{
	(void)state;
	char url[200], path[160];
	snprintf(path, sizeof path, "%s/ckpt.db", sqlite_dir);
	snprintf(url, sizeof url, "sqlite:%s", path);
	struct store *st = open_store(url);
	store_checkpoint_in_background(st);
	assert_int_equal(store_exec1(st, "CREATE TABLE ballast (n INTEGER PRIMARY KEY, b BLOB NOT NULL)", NULL, 0,
				     NULL), CODE_OK);
	long long before = file_size(path);
	assert_true(before > 0);
	/* ~6 MB in one commit: ~1,500 pages of log. */
	assert_int_equal(store_exec1(st, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 6000) "
				     "INSERT INTO ballast SELECT x, randomblob(1000) FROM c", NULL, 0, NULL), CODE_OK);
	long long after = before;
	for (int i = 0; i < 200 && after < before + 5000000; i++) {
		usleep(50000);
		after = file_size(path);
	}
	assert_true(after >= before + 5000000);
	/* Closing joins the thread; the file stays a sound database. */
	store_close(st);
	st = open_store(url);
	struct db_res *r = NULL;
	assert_int_equal(store_exec1(st, "SELECT count(*) FROM ballast", NULL, 0, &r), CODE_OK);
	assert_string_equal(db_res_get(r, 0, 0), "6000");
	db_res_free(r);
	store_close(st);
}

/* The write-ahead log is cut back to 16 MiB (journal_size_limit) when it
 * starts over after a checkpoint, instead of keeping the size of the
 * largest commit it ever held (issue 21: a busy hour left a 127 MB log that
 * counted against every imported row for good). */
static void test_sqlite_log_is_cut_back_after_a_checkpoint(void **state)
{
	(void)state;
	char url[200], path[160], wal[170];
	snprintf(path, sizeof path, "%s/walcap.db", sqlite_dir);
	snprintf(wal, sizeof wal, "%s-wal", path);
	snprintf(url, sizeof url, "sqlite:%s", path);
	struct store *st = open_store(url);
	assert_int_equal(store_exec1(st, "CREATE TABLE ballast (n INTEGER PRIMARY KEY, b BLOB NOT NULL)", NULL, 0,
				     NULL), CODE_OK);
	/* ~24 MB in one commit: the log holds all of it until a checkpoint. */
	assert_int_equal(store_exec1(st, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 24000) "
				     "INSERT INTO ballast SELECT x, randomblob(1000) FROM c", NULL, 0, NULL), CODE_OK);
	assert_true(file_size(wal) > 20000000);
	long long cut = -1;
	for (int i = 0; i < 100; i++) {
		struct db_res *r = NULL;
		assert_int_equal(store_exec1(st, "PRAGMA wal_checkpoint(PASSIVE)", NULL, 0, &r), CODE_OK);
		db_res_free(r);
		/* The next write starts the log over, and cuts the file back. */
		assert_int_equal(store_exec1(st, "INSERT INTO ballast (b) VALUES (x'00')", NULL, 0, NULL), CODE_OK);
		if ((cut = file_size(wal)) <= 16 * 1024 * 1024)
			break;
		usleep(20000);
	}
	assert_true(cut >= 0 && cut <= 16 * 1024 * 1024);
	store_close(st);
}

/* The first file the SMTP server wrote, waited for up to 10 s. */
static char *received_mail(const char *dir)
{
	for (int i = 0; i < 200; i++) {
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			size_t n = strlen(e->d_name);
			if (n > 4 && !strcmp(e->d_name + n - 4, ".eml")) {
				char path[512];
				snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
				closedir(d);
				FILE *f = fopen(path, "rb");
				char *buf = calloc(1, 65536);
				size_t got = f ? fread(buf, 1, 65535, f) : 0;
				if (f)
					fclose(f);
				buf[got] = '\0';
				return buf;
			}
		}
		if (d)
			closedir(d);
		usleep(50000);
	}
	return NULL;
}

/* Issue 20 item 12: a thread that finds every pooled connection in use
 * waits a bounded time, then gets none, and its caller answers 503
 * SERVICE_UNAVAILABLE (with Retry-After) instead of hanging; the pool a
 * serving process opens counts every thread that may hold a connection. */
static void test_pool_wait_is_bounded(void **state)
{
	(void)state;
	char url[200];
	snprintf(url, sizeof url, "sqlite:%s/pool.db", sqlite_dir);
	struct store *st = open_store(url);   /* a pool of 4 */
	struct db *held[4];
	for (int i = 0; i < 4; i++)
		assert_non_null(held[i] = store_acquire(st));
	store_set_acquire_wait(st, 200);
	double t0 = mono_ms();
	assert_null(store_acquire(st));
	double waited = mono_ms() - t0;
	assert_true(waited >= 190 && waited < 3000);
	assert_int_equal(db_last_failure()->code, CODE_SERVICE_UNAVAILABLE);
	assert_int_equal(store_exec1(st, "SELECT 1", NULL, 0, NULL), CODE_SERVICE_UNAVAILABLE);
	store_release(st, held[3]);
	assert_int_equal(store_exec1(st, "SELECT 1", NULL, 0, NULL), CODE_OK);
	for (int i = 0; i < 3; i++)
		store_release(st, held[i]);
	store_close(st);

	/* HTTP threads + workers + heartbeat and sweeper + webhook senders +
	 * main (+ metrics listener, + mailer). */
	struct config c = {.workers = 2};
	const int senders = WEBHOOK_SENDERS;
	assert_int_equal(app_store_pool_size(&c, 8), 8 + 2 + 2 + senders + 1);
	snprintf(c.smtp_url, sizeof c.smtp_url, "smtp://127.0.0.1:25");
	snprintf(c.metrics_listen, sizeof c.metrics_listen, "127.0.0.1:9100");
	assert_int_equal(app_store_pool_size(&c, 8), 8 + 1 + 2 + 2 + 1 + senders + 1);
	assert_int_equal(app_store_pool_size(&c, 0), 1 + 2 + 2 + 1 + senders + 1);
}

static void test_mailer_delivers_over_smtp(void **state)
{
	(void)state;
	const char *url = getenv("LOADLINE_TEST_SMTP_URL"), *dir = getenv("LOADLINE_TEST_MAILDIR");
	if (!url || !dir)
		fail_msg("LOADLINE_TEST_SMTP_URL is not set: run through tests/unit/with_services.py");
	struct outbox_mail m = {.id = "mail_x", .run_id = "run_y", .recipients = "ops@partner.test,lead@x.test",
				.subject = "Review week-47.csv (3 rows) \xe2\x80\x94 caf\xc3\xa9",
				.body = "Review and confirm: https://app.test/imports/runs/run_y/review\n"};
	char err[256] = "";
	assert_int_equal(smtp_send(url, "Loadline <loadline@localhost>", &m, err, sizeof err), 0);
	char *got = received_mail(dir);
	assert_non_null(got);
	assert_non_null(strstr(got, "X-Envelope-To: ops@partner.test,lead@x.test"));
	assert_non_null(strstr(got, "X-Loadline-Run: run_y"));
	assert_non_null(strstr(got, "https://app.test/imports/runs/run_y/review"));
	/* The non-ASCII subject travels encoded (RFC 2047), not raw. */
	assert_non_null(strstr(got, "Subject: =?UTF-8?"));
	free(got);
	/* A server that is not there: an error with a reason, no crash. */
	assert_int_equal(smtp_send("smtp://127.0.0.1:1", "a@b", &m, err, sizeof err), -1);
	assert_true(strlen(err) > 0);
}

int main(void)
{
	ids_init();
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (!mkdtemp(sqlite_dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_sqlite),
		cmocka_unit_test(test_store_postgres),
		cmocka_unit_test(test_sqlite_checkpoints_in_background),
		cmocka_unit_test(test_sqlite_log_is_cut_back_after_a_checkpoint),
		cmocka_unit_test(test_pool_wait_is_bounded),
		cmocka_unit_test(test_mailer_delivers_over_smtp),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", sqlite_dir);
	if (system(cmd))
		rc = 1;
	curl_global_cleanup();
	return rc;
}
