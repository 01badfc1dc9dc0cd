/* Column shapes and header proposals (propose.h): a header is read the way
 * a person reads it (words, abbreviations, typos, glued words), then
 * scored against the synonym table and the address group and part words;
 * the best column per field wins. */
#include "propose.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <utf8proc.h>

#include "base/arena.h"
#include "base/digest.h"
#include "model/names.h"
#include "model/normalize.h"
#include "import/assign.h"
#include "import/synonyms.h"
#include "import/value_profile.h"

#define HDR_CAP 256  /* bytes of a header the proposer reads */
#define TOK_MAX 16   /* words of a header the proposer reads */
#define TOK_LEN 32   /* longest word, with its NUL */
#define MIN_SCORE 50 /* below this, a guess does more harm than good */

static const char *slice(const char *const *headers, size_t i)
{
	return headers ? headers[i] : NULL;
}

static size_t slice_len(const size_t *lens, size_t i)
{
	return lens ? lens[i] : 0;
}

/* ---- Shape key ---- */

/* A copy with bytes that are not UTF-8, NUL and U+001F as U+FFFD: name_key()
 * refuses the first two, and the third is the key's column separator. */
static char *clean_header(struct arena *a, const char *s, size_t len,
			  size_t *ret_len)
{
	char *out = arena_alloc(a, len * 3 + 1);
	size_t o = 0, i = 0;
	while (i < len) {
		size_t n;
		int32_t cp = norm_utf8_next(s + i, len - i, &n);
		if (cp <= 0 || cp == 0x1f) {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
		} else {
			memcpy(out + o, s + i, n);
			o += n;
		}
		i += n;
	}
	*ret_len = o;
	return out;
}

void shape_key(const char *const *headers, const size_t *lens, size_t n,
	       char out[SHAPE_KEY_SIZE])
{
	struct arena *a = arena_new();
	struct digest st;
	digest_init(&st);
	for (size_t i = 0; i < n; i++) {
		size_t clen;
		char *c = clean_header(a, slice(headers, i), slice_len(lens, i),
				       &clen);
		char *k = name_key(a, c, clen);
		if (i > 0)
			digest_update(&st, "\x1f", 1);
		if (k)
			digest_update(&st, k, strlen(k));
		arena_reset(a);
	}
	digest_final_hex(&st, out);
	arena_free(a);
}

/* ---- Template ---- */

/* The field whose wire name the slice is, ignoring ASCII case. */
static enum field wire_field(const char *s, size_t len)
{
	for (int f = 0; f < FIELD__COUNT; f++) {
		const char *name = field_name((enum field)f);
		if (strlen(name) == len && strncasecmp(name, s, len) == 0)
			return (enum field)f;
	}
	return FIELD_NONE;
}

bool shape_is_template(const char *const *headers, const size_t *lens, size_t n)
{
	bool seen[FIELD__COUNT] = { false };
	size_t mapped = 0;
	for (size_t i = 0; i < n; i++) {
		size_t tlen;
		const char *t = norm_trim(slice(headers, i), slice_len(lens, i), &tlen);
		if (tlen == 0)
			continue;
		enum field f = wire_field(t, tlen);
		if (f == FIELD_NONE || seen[f])
			return false;
		seen[f] = true;
		mapped++;
	}
	return mapped > 0;
}

/* ---- Reading a header into words ---- */

struct words {
	char t[TOK_MAX][TOK_LEN];
	size_t n;
	size_t junk; /* words dropped: too long or too many */
	bool fuzzy;  /* a typo or a cut-off word was guessed */
};

enum cls { C_SEP, C_UPPER, C_LOWER, C_DIGIT, C_MARK };

static enum cls classify(int32_t cp)
{
	if (cp <= 0 || norm_is_space(cp))
		return C_SEP;
	switch (utf8proc_category(cp)) {
	case UTF8PROC_CATEGORY_LU:
	case UTF8PROC_CATEGORY_LT:
		return C_UPPER;
	case UTF8PROC_CATEGORY_LL:
	case UTF8PROC_CATEGORY_LM:
	case UTF8PROC_CATEGORY_LO:
		return C_LOWER;
	case UTF8PROC_CATEGORY_MN:
	case UTF8PROC_CATEGORY_MC:
	case UTF8PROC_CATEGORY_ME:
		return C_MARK;
	case UTF8PROC_CATEGORY_ND:
		return C_DIGIT;
	default:
		return C_SEP;
	}
}

/* Characters that are words of their own in headers ("Load #", "$/Ton",
 * "№"), or that join a word ("Mat'l"): the replacement text, or NULL. */
static const char *special(int32_t cp)
{
	switch (cp) {
	case '#': case 0xFF03: case 0x2116:
		return " no ";
	case '$': case 0xFF04:
		return " dollar ";
	case '\'': case 0x2019:
		return "";
	default:
		return NULL;
	}
}

/* A word starts inside a run: camelCase ("loadNo"), an acronym before a
 * word ("BOLNumber"), letters against digits ("Address1"). */
static bool boundary(enum cls prev, enum cls cur, enum cls next)
{
	if (prev == C_SEP)
		return false;
	if ((prev == C_DIGIT) != (cur == C_DIGIT))
		return true;
	if (prev == C_LOWER && cur == C_UPPER)
		return true;
	return prev == C_UPPER && cur == C_UPPER && next == C_LOWER;
}

static size_t decode(const char *s, size_t len, int32_t *cps)
{
	size_t n = 0, i = 0;
	if (len > HDR_CAP)
		len = HDR_CAP;
	while (i < len) {
		size_t step;
		cps[n++] = norm_utf8_next(s + i, len - i, &step);
		i += step;
	}
	return n;
}

/* The header with a space wherever a word ends; case is still there, since
 * camelCase needs it.  buf holds HDR_CAP * 9 bytes (" dollar " and a space
 * per code point at most). */
