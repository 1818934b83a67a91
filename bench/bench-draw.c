/* bench-draw.c: chart painter frame times (a waterfall of 10,000 traces, a stream chart of
 * 1,000,000 chunks, at 1600×900 into a cairo image surface) and the time and memory to open
 * a session of 10,000 traces × 200 chunks.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The data is synthetic but shaped like real probes (cold connections, a spread of waits and
 * TTFTs, jittered gaps, the odd stall and broken stream) and generated from a fixed seed, so
 * every run draws and opens the same thing. The session file is written once and kept.
 */

#include "config.h"

#include <stdio.h>

#include "bench-draw.h"
#include "relay-stream-painter.h"
#include "relay-waterfall-painter.h"

#define WIDTH  1600
#define HEIGHT 900
#define WATERFALL_TRACES 10000
#define SESSION_CHUNKS   200
#define STREAM_TRACES    1000
#define STREAM_CHUNKS    1000
#define N_ENDPOINTS      4
#define FRAME_BUDGET_MS  16.0
/* A slow painter is timed on fewer frames, so the whole run stays within minutes. */
#define VARIANT_TIME_CAP_US (5 * G_USEC_PER_SEC)
#define LOAD_TIME_CAP_US    (20 * G_USEC_PER_SEC)

static const char * const endpoint_names[N_ENDPOINTS] = {
  "relay-east", "relay-west", "vendor-direct", "budget-proxy",
};
static const char * const model_names[2] = { "gpt-4o-mini", "claude-haiku" };

/* Synthetic data */

static RelaySession *
new_session (void)
{
  RelaySession *session = relay_session_new ();

  relay_session_set_title (session, "Benchmark session");
  for (guint e = 0; e < N_ENDPOINTS; e++)
    {
      g_autofree char *url = g_strdup_printf ("https://%s.relayscope.test/v1", endpoint_names[e]);
      g_autoptr(RelayEndpoint) endpoint = relay_endpoint_new (endpoint_names[e], url,
                                                              RELAY_API_OPENAI_CHAT);

      relay_session_add_endpoint (session, endpoint);
      for (guint m = 0; m < G_N_ELEMENTS (model_names); m++)
        {
          g_autoptr(RelayRun) run = relay_run_new (endpoint_names[e], model_names[m]);

          relay_session_add_run (session, run);
        }
    }

  return session;
}

static gint64
ms_to_us (GRand  *rand,
          double  lo_ms,
          double  hi_ms)
{
  return (gint64) (g_rand_double_range (rand, lo_ms, hi_ms) * 1000.0);
}

