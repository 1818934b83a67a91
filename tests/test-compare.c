/* test-compare.c: the two-sample statistics (bootstrap intervals, Mann-Whitney U, Wilcoxon
 * signed-rank), A/B comparisons with their verdicts, races, and the CLI's compare and race.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "relay-compare.h"
#include "relay-race.h"
#include "relay-sim-server.h"
#include "relay-stats.h"
#include "relay-test-cli.h"

static char *tmpdir;

/* ---- statistics ------------------------------------------------------------------------ */

/* Expected values below were worked out by hand from the textbook formulas: U from the
 * rank sum, σ² = n₁n₂/12 · ((N + 1) − Σ(t³ − t) / (N(N − 1))), z = (max U − n₁n₂/2 − ½) / σ,
 * p = erfc(z / √2), the definition scipy.stats.mannwhitneyu(method="asymptotic") uses. */
static void
test_mann_whitney (void)
{
  const double a1[] = { 1, 2, 3, 4, 5 };
  const double b1[] = { 6, 7, 8, 9, 10 };
  /* Ties within and across the samples: U_a counts 0 + ½ + ½ + 1½ + 4 = 6.5 pairs. */
  const double a2[] = { 1, 2, 2, 3, 5 };
  const double b2[] = { 2, 3, 4, 4, 6, 7 };
  const double a3[] = { 19, 22, 16, 29, 24, NAN };
  const double b3[] = { 20, 11, 17, 12 };
  const double same[] = { 4, 4, 4 };
  RelayMannWhitney r;

  g_assert_true (relay_stats_mann_whitney (a1, 5, b1, 5, &r));
  g_assert_cmpfloat_with_epsilon (r.u_a, 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.u_b, 25, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.z, 2.50671824576, 1e-9);
  g_assert_cmpfloat_with_epsilon (r.p_value, 0.01218578035, 1e-9);

  /* Swapping the samples swaps U and keeps p. */
  g_assert_true (relay_stats_mann_whitney (b1, 5, a1, 5, &r));
  g_assert_cmpfloat_with_epsilon (r.u_a, 25, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.p_value, 0.01218578035, 1e-9);

  g_assert_true (relay_stats_mann_whitney (a2, 5, b2, 6, &r));
  g_assert_cmpfloat_with_epsilon (r.u_a, 6.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.u_b, 23.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.z, 1.48092755301, 1e-9);
  g_assert_cmpfloat_with_epsilon (r.p_value, 0.13862587988, 1e-9);

  /* NAN is left out: n_a is 5. */
  g_assert_true (relay_stats_mann_whitney (a3, 6, b3, 4, &r));
  g_assert_cmpuint (r.n_a, ==, 5);
  g_assert_cmpfloat_with_epsilon (r.u_a, 17, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.p_value, 0.11134688653, 1e-9);

  /* All tied: no evidence. Empty side: no test. */
  g_assert_true (relay_stats_mann_whitney (same, 3, same, 3, &r));
  g_assert_cmpfloat (r.p_value, ==, 1);
  g_assert_false (relay_stats_mann_whitney (same, 3, NULL, 0, &r));
}

static void
test_wilcoxon (void)
{
  /* The zero is dropped; |d| ranks: 0.5→1, 1→2, 1.5→3, 2,2,2→5 (tied), 2.5→7, 3→8, 4→9.
   * W+ = 3 + 5 + 8 + 7 + 9 + 5 = 37, W− = 1 + 2 + 5 = 8. */
  const double d[] = { 1.5, -0.5, 2, 3, -1, 2.5, 4, 0, 2, -2 };
  const double constant[] = { 30, 30, 30, 30, 30, 30, 30, 30, 30, 30 };
  const double zeros[] = { 0, 0 };
  RelayWilcoxon r;

  g_assert_true (relay_stats_wilcoxon_signed_rank (d, G_N_ELEMENTS (d), &r));
  g_assert_cmpuint (r.n, ==, 9);
  g_assert_cmpfloat_with_epsilon (r.w_plus, 37, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.w_minus, 8, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.z, 1.72387106501, 1e-9);
  g_assert_cmpfloat_with_epsilon (r.p_value, 0.08473112189, 1e-9);

  /* Ten equal differences: all ranks 5.5, σ² = 10·11·21/24 − (10³ − 10)/48 = 75.625. */
  g_assert_true (relay_stats_wilcoxon_signed_rank (constant, 10, &r));
  g_assert_cmpfloat_with_epsilon (r.w_plus, 55, 1e-12);
  g_assert_cmpfloat_with_epsilon (r.p_value, 0.00156540226, 1e-9);

  g_assert_false (relay_stats_wilcoxon_signed_rank (zeros, 2, &r));
}

