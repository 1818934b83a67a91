/* relay-stats.c: summary statistics over samples (percentiles, mean, min, max).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "relay-stats.h"

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Linear interpolation between closest ranks, h = (n - 1) q: the method spreadsheets call
 * PERCENTILE.INC and numpy uses by default, so figures can be checked with either. */
double
relay_stats_percentile (const double *sorted,
                        guint         n,
                        double        q)
{
  double h;
  double lo;
  guint i;

  g_return_val_if_fail (sorted != NULL || n == 0, NAN);

  if (n == 0 || isnan (q))
    return NAN;

  q = CLAMP (q, 0.0, 100.0);
  h = (n - 1) * (q / 100.0);
  lo = floor (h);
  i = (guint) lo;

  if (i + 1 >= n)
    return sorted[n - 1];

  return sorted[i] + (h - lo) * (sorted[i + 1] - sorted[i]);
}

void
relay_stats_compute (double     *values,
                     guint       n,
                     RelayStats *stats)
{
  guint n_finite = 0;
  double sum = 0;

  g_return_if_fail (values != NULL || n == 0);
  g_return_if_fail (stats != NULL);

  /* Absent measurements arrive as NAN; keep only real numbers, at the front. */
  for (guint i = 0; i < n; i++)
    {
      if (isfinite (values[i]))
        values[n_finite++] = values[i];
    }

  stats->n = n_finite;

  if (n_finite == 0)
    {
      stats->min = stats->max = stats->mean = NAN;
      stats->p50 = stats->p90 = stats->p95 = stats->p99 = NAN;
      return;
    }

  qsort (values, n_finite, sizeof (double), compare_doubles);

  for (guint i = 0; i < n_finite; i++)
    sum += values[i];

  stats->min = values[0];
  stats->max = values[n_finite - 1];
  stats->mean = sum / n_finite;
  stats->p50 = relay_stats_percentile (values, n_finite, 50);
  stats->p90 = relay_stats_percentile (values, n_finite, 90);
  stats->p95 = relay_stats_percentile (values, n_finite, 95);
  stats->p99 = relay_stats_percentile (values, n_finite, 99);
}