static RelayTrace *
new_trace (GRand     *rand,
           guint      index,
           guint      n_runs,
           guint      n_chunks,
           GDateTime *epoch)
{
  guint run = index % n_runs;
  RelayTrace *trace = relay_trace_new (run, index / n_runs);
  g_autoptr(GDateTime) wall = g_date_time_add (epoch, (GTimeSpan) index * 150 * 1000);
  RelayUsage usage = RELAY_USAGE_INIT;
  gint64 t = 0;
  gint64 gap = ms_to_us (rand, 8, 40);

  relay_trace_set_wall_start (trace, wall);
  relay_trace_set_mono_start (trace, 1000000 + (gint64) index * 150 * 1000);

  relay_trace_set_mark (trace, RELAY_MARK_START, 0);
  relay_trace_set_mark (trace, RELAY_MARK_DNS_START, t += 40);
  relay_trace_set_mark (trace, RELAY_MARK_DNS_END, t += ms_to_us (rand, 1, 90));
  relay_trace_set_mark (trace, RELAY_MARK_CONNECT_START, t);
  relay_trace_set_mark (trace, RELAY_MARK_TCP_END, t += ms_to_us (rand, 0.1, 40));
  relay_trace_set_mark (trace, RELAY_MARK_TLS_START, t += ms_to_us (rand, 5, 30));
  relay_trace_set_mark (trace, RELAY_MARK_TLS_END, t += ms_to_us (rand, 2, 60));
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, t += 80);
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, t += 150);

  relay_trace_set_mark (trace, RELAY_MARK_RESPONSE_START, t += ms_to_us (rand, 40, 900));
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_BYTE, t += 60);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_EVENT, t += 40);
  t += ms_to_us (rand, 10, 400);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, t);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_CONTENT, t);

  for (guint c = 0; c < n_chunks; c++)
    {
      guint chars = g_rand_int_range (rand, 1, 12);

      if (c > 0)
        {
          t += (gint64) (gap * g_rand_double_range (rand, 0.5, 1.5));
          /* Throttling: the odd long pause mid-stream. */
          if (g_rand_int_range (rand, 0, 400) == 0)
            t += ms_to_us (rand, 200, 1500);
        }
      relay_trace_add_chunk (trace, t, RELAY_CHUNK_CONTENT, 120 + chars, chars);
    }

  relay_trace_set_mark (trace, RELAY_MARK_LAST_TOKEN, t);
  relay_trace_set_mark (trace, RELAY_MARK_END, t += 900);

  /* One stream in fifty breaks off after its last chunk (every trace keeps its chunks, so
   * the counts stay round). */
  if (g_rand_int_range (rand, 0, 50) == 0)
    relay_trace_set_error (trace, RELAY_ERROR_STAGE_STREAM, "no-terminator",
                           "The stream ended without [DONE]: the server or a proxy cut it.");

  usage.prompt_tokens = 42;
  usage.cached_prompt_tokens = 0;
  usage.completion_tokens = n_chunks;
  usage.reasoning_tokens = 0;
  relay_trace_set_usage (trace, &usage);
  relay_trace_set_http_status (trace, 200);
  relay_trace_set_http_version (trace, "HTTP/1.1");
  relay_trace_set_remote (trace, "127.0.0.1:443");
  relay_trace_set_tls_version (trace, "TLS 1.3");
  relay_trace_set_cipher (trace, "TLS_AES_256_GCM_SHA384");
  relay_trace_set_connect_attempts (trace, 1);
  relay_trace_add_server_header (trace, "x-request-id", "req_bench_0123456789abcdef");
  relay_trace_add_server_header (trace, "openai-processing-ms", "312");
  relay_trace_set_model_reported (trace, model_names[run % G_N_ELEMENTS (model_names)]);

  return trace;
}

/* Frames */

typedef void (*DrawFunc) (gpointer  painter,
                          cairo_t  *cr,
                          double    width,
                          double    height);
typedef void (*BetweenFunc) (gpointer painter,
                             guint    frame);

typedef struct
{
  double first_ms;
  double p50_ms;
  double max_ms;
  double invalidated_p50_ms;   /* after the data was re-read (a live probe changed it) */
  guint  frames;               /* steady frames timed */
} FrameTimes;

static double
draw_once (gpointer         painter,
           DrawFunc         draw,
           cairo_surface_t *surface)
{
  cairo_t *cr = cairo_create (surface);
  gint64 t0, t1;

  t0 = bench_now_us ();
  draw (painter, cr, WIDTH, HEIGHT);
  cairo_surface_flush (surface);
  t1 = bench_now_us ();
  cairo_destroy (cr);

  return (t1 - t0) / 1000.0;
}

static void
time_frames (gpointer      painter,
             DrawFunc      draw,
             BetweenFunc   between,
             void        (*invalidate) (gpointer),
             guint         frames,
             FrameTimes   *out)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  g_autoptr(BenchSamples) steady = bench_samples_new ();
  g_autoptr(BenchSamples) invalidated = bench_samples_new ();
  RelayStats stats;
  gint64 cap;

  out->first_ms = draw_once (painter, draw, surface);

  cap = bench_now_us () + VARIANT_TIME_CAP_US;
  for (guint f = 0; f < frames && (f < 3 || bench_now_us () < cap); f++)
    {
      if (between != NULL)
        between (painter, f);
      bench_samples_add_ms (steady, draw_once (painter, draw, surface));
    }
  bench_samples_stats (steady, &stats);
  out->p50_ms = stats.p50;
  out->max_ms = stats.max;
  out->frames = steady->len;

  cap = bench_now_us () + VARIANT_TIME_CAP_US / 2;
  for (guint f = 0; f < MAX (frames / 3, 3) && (f < 2 || bench_now_us () < cap); f++)
    {
      invalidate (painter);
      bench_samples_add_ms (invalidated, draw_once (painter, draw, surface));
    }
  bench_samples_stats (invalidated, &stats);
  out->invalidated_p50_ms = stats.p50;

  cairo_surface_destroy (surface);
}

static void
waterfall_scroll (gpointer painter,
                  guint    frame)
{
  /* Scrolling frames: the rows in view change every frame. */
  relay_waterfall_painter_set_scroll_offset (painter, (frame + 1) * 337.0);
}

