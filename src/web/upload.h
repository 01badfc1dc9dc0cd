/* The web app's file upload (upload.c): the multipart body of "Import a
 * file", streamed (internal to src/web). */
#ifndef LOADLINE_WEB_UPLOAD_H
#define LOADLINE_WEB_UPLOAD_H

#include <stdbool.h>
#include <stddef.h>

struct web_req;

/* Starts reading a multipart/form-data body into w->upload; false when the
 * spool cannot be opened or the boundary is missing. */
bool web_upload_begin(struct web_req *w, const char *content_type);
void web_upload_feed(struct web_req *w, const char *data, size_t size);
/* The body has ended: its small fields become w->form (CSRF token,
 * checkbox).  0, or -1 when the body was not a valid form. */
int web_upload_end(struct web_req *w);

#endif
