/* test-summary.c: the comparison table's figures for a session with known marks and
 * chunks: grouping, error counting and p50/p95 per metric.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "relay-summary.h"

#define EPS 1e-6
#define MS  1000

typedef struct
{
  gint64   ttft_ms;
  gint64   dns_ms;        /* 0: warm, no connection marks */
  gint64   gaps_ms[2];
  gint64   completion_tokens;   /* -1: not reported */
  RelayErrorStage error;
} Spec;

/* A probe from start: [dns] [tcp 2 ms] [tls 5 ms] send 1 ms, wait 50 ms, … first token at
 * ttft, three chunks separated by gaps, end 1 s after the first token. */
static void
add_trace (RelaySession *session,
           guint         run,
           const Spec   *spec)
{
  g_autoptr(RelayTrace) trace = relay_trace_new (run, 0);
  gint64 t = 1 * MS;
  gint64 ft = spec->ttft_ms * MS;
  gint64 chunk_t = ft;

  if (spec->dns_ms > 0)
    {
      relay_trace_set_mark (trace, RELAY_MARK_DNS_START, t);
      t += spec->dns_ms * MS;
      relay_trace_set_mark (trace, RELAY_MARK_DNS_END, t);
      relay_trace_set_mark (trace, RELAY_MARK_CONNECT_START, t);
      t += 2 * MS;
      relay_trace_set_mark (trace, RELAY_MARK_TCP_END, t);
      relay_trace_set_mark (trace, RELAY_MARK_TLS_START, t);
      t += 5 * MS;
      relay_trace_set_mark (trace, RELAY_MARK_TLS_END, t);
    }

  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, t);
  t += 1 * MS;
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, t);
  t += 50 * MS;
  relay_trace_set_mark (trace, RELAY_MARK_RESPONSE_START, t);
  g_assert_cmpint (t, <, ft);

  relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, ft);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_CONTENT, ft);
  relay_trace_add_chunk (trace, chunk_t, RELAY_CHUNK_CONTENT, 50, 40);
  for (guint i = 0; i < G_N_ELEMENTS (spec->gaps_ms); i++)
    {
      chunk_t += spec->gaps_ms[i] * MS;
      relay_trace_add_chunk (trace, chunk_t, RELAY_CHUNK_CONTENT, 50, 40);
    }
  relay_trace_set_mark (trace, RELAY_MARK_LAST_TOKEN, chunk_t);
  relay_trace_set_mark (trace, RELAY_MARK_END, ft + 1000 * MS);

  if (spec->completion_tokens >= 0)
    {
      RelayUsage usage = RELAY_USAGE_INIT;

      usage.completion_tokens = spec->completion_tokens;
      relay_trace_set_usage (trace, &usage);
    }

  if (spec->error != RELAY_ERROR_STAGE_NONE)
    relay_trace_set_error (trace, spec->error, "test", "failed on purpose");

  relay_session_add_trace (session, trace);
}

static guint
add_run (RelaySession *session,
         const char   *endpoint,
         const char   *model)
{
  g_autoptr(RelayRun) run = relay_run_new (endpoint, model);

  return relay_session_add_run (session, run);
}

static RelaySession *
build_session (void)
{
  RelaySession *session = relay_session_new ();
  guint a_cold = add_run (session, "alpha", "m1");
  guint c_run = add_run (session, "alpha", "m2");
  guint b_run = add_run (session, "beta", "m1");
  guint a_warm = add_run (session, "alpha", "m1");
  guint d_run = add_run (session, "beta", "m2");

  /* alpha × m1: three cold and two warm successes, one HTTP error, one cancelled. The
   * failed and cancelled probes have huge TTFTs that would show if they were counted. */
  add_trace (session, a_cold, &(Spec) { 100, 1, { 10, 20 }, 30, RELAY_ERROR_STAGE_NONE });
  add_trace (session, c_run, &(Spec) { 900, 0, { 10, 10 }, 5, RELAY_ERROR_STAGE_CANCELLED });
  add_trace (session, a_cold, &(Spec) { 110, 2, { 10, 20 }, 30, RELAY_ERROR_STAGE_NONE });
  add_trace (session, b_run, &(Spec) { 300, 4, { 40, 40 }, -1, RELAY_ERROR_STAGE_NONE });
  add_trace (session, a_cold, &(Spec) { 120, 3, { 10, 20 }, 30, RELAY_ERROR_STAGE_NONE });
  add_trace (session, a_cold, &(Spec) { 5000, 9, { 900, 900 }, 30, RELAY_ERROR_STAGE_HTTP });
  add_trace (session, a_warm, &(Spec) { 130, 0, { 10, 20 }, 30, RELAY_ERROR_STAGE_NONE });
  add_trace (session, a_warm, &(Spec) { 140, 0, { 10, 200 }, 30, RELAY_ERROR_STAGE_NONE });
  add_trace (session, a_cold, &(Spec) { 9000, 9, { 900, 900 }, 30, RELAY_ERROR_STAGE_CANCELLED });
  add_trace (session, b_run, &(Spec) { 9000, 9, { 900, 900 }, -1, RELAY_ERROR_STAGE_TIMEOUT });
  add_trace (session, c_run, &(Spec) { 200, 0, { 25, 25 }, 10, RELAY_ERROR_STAGE_NONE });
  add_trace (session, d_run, &(Spec) { 200, 0, { 25, 25 }, 10, RELAY_ERROR_STAGE_CANCELLED });

  return session;
}

