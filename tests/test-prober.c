/* test-prober.c: the prober against the simulated relay: marks, chunks, usage, connection
 * reuse, concurrency, rate and cancellation.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "relay-sim-resolver.h"
#include "relay-test-util.h"

static void
quick_profile (RelaySimProfile *p)
{
  p->headers_delay_ms = 5;
  p->prefill_us_per_token = 0;
  p->ttft_ms = 10;
  p->itl_ms = 2;
  p->itl_jitter_ms = 0;
  p->stall_probability = 0;
  p->tokens = 12;
  p->fault = RELAY_SIM_FAULT_NONE;
  p->fault_probability = 0;
}

static void
assert_marks_ordered (RelayTrace *trace)
{
  gint64 last = 0;

  for (guint m = 0; m < RELAY_N_MARKS; m++)
    {
      gint64 t = relay_trace_get_mark (trace, m);

      if (t == RELAY_TIME_NONE)
        continue;
      /* The marks of the model happen in enum order on a healthy probe. */
      g_assert_cmpint (t, >=, last);
      last = t;
    }
}

static void
test_openai_http (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, quick_profile);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, NULL, RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  const RelayUsage *usage;
  RelaySegment segments[RELAY_N_MARKS + 1];
  RelayTestRun run;
  guint n_segments;

  relay_probe_plan_add_endpoint (plan, endpoint);
  relay_probe_plan_set_max_tokens (plan, 64);
  error = relay_test_run_plan (plan, session, NULL, &run);
  g_assert_no_error (error);
  g_assert_cmpuint (run.added, ==, 1);
  g_assert_cmpuint (run.changed, >=, 1);

  trace = relay_test_get_trace (session, 0);
  g_assert_cmpstr (relay_trace_get_error_message (trace), ==, NULL);
  g_assert_true (relay_trace_is_ok (trace));
  g_assert_cmpuint (relay_trace_get_http_status (trace), ==, 200);
  g_assert_cmpstr (relay_trace_get_http_version (trace), ==, "HTTP/1.1");
  g_assert_false (relay_trace_get_reused (trace));
  g_assert_cmpuint (relay_trace_get_connect_attempts (trace), >=, 1);
  g_assert_nonnull (relay_trace_get_remote (trace));
  g_assert_true (g_str_has_prefix (relay_trace_get_remote (trace), "127.0.0.1:"));

  /* Plain HTTP to an IP: no DNS, no TLS; a TCP connect. */
  g_assert_false (relay_trace_has_mark (trace, RELAY_MARK_TLS_START));
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_CONNECT_START));
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_TCP_END));
  for (guint m = RELAY_MARK_REQUEST_START; m <= RELAY_MARK_END; m++)
    g_assert_true (relay_trace_has_mark (trace, m));
  assert_marks_ordered (trace);

  /* Every token is a chunk (no coalescing in this profile). */
  g_assert_cmpuint (relay_trace_get_n_chunks (trace), ==, 12);
  usage = relay_trace_get_usage (trace);
  g_assert_cmpint (usage->completion_tokens, ==, 12);
  g_assert_cmpint (usage->prompt_tokens, >, 0);
  g_assert_false (usage->estimated);
  g_assert_cmpstr (relay_trace_get_model_reported (trace), ==, "sim-model");
  g_assert_nonnull (relay_trace_get_server_header (trace, "x-request-id"));
  g_assert_nonnull (relay_trace_get_raw_events (trace));

  /* The segments tile the timeline from start to end. */
  n_segments = relay_trace_get_segments (trace, segments, G_N_ELEMENTS (segments));
  g_assert_cmpuint (n_segments, >, 3);
  g_assert_cmpint (segments[0].begin_us, ==, 0);
  for (guint i = 1; i < n_segments; i++)
    g_assert_cmpint (segments[i].begin_us, ==, segments[i - 1].end_us);
  g_assert_cmpint (segments[n_segments - 1].end_us, ==, relay_trace_get_mark (trace, RELAY_MARK_END));

  /* The session got the endpoint and its run. */
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_endpoints (session)), ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_runs (session)), ==, 1);
}

static void
reasoning_profile (RelaySimProfile *p)
{
  quick_profile (p);
  p->reasoning_tokens = 6;
}