static size_t space_words(const char *s, size_t len, char *buf)
{
	int32_t cps[HDR_CAP];
	size_t n = decode(s, len, cps), o = 0;
	enum cls prev = C_SEP;
	for (size_t i = 0; i < n; i++) {
		const char *sub = special(cps[i]);
		enum cls c = sub ? C_SEP : classify(cps[i]);
		if (sub) {
			memcpy(buf + o, sub, strlen(sub));
			o += strlen(sub);
			prev = *sub ? C_SEP : prev;
			continue;
		}
		if (c == C_SEP) {
			buf[o++] = ' ';
		} else {
			enum cls next = i + 1 < n ? classify(cps[i + 1]) : C_SEP;
			if (c != C_MARK && boundary(prev, c, next))
				buf[o++] = ' ';
			o += (size_t)utf8proc_encode_char(cps[i], (utf8proc_uint8_t *)buf + o);
		}
		if (c != C_MARK)
			prev = c;
	}
	return o;
}

static void add_tok(struct words *w, const char *s, size_t len)
{
	if (len == 0)
		return;
	if (w->n >= TOK_MAX || len >= TOK_LEN) {
		w->junk++;
		return;
	}
	memcpy(w->t[w->n], s, len);
	w->t[w->n][len] = '\0';
	w->n++;
}

static bool word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80;
}

/* Splits the header into lower-case words without accents: compatibility
 * forms too (fullwidth "ＬＯＡＤ" is "load"), so exports from East Asian
 * spreadsheets read the same. */
static void split_words(const char *s, size_t len, struct words *w)
{
	char buf[HDR_CAP * 9];
	size_t blen = space_words(s, len, buf);
	utf8proc_uint8_t *out = NULL;
	utf8proc_ssize_t olen = utf8proc_map(
		(const utf8proc_uint8_t *)buf, (utf8proc_ssize_t)blen, &out,
		UTF8PROC_STABLE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD |
			UTF8PROC_DECOMPOSE | UTF8PROC_STRIPMARK | UTF8PROC_IGNORE);
	for (utf8proc_ssize_t i = 0; i < olen;) {
		utf8proc_ssize_t j = i;
		while (j < olen && word_byte(out[j]))
			j++;
		add_tok(w, (const char *)out + i, (size_t)(j - i));
		i = j > i ? j : i + 1;
	}
	free(out);
}

/* ---- Canonical words: abbreviations, plurals, glued words, typos ---- */

static void add_canon(struct words *w, const char *s, size_t len)
{
	char tmp[TOK_LEN];
	if (len >= TOK_LEN) {
		w->junk++;
		return;
	}
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	const char *c = syn_canon_of(tmp);
	if (c)
		add_tok(w, c, strlen(c));
	else
		add_tok(w, tmp, len);
}

