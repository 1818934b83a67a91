/* test-accuracy.c: the measured marks recover delays injected by the simulated relay.
 *
 * Tolerances are generous (a shared, noisy machine): each measurement must be no less than
 * the injected delay minus a small slack and not much more. The benchmark, not this test,
 * reports the real error.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "relay-sim-resolver.h"
#include "relay-stats.h"
#include "relay-test-util.h"

#define HEADERS_MS 120.0
#define TTFT_MS    90.0
#define ITL_MS     25.0
#define DNS_MS     70.0
#define TOKENS     16
#define SLACK_MS   2.0    /* a measurement may come in this much under the injected delay */
#define LATE_MS    30.0   /* … and this much over it (scheduler noise on a busy machine) */

/* RELAYSCOPE_TIMING_TESTS=0 (the sanitizer build, many times slower) skips the timing
 * checks and keeps the rest: a late mark makes the next interval short as well as long. */
static gboolean timing = TRUE;

static void
known_delays (RelaySimProfile *p)
{
  p->headers_delay_ms = HEADERS_MS;
  p->prefill_us_per_token = 0;
  p->cache_discount = 0;
  p->ttft_ms = TTFT_MS;
  p->reasoning_tokens = 0;
  p->itl_ms = ITL_MS;
  p->itl_jitter_ms = 0;
  p->stall_probability = 0;
  p->coalesce = 1;
  p->tokens = TOKENS;
  p->role_chunk = TRUE;
  p->fault = RELAY_SIM_FAULT_NONE;
  p->fault_probability = 0;
}

static void
assert_near (const char *what,
             double      measured,
             double      injected)
{
  g_test_message ("%s: injected %.1f ms, measured %.3f ms", what, injected, measured);
  if (!timing)
    return;
  g_assert_cmpfloat (measured, >=, injected - SLACK_MS);
  g_assert_cmpfloat (measured, <=, injected + LATE_MS);
}

static void
test_injected_delays (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", TRUE, known_delays);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, "dns70.relayscope.test", RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) waits = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) ttfts = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) gaps = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) dns = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) lags = g_array_new (FALSE, FALSE, sizeof (double));
  RelayStats stats;
  guint n;

  relay_sim_resolver_install ();
  relay_sim_resolver_set_delay ("dns70.relayscope.test", (guint) DNS_MS);

  relay_probe_plan_add_endpoint (plan, endpoint);
  relay_probe_plan_set_repeat (plan, 5);
  relay_probe_plan_set_connection (plan, RELAY_CONNECTION_COLD);
  error = relay_test_run_plan (plan, session, NULL, NULL);
  g_assert_no_error (error);

  n = g_list_model_get_n_items (relay_session_get_traces (session));
  g_assert_cmpuint (n, ==, 5);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RelayTrace) trace = relay_test_get_trace (session, i);
      const RelayChunk *chunks;
      guint n_chunks;
      double v;

      g_assert_cmpstr (relay_trace_get_error_message (trace), ==, NULL);

      v = relay_test_ms (trace, RELAY_MARK_REQUEST_END, RELAY_MARK_RESPONSE_START);
      g_array_append_val (waits, v);
      v = relay_test_ms (trace, RELAY_MARK_RESPONSE_START, RELAY_MARK_FIRST_TOKEN);
      g_array_append_val (ttfts, v);
      v = relay_test_ms (trace, RELAY_MARK_DNS_START, RELAY_MARK_DNS_END);
      g_array_append_val (dns, v);

      /* Role-only first chunk is not a token: the first token is the first content. */
      g_assert_cmpint (relay_trace_get_mark (trace, RELAY_MARK_FIRST_TOKEN), ==,
                       relay_trace_get_mark (trace, RELAY_MARK_FIRST_CONTENT));
      g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_TLS_END));

      chunks = relay_trace_get_chunks (trace, &n_chunks);
      g_assert_cmpuint (n_chunks, ==, TOKENS);
      for (guint c = 0; c < n_chunks; c++)
        {
          gint64 sent = relay_trace_get_chunk_sent (trace, c);
          gint64 read = relay_trace_get_mono_start (trace) + chunks[c].t_us;

          /* Same machine, same clock: a chunk is read after it was sent. */
          g_assert_cmpint (sent, >, 0);
          g_assert_cmpint (read, >=, sent);
          v = (read - sent) / 1000.0;
          g_array_append_val (lags, v);
        }
      for (guint c = 1; c < n_chunks; c++)
        {
          v = (chunks[c].t_us - chunks[c - 1].t_us) / 1000.0;
          g_array_append_val (gaps, v);
        }
    }

  relay_stats_compute ((double *) (gpointer) waits->data, waits->len, &stats);
  assert_near ("wait (headers delay) p50", stats.p50, HEADERS_MS);
  relay_stats_compute ((double *) (gpointer) ttfts->data, ttfts->len, &stats);
  assert_near ("headers → first token p50", stats.p50, TTFT_MS);
  relay_stats_compute ((double *) (gpointer) dns->data, dns->len, &stats);
  assert_near ("DNS p50", stats.p50, DNS_MS);
  relay_stats_compute ((double *) (gpointer) lags->data, lags->len, &stats);
  g_test_message ("read lag after the relay's send stamp: p50 %.3f ms, p99 %.3f ms", stats.p50, stats.p99);
  if (timing)
    g_assert_cmpfloat (stats.p50, <=, 5.0);
  relay_stats_compute ((double *) (gpointer) gaps->data, gaps->len, &stats);
  assert_near ("inter-chunk gap p50", stats.p50, ITL_MS);
  /* Gaps are paced against absolute deadlines, so they cannot drift far either way. */
  if (timing)
    g_assert_cmpfloat (fabs (stats.mean - ITL_MS), <=, 5.0);
}

static void
test_other_is_small (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", TRUE, known_delays);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, "localhost", RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  gint64 other, ttft;

  if (!timing)
    {
      g_test_skip ("RELAYSCOPE_TIMING_TESTS=0");
      return;
    }

  relay_probe_plan_add_endpoint (plan, endpoint);
  error = relay_test_run_plan (plan, session, NULL, NULL);
  g_assert_no_error (error);

  /* The stages account for the time: what no stage claims stays under 1 % of TTFT
   * (with a 1 ms floor for a busy machine). */
  trace = relay_test_get_trace (session, 0);
  other = relay_trace_get_stage_duration (trace, RELAY_STAGE_OTHER);
  ttft = relay_trace_get_interval (trace, RELAY_MARK_START, RELAY_MARK_FIRST_TOKEN);
  if (other == RELAY_TIME_NONE)
    other = 0;
  g_test_message ("unclaimed %" G_GINT64_FORMAT " µs of a %" G_GINT64_FORMAT " µs TTFT", other, ttft);
  g_assert_cmpint (other, <=, MAX (ttft / 100, 1000));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  timing = g_strcmp0 (g_getenv ("RELAYSCOPE_TIMING_TESTS"), "0") != 0;

  g_test_add_func ("/accuracy/injected-delays", test_injected_delays);
  g_test_add_func ("/accuracy/other-is-small", test_other_is_small);

  return g_test_run ();
}
