/* relay-prometheus.h: a session's figures in the Prometheus text exposition format, for a
 * node exporter's textfile collector or a push gateway.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "relay-session.h"

G_BEGIN_DECLS

/* Summaries per endpoint × model (relayscope_ttft_seconds{endpoint,model,quantile} and the
 * other stages, relayscope_output_tokens_per_second) with _sum and _count, and counters of
 * probes and of errors by stage. Cancelled probes are left out. */
char       *relay_prometheus_format        (RelaySession *session);
/* A label value escaped as the format requires (backslash, double quote, line feed). */
char       *relay_prometheus_escape_label  (const char   *value);

G_END_DECLS
