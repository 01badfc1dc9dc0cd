/* Subcommands of the `loadline` program.  Each takes the application object
 * and the arguments after its own name (argv[0] is the subcommand) and
 * returns the process exit status. */
#ifndef LOADLINE_CLI_CLI_H
#define LOADLINE_CLI_CLI_H

struct app;

/* app carries the configuration (from the environment and --db); a
 * subcommand that needs the database opens app->store itself. */
int cli_serve(struct app *app, int argc, char **argv);
int cli_worker(struct app *app, int argc, char **argv);
int cli_migrate(struct app *app, int argc, char **argv);
int cli_admin(struct app *app, int argc, char **argv);
int cli_admin_copy_db(struct app *app, int argc, char **argv);   /* admin copy-db */
int cli_admin_backup(struct app *app, int argc, char **argv);    /* admin backup */
int cli_inspect(struct app *app, int argc, char **argv);
int cli_docs(struct app *app, int argc, char **argv);
/* The API client (PRODUCT §9): talks HTTP to a server, not to a database. */
int cli_push(struct app *app, int argc, char **argv);
int cli_runs(struct app *app, int argc, char **argv);
int cli_run_view(struct app *app, int argc, char **argv);   /* `runs view ID` */
int cli_results(struct app *app, int argc, char **argv);
int cli_failed_rows(struct app *app, int argc, char **argv);
int cli_rerun(struct app *app, int argc, char **argv);
int cli_revert(struct app *app, int argc, char **argv);
int cli_cancel(struct app *app, int argc, char **argv);
int cli_whoami(struct app *app, int argc, char **argv);
int cli_webhooks(struct app *app, int argc, char **argv);

#endif
