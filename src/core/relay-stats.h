/* relay-stats.h: summary statistics over samples (percentiles, mean, min, max), and the
 * tests that compare two samples (bootstrap intervals, Mann-Whitney U, Wilcoxon signed-rank).
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
/* Percentile q of unsorted values (left as they are; NaN values skipped); NAN when none. */
double  relay_stats_percentile_of (const double *values,
                                   guint         n,
                                   double        q);
/* Percentile q in [0, 100] of a sorted array; NAN when n == 0. */
double  relay_stats_percentile  (const double *sorted,
                                 guint         n,
                                 double        q);

/* A difference and its confidence interval. */
typedef struct
{
  double estimate;      /* the statistic on the samples as observed */
  double lo;            /* interval bounds; NAN when there is nothing to resample */
  double hi;
  double level;         /* e.g. 0.95 */
  guint  n_resamples;
} RelayStatsInterval;

/* Bootstrap confidence interval (percentile method) of
 *   percentile q of b − percentile q of a,
 * from n_resamples resamples drawn with a GRand seeded with seed, so a figure can be
 * reproduced. clusters_a / clusters_b may be NULL (every value stands alone) or give each
 * value a cluster index below n_clusters_*: clusters are then resampled whole, which keeps
 * values that are not independent (the gaps of one stream) together. FALSE when either side
 * has no finite value. */
gboolean relay_stats_bootstrap_percentile_diff (const double       *a,
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
                                                RelayStatsInterval *interval);

/* Bootstrap confidence interval (percentile method) of the median of values, e.g. paired
 * differences. FALSE when there is no finite value. */
gboolean relay_stats_bootstrap_median          (const double       *values,
                                                guint               n,
                                                guint               n_resamples,
                                                double              level,
                                                guint32             seed,
                                                RelayStatsInterval *interval);

typedef struct
{
  double u_a;       /* U of a: pairs where a's value is larger, ties counted half */
  double u_b;       /* n_a × n_b − u_a */
  double z;         /* normal approximation with tie and continuity correction */
  double p_value;   /* two-sided; 1 when every value ties */
  guint  n_a;
  guint  n_b;
} RelayMannWhitney;

/* Mann-Whitney U test of two independent samples (NANs are left out). The p-value is the
 * normal approximation with the tie correction and a continuity correction of 0.5, as
 * scipy.stats.mannwhitneyu (method="asymptotic") computes it. FALSE when a side is empty. */
gboolean relay_stats_mann_whitney              (const double       *a,
                                                guint               n_a,
                                                const double       *b,
                                                guint               n_b,
                                                RelayMannWhitney   *result);

typedef struct
{
  double w_plus;    /* sum of the ranks of positive differences */
  double w_minus;   /* sum of the ranks of negative differences */
  double z;
  double p_value;   /* two-sided, normal approximation; 1 when every difference is 0 */
  guint  n;         /* non-zero differences */
} RelayWilcoxon;

/* Wilcoxon signed-rank test of paired differences (zeros dropped, NANs left out), normal
 * approximation with tie and continuity correction. FALSE when no difference is non-zero. */
gboolean relay_stats_wilcoxon_signed_rank      (const double       *differences,
                                                guint               n,
                                                RelayWilcoxon      *result);

/* Two-sided p-value of a standard normal z. */
double   relay_stats_normal_two_sided_p        (double              z);

G_END_DECLS