static void
test_normal_p (void)
{
  g_assert_cmpfloat_with_epsilon (relay_stats_normal_two_sided_p (0), 1, 1e-12);
  g_assert_cmpfloat_with_epsilon (relay_stats_normal_two_sided_p (1.959963985), 0.05, 1e-8);
  g_assert_cmpfloat_with_epsilon (relay_stats_normal_two_sided_p (-2.575829304), 0.01, 1e-8);
}

static void
test_bootstrap_known (void)
{
  double a[10], b[10];
  RelayStatsInterval ci, again, other;

  /* Constant samples: every resample gives the same difference. */
  for (guint i = 0; i < 10; i++)
    {
      a[i] = 100;
      b[i] = 150;
    }
  g_assert_true (relay_stats_bootstrap_percentile_diff (a, NULL, 10, 0, b, NULL, 10, 0, 50, 500, 0.95, 7, &ci));
  g_assert_cmpfloat (ci.estimate, ==, 50);
  g_assert_cmpfloat (ci.lo, ==, 50);
  g_assert_cmpfloat (ci.hi, ==, 50);
  g_assert_cmpuint (ci.n_resamples, ==, 500);

  /* b is a shifted by 100: the estimate is exactly the shift, the interval holds it. */
  for (guint i = 0; i < 10; i++)
    {
      a[i] = 200 + 10 * i;          /* 200 … 290, p50 245 */
      b[i] = a[i] + 100;
    }
  g_assert_true (relay_stats_bootstrap_percentile_diff (a, NULL, 10, 0, b, NULL, 10, 0, 50, 2000, 0.95, 7, &ci));
  g_assert_cmpfloat_with_epsilon (ci.estimate, 100, 1e-9);
  g_assert_cmpfloat (ci.lo, <, 100);
  g_assert_cmpfloat (ci.hi, >, 100);
  /* A resampled median stays within the sample's range: the difference within ±90 of 100. */
  g_assert_cmpfloat (ci.lo, >=, 10);
  g_assert_cmpfloat (ci.hi, <=, 190);

  /* The seed makes it reproducible; another seed draws other resamples. */
  relay_stats_bootstrap_percentile_diff (a, NULL, 10, 0, b, NULL, 10, 0, 50, 2000, 0.95, 7, &again);
  g_assert_cmpfloat (again.lo, ==, ci.lo);
  g_assert_cmpfloat (again.hi, ==, ci.hi);
  relay_stats_bootstrap_percentile_diff (a, NULL, 10, 0, b, NULL, 10, 0, 50, 2000, 0.95, 8, &other);
  g_assert_cmpfloat (other.estimate, ==, ci.estimate);

  /* A 95th percentile: p95 of a is 290 − 0.45·10 = 285.5 (linear interpolation). */
  relay_stats_bootstrap_percentile_diff (a, NULL, 10, 0, b, NULL, 10, 0, 95, 0, 0.95, 7, &ci);
  g_assert_cmpfloat_with_epsilon (ci.estimate, 100, 1e-9);
  g_assert_true (isnan (ci.lo));

  /* Nothing finite on one side. */
  a[0] = NAN;
  g_assert_false (relay_stats_bootstrap_percentile_diff (a, NULL, 1, 0, b, NULL, 10, 0, 50, 100, 0.95, 7, &ci));
}

/* Clustered resampling keeps a stream's values together: one cluster holds a single 10,
 * another nine 20s. A resample of whole clusters is all 10s a quarter of the time, so the
 * median's interval reaches 10; resampling single values almost never gets six 10s out of
 * ten draws, so it stays at 20. */
