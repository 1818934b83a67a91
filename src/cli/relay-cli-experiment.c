/* relay-cli-experiment.c: "relayscope-cli experiment NAME". */

#include "config.h"

#include "relay-cli.h"
#include "relay-cli-experiment.h"

int
relay_cli_experiment (int    argc,
                      char **argv)
{
  g_printerr ("relayscope-cli experiment: not available yet\n");
  return RELAY_CLI_EXIT_USAGE;
}
