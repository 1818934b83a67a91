/* test-experiment.c: the guided experiments: their steps, their analyses against simulated
 * relays with known delays, saved and reopened sessions, cancellation and the CLI.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "relay-experiment.h"
#include "relay-findings.h"
#include "relay-sim-resolver.h"
#include "relay-test-util.h"
#include "relay-test-cli.h"

/* ---------------------------------------------------------------------------------------
 * Helpers.
 */

typedef struct
{
  gboolean               done;
  RelayExperimentResult *result;
  GError                *error;
  guint                  steps_started;
  GCancellable          *cancel_at_step;   /* cancelled when the second step starts */
} ExperimentRun;

static void
on_experiment_done (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  ExperimentRun *run = user_data;

  run->result = relay_experiment_run_finish (RELAY_EXPERIMENT (object), result, &run->error);
  run->done = TRUE;
}

static void
on_step_started (RelayExperiment *experiment,
                 guint            step,
                 guint            n_steps,
                 ExperimentRun   *run)
{
  g_assert_cmpuint (step, ==, run->steps_started);
  g_assert_cmpuint (n_steps, ==, relay_experiment_get_n_steps (experiment));
  run->steps_started++;
  if (run->cancel_at_step != NULL && step == 1)
    g_cancellable_cancel (run->cancel_at_step);
}

/* Runs experiment into session; returns the result (or NULL with run->error set). */
static RelayExperimentResult *
run_experiment (RelayExperiment *experiment,
                RelaySession    *session,
                GCancellable    *cancellable,
                ExperimentRun   *out)
{
  g_autoptr(RelayProber) prober = relay_prober_new ();
  ExperimentRun run = { 0 };
  gint64 deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  gulong id;

  run.cancel_at_step = cancellable;
  relay_prober_set_key_func (prober, relay_test_key_func, NULL, NULL);
  id = g_signal_connect (experiment, "step-started", G_CALLBACK (on_step_started), &run);
  relay_experiment_run_async (experiment, prober, session, cancellable, on_experiment_done, &run);

  while (!run.done)
    {
      g_main_context_iteration (NULL, TRUE);
      if (g_get_monotonic_time () > deadline)
        g_error ("the experiment did not finish within 120 s");
    }
  g_signal_handler_disconnect (experiment, id);

  if (out != NULL)
    *out = run;
  else if (run.error != NULL)
    g_error ("the experiment failed: %s", run.error->message);

  if (run.result != NULL)
    {
      g_autofree char *text = relay_experiment_result_format_text (run.result);

      g_test_message ("%s", text);
      g_assert_cmpuint (run.steps_started, ==, relay_experiment_get_n_steps (experiment));
    }

  return run.result;
}

static double
number (RelayExperimentResult *result,
        const char            *name)
{
  JsonNode *node = json_object_get_member (result->numbers, name);

  g_assert_nonnull (node);
  if (JSON_NODE_HOLDS_NULL (node))
    return NAN;
  return json_node_get_double (node);
}

static RelayExperiment *
experiment_for (RelayExperimentKind  kind,
                RelayEndpoint       *endpoint)
{
  RelayExperiment *experiment = relay_experiment_new (kind);

  relay_experiment_add_endpoint (experiment, endpoint);
  relay_experiment_set_timeout (experiment, 30);
  return experiment;
}

/* Every experiment gives a headline with numbers and a table as wide as its heading. */
static void
assert_result_sane (RelayExperimentResult *result,
                    RelayExperimentKind    kind)
{
  g_assert_cmpint (result->kind, ==, kind);
  g_assert_nonnull (result->headline);
  g_assert_true (strpbrk (result->headline, "0123456789") != NULL);
  g_assert_false (g_str_has_prefix (result->headline, "Not enough"));
  g_assert_nonnull (result->columns);
  g_assert_cmpuint (result->rows->len, >, 0);
  for (guint i = 0; i < result->rows->len; i++)
    g_assert_cmpuint (g_strv_length (g_ptr_array_index (result->rows, i)), ==, g_strv_length (result->columns));
  g_assert_cmpuint (result->series->len, >, 0);
}

/* ---------------------------------------------------------------------------------------
 * Definitions.
 */

