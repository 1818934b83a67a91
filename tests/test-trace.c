/* test-trace.c: a trace's waterfall segments tile its timeline, its derived figures are
 * right, its raw-event log stays bounded, and its file object round-trips and rejects
 * malformed input without crashing.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "relay-session.h"
#include "relay-trace.h"

typedef struct
{
  RelayMark mark;
  gint64    t_us;
} MarkAt;

static RelayTrace *
trace_with_marks (const MarkAt *marks,
                  guint         n_marks)
{
  RelayTrace *trace = relay_trace_new (0, 0);

  for (guint i = 0; i < n_marks; i++)
    relay_trace_set_mark (trace, marks[i].mark, marks[i].t_us);

  return trace;
}

/* Segments must start at the earliest mark, end at the latest, and leave no gap or
 * overlap in between. */
static guint
assert_tiles (RelayTrace   *trace,
              RelaySegment *segments,
              gint64        from,
              gint64        to)
{
  guint n = relay_trace_get_segments (trace, segments, RELAY_N_MARKS + 1);

  g_assert_cmpuint (n, >, 0);
  g_assert_cmpint (segments[0].begin_us, ==, from);
  g_assert_cmpint (segments[n - 1].end_us, ==, to);

  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpint (segments[i].end_us, >, segments[i].begin_us);
      if (i > 0)
        {
          g_assert_cmpint (segments[i].begin_us, ==, segments[i - 1].end_us);
          g_assert_cmpint (segments[i].stage, !=, segments[i - 1].stage);
        }
    }

  return n;
}

static void
assert_segments (const RelaySegment *got,
                 guint               n_got,
                 const RelaySegment *want,
                 guint               n_want)
{
  for (guint i = 0; i < MIN (n_got, n_want); i++)
    {
      if (got[i].stage != want[i].stage ||
          got[i].begin_us != want[i].begin_us ||
          got[i].end_us != want[i].end_us)
        g_error ("segment %u: got %s [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "), "
                 "want %s [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ")",
                 i,
                 relay_stage_to_string (got[i].stage), got[i].begin_us, got[i].end_us,
                 relay_stage_to_string (want[i].stage), want[i].begin_us, want[i].end_us);
    }

  g_assert_cmpuint (n_got, ==, n_want);
}

static const MarkAt cold_marks[] = {
  { RELAY_MARK_START, 0 },
  { RELAY_MARK_DNS_START, 100 },
  { RELAY_MARK_DNS_END, 5100 },
  { RELAY_MARK_CONNECT_START, 5200 },
  { RELAY_MARK_TCP_END, 6200 },
  { RELAY_MARK_TLS_START, 16200 },
  { RELAY_MARK_TLS_END, 19200 },
  { RELAY_MARK_REQUEST_START, 19300 },
  { RELAY_MARK_REQUEST_END, 19500 },
  { RELAY_MARK_RESPONSE_START, 219500 },
  { RELAY_MARK_FIRST_BYTE, 219600 },
  { RELAY_MARK_FIRST_EVENT, 219700 },
  { RELAY_MARK_FIRST_TOKEN, 229700 },
  { RELAY_MARK_FIRST_CONTENT, 229700 },
  { RELAY_MARK_LAST_TOKEN, 529700 },
  { RELAY_MARK_END, 530000 },
};

