/* relay-cli-experiment.h: "relayscope-cli experiment NAME": guided experiments and findings.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* argv[0] is "experiment". Returns an exit status of the CLI contract. */
int relay_cli_experiment (int    argc,
                          char **argv);

G_END_DECLS