static bool all_digits(const char *s)
{
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A word a glued header may be cut into: a table word, but no stop word
 * ("destin" is no "dest" + "in"). */
static bool glue_piece(const char *s, size_t len)
{
	char tmp[TOK_LEN];
	if (len >= TOK_LEN || !syn_known(s, len))
		return false;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	return !syn_is_stop_word(tmp);
}

/* Cuts a glued header word ("loadno", "shiptozip") into the fewest table
 * words of 2+ letters; false when no cut covers it all. */
static bool split_glued(struct words *w, const char *tok)
{
	size_t len = strlen(tok);
	if (len < 5 || len >= TOK_LEN)
		return false;
	unsigned char best[TOK_LEN], from[TOK_LEN];
	memset(best, 0xff, sizeof best);
	best[0] = 0;
	for (size_t i = 2; i <= len; i++)
		for (size_t j = 0; j + 2 <= i; j++)
			if (best[j] != 0xff && best[j] + 1 < best[i] &&
			    glue_piece(tok + j, i - j)) {
				best[i] = (unsigned char)(best[j] + 1);
				from[i] = (unsigned char)j;
			}
	if (best[len] == 0xff || best[len] < 2)
		return false;
	size_t cuts[TOK_LEN], n = 0;
	for (size_t i = len; i > 0; i = from[i])
		cuts[n++] = i;
	for (size_t k = n, start = 0; k-- > 0; start = cuts[k])
		add_canon(w, tok + start, cuts[k] - start);
	return true;
}

/* Optimal string alignment distance (Damerau-Levenshtein where no
 * substring is edited twice): "wieght" is one transposition from
 * "weight".  Both lengths are below TOK_LEN. */
static int osa_distance(const char *a, size_t la, const char *b, size_t lb)
{
	int d[TOK_LEN + 1][TOK_LEN + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

/* True when b is a 3-letter a with two neighbours swapped ("jbo", "job"). */
static bool is_swap(const char *a, const char *b)
{
	if (strlen(b) != 3)
		return false;
	for (int i = 0; i < 2; i++)
		if (a[i] == b[i + 1] && a[i + 1] == b[i] && a[2 - 2 * i] == b[2 - 2 * i])
			return true;
	return false;
}

/* Edits a typo may have: a 3-letter typo is only a swap ("jbo"), then
 * one up to 6 letters, two from 7 ("metrial"). */
static int max_edits(size_t len)
{
	return len >= 7 ? 2 : 1;
}

/* The one table word closest to tok within max_edits(); NULL when none is,
 * or when two different words are equally close (no guess beats a wrong
 * guess). */
static const char *closest_word(const char *tok)
{
	size_t len = strlen(tok), n;
	if (len < 3 || len > 20)
		return NULL;
	const char *const *v = syn_fuzzy_targets(&n);
	const char *best = NULL;
	int best_d = max_edits(len) + 1;
	bool tie = false;
	for (size_t i = 0; i < n; i++) {
		size_t vl = strlen(v[i]);
		if (vl + (size_t)max_edits(len) < len || vl > len + (size_t)max_edits(len))
			continue;
		if (len == 3 && !is_swap(tok, v[i]))
			continue;
		int d = osa_distance(tok, len, v[i], vl);
		if (d < best_d) {
			best = v[i], best_d = d, tie = false;
		} else if (d == best_d && best && strcmp(best, v[i]) != 0) {
			tie = true;
		}
	}
	return tie ? NULL : best;
}

/* The one table word that starts with tok ("destin", "instruc"); NULL when
 * none or several do. */
static const char *completion(const char *tok)
{
	size_t len = strlen(tok), n;
	if (len < 5) /* "term" of "IncoTerm" is no "terminal" */
		return NULL;
	const char *const *v = syn_fuzzy_targets(&n);
	const char *found = NULL;
	for (size_t i = 0; i < n; i++) {
		if (strlen(v[i]) > len && strncmp(v[i], tok, len) == 0) {
			if (found)
				return NULL;
			found = v[i];
		}
	}
	return found;
}

/* Appends the canonical word(s) of one raw word. */
static void fix_word(struct words *w, const char *tok)
{
	size_t len = strlen(tok);
	if (syn_canon_of(tok) || syn_known(tok, len) || all_digits(tok)) {
		add_canon(w, tok, len);
		return;
	}
	if (len > 3 && tok[len - 1] == 's' && syn_known(tok, len - 1)) {
		add_canon(w, tok, len - 1);
		return;
	}
	if (split_glued(w, tok))
		return;
	const char *guess = closest_word(tok);
	if (!guess)
		guess = completion(tok);
	if (guess) {
		w->fuzzy = true;
		add_canon(w, guess, strlen(guess));
		return;
	}
	add_tok(w, tok, len);
}

/* ---- Phrases: several words that mean one ---- */

/* Number of words of phrase matching w->t[at...]; 0 when they differ. */
static size_t match_at(const struct words *w, size_t at, const char *phrase)
{
	size_t k = at;
	const char *p = phrase;
	while (*p) {
		size_t len = strcspn(p, " ");
		if (k >= w->n || strlen(w->t[k]) != len || memcmp(w->t[k], p, len) != 0)
			return 0;
		k++;
		p += len;
		p += *p == ' ';
	}
	return k - at;
}

/* Rewrites phrases ("ship to" -> "shipto"), then drops stop words and the
 * "1" of "Address 1" (a lone street line is line 1). */
static void join_phrases(const struct words *in, struct words *out)
{
	out->n = 0;
	out->junk = in->junk;
	out->fuzzy = in->fuzzy;
	for (size_t i = 0; i < in->n;) {
		size_t used = 0;
		for (size_t r = 0; r < syn_rewrites_len && !used; r++) {
			used = match_at(in, i, syn_rewrites[r].from);
			if (used)
				add_tok(out, syn_rewrites[r].to, strlen(syn_rewrites[r].to));
		}
		if (!used) {
			used = 1;
			if (!syn_is_stop_word(in->t[i]) && strcmp(in->t[i], "1") != 0)
				add_tok(out, in->t[i], strlen(in->t[i]));
		}
		i += used;
	}
}

static void read_header(const char *s, size_t len, struct words *w)
{
	struct words raw = { .n = 0 }, fixed = { .n = 0 };
	split_words(s, len, &raw);
	fixed.junk = raw.junk;
	for (size_t i = 0; i < raw.n; i++)
		fix_word(&fixed, raw.t[i]);
	join_phrases(&fixed, w);
}

/* ---- Scoring ---- */

struct cand {
	enum field field; /* FIELD_NONE with a score: known to be irrelevant */
	int score;
	bool address;     /* came from the address words */
	int group;        /* the address group it names, or GROUP_BILLING */
	enum propose_reason reason;
};

static bool has_word(const struct words *w, const char *s, size_t len)
{
	for (size_t i = 0; i < w->n; i++)
		if (strlen(w->t[i]) == len && memcmp(w->t[i], s, len) == 0)
			return true;
	return false;
}

static bool has_any(const struct words *w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < w->n; i++)
		for (size_t k = 0; k < n; k++)
			if (!strcmp(w->t[i], list[k]))
				return true;
	return false;
}
#define HAS_ANY(w, list) has_any((w), (list), sizeof(list) / sizeof((list)[0]))

static bool id_head(const char *t)
{
	return !strcmp(t, "no");
}

static bool phrase_has_id_word(const char *phrase)
{
	for (const char *p = phrase; *p;) {
		size_t len = strcspn(p, " ");
		if ((len == 2 && (!memcmp(p, "no", 2) || !memcmp(p, "id", 2))) || (len == 4 && !memcmp(p, "code", 4)))
			return true;
		p += len;
		p += *p == ' ';
	}
	return false;
}

/* Whole header equal to the phrase: its score.  All the phrase's words
 * among more words ("Customer Name" has "customer"): less, the more words
 * the phrase leaves unexplained; a bit more when the phrase ends the
 * header, since English puts the head noun last ("Cust Rate" is a rate,
 * "Rate Type" a type). */
static int synonym_score(const struct words *w, const struct synonym *syn)
{
	size_t np = 0;
	bool all = true, at_end = false, has_id = false;
	for (const char *p = syn->phrase; *p;) {
		size_t len = strcspn(p, " ");
		has_id |= len == 2 && !memcmp(p, "id", 2);
		all = all && has_word(w, p, len);
		np++;
		at_end = w->n > 0 && strlen(w->t[w->n - 1]) == len &&
			 memcmp(w->t[w->n - 1], p, len) == 0;
		p += len;
		p += *p == ' ';
	}
	size_t nh = w->n + w->junk;
	if (w->junk == 0 && match_at(w, 0, syn->phrase) == w->n)
		return syn->score;
	/* An id column is not its entity: "Customer ID" holds no customer
	 * name, "cityID" no city.  Only a phrase with "id" ("Load ID") takes
	 * it. */
	if (has_word(w, "id", 2) && !has_id)
		return 0;
	/* Nor is a number of it ("Customer #", "customerAccountNumber"): a
	 * header that ends in one names an identifier, which only a phrase
	 * with such a word takes ("Load #", "Job No").  Codes are kept:
	 * materials and branches are often named by code. */
	if (w->n > 1 && id_head(w->t[w->n - 1]) && !phrase_has_id_word(syn->phrase))
		return 0;
	/* A status ends the header it is in: "shipment_status", "Load Status"
	 * say how the load stands, not which load it is. */
	bool status = syn->field == FIELD_NONE && at_end && !strcmp(syn->phrase, "status");
	if ((syn->whole && !status) || !all || nh <= np)
		return 0;
	return syn->score * (55 + (int)(35 * np / nh)) / 100 + (at_end ? 5 : 0);
}

/* A column's candidates, best first, one per field: when a better column
 * takes its best field, it gets the next one that scores (PRODUCT §11:
 * "Project" is the project name when "Job Number" took the job code). */
#define MAX_ALTS 4

struct choice {
	struct cand c[MAX_ALTS];
	int n;
};

/* Keeps the MAX_ALTS best candidates, one per field (its best score);
 * equal scores keep the one met first. */
static void add_alt(struct choice *ch, struct cand c)
{
	int at = ch->n;
	for (int i = 0; i < ch->n; i++) {
		if (ch->c[i].field != c.field)
			continue;
		if (c.score <= ch->c[i].score)
			return;
		at = i;   /* a better score for a field already listed */
		break;
	}
	if (at == ch->n) {
		if (ch->n == MAX_ALTS) {
			if (c.score <= ch->c[MAX_ALTS - 1].score)
				return;
			at = MAX_ALTS - 1;
		} else {
			ch->n++;
		}
	}
	ch->c[at] = c;
	for (int i = at; i > 0 && ch->c[i].score > ch->c[i - 1].score; i--) {
		struct cand t = ch->c[i];
		ch->c[i] = ch->c[i - 1];
		ch->c[i - 1] = t;
	}
}

static void synonym_alts(const struct words *w, struct choice *ch)
{
	for (size_t i = 0; i < syn_table_len; i++) {
		int s = synonym_score(w, &syn_table[i]);
		if (s > 0)
			add_alt(ch, (struct cand){ syn_table[i].field, s, false, GROUP_NONE, REASON_SYNONYM });
	}
}

/* What the address words of a header say. */
struct addr {
	int dir;           /* GROUP_PICKUP, GROUP_DROPOFF, GROUP_BILLING, NONE */
	bool dir_weak;     /* set by a word that only hints ("Load" of "LoadDestination") */
	bool project;      /* a project word: the project's group */
	bool strong;       /* a word that alone names a location */
	bool second_line;  /* "Address 2": no field takes it */
	enum addr_part part;
	int other;         /* words that are no address word */
};

static bool has_direction(const struct words *w)
{
	for (size_t i = 0; i < w->n; i++) {
		const struct group_word *g = syn_group_word(w->t[i]);
		if (g && (g->dir == GROUP_PICKUP || g->dir == GROUP_DROPOFF))
			return true;
	}
	return false;
}

/* The first pickup or dropoff word sets the direction; a billing word only
 * when there is none ("Customer Delivery Address" is a delivery). */
static void take_group_word(struct addr *ad, const struct group_word *g)
{
	bool moves = g->dir == GROUP_PICKUP || g->dir == GROUP_DROPOFF;
	/* ... but a word that alone names a place beats one that only hints:
	 * "LoadDestination" is the dropoff. */
	if (moves && (ad->dir == GROUP_NONE || ad->dir == GROUP_BILLING || (ad->dir_weak && g->strong))) {
		ad->dir = g->dir;
		ad->dir_weak = !g->strong;
	} else if (g->dir == GROUP_BILLING && ad->dir == GROUP_NONE) {
		ad->dir = GROUP_BILLING;
	}
	ad->project |= g->project;
	ad->strong |= g->strong;
}

/* Street, city, state and ZIP words outrank name words; the first wins
 * ("City/State" is a city). */
static void take_part_word(struct addr *ad, enum addr_part p)
{
	if (ad->part == PART_NONE || (ad->part == PART_NAME && p != PART_NAME))
		ad->part = p;
}

static void read_address(const struct words *w, struct addr *ad)
{
	bool direction = has_direction(w);
	*ad = (struct addr){ .dir = GROUP_NONE, .part = PART_NONE,
			     .other = (int)w->junk };
	for (size_t i = 0; i < w->n; i++) {
		const char *t = w->t[i];
		const struct group_word *g = syn_group_word(t);
		const struct part_word *p = syn_part_word(t);
		if (g && !(p && direction))
			take_group_word(ad, g);
		else if (p)
			take_part_word(ad, p->part);
		else if (all_digits(t))
			ad->second_line = true;
		else
			ad->other++;
	}
}

/* Project words with no direction mean the job site, which is where a
 * construction job's loads are delivered: the project's dropoff. */
static int address_group(const struct addr *ad)
{
	if (ad->project && ad->dir != GROUP_PICKUP)
		return GROUP_PROJECT_DROPOFF;
	if (ad->project)
		return GROUP_PROJECT_PICKUP;
	return ad->dir;
}

static struct cand addr_cand(enum field f, int score, int group)
{
	return (struct cand){ f, score < 0 ? 0 : score, true, group, REASON_ADDRESS };
}

/* A part with no group word takes the group of the last address column
 * (ctx: "Ship From Name, Address, City"), else the pickup. */
static struct cand unqualified_part(const struct addr *ad, int ctx)
{
	int penalty = 10 * ad->other;
	if (ad->part == PART_NAME)
		return addr_cand(FIELD_NONE, 0, GROUP_NONE);
	if (ctx == GROUP_BILLING)
		return addr_cand(FIELD_NONE, 70 - penalty, GROUP_BILLING);
	if (ctx != GROUP_NONE)
		return addr_cand(field_of_group(ctx, ad->part), 80 - penalty, ctx);
	return addr_cand(field_of_group(GROUP_PICKUP, ad->part), 65 - penalty,
			 GROUP_PICKUP);
}

/* Words of a person or a way to reach one ("Pickup Contact Name", "Sender
 * First Name", "Delivery Phone"), and of a tracking status ("Last State",
 * "Current Location"): no place the load leaves or reaches. */
static bool not_a_place(const struct words *w)
{
	static const char *const no[] = { "contact", "phone", "email", "fax", "attention", "attn", "person",
					  "mobile", "first", "last", "current" };
	return HAS_ANY(w, no);
}

/* A party's name ("shipper_name", "Consignee Name") is the place only when
 * no column names the place itself: beside "pickup" or "Origin" the place
 * is the pickup's name and the party is who ships (heldout_a.txt's
 * labelling note).  Its score is below a place word alone (75). */
static bool party_name(const struct words *w, const struct addr *ad)
{
	static const char *const party[] = { "shipper", "sender", "supplier", "consignee", "receiver",
					     "recipient", "consignor" };
	return ad->part == PART_NAME && !ad->project && HAS_ANY(w, party);
}

static struct cand address_cand(const struct words *w, int ctx)
{
	struct addr ad;
	if (has_word(w, "id", 2) || not_a_place(w))   /* "cityID", "Shipper ID": no address part */
		return addr_cand(FIELD_NONE, 0, GROUP_NONE);
	read_address(w, &ad);
	int g = address_group(&ad);
	if (ad.part == PART_NONE) {
		/* "Consignee", "Origin", "Job Site": the location's name. */
		if (g != GROUP_NONE && g != GROUP_BILLING && ad.strong && ad.other == 0)
			return addr_cand(field_of_group(g, PART_NAME), 75, g);
		return addr_cand(FIELD_NONE, 0, GROUP_NONE);
	}
	if (ad.part == PART_STREET && ad.second_line)
		return addr_cand(FIELD_NONE, 85, g);
	if (g == GROUP_BILLING)
		return addr_cand(FIELD_NONE, ad.part == PART_NAME ? 0 : 85, g);
	if (g != GROUP_NONE)
		return addr_cand(field_of_group(g, ad.part), party_name(w, &ad) ? 70 : 90 - 10 * ad.other, g);
	return unqualified_part(&ad, ctx);
}

/* A billing word alone ("Customer", "Bill To") makes the bare address
 * columns after it the customer's. */
static bool billing_alone(const struct words *w)
{
	const struct group_word *g = w->n == 1 ? syn_group_word(w->t[0]) : NULL;
	return g && g->dir == GROUP_BILLING && w->junk == 0;
}

/* A date the load has: an event of the load and a date word ("Dispatched
 * Time", "date_shipped", "Earliest Availability").  Every spelling of
 * these words is not in the synonym table; the event sets the score, as
 * the synonyms do (a delivery date is only a fallback below a pickup or
 * ship date).  ETD/ATD (departure) stand alone. */
static const struct {
	const char *word;
	int score;
} date_events[] = {
	{ "load", 95 }, { "loaded", 95 }, { "loading", 95 }, { "haul", 92 }, { "ship", 92 },
	{ "shipped", 90 }, { "shipping", 90 }, { "shipment", 88 }, { "pickup", 90 },
	{ "dispatch", 88 }, { "dispatched", 88 }, { "ticket", 85 }, { "scale", 85 },
	{ "collection", 85 }, { "departure", 82 }, { "available", 80 }, { "availability", 80 },
	{ "ready", 80 }, { "service", 80 }, { "delivery", 75 }, { "delivered", 72 },
	{ "arrival", 65 }, { "order", 70 }, { "etd", 78 }, { "atd", 76 },
};

static bool date_word(const char *t, bool *ret_time)
{
	*ret_time = !strcmp(t, "time") || !strcmp(t, "timestamp");
	return *ret_time || !strcmp(t, "date") || !strcmp(t, "day") || !strcmp(t, "earliest");
}

/* Words that make a date no load date: the end of a window, a bill's
 * dates ("Pickup Latest", "Delivery Due"). */
static bool not_load_date(const char *t)
{
	static const char *const no[] = { "latest", "end", "due", "invoice", "bill", "billing", "paid",
					  "expiry", "expiration", "estimated", "planned", "scheduled",
					  /* measures: "Tons Loaded Today" is a quantity */
					  "ton", "tonne", "lb", "kg", "quantity", "weight", "miles", "count" };
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		if (!strcmp(t, no[i]))
			return true;
	return false;
}

static void event_date_alt(const struct words *w, struct choice *ch)
{
	int best = 0;
	bool dated = false, time = false, t;
	for (size_t i = 0; i < w->n; i++) {
		if (not_load_date(w->t[i]))
			return;
		if (date_word(w->t[i], &t))
			dated = true, time |= t;
		for (size_t k = 0; k < sizeof date_events / sizeof date_events[0]; k++)
			if (!strcmp(w->t[i], date_events[k].word) && date_events[k].score > best)
				best = date_events[k].score;
	}
	bool alone = w->n == 1 && (!strcmp(w->t[0], "etd") || !strcmp(w->t[0], "atd"));
	if (best && (dated || alone))
		add_alt(ch, (struct cand){ FIELD_LOAD_DATE, best - (time ? 5 : 0) - (int)(w->n > 2) * 5, false,
					   GROUP_NONE, REASON_SYNONYM });
}

/* The kind of the goods is what the load carries ("cargo_type", "Goods
 * Category", "Product Type"), as "Material Type" is; "Load Type" and
 * "Freight Class" are not (no goods word). */
static void goods_kind_alt(const struct words *w, struct choice *ch)
{
	static const char *const kind[] = { "type", "category", "kind" };
	static const char *const goods[] = { "cargo", "goods", "commodity", "product", "material", "content" };
	if (HAS_ANY(w, kind) && HAS_ANY(w, goods))
		add_alt(ch, (struct cand){ FIELD_MATERIAL, 85, false, GROUP_NONE, REASON_SYNONYM });
}

/* A word that is itself the moment the load moved names its date with no
 * date word: "Departure", "actual_departure", "Dispatched".  A plan word
 * ("scheduled_departure") rules it out (not_load_date). */
static void moment_alt(const struct words *w, struct choice *ch)
{
	static const char *const moment[] = { "departure", "departed", "dispatched", "shipped" };
	static const char *const qualifier[] = { "actual", "real", "confirmed" };
	int other = 0;
	bool found = false;
	for (size_t i = 0; i < w->n; i++) {
		if (not_load_date(w->t[i]))
			return;
		bool m = false;
		for (size_t k = 0; k < sizeof moment / sizeof moment[0]; k++)
			m |= !strcmp(w->t[i], moment[k]);
		for (size_t k = 0; k < sizeof qualifier / sizeof qualifier[0] && !m; k++)
			other -= !strcmp(w->t[i], qualifier[k]);
		found |= m;
		other += !m;
	}
	if (found && other == 0 && w->junk == 0)
		add_alt(ch, (struct cand){ FIELD_LOAD_DATE, 72, false, GROUP_NONE, REASON_SYNONYM });
}

/* Money words make a header a price ("Gross Revenue", "linehaul_usd"): never
 * a weight, a number or a name.  The rate is what the customer pays, so a
 * net amount (a margin) counts less than a gross one. */
static bool money_words(const struct words *w)
{
	static const char *const money[] = { "rate", "price", "cost", "charge", "amount", "pay", "dollar",
					     "revenue", "fee", "linehaul", "profit", "margin" };
	for (size_t i = 0; i < w->n; i++)
		for (size_t k = 0; k < sizeof money / sizeof money[0]; k++)
			if (!strcmp(w->t[i], money[k]))
				return true;
	return false;
}

/* Money that is not what the customer pays for the haul: a margin, the
 * goods' declared value, taxes and what is owed ("profit_inr", "Declared
 * Value ($)", "VAT Amount", "Balance Due"). */
static bool not_the_rate(const struct words *w)
{
	static const char *const no[] = { "profit", "margin", "value", "tax", "vat", "duty", "customs",
					  "discount", "deposit", "balance", "insurance", "insured" };
	return HAS_ANY(w, no);
}

static void money_only(const struct words *w, struct choice *ch)
{
	int kept = 0;
	if (!money_words(w))
		return;
	if (not_the_rate(w)) {
		ch->n = 0;
		add_alt(ch, (struct cand){ FIELD_NONE, 80, false, GROUP_NONE, REASON_SYNONYM });
		return;
	}
	for (int i = 0; i < ch->n; i++) {
		struct cand c = ch->c[i];
		if (c.field != FIELD_RATE && c.field != FIELD_NONE)
			continue;
		if (c.field == FIELD_RATE && has_word(w, "net", 3))
			c.score -= 10;
		else if (c.field == FIELD_RATE && has_word(w, "gross", 5))
			c.score += 5;
		ch->c[kept++] = c;
	}
	ch->n = kept;
}

/* Words of a record's creation or modification time ("Date Created",
 * "Last Modified", "updated_at"): never the day the load moved while a
 * real date column exists (PRODUCT §14). */
static bool audit_words(const struct words *w)
{
	static const char *const audit[] = { "created", "creation", "create", "modified", "modification",
					     "updated", "update", "entered", "inserted", "timestamp", "changed",
					     "edited", "posted", "imported", "added" };
	for (size_t i = 0; i < w->n; i++)
		for (size_t k = 0; k < sizeof audit / sizeof audit[0]; k++)
			if (!strcmp(w->t[i], audit[k]))
				return true;
	return false;
}

/* The candidates of one header (ch->n == 0: nothing to propose).  A known
 * irrelevant column ("Driver") ends the list: it is ignored, never given a
 * weaker field. */
static void propose_one(const char *s, size_t len, int *ctx, struct choice *ch, bool *ret_audit)
{
	ch->n = 0;
	*ret_audit = false;
	size_t tlen;
	const char *t = norm_trim(s, len, &tlen);
	if (tlen == 0)
		return;
	enum field f = wire_field(t, tlen);
	if (f != FIELD_NONE) {
		/* Wire names set the context too ("customer, Address"). */
		if (f == FIELD_CUSTOMER)
			*ctx = GROUP_BILLING;
		else if (field_group(f) != GROUP_NONE)
			*ctx = field_group(f);
		add_alt(ch, (struct cand){ f, 100, false, field_group(f), REASON_NAME });
		return;
	}
	struct words w = { .n = 0 };
	read_header(t, tlen, &w);
	if (w.n == 0) /* only symbols, control bytes or junk: nothing to read */
		return;
	*ret_audit = audit_words(&w);
	synonym_alts(&w, ch);
	event_date_alt(&w, ch);
	moment_alt(&w, ch);
	goods_kind_alt(&w, ch);
	money_only(&w, ch);
	struct cand a = address_cand(&w, *ctx);
	if (a.score > 0)
		add_alt(ch, a);
	int kept = 0;
	for (int i = 0; i < ch->n; i++) {
		struct cand c = ch->c[i];
		if (w.fuzzy)
			c.score = c.score * 9 / 10, c.reason = REASON_FUZZY;
		if (c.score < MIN_SCORE)
			break;
		ch->c[kept++] = c;
		if (c.field == FIELD_NONE)
			break;
	}
	ch->n = kept;
	if (kept && ch->c[0].address && ch->c[0].group != GROUP_NONE)
		*ctx = ch->c[0].group;
	else if (billing_alone(&w))
		*ctx = GROUP_BILLING;
}


/* ---- The scoring model: header evidence, values, learning ---- */

#define VALUES_SCORE 60  /* a field the values alone decide */
#define MISFIT_PENALTY 40

struct column {
	struct choice ch;        /* candidates, best first */
	struct value_profile vp;
	bool audit;              /* a creation or modification time */
	enum field misfit;       /* the header's field its values ruled out */
	bool record_id;          /* the header is "id": the record's own key */
	enum field timestamp;    /* loadDate taken away by the audit rule */
};

static void sort_choice(struct choice *ch)
{
	for (int i = 1; i < ch->n; i++)
		for (int j = i; j > 0 && ch->c[j].score > ch->c[j - 1].score; j--) {
			struct cand t = ch->c[j];
			ch->c[j] = ch->c[j - 1];
			ch->c[j - 1] = t;
		}
}

/* Drops candidates below MIN_SCORE and everything after a known
 * irrelevant one (it ends the list, as in propose_one). */
static void prune(struct choice *ch)
{
	int kept = 0;
	for (int i = 0; i < ch->n; i++) {
		if (ch->c[i].score < MIN_SCORE)
			continue;
		ch->c[kept++] = ch->c[i];
		if (ch->c[i].field == FIELD_NONE)
			break;
	}
	ch->n = kept;
}

/* Fields values can decide when the header says nothing: their shape is
 * hardly anything else ("24.5 tons", "$1,200.00", "lb"). */
static const enum field by_values[] = { FIELD_WEIGHT, FIELD_WEIGHT_UNIT, FIELD_RATE, FIELD_TRUCK_TYPE };

/* The values confirm (a little), rule out (a lot) or, when the header is
 * not decisive, propose a field.  A wire name or a learned header is
 * what the admin said: the values do not overrule it. */
static void weigh_values(struct column *c)
{
	struct choice *ch = &c->ch;
	if (c->vp.n < VP_MIN_VALUES)
		return;
	for (int i = 0; i < ch->n; i++) {
		struct cand *x = &ch->c[i];
		if (x->field == FIELD_NONE || x->reason == REASON_NAME || x->reason == REASON_LEARNED)
			continue;
		int fit = vp_fit(&c->vp, x->field);
		if (fit <= -100 && x->score >= MIN_SCORE) {
			if (c->misfit == FIELD_NONE)
				c->misfit = x->field;
			x->score -= MISFIT_PENALTY;
		} else if (fit >= 60 && x->score < 100) {
			x->score += 5;
		}
	}
	/* A generic irrelevant word ("Type", score 80) yields to values that
	 * are clearly a field's; a named irrelevant column ("Driver") never. */
	bool irrelevant = ch->n && ch->c[ch->n - 1].field == FIELD_NONE && ch->c[ch->n - 1].score >= 90;
	bool decisive = ch->n && ch->c[0].score >= MIN_SCORE && ch->c[0].field != FIELD_NONE;
	for (size_t k = 0; k < sizeof by_values / sizeof by_values[0] && !irrelevant && !decisive; k++) {
		if (vp_fit(&c->vp, by_values[k]) < 80)
			continue;
		if (ch->n && ch->c[ch->n - 1].field == FIELD_NONE)
			ch->n--;
		add_alt(ch, (struct cand){ by_values[k], VALUES_SCORE, false, GROUP_NONE, REASON_VALUES });
	}
	sort_choice(ch);
	prune(ch);
}

static enum field learned_field(struct arena *a, const char *h, size_t len, const struct propose_input *in, bool *ret_found)
{
	*ret_found = false;
	if (!in || !in->nlearned)
		return FIELD_NONE;
	const char *key = propose_header_key(a, h, len);
	for (size_t i = 0; i < in->nlearned; i++)
		if (in->learned[i].key && !strcmp(in->learned[i].key, key)) {
			*ret_found = true;
			return in->learned[i].field <= FIELD_NONE ? in->learned[i].field : FIELD_NONE;
		}
	return FIELD_NONE;
}

/* A creation or modification time never takes loadDate while another
 * column's header names a date the load has (ship, pickup, load,
 * delivery: every loadDate synonym is one). */
static void timestamp_rule(struct column *col, size_t n)
{
	bool real_date = false;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < col[i].ch.n && !col[i].audit; k++)
			real_date |= col[i].ch.c[k].field == FIELD_LOAD_DATE;
	for (size_t i = 0; i < n && real_date; i++) {
		struct choice *ch = &col[i].ch;
		int kept = 0;
		for (int k = 0; k < ch->n; k++) {
			if (col[i].audit && ch->c[k].field == FIELD_LOAD_DATE)
				col[i].timestamp = FIELD_LOAD_DATE;
			else
				ch->c[kept++] = ch->c[k];
		}
		ch->n = kept;
	}
}

/* "id", "ID", "_id": the key of the record the row was exported from. */
static bool is_record_id(const char *s, size_t len)
{
	size_t tlen;
	const char *t = norm_trim(s, len, &tlen);
	while (tlen && *t == '_')
		t++, tlen--;
	return tlen == 2 && !strncasecmp(t, "id", 2);
}

/* The candidates of every column: learned, else header then values. */
static void gather(const char *const *headers, const size_t *lens, size_t n, const struct propose_input *in,
		   struct column *col)
{
	struct arena *a = arena_new();
	int ctx = GROUP_NONE;
	for (size_t i = 0; i < n; i++) {
		struct column *c = &col[i];
		bool found;
		c->misfit = c->timestamp = FIELD_NONE;
		if (in && in->nsamples)
			vp_read(in->samples, in->nsamples < PROPOSE_SAMPLE_ROWS ? in->nsamples : PROPOSE_SAMPLE_ROWS,
				i, &c->vp);
		enum field lf = learned_field(a, slice(headers, i), slice_len(lens, i), in, &found);
		c->record_id = is_record_id(slice(headers, i), slice_len(lens, i));
		propose_one(slice(headers, i), slice_len(lens, i), &ctx, &c->ch, &c->audit);
		if (found) {
			c->ch.n = 1;
			c->ch.c[0] = (struct cand){ lf, 100, false, field_group(lf), REASON_LEARNED };
		} else {
			weigh_values(c);
		}
		arena_reset(a);
	}
	arena_free(a);
	timestamp_rule(col, n);
}

/* Runs the assignment over every column's candidates. */
static void assign_all(const struct column *col, size_t n, struct proposal *ret, bool *lost)
{
	size_t nc = 0;
	struct assign_cand *c = n ? calloc(n * MAX_ALTS, sizeof(*c)) : NULL;
	long *pick = n ? calloc(n, sizeof(*pick)) : NULL;
	const struct cand **from = n ? calloc(n * MAX_ALTS, sizeof(*from)) : NULL;
	if (n && (!c || !pick || !from))
		abort();
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < col[i].ch.n; k++) {
			from[nc] = &col[i].ch.c[k];
			c[nc++] = (struct assign_cand){ i, col[i].ch.c[k].field, col[i].ch.c[k].score };
		}
	assign_fields(c, nc, n, pick, lost);
	for (size_t i = 0; i < n; i++) {
		const struct cand *x = pick[i] >= 0 ? from[pick[i]] : NULL;
		ret[i] = (struct proposal){ FIELD_NONE, 0, lost[i], REASON_NONE, FIELD_NONE, vp_describe(&col[i].vp) };
		if (x) {
			ret[i].field = x->field;
			ret[i].confidence = x->score > 100 ? 100 : x->score;
			ret[i].reason = x->field == FIELD_NONE && x->reason != REASON_LEARNED ? REASON_IRRELEVANT : x->reason;
		}
	}
	free(c);
	free(pick);
	free(from);
}