static void
test_segments_cold (void)
{
  g_autoptr(RelayTrace) trace = trace_with_marks (cold_marks, G_N_ELEMENTS (cold_marks));
  RelaySegment segments[RELAY_N_MARKS + 1];
  static const RelaySegment want[] = {
    { RELAY_STAGE_BLOCKED, 0, 100 },
    { RELAY_STAGE_DNS, 100, 5100 },
    { RELAY_STAGE_OTHER, 5100, 5200 },
    { RELAY_STAGE_TCP, 5200, 6200 },
    { RELAY_STAGE_TLS_SETUP, 6200, 16200 },
    { RELAY_STAGE_TLS, 16200, 19200 },
    { RELAY_STAGE_OTHER, 19200, 19300 },
    { RELAY_STAGE_SEND, 19300, 19500 },
    { RELAY_STAGE_WAIT, 19500, 219500 },
    /* response_start → first_byte → first_event merge into one. */
    { RELAY_STAGE_FIRST_EVENT, 219500, 219700 },
    { RELAY_STAGE_FIRST_TOKEN, 219700, 229700 },
    /* first_token == first_content: no reasoning segment. */
    { RELAY_STAGE_STREAM, 229700, 529700 },
    { RELAY_STAGE_TAIL, 529700, 530000 },
  };
  guint n;

  g_assert_true (relay_trace_is_finished (trace));
  n = assert_tiles (trace, segments, 0, 530000);
  assert_segments (segments, n, want, G_N_ELEMENTS (want));

  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_DNS), ==, 5000);
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_OTHER), ==, 200);
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_TLS_SETUP), ==, 10000);
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_WAIT), ==, 200000);
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_REASONING), ==, RELAY_TIME_NONE);
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_PROXY), ==, RELAY_TIME_NONE);

  /* Stage durations add up to the whole trace. */
  {
    gint64 sum = 0;

    for (guint s = 0; s < RELAY_N_STAGES; s++)
      {
        gint64 d = relay_trace_get_stage_duration (trace, s);

        if (d != RELAY_TIME_NONE)
          sum += d;
      }

    g_assert_cmpint (sum, ==, 530000);
  }

  g_assert_cmpint (relay_trace_get_interval (trace, RELAY_MARK_DNS_START, RELAY_MARK_DNS_END), ==, 5000);
  g_assert_cmpint (relay_trace_get_interval (trace, RELAY_MARK_START, RELAY_MARK_PROXY_END), ==, RELAY_TIME_NONE);

  /* Too small an output buffer gets the first segments only. */
  g_assert_cmpuint (relay_trace_get_segments (trace, segments, 3), ==, 3);
  g_assert_cmpint (segments[2].stage, ==, RELAY_STAGE_OTHER);
}

static void
test_segments_warm (void)
{
  static const MarkAt marks[] = {
    { RELAY_MARK_START, 0 },
    { RELAY_MARK_REQUEST_START, 50 },
    { RELAY_MARK_REQUEST_END, 150 },
    { RELAY_MARK_RESPONSE_START, 80150 },
    { RELAY_MARK_FIRST_BYTE, 80150 },
    { RELAY_MARK_FIRST_EVENT, 80200 },
    { RELAY_MARK_FIRST_TOKEN, 80200 },
    { RELAY_MARK_FIRST_CONTENT, 80200 },
    { RELAY_MARK_LAST_TOKEN, 180200 },
    { RELAY_MARK_END, 180200 },
  };
  static const RelaySegment want[] = {
    { RELAY_STAGE_BLOCKED, 0, 50 },
    { RELAY_STAGE_SEND, 50, 150 },
    { RELAY_STAGE_WAIT, 150, 80150 },
    { RELAY_STAGE_FIRST_EVENT, 80150, 80200 },
    { RELAY_STAGE_STREAM, 80200, 180200 },
  };
  g_autoptr(RelayTrace) trace = trace_with_marks (marks, G_N_ELEMENTS (marks));
  RelaySegment segments[RELAY_N_MARKS + 1];
  guint n;

  g_assert_false (relay_trace_has_mark (trace, RELAY_MARK_DNS_START));
  n = assert_tiles (trace, segments, 0, 180200);
  assert_segments (segments, n, want, G_N_ELEMENTS (want));

  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_DNS), ==, RELAY_TIME_NONE);
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_TCP), ==, RELAY_TIME_NONE);
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_TLS), ==, RELAY_TIME_NONE);
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_TAIL), ==, RELAY_TIME_NONE);
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_BLOCKED), ==, 50);
}

static void
test_segments_reasoning (void)
{
  static const MarkAt marks[] = {
    { RELAY_MARK_START, 0 },
    { RELAY_MARK_REQUEST_START, 10 },
    { RELAY_MARK_REQUEST_END, 20 },
    { RELAY_MARK_RESPONSE_START, 1020 },
    { RELAY_MARK_FIRST_BYTE, 1030 },
    { RELAY_MARK_FIRST_EVENT, 1030 },
    { RELAY_MARK_FIRST_TOKEN, 2030 },
    { RELAY_MARK_FIRST_CONTENT, 9030 },
    { RELAY_MARK_LAST_TOKEN, 12030 },
    { RELAY_MARK_END, 12530 },
  };
  static const RelaySegment want[] = {
    { RELAY_STAGE_BLOCKED, 0, 10 },
    { RELAY_STAGE_SEND, 10, 20 },
    { RELAY_STAGE_WAIT, 20, 1020 },
    { RELAY_STAGE_FIRST_EVENT, 1020, 1030 },
    { RELAY_STAGE_FIRST_TOKEN, 1030, 2030 },
    { RELAY_STAGE_REASONING, 2030, 9030 },
    { RELAY_STAGE_STREAM, 9030, 12030 },
    { RELAY_STAGE_TAIL, 12030, 12530 },
  };
  g_autoptr(RelayTrace) trace = trace_with_marks (marks, G_N_ELEMENTS (marks));
  RelaySegment segments[RELAY_N_MARKS + 1];
  guint n;

  n = assert_tiles (trace, segments, 0, 12530);
  assert_segments (segments, n, want, G_N_ELEMENTS (want));
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_REASONING), ==, 7000);
}