static void
test_kinds (void)
{
  for (guint i = 0; i < RELAY_N_EXPERIMENTS; i++)
    {
      RelayExperimentKind kind = RELAY_N_EXPERIMENTS;

      g_assert_true (relay_experiment_kind_from_string (relay_experiment_kind_to_string (i), &kind));
      g_assert_cmpint (kind, ==, i);
      g_assert_nonnull (relay_experiment_kind_get_title (i));
      g_assert_nonnull (relay_experiment_kind_get_description (i));
    }
  g_assert_false (relay_experiment_kind_from_string ("warp-speed", &(RelayExperimentKind) { 0 }));
  g_assert_false (relay_experiment_kind_from_string (NULL, &(RelayExperimentKind) { 0 }));
}

static RelayEndpoint *
plain_endpoint (const char  *name,
                const char  *url,
                const char **models)
{
  RelayEndpoint *endpoint = relay_endpoint_new (name, url, RELAY_API_OPENAI_CHAT);
  const char *one[] = { "m", NULL };

  relay_endpoint_set_models (endpoint, models != NULL ? models : one);
  return endpoint;
}

static void
test_prepare_errors (void)
{
  g_autoptr(RelayEndpoint) a = plain_endpoint ("a", "http://127.0.0.1:1/v1", NULL);
  g_autoptr(RelayEndpoint) b = plain_endpoint ("b", "http://127.0.0.1:2/v1", NULL);
  g_autoptr(RelayEndpoint) two_models = plain_endpoint ("c", "http://127.0.0.1:3/v1",
                                                        (const char *[]) { "m1", "m2", NULL });
  const guint one_length[] = { 1000 };
  const guint levels[] = { 1, 0 };
  struct
  {
    RelayExperimentKind kind;
    RelayEndpoint      *first;
    RelayEndpoint      *second;
  } cases[] = {
    { RELAY_EXPERIMENT_RACE, a, NULL },
    { RELAY_EXPERIMENT_COLD_WARM, a, b },
    { RELAY_EXPERIMENT_COLD_WARM, two_models, NULL },
    { RELAY_EXPERIMENT_PROMPT_LENGTH, a, NULL },
    { RELAY_EXPERIMENT_CONCURRENCY, a, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(RelayExperiment) experiment = relay_experiment_new (cases[i].kind);
      g_autoptr(GError) error = NULL;

      relay_experiment_add_endpoint (experiment, cases[i].first);
      if (cases[i].second != NULL)
        relay_experiment_add_endpoint (experiment, cases[i].second);
      if (cases[i].kind == RELAY_EXPERIMENT_PROMPT_LENGTH)
        relay_experiment_set_prompt_lengths (experiment, one_length, 1);
      if (cases[i].kind == RELAY_EXPERIMENT_CONCURRENCY)
        relay_experiment_set_concurrency_levels (experiment, levels, 2);
      g_assert_false (relay_experiment_prepare (experiment, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
      g_test_message ("%s", error->message);
      g_assert_cmpuint (relay_experiment_get_n_steps (experiment), ==, 0);
    }

  /* The models experiment compares the models of one endpoint. */
  {
    g_autoptr(RelayExperiment) experiment = relay_experiment_new (RELAY_EXPERIMENT_MODELS);
    g_autoptr(GError) error = NULL;

    relay_experiment_add_endpoint (experiment, two_models);
    g_assert_true (relay_experiment_prepare (experiment, &error));
    g_assert_no_error (error);
  }
}

static void
test_steps (void)
{
  g_autoptr(RelayEndpoint) a = plain_endpoint ("a", "http://127.0.0.1:1/v1", NULL);
  g_autoptr(RelayEndpoint) b = plain_endpoint ("b", "http://127.0.0.1:2/v1",
                                               (const char *[]) { "m1", "m2", NULL });
  g_autoptr(GError) error = NULL;

  /* Cold and warm alternate. */
  {
    g_autoptr(RelayExperiment) e = experiment_for (RELAY_EXPERIMENT_COLD_WARM, a);

    relay_experiment_set_repeat (e, 3);
    g_assert_true (relay_experiment_prepare (e, &error));
    g_assert_cmpuint (relay_experiment_get_n_steps (e), ==, 6);
    g_assert_cmpuint (relay_experiment_get_n_probes (e), ==, 6);
    for (guint i = 0; i < 6; i++)
      {
        RelayProbePlan *plan = relay_experiment_get_step_plan (e, i);

        g_assert_cmpint (relay_probe_plan_get_connection (plan), ==,
                         i % 2 == 0 ? RELAY_CONNECTION_COLD : RELAY_CONNECTION_WARM);
        g_assert_cmpuint (relay_probe_plan_get_repeat (plan), ==, 1);
        g_assert_cmpuint (relay_probe_plan_get_max_tokens (plan), ==, 16);
      }
  }

  /* Prompt lengths: each prompt about the length asked for, each beginning differently, the
   * order alternating between rounds. */
  {
    g_autoptr(RelayExperiment) e = experiment_for (RELAY_EXPERIMENT_PROMPT_LENGTH, a);
    g_autoptr(GHashTable) starts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    const guint lengths[] = { 100, 1000, 3000 };
    const guint expected[] = { 100, 1000, 3000, 3000, 1000, 100 };

    relay_experiment_set_prompt_lengths (e, lengths, 3);
    relay_experiment_set_repeat (e, 2);
    g_assert_true (relay_experiment_prepare (e, &error));
    g_assert_cmpuint (relay_experiment_get_n_steps (e), ==, 6);
    for (guint i = 0; i < 6; i++)
      {
        const char *prompt = relay_probe_plan_get_prompt (relay_experiment_get_step_plan (e, i));
        gsize len = strlen (prompt);

        g_assert_cmpuint (len, >=, expected[i] * 4 * 0.95);
        g_assert_cmpuint (len, <=, expected[i] * 4 * 1.05 + 40);
        g_assert_true (g_hash_table_add (starts, g_strndup (prompt, 32)));
      }
  }

  /* Prompt cache: a priming request, then unique and repeated prompts in turn; repeated ones
   * share their prefix, unique ones do not, and all are about as long. */
  {
    g_autoptr(RelayExperiment) e = experiment_for (RELAY_EXPERIMENT_PROMPT_CACHE, a);
    const char *first;
    gsize prefix_len = 512 * 4 - 64;

    relay_experiment_set_prefix_tokens (e, 512);
    relay_experiment_set_repeat (e, 2);
    g_assert_true (relay_experiment_prepare (e, &error));
    g_assert_cmpuint (relay_experiment_get_n_steps (e), ==, 5);
    first = relay_probe_plan_get_prompt (relay_experiment_get_step_plan (e, 0));
    for (guint i = 1; i < 5; i++)
      {
        const char *prompt = relay_probe_plan_get_prompt (relay_experiment_get_step_plan (e, i));
        gboolean repeated = i % 2 == 0;

        g_assert_cmpint (strncmp (prompt, first, prefix_len) == 0, ==, repeated);
        g_assert_cmpstr (prompt, !=, first);
        g_assert_cmpuint (strlen (prompt), >=, 512 * 4 * 0.95);
        g_assert_cmpuint (strlen (prompt), <=, 512 * 4 * 1.05 + 40);
      }
  }

  /* Concurrency: one wave per step, level streams at once. */
  {
    g_autoptr(RelayExperiment) e = experiment_for (RELAY_EXPERIMENT_CONCURRENCY, a);
    const guint levels[] = { 1, 3 };

    relay_experiment_set_concurrency_levels (e, levels, 2);
    relay_experiment_set_repeat (e, 2);
    g_assert_true (relay_experiment_prepare (e, &error));
    g_assert_cmpuint (relay_experiment_get_n_steps (e), ==, 4);
    g_assert_cmpuint (relay_experiment_get_n_probes (e), ==, 8);
    for (guint i = 0; i < 4; i++)
      {
        RelayProbePlan *plan = relay_experiment_get_step_plan (e, i);

        g_assert_cmpuint (relay_probe_plan_get_concurrency (plan), ==, levels[i % 2]);
        g_assert_cmpuint (relay_probe_plan_get_repeat (plan), ==, levels[i % 2]);
        g_assert_cmpuint (relay_probe_plan_get_max_tokens (plan), ==, 64);
      }
  }

  /* Race: every run of every endpoint at once. */
  {
    g_autoptr(RelayExperiment) e = experiment_for (RELAY_EXPERIMENT_RACE, a);

    relay_experiment_add_endpoint (e, b);
    relay_experiment_set_repeat (e, 2);
    g_assert_true (relay_experiment_prepare (e, &error));
    g_assert_cmpuint (relay_experiment_get_n_steps (e), ==, 2);
    g_assert_cmpuint (relay_experiment_get_n_probes (e), ==, 6);
    g_assert_cmpuint (relay_probe_plan_get_concurrency (relay_experiment_get_step_plan (e, 0)), ==, 3);
    g_assert_cmpint (relay_probe_plan_get_connection (relay_experiment_get_step_plan (e, 0)), ==, RELAY_CONNECTION_COLD);
  }

  /* Models: efforts alternate within each round. */
  {
    g_autoptr(RelayExperiment) e = experiment_for (RELAY_EXPERIMENT_MODELS, b);
    const char *efforts[] = { "low", "high", NULL };

    relay_experiment_set_efforts (e, efforts);
    relay_experiment_set_repeat (e, 2);
    g_assert_true (relay_experiment_prepare (e, &error));
    g_assert_cmpuint (relay_experiment_get_n_steps (e), ==, 4);
    g_assert_cmpuint (relay_experiment_get_n_probes (e), ==, 8);
    for (guint i = 0; i < 4; i++)
      g_assert_cmpstr (relay_probe_plan_get_reasoning_effort (relay_experiment_get_step_plan (e, i)), ==,
                       efforts[i % 2]);
  }
}

/* ---------------------------------------------------------------------------------------
 * Against the simulated relay.
 */

static void
test_cold_warm (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", TRUE, NULL);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, "coldwarm.relayscope.test",
                                                           RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(RelayExperiment) experiment = experiment_for (RELAY_EXPERIMENT_COLD_WARM, endpoint);
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayExperimentResult) result = NULL;

  relay_sim_resolver_set_delay ("coldwarm.relayscope.test", 80);
  relay_experiment_set_repeat (experiment, 3);
  result = run_experiment (experiment, session, NULL, NULL);

  assert_result_sane (result, RELAY_EXPERIMENT_COLD_WARM);
  g_assert_cmpint (result->chart, ==, RELAY_EXPERIMENT_CHART_STACKED_BARS);
  g_assert_cmpuint (result->categories->len, ==, 2);
  /* 80 ms of DNS and a TLS handshake saved by reuse; every warm probe reused. */
  g_assert_cmpfloat (number (result, "dns_p50_ms"), >=, 75);
  g_assert_cmpfloat (number (result, "dns_p50_ms"), <, 400);
  g_assert_cmpfloat (number (result, "saving_ms"), >=, 60);
  g_assert_cmpfloat (number (result, "warm_reused"), ==, 3);
  g_assert_cmpfloat (number (result, "warm_probes"), ==, 3);
  g_assert_true (strstr (result->headline, "Reusing the connection saves") != NULL);
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (session)), ==, 6);
  g_assert_nonnull (relay_session_get_title (session));
}

