/* Delivery of the outbox over SMTP (libcurl), with retries and backoff.  A
 * mail server that is down never fails or slows an API request: requests
 * only write to the outbox; this thread does the talking. */
#ifndef LOADLINE_MAIL_MAILER_H
#define LOADLINE_MAIL_MAILER_H

#include "store/outbox.h"

struct mailer;
struct notify;

/* Starts the delivery thread when smtp_url (LOADLINE_SMTP_URL) is set;
 * NULL (and nothing to stop) otherwise.  It sleeps on n's NOTIFY_MAIL
 * sleeper (queued mail wakes it, here or in another process; n NULL: it
 * looks every second).  libcurl must be initialised before. */
struct mailer *mailer_start(struct store *st, struct notify *n, const char *smtp_url, const char *from);
void mailer_stop(struct mailer *m);
/* Wakes the delivery thread (a mail was just queued); mailer is a struct
 * mailer * or NULL (the shape of an app_hook). */
void mailer_notify(void *mailer);

/* Sends one mail now.  Returns 0, or -1 with a reason in err. */
int smtp_send(const char *smtp_url, const char *from, const struct outbox_mail *m, char *err, size_t errlen);
/* The RFC 5322 message text of m (malloc'd). */
char *mail_message(const char *from, const struct outbox_mail *m);

#endif