static void
test_segments_tls_failure (void)
{
  static const MarkAt marks[] = {
    { RELAY_MARK_START, 0 },
    { RELAY_MARK_DNS_START, 0 },
    { RELAY_MARK_DNS_END, 300 },
    { RELAY_MARK_CONNECT_START, 300 },
    { RELAY_MARK_TCP_END, 700 },
    { RELAY_MARK_TLS_START, 900 },
    { RELAY_MARK_END, 4900 },
  };
  static const RelaySegment want[] = {
    { RELAY_STAGE_DNS, 0, 300 },
    { RELAY_STAGE_TCP, 300, 700 },
    { RELAY_STAGE_TLS_SETUP, 700, 900 },
    { RELAY_STAGE_TLS, 900, 4900 },
  };
  g_autoptr(RelayTrace) trace = trace_with_marks (marks, G_N_ELEMENTS (marks));
  RelaySegment segments[RELAY_N_MARKS + 1];
  guint n;

  relay_trace_set_error (trace, RELAY_ERROR_STAGE_TLS, "handshake", "The certificate is not trusted");
  g_assert_false (relay_trace_is_ok (trace));
  g_assert_cmpint (relay_trace_get_error_stage (trace), ==, RELAY_ERROR_STAGE_TLS);
  g_assert_cmpstr (relay_trace_get_error_kind (trace), ==, "handshake");

  n = assert_tiles (trace, segments, 0, 4900);
  assert_segments (segments, n, want, G_N_ELEMENTS (want));
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_TLS), ==, 4000);
}

static void
test_segments_gap (void)
{
  /* A plain HTTP connection (no TLS marks) that spent 2 ms between tcp_end and the
   * request, time no stage claims: it is drawn as "other". The stream then ended after the
   * headers, before any event. */
  static const MarkAt marks[] = {
    { RELAY_MARK_START, 0 },
    { RELAY_MARK_CONNECT_START, 100 },
    { RELAY_MARK_TCP_END, 300 },
    { RELAY_MARK_REQUEST_START, 2300 },
    { RELAY_MARK_REQUEST_END, 2400 },
    { RELAY_MARK_RESPONSE_START, 3400 },
    { RELAY_MARK_END, 3900 },
  };
  static const RelaySegment want[] = {
    { RELAY_STAGE_BLOCKED, 0, 100 },
    { RELAY_STAGE_TCP, 100, 300 },
    { RELAY_STAGE_OTHER, 300, 2300 },
    { RELAY_STAGE_SEND, 2300, 2400 },
    { RELAY_STAGE_WAIT, 2400, 3400 },
    { RELAY_STAGE_FIRST_EVENT, 3400, 3900 },
  };
  g_autoptr(RelayTrace) trace = trace_with_marks (marks, G_N_ELEMENTS (marks));
  RelaySegment segments[RELAY_N_MARKS + 1];
  guint n;

  n = assert_tiles (trace, segments, 0, 3900);
  assert_segments (segments, n, want, G_N_ELEMENTS (want));
  g_assert_cmpint (relay_trace_get_stage_duration (trace, RELAY_STAGE_OTHER), ==, 2000);
}

static void
test_segments_end_after_tcp (void)
{
  /* Ending right after tcp_end: the trace cannot know whether TLS setup had begun. */
  static const MarkAt marks[] = {
    { RELAY_MARK_START, 0 },
    { RELAY_MARK_CONNECT_START, 10 },
    { RELAY_MARK_TCP_END, 20 },
    { RELAY_MARK_END, 50 },
  };
  static const RelaySegment want[] = {
    { RELAY_STAGE_BLOCKED, 0, 10 },
    { RELAY_STAGE_TCP, 10, 20 },
    { RELAY_STAGE_OTHER, 20, 50 },
  };
  g_autoptr(RelayTrace) trace = trace_with_marks (marks, G_N_ELEMENTS (marks));
  RelaySegment segments[RELAY_N_MARKS + 1];
  guint n;

  n = assert_tiles (trace, segments, 0, 50);
  assert_segments (segments, n, want, G_N_ELEMENTS (want));
}