static void
stream_nothing (gpointer painter,
                guint    frame)
{
}

static JsonNode *
frames_to_json (const char       *chart,
                const char       *variant,
                guint             items,
                guint64           chunks,
                const FrameTimes *times)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "chart");
  json_builder_add_string_value (b, chart);
  json_builder_set_member_name (b, "variant");
  json_builder_add_string_value (b, variant);
  json_builder_set_member_name (b, "traces");
  json_builder_add_int_value (b, items);
  json_builder_set_member_name (b, "chunks");
  json_builder_add_int_value (b, chunks);
  json_builder_set_member_name (b, "first_frame_ms");
  json_builder_add_double_value (b, times->first_ms);
  json_builder_set_member_name (b, "frames");
  json_builder_add_int_value (b, times->frames);
  json_builder_set_member_name (b, "frame_p50_ms");
  json_builder_add_double_value (b, times->p50_ms);
  json_builder_set_member_name (b, "frame_max_ms");
  json_builder_add_double_value (b, times->max_ms);
  json_builder_set_member_name (b, "after_invalidate_p50_ms");
  json_builder_add_double_value (b, times->invalidated_p50_ms);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

static gboolean
report_frames (const char       *label,
               const FrameTimes *times)
{
  gboolean ok = times->max_ms < FRAME_BUDGET_MS && times->invalidated_p50_ms < FRAME_BUDGET_MS;

  bench_report_row (label, "%8.1f %8.2f %8.2f %10.2f %7u   %s",
                    times->first_ms, times->p50_ms, times->max_ms, times->invalidated_p50_ms,
                    times->frames, ok && times->first_ms < FRAME_BUDGET_MS ? "yes" : "NO");
  return ok && times->first_ms < FRAME_BUDGET_MS;
}

/* Session loading, in a child */

int
bench_session_load_child (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;
  GListModel *traces;
  guint64 chunks = 0;
  gint64 rss0, t0, t1;

  /* The types and their classes are made before the clock starts, as in the app. */
  g_type_ensure (RELAY_TYPE_SESSION);
  g_type_ensure (RELAY_TYPE_TRACE);
  rss0 = bench_self_status_kb ("VmRSS");

  t0 = bench_now_us ();
  session = relay_session_load (file, NULL, &error);
  t1 = bench_now_us ();

  if (session == NULL)
    {
      g_printerr ("bench: %s: %s\n", path, error->message);
      return 1;
    }

  traces = relay_session_get_traces (session);
  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);

      chunks += relay_trace_get_n_chunks (trace);
    }

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "load_ms");
  json_builder_add_double_value (b, (t1 - t0) / 1000.0);
  json_builder_set_member_name (b, "traces");
  json_builder_add_int_value (b, g_list_model_get_n_items (traces));
  json_builder_set_member_name (b, "chunks");
  json_builder_add_int_value (b, chunks);
  json_builder_set_member_name (b, "rss_before_kb");
  json_builder_add_int_value (b, rss0);
  json_builder_set_member_name (b, "rss_after_kb");
  json_builder_add_int_value (b, bench_self_status_kb ("VmRSS"));
  json_builder_set_member_name (b, "vm_hwm_kb");
  json_builder_add_int_value (b, bench_self_status_kb ("VmHWM"));
  json_builder_end_object (b);

  json_generator_set_root (generator, json_builder_get_root (b));
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);

  return 0;
}

