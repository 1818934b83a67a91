/* bench-draw.h: chart painter frame times and the time and memory to open a big session.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "bench-util.h"

G_BEGIN_DECLS

JsonNode *bench_draw_run           (const BenchConfig  *config,
                                    GError            **error);
/* Opens one session file in a process of its own; prints one JSON line. */
int       bench_session_load_child (const char         *path);

G_END_DECLS