static void
test_bootstrap_clusters (void)
{
  double a[10];
  guint clusters[10];
  const double zero[] = { 0 };
  RelayStatsInterval ci;

  a[0] = 10;
  clusters[0] = 0;
  for (guint i = 1; i < 10; i++)
    {
      a[i] = 20;
      clusters[i] = 1;
    }

  relay_stats_bootstrap_percentile_diff (a, clusters, 10, 2, zero, NULL, 1, 0, 50, 2000, 0.95, 3, &ci);
  g_assert_cmpfloat (ci.estimate, ==, -20);
  g_assert_cmpfloat (ci.lo, ==, -20);
  g_assert_cmpfloat (ci.hi, ==, -10);

  relay_stats_bootstrap_percentile_diff (a, NULL, 10, 0, zero, NULL, 1, 0, 50, 2000, 0.95, 3, &ci);
  g_assert_cmpfloat (ci.lo, ==, -20);
  g_assert_cmpfloat (ci.hi, ==, -20);

  /* A cluster index without values is ignored rather than producing an empty resample. */
  clusters[0] = 2;
  relay_stats_bootstrap_percentile_diff (a, clusters, 10, 3, zero, NULL, 1, 0, 50, 200, 0.95, 3, &ci);
  g_assert_cmpfloat (ci.estimate, ==, -20);
}

/* The interval should cover the true difference about 95 % of the time: 200 data sets from
 * an exponential distribution (mean 100) against the same shifted by 30. The percentile
 * bootstrap of a median under-covers a little at n = 40, hence the wide band. */
static void
test_bootstrap_coverage (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (2026);
  guint covered = 0;
  const guint n_sets = 200;

  for (guint k = 0; k < n_sets; k++)
    {
      double a[40], b[40];
      RelayStatsInterval ci;

      for (guint i = 0; i < 40; i++)
        {
          a[i] = -100 * log (1 - g_rand_double (rand));
          b[i] = 30 - 100 * log (1 - g_rand_double (rand));
        }
      relay_stats_bootstrap_percentile_diff (a, NULL, 40, 0, b, NULL, 40, 0, 50, 400, 0.95, k, &ci);
      if (ci.lo <= 30 && 30 <= ci.hi)
        covered++;
    }

  g_test_message ("coverage %u of %u", covered, n_sets);
  g_assert_cmpuint (covered, >=, n_sets * 85 / 100);
  g_assert_cmpuint (covered, <=, n_sets * 995 / 1000);
}

static void
test_bootstrap_median (void)
{
  const double d[] = { 30, 30, 30, 30, 30 };
  const double e[] = { 1, 2, 3, 4, 100 };
  RelayStatsInterval ci;

  g_assert_true (relay_stats_bootstrap_median (d, 5, 500, 0.95, 1, &ci));
  g_assert_cmpfloat (ci.estimate, ==, 30);
  g_assert_cmpfloat (ci.lo, ==, 30);
  g_assert_cmpfloat (ci.hi, ==, 30);

  g_assert_true (relay_stats_bootstrap_median (e, 5, 2000, 0.95, 1, &ci));
  g_assert_cmpfloat (ci.estimate, ==, 3);
  g_assert_cmpfloat (ci.lo, >=, 1);
  g_assert_cmpfloat (ci.hi, <=, 100);
  g_assert_cmpfloat (ci.lo, <, 3);
  g_assert_cmpfloat (ci.hi, >, 3);
}

/* ---- comparisons ----------------------------------------------------------------------- */

/* A finished trace: a cold connection, then the first token at ttft ms and n_chunks chunks
 * gap_ms apart with 4 tokens each. */
