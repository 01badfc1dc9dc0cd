/* Pages not written yet (temporary). */
#include "web/page.h"

static void todo(struct web_req *w)
{
	web_error(w, 501, "Not yet", "This page is not built yet.");
}

const struct web_handler page_oidc_start = {todo}, page_oidc_callback = {todo};
