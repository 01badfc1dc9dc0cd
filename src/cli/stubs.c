/* Temporary: subcommands not yet wired. */
#include <stdio.h>
#include "cli.h"
int cli_serve(int argc, char **argv) { (void)argc; (void)argv; fputs("serve: not yet\n", stderr); return 1; }
int cli_worker(int argc, char **argv) { (void)argc; (void)argv; return 1; }
int cli_migrate(int argc, char **argv) { (void)argc; (void)argv; return 1; }
int cli_admin(int argc, char **argv) { (void)argc; (void)argv; return 1; }
int cli_docs(int argc, char **argv) { (void)argc; (void)argv; return 0; }