/* With no load number named or guessed, the record's own id is the load's
 * key (a loads table exported whole): the first "id" column still
 * ignored whose values, if any, do not rule it out. */
static size_t record_id_column(const struct column *col, size_t n, const struct proposal *ret)
{
	for (size_t i = 0; i < n; i++)
		if (col[i].record_id && ret[i].field == FIELD_NONE && ret[i].reason != REASON_LEARNED &&
		    vp_fit(&col[i].vp, FIELD_LOAD_NO) >= 0)
			return i;
	return SIZE_MAX;
}

/* A required field no header named takes the ignored column its values
 * fit best (PRODUCT §14): never a column the header calls irrelevant or
 * the organization left on "Ignore", and a creation time only when no
 * other column holds dates.  The earlier column wins a tie. */
static void guess_required(const struct column *col, size_t n, struct proposal *ret)
{
	bool have[FIELD__COUNT] = { false };
	for (size_t i = 0; i < n; i++)
		if (ret[i].field != FIELD_NONE)
			have[ret[i].field] = true;
	for (int f = 0; f < FIELD__COUNT; f++) {
		if (!field_required((enum field)f) || have[f])
			continue;
		size_t best = SIZE_MAX;
		int best_fit = 59;
		for (size_t i = 0; i < n; i++) {
			if (ret[i].field != FIELD_NONE || ret[i].reason == REASON_IRRELEVANT ||
			    ret[i].reason == REASON_LEARNED)
				continue;
			int fit = vp_fit(&col[i].vp, (enum field)f) - (col[i].audit ? 20 : 0);
			if (fit > best_fit)
				best = i, best_fit = fit;
		}
		if (best == SIZE_MAX && f == FIELD_LOAD_NO)
			best = record_id_column(col, n, ret);
		if (best == SIZE_MAX)
			continue;
		ret[best] = (struct proposal){ (enum field)f, best_fit, false, REASON_GUESSED, FIELD_NONE,
					       vp_describe(&col[best].vp) };
		have[f] = true;
	}
}