static void
test_grouping (void)
{
  g_autoptr(RelaySession) session = build_session ();
  g_autoptr(GPtrArray) rows = relay_summarize (session);
  RelaySummaryRow *row;

  /* In order of first appearance among the traces: alpha×m1, alpha×m2, beta×m1, beta×m2. */
  g_assert_cmpuint (rows->len, ==, 4);

  row = g_ptr_array_index (rows, 0);
  g_assert_cmpstr (row->endpoint, ==, "alpha");
  g_assert_cmpstr (row->model, ==, "m1");
  /* Two runs of the same endpoint × model share a row; cancelled probes are left out. */
  g_assert_cmpuint (row->n, ==, 6);
  g_assert_cmpuint (row->errors, ==, 1);
  g_assert_false (row->tokens_estimated);

  row = g_ptr_array_index (rows, 1);
  g_assert_cmpstr (row->endpoint, ==, "alpha");
  g_assert_cmpstr (row->model, ==, "m2");
  g_assert_cmpuint (row->n, ==, 1);
  g_assert_cmpuint (row->errors, ==, 0);
  g_assert_cmpfloat_with_epsilon (row->stats[RELAY_METRIC_TTFT].p50, 200, EPS);

  row = g_ptr_array_index (rows, 2);
  g_assert_cmpstr (row->endpoint, ==, "beta");
  g_assert_cmpstr (row->model, ==, "m1");
  g_assert_cmpuint (row->n, ==, 2);
  g_assert_cmpuint (row->errors, ==, 1);
  /* No usage reported: tokens were estimated from the characters. */
  g_assert_true (row->tokens_estimated);
  g_assert_cmpuint (row->stats[RELAY_METRIC_TTFT].n, ==, 1);
  g_assert_cmpfloat_with_epsilon (row->stats[RELAY_METRIC_TTFT].p95, 300, EPS);
  /* 3 chunks × 40 characters → 30 tokens over 80 ms. */
  g_assert_cmpfloat_with_epsilon (row->stats[RELAY_METRIC_TOKENS_PER_SECOND].p50, 375, EPS);

  /* Only cancelled probes: the row is there, with nothing in it. */
  row = g_ptr_array_index (rows, 3);
  g_assert_cmpstr (row->endpoint, ==, "beta");
  g_assert_cmpstr (row->model, ==, "m2");
  g_assert_cmpuint (row->n, ==, 0);
  g_assert_cmpuint (row->errors, ==, 0);
  for (guint m = 0; m < RELAY_N_METRICS; m++)
    {
      g_assert_cmpuint (row->stats[m].n, ==, 0);
      g_assert_true (isnan (row->stats[m].p50));
    }
}