static RelayTrace *
make_trace (guint  run,
            guint  seq,
            double ttft_ms,
            guint  n_chunks,
            double gap_ms)
{
  RelayTrace *trace = relay_trace_new (run, seq);
  gint64 ttft = (gint64) (ttft_ms * 1000);
  gint64 last = ttft + (gint64) ((n_chunks - 1) * gap_ms * 1000);
  RelayUsage usage = RELAY_USAGE_INIT;

  relay_trace_set_mark (trace, RELAY_MARK_DNS_START, 100);
  relay_trace_set_mark (trace, RELAY_MARK_DNS_END, 2100);
  relay_trace_set_mark (trace, RELAY_MARK_CONNECT_START, 2200);
  relay_trace_set_mark (trace, RELAY_MARK_TCP_END, 3200);
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, 3300);
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, 3400);
  relay_trace_set_mark (trace, RELAY_MARK_RESPONSE_START, ttft / 2);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_BYTE, ttft / 2 + 100);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_EVENT, ttft / 2 + 200);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, ttft);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_CONTENT, ttft);
  relay_trace_set_mark (trace, RELAY_MARK_LAST_TOKEN, last);
  relay_trace_set_mark (trace, RELAY_MARK_END, last + 500);
  for (guint i = 0; i < n_chunks; i++)
    relay_trace_add_chunk (trace, ttft + (gint64) (i * gap_ms * 1000), RELAY_CHUNK_CONTENT, 60, 16);
  usage.completion_tokens = 4 * n_chunks;
  relay_trace_set_usage (trace, &usage);
  relay_trace_set_http_status (trace, 200);
  relay_trace_set_http_version (trace, "HTTP/1.1");

  return trace;
}

static RelaySession *
make_session (const char *endpoint,
              const char *model,
              guint       n,
              double      ttft0,
              double      ttft_step,
              double      gap_ms)
{
  RelaySession *session = relay_session_new ();
  g_autoptr(RelayEndpoint) ep = relay_endpoint_new (endpoint, "https://relay.relayscope.test/v1", RELAY_API_OPENAI_CHAT);
  g_autoptr(RelayRun) run = relay_run_new (endpoint, model);
  guint index;

  relay_session_add_endpoint (session, ep);
  index = relay_session_add_run (session, run);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RelayTrace) trace = make_trace (index, i + 1, ttft0 + i * ttft_step, 5, gap_ms);
      relay_session_add_trace (session, trace);
    }

  return session;
}

static void
test_compare_faster (void)
{
  /* A: TTFT 500 … 595 ms; B: 380 … 475 ms. No overlap, so U_b = 0 and
   * z = (400 − 200 − ½) / √(400/12 · 41) = 5.3965, p ≈ 6.8e-8. */
  g_autoptr(RelaySession) a = make_session ("relay-a", "m", 20, 500, 5, 10);
  g_autoptr(RelaySession) b = make_session ("relay-b", "m", 20, 380, 5, 20);
  g_autoptr(RelayComparison) cmp = relay_comparison_new_for_sessions (a, "before", b, "after");
  const RelayCompareStage *stage = relay_comparison_get_stage (cmp, RELAY_METRIC_TTFT);
  g_autofree char *verdict = NULL;
  g_autofree char *itl = NULL;
  g_autofree char *rate = NULL;
  g_autofree char *text = NULL;
  const double *cdf;
  guint n;

  g_assert_cmpuint (stage->traces_a, ==, 20);
  g_assert_cmpuint (stage->traces_b, ==, 20);
  g_assert_cmpfloat_with_epsilon (stage->a.p50, 547.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (stage->b.p50, 427.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (stage->diff_p50.estimate, -120, 1e-9);
  g_assert_cmpfloat (stage->diff_p50.hi, <, 0);
  g_assert_cmpfloat (stage->diff_p50.lo, >, -220);
  g_assert_cmpfloat_with_epsilon (stage->test.u_a, 400, 1e-9);
  g_assert_cmpfloat_with_epsilon (stage->test.p_value, 6.795615128e-8, 1e-12);
  g_assert_true (stage->significant_p50);
  g_assert_true (stage->significant_p95);
  g_assert_false (stage->few_samples);

  verdict = relay_comparison_dup_verdict (cmp, RELAY_METRIC_TTFT, 50);
  g_test_message ("%s", verdict);
  g_assert_true (g_str_has_prefix (verdict, "B's TTFT p50 is 120 ms faster (95% CI "));
  g_assert_nonnull (strstr (verdict, "ms), significant (p < 0.001)."));
  g_assert_null (strstr (verdict, "Too few"));

  /* Gaps of 10 ms against 20 ms: B's ITL is 10 ms slower, its output rate lower. */
  itl = relay_comparison_dup_verdict (cmp, RELAY_METRIC_ITL, 50);
  g_test_message ("%s", itl);
  g_assert_true (g_str_has_prefix (itl, "B's ITL p50 is 10 ms slower"));
  stage = relay_comparison_get_stage (cmp, RELAY_METRIC_ITL);
  g_assert_cmpuint (stage->a.n, ==, 80);   /* 20 streams × 4 gaps, pooled */
  g_assert_cmpuint (stage->traces_a, ==, 20);

  /* 20 tokens over 40 ms = 500 tokens/s against 20 over 80 ms = 250: B is slower. */
  rate = relay_comparison_dup_verdict (cmp, RELAY_METRIC_TOKENS_PER_SECOND, 50);
  g_test_message ("%s", rate);
  g_assert_true (g_str_has_prefix (rate, "B's output rate p50 is 250 tokens/s slower"));

  cdf = relay_comparison_get_cdf (cmp, RELAY_METRIC_TTFT, TRUE, &n);
  g_assert_cmpuint (n, ==, 20);
  g_assert_cmpfloat (cdf[0], ==, 380);
  g_assert_cmpfloat (cdf[19], ==, 475);
  for (guint i = 1; i < n; i++)
    g_assert_cmpfloat (cdf[i - 1], <=, cdf[i]);

  text = relay_comparison_format_text (cmp, RELAY_METRIC_TTFT);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "A: before (20 probes, 0 failed)"));
  g_assert_nonnull (strstr (text, "-120.0 ["));
  g_assert_null (strstr (text, "itl ms"));
}

