/* test-stats.c: percentiles match numpy's default method (linear between closest ranks),
 * absent values (NAN) are skipped, and tiny samples behave.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "relay-stats.h"

#define EPS 1e-9

static void
test_five (void)
{
  /* numpy.percentile([15, 20, 35, 40, 50], q): h = (n - 1) q / 100
   * q=50: h=2 → 35; q=90: h=3.6 → 40 + 0.6·10 = 46; q=95: h=3.8 → 48; q=99: h=3.96 → 49.6 */
  double values[] = { 50, 20, 35, 15, 40 };
  RelayStats stats;

  relay_stats_compute (values, G_N_ELEMENTS (values), &stats);

  g_assert_cmpuint (stats.n, ==, 5);
  g_assert_cmpfloat_with_epsilon (stats.min, 15, EPS);
  g_assert_cmpfloat_with_epsilon (stats.max, 50, EPS);
  g_assert_cmpfloat_with_epsilon (stats.mean, 32, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p50, 35, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p90, 46, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p95, 48, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p99, 49.6, EPS);

  /* Sorted in place. */
  for (guint i = 1; i < G_N_ELEMENTS (values); i++)
    g_assert_cmpfloat (values[i - 1], <=, values[i]);
}

static void
test_even (void)
{
  /* numpy.percentile([1, 2, 3, 4], q): q=50: h=1.5 → 2.5; q=90: h=2.7 → 3.7;
   * q=95: h=2.85 → 3.85; q=99: h=2.97 → 3.97 */
  double values[] = { 4, 3, 2, 1 };
  RelayStats stats;

  relay_stats_compute (values, G_N_ELEMENTS (values), &stats);

  g_assert_cmpuint (stats.n, ==, 4);
  g_assert_cmpfloat_with_epsilon (stats.mean, 2.5, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p50, 2.5, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p90, 3.7, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p95, 3.85, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p99, 3.97, EPS);
}

static void
test_ten (void)
{
  /* numpy.percentile(range(1, 11), q): q=90: h=8.1 → 9.1; q=95: h=8.55 → 9.55;
   * q=99: h=8.91 → 9.91; q=25: h=2.25 → 3.25 */
  double values[10];
  RelayStats stats;

  for (guint i = 0; i < 10; i++)
    values[i] = 10 - i;

  relay_stats_compute (values, 10, &stats);

  g_assert_cmpfloat_with_epsilon (stats.p50, 5.5, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p90, 9.1, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p95, 9.55, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p99, 9.91, EPS);
  g_assert_cmpfloat_with_epsilon (relay_stats_percentile (values, 10, 25), 3.25, EPS);
  g_assert_cmpfloat_with_epsilon (relay_stats_percentile (values, 10, 0), 1, EPS);
  g_assert_cmpfloat_with_epsilon (relay_stats_percentile (values, 10, 100), 10, EPS);
}

static void
test_nan_skipped (void)
{
  /* The same five values as test_five, with absent measurements mixed in. */
  double values[] = { NAN, 50, 20, NAN, 35, INFINITY, 15, 40, NAN };
  RelayStats stats;

  relay_stats_compute (values, G_N_ELEMENTS (values), &stats);

  g_assert_cmpuint (stats.n, ==, 5);
  g_assert_cmpfloat_with_epsilon (stats.min, 15, EPS);
  g_assert_cmpfloat_with_epsilon (stats.max, 50, EPS);
  g_assert_cmpfloat_with_epsilon (stats.mean, 32, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p50, 35, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p95, 48, EPS);
}

static void
test_empty (void)
{
  double all_nan[] = { NAN, NAN };
  RelayStats stats;

  memset (&stats, 0, sizeof stats);
  stats.n = 99;
  relay_stats_compute (NULL, 0, &stats);

  g_assert_cmpuint (stats.n, ==, 0);
  g_assert_true (isnan (stats.min));
  g_assert_true (isnan (stats.max));
  g_assert_true (isnan (stats.mean));
  g_assert_true (isnan (stats.p50));
  g_assert_true (isnan (stats.p90));
  g_assert_true (isnan (stats.p95));
  g_assert_true (isnan (stats.p99));

  relay_stats_compute (all_nan, G_N_ELEMENTS (all_nan), &stats);
  g_assert_cmpuint (stats.n, ==, 0);
  g_assert_true (isnan (stats.p50));

  g_assert_true (isnan (relay_stats_percentile (NULL, 0, 50)));
}

static void
test_one (void)
{
  double values[] = { 7.25 };
  RelayStats stats;

  relay_stats_compute (values, 1, &stats);

  g_assert_cmpuint (stats.n, ==, 1);
  g_assert_cmpfloat_with_epsilon (stats.min, 7.25, EPS);
  g_assert_cmpfloat_with_epsilon (stats.max, 7.25, EPS);
  g_assert_cmpfloat_with_epsilon (stats.mean, 7.25, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p50, 7.25, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p99, 7.25, EPS);
}

static void
test_two (void)
{
  /* numpy.percentile([10, 20], 95) = 19.5 */
  double values[] = { 20, 10 };
  RelayStats stats;

  relay_stats_compute (values, 2, &stats);

  g_assert_cmpfloat_with_epsilon (stats.p50, 15, EPS);
  g_assert_cmpfloat_with_epsilon (stats.p95, 19.5, EPS);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/stats/five", test_five);
  g_test_add_func ("/stats/even", test_even);
  g_test_add_func ("/stats/ten", test_ten);
  g_test_add_func ("/stats/nan-skipped", test_nan_skipped);
  g_test_add_func ("/stats/empty", test_empty);
  g_test_add_func ("/stats/one", test_one);
  g_test_add_func ("/stats/two", test_two);

  return g_test_run ();
}