static void
test_segments_live (void)
{
  g_autoptr(RelayTrace) trace = relay_trace_new (0, 0);
  RelaySegment segments[RELAY_N_MARKS + 1];
  guint n;

  /* A new trace has only start: nothing to draw yet. */
  g_assert_cmpint (relay_trace_get_mark (trace, RELAY_MARK_START), ==, 0);
  g_assert_false (relay_trace_is_finished (trace));
  g_assert_cmpuint (relay_trace_get_segments (trace, segments, G_N_ELEMENTS (segments)), ==, 0);

  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, 40);
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, 90);
  n = assert_tiles (trace, segments, 0, 90);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (segments[1].stage, ==, RELAY_STAGE_SEND);
}

static void
test_tokens (void)
{
  g_autoptr(RelayTrace) trace = relay_trace_new (0, 0);
  RelayUsage usage = RELAY_USAGE_INIT;
  gboolean estimated = FALSE;

  /* One chunk: no rate. */
  relay_trace_add_chunk (trace, 100000, RELAY_CHUNK_CONTENT, 40, 10);
  g_assert_cmpfloat (relay_trace_get_output_tokens_per_second (trace), ==, -1);

  relay_trace_add_chunk (trace, 300000, RELAY_CHUNK_CONTENT, 40, 9);
  relay_trace_add_chunk (trace, 600000, RELAY_CHUNK_CONTENT, 40, 8);
  g_assert_cmpuint (relay_trace_get_n_chunks (trace), ==, 3);
  g_assert_cmpuint (relay_trace_get_output_chars (trace), ==, 27);

  /* No usage: ceil (27 / 4) = 7, estimated. */
  g_assert_cmpint (relay_trace_get_output_tokens (trace, &estimated), ==, 7);
  g_assert_true (estimated);

  /* Without marks the window is first → last chunk: 0.5 s. */
  g_assert_cmpfloat_with_epsilon (relay_trace_get_output_tokens_per_second (trace), 14.0, 1e-9);

  relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, 100000);
  relay_trace_set_mark (trace, RELAY_MARK_LAST_TOKEN, 1100000);
  usage.completion_tokens = 50;
  usage.reasoning_tokens = 20;
  relay_trace_set_usage (trace, &usage);

  g_assert_cmpint (relay_trace_get_output_tokens (trace, &estimated), ==, 50);
  g_assert_false (estimated);
  /* All completion tokens, reasoning included, over first → last token (1 s). */
  g_assert_cmpfloat_with_epsilon (relay_trace_get_output_tokens_per_second (trace), 50.0, 1e-9);

  usage.estimated = TRUE;
  relay_trace_set_usage (trace, &usage);
  relay_trace_get_output_tokens (trace, &estimated);
  g_assert_true (estimated);

  /* Zero duration: no rate. */
  relay_trace_set_mark (trace, RELAY_MARK_LAST_TOKEN, 100000);
  g_assert_cmpfloat (relay_trace_get_output_tokens_per_second (trace), ==, -1);
}

static void
test_raw_event_cap (void)
{
  g_autoptr(RelayTrace) trace = relay_trace_new (0, 0);
  g_autofree char *big = g_strnfill (1000, 'x');
  const char * const *events;
  gsize total = 0;
  guint n;

  relay_trace_add_raw_event (trace, NULL, "{\"a\":1}");
  relay_trace_add_raw_event (trace, "message_start", "{}");
  events = relay_trace_get_raw_events (trace);
  g_assert_cmpstr (events[0], ==, "data: {\"a\":1}");
  g_assert_cmpstr (events[1], ==, "event: message_start\ndata: {}");
  g_assert_null (events[2]);

  /* Small events: capped by count. */
  for (guint i = 0; i < 100; i++)
    relay_trace_add_raw_event (trace, NULL, "{}");
  events = relay_trace_get_raw_events (trace);
  g_assert_cmpuint (g_strv_length ((char **) events), ==, 32);

  /* Large events: capped by bytes. */
  g_clear_object (&trace);
  trace = relay_trace_new (0, 0);
  for (guint i = 0; i < 30; i++)
    relay_trace_add_raw_event (trace, NULL, big);
  events = relay_trace_get_raw_events (trace);
  n = g_strv_length ((char **) events);
  for (guint i = 0; i < n; i++)
    total += strlen (events[i]);
  g_assert_cmpuint (total, <=, 16 * 1024);
  g_assert_cmpuint (total, >, 15 * 1024);
  g_assert_cmpuint (n, <, 30);
  g_assert_true (g_str_has_prefix (events[0], "data: xxx"));

  /* Once full, later events are dropped even if small. */
  relay_trace_add_raw_event (trace, NULL, "{}");
  g_assert_cmpuint (g_strv_length ((char **) relay_trace_get_raw_events (trace)), ==, n);
}