static void
test_anthropic_reasoning_tls (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("reasoning", TRUE, reasoning_profile);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, "localhost", RELAY_API_ANTHROPIC_MESSAGES, NULL);
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  const RelayChunk *chunks;
  guint n_chunks, n_reasoning = 0;

  relay_probe_plan_add_endpoint (plan, endpoint);
  relay_probe_plan_set_reasoning_effort (plan, "low");
  relay_probe_plan_set_max_tokens (plan, 2048);
  error = relay_test_run_plan (plan, session, NULL, NULL);
  g_assert_no_error (error);

  trace = relay_test_get_trace (session, 0);
  g_assert_cmpstr (relay_trace_get_error_message (trace), ==, NULL);
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_DNS_START));
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_TLS_START));
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_TLS_END));
  g_assert_nonnull (relay_trace_get_tls_version (trace));
  g_assert_nonnull (relay_trace_get_cipher (trace));
  assert_marks_ordered (trace);

  /* Thinking first: first token before first visible content. */
  g_assert_cmpint (relay_trace_get_mark (trace, RELAY_MARK_FIRST_TOKEN), <,
                   relay_trace_get_mark (trace, RELAY_MARK_FIRST_CONTENT));
  chunks = relay_trace_get_chunks (trace, &n_chunks);
  for (guint i = 0; i < n_chunks; i++)
    if (chunks[i].kind == RELAY_CHUNK_REASONING)
      n_reasoning++;
  g_assert_cmpuint (n_reasoning, ==, 6);
  g_assert_cmpuint (n_chunks, ==, 6 + 12);
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_REASONING), >, 0);
}

static void
test_cold_and_warm (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", TRUE, quick_profile);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, "warm.relayscope.test", RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) cold = relay_session_new ();
  g_autoptr(RelaySession) warm = relay_session_new ();
  g_autoptr(GError) error = NULL;

  relay_sim_resolver_install ();
  relay_sim_resolver_set_delay ("warm.relayscope.test", 5);

  relay_probe_plan_add_endpoint (plan, endpoint);
  relay_probe_plan_set_repeat (plan, 3);

  /* Cold: every probe resolves, connects and shakes hands. */
  relay_probe_plan_set_connection (plan, RELAY_CONNECTION_COLD);
  error = relay_test_run_plan (plan, cold, NULL, NULL);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (cold)), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(RelayTrace) trace = relay_test_get_trace (cold, i);

      g_assert_true (relay_trace_is_ok (trace));
      g_assert_false (relay_trace_get_reused (trace));
      g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_DNS_START));
      g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_CONNECT_START));
      g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_TLS_END));
    }

  /* Warm: the connection opened by the warm-up is reused, so no DNS, TCP or TLS marks. */
  relay_probe_plan_set_connection (plan, RELAY_CONNECTION_WARM);
  error = relay_test_run_plan (plan, warm, NULL, NULL);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (warm)), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(RelayTrace) trace = relay_test_get_trace (warm, i);

      g_assert_true (relay_trace_is_ok (trace));
      g_assert_true (relay_trace_get_reused (trace));
      g_assert_cmpuint (relay_trace_get_connect_attempts (trace), ==, 0);
      g_assert_false (relay_trace_has_mark (trace, RELAY_MARK_DNS_START));
      g_assert_false (relay_trace_has_mark (trace, RELAY_MARK_CONNECT_START));
      g_assert_false (relay_trace_has_mark (trace, RELAY_MARK_TLS_START));
      g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_FIRST_TOKEN));
    }
}

static void
slow_profile (RelaySimProfile *p)
{
  quick_profile (p);
  p->headers_delay_ms = 150;
  p->tokens = 3;
}

typedef struct
{
  guint max_in_flight;
  guint in_flight;
} FlightCount;

static void
on_added_flight (RelayProber *prober, RelayTrace *trace, FlightCount *count)
{
  count->in_flight++;
  count->max_in_flight = MAX (count->max_in_flight, count->in_flight);
}

static void
on_finished_flight (RelayProber *prober, RelayTrace *trace, FlightCount *count)
{
  count->in_flight--;
}

static void
test_concurrency_limit (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, slow_profile);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, NULL, RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayProber) prober = relay_prober_new ();
  FlightCount count = { 0 };
  RelayTestRun run = { 0 };
  gint64 started;
  double elapsed_ms;

  relay_probe_plan_add_endpoint (plan, endpoint);
  relay_probe_plan_set_repeat (plan, 6);
  relay_probe_plan_set_concurrency (plan, 2);

  relay_prober_set_key_func (prober, relay_test_key_func, NULL, NULL);
  g_signal_connect (prober, "trace-added", G_CALLBACK (on_added_flight), &count);
  g_signal_connect (prober, "trace-finished", G_CALLBACK (on_finished_flight), &count);

  started = g_get_monotonic_time ();
  relay_prober_run_async (prober, plan, session, NULL, relay_test_run_done, &run);
  while (!run.done)
    g_main_context_iteration (NULL, TRUE);
  elapsed_ms = (g_get_monotonic_time () - started) / 1000.0;

  g_assert_no_error (run.error);
  g_assert_cmpuint (count.max_in_flight, ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (session)), ==, 6);
  /* Six probes of ≥150 ms, two at a time: at least three rounds. */
  g_assert_cmpfloat (elapsed_ms, >=, 3 * 150);
  g_clear_error (&run.error);
}

