/* loadline inspect FILE: placeholder until the readers land. */
#include <stdio.h>
#include "cli.h"
int cli_inspect(int argc, char **argv) { (void)argc; (void)argv; fputs("inspect: not yet\n", stderr); return 1; }
