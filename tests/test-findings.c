/* test-findings.c: every finding against simulated relays that produce its symptom and
 * against healthy ones that do not, plus the thresholds on hand-made traces.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "relay-findings.h"
#include "relay-sim-resolver.h"
#include "relay-test-util.h"

/* ---------------------------------------------------------------------------------------
 * Helpers.
 */

typedef struct
{
  const char      *host;          /* NULL: 127.0.0.1 */
  RelayApi         api;
  RelayConnection  connection;
  guint            repeat;
  guint            concurrency;
  guint            max_tokens;
  const char      *prompt;
} ProbeSpec;

static RelaySession *
probe_with (RelayEndpoint   *endpoint,
            const ProbeSpec *spec)
{
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  RelaySession *session = relay_session_new ();
  g_autoptr(GError) error = NULL;

  relay_probe_plan_add_endpoint (plan, endpoint);
  relay_probe_plan_set_repeat (plan, spec->repeat ? spec->repeat : 4);
  relay_probe_plan_set_concurrency (plan, spec->concurrency ? spec->concurrency : 1);
  relay_probe_plan_set_max_tokens (plan, spec->max_tokens ? spec->max_tokens : 32);
  relay_probe_plan_set_connection (plan, spec->connection);
  relay_probe_plan_set_timeout (plan, 30);
  if (spec->prompt != NULL)
    relay_probe_plan_set_prompt (plan, spec->prompt);

  error = relay_test_run_plan (plan, session, NULL, NULL);
  g_assert_no_error (error);

  return session;
}

static RelaySession *
probe_sim (RelaySimServer  *server,
           const char      *override,
           const ProbeSpec *spec)
{
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, spec->host, spec->api, override);

  return probe_with (endpoint, spec);
}

/* Runs of the same endpoint at each concurrency in turn, into one session: what it takes to
 * see a queue (one concurrency alone has nothing to compare with). */
static RelaySession *
probe_levels (RelaySimServer *server,
              const char     *override,
              const guint    *levels,
              guint           n_levels)
{
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, NULL, RELAY_API_OPENAI_CHAT, override);
  RelaySession *session = relay_session_new ();

  for (guint i = 0; i < n_levels; i++)
    {
      g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
      g_autoptr(GError) error = NULL;

      relay_probe_plan_add_endpoint (plan, endpoint);
      relay_probe_plan_set_concurrency (plan, levels[i]);
      relay_probe_plan_set_repeat (plan, 2 * levels[i]);
      relay_probe_plan_set_max_tokens (plan, 16);
      relay_probe_plan_set_timeout (plan, 30);
      error = relay_test_run_plan (plan, session, NULL, NULL);
      g_assert_no_error (error);
    }

  return session;
}

static RelayFinding *
find (GPtrArray  *findings,
      const char *id)
{
  for (guint i = 0; i < findings->len; i++)
    {
      RelayFinding *finding = g_ptr_array_index (findings, i);

      if (g_strcmp0 (finding->id, id) == 0)
        return finding;
    }

  return NULL;
}

static void
dump (GPtrArray *findings)
{
  g_autofree char *text = relay_findings_format_text (findings);

  g_test_message ("%s", text);
}

/* The findings that are problems are exactly the ids given (NULL-terminated); info
 * findings must be among allowed_info (NULL: none allowed). */
