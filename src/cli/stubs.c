/* Subcommands whose modules have not landed yet. */
#include <stdio.h>

#include "cli.h"

int cli_worker(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("loadline: worker: the import workers are not built yet\n", stderr);
	return 1;
}