static void
test_prompt_length (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, NULL, RELAY_API_OPENAI_CHAT,
                                                           "prefill_us_per_token=250, ttft_ms=20");
  g_autoptr(RelayExperiment) experiment = experiment_for (RELAY_EXPERIMENT_PROMPT_LENGTH, endpoint);
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayExperimentResult) result = NULL;
  g_autoptr(RelayExperimentResult) again = NULL;
  g_autoptr(RelaySession) loaded = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  const guint lengths[] = { 100, 2000, 4000 };
  double slope;

  relay_experiment_set_prompt_lengths (experiment, lengths, 3);
  relay_experiment_set_repeat (experiment, 2);
  result = run_experiment (experiment, session, NULL, NULL);

  assert_result_sane (result, RELAY_EXPERIMENT_PROMPT_LENGTH);
  g_assert_cmpint (result->chart, ==, RELAY_EXPERIMENT_CHART_XY);
  /* 250 µs a token is 250 ms per 1,000 tokens; a busy machine may add an outlier or two. */
  slope = number (result, "prefill_ms_per_1k_tokens");
  g_assert_cmpfloat (slope, >, 250 * 0.75);
  g_assert_cmpfloat (slope, <, 250 * 1.25);
  g_assert_cmpfloat (number (result, "prefill_ci_low"), <=, slope);
  g_assert_cmpfloat (number (result, "prefill_ci_high"), >=, slope);
  g_assert_cmpfloat (number (result, "prefill_ci_low"), >, 0);
  g_assert_cmpfloat (number (result, "r2"), >, 0.9);
  g_assert_cmpfloat (number (result, "probes"), ==, 6);
  g_assert_cmpuint (result->rows->len, ==, 3);
  g_assert_true (strstr (result->headline, "Prefill costs") != NULL);

  /* A reopened session is explained the same way. */
  node = relay_session_to_json (session);
  loaded = relay_session_new_from_json (node, &error);
  g_assert_no_error (error);
  again = relay_experiment_analyze (loaded, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (number (again, "prefill_ms_per_1k_tokens"), slope, 1e-6);
  g_assert_cmpstr (again->headline, ==, result->headline);
}