static void
test_server_headers (void)
{
  g_autoptr(RelayTrace) trace = relay_trace_new (0, 0);
  const char * const *headers;

  relay_trace_add_server_header (trace, "OpenAI-Processing-MS", "120");
  relay_trace_add_server_header (trace, "via", "1.1 relay");
  headers = relay_trace_get_server_headers (trace);
  g_assert_cmpstr (headers[0], ==, "openai-processing-ms");
  g_assert_cmpstr (headers[1], ==, "120");
  g_assert_cmpstr (headers[2], ==, "via");
  g_assert_null (headers[4]);
  g_assert_cmpstr (relay_trace_get_server_header (trace, "Via"), ==, "1.1 relay");
  g_assert_null (relay_trace_get_server_header (trace, "cf-ray"));
}

static void
test_invalid_utf8 (void)
{
  g_autoptr(RelayTrace) trace = relay_trace_new (0, 0);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  /* Whatever bytes a server sends, the file must stay valid JSON (UTF-8). */
  relay_trace_add_server_header (trace, "x-\xc3(", "caf\xe9");
  relay_trace_add_raw_event (trace, "m\xff", "{\"t\":\"\xfe\"}");
  relay_trace_set_model_reported (trace, "model-\x80");
  relay_trace_set_error (trace, RELAY_ERROR_STAGE_PARSE, "bad\xc0", "msg\xff");

  g_assert_true (g_utf8_validate (relay_trace_get_server_header (trace, "x-\xef\xbf\xbd("), -1, NULL));
  g_assert_true (g_utf8_validate (relay_trace_get_raw_events (trace)[0], -1, NULL));
  g_assert_true (g_utf8_validate (relay_trace_get_model_reported (trace), -1, NULL));

  node = relay_trace_to_json (trace);
  text = json_to_string (node, FALSE);
  back = json_from_string (text, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
}

static void
on_changed (RelayTrace *trace,
            guint      *count)
{
  (*count)++;
}

static void
test_changed_signal (void)
{
  g_autoptr(RelayTrace) trace = relay_trace_new (0, 0);
  guint count = 0;

  g_signal_connect (trace, "changed", G_CALLBACK (on_changed), &count);
  relay_trace_set_mark (trace, RELAY_MARK_END, 10);
  g_assert_cmpuint (count, ==, 0);
  relay_trace_emit_changed (trace);
  g_assert_cmpuint (count, ==, 1);
}

static char *
node_to_string (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);

  return json_generator_to_data (generator, NULL);
}

static JsonNode *
parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (json, &error);

  g_assert_no_error (error);

  return node;
}

static RelayTrace *
full_trace (void)
{
  RelayTrace *trace = trace_with_marks (cold_marks, G_N_ELEMENTS (cold_marks));
  g_autoptr(GTimeZone) tz = g_time_zone_new_offset (2 * 3600);
  g_autoptr(GDateTime) whole = g_date_time_new (tz, 2026, 3, 14, 15, 9, 26);
  g_autoptr(GDateTime) wall = g_date_time_add (whole, 535897);
  RelayUsage usage = { 12, 0, 40, -1, FALSE };

  relay_trace_set_wall_start (trace, wall);
  relay_trace_set_mark (trace, RELAY_MARK_PROXY_START, RELAY_TIME_NONE);
  relay_trace_add_chunk (trace, 229700, RELAY_CHUNK_REASONING, 60, 12);
  relay_trace_add_chunk (trace, 329700, RELAY_CHUNK_CONTENT, 55, 9);
  relay_trace_add_chunk (trace, 529700, RELAY_CHUNK_TOOL, 70, 20);
  relay_trace_set_usage (trace, &usage);
  relay_trace_set_http_status (trace, 200);
  relay_trace_set_http_version (trace, "HTTP/1.1");
  relay_trace_set_reused (trace, FALSE);
  relay_trace_set_remote (trace, "127.0.0.1:8443");
  relay_trace_set_tls_version (trace, "TLS 1.3");
  relay_trace_set_cipher (trace, "TLS_AES_256_GCM_SHA384");
  relay_trace_set_connect_attempts (trace, 2);
  relay_trace_add_server_header (trace, "x-request-id", "req-1");
  relay_trace_add_server_header (trace, "openai-processing-ms", "180");
  relay_trace_set_model_reported (trace, "gpt-test");
  relay_trace_add_raw_event (trace, NULL, "{\"choices\":[]}");

  return trace;
}

