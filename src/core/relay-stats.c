/* relay-stats.c: summary statistics over samples (percentiles, mean, min, max), bootstrap
 * confidence intervals and the rank tests that say whether two samples differ.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

double
relay_stats_normal_two_sided_p (double z)
{
  if (isnan (z))
    return NAN;

  return MIN (1.0, erfc (fabs (z) / G_SQRT2));
}

/* A value with the cluster it belongs to, for sorting both together. */
typedef struct
{
  double value;
  guint  cluster;
} Item;

static int
compare_items (const void *a,
               const void *b)
{
  const Item *x = a;
  const Item *y = b;

  return (x->value > y->value) - (x->value < y->value);
}

/* One side of a bootstrap: its finite values sorted, each with a cluster index that has no
 * gaps (clusters without a finite value are dropped: they could make a resample empty). */
typedef struct
{
  Item  *items;
  guint  n;
  guint  n_clusters;
  guint *counts;     /* multiplicity of each cluster in the current resample */
} Side;

static gboolean
side_init (Side         *side,
           const double *values,
           const guint  *clusters,
           guint         n,
           guint         n_clusters)
{
  g_autofree guint *remap = NULL;

  side->items = g_new (Item, MAX (n, 1));
  side->n = 0;
  side->n_clusters = 0;

  if (clusters != NULL)
    {
      remap = g_new (guint, MAX (n_clusters, 1));
      for (guint c = 0; c < n_clusters; c++)
        remap[c] = G_MAXUINT;
    }

  for (guint i = 0; i < n; i++)
    {
      guint cluster;

      if (!isfinite (values[i]))
        continue;

      if (clusters == NULL)
        cluster = side->n_clusters++;
      else
        {
          g_return_val_if_fail (clusters[i] < n_clusters, FALSE);
          if (remap[clusters[i]] == G_MAXUINT)
            remap[clusters[i]] = side->n_clusters++;
          cluster = remap[clusters[i]];
        }

      side->items[side->n].value = values[i];
      side->items[side->n].cluster = cluster;
      side->n++;
    }

  qsort (side->items, side->n, sizeof (Item), compare_items);
  side->counts = g_new0 (guint, MAX (side->n_clusters, 1));

  return side->n > 0;
}

static void
side_clear (Side *side)
{
  g_clear_pointer (&side->items, g_free);
  g_clear_pointer (&side->counts, g_free);
}

/* Percentile q of the side weighted by the cluster counts: the same interpolation as
 * relay_stats_percentile() on the expanded resample, without building it. */
static double
side_weighted_percentile (const Side *side,
                          double      q)
{
  guint64 total = 0;
  guint64 cum = 0;
  double h;
  guint64 lo;
  double lo_value = NAN;
  double hi_value = NAN;

  for (guint i = 0; i < side->n; i++)
    total += side->counts[side->items[i].cluster];

  g_assert (total > 0);

  h = (total - 1) * (q / 100.0);
  lo = (guint64) floor (h);

  for (guint i = 0; i < side->n; i++)
    {
      guint w = side->counts[side->items[i].cluster];

      if (w == 0)
        continue;

      if (isnan (lo_value) && lo < cum + w)
        lo_value = side->items[i].value;
      if (lo + 1 < cum + w)
        {
          hi_value = side->items[i].value;
          break;
        }
      cum += w;
    }

  if (isnan (hi_value))
    return lo_value;

  return lo_value + (h - lo) * (hi_value - lo_value);
}

static void
side_resample (Side  *side,
               GRand *rand)
{
  memset (side->counts, 0, sizeof (guint) * MAX (side->n_clusters, 1));
  for (guint k = 0; k < side->n_clusters; k++)
    side->counts[g_rand_int_range (rand, 0, (gint32) side->n_clusters)]++;
}

static void
side_observed (Side *side)
{
  for (guint c = 0; c < side->n_clusters; c++)
    side->counts[c] = 1;
}

static void
interval_from_replicates (double             *replicates,
                          guint               n,
                          double              level,
                          RelayStatsInterval *interval)
{
  qsort (replicates, n, sizeof (double), compare_doubles);
  interval->lo = relay_stats_percentile (replicates, n, 100 * (1 - level) / 2);
  interval->hi = relay_stats_percentile (replicates, n, 100 * (1 + level) / 2);
}