static void
run_cache (const char             *override,
           RelayExperimentResult **out)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, NULL, RELAY_API_OPENAI_CHAT, override);
  g_autoptr(RelayExperiment) experiment = experiment_for (RELAY_EXPERIMENT_PROMPT_CACHE, endpoint);
  g_autoptr(RelaySession) session = relay_session_new ();

  relay_experiment_set_prefix_tokens (experiment, 1024);
  relay_experiment_set_repeat (experiment, 3);
  *out = run_experiment (experiment, session, NULL, NULL);
  assert_result_sane (*out, RELAY_EXPERIMENT_PROMPT_CACHE);
}

static void
test_prompt_cache (void)
{
  g_autoptr(RelayExperimentResult) hit = NULL;
  g_autoptr(RelayExperimentResult) miss = NULL;

  /* 80 % of 1,024 tokens at 0.2 ms each: about 164 ms saved. */
  run_cache ("prefill_us_per_token=200, cache_discount=0.8", &hit);
  g_assert_cmpfloat (number (hit, "hits"), ==, 3);
  g_assert_cmpfloat (number (hit, "repeated"), ==, 3);
  g_assert_cmpfloat (number (hit, "saving_ms"), >, 110);
  g_assert_cmpfloat (number (hit, "saving_ms"), <, 230);
  g_assert_cmpfloat (fabs (number (hit, "cached_tokens_p50") - 0.8 * number (hit, "prompt_tokens_p50")), <=, 2);
  g_assert_true (strstr (hit->headline, "The prompt cache saved") != NULL);

  run_cache ("prefill_us_per_token=200, cache_discount=0", &miss);
  g_assert_cmpfloat (number (miss, "hits"), ==, 0);
  g_assert_cmpfloat (fabs (number (miss, "saving_ms")), <, 60);
  g_assert_true (g_str_has_prefix (miss->headline, "No cache hits"));
}