static void
test_compare_no_difference (void)
{
  /* Interleaved samples with the same median: no difference, and with 5 a side a warning. */
  g_autoptr(RelaySession) a = make_session ("relay-a", "m", 5, 300, 20, 10);
  g_autoptr(RelaySession) b = make_session ("relay-b", "m", 5, 310, 20, 10);
  g_autoptr(RelayComparison) cmp = relay_comparison_new_for_sessions (a, NULL, b, NULL);
  const RelayCompareStage *stage = relay_comparison_get_stage (cmp, RELAY_METRIC_TTFT);
  g_autofree char *verdict = relay_comparison_dup_verdict (cmp, RELAY_METRIC_TTFT, 50);
  g_autofree char *dns = relay_comparison_dup_verdict (cmp, RELAY_METRIC_DNS, 95);
  g_autofree char *tls = relay_comparison_dup_verdict (cmp, RELAY_METRIC_TLS, 50);

  g_test_message ("%s", verdict);
  g_assert_true (stage->few_samples);
  g_assert_false (stage->significant_p50);
  g_assert_cmpfloat (stage->test.p_value, >, 0.4);
  g_assert_true (g_str_has_prefix (verdict, "B's TTFT p50 is 10 ms slower (95% CI "));
  g_assert_nonnull (strstr (verdict, "no significant difference (p = "));
  g_assert_nonnull (strstr (verdict, "Too few samples to be sure: A has 5, B has 5, at least 10 a side are needed."));

  /* Equal DNS everywhere. */
  g_assert_true (g_str_has_prefix (dns, "B's DNS p95 is the same as A's, no significant difference (p = 1.000)."));
  /* No TLS marks at all. */
  g_assert_cmpstr (tls, ==, "No TLS to compare (A has 0 values, B has 0).");

  relay_comparison_set_min_samples (cmp, 5);
  g_clear_pointer (&verdict, g_free);
  verdict = relay_comparison_dup_verdict (cmp, RELAY_METRIC_TTFT, 50);
  g_assert_null (strstr (verdict, "Too few"));
}

