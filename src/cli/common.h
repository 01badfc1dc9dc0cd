/* Helpers shared by the subcommands. */
#ifndef LOADLINE_CLI_COMMON_H
#define LOADLINE_CLI_COMMON_H

#include "app/app.h"
#include "store/store.h"

/* Value of "--name VALUE" or "--name=VALUE" in argv[1..argc), or NULL. */
const char *opt(int argc, char **argv, const char *name);
/* True when the bare flag appears. */
int flag(int argc, char **argv, const char *name);
/* Checks that every "--x" in argv[1..) is one of allowed (NULL-terminated
 * list of names that take a value) or of bools (flags without a value, may
 * be NULL); prints the problem and returns -1. */
int opts_check(int argc, char **argv, const char *const *allowed, const char *const *bools,
	       const char *usage);
/* Opens the store named by app->cfg.db into app->store and applies
 * migrations; prints the reason and returns NULL on failure. */
struct store *cli_store(struct app *app, int pool);
/* Opens the geocoder (app->geo; LOADLINE_GAZETTEER): 0, or -1 with a message. */
int cli_geocoder(struct app *app);

#endif