static void
test_rate_limit (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, quick_profile);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, NULL, RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RelayTrace) first = NULL;
  g_autoptr(RelayTrace) last = NULL;
  double spread_ms;

  relay_probe_plan_add_endpoint (plan, endpoint);
  relay_probe_plan_set_repeat (plan, 4);
  relay_probe_plan_set_concurrency (plan, 4);
  relay_probe_plan_set_rate (plan, 10);   /* one start per 100 ms */

  error = relay_test_run_plan (plan, session, NULL, NULL);
  g_assert_no_error (error);

  first = relay_test_get_trace (session, 0);
  last = relay_test_get_trace (session, 3);
  spread_ms = (relay_trace_get_mono_start (last) - relay_trace_get_mono_start (first)) / 1000.0;
  g_assert_cmpfloat (spread_ms, >=, 3 * 100 - 5);
}

static void
stall_profile (RelaySimProfile *p)
{
  quick_profile (p);
  p->fault = RELAY_SIM_FAULT_STALL;
  p->fault_probability = 1;
  p->fault_after = 2;
}

static gboolean
cancel_soon (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static void
test_cancel (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, stall_profile);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, NULL, RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RelayTrace) trace = NULL;

  relay_probe_plan_add_endpoint (plan, endpoint);
  relay_probe_plan_set_repeat (plan, 5);
  g_timeout_add (300, cancel_soon, cancellable);

  error = relay_test_run_plan (plan, session, cancellable, NULL);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  /* The stalled probe is finished as cancelled; the others never started. */
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (session)), ==, 1);
  trace = relay_test_get_trace (session, 0);
  g_assert_cmpint (relay_trace_get_error_stage (trace), ==, RELAY_ERROR_STAGE_CANCELLED);
  g_assert_cmpuint (relay_trace_get_n_chunks (trace), ==, 2);
  g_assert_true (relay_trace_is_finished (trace));
}

static void
test_key_sent (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, quick_profile);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, NULL, RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayProber) prober = relay_prober_new ();
  g_autoptr(RelayTrace) trace = NULL;
  RelayTestRun run = { 0 };

  /* The default key lookup reads the variable the endpoint names; it is unset here, so no
   * key is sent and the relay answers 401, which the message must explain. */
  relay_endpoint_set_key_env (endpoint, "RELAYSCOPE_TEST_UNSET_KEY");
  g_unsetenv ("RELAYSCOPE_TEST_UNSET_KEY");
  relay_probe_plan_add_endpoint (plan, endpoint);
  relay_prober_run_async (prober, plan, session, NULL, relay_test_run_done, &run);
  while (!run.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (run.error);

  trace = relay_test_get_trace (session, 0);
  g_assert_cmpint (relay_trace_get_error_stage (trace), ==, RELAY_ERROR_STAGE_HTTP);
  g_assert_cmpuint (relay_trace_get_http_status (trace), ==, 401);
  g_assert_nonnull (strstr (relay_trace_get_error_message (trace), "RELAYSCOPE_TEST_UNSET_KEY"));
  g_assert_nonnull (strstr (relay_trace_get_error_message (trace), "no API key"));

  /* With the variable set, the same probe succeeds. */
  g_setenv ("RELAYSCOPE_TEST_UNSET_KEY", "dummy-test-key", TRUE);
  g_clear_object (&session);
  session = relay_session_new ();
  run = (RelayTestRun) { 0 };
  relay_prober_run_async (prober, plan, session, NULL, relay_test_run_done, &run);
  while (!run.done)
    g_main_context_iteration (NULL, TRUE);
  g_clear_object (&trace);
  trace = relay_test_get_trace (session, 0);
  g_assert_true (relay_trace_is_ok (trace));
  g_unsetenv ("RELAYSCOPE_TEST_UNSET_KEY");
}


/* A minimal HTTP CONNECT proxy that waits PROXY_DELAY_MS before it answers, so the proxy
 * negotiation segment has a known length. */
