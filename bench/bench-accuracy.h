/* bench-accuracy.h: timing error of Relayscope, curl and the openai npm client against the
 * simulated relay's own stamps.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "bench-util.h"

G_BEGIN_DECLS

JsonNode *bench_accuracy_run (const BenchConfig  *config,
                              GError            **error);

G_END_DECLS