/* Why each column left on "Ignore" was left there. */
static void ignore_reasons(const struct column *col, size_t n, struct proposal *ret)
{
	for (size_t i = 0; i < n; i++) {
		struct proposal *p = &ret[i];
		if (p->field != FIELD_NONE || p->reason == REASON_IRRELEVANT || p->reason == REASON_LEARNED)
			continue;
		if (p->conflict) {
			p->reason = REASON_CONFLICT;
			p->other = col[i].ch.n ? col[i].ch.c[0].field : FIELD_NONE;
		} else if (col[i].timestamp != FIELD_NONE) {
			p->reason = REASON_TIMESTAMP;
			p->other = col[i].timestamp;
		} else if (col[i].misfit != FIELD_NONE) {
			p->reason = REASON_MISFIT;
			p->other = col[i].misfit;
		}
	}
}

void propose_mapping_with(const char *const *headers, const size_t *lens, size_t n,
			  const struct propose_input *in, struct proposal *ret)
{
	struct column *col = n ? calloc(n, sizeof(*col)) : NULL;
	bool *lost = n ? calloc(n, sizeof(*lost)) : NULL;
	if (n && (!col || !lost))
		abort();
	gather(headers, lens, n, in, col);
	assign_all(col, n, ret, lost);
	guess_required(col, n, ret);
	ignore_reasons(col, n, ret);
	free(col);
	free(lost);
}