gboolean
relay_stats_bootstrap_percentile_diff (const double       *a,
                                       const guint        *clusters_a,
                                       guint               n_a,
                                       guint               n_clusters_a,
                                       const double       *b,
                                       const guint        *clusters_b,
                                       guint               n_b,
                                       guint               n_clusters_b,
                                       double              q,
                                       guint               n_resamples,
                                       double              level,
                                       guint32             seed,
                                       RelayStatsInterval *interval)
{
  Side side_a = { 0 };
  Side side_b = { 0 };
  g_autofree double *replicates = NULL;
  g_autoptr(GRand) rand = NULL;
  gboolean ok;

  g_return_val_if_fail (a != NULL || n_a == 0, FALSE);
  g_return_val_if_fail (b != NULL || n_b == 0, FALSE);
  g_return_val_if_fail (level > 0 && level < 1, FALSE);
  g_return_val_if_fail (interval != NULL, FALSE);

  interval->estimate = interval->lo = interval->hi = NAN;
  interval->level = level;
  interval->n_resamples = n_resamples;

  ok = side_init (&side_a, a, clusters_a, n_a, n_clusters_a);
  ok = side_init (&side_b, b, clusters_b, n_b, n_clusters_b) && ok;

  if (ok)
    {
      side_observed (&side_a);
      side_observed (&side_b);
      interval->estimate = side_weighted_percentile (&side_b, q) - side_weighted_percentile (&side_a, q);

      if (n_resamples > 0)
        {
          rand = g_rand_new_with_seed (seed);
          replicates = g_new (double, n_resamples);

          for (guint r = 0; r < n_resamples; r++)
            {
              side_resample (&side_a, rand);
              side_resample (&side_b, rand);
              replicates[r] = side_weighted_percentile (&side_b, q) - side_weighted_percentile (&side_a, q);
            }

          interval_from_replicates (replicates, n_resamples, level, interval);
        }
    }

  side_clear (&side_a);
  side_clear (&side_b);

  return ok;
}

gboolean
relay_stats_bootstrap_median (const double       *values,
                              guint               n,
                              guint               n_resamples,
                              double              level,
                              guint32             seed,
                              RelayStatsInterval *interval)
{
  Side side = { 0 };
  g_autofree double *replicates = NULL;
  g_autoptr(GRand) rand = NULL;
  gboolean ok;

  g_return_val_if_fail (values != NULL || n == 0, FALSE);
  g_return_val_if_fail (level > 0 && level < 1, FALSE);
  g_return_val_if_fail (interval != NULL, FALSE);

  interval->estimate = interval->lo = interval->hi = NAN;
  interval->level = level;
  interval->n_resamples = n_resamples;

  ok = side_init (&side, values, NULL, n, 0);

  if (ok)
    {
      side_observed (&side);
      interval->estimate = side_weighted_percentile (&side, 50);

      if (n_resamples > 0)
        {
          rand = g_rand_new_with_seed (seed);
          replicates = g_new (double, n_resamples);

          for (guint r = 0; r < n_resamples; r++)
            {
              side_resample (&side, rand);
              replicates[r] = side_weighted_percentile (&side, 50);
            }

          interval_from_replicates (replicates, n_resamples, level, interval);
        }
    }

  side_clear (&side);

  return ok;
}

/* Gives items (sorted by value) their mid-ranks (1-based) and returns Σ (t³ − t) over the
 * groups of t tied values, which the variance of rank statistics needs. */
static double
assign_midranks (const Item *items,
                 guint       n,
                 double     *ranks)
{
  double ties = 0;
  guint i = 0;

  while (i < n)
    {
      guint j = i + 1;
      double rank;

      while (j < n && items[j].value == items[i].value)
        j++;

      /* Positions i+1 … j share the mean of their ranks. */
      rank = (i + 1 + j) / 2.0;
      for (guint k = i; k < j; k++)
        ranks[k] = rank;

      ties += (double) (j - i) * (j - i) * (j - i) - (j - i);
      i = j;
    }

  return ties;
}