static void
test_json_round_trip (void)
{
  g_autoptr(RelayTrace) trace = full_trace ();
  g_autoptr(RelayTrace) loaded = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  JsonObject *object;
  JsonObject *marks;
  const RelayChunk *chunks;
  guint n_chunks;

  node = relay_trace_to_json (trace);
  object = json_node_get_object (node);

  /* The file's shape. */
  g_assert_cmpstr (json_object_get_string_member (object, "wall_start"), ==,
                   "2026-03-14T15:09:26.535897+02:00");
  marks = json_object_get_object_member (object, "marks_us");
  g_assert_cmpuint (json_object_get_size (marks), ==, RELAY_N_MARKS);
  g_assert_true (json_object_get_null_member (marks, "proxy_start"));
  g_assert_cmpint (json_object_get_int_member (marks, "tls_end"), ==, 19200);
  g_assert_true (json_object_get_null_member (json_object_get_object_member (object, "usage"),
                                              "reasoning_tokens"));
  g_assert_true (json_object_get_null_member (object, "error"));

  first = node_to_string (node);
  g_assert_nonnull (strstr (first, "[229700,\"reasoning\",60,12]"));

  loaded = relay_trace_new_from_json (node, &error);
  g_assert_no_error (error);
  g_assert_nonnull (loaded);

  for (guint m = 0; m < RELAY_N_MARKS; m++)
    g_assert_cmpint (relay_trace_get_mark (loaded, m), ==, relay_trace_get_mark (trace, m));

  chunks = relay_trace_get_chunks (loaded, &n_chunks);
  g_assert_cmpuint (n_chunks, ==, 3);
  g_assert_cmpint (chunks[2].t_us, ==, 529700);
  g_assert_cmpint (chunks[2].kind, ==, RELAY_CHUNK_TOOL);
  g_assert_cmpuint (chunks[2].bytes, ==, 70);
  g_assert_cmpuint (chunks[2].chars, ==, 20);
  g_assert_cmpint (relay_trace_get_usage (loaded)->prompt_tokens, ==, 12);
  g_assert_cmpint (relay_trace_get_usage (loaded)->cached_prompt_tokens, ==, 0);
  g_assert_cmpint (relay_trace_get_usage (loaded)->reasoning_tokens, ==, -1);
  g_assert_cmpuint (relay_trace_get_connect_attempts (loaded), ==, 2);
  g_assert_cmpstr (relay_trace_get_cipher (loaded), ==, "TLS_AES_256_GCM_SHA384");
  g_assert_cmpstr (relay_trace_get_server_header (loaded, "openai-processing-ms"), ==, "180");
  g_assert_cmpstr (relay_trace_get_model_reported (loaded), ==, "gpt-test");
  g_assert_cmpstr (relay_trace_get_raw_events (loaded)[0], ==, "data: {\"choices\":[]}");
  g_assert_cmpint (g_date_time_get_microsecond (relay_trace_get_wall_start (loaded)), ==, 535897);
  g_assert_cmpint (g_date_time_get_utc_offset (relay_trace_get_wall_start (loaded)), ==,
                   (GTimeSpan) 2 * 3600 * G_USEC_PER_SEC);

  again = relay_trace_to_json (loaded);
  second = node_to_string (again);
  g_assert_cmpstr (first, ==, second);
}