static void
test_compare_selectors (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayRun) r0 = relay_run_new ("relay-a", "org/model-x");
  g_autoptr(RelayRun) r1 = relay_run_new ("relay-b", "org/model-x");
  g_autoptr(RelayRun) r2 = relay_run_new ("relay-b", "model-y");
  g_autoptr(GPtrArray) sel = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RelayComparison) cmp = NULL;
  g_autoptr(JsonNode) json = NULL;
  JsonObject *root;
  JsonObject *stage;

  relay_session_add_run (session, r0);
  relay_session_add_run (session, r1);
  relay_session_add_run (session, r2);
  for (guint i = 0; i < 12; i++)
    {
      g_autoptr(RelayTrace) t0 = make_trace (0, i + 1, 400 + i, 3, 10);
      g_autoptr(RelayTrace) t1 = make_trace (1, i + 1, 300 + i, 3, 10);
      g_autoptr(RelayTrace) t2 = make_trace (2, i + 1, 200 + i, 3, 10);

      relay_session_add_trace (session, t0);
      relay_session_add_trace (session, t1);
      relay_session_add_trace (session, t2);
    }
  {
    /* A failed and a cancelled probe of relay-a. */
    g_autoptr(RelayTrace) failed = relay_trace_new (0, 13);
    g_autoptr(RelayTrace) cancelled = relay_trace_new (0, 14);

    relay_trace_set_error (failed, RELAY_ERROR_STAGE_HTTP, "http-500", "Internal error");
    relay_trace_set_mark (failed, RELAY_MARK_END, 5000);
    relay_trace_set_error (cancelled, RELAY_ERROR_STAGE_CANCELLED, "cancelled", "Stopped");
    relay_trace_set_mark (cancelled, RELAY_MARK_END, 5000);
    relay_session_add_trace (session, failed);
    relay_session_add_trace (session, cancelled);
  }

  sel = relay_compare_select_traces (session, "relay-a", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sel->len, ==, 13);   /* the cancelled probe does not count */
  g_clear_pointer (&sel, g_ptr_array_unref);

  sel = relay_compare_select_traces (session, "relay-b", &error);
  g_assert_cmpuint (sel->len, ==, 24);
  g_clear_pointer (&sel, g_ptr_array_unref);

  sel = relay_compare_select_traces (session, "relay-b/org/model-x", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sel->len, ==, 12);
  g_assert_cmpuint (relay_trace_get_run (g_ptr_array_index (sel, 0)), ==, 1);
  g_clear_pointer (&sel, g_ptr_array_unref);

  sel = relay_compare_select_traces (session, "#2", &error);
  g_assert_cmpuint (sel->len, ==, 12);
  g_assert_cmpuint (relay_trace_get_run (g_ptr_array_index (sel, 0)), ==, 2);
  g_clear_pointer (&sel, g_ptr_array_unref);

  sel = relay_compare_select_traces (session, "relay-c", &error);
  g_assert_null (sel);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "#1 relay-b/org/model-x"));
  g_clear_error (&error);
  sel = relay_compare_select_traces (session, "#3", &error);
  g_assert_null (sel);
  g_clear_error (&error);

  cmp = relay_comparison_new_for_selectors (session, "relay-a", "relay-b/org/model-x", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (relay_comparison_get_n_traces (cmp, FALSE), ==, 13);
  g_assert_cmpuint (relay_comparison_get_n_errors (cmp, FALSE), ==, 1);
  g_assert_cmpstr (relay_comparison_get_label (cmp, TRUE), ==, "relay-b/org/model-x");
  g_assert_cmpfloat_with_epsilon (relay_comparison_get_stage (cmp, RELAY_METRIC_TTFT)->diff_p50.estimate, -100, 1e-9);

  json = relay_comparison_to_json (cmp, RELAY_METRIC_TTFT, TRUE);
  root = json_node_get_object (json);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (root, "a"), "errors"), ==, 1);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "stages")), ==, 1);
  stage = json_array_get_object_element (json_object_get_array_member (root, "stages"), 0);
  g_assert_cmpstr (json_object_get_string_member (stage, "stage"), ==, "ttft");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (json_object_get_object_member (stage, "diff_p50"), "estimate"), -100, 1e-9);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (stage, "cdf_b")), ==, 12);
  g_assert_true (json_object_get_boolean_member (stage, "significant_p50"));
}

/* ---- races ----------------------------------------------------------------------------- */

/* Three entrants, ten rounds. Each round has its own shared noise (0 … 900 ms) that would
 * swamp a 30 ms difference between unpaired samples; paired per round it cancels exactly. */
