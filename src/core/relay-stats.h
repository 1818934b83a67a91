/* relay-stats.h: summary statistics over samples (percentiles, mean, min, max).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint  n;
  double min;
  double max;
  double mean;
  double p50;
  double p90;
  double p95;
  double p99;
} RelayStats;

/* Computes stats over n values (the array is sorted in place). With n == 0 every field
 * but n is NAN. Percentiles interpolate linearly between closest ranks. */
void    relay_stats_compute     (double       *values,
                                 guint         n,
                                 RelayStats   *stats);
/* Percentile q in [0, 100] of a sorted array; NAN when n == 0. */
double  relay_stats_percentile  (const double *sorted,
                                 guint         n,
                                 double        q);

G_END_DECLS