static void
run_concurrency (const char             *override,
                 RelayExperimentResult **out)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, NULL, RELAY_API_OPENAI_CHAT, override);
  g_autoptr(RelayExperiment) experiment = experiment_for (RELAY_EXPERIMENT_CONCURRENCY, endpoint);
  g_autoptr(RelaySession) session = relay_session_new ();
  const guint levels[] = { 1, 4 };

  relay_experiment_set_concurrency_levels (experiment, levels, 2);
  relay_experiment_set_repeat (experiment, 1);
  relay_experiment_set_max_tokens (experiment, 8);
  *out = run_experiment (experiment, session, NULL, NULL);
  assert_result_sane (*out, RELAY_EXPERIMENT_CONCURRENCY);
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (session)), ==, 5);
}

static void
test_concurrency (void)
{
  g_autoptr(RelayExperimentResult) queue = NULL;
  g_autoptr(RelayExperimentResult) none = NULL;

  /* A request waits 60 ms for each one in flight: of four at once, the median waits 90 ms
   * more than one alone (a level between would hang on a few ms: the server may still be
   * closing the last wave's streams when the next one arrives). */
  run_concurrency ("queue_ms_per_active=60, tokens=8", &queue);
  g_assert_cmpfloat (number (queue, "knee"), ==, 4);
  g_assert_cmpfloat (number (queue, "last_level_without_queueing"), ==, 1);
  g_assert_true (g_str_has_prefix (queue->headline, "Queueing starts at 4"));
  g_assert_cmpfloat (number (queue, "throughput_highest"), >, number (queue, "throughput_lowest"));

  run_concurrency ("tokens=8", &none);
  g_assert_true (isnan (number (none, "knee")));
  g_assert_true (g_str_has_prefix (none->headline, "No queueing up to 4"));
}