static void
test_json_error_and_extras (void)
{
  /* Members this version does not know, at several levels, survive a round trip; so does
   * an error. */
  static const char *json =
    "{\"run\":2,\"seq\":7,\"wall_start\":null,"
    "\"marks_us\":{\"start\":0,\"dns_start\":null,\"end\":900,\"queue_start\":5},"
    "\"chunks\":[],"
    "\"usage\":{\"prompt_tokens\":null,\"cached_prompt_tokens\":null,\"completion_tokens\":null,"
    "\"reasoning_tokens\":null,\"estimated\":false,\"audio_tokens\":3},"
    "\"http\":{\"status\":429,\"version\":\"HTTP/2\",\"reused\":true,\"remote\":null,\"tls\":null,"
    "\"cipher\":null,\"connect_attempts\":0,\"alpn\":\"h2\"},"
    "\"server\":{\"retry-after\":\"3\"},"
    "\"model_reported\":null,\"raw_events\":[],"
    "\"error\":{\"stage\":\"http\",\"kind\":\"rate_limited\",\"message\":\"Too many requests\",\"code\":429},"
    "\"future\":{\"nested\":[1,2,{\"x\":null}]},\"also\":\"kept\"}";
  g_autoptr(JsonNode) node = parse (json);
  g_autoptr(JsonNode) out = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *object;
  JsonObject *err;

  trace = relay_trace_new_from_json (node, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (relay_trace_get_run (trace), ==, 2);
  g_assert_cmpuint (relay_trace_get_seq (trace), ==, 7);
  g_assert_null (relay_trace_get_wall_start (trace));
  /* A mark left out of the file is a mark not observed. */
  g_assert_false (relay_trace_has_mark (trace, RELAY_MARK_TCP_END));
  g_assert_cmpint (relay_trace_get_mark (trace, RELAY_MARK_END), ==, 900);
  g_assert_cmpint (relay_trace_get_error_stage (trace), ==, RELAY_ERROR_STAGE_HTTP);
  g_assert_cmpstr (relay_trace_get_error_message (trace), ==, "Too many requests");
  g_assert_true (relay_trace_get_reused (trace));
  g_assert_cmpuint (relay_trace_get_http_status (trace), ==, 429);

  out = relay_trace_to_json (trace);
  object = json_node_get_object (out);
  g_assert_cmpstr (json_object_get_string_member (object, "also"), ==, "kept");
  g_assert_true (json_node_equal (json_object_get_member (object, "future"),
                                  json_object_get_member (json_node_get_object (node), "future")));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (object, "marks_us"),
                                               "queue_start"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (object, "usage"),
                                               "audio_tokens"), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "http"),
                                                  "alpn"), ==, "h2");
  err = json_object_get_object_member (object, "error");
  g_assert_cmpstr (json_object_get_string_member (err, "stage"), ==, "http");
  g_assert_cmpint (json_object_get_int_member (err, "code"), ==, 429);

  /* Known members come first and the extras keep their order. */
  {
    g_autoptr(GList) members = json_object_get_members (object);
    GList *last = g_list_last (members);

    g_assert_cmpstr (last->data, ==, "also");
    g_assert_cmpstr (last->prev->data, ==, "future");
  }
}

static void
test_json_bad (void)
{
  static const struct {
    const char *json;
    const char *message;
  } cases[] = {
    { "[]", "not an object" },
    { "{\"marks_us\":{\"first_token\":\"12\"}}", "marks_us.first_token is not a number" },
    { "{\"marks_us\":{\"first_token\":1.5}}", "marks_us.first_token is not a number" },
    { "{\"marks_us\":{\"end\":true}}", "marks_us.end is not a number" },
    { "{\"marks_us\":{\"end\":9223372036854775807}}", "marks_us.end is out of range" },
    { "{\"marks_us\":[]}", "marks_us is not an object" },
    { "{\"chunks\":{}}", "chunks is not a list" },
    { "{\"chunks\":[[1,\"content\",2]]}", "chunks[0] is not a list of 4 items" },
    { "{\"chunks\":[[1,\"content\",2,3],5]}", "chunks[1] is not a list of 4 items" },
    { "{\"chunks\":[[1,\"poem\",2,3]]}", "chunks[0] has an unknown kind" },
    { "{\"chunks\":[[1,7,2,3]]}", "chunks[0] has an unknown kind" },
    { "{\"chunks\":[[1,\"content\",-2,3]]}", "chunks[0] has a number out of range" },
    { "{\"chunks\":[[1,\"content\",2,4294967296]]}", "chunks[0] has a number out of range" },
    { "{\"chunks\":[[null,\"content\",2,3]]}", "not a number" },
    { "{\"run\":-1}", "run is out of range" },
    { "{\"run\":\"0\"}", "run is not a number" },
    { "{\"seq\":99999999999}", "seq is out of range" },
    { "{\"wall_start\":\"yesterday\"}", "wall_start is not an ISO 8601 time" },
    { "{\"wall_start\":5}", "wall_start is not a string" },
    { "{\"usage\":{\"completion_tokens\":-3}}", "usage.completion_tokens is out of range" },
    { "{\"usage\":{\"estimated\":1}}", "usage.estimated is not true or false" },
    { "{\"http\":{\"status\":\"200\"}}", "http.status is not a number" },
    { "{\"http\":{\"reused\":\"yes\"}}", "http.reused is not true or false" },
    { "{\"http\":{\"cipher\":[]}}", "http.cipher is not a string" },
    { "{\"http\":3}", "http is not an object" },
    { "{\"server\":{\"via\":1}}", "server.via is not a string" },
    { "{\"raw_events\":[1]}", "raw_events[0] is not a string" },
    { "{\"error\":{\"stage\":\"moon\"}}", "error.stage “moon” is not a known stage" },
    { "{\"error\":{\"kind\":\"x\"}}", "error.stage is missing" },
    { "{\"error\":\"boom\"}", "error is not an object" },
    { "{\"model_reported\":{}}", "model_reported is not a string" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) node = parse (cases[i].json);
      g_autoptr(GError) error = NULL;
      g_autoptr(RelayTrace) trace = relay_trace_new_from_json (node, &error);

      g_test_message ("%s", cases[i].json);
      g_assert_null (trace);
      g_assert_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("%s: got “%s”, want “%s”", cases[i].json, error->message, cases[i].message);
    }

  /* Scalars of every kind where a trace belongs. */
  {
    static const char *scalars[] = { "null", "1", "\"x\"", "true", "1.5" };

    for (guint i = 0; i < G_N_ELEMENTS (scalars); i++)
      {
        g_autoptr(JsonNode) node = parse (scalars[i]);
        g_autoptr(GError) error = NULL;
        g_autoptr(RelayTrace) trace = relay_trace_new_from_json (node, &error);

        g_assert_null (trace);
        g_assert_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE);
      }
  }
}

