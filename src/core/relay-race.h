/* relay-race.h: a race: the same request sent to several endpoints at the same instant,
 * round after round; endpoints ranked with paired differences, so that noise shared by a
 * round (the client's network, the time of day) cancels.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "relay-session.h"
#include "relay-stats.h"
#include "relay-summary.h"

G_BEGIN_DECLS

/* One entrant (a run: endpoint × model). Figures in ms, or tokens/s for
 * RELAY_METRIC_TOKENS_PER_SECOND. */
typedef struct
{
  char               *endpoint;
  char               *model;
  guint               run;        /* index in the session's runs */
  guint               rounds;     /* rounds that gave a value */
  guint               errors;     /* rounds that failed */
  double              median;     /* of the metric over its rounds */
  guint               wins;       /* rounds in which it was the fastest */
  guint               pairs;      /* rounds shared with the leader */
  RelayStatsInterval  paired;     /* median of (this − leader) per shared round, with its
                                   * bootstrap interval; 0 for the leader itself */
  RelayWilcoxon       test;       /* signed-rank test of those differences */
} RelayRaceEntry;

/* The entrants are the runs that started together (the same "started" time, as the prober
 * gives every run of one plan); with several such groups, the last. A round is the traces
 * with the same seq. The result is ranked by median, fastest first (highest for tokens/s),
 * and is freed with g_ptr_array_unref. Errors are G_IO_ERROR_NOT_FOUND when the session
 * holds no race (fewer than two runs started together). */
GPtrArray  *relay_race_rank   (RelaySession  *session,
                               RelayMetric    metric,
                               guint32        seed,
                               GError       **error);
/* The ranking as a text table and a sentence naming the fastest. */
char       *relay_race_format (GPtrArray     *entries,
                               RelayMetric    metric);
JsonNode   *relay_race_to_json (GPtrArray    *entries,
                               RelayMetric    metric);

G_END_DECLS
