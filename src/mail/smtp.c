/* One SMTP delivery with libcurl. */
#include <curl/curl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/ids.h"
#include "mailer.h"

#define MAIL_MAX (256 * 1024)

/* "Name <a@b>" -> "<a@b>"; "a@b" -> "<a@b>". */
static void envelope(const char *addr, char *out, size_t n)
{
	const char *lt = strchr(addr, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	if (lt && gt)
		snprintf(out, n, "%.*s", (int)(gt - lt + 1), lt);
	else
		snprintf(out, n, "<%s>", addr);
}

/* RFC 2047 encoded-word for non-ASCII header text (file names may be). */
static void header_text(struct buf *b, const char *s)
{
	bool ascii = true;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p >= 0x80 || *p < 0x20)
			ascii = false;
	if (ascii) {
		buf_puts(b, s);
		return;
	}
	size_t n = strlen(s);
	size_t cap = sodium_base64_ENCODED_LEN(n, sodium_base64_VARIANT_ORIGINAL);
	char *enc = malloc(cap);
	if (!enc)
		return;
	sodium_bin2base64(enc, cap, (const unsigned char *)s, n, sodium_base64_VARIANT_ORIGINAL);
	buf_printf(b, "=?UTF-8?B?%s?=", enc);
	free(enc);
}

char *mail_message(const char *from, const struct outbox_mail *m)
{
	struct buf b;
	buf_init(&b, MAIL_MAX);
	char date[64];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", &tm);
	buf_printf(&b, "Date: %s\r\nFrom: %s\r\nTo: ", date, from);
	/* Addresses are checked where they are configured; a control character
	 * here would start a header of its own, so it never passes. */
	for (const char *p = m->recipients; *p; p++)
		buf_puts(&b, *p == ',' ? ", " : (unsigned char)*p < 0x20 || *p == 0x7F ? " " : (char[]){*p, 0});
	buf_puts(&b, "\r\nSubject: ");
	header_text(&b, m->subject);
	buf_printf(&b, "\r\nMessage-ID: <%s@loadline>\r\nMIME-Version: 1.0\r\n"
		   "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n"
		   "X-Loadline-Run: %s\r\n\r\n", m->id, m->run_id);
	for (const char *p = m->body; *p; p++) {
		if (*p == '\n' && (p == m->body || p[-1] != '\r'))
			buf_putc(&b, '\r');
		buf_putc(&b, *p);
	}
	return buf_steal(&b, NULL);
}

struct reader {
	const char *data;
	size_t len, off;
};

static size_t read_cb(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct reader *r = userdata;
	size_t want = size * nmemb, left = r->len - r->off;
	size_t n = want < left ? want : left;
	memcpy(ptr, r->data + r->off, n);
	r->off += n;
	return n;
}

int smtp_send(const char *smtp_url, const char *from, const struct outbox_mail *m, char *err, size_t errlen)
{
	CURL *c = curl_easy_init();
	if (!c) {
		snprintf(err, errlen, "curl init failed");
		return -1;
	}
	char env_from[320];
	envelope(from, env_from, sizeof env_from);
	struct curl_slist *rcpt = NULL;
	char *list = strdup(m->recipients), *save = NULL;
	if (!list) {
		curl_easy_cleanup(c);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (char *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
		char e[320];
		envelope(a, e, sizeof e);
		rcpt = curl_slist_append(rcpt, e);
	}
	free(list);
	char *msg = mail_message(from, m);
	struct reader rd = {msg ? msg : "", msg ? strlen(msg) : 0, 0};
	char ebuf[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(c, CURLOPT_URL, smtp_url);
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, env_from);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(c, CURLOPT_READDATA, &rd);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	CURLcode rc = curl_easy_perform(c);
	if (rc != CURLE_OK)
		snprintf(err, errlen, "%s", *ebuf ? ebuf : curl_easy_strerror(rc));
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(c);
	free(msg);
	return rc == CURLE_OK ? 0 : -1;
}
