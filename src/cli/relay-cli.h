/* relay-cli.h: relayscope-cli, the headless front end of the probe engine.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "relay-session.h"

G_BEGIN_DECLS

/* Exit statuses of the CLI contract (DESIGN.md §3). */
typedef enum
{
  RELAY_CLI_EXIT_OK = 0,
  RELAY_CLI_EXIT_PROBE_FAILED = 1,
  RELAY_CLI_EXIT_USAGE = 2,
  RELAY_CLI_EXIT_BUDGET = 3,
} RelayCliExit;

int    relay_cli_run          (int            argc,
                               char         **argv);

/* The summary table, as printed (plain text, one line per endpoint × model). */
char  *relay_cli_format_table (RelaySession  *session);
/* The summary as JSON (rows and errors), as printed by --json. */
char  *relay_cli_format_json  (RelaySession  *session);
/* One line per failed trace, for the report after the table; NULL when none failed. */
char  *relay_cli_format_errors (RelaySession *session);

G_END_DECLS