static void
test_race (void)
{
  g_autoptr(RelaySimServer) fast = relay_test_start_sim ("fast", FALSE, NULL);
  g_autoptr(RelaySimServer) slow = relay_test_start_sim ("fast", FALSE, NULL);
  g_autoptr(RelayEndpoint) a = relay_test_endpoint (slow, NULL, RELAY_API_OPENAI_CHAT, "ttft_ms=350");
  g_autoptr(RelayEndpoint) b = relay_test_endpoint (fast, NULL, RELAY_API_OPENAI_CHAT, "ttft_ms=30");
  g_autoptr(RelayExperiment) experiment = experiment_for (RELAY_EXPERIMENT_RACE, a);
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayExperimentResult) result = NULL;

  relay_experiment_add_endpoint (experiment, b);
  relay_experiment_set_repeat (experiment, 3);
  result = run_experiment (experiment, session, NULL, NULL);

  assert_result_sane (result, RELAY_EXPERIMENT_RACE);
  g_assert_cmpstr (json_object_get_string_member (result->numbers, "fastest"), ==, "ttft_ms=30");
  g_assert_cmpfloat (number (result, "fastest_wins"), ==, 3);
  g_assert_cmpfloat (number (result, "rounds"), ==, 3);
  g_assert_cmpfloat (number (result, "slowest_ttft_p50_ms") - number (result, "fastest_ttft_p50_ms"), >, 250);
  /* Sorted fastest first. */
  g_assert_cmpstr (g_ptr_array_index (result->categories, 0), ==, "ttft_ms=30");

  /* Every round started both at the same instant. */
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(RelayTrace) x = g_list_model_get_item (relay_session_get_traces (session), 2 * i);
      g_autoptr(RelayTrace) y = g_list_model_get_item (relay_session_get_traces (session), 2 * i + 1);

      g_assert_cmpint (ABS (relay_trace_get_mono_start (x) - relay_trace_get_mono_start (y)), <, 50000);
    }
}

static void
test_models (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, NULL, RELAY_API_OPENAI_CHAT,
                                                           "model_ttft_ms=small:20|large:300, "
                                                           "effort_reasoning_tokens=low:2|high:30");
  g_autoptr(RelayExperiment) experiment = NULL;
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayExperimentResult) result = NULL;
  const char *models[] = { "small", "large", NULL };
  const char *efforts[] = { "low", "high", NULL };

  relay_endpoint_set_models (endpoint, models);
  experiment = experiment_for (RELAY_EXPERIMENT_MODELS, endpoint);
  relay_experiment_set_efforts (experiment, efforts);
  relay_experiment_set_repeat (experiment, 2);
  result = run_experiment (experiment, session, NULL, NULL);

  assert_result_sane (result, RELAY_EXPERIMENT_MODELS);
  g_assert_cmpuint (result->categories->len, ==, 4);
  g_assert_cmpstr (json_object_get_string_member (result->numbers, "fastest"), ==, "small at low effort");
  g_assert_cmpstr (json_object_get_string_member (result->numbers, "slowest"), ==, "large at high effort");
  /* 280 ms of TTFT between the models, 28 reasoning tokens 10 ms apart between the efforts. */
  g_assert_cmpfloat (number (result, "slowest_ttfo_p50_ms") - number (result, "fastest_ttfo_p50_ms"), >, 450);
  {
    gboolean effort_detail = FALSE;

    for (guint i = 0; i < result->details->len; i++)
      effort_detail |= strstr (g_ptr_array_index (result->details, i), "at high effort the first visible text came") != NULL;
    g_assert_true (effort_detail);
  }
}