static JsonNode *
measure_session (const BenchConfig  *config,
                 RelaySession       *session,
                 GError            **error)
{
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(BenchSamples) times = bench_samples_new ();
  g_autoptr(GFileInfo) info = NULL;
  gint64 hwm = 0, growth = 0;
  double save_ms = -1;
  RelayStats stats;
  guint64 chunks = 0;
  guint n_traces = 0;
  gint64 cap;

  path = g_strdup_printf ("%s/bench-session-%ux%u.relayscope", config->work_dir,
                          WATERFALL_TRACES, SESSION_CHUNKS);
  file = g_file_new_for_path (path);

  /* Written once: the data comes from a fixed seed, so a kept file is the same file. */
  if (!g_file_query_exists (file, NULL))
    {
      gint64 t0 = bench_now_us ();

      g_printerr ("bench: writing %s (once)…\n", path);
      if (!relay_session_save (session, file, NULL, error))
        return NULL;
      save_ms = (bench_now_us () - t0) / 1000.0;
    }

  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_QUERY_INFO_NONE,
                            NULL, error);
  if (info == NULL)
    return NULL;

  cap = bench_now_us () + LOAD_TIME_CAP_US;
  for (guint i = 0; i < config->loads && (i < 1 || bench_now_us () < cap); i++)
    {
      const char * const argv[] = { config->self_path, "--child-session-load", path, NULL };
      g_autoptr(JsonObject) result = bench_run_child_json (argv, error);

      if (result == NULL)
        return NULL;

      bench_samples_add_ms (times, json_object_get_double_member (result, "load_ms"));
      hwm = MAX (hwm, json_object_get_int_member (result, "vm_hwm_kb"));
      growth = MAX (growth, json_object_get_int_member (result, "vm_hwm_kb") -
                            json_object_get_int_member (result, "rss_before_kb"));
      n_traces = json_object_get_int_member (result, "traces");
      chunks = json_object_get_int_member (result, "chunks");
    }
  bench_samples_stats (times, &stats);

  bench_report_row ("open 10,000 × 200 session",
                    "%.0f ms (median of %u, max %.0f)   peak RSS %.0f MiB (+%.0f MiB for the "
                    "session)   file %.1f MiB%s",
                    stats.p50, stats.n, stats.max, hwm / 1024.0, growth / 1024.0,
                    g_file_info_get_size (info) / (1024.0 * 1024.0),
                    stats.p50 < 1000 ? "" : "   (over 1 s)");
  if (save_ms >= 0)
    bench_report_note ("the session file was written in this run, in %.0f ms", save_ms);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "traces");
  json_builder_add_int_value (b, n_traces);
  json_builder_set_member_name (b, "chunks");
  json_builder_add_int_value (b, chunks);
  json_builder_set_member_name (b, "file_bytes");
  json_builder_add_int_value (b, g_file_info_get_size (info));
  json_builder_set_member_name (b, "load");
  json_builder_add_value (b, bench_stats_to_json (&stats));
  json_builder_set_member_name (b, "peak_rss_kb");
  json_builder_add_int_value (b, hwm);
  json_builder_set_member_name (b, "peak_growth_kb");
  json_builder_add_int_value (b, growth);
  if (save_ms >= 0)
    {
      json_builder_set_member_name (b, "save_ms");
      json_builder_add_double_value (b, save_ms);
    }
  json_builder_set_member_name (b, "goal_under_1_s");
  json_builder_add_boolean_value (b, stats.p50 < 1000);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