static RelaySession *
make_race (void)
{
  RelaySession *session = relay_session_new ();
  g_autoptr(GDateTime) started = g_date_time_new_utc (2026, 3, 1, 12, 0, 0);
  g_autoptr(GDateTime) earlier = g_date_time_new_utc (2026, 3, 1, 11, 0, 0);
  const char *names[] = { "slow", "fast", "middle" };
  const double offsets[] = { 60, 0, 30 };
  g_autoptr(RelayRun) lone = relay_run_new ("lone", "m");

  /* A run of an earlier plan is not part of the race. */
  relay_run_set_started (lone, earlier);
  relay_session_add_run (session, lone);

  for (guint e = 0; e < 3; e++)
    {
      g_autoptr(RelayRun) run = relay_run_new (names[e], "m");

      relay_run_set_started (run, started);
      relay_session_add_run (session, run);
    }

  for (guint r = 0; r < 10; r++)
    for (guint e = 0; e < 3; e++)
      {
        double noise = (r * 37 % 10) * 100;
        g_autoptr(RelayTrace) trace = make_trace (e + 1, r + 1, 200 + noise + offsets[e], 3, 10);

        relay_session_add_trace (session, trace);
      }

  return session;
}

static void
test_race_rank (void)
{
  g_autoptr(RelaySession) session = make_race ();
  g_autoptr(GPtrArray) ranking = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const RelayRaceEntry *e0, *e1, *e2;

  ranking = relay_race_rank (session, RELAY_METRIC_TTFT, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ranking->len, ==, 3);
  e0 = g_ptr_array_index (ranking, 0);
  e1 = g_ptr_array_index (ranking, 1);
  e2 = g_ptr_array_index (ranking, 2);
  g_assert_cmpstr (e0->endpoint, ==, "fast");
  g_assert_cmpstr (e1->endpoint, ==, "middle");
  g_assert_cmpstr (e2->endpoint, ==, "slow");
  g_assert_cmpuint (e0->run, ==, 2);
  g_assert_cmpuint (e0->wins, ==, 10);
  g_assert_cmpuint (e1->wins, ==, 0);
  g_assert_cmpuint (e1->pairs, ==, 10);
  g_assert_cmpfloat_with_epsilon (e1->paired.estimate, 30, 1e-9);
  g_assert_cmpfloat_with_epsilon (e1->paired.lo, 30, 1e-9);
  g_assert_cmpfloat_with_epsilon (e1->paired.hi, 30, 1e-9);
  g_assert_cmpfloat_with_epsilon (e2->paired.estimate, 60, 1e-9);
  /* Ten equal differences: the signed-rank p worked out in test_wilcoxon. */
  g_assert_cmpfloat_with_epsilon (e1->test.p_value, 0.00156540226, 1e-9);
  /* Medians: noise values are 0, 700, 400, 100, 800, 500, 200, 900, 600, 300 → median 450. */
  g_assert_cmpfloat_with_epsilon (e0->median, 650, 1e-9);

  text = relay_race_format (ranking, RELAY_METRIC_TTFT);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "Fastest: fast m (median TTFT 650 ms, fastest in 10 rounds)."));
  g_assert_nonnull (strstr (text, "\nmiddle m is 30 ms slower per round (95% CI 30–30, 10 rounds, p = 0.002).\n"));
}

static void
test_race_none (void)
{
  g_autoptr(RelaySession) session = make_session ("relay-a", "m", 3, 100, 1, 10);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) ranking = relay_race_rank (session, RELAY_METRIC_TTFT, 1, &error);

  g_assert_null (ranking);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

/* ---- the CLI --------------------------------------------------------------------------- */


static char *
save_session (RelaySession *session,
              const char   *name)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  relay_session_save (session, file, NULL, &error);
  g_assert_no_error (error);

  return path;
}