static void
test_result_json (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, NULL, RELAY_API_OPENAI_CHAT, "tokens=4");
  g_autoptr(RelayExperiment) experiment = experiment_for (RELAY_EXPERIMENT_COLD_WARM, endpoint);
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayExperimentResult) result = NULL;
  g_autoptr(RelayExperimentResult) copy = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(JsonNode) json2 = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(RelaySession) loaded = NULL;
  JsonNode *member;
  int fd;

  relay_experiment_set_repeat (experiment, 2);
  result = run_experiment (experiment, session, NULL, NULL);

  json = relay_experiment_result_to_json (result);
  copy = relay_experiment_result_new_from_json (json, &error);
  g_assert_no_error (error);
  json2 = relay_experiment_result_to_json (copy);
  a = json_to_string (json, FALSE);
  b = json_to_string (json2, FALSE);
  g_assert_cmpstr (a, ==, b);

  /* The session file carries the experiment, its steps' runs and its result. */
  fd = g_file_open_tmp ("test-experiment-XXXXXX.relayscope", &path, &error);
  g_assert_no_error (error);
  close (fd);
  file = g_file_new_for_path (path);
  g_assert_true (relay_session_save (session, file, NULL, &error));
  g_assert_no_error (error);
  loaded = relay_session_load (file, NULL, &error);
  g_assert_no_error (error);
  g_unlink (path);

  member = relay_session_get_extra (loaded, RELAY_EXPERIMENT_MEMBER);
  g_assert_nonnull (member);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (member), "name"), ==, "cold-vs-warm");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (member), "steps")), ==, 4);
  saved = json_to_string (json_object_get_member (json_node_get_object (member), "result"), FALSE);
  g_assert_cmpstr (saved, ==, a);

  /* Bad members are refused, not guessed at. */
  {
    g_autoptr(RelaySession) empty = relay_session_new ();
    g_autoptr(JsonNode) bad = json_from_string ("{\"name\": \"warp-speed\", \"steps\": []}", NULL);
    g_autoptr(RelayExperimentResult) none = relay_experiment_analyze (empty, &error);

    g_assert_null (none);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
    g_clear_error (&error);
    relay_session_set_extra (empty, RELAY_EXPERIMENT_MEMBER, bad);
    g_assert_null (relay_experiment_analyze (empty, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_clear_error (&error);
  }
}

static void
test_cancel (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (server, NULL, RELAY_API_OPENAI_CHAT, "tokens=4");
  g_autoptr(RelayExperiment) experiment = experiment_for (RELAY_EXPERIMENT_COLD_WARM, endpoint);
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(RelayExperimentResult) partial = NULL;
  g_autoptr(GError) error = NULL;
  ExperimentRun run;
  JsonNode *member;

  relay_experiment_set_repeat (experiment, 5);
  run_experiment (experiment, session, cancellable, &run);
  g_assert_null (run.result);
  g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&run.error);
  /* Cancelled while the second step ran: it is saved, and nothing after it ran. */
  g_assert_cmpuint (run.steps_started, ==, 2);
  member = relay_session_get_extra (session, RELAY_EXPERIMENT_MEMBER);
  g_assert_nonnull (member);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (member), "steps")), ==, 2);

  /* What ran can still be explained. */
  partial = relay_experiment_analyze (session, &error);
  g_assert_no_error (error);
  g_assert_nonnull (partial->headline);

  /* And the experiment can run again. */
  {
    g_autoptr(RelaySession) again = relay_session_new ();
    g_autoptr(RelayExperimentResult) full = NULL;

    relay_experiment_set_repeat (experiment, 1);
    full = run_experiment (experiment, again, NULL, NULL);
    assert_result_sane (full, RELAY_EXPERIMENT_COLD_WARM);
  }
}

/* ---------------------------------------------------------------------------------------
 * The CLI.
 */