/* Every member of a valid trace replaced by values of other types: an error or a trace,
 * never a crash. */
static void
test_json_mutations (void)
{
  g_autoptr(RelayTrace) trace = full_trace ();
  g_autoptr(JsonNode) valid = relay_trace_to_json (trace);
  static const char *replacements[] = {
    "null", "0", "-1", "1e300", "\"\"", "true", "[]", "{}", "[[]]", "[null,null,null,null]",
    "{\"a\":{}}", "9223372036854775807", "-9223372036854775808",
  };
  g_autofree char *text = node_to_string (valid);
  g_autoptr(GList) members = json_object_get_members (json_node_get_object (valid));
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) names = NULL;
  guint n_errors = 0;

  /* json_node_copy() shares the object, and replacing a member frees its name: work on
   * fresh parses and copied names. */
  for (const GList *l = members; l != NULL; l = l->next)
    g_strv_builder_add (builder, l->data);
  names = g_strv_builder_end (builder);

  for (guint i = 0; names[i] != NULL; i++)
    {
      for (guint r = 0; r < G_N_ELEMENTS (replacements); r++)
        {
          g_autoptr(JsonNode) copy = parse (text);
          g_autoptr(GError) error = NULL;
          g_autoptr(RelayTrace) loaded = NULL;

          json_object_set_member (json_node_get_object (copy), names[i], parse (replacements[r]));
          loaded = relay_trace_new_from_json (copy, &error);

          g_assert_true ((loaded == NULL) == (error != NULL));
          if (error != NULL)
            n_errors++;
        }
    }

  g_assert_cmpuint (n_errors, >, 50);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/trace/segments/cold", test_segments_cold);
  g_test_add_func ("/trace/segments/warm", test_segments_warm);
  g_test_add_func ("/trace/segments/reasoning", test_segments_reasoning);
  g_test_add_func ("/trace/segments/tls-failure", test_segments_tls_failure);
  g_test_add_func ("/trace/segments/gap", test_segments_gap);
  g_test_add_func ("/trace/segments/end-after-tcp", test_segments_end_after_tcp);
  g_test_add_func ("/trace/segments/live", test_segments_live);
  g_test_add_func ("/trace/tokens", test_tokens);
  g_test_add_func ("/trace/raw-event-cap", test_raw_event_cap);
  g_test_add_func ("/trace/server-headers", test_server_headers);
  g_test_add_func ("/trace/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/trace/changed-signal", test_changed_signal);
  g_test_add_func ("/trace/json/round-trip", test_json_round_trip);
  g_test_add_func ("/trace/json/error-and-extras", test_json_error_and_extras);
  g_test_add_func ("/trace/json/bad", test_json_bad);
  g_test_add_func ("/trace/json/mutations", test_json_mutations);

  return g_test_run ();
}
