/* bench-capacity.h: read lag, CPU and memory of many concurrent streaming probes.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "bench-util.h"

G_BEGIN_DECLS

JsonNode *bench_capacity_run   (const BenchConfig  *config,
                                GError            **error);
/* The measured side of one level, in a process of its own; prints one JSON line. */
int       bench_capacity_child (guint               concurrency,
                                guint               streams,
                                double              rate,
                                const char         *url);

G_END_DECLS