static void
test_percentiles (void)
{
  g_autoptr(RelaySession) session = build_session ();
  g_autoptr(GPtrArray) rows = relay_summarize (session);
  RelaySummaryRow *row = g_ptr_array_index (rows, 0);
  const RelayStats *s;

  /* TTFT over the five successes: 100, 110, 120, 130, 140 ms.
   * p50 = 120; p95: h = 3.8 → 130 + 0.8 · 10 = 138. */
  s = &row->stats[RELAY_METRIC_TTFT];
  g_assert_cmpuint (s->n, ==, 5);
  g_assert_cmpfloat_with_epsilon (s->p50, 120, EPS);
  g_assert_cmpfloat_with_epsilon (s->p95, 138, EPS);
  g_assert_cmpfloat_with_epsilon (s->max, 140, EPS);

  /* DNS only from the three cold probes: 1, 2, 3 ms. p95: h = 1.9 → 2.9. */
  s = &row->stats[RELAY_METRIC_DNS];
  g_assert_cmpuint (s->n, ==, 3);
  g_assert_cmpfloat_with_epsilon (s->p50, 2, EPS);
  g_assert_cmpfloat_with_epsilon (s->p95, 2.9, EPS);

  s = &row->stats[RELAY_METRIC_TCP];
  g_assert_cmpuint (s->n, ==, 3);
  g_assert_cmpfloat_with_epsilon (s->p50, 2, EPS);
  s = &row->stats[RELAY_METRIC_TLS];
  g_assert_cmpuint (s->n, ==, 3);
  g_assert_cmpfloat_with_epsilon (s->p95, 5, EPS);

  s = &row->stats[RELAY_METRIC_WAIT];
  g_assert_cmpuint (s->n, ==, 5);
  g_assert_cmpfloat_with_epsilon (s->p50, 50, EPS);

  /* Total: first token + 1 s: 1100 … 1140. */
  s = &row->stats[RELAY_METRIC_TOTAL];
  g_assert_cmpfloat_with_epsilon (s->p50, 1120, EPS);
  g_assert_cmpfloat_with_epsilon (s->p95, 1138, EPS);

  /* ITL pools all ten gaps: 10 ×5, 20 ×4, 200. p50: h = 4.5 → 15;
   * p95: h = 8.55 → 20 + 0.55 · 180 = 119. The stall shows in p95. */
  s = &row->stats[RELAY_METRIC_ITL];
  g_assert_cmpuint (s->n, ==, 10);
  g_assert_cmpfloat_with_epsilon (s->p50, 15, EPS);
  g_assert_cmpfloat_with_epsilon (s->p95, 119, EPS);
  g_assert_cmpfloat_with_epsilon (s->max, 200, EPS);

  /* Tokens/s: 30 tokens over 30 ms (×4) and over 210 ms. Sorted 142.857…, 1000 ×4:
   * p50 = 1000; p95: h = 3.8 → 1000. min = 30 / 0.21. */
  s = &row->stats[RELAY_METRIC_TOKENS_PER_SECOND];
  g_assert_cmpuint (s->n, ==, 5);
  g_assert_cmpfloat_with_epsilon (s->p50, 1000, EPS);
  g_assert_cmpfloat_with_epsilon (s->min, 30 / 0.21, EPS);
  g_assert_cmpfloat_with_epsilon (s->mean, (4000 + 30 / 0.21) / 5, EPS);
}

static void
test_trace_metric (void)
{
  g_autoptr(RelaySession) session = build_session ();
  g_autoptr(RelayTrace) cold = g_list_model_get_item (relay_session_get_traces (session), 0);
  g_autoptr(RelayTrace) warm = g_list_model_get_item (relay_session_get_traces (session), 7);
  g_autoptr(RelayTrace) empty = relay_trace_new (0, 0);

  g_assert_cmpfloat_with_epsilon (relay_trace_get_metric (cold, RELAY_METRIC_DNS), 1, EPS);
  g_assert_cmpfloat_with_epsilon (relay_trace_get_metric (cold, RELAY_METRIC_TTFT), 100, EPS);
  g_assert_cmpfloat_with_epsilon (relay_trace_get_metric (cold, RELAY_METRIC_ITL), 15, EPS);
  g_assert_true (isnan (relay_trace_get_metric (warm, RELAY_METRIC_DNS)));
  g_assert_true (isnan (relay_trace_get_metric (warm, RELAY_METRIC_TLS)));
  /* One trace's ITL is its median gap: of 10 and 200 ms, 105. */
  g_assert_cmpfloat_with_epsilon (relay_trace_get_metric (warm, RELAY_METRIC_ITL), 105, EPS);
  g_assert_cmpfloat_with_epsilon (relay_trace_get_metric (warm, RELAY_METRIC_TOTAL), 1140, EPS);

  /* A trace with only its start mark has no figures at all. */
  for (guint m = 0; m < RELAY_N_METRICS; m++)
    g_assert_true (isnan (relay_trace_get_metric (empty, m)));
}

static void
test_metric_names (void)
{
  static const char * const names[] = {
    "dns", "tcp", "tls", "wait", "ttft", "itl", "tokens_per_s", "total",
  };

  G_STATIC_ASSERT (G_N_ELEMENTS (names) == RELAY_N_METRICS);

  for (guint m = 0; m < RELAY_N_METRICS; m++)
    g_assert_cmpstr (relay_metric_to_string (m), ==, names[m]);
}

static void
test_empty_session (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(GPtrArray) rows = relay_summarize (session);

  g_assert_cmpuint (rows->len, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/summary/grouping", test_grouping);
  g_test_add_func ("/summary/percentiles", test_percentiles);
  g_test_add_func ("/summary/trace-metric", test_trace_metric);
  g_test_add_func ("/summary/metric-names", test_metric_names);
  g_test_add_func ("/summary/empty-session", test_empty_session);

  return g_test_run ();
}
