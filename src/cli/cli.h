/* Subcommands of the `loadline` program.  Each takes the arguments after its
 * own name (argv[0] is the subcommand) and returns the process exit status. */
#ifndef LOADLINE_CLI_CLI_H
#define LOADLINE_CLI_CLI_H

int cli_serve(int argc, char **argv);
int cli_worker(int argc, char **argv);
int cli_migrate(int argc, char **argv);
int cli_admin(int argc, char **argv);
int cli_inspect(int argc, char **argv);
int cli_docs(int argc, char **argv);
int cli_push(int argc, char **argv);
int cli_runs(int argc, char **argv);

#endif