JsonNode *
bench_draw_run (const BenchConfig  *config,
                GError            **error)
{
  g_autoptr(RelaySession) session = new_session ();
  g_autoptr(GListStore) stream_traces = g_list_store_new (RELAY_TYPE_TRACE);
  g_autoptr(RelayWaterfallPainter) waterfall = relay_waterfall_painter_new ();
  g_autoptr(RelayStreamPainter) stream = relay_stream_painter_new ();
  g_autoptr(RelayStreamPainter) warmup = relay_stream_painter_new ();
  g_autoptr(GDateTime) epoch = g_date_time_new_utc (2026, 1, 15, 9, 0, 0);
  g_autoptr(GRand) rand = g_rand_new_with_seed (20260115);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  JsonNode *session_json;
  cairo_surface_t *surface;
  cairo_t *cr;
  FrameTimes times;
  gboolean frames_ok = TRUE;
  guint n_runs;
  gint64 t0;
  double warmup_ms;

  g_printerr ("bench: drawing: generating %u + %u traces…\n", WATERFALL_TRACES, STREAM_TRACES);
  n_runs = g_list_model_get_n_items (relay_session_get_runs (session));
  for (guint i = 0; i < WATERFALL_TRACES; i++)
    {
      g_autoptr(RelayTrace) trace = new_trace (rand, i, n_runs, SESSION_CHUNKS, epoch);

      relay_session_add_trace (session, trace);
    }
  for (guint i = 0; i < STREAM_TRACES; i++)
    {
      g_autoptr(RelayTrace) trace = new_trace (rand, i, n_runs, STREAM_CHUNKS, epoch);

      g_list_store_append (stream_traces, trace);
    }

  bench_report_section ("Drawing (1600×900, cairo image surface) and files");

  /* Pango and fontconfig load fonts on first use, once per process: count that apart. */
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 320, 200);
  cr = cairo_create (surface);
  t0 = bench_now_us ();
  relay_stream_painter_draw (warmup, cr, 320, 200);
  warmup_ms = (bench_now_us () - t0) / 1000.0;
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  bench_report_note ("fonts loaded before the first frame, once per process: %.1f ms", warmup_ms);
  bench_report_note ("frame times in ms: the first, then steady redraws (the waterfall scrolls), "
                     "then redraws after invalidate() (a live probe changed the data)");
  bench_report_row ("", "   first      p50      max  re-read p50  frames   < 16 ms");

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "width");
  json_builder_add_int_value (b, WIDTH);
  json_builder_set_member_name (b, "height");
  json_builder_add_int_value (b, HEIGHT);
  json_builder_set_member_name (b, "font_warmup_ms");
  json_builder_add_double_value (b, warmup_ms);
  json_builder_set_member_name (b, "frames");
  json_builder_begin_array (b);

  g_printerr ("bench: drawing: waterfall…\n");
  relay_waterfall_painter_set_traces (waterfall, relay_session_get_traces (session), session);
  time_frames (waterfall, (DrawFunc) relay_waterfall_painter_draw, waterfall_scroll,
               (void (*) (gpointer)) relay_waterfall_painter_invalidate, config->frames, &times);
  frames_ok &= report_frames ("waterfall, 10,000 traces", &times);
  json_builder_add_value (b, frames_to_json ("waterfall", "start-aligned, scrolling",
                                             WATERFALL_TRACES, 0, &times));

  relay_waterfall_painter_set_scroll_offset (waterfall, 0);
  relay_waterfall_painter_set_align (waterfall, RELAY_WATERFALL_ALIGN_WALL_CLOCK);
  relay_waterfall_painter_set_sort (waterfall, RELAY_WATERFALL_SORT_TTFT);
  relay_waterfall_painter_set_group_by_endpoint (waterfall, TRUE);
  time_frames (waterfall, (DrawFunc) relay_waterfall_painter_draw, waterfall_scroll,
               (void (*) (gpointer)) relay_waterfall_painter_invalidate, config->frames, &times);
  frames_ok &= report_frames ("  wall clock, by TTFT, grouped", &times);
  json_builder_add_value (b, frames_to_json ("waterfall", "wall-clock, sorted by TTFT, grouped",
                                             WATERFALL_TRACES, 0, &times));

  relay_stream_painter_set_traces (stream, G_LIST_MODEL (stream_traces), session);
  for (RelayStreamMode mode = RELAY_STREAM_MODE_GAPS;
       mode <= RELAY_STREAM_MODE_DISTRIBUTION;
       mode++)
    {
      static const char * const names[] = { "gaps", "cumulative", "distribution" };
      g_autofree char *label = g_strdup_printf ("stream, 1M chunks, %s", names[mode]);

      g_printerr ("bench: drawing: stream chart, %s…\n", names[mode]);
      relay_stream_painter_set_mode (stream, mode);
      time_frames (stream, (DrawFunc) relay_stream_painter_draw, stream_nothing,
                   (void (*) (gpointer)) relay_stream_painter_invalidate, config->frames, &times);
      frames_ok &= report_frames (label, &times);
      json_builder_add_value (b, frames_to_json ("stream", names[mode], STREAM_TRACES,
                                                 (guint64) STREAM_TRACES * STREAM_CHUNKS, &times));
    }
  json_builder_end_array (b);

  bench_report_row ("goal: every frame < 16 ms", "%s", frames_ok ? "met" : "NOT met (see above)");
  json_builder_set_member_name (b, "goal_every_frame_under_16_ms");
  json_builder_add_boolean_value (b, frames_ok);

  g_printerr ("bench: session: opening %u × %u…\n", WATERFALL_TRACES, SESSION_CHUNKS);
  session_json = measure_session (config, session, error);
  if (session_json == NULL)
    return NULL;
  json_builder_set_member_name (b, "session");
  json_builder_add_value (b, session_json);
  json_builder_end_object (b);

  {
    JsonObject *s = json_node_get_object (session_json);

    bench_report_row ("goal: session opens < 1 s", "%s",
                      json_object_get_boolean_member (s, "goal_under_1_s") ? "met" : "NOT met");
  }

  return json_builder_get_root (b);
}