static void
test_cli (void)
{
  g_autoptr(RelaySimServer) server = relay_test_start_sim ("fast", FALSE, NULL);
  g_autofree char *root = relay_sim_server_dup_root_url (server, NULL);
  g_autofree char *url = g_strconcat (root, "/v1", NULL);
  g_autofree char *dir = g_dir_make_tmp ("test-experiment-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "cw.relayscope", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(GFile) file = NULL;
  CliResult r = { 0 };
  JsonObject *root_object;

  run_cli (&r, "experiment", "cold-vs-warm", url, "--repeat", "2", "--header",
           "X-Relayscope-Sim: tokens=4", "-o", path, "--json", NULL);
  if (r.status == -1)
    return;
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, r.out, -1, &error));
  g_assert_no_error (error);
  root_object = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (g_str_has_prefix (json_object_get_string_member (json_object_get_object_member (root_object, "experiment"), "headline"),
                                   "Reusing the connection"));
  g_assert_true (JSON_NODE_HOLDS_ARRAY (json_object_get_member (root_object, "findings")));
  g_assert_cmpint (json_object_get_int_member (root_object, "traces"), ==, 4);
  cli_result_clear (&r);

  file = g_file_new_for_path (path);
  session = relay_session_load (file, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (relay_session_get_extra (session, RELAY_EXPERIMENT_MEMBER));

  /* A saved experiment is explained again, findings after the result. */
  run_cli (&r, "experiment", "show", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "Cold vs warm connection"));
  g_assert_true (strstr (r.out, "Findings:") > strstr (r.out, "Reusing the connection"));
  cli_result_clear (&r);

  /* Text output of a sweep, with its chart. */
  run_cli (&r, "experiment", "concurrency", url, "--levels", "1,2", "--repeat", "1",
           "--max-tokens", "4", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (strstr (r.out, "TTFT p50 by concurrent streams") != NULL);
  g_assert_true (strstr (r.out, "Findings") != NULL);
  cli_result_clear (&r);

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_cli_demo (void)
{
  CliResult r = { 0 };

  run_cli (&r, "experiment", "concurrency", "--demo", "--levels", "1,8", "--repeat", "1",
           "--max-tokens", "4", NULL);
  if (r.status == -1)
    return;
  g_assert_cmpint (r.status, ==, 0);
  /* The demo relay queues 60 ms per request in flight: the median of eight waits 210 ms. */
  g_assert_true (strstr (r.out, "Queueing starts at 8 concurrent streams") != NULL);
  cli_result_clear (&r);
}

static void
test_cli_usage (void)
{
  static const char * const cases[][6] = {
    { "experiment", NULL },
    { "experiment", "warp-speed", "http://127.0.0.1:1/v1", NULL },
    { "experiment", "race", "http://127.0.0.1:1/v1", NULL },
    { "experiment", "cold-vs-warm", "--lengths", "1,2", "http://127.0.0.1:1/v1", NULL },
    { "experiment", "prompt-length", "--lengths", "1,x", "http://127.0.0.1:1/v1", NULL },
    { "experiment", "concurrency", "--demo", "http://127.0.0.1:1/v1", NULL },
    { "experiment", "cold-vs-warm", "ftp://example.com", NULL },
    { "experiment", "show", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      CliResult r = { 0 };

      run_cli (&r, cases[i][0], cases[i][1], cases[i][2], cases[i][3], cases[i][4], cases[i][5], NULL);
      if (r.status == -1)
        return;
      g_assert_cmpint (r.status, ==, 2);
      cli_result_clear (&r);
    }

  {
    CliResult r = { 0 };

    run_cli (&r, "experiment", "--help", NULL);
    g_assert_cmpint (r.status, ==, 0);
    for (guint i = 0; i < RELAY_N_EXPERIMENTS; i++)
      g_assert_true (strstr (r.out, relay_experiment_kind_to_string (i)) != NULL);
    cli_result_clear (&r);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  relay_sim_resolver_install ();

  g_test_add_func ("/experiment/kinds", test_kinds);
  g_test_add_func ("/experiment/prepare-errors", test_prepare_errors);
  g_test_add_func ("/experiment/steps", test_steps);
  g_test_add_func ("/experiment/sim/cold-warm", test_cold_warm);
  g_test_add_func ("/experiment/sim/prompt-length", test_prompt_length);
  g_test_add_func ("/experiment/sim/prompt-cache", test_prompt_cache);
  g_test_add_func ("/experiment/sim/concurrency", test_concurrency);
  g_test_add_func ("/experiment/sim/race", test_race);
  g_test_add_func ("/experiment/sim/models", test_models);
  g_test_add_func ("/experiment/result-json", test_result_json);
  g_test_add_func ("/experiment/cancel", test_cancel);
  g_test_add_func ("/experiment/cli/run", test_cli);
  g_test_add_func ("/experiment/cli/demo", test_cli_demo);
  g_test_add_func ("/experiment/cli/usage", test_cli_usage);

  return g_test_run ();
}