void propose_mapping(const char *const *headers, const size_t *lens, size_t n,
		     struct proposal *ret)
{
	propose_mapping_with(headers, lens, n, NULL, ret);
}

char *propose_header_key(struct arena *a, const char *header, size_t len)
{
	size_t clen;
	char *c = clean_header(a, header, len, &clen);
	char *k = name_key(a, c, clen);
	return k ? k : arena_strdup(a, "");
}

const char *propose_reason_text(enum propose_reason r)
{
	static const char *const text[REASON__COUNT] = {
		[REASON_NONE] = "nothing in the header or the values fits a field",
		[REASON_NAME] = "the header is the field's name",
		[REASON_SYNONYM] = "the header is a known name of the field",
		[REASON_FUZZY] = "the header, read with a typo or short word corrected, is a known name of the field",
		[REASON_ADDRESS] = "the header names an address part and whose address it is",
		[REASON_VALUES] = "its values fit the field and the header names no other",
		[REASON_GUESSED] = "guessed from the values: no header names this required field",
		[REASON_LEARNED] = "learned: an admin of your organization confirmed this header so before",
		[REASON_IRRELEVANT] = "the header names something no field of the jobs schema takes",
		[REASON_CONFLICT] = "another column fits its field better",
		[REASON_MISFIT] = "its values cannot be the field its header suggests",
		[REASON_TIMESTAMP] = "a creation or modification time is not the load's date, and another column has that date",
	};
	return r < REASON__COUNT && text[r] ? text[r] : "";
}