#define PROXY_DELAY_MS 40

static void
splice_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_io_stream_splice_finish (result, NULL);
  *(gboolean *) user_data = TRUE;
}

static gboolean
on_proxy_run (GThreadedSocketService *service,
              GSocketConnection      *connection,
              GObject                *source,
              gpointer                user_data)
{
  g_autoptr(GDataInputStream) in = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (connection)));
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) upstream = NULL;
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autofree char *request = NULL;
  g_auto(GStrv) parts = NULL;
  const char *reply = "HTTP/1.1 200 Connection established\r\n\r\n";
  gboolean done = FALSE;

  /* Nothing follows the CONNECT request until it is answered, so reading lines cannot
   * swallow the TLS handshake. */
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (in), FALSE);
  request = g_data_input_stream_read_line (in, NULL, NULL, NULL);
  if (request == NULL)
    return TRUE;
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line (in, NULL, NULL, NULL);

      if (line == NULL || line[0] == '\r' || line[0] == '\0')
        break;
    }

  parts = g_strsplit (request, " ", 3);
  if (g_strv_length (parts) < 2 || g_strcmp0 (parts[0], "CONNECT") != 0)
    return TRUE;

  g_usleep (PROXY_DELAY_MS * 1000);
  upstream = g_socket_client_connect_to_host (client, parts[1], 443, NULL, NULL);
  if (upstream == NULL)
    return TRUE;

  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)),
                             reply, strlen (reply), NULL, NULL, NULL);

  g_main_context_push_thread_default (context);
  g_io_stream_splice_async (G_IO_STREAM (connection), G_IO_STREAM (upstream),
                            G_IO_STREAM_SPLICE_NONE, G_PRIORITY_DEFAULT, NULL,
                            splice_done, &done);
  while (!done)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);

  return TRUE;
}

static void
test_proxy_segment (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", TRUE, quick_profile);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, "localhost", RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(GSocketService) proxy = g_threaded_socket_service_new (4);
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  g_autofree char *proxy_uri = NULL;
  guint16 port;
  double negotiation;

  port = g_socket_listener_add_any_inet_port (G_SOCKET_LISTENER (proxy), NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (proxy, "run", G_CALLBACK (on_proxy_run), NULL);
  g_socket_service_start (proxy);

  proxy_uri = g_strdup_printf ("http://127.0.0.1:%u", port);
  relay_endpoint_set_proxy (endpoint, proxy_uri);
  relay_probe_plan_add_endpoint (plan, endpoint);
  error = relay_test_run_plan (plan, session, NULL, NULL);
  g_assert_no_error (error);

  trace = relay_test_get_trace (session, 0);
  g_assert_cmpstr (relay_trace_get_error_message (trace), ==, NULL);
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_PROXY_START));
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_PROXY_END));
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_TLS_END));
  assert_marks_ordered (trace);

  /* The proxy's own delay is its segment, not TCP's and not TLS's. */
  negotiation = relay_trace_get_stage_duration (trace, RELAY_STAGE_PROXY) / 1000.0;
  g_test_message ("proxy negotiation %.2f ms for an injected %d ms", negotiation, PROXY_DELAY_MS);
  g_assert_cmpfloat (negotiation, >=, PROXY_DELAY_MS - 1);
  /* Under valgrind or sanitizers every step is slow; only the lower bound holds there. */
  if (g_strcmp0 (g_getenv ("RELAYSCOPE_TIMING_TESTS"), "0") != 0)
    g_assert_cmpfloat (negotiation, <=, PROXY_DELAY_MS + 30);
  g_assert_cmpfloat (relay_test_ms (trace, RELAY_MARK_CONNECT_START, RELAY_MARK_TCP_END), <, PROXY_DELAY_MS);

  g_socket_service_stop (proxy);
  g_socket_listener_close (G_SOCKET_LISTENER (proxy));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prober/openai-http", test_openai_http);
  g_test_add_func ("/prober/anthropic-reasoning-tls", test_anthropic_reasoning_tls);
  g_test_add_func ("/prober/cold-and-warm", test_cold_and_warm);
  g_test_add_func ("/prober/concurrency-limit", test_concurrency_limit);
  g_test_add_func ("/prober/rate-limit", test_rate_limit);
  g_test_add_func ("/prober/cancel", test_cancel);
  g_test_add_func ("/prober/key-from-environment", test_key_sent);
  g_test_add_func ("/prober/proxy-segment", test_proxy_segment);

  return g_test_run ();
}
