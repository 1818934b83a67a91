/* relay-cli-private.h: what the files of relayscope-cli share: the commands beyond probe and
 * show, and the helpers for errors and session files.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "relay-cli.h"
#include "relay-summary.h"

G_BEGIN_DECLS

/* Prints "relayscope-cli COMMAND: MESSAGE" and a hint to --help on stderr. */
void           _relay_cli_usage_error   (const char   *command,
                                         const char   *message);
/* Loads a session file, or prints why not (the caller exits with status 2). */
RelaySession  *_relay_cli_load_session  (const char   *command,
                                         const char   *path);
/* A stage name of the table ("ttft", "tokens_per_s", …) or a common alias ("tps", "itl"). */
gboolean       _relay_cli_parse_metric  (const char   *name,
                                         RelayMetric  *metric);
/* Prints a race's ranking of session; FALSE (with a message on stderr) when it holds none. */
gboolean       _relay_cli_print_race    (RelaySession *session,
                                         RelayMetric   metric,
                                         gboolean      json);
/* Writes the session's figures in Prometheus text format to path, atomically. */
gboolean       _relay_cli_write_prometheus (RelaySession *session,
                                         const char   *path);

int            _relay_cli_compare       (int           argc,
                                         char        **argv);
int            _relay_cli_check         (int           argc,
                                         char        **argv);
int            _relay_cli_export        (int           argc,
                                         char        **argv);
int            _relay_cli_curl          (int           argc,
                                         char        **argv);

/* The CLI's key lookup: the endpoint's environment variable, a dummy key for the
 * simulated relays. Runs on the prober's thread. */
char          *_relay_cli_key_func      (RelayEndpoint *endpoint,
                                         gpointer       user_data);

G_END_DECLS