static void
test_cli_compare (void)
{
  g_autoptr(RelaySession) a = make_session ("relay-a", "m", 20, 500, 5, 10);
  g_autoptr(RelaySession) b = make_session ("relay-b", "m", 20, 380, 5, 20);
  g_autofree char *path_a = save_session (a, "a.relayscope");
  g_autofree char *path_b = save_session (b, "b.relayscope");
  g_autofree char *bad = g_build_filename (tmpdir, "bad.relayscope", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  CliResult r = { 0 };
  JsonObject *stage;

  run_cli (&r, "compare", path_a, path_b, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "B's TTFT p50 is 120 ms faster"));
  g_assert_nonnull (strstr (r.out, "significant (p < 0.001)"));
  cli_result_clear (&r);

  run_cli (&r, "compare", path_a, path_b, "--json", "--stage", "ttft", NULL);
  g_assert_cmpint (r.status, ==, 0);
  json_parser_load_from_data (parser, r.out, -1, &error);
  g_assert_no_error (error);
  stage = json_array_get_object_element (json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "stages"), 0);
  g_assert_cmpstr (json_object_get_string_member (stage, "stage"), ==, "ttft");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (json_object_get_object_member (stage, "diff_p50"), "estimate"), -120, 1e-9);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (stage, "cdf_a")), ==, 20);
  cli_result_clear (&r);

  /* One session, two endpoints. */
  run_cli (&r, "compare", path_a, "--a", "relay-a/m", "--b", "relay-a", "--stage", "ttft", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "the same as A's"));
  cli_result_clear (&r);

  /* Usage errors: bad stage, missing selectors, unknown endpoint, unreadable file. */
  run_cli (&r, "compare", path_a, path_b, "--stage", "nope", NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
  run_cli (&r, "compare", path_a, NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
  run_cli (&r, "compare", path_a, "--a", "relay-x", "--b", "relay-a", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "relay-x"));
  cli_result_clear (&r);
  g_file_set_contents (bad, "{ not json", -1, NULL);
  run_cli (&r, "compare", path_a, bad, NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
}

static void
test_cli_race_saved (void)
{
  g_autoptr(RelaySession) session = make_race ();
  g_autofree char *path = save_session (session, "race.relayscope");
  CliResult r = { 0 };

  run_cli (&r, "race", "--from", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Fastest: fast m"));
  cli_result_clear (&r);
}

static void
test_cli_race_live (void)
{
  RelaySimProfile profile = { 0 };
  g_autoptr(RelaySimServer) server = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *url = NULL;
  g_autofree char *out = g_build_filename (tmpdir, "live-race.relayscope", NULL);
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(GFile) file = NULL;
  CliResult r = { 0 };

  g_assert_true (relay_sim_profile_init_named (&profile, "fast"));
  profile.seed = 42;
  server = relay_sim_server_new (&profile);
  relay_sim_profile_clear (&profile);
  relay_sim_server_start (server, 0, FALSE, &error);
  g_assert_no_error (error);
  root = relay_sim_server_dup_root_url (server, NULL);
  url = g_strconcat (root, "/v1", NULL);

  /* The same relay under two names: both entrants finish every round. */
  run_cli (&r, "race", url, url, "--name", "sim", "--repeat", "3", "--quiet", "-o", out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Fastest: sim "));
  g_assert_nonnull (strstr (r.out, "rounds"));
  cli_result_clear (&r);

  file = g_file_new_for_path (out);
  session = relay_session_load (file, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (session)), ==, 6);
  /* Raced: the two runs share their start, so the probes of a round went out together. */
  g_assert_cmpuint (relay_run_get_concurrency (relay_session_get_run (session, 0)), ==, 2);

  run_cli (&r, "race", url, NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);

  tmpdir = g_dir_make_tmp ("relayscope-compare-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);

  g_test_add_func ("/stats/mann-whitney", test_mann_whitney);
  g_test_add_func ("/stats/wilcoxon", test_wilcoxon);
  g_test_add_func ("/stats/normal-p", test_normal_p);
  g_test_add_func ("/stats/bootstrap-known", test_bootstrap_known);
  g_test_add_func ("/stats/bootstrap-clusters", test_bootstrap_clusters);
  g_test_add_func ("/stats/bootstrap-coverage", test_bootstrap_coverage);
  g_test_add_func ("/stats/bootstrap-median", test_bootstrap_median);
  g_test_add_func ("/compare/faster", test_compare_faster);
  g_test_add_func ("/compare/no-difference", test_compare_no_difference);
  g_test_add_func ("/compare/selectors", test_compare_selectors);
  g_test_add_func ("/race/rank", test_race_rank);
  g_test_add_func ("/race/none", test_race_none);
  g_test_add_func ("/cli/compare", test_cli_compare);
  g_test_add_func ("/cli/race-saved", test_cli_race_saved);
  g_test_add_func ("/cli/race-live", test_cli_race_live);

  status = g_test_run ();

  {
    g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
    const char *name;

    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *path = g_build_filename (tmpdir, name, NULL);
        g_unlink (path);
      }
    g_rmdir (tmpdir);
    g_free (tmpdir);
  }

  return status;
}