gboolean
relay_stats_mann_whitney (const double     *a,
                          guint             n_a,
                          const double     *b,
                          guint             n_b,
                          RelayMannWhitney *result)
{
  g_autofree Item *items = NULL;
  g_autofree double *ranks = NULL;
  guint n = 0;
  guint na = 0;
  guint nb = 0;
  double rank_sum_a = 0;
  double ties;
  double mu;
  double var;
  double u;

  g_return_val_if_fail (a != NULL || n_a == 0, FALSE);
  g_return_val_if_fail (b != NULL || n_b == 0, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);

  memset (result, 0, sizeof *result);
  result->z = result->p_value = result->u_a = result->u_b = NAN;

  /* cluster is 0 for a, 1 for b here. */
  items = g_new (Item, MAX (n_a + n_b, 1));
  for (guint i = 0; i < n_a; i++)
    if (isfinite (a[i]))
      {
        items[n++] = (Item) { a[i], 0 };
        na++;
      }
  for (guint i = 0; i < n_b; i++)
    if (isfinite (b[i]))
      {
        items[n++] = (Item) { b[i], 1 };
        nb++;
      }

  result->n_a = na;
  result->n_b = nb;

  if (na == 0 || nb == 0)
    return FALSE;

  qsort (items, n, sizeof (Item), compare_items);
  ranks = g_new (double, n);
  ties = assign_midranks (items, n, ranks);

  for (guint i = 0; i < n; i++)
    if (items[i].cluster == 0)
      rank_sum_a += ranks[i];

  result->u_a = rank_sum_a - (double) na * (na + 1) / 2.0;
  result->u_b = (double) na * nb - result->u_a;

  mu = (double) na * nb / 2.0;
  var = (double) na * nb / 12.0 * ((n + 1) - ties / ((double) n * (n - 1)));

  if (n < 2 || var <= 0)
    {
      /* Every value ties: no evidence of a difference. */
      result->z = 0;
      result->p_value = 1;
      return TRUE;
    }

  u = MAX (result->u_a, result->u_b);
  result->z = (u - mu - 0.5) / sqrt (var);
  result->p_value = result->z <= 0 ? 1.0 : relay_stats_normal_two_sided_p (result->z);

  return TRUE;
}

gboolean
relay_stats_wilcoxon_signed_rank (const double  *differences,
                                  guint          n,
                                  RelayWilcoxon *result)
{
  g_autofree Item *items = NULL;
  g_autofree double *ranks = NULL;
  guint m = 0;
  double ties;
  double mean;
  double var;

  g_return_val_if_fail (differences != NULL || n == 0, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);

  memset (result, 0, sizeof *result);
  result->z = result->p_value = NAN;

  /* Ranks of |d|; cluster records the sign (1 for positive). */
  items = g_new (Item, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    if (isfinite (differences[i]) && differences[i] != 0)
      items[m++] = (Item) { fabs (differences[i]), differences[i] > 0 };

  result->n = m;
  if (m == 0)
    return FALSE;

  qsort (items, m, sizeof (Item), compare_items);
  ranks = g_new (double, m);
  ties = assign_midranks (items, m, ranks);

  for (guint i = 0; i < m; i++)
    {
      if (items[i].cluster)
        result->w_plus += ranks[i];
      else
        result->w_minus += ranks[i];
    }

  mean = m * (m + 1) / 4.0;
  var = m * (m + 1) * (2.0 * m + 1) / 24.0 - ties / 48.0;

  if (var <= 0)
    {
      result->z = 0;
      result->p_value = 1;
      return TRUE;
    }

  result->z = (result->w_plus - mean) / sqrt (var);
  result->p_value = relay_stats_normal_two_sided_p (result->z);

  return TRUE;
}

double
relay_stats_percentile_of (const double *values,
                           guint         n,
                           double        q)
{
  g_autofree double *copy = NULL;
  RelayStats stats;

  if (values == NULL || n == 0)
    return NAN;

  copy = g_memdup2 (values, n * sizeof (double));
  relay_stats_compute (copy, n, &stats);
  if (stats.n == 0)
    return NAN;

  return relay_stats_percentile (copy, stats.n, q);
}
