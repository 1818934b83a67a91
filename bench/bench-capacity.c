/* bench-capacity.c: many concurrent streaming probes against the simulated relay: how late
 * each chunk is read after the relay sent it, the client's CPU per chunk and its memory.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each level runs in a child process (this program again), so its CPU time and peak memory
 * are the prober's alone, against a fresh relay in another process. The relay's own CPU use
 * and how far it fell behind its schedule tell whether the relay, not the client, was the
 * bottleneck.
 */

#include "config.h"

#include <stdio.h>

#include "bench-capacity.h"

#define HEADERS_MS 5
#define TTFT_MS    10
#define ITL_MS     10
#define TOKENS     256
#define MIN_STREAMS 3
/* Probes started per second. All at once, connections past the relay's listen backlog
 * (GLib's default of 10) wait a second for a SYN retransmit, and some are reset: the level
 * would then measure the relay's accept queue, not the client. */
#define START_RATE 250

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a;
  gint64 y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static const char profile_json[] =
  "{\"profile\": \"fast\", \"headers_delay_ms\": " G_STRINGIFY (HEADERS_MS) ","
  " \"prefill_us_per_token\": 0, \"cache_discount\": 0,"
  " \"ttft_ms\": " G_STRINGIFY (TTFT_MS) ", \"reasoning_tokens\": 0,"
  " \"itl_ms\": " G_STRINGIFY (ITL_MS) ", \"itl_jitter_ms\": 0,"
  " \"stall_probability\": 0, \"coalesce\": 1, \"tokens\": " G_STRINGIFY (TOKENS) ","
  " \"role_chunk\": true, \"fault\": \"none\", \"fault_probability\": 0, \"seed\": 1}";

/* Streams in flight at once at their busiest: the first token to the last, swept. */
static guint
peak_streaming (GListModel *traces)
{
  g_autoptr(GArray) edges = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint peak = 0;
  guint now = 0;

  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      gint64 mono = relay_trace_get_mono_start (trace);
      gint64 begin, end;

      if (!relay_trace_has_mark (trace, RELAY_MARK_FIRST_TOKEN) ||
          !relay_trace_has_mark (trace, RELAY_MARK_LAST_TOKEN))
        continue;
      /* Starts as even numbers, ends as odd, so an end sorts after a start at the same µs. */
      begin = (mono + relay_trace_get_mark (trace, RELAY_MARK_FIRST_TOKEN)) * 2;
      end = (mono + relay_trace_get_mark (trace, RELAY_MARK_LAST_TOKEN)) * 2 + 1;
      g_array_append_val (edges, begin);
      g_array_append_val (edges, end);
    }

  g_array_sort (edges, (GCompareFunc) compare_gint64);
  for (guint i = 0; i < edges->len; i++)
    {
      if (g_array_index (edges, gint64, i) % 2 == 0)
        {
          now++;
          peak = MAX (peak, now);
        }
      else
        now--;
    }

  return peak;
}

