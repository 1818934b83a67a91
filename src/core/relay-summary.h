/* relay-summary.h: per endpoint × model figures of a session (the comparison table).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "relay-session.h"
#include "relay-stats.h"

G_BEGIN_DECLS

typedef enum
{
  RELAY_METRIC_DNS,                /* ms, cold connections only */
  RELAY_METRIC_TCP,                /* ms */
  RELAY_METRIC_TLS,                /* ms, the handshake */
  RELAY_METRIC_WAIT,               /* ms, request sent → response headers (TTFB wait) */
  RELAY_METRIC_TTFT,               /* ms, start → first token */
  RELAY_METRIC_ITL,                /* ms, gaps between chunks, pooled over traces */
  RELAY_METRIC_TOKENS_PER_SECOND,  /* output tokens/s, first → last token */
  RELAY_METRIC_TOTAL,              /* ms, start → end */
  RELAY_N_METRICS
} RelayMetric;

typedef struct
{
  char       *endpoint;
  char       *model;
  guint       n;         /* traces */
  guint       errors;    /* traces with an error */
  gboolean    tokens_estimated;
  RelayStats  stats[RELAY_N_METRICS];
} RelaySummaryRow;

const char *relay_metric_to_string (RelayMetric metric);

/* Rows in order of first appearance of endpoint × model; free with g_ptr_array_unref. */
GPtrArray  *relay_summarize        (RelaySession *session);
/* One trace's value for a metric (ms or tokens/s); NAN when absent. ITL gives the median gap. */
double      relay_trace_get_metric (RelayTrace   *trace,
                                    RelayMetric   metric);

G_END_DECLS