static void
assert_findings (GPtrArray          *findings,
                 const char * const *allowed_info,
                 ...)
{
  g_autoptr(GPtrArray) expected = g_ptr_array_new ();
  const char *id;
  va_list args;

  va_start (args, allowed_info);
  while ((id = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (expected, (gpointer) id);
  va_end (args);

  dump (findings);

  for (guint i = 0; i < findings->len; i++)
    {
      RelayFinding *finding = g_ptr_array_index (findings, i);

      if (finding->severity == RELAY_FINDING_INFO)
        {
          if (allowed_info == NULL || !g_strv_contains (allowed_info, finding->id))
            g_error ("unexpected info finding %s: %s", finding->id, finding->summary);
          continue;
        }

      if (!g_ptr_array_find_with_equal_func (expected, finding->id, g_str_equal, NULL))
        {
          /* Under sanitizers the client's own TLS and DNS work is many times slower: those
           * findings are then true of the measurement, not of the relay. */
          if (g_strcmp0 (g_getenv ("RELAYSCOPE_TIMING_TESTS"), "0") == 0 &&
              (g_strcmp0 (finding->id, RELAY_FINDING_SLOW_TLS) == 0 ||
               g_strcmp0 (finding->id, RELAY_FINDING_SLOW_DNS) == 0))
            continue;
          g_error ("unexpected finding %s: %s", finding->id, finding->summary);
        }
    }

  for (guint i = 0; i < expected->len; i++)
    if (find (findings, g_ptr_array_index (expected, i)) == NULL)
      g_error ("finding %s did not fire", (const char *) g_ptr_array_index (expected, i));
}

static void
assert_well_formed (RelayFinding *finding,
                    RelaySession *session)
{
  guint n_traces = g_list_model_get_n_items (relay_session_get_traces (session));

  g_assert_nonnull (finding->title);
  g_assert_nonnull (finding->summary);
  g_assert_nonnull (finding->remedy);
  g_assert_nonnull (finding->endpoint);
  g_assert_cmpuint (finding->traces->len, >, 0);
  for (guint i = 0; i < finding->traces->len; i++)
    {
      g_assert_cmpuint (g_array_index (finding->traces, guint, i), <, n_traces);
      if (i > 0)
        g_assert_cmpuint (g_array_index (finding->traces, guint, i), >,
                          g_array_index (finding->traces, guint, i - 1));
    }
  /* The sentence carries its numbers. */
  g_assert_true (strpbrk (finding->summary, "0123456789") != NULL);
}

static const char * const connection_info[] = { RELAY_FINDING_CONNECTION_COST, NULL };

/* ---------------------------------------------------------------------------------------
 * Healthy endpoints: no finding.
 */

static void
test_fast_http_cold (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  ProbeSpec spec = { .connection = RELAY_CONNECTION_COLD, .repeat = 5 };
  g_autoptr(RelaySession) session = probe_sim (server, NULL, &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);

  /* Plain HTTP on loopback: a new connection costs well under a millisecond. */
  assert_findings (findings, NULL, NULL);
}

static void
test_fast_tls_cold (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", TRUE, NULL);
  ProbeSpec spec = { .host = "fast.relayscope.test", .connection = RELAY_CONNECTION_COLD, .repeat = 5 };
  g_autoptr(RelaySession) session = probe_sim (server, NULL, &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  RelayFinding *cost;

  /* Over TLS the handshakes may cost enough to be worth saying, as information only. */
  assert_findings (findings, connection_info, NULL);
  if ((cost = find (findings, RELAY_FINDING_CONNECTION_COST)) != NULL)
    {
      assert_well_formed (cost, session);
      g_assert_null (cost->model);
      g_assert_true (strstr (cost->summary, "TLS") != NULL);
      g_assert_cmpfloat (cost->impact_ms, >=, RELAY_FINDINGS_CONNECTION_COST_MIN_MS);
    }
}

static void
test_fast_tls_warm (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", TRUE, NULL);
  ProbeSpec spec = { .host = "fast.relayscope.test", .connection = RELAY_CONNECTION_WARM, .repeat = 5 };
  g_autoptr(RelaySession) session = probe_sim (server, NULL, &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);

  assert_findings (findings, NULL, NULL);
}

static void
test_fast_concurrent (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  const guint levels[] = { 1, 4 };
  g_autoptr(RelaySession) session = probe_levels (server, NULL, levels, 2);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);

  /* A server without a queue: concurrency must not read as queueing. */
  assert_findings (findings, NULL, NULL);
}

/* ---------------------------------------------------------------------------------------
 * Pathologies: the right finding.
 */

static void
test_buffering (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("buffering", FALSE, NULL);
  ProbeSpec spec = { .connection = RELAY_CONNECTION_WARM, .repeat = 3, .max_tokens = 64 };
  g_autoptr(RelaySession) session = probe_sim (server, NULL, &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  RelayFinding *finding;

  assert_findings (findings, NULL, RELAY_FINDING_BUFFERING_PROXY, NULL);
  finding = find (findings, RELAY_FINDING_BUFFERING_PROXY);
  assert_well_formed (finding, session);
  g_assert_cmpuint (finding->traces->len, ==, 3);
  g_assert_cmpint (finding->confidence, >=, RELAY_CONFIDENCE_MEDIUM);
  /* 16 tokens a burst, 15 ms apart: the first token waited for about 15 more. */
  g_assert_true (strstr (finding->summary, "16.0 tokens per delivery") != NULL);
  g_assert_cmpfloat (finding->impact_ms, >, 150);
  g_assert_cmpfloat (finding->impact_ms, <, 400);
}

static void
test_buffering_whole (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  ProbeSpec spec = { .connection = RELAY_CONNECTION_WARM, .repeat = 3, .max_tokens = 40 };
  g_autoptr(RelaySession) session = probe_sim (server, "coalesce=64, itl_ms=5", &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  RelayFinding *finding;

  assert_findings (findings, NULL, RELAY_FINDING_BUFFERING_PROXY, NULL);
  finding = find (findings, RELAY_FINDING_BUFFERING_PROXY);
  g_assert_true (strstr (finding->summary, "whole answer") != NULL);
}

static void
test_no_reuse (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  ProbeSpec spec = { .connection = RELAY_CONNECTION_WARM, .repeat = 4 };
  g_autoptr(RelaySession) session = probe_sim (server, "close_connection=true", &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  RelayFinding *finding;

  assert_findings (findings, NULL, RELAY_FINDING_NO_CONNECTION_REUSE, NULL);
  finding = find (findings, RELAY_FINDING_NO_CONNECTION_REUSE);
  assert_well_formed (finding, session);
  /* The warm-up connection served the first probe; every later one needed a new one. */
  g_assert_cmpuint (finding->traces->len, >=, 3);
}

static void
test_slow_dns (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  ProbeSpec spec = { .host = "slowdns.relayscope.test", .repeat = 3 };
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(GPtrArray) findings = NULL;
  RelayFinding *finding;

  relay_sim_resolver_set_delay ("slowdns.relayscope.test", 150);
  session = probe_sim (server, NULL, &spec);
  findings = relay_findings_analyze (session);

  /* 150 ms of DNS is also a costly new connection (information). */
  assert_findings (findings, connection_info, RELAY_FINDING_SLOW_DNS, NULL);
  finding = find (findings, RELAY_FINDING_SLOW_DNS);
  assert_well_formed (finding, session);
  g_assert_true (strstr (finding->summary, "slowdns.relayscope.test") != NULL);
  g_assert_cmpfloat (finding->impact_ms, >=, 140);
  g_assert_cmpfloat (finding->impact_ms, <, 1000);
  g_assert_cmpuint (finding->traces->len, ==, 3);
  g_assert_cmpint (finding->confidence, ==, RELAY_CONFIDENCE_MEDIUM);
}

/* A TCP forwarder that holds back the server's first flight: a TLS handshake that takes
 * longer than the TCP connect suggests. */
typedef struct
{
  GSocket *from;
  GSocket *to;
  guint    delay_ms;
} Pump;

typedef struct
{
  GSocketListener *listener;
  GCancellable    *cancellable;
  GThread         *thread;
  guint16          port;
  guint16          target;
  guint            delay_ms;
} Forwarder;

static gpointer
pump_thread (gpointer data)
{
  Pump *pump = data;
  char buffer[16384];
  gboolean first = TRUE;

  for (;;)
    {
      gssize n = g_socket_receive (pump->from, buffer, sizeof buffer, NULL, NULL);
      gssize done = 0;

      if (n <= 0)
        break;
      if (first && pump->delay_ms > 0)
        g_usleep (pump->delay_ms * 1000);
      first = FALSE;

      while (done < n)
        {
          gssize w = g_socket_send (pump->to, buffer + done, n - done, NULL, NULL);

          if (w <= 0)
            goto out;
          done += w;
        }
    }

out:
  g_socket_shutdown (pump->to, FALSE, TRUE, NULL);
  g_socket_shutdown (pump->from, TRUE, FALSE, NULL);
  g_object_unref (pump->from);
  g_object_unref (pump->to);
  g_free (pump);

  return NULL;
}

static void
pump_start (GSocket *from,
            GSocket *to,
            guint    delay_ms)
{
  Pump *pump = g_new0 (Pump, 1);

  pump->from = g_object_ref (from);
  pump->to = g_object_ref (to);
  pump->delay_ms = delay_ms;
  g_thread_unref (g_thread_new ("test-pump", pump_thread, pump));
}

static gpointer
forwarder_thread (gpointer data)
{
  Forwarder *fwd = data;

  for (;;)
    {
      g_autoptr(GSocket) client = g_socket_listener_accept_socket (fwd->listener, NULL, fwd->cancellable, NULL);
      g_autoptr(GSocket) server = NULL;
      g_autoptr(GInetAddress) loopback = NULL;
      g_autoptr(GSocketAddress) address = NULL;

      if (client == NULL)
        break;

      loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
      address = g_inet_socket_address_new (loopback, fwd->target);
      server = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
      if (server == NULL || !g_socket_connect (server, address, NULL, NULL))
        continue;

      g_socket_set_blocking (client, TRUE);
      g_socket_set_blocking (server, TRUE);
      pump_start (client, server, 0);
      pump_start (server, client, fwd->delay_ms);
    }

  return NULL;
}

static Forwarder *
forwarder_start (guint16 target,
                 guint   delay_ms)
{
  Forwarder *fwd = g_new0 (Forwarder, 1);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GError) error = NULL;

  fwd->listener = g_socket_listener_new ();
  fwd->cancellable = g_cancellable_new ();
  fwd->target = target;
  fwd->delay_ms = delay_ms;
  g_socket_listener_add_address (fwd->listener, address, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &effective, &error);
  g_assert_no_error (error);
  fwd->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  fwd->thread = g_thread_new ("test-forwarder", forwarder_thread, fwd);

  return fwd;
}

static void
forwarder_stop (Forwarder *fwd)
{
  g_cancellable_cancel (fwd->cancellable);
  g_thread_join (fwd->thread);
  g_socket_listener_close (fwd->listener);
  g_object_unref (fwd->listener);
  g_object_unref (fwd->cancellable);
  g_free (fwd);
}

static void
test_slow_tls (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", TRUE, NULL);
  Forwarder *fwd = forwarder_start (relay_sim_server_get_port (server), 150);
  g_autofree char *base = g_strdup_printf ("https://127.0.0.1:%u/v1", fwd->port);
  g_autofree char *ca = relay_test_ca_file ();
  g_autoptr(RelayEndpoint) endpoint = relay_endpoint_new ("slow-tls", base, RELAY_API_OPENAI_CHAT);
  const char *models[] = { "sim-model", NULL };
  ProbeSpec spec = { .repeat = 3 };
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(GPtrArray) findings = NULL;
  RelayFinding *finding;

  relay_endpoint_set_models (endpoint, models);
  relay_endpoint_set_ca_file (endpoint, ca);
  session = probe_with (endpoint, &spec);
  findings = relay_findings_analyze (session);
  forwarder_stop (fwd);

  assert_findings (findings, connection_info, RELAY_FINDING_SLOW_TLS, NULL);
  finding = find (findings, RELAY_FINDING_SLOW_TLS);
  assert_well_formed (finding, session);
  g_assert_cmpfloat (finding->impact_ms, >=, 140);
  g_assert_cmpfloat (finding->impact_ms, <, 1000);
}

static void
test_server_wait (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  ProbeSpec spec = { .repeat = 3 };
  g_autoptr(RelaySession) session = probe_sim (server, "headers_delay_ms=450, ttft_ms=200", &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  RelayFinding *finding;

  assert_findings (findings, NULL, RELAY_FINDING_SERVER_WAIT, NULL);
  finding = find (findings, RELAY_FINDING_SERVER_WAIT);
  assert_well_formed (finding, session);
  g_assert_cmpfloat (finding->impact_ms, >=, 640);
  g_assert_cmpfloat (finding->impact_ms, <, 1500);
}

static char *
long_prompt (const char *unique,
             guint       tokens)
{
  GString *prompt = g_string_new (unique);

  while (prompt->len < tokens * 4)
    g_string_append (prompt, " The quick brown fox jumps over the lazy dog again.");
  g_string_truncate (prompt, tokens * 4);

  return g_string_free (prompt, FALSE);
}

static void
test_prompt_cache_hit (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  g_autofree char *prompt = long_prompt ("Shared context. ", 2048);
  ProbeSpec spec = { .repeat = 4, .prompt = prompt, .max_tokens = 8 };
  g_autoptr(RelaySession) session = probe_sim (server, "prefill_us_per_token=200, cache_discount=0.8", &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  RelayFinding *finding;

  assert_findings (findings, (const char * const[]) { RELAY_FINDING_PROMPT_CACHE_HIT, NULL }, NULL);
  finding = find (findings, RELAY_FINDING_PROMPT_CACHE_HIT);
  assert_well_formed (finding, session);
  /* The first request fills the cache; the three after it hit. 80 % of 2048 tokens at
   * 0.2 ms a token is about 330 ms saved. */
  g_assert_cmpuint (finding->traces->len, ==, 3);
  g_assert_true (strstr (finding->summary, "prompt tokens (80 %) were cached") != NULL);
  g_assert_cmpfloat (finding->impact_ms, >, 250);
  g_assert_cmpfloat (finding->impact_ms, <, 450);
}

static void
test_prompt_cache_miss (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  g_autofree char *prompt = long_prompt ("Shared context. ", 2048);
  ProbeSpec spec = { .repeat = 3, .prompt = prompt, .max_tokens = 8 };
  g_autoptr(RelaySession) session = probe_sim (server, "cache_discount=0", &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  RelayFinding *finding;

  assert_findings (findings, NULL, RELAY_FINDING_PROMPT_CACHE_MISS, NULL);
  finding = find (findings, RELAY_FINDING_PROMPT_CACHE_MISS);
  assert_well_formed (finding, session);
  g_assert_cmpuint (finding->traces->len, ==, 3);
}

static void
test_reasoning (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("reasoning", FALSE, NULL);
  ProbeSpec spec = { .api = RELAY_API_ANTHROPIC_MESSAGES, .repeat = 3, .max_tokens = 16 };
  g_autoptr(RelaySession) session = probe_sim (server, NULL, &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  RelayFinding *finding;

  assert_findings (findings, NULL, RELAY_FINDING_REASONING_DELAY, NULL);
  finding = find (findings, RELAY_FINDING_REASONING_DELAY);
  assert_well_formed (finding, session);
  /* 48 reasoning tokens 12 ms apart. */
  g_assert_cmpfloat (finding->impact_ms, >, 450);
  g_assert_cmpfloat (finding->impact_ms, <, 900);
}

static void
test_throttling_stalls (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  ProbeSpec spec = { .repeat = 3, .max_tokens = 40 };
  g_autoptr(RelaySession) session = probe_sim (server, "stall_probability=0.08, stall_ms=400, tokens=40", &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  RelayFinding *finding;

  assert_findings (findings, NULL, RELAY_FINDING_THROTTLING, NULL);
  finding = find (findings, RELAY_FINDING_THROTTLING);
  assert_well_formed (finding, session);
  g_assert_true (strstr (finding->summary, "mid-stream") != NULL);
}

static void
test_throttling_429 (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  ProbeSpec spec = { .repeat = 2 };
  g_autoptr(RelaySession) session = probe_sim (server, "fault=http-429", &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  RelayFinding *finding;

  assert_findings (findings, NULL, RELAY_FINDING_THROTTLING, NULL);
  finding = find (findings, RELAY_FINDING_THROTTLING);
  assert_well_formed (finding, session);
  g_assert_true (strstr (finding->summary, "429") != NULL);
  g_assert_true (strstr (finding->summary, "retry-after 2") != NULL);
  g_assert_cmpuint (finding->traces->len, ==, 2);
}

static void
test_throttling_headers (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  ProbeSpec spec = { .repeat = 2 };
  g_autoptr(RelaySession) session = probe_sim (server, "ratelimit_remaining=3", &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  RelayFinding *finding;

  assert_findings (findings, NULL, RELAY_FINDING_THROTTLING, NULL);
  finding = find (findings, RELAY_FINDING_THROTTLING);
  g_assert_true (strstr (finding->summary, "x-ratelimit-remaining-requests was 3 of 10000") != NULL);
}

static void
test_queue (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  const guint levels[] = { 1, 4 };
  g_autoptr(RelaySession) session = probe_levels (server, "queue_ms_per_active=80", levels, 2);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(RelaySession) loaded = NULL;
  g_autoptr(GPtrArray) again = NULL;
  g_autoptr(GError) error = NULL;
  RelayFinding *finding;

  /* The queue delays the headers: the server's side may grow past its budget as well. */
  finding = find (findings, RELAY_FINDING_CONCURRENCY_QUEUE);
  dump (findings);
  g_assert_nonnull (finding);
  assert_well_formed (finding, session);
  g_assert_null (find (findings, RELAY_FINDING_THROTTLING));
  g_assert_null (find (findings, RELAY_FINDING_BUFFERING_PROXY));
  /* Alone, a request waits for nobody; four at once wait 0 to 240 ms, then 240 ms each. */
  g_assert_cmpfloat (finding->impact_ms, >, 120);
  g_assert_cmpfloat (finding->impact_ms, <, 400);
  g_assert_cmpuint (finding->traces->len, ==, 10);

  /* From a file there is no monotonic clock: the wall clock gives the same answer. */
  node = relay_session_to_json (session);
  loaded = relay_session_new_from_json (node, &error);
  g_assert_no_error (error);
  again = relay_findings_analyze (loaded);
  g_assert_nonnull (find (again, RELAY_FINDING_CONCURRENCY_QUEUE));
}

static void
test_relay_overhead (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  ProbeSpec spec = { .repeat = 3 };
  g_autoptr(RelaySession) session = probe_sim (server, "relay_overhead_ms=150", &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  RelayFinding *finding;

  assert_findings (findings, NULL, RELAY_FINDING_RELAY_OVERHEAD, NULL);
  finding = find (findings, RELAY_FINDING_RELAY_OVERHEAD);
  assert_well_formed (finding, session);
  g_assert_true (strstr (finding->summary, "openai-processing-ms") != NULL);
  g_assert_cmpfloat (finding->impact_ms, >, 130);
  g_assert_cmpfloat (finding->impact_ms, <, 300);
}

static void
test_model_mismatch (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  ProbeSpec spec = { .repeat = 2 };
  g_autoptr(RelaySession) session = probe_sim (server, "model=sim-small-0", &spec);
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  g_autoptr(RelaySession) snapshot = probe_sim (server, "model=sim-model-2025-01-31", &spec);
  g_autoptr(GPtrArray) none = relay_findings_analyze (snapshot);
  RelayFinding *finding;

  assert_findings (findings, NULL, RELAY_FINDING_MODEL_MISMATCH, NULL);
  finding = find (findings, RELAY_FINDING_MODEL_MISMATCH);
  assert_well_formed (finding, session);
  g_assert_true (strstr (finding->summary, "sim-model") != NULL);
  g_assert_true (strstr (finding->summary, "sim-small-0") != NULL);

  /* A dated snapshot of the requested model is the same model. */
  assert_findings (none, NULL, NULL);
}

/* ---------------------------------------------------------------------------------------
 * Thresholds on hand-made traces.
 */

/* A trace of run 0 whose chunks arrive at the given times (ms after the first token), one
 * token each unless tokens says otherwise. */
static void
add_trace (RelaySession *session,
           const double *times_ms,
           guint         n,
           gint64        tokens,
           double        ttft_ms)
{
  g_autoptr(RelayTrace) trace = relay_trace_new (0, g_list_model_get_n_items (relay_session_get_traces (session)) + 1);
  g_autoptr(GDateTime) wall = g_date_time_new_now_utc ();
  RelayUsage usage = RELAY_USAGE_INIT;
  gint64 first = (gint64) (ttft_ms * 1000);
  gint64 last = first;

  relay_trace_set_wall_start (trace, wall);
  relay_trace_set_mark (trace, RELAY_MARK_START, 0);
  relay_trace_set_mark (trace, RELAY_MARK_CONNECT_START, 100);
  relay_trace_set_mark (trace, RELAY_MARK_TCP_END, 300);
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, 400);
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, 500);
  relay_trace_set_mark (trace, RELAY_MARK_RESPONSE_START, 20000);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_BYTE, 20100);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_EVENT, 20200);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, first);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_CONTENT, first);
  for (guint i = 0; i < n; i++)
    {
      last = first + (gint64) (times_ms[i] * 1000);
      relay_trace_add_chunk (trace, last, RELAY_CHUNK_CONTENT, 20, 4);
    }
  relay_trace_set_mark (trace, RELAY_MARK_LAST_TOKEN, last);
  relay_trace_set_mark (trace, RELAY_MARK_END, last + 1000);
  relay_trace_set_http_status (trace, 200);
  usage.prompt_tokens = 10;
  usage.completion_tokens = tokens >= 0 ? tokens : n;
  relay_trace_set_usage (trace, &usage);
  relay_trace_set_model_reported (trace, "m");
  relay_session_add_trace (session, trace);
}

static RelaySession *
synthetic_session (void)
{
  RelaySession *session = relay_session_new ();
  g_autoptr(RelayRun) run = relay_run_new ("synthetic", "m");

  relay_session_add_run (session, run);
  return session;
}

/* n chunks in bursts of `burst`, bursts 40 ms apart, chunks of a burst 0.1 ms apart. */
static void
add_bursty_trace (RelaySession *session,
                  guint         n,
                  guint         burst)
{
  g_autofree double *times = g_new (double, n);

  for (guint i = 0; i < n; i++)
    times[i] = (i / burst) * 40.0 + (i % burst) * 0.1;
  add_trace (session, times, n, n, 100);
}

static void
test_threshold_buffering (void)
{
  g_autoptr(RelaySession) below = synthetic_session ();
  g_autoptr(RelaySession) at = synthetic_session ();
  g_autoptr(RelaySession) short_stream = synthetic_session ();
  g_autoptr(GPtrArray) f_below = NULL;
  g_autoptr(GPtrArray) f_at = NULL;
  g_autoptr(GPtrArray) f_short = NULL;
  RelayFinding *finding;

  /* Three tokens a delivery is a provider's chunking; four is a buffer. */
  for (guint i = 0; i < 3; i++)
    add_bursty_trace (below, 24, 3);
  for (guint i = 0; i < 3; i++)
    add_bursty_trace (at, 24, 4);
  /* Too short a stream to tell. */
  add_bursty_trace (short_stream, 12, 12);

  f_below = relay_findings_analyze (below);
  f_at = relay_findings_analyze (at);
  f_short = relay_findings_analyze (short_stream);

  g_assert_null (find (f_below, RELAY_FINDING_BUFFERING_PROXY));
  finding = find (f_at, RELAY_FINDING_BUFFERING_PROXY);
  g_assert_nonnull (finding);
  /* Three traces, just at the threshold: not yet sure. */
  g_assert_cmpint (finding->confidence, ==, RELAY_CONFIDENCE_MEDIUM);
  g_assert_null (find (f_short, RELAY_FINDING_BUFFERING_PROXY));
}

static void
test_threshold_stalls (void)
{
  double steady[30];
  double one_stall[30];
  g_autoptr(RelaySession) single = synthetic_session ();
  g_autoptr(RelaySession) twice = synthetic_session ();
  g_autoptr(RelaySession) slow = synthetic_session ();
  g_autoptr(GPtrArray) f_single = NULL;
  g_autoptr(GPtrArray) f_twice = NULL;
  g_autoptr(GPtrArray) f_slow = NULL;
  RelayFinding *finding;

  for (guint i = 0; i < 30; i++)
    {
      steady[i] = i * 20.0;
      one_stall[i] = i * 20.0 + (i >= 15 ? 300 : 0);
    }

  /* One pause of 320 ms is not yet a pattern. */
  add_trace (single, one_stall, 30, -1, 100);
  add_trace (single, steady, 30, -1, 100);
  /* Two are. */
  add_trace (twice, one_stall, 30, -1, 100);
  add_trace (twice, one_stall, 30, -1, 100);
  add_trace (twice, steady, 30, -1, 100);
  /* A slow but even stream is not throttled: 320 ms is under 8 × its usual 60 ms gap. */
  for (guint i = 0; i < 30; i++)
    one_stall[i] = i * 60.0 + (i >= 15 ? 260 : 0);
  add_trace (slow, one_stall, 30, -1, 100);
  add_trace (slow, one_stall, 30, -1, 100);

  f_single = relay_findings_analyze (single);
  f_twice = relay_findings_analyze (twice);
  f_slow = relay_findings_analyze (slow);

  g_assert_null (find (f_single, RELAY_FINDING_THROTTLING));
  finding = find (f_twice, RELAY_FINDING_THROTTLING);
  g_assert_nonnull (finding);
  g_assert_cmpuint (finding->traces->len, ==, 2);
  g_assert_cmpuint (g_array_index (finding->traces, guint, 0), ==, 0);
  g_assert_cmpuint (g_array_index (finding->traces, guint, 1), ==, 1);
  g_assert_null (find (f_slow, RELAY_FINDING_THROTTLING));
}

static void
test_model_names (void)
{
  static const struct
  {
    const char *requested;
    const char *reported;
    gboolean    mismatch;
  } cases[] = {
    { "gpt-4o", "gpt-4o", FALSE },
    { "gpt-4o", "gpt-4o-2024-08-06", FALSE },
    { "claude-3-5-haiku-latest", "claude-3-5-haiku-20241022", FALSE },
    { "openai/gpt-4o", "gpt-4o-2024-08-06", FALSE },
    { "gpt-4o", "gpt-4o-mini", TRUE },
    { "gpt-4o", "gpt-3.5-turbo", TRUE },
    { "default", "anything", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(RelaySession) session = relay_session_new ();
      g_autoptr(RelayRun) run = relay_run_new ("synthetic", cases[i].requested);
      g_autoptr(GPtrArray) findings = NULL;
      g_autoptr(RelayTrace) trace = NULL;
      double times[] = { 0, 10, 20 };

      relay_session_add_run (session, run);
      add_trace (session, times, 3, -1, 100);
      trace = g_list_model_get_item (relay_session_get_traces (session), 0);
      relay_trace_set_model_reported (trace, cases[i].reported);
      findings = relay_findings_analyze (session);
      g_assert_cmpint (find (findings, RELAY_FINDING_MODEL_MISMATCH) != NULL, ==, cases[i].mismatch);
    }
}

static void
test_cancelled_ignored (void)
{
  g_autoptr(RelaySession) session = synthetic_session ();
  g_autoptr(GPtrArray) findings = NULL;
  guint n = g_list_model_get_n_items (relay_session_get_traces (session));

  /* Bursty streams that were cancelled say nothing. */
  for (guint i = 0; i < 3; i++)
    add_bursty_trace (session, 24, 8);
  for (guint i = n; i < n + 3; i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (relay_session_get_traces (session), i);

      relay_trace_set_error (trace, RELAY_ERROR_STAGE_CANCELLED, "cancelled", "Cancelled.");
    }

  findings = relay_findings_analyze (session);
  g_assert_cmpuint (findings->len, ==, 0);
}

static void
test_format (void)
{
  g_autoptr(RelaySession) session = synthetic_session ();
  g_autoptr(GPtrArray) findings = NULL;
  g_autoptr(GPtrArray) empty = g_ptr_array_new ();
  g_autoptr(JsonNode) json = NULL;
  g_autofree char *text = NULL;
  g_autofree char *nothing = NULL;
  g_autoptr(RelayFinding) copy = NULL;
  JsonObject *object;

  for (guint i = 0; i < 5; i++)
    add_bursty_trace (session, 32, 8);
  findings = relay_findings_analyze (session);
  g_assert_cmpuint (findings->len, ==, 1);
  g_assert_cmpint (((RelayFinding *) findings->pdata[0])->confidence, ==, RELAY_CONFIDENCE_HIGH);

  text = relay_findings_format_text (findings);
  g_test_message ("%s", text);
  g_assert_true (g_str_has_prefix (text, "Findings:"));
  g_assert_true (strstr (text, "[problem, high confidence] A proxy buffers the stream (synthetic, m)") != NULL);
  g_assert_true (strstr (text, "What to do:") != NULL);
  g_assert_true (strstr (text, "Evidence: traces 1–5") != NULL);
  /* Wrapped for a terminal. */
  {
    g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

    for (guint i = 0; lines[i] != NULL; i++)
      g_assert_cmpuint (g_utf8_strlen (lines[i], -1), <=, 100);
  }

  nothing = relay_findings_format_text (empty);
  g_assert_true (strstr (nothing, "nothing stands out") != NULL);

  json = relay_findings_to_json (findings);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (json));
  object = json_array_get_object_element (json_node_get_array (json), 0);
  g_assert_cmpstr (json_object_get_string_member (object, "id"), ==, RELAY_FINDING_BUFFERING_PROXY);
  g_assert_cmpstr (json_object_get_string_member (object, "severity"), ==, "problem");
  g_assert_cmpstr (json_object_get_string_member (object, "confidence"), ==, "high");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "traces")), ==, 5);

  copy = relay_finding_copy (findings->pdata[0]);
  g_assert_cmpstr (copy->summary, ==, ((RelayFinding *) findings->pdata[0])->summary);
  g_assert_cmpuint (copy->traces->len, ==, 5);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  relay_sim_resolver_install ();
  relay_sim_resolver_set_delay ("fast.relayscope.test", 5);

  g_test_add_func ("/findings/threshold/buffering", test_threshold_buffering);
  g_test_add_func ("/findings/threshold/stalls", test_threshold_stalls);
  g_test_add_func ("/findings/threshold/model-names", test_model_names);
  g_test_add_func ("/findings/threshold/cancelled", test_cancelled_ignored);
  g_test_add_func ("/findings/format", test_format);
  g_test_add_func ("/findings/healthy/fast-http-cold", test_fast_http_cold);
  g_test_add_func ("/findings/healthy/fast-tls-cold", test_fast_tls_cold);
  g_test_add_func ("/findings/healthy/fast-tls-warm", test_fast_tls_warm);
  g_test_add_func ("/findings/healthy/fast-concurrent", test_fast_concurrent);
  g_test_add_func ("/findings/sim/buffering", test_buffering);
  g_test_add_func ("/findings/sim/buffering-whole", test_buffering_whole);
  g_test_add_func ("/findings/sim/no-reuse", test_no_reuse);
  g_test_add_func ("/findings/sim/slow-dns", test_slow_dns);
  g_test_add_func ("/findings/sim/slow-tls", test_slow_tls);
  g_test_add_func ("/findings/sim/server-wait", test_server_wait);
  g_test_add_func ("/findings/sim/prompt-cache-hit", test_prompt_cache_hit);
  g_test_add_func ("/findings/sim/prompt-cache-miss", test_prompt_cache_miss);
  g_test_add_func ("/findings/sim/reasoning", test_reasoning);
  g_test_add_func ("/findings/sim/throttling-stalls", test_throttling_stalls);
  g_test_add_func ("/findings/sim/throttling-429", test_throttling_429);
  g_test_add_func ("/findings/sim/throttling-headers", test_throttling_headers);
  g_test_add_func ("/findings/sim/queue", test_queue);
  g_test_add_func ("/findings/sim/relay-overhead", test_relay_overhead);
  g_test_add_func ("/findings/sim/model-mismatch", test_model_mismatch);

  return g_test_run ();
}