int
bench_capacity_child (guint       concurrency,
                      guint       streams,
                      double      rate,
                      const char *url)
{
  g_autofree char *base_url = g_strconcat (url, "/v1", NULL);
  g_autoptr(RelayEndpoint) endpoint = relay_endpoint_new ("sim", base_url, RELAY_API_OPENAI_CHAT);
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(BenchSamples) lags = bench_samples_new ();
  g_autoptr(BenchSamples) behind = bench_samples_new ();
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;
  const char * const models[] = { "bench-model", NULL };
  gint64 user0, sys0, user1, sys1, t0, t1;
  gint64 rss0, unsent = 0;
  guint64 chunks = 0;
  guint errors = 0;
  guint slow_connects = 0;
  GListModel *traces;
  RelayStats lag_stats, behind_stats;

  relay_endpoint_set_models (endpoint, models);
  relay_probe_plan_add_endpoint (plan, endpoint);
  relay_probe_plan_set_prompt (plan, "Say something for the benchmark.");
  relay_probe_plan_set_repeat (plan, streams);
  relay_probe_plan_set_concurrency (plan, concurrency);
  relay_probe_plan_set_rate (plan, rate);
  relay_probe_plan_set_connection (plan, RELAY_CONNECTION_COLD);
  relay_probe_plan_set_timeout (plan, 60);

  rss0 = bench_self_status_kb ("VmRSS");
  bench_self_cpu_us (&user0, &sys0);
  t0 = bench_now_us ();

  error = bench_run_plan (plan, session);

  t1 = bench_now_us ();
  bench_self_cpu_us (&user1, &sys1);

  if (error != NULL)
    {
      g_printerr ("bench: capacity %u: %s\n", concurrency, error->message);
      return 1;
    }

  traces = relay_session_get_traces (session);
  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      gint64 mono = relay_trace_get_mono_start (trace);
      const RelayChunk *c;
      guint n;
      gint64 first_sent;

      if (!relay_trace_is_ok (trace))
        {
          if (errors++ < 3)
            g_printerr ("bench: capacity %u: %s\n", concurrency,
                        relay_trace_get_error_message (trace));
        }

      /* A connection the relay could not accept at once waits for a SYN retransmit (1 s). */
      if (relay_trace_get_interval (trace, RELAY_MARK_CONNECT_START, RELAY_MARK_TCP_END) >
          500 * 1000)
        slow_connects++;

      c = relay_trace_get_chunks (trace, &n);
      first_sent = n > 0 ? relay_trace_get_chunk_sent (trace, 0) : -1;
      for (guint k = 0; k < n; k++)
        {
          gint64 sent = relay_trace_get_chunk_sent (trace, k);

          chunks++;
          if (sent < 0)
            {
              unsent++;
              continue;
            }
          bench_samples_add_us (lags, mono + c[k].t_us - sent);
          /* The relay's own pacing: how far behind its schedule it sent this chunk. */
          if (first_sent >= 0)
            bench_samples_add_us (behind, sent - (first_sent + (gint64) k * ITL_MS * 1000));
        }
    }

  bench_samples_stats (lags, &lag_stats);
  bench_samples_stats (behind, &behind_stats);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "concurrency");
  json_builder_add_int_value (b, concurrency);
  json_builder_set_member_name (b, "streams");
  json_builder_add_int_value (b, g_list_model_get_n_items (traces));
  json_builder_set_member_name (b, "start_rate_per_s");
  json_builder_add_double_value (b, rate);
  json_builder_set_member_name (b, "peak_streaming");
  json_builder_add_int_value (b, peak_streaming (traces));
  json_builder_set_member_name (b, "connects_over_500_ms");
  json_builder_add_int_value (b, slow_connects);
  json_builder_set_member_name (b, "errors");
  json_builder_add_int_value (b, errors);
  json_builder_set_member_name (b, "chunks");
  json_builder_add_int_value (b, chunks);
  json_builder_set_member_name (b, "chunks_without_send_stamp");
  json_builder_add_int_value (b, unsent);
  json_builder_set_member_name (b, "lag");
  json_builder_add_value (b, bench_stats_to_json (&lag_stats));
  json_builder_set_member_name (b, "relay_behind_schedule");
  json_builder_add_value (b, bench_stats_to_json (&behind_stats));
  json_builder_set_member_name (b, "wall_s");
  json_builder_add_double_value (b, (t1 - t0) / 1e6);
  json_builder_set_member_name (b, "cpu_user_s");
  json_builder_add_double_value (b, (user1 - user0) / 1e6);
  json_builder_set_member_name (b, "cpu_sys_s");
  json_builder_add_double_value (b, (sys1 - sys0) / 1e6);
  json_builder_set_member_name (b, "cpu_us_per_chunk");
  json_builder_add_double_value (b, chunks > 0
                                    ? (double) (user1 - user0 + sys1 - sys0) / chunks : 0);
  json_builder_set_member_name (b, "rss_before_kb");
  json_builder_add_int_value (b, rss0);
  json_builder_set_member_name (b, "vm_hwm_kb");
  json_builder_add_int_value (b, bench_self_status_kb ("VmHWM"));
  json_builder_end_object (b);

  json_generator_set_root (generator, json_builder_get_root (b));
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);

  return 0;
}

JsonNode *
bench_capacity_run (const BenchConfig  *config,
                    GError            **error)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  gboolean goal_known = FALSE;
  gboolean goal_met = FALSE;

  bench_report_section ("Capacity: concurrent streaming probes, the client in its own process");
  bench_report_note ("relay: separate process, %d tokens at %d ms per stream, probes started at "
                     "%d/s, new connection each", TOKENS, ITL_MS, START_RATE);
  bench_report_note ("lag = our read stamp − the relay's send stamp; CPU = the client process's "
                     "user + system time");
  bench_report_row ("streams (peak at once)",
                    "lag p50    lag p99    CPU/chunk  client CPU  peak RSS   errors  relay CPU  "
                    "relay late p99");

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "relay_profile");
  json_builder_add_value (b, json_from_string (profile_json, NULL));
  json_builder_set_member_name (b, "levels");
  json_builder_begin_array (b);

  for (guint l = 0; l < config->n_levels; l++)
    {
      guint n = config->levels[l];
      guint streams = MAX (n, MIN_STREAMS);
      g_autofree char *n_arg = g_strdup_printf ("%u", n);
      g_autofree char *streams_arg = g_strdup_printf ("%u", streams);
      g_autoptr(BenchSim) sim = NULL;
      g_autoptr(JsonObject) result = NULL;
      g_autoptr(GError) local_error = NULL;
      g_autofree char *label = NULL;
      gint64 sim_cpu0, sim_cpu1, t0, t1;
      double sim_share;
      JsonObject *lag, *behind;

      sim = bench_sim_start (config, profile_json, error);
      if (sim == NULL)
        return NULL;

      g_printerr ("bench: capacity: %u concurrent streams…\n", n);

      {
        const char * const argv[] = {
          config->self_path, "--child-capacity", n_arg, "--streams", streams_arg,
          "--rate", G_STRINGIFY (START_RATE), "--url", bench_sim_get_url (sim), NULL
        };

        sim_cpu0 = bench_pid_cpu_us (bench_sim_get_pid (sim));
        t0 = bench_now_us ();
        result = bench_run_child_json (argv, &local_error);
        t1 = bench_now_us ();
        sim_cpu1 = bench_pid_cpu_us (bench_sim_get_pid (sim));
      }

      if (result == NULL)
        {
          bench_report_row (n_arg, "failed: %s", local_error->message);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "concurrency");
          json_builder_add_int_value (b, n);
          json_builder_set_member_name (b, "failed");
          json_builder_add_string_value (b, local_error->message);
          json_builder_end_object (b);
          continue;
        }

      sim_share = sim_cpu0 >= 0 && sim_cpu1 >= 0 ? (double) (sim_cpu1 - sim_cpu0) / (t1 - t0) : -1;
      json_object_set_double_member (result, "relay_cpu_share", sim_share);

      lag = json_object_get_object_member (result, "lag");
      behind = json_object_get_object_member (result, "relay_behind_schedule");

      label = g_strdup_printf ("%u%s (%" G_GINT64_FORMAT ")", n,
                               streams != n ? " in turn" : "",
                               json_object_get_int_member (result, "peak_streaming"));
      bench_report_row (label,
                        "%7.2f ms %7.2f ms %7.1f µs %8.0f %% %7.1f MiB %6" G_GINT64_FORMAT
                        " %8.0f %% %9.2f ms",
                        json_object_get_double_member (lag, "p50_ms"),
                        json_object_get_double_member (lag, "p99_ms"),
                        json_object_get_double_member (result, "cpu_us_per_chunk"),
                        100.0 * (json_object_get_double_member (result, "cpu_user_s") +
                                 json_object_get_double_member (result, "cpu_sys_s")) /
                          json_object_get_double_member (result, "wall_s"),
                        json_object_get_int_member (result, "vm_hwm_kb") / 1024.0,
                        json_object_get_int_member (result, "errors"),
                        100.0 * sim_share,
                        json_object_get_double_member (behind, "p99_ms"));
      if (json_object_get_int_member (result, "connects_over_500_ms") > 0)
        bench_report_note ("%u streams: %" G_GINT64_FORMAT " connections took over 0.5 s (the "
                           "relay's accept queue overflowed)", n,
                           json_object_get_int_member (result, "connects_over_500_ms"));

      if (n == 200)
        {
          goal_known = TRUE;
          goal_met = json_object_get_double_member (lag, "p99_ms") < 1.0;
        }

      {
        JsonNode *node = json_node_new (JSON_NODE_OBJECT);

        json_node_set_object (node, result);
        json_builder_add_value (b, node);
      }
    }

  json_builder_end_array (b);
  json_builder_set_member_name (b, "goal_lag_p99_under_1_ms_at_200");
  if (goal_known)
    json_builder_add_boolean_value (b, goal_met);
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);

  bench_report_row ("goal: lag p99 < 1 ms at 200", "%s",
                    !goal_known ? "not measured" : goal_met ? "met" : "NOT met");

  return json_builder_get_root (b);
}
