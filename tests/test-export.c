/* test-export.c: the exports: CSV, JSON lines, HAR (checked with har-validator when node is
 * there) and its import, Prometheus text, "copy as cURL", the PDF report and charts, budgets,
 * and relayscope-cli's check, export and curl; and that no key reaches any of them.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "relay-budget.h"
#include "relay-export.h"
#include "relay-har.h"
#include "relay-prometheus.h"
#include "relay-report.h"
#include "relay-sim-server.h"
#include "relay-test-cli.h"

static char *tmpdir;

static RelaySession *
load_data_session (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "sessions", name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  RelaySession *session = relay_session_load (file, NULL, &error);

  g_assert_no_error (error);
  return session;
}

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmpdir, name, NULL);
}

/* ---- CSV -------------------------------------------------------------------------------- */

/* A small RFC 4180 reader: rows of fields; quoted fields may hold commas, quotes, CR LF. */
static GPtrArray *
parse_csv (const char *text)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  GPtrArray *row = g_ptr_array_new_with_free_func (g_free);
  GString *field = g_string_new (NULL);
  const char *p = text;

  while (*p)
    {
      if (*p == '"')
        {
          p++;
          while (*p && !(*p == '"' && p[1] != '"'))
            {
              if (*p == '"')
                p++;
              g_string_append_c (field, *p++);
            }
          g_assert_true (*p == '"');
          p++;
        }
      else if (*p == ',')
        {
          g_ptr_array_add (row, g_strdup (field->str));
          g_string_truncate (field, 0);
          p++;
        }
      else if (*p == '\r' && p[1] == '\n')
        {
          g_ptr_array_add (row, g_strdup (field->str));
          g_string_truncate (field, 0);
          g_ptr_array_add (rows, row);
          row = g_ptr_array_new_with_free_func (g_free);
          p += 2;
        }
      else
        {
          /* A bare LF or CR outside quotes breaks RFC 4180. */
          g_assert_true (*p != '\n' && *p != '\r');
          g_string_append_c (field, *p++);
        }
    }

  g_assert_cmpuint (row->len, ==, 0);
  g_assert_cmpuint (field->len, ==, 0);
  g_ptr_array_unref (row);
  g_string_free (field, TRUE);

  return rows;
}

static const char *
csv_get (GPtrArray  *rows,
         guint       r,
         const char *column)
{
  GPtrArray *header = g_ptr_array_index (rows, 0);
  GPtrArray *row = g_ptr_array_index (rows, r);

  for (guint c = 0; c < header->len; c++)
    if (strcmp (g_ptr_array_index (header, c), column) == 0)
      {
        g_assert_cmpuint (row->len, ==, header->len);
        return g_ptr_array_index (row, c);
      }

  g_error ("no column %s", column);
  return NULL;
}

static void
test_csv (void)
{
  g_autoptr(RelaySession) session = load_data_session ("valid.relayscope");
  g_autofree char *csv = NULL;
  g_autoptr(GPtrArray) rows = NULL;

  {
    /* A message that needs every kind of quoting. */
    g_autoptr(RelayTrace) trace = relay_trace_new (0, 3);

    relay_trace_set_mark (trace, RELAY_MARK_END, 1000);
    relay_trace_set_error (trace, RELAY_ERROR_STAGE_HTTP, "http-500", "He said \"no\", then\r\nleft");
    relay_session_add_trace (session, trace);
  }

  csv = relay_export_csv (session);
  rows = parse_csv (csv);
  g_assert_cmpuint (rows->len, ==, 4);

  g_assert_cmpstr (csv_get (rows, 1, "endpoint"), ==, "relay-a");
  g_assert_cmpstr (csv_get (rows, 1, "model"), ==, "model-small");
  g_assert_cmpstr (csv_get (rows, 1, "seq"), ==, "0");
  g_assert_cmpstr (csv_get (rows, 1, "mark_dns_end_ms"), ==, "1.050");
  g_assert_cmpstr (csv_get (rows, 1, "mark_proxy_start_ms"), ==, "");
  g_assert_cmpstr (csv_get (rows, 1, "stage_wait_ms"), ==, "200.000");
  g_assert_cmpstr (csv_get (rows, 1, "stage_tls_setup_ms"), ==, "10.700");
  g_assert_cmpstr (csv_get (rows, 1, "ttft_ms"), ==, "225.400");
  g_assert_cmpstr (csv_get (rows, 1, "ttfo_ms"), ==, "225.400");
  /* Gaps 100 and 100 ms. */
  g_assert_cmpstr (csv_get (rows, 1, "itl_p50_ms"), ==, "100.000");
  g_assert_cmpstr (csv_get (rows, 1, "chunks"), ==, "3");
  g_assert_cmpstr (csv_get (rows, 1, "output_tokens"), ==, "9");
  /* 9 tokens over 200 ms. */
  g_assert_cmpstr (csv_get (rows, 1, "tokens_per_s"), ==, "45.00");
  g_assert_cmpstr (csv_get (rows, 1, "http_version"), ==, "HTTP/1.1");
  g_assert_cmpstr (csv_get (rows, 1, "error_stage"), ==, "");
  g_assert_true (g_str_has_prefix (csv_get (rows, 1, "wall_start"), "2026-02-01T09:31:00.0001"));

  g_assert_cmpstr (csv_get (rows, 2, "error_stage"), ==, "connect");
  g_assert_cmpstr (csv_get (rows, 2, "error_kind"), ==, "timeout");
  g_assert_cmpstr (csv_get (rows, 2, "ttft_ms"), ==, "");
  g_assert_cmpstr (csv_get (rows, 3, "error_message"), ==, "He said \"no\", then\r\nleft");
  g_assert_nonnull (strstr (csv, "\"He said \"\"no\"\", then\r\nleft\"\r\n"));
}

/* ---- JSON lines ------------------------------------------------------------------------- */

static void
test_jsonl (void)
{
  g_autoptr(RelaySession) session = load_data_session ("valid.relayscope");
  g_autofree char *text = relay_export_jsonl (session);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_cmpstr (lines[2], ==, "");

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;
      JsonObject *object;

      json_parser_load_from_data (parser, lines[i], -1, &error);
      g_assert_no_error (error);
      object = json_node_get_object (json_parser_get_root (parser));
      g_assert_cmpstr (json_object_get_string_member (object, "endpoint"), ==, "relay-a");
      g_assert_cmpstr (json_object_get_string_member (object, "model"), ==, "model-small");
      g_assert_cmpint (json_object_get_int_member (object, "seq"), ==, i);
      g_assert_true (json_object_has_member (object, "marks_us"));
      if (i == 0)
        {
          g_assert_cmpfloat (json_object_get_double_member (object, "ttft_ms"), ==, 225.4);
          g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (object, "stages_ms"), "wait"), ==, 200);
          g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (object, "itl_ms"), "p50"), ==, 100);
          /* Unknown members of the file come along. */
          g_assert_cmpstr (json_object_get_string_member (object, "sampled_by"), ==, "relayscope 9.0");
        }
      else
        {
          g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (object, "ttft_ms")));
          g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "error"), "stage"), ==, "connect");
        }
    }
}

/* ---- HAR -------------------------------------------------------------------------------- */

static JsonObject *
har_entry (JsonNode *har,
           guint     i)
{
  JsonObject *log = json_object_get_object_member (json_node_get_object (har), "log");

  return json_array_get_object_element (json_object_get_array_member (log, "entries"), i);
}

/* Runs tests/har/validate.js (har-validator) on path, or skips with the reason. */
static void
validate_har_file (const char *path)
{
  g_autofree char *node = g_find_program_in_path ("node");
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "har", "validate.js", NULL);
  g_autofree char *modules = g_test_build_filename (G_TEST_DIST, "har", "node_modules", "har-validator", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (node == NULL || !g_file_test (modules, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("HAR schema check skipped: needs node and tests/har/node_modules "
                   "(cd tests/har && npm ci --no-audit --no-fund)");
      return;
    }

  {
    const char *argv[] = { node, script, path, NULL };

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
  }
  g_assert_no_error (error);
  g_test_message ("validate.js: %s%s", out, err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

static void
test_har_export (void)
{
  g_autoptr(RelaySession) session = load_data_session ("valid.relayscope");
  g_autoptr(JsonNode) har = relay_har_from_session (session);
  g_autofree char *text = relay_har_to_data (session, NULL);
  g_autofree char *path = tmp_path ("valid.har");
  JsonObject *log = json_object_get_object_member (json_node_get_object (har), "log");
  JsonObject *entry;
  JsonObject *timings;
  JsonObject *request;
  JsonObject *response;
  JsonObject *ext;
  JsonArray *headers;
  gboolean redacted = FALSE;

  g_assert_cmpstr (json_object_get_string_member (log, "version"), ==, "1.2");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (log, "entries")), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (log, "pages")), ==, 1);

  /* The first trace's stages, by hand: blocked 0.05 + other 0.05 (dns_end → connect_start)
   * + other 0.1 (tls_end → request_start); connect = TCP 0.2 + TLS setup 10.7 + TLS 3.0;
   * receive = 0.2 + 10 + 200 + 0.1. */
  entry = har_entry (har, 0);
  timings = json_object_get_object_member (entry, "timings");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (timings, "blocked"), 0.2, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (timings, "dns"), 1.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (timings, "connect"), 13.9, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (timings, "ssl"), 13.7, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (timings, "send"), 0.1, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (timings, "wait"), 200, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (timings, "receive"), 210.3, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (entry, "time"), 425.5, 1e-9);
  g_assert_cmpstr (json_object_get_string_member (entry, "startedDateTime"), ==, "2026-02-01T09:31:00.000100+08:00");
  g_assert_cmpstr (json_object_get_string_member (entry, "serverIPAddress"), ==, "127.0.0.1");
  g_assert_cmpstr (json_object_get_string_member (entry, "pageref"), ==, "run-0");

  request = json_object_get_object_member (entry, "request");
  g_assert_cmpstr (json_object_get_string_member (request, "method"), ==, "POST");
  g_assert_cmpstr (json_object_get_string_member (request, "url"), ==, "https://relay-a.relayscope.test/v1/chat/completions");
  g_assert_nonnull (strstr (json_object_get_string_member (json_object_get_object_member (request, "postData"), "text"),
                            "\"model\":\"model-small\""));
  headers = json_object_get_array_member (request, "headers");
  for (guint i = 0; i < json_array_get_length (headers); i++)
    {
      JsonObject *h = json_array_get_object_element (headers, i);

      if (g_ascii_strcasecmp (json_object_get_string_member (h, "name"), "Authorization") == 0)
        {
          g_assert_cmpstr (json_object_get_string_member (h, "value"), ==, "Bearer REDACTED");
          redacted = TRUE;
        }
    }
  g_assert_true (redacted);

  response = json_object_get_object_member (entry, "response");
  g_assert_cmpint (json_object_get_int_member (response, "status"), ==, 200);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (response, "content"), "mimeType"), ==, "text/event-stream");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (response, "content"), "size"), ==, 220);

  ext = json_object_get_object_member (entry, "_relayscope");
  g_assert_cmpfloat (json_object_get_double_member (ext, "ttft_ms"), ==, 225.4);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (ext, "chunks")), ==, 3);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (ext, "usage"), "completion_tokens"), ==, 9);

  /* The failed probe: no TLS, nothing sent, the 3 s connect attempt shows as connect. */
  entry = har_entry (har, 1);
  timings = json_object_get_object_member (entry, "timings");
  g_assert_cmpint (json_object_get_int_member (timings, "ssl"), ==, -1);
  g_assert_cmpfloat (json_object_get_double_member (timings, "send"), ==, 0);
  g_assert_cmpfloat (json_object_get_double_member (timings, "receive"), ==, 0);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (timings, "connect"), 3000, 1e-9);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (entry, "time"), 3000.95, 1e-9);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (entry, "response"), "status"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (entry, "_error"), ==, "Connecting to relay-a.relayscope.test took more than 3 s");

  g_file_set_contents (path, text, -1, NULL);
  validate_har_file (path);
}

static void
test_har_round_trip (void)
{
  g_autoptr(RelaySession) session = load_data_session ("valid.relayscope");
  g_autofree char *text = NULL;
  g_autoptr(RelaySession) back = NULL;
  g_autoptr(GError) error = NULL;
  GListModel *a;
  GListModel *b;

  relay_session_set_notes (session, "Notes survive.");
  text = relay_har_to_data (session, NULL);
  back = relay_har_import (text, -1, &error);
  g_assert_no_error (error);

  g_assert_cmpstr (relay_session_get_title (back), ==, "Relay comparison");
  g_assert_cmpstr (relay_session_get_notes (back), ==, "Notes survive.");
  g_assert_nonnull (relay_session_find_endpoint (back, "relay-a"));
  g_assert_cmpstr (relay_endpoint_get_base_url (relay_session_find_endpoint (back, "relay-a")), ==,
                   "https://relay-a.relayscope.test/v1");
  g_assert_cmpstr (relay_run_get_prompt (relay_session_get_run (back, 0)), ==, "Reply with a short paragraph about latency.");
  g_assert_cmpuint (relay_run_get_max_tokens (relay_session_get_run (back, 0)), ==, 128);

  a = relay_session_get_traces (session);
  b = relay_session_get_traces (back);
  g_assert_cmpuint (g_list_model_get_n_items (b), ==, g_list_model_get_n_items (a));

  for (guint i = 0; i < g_list_model_get_n_items (a); i++)
    {
      g_autoptr(RelayTrace) x = g_list_model_get_item (a, i);
      g_autoptr(RelayTrace) y = g_list_model_get_item (b, i);
      RelayRun *run = relay_session_get_run (back, relay_trace_get_run (y));
      const RelayChunk *cx, *cy;
      guint nx, ny;

      g_assert_cmpstr (relay_run_get_endpoint (run), ==, "relay-a");
      g_assert_cmpstr (relay_run_get_model (run), ==, "model-small");
      g_assert_cmpuint (relay_trace_get_seq (y), ==, relay_trace_get_seq (x));
      g_assert_true (g_date_time_equal (relay_trace_get_wall_start (x), relay_trace_get_wall_start (y)));
      for (guint m = 0; m < RELAY_N_MARKS; m++)
        g_assert_cmpint (relay_trace_get_mark (y, m), ==, relay_trace_get_mark (x, m));
      cx = relay_trace_get_chunks (x, &nx);
      cy = relay_trace_get_chunks (y, &ny);
      g_assert_cmpuint (ny, ==, nx);
      for (guint k = 0; k < nx; k++)
        {
          g_assert_cmpint (cy[k].t_us, ==, cx[k].t_us);
          g_assert_cmpuint (cy[k].bytes, ==, cx[k].bytes);
          g_assert_cmpuint (cy[k].chars, ==, cx[k].chars);
          g_assert_cmpuint (cy[k].kind, ==, cx[k].kind);
        }
      g_assert_cmpint (relay_trace_get_usage (y)->prompt_tokens, ==, relay_trace_get_usage (x)->prompt_tokens);
      g_assert_cmpint (relay_trace_get_usage (y)->cached_prompt_tokens, ==, relay_trace_get_usage (x)->cached_prompt_tokens);
      g_assert_cmpint (relay_trace_get_usage (y)->completion_tokens, ==, relay_trace_get_usage (x)->completion_tokens);
      g_assert_cmpint (relay_trace_get_usage (y)->reasoning_tokens, ==, relay_trace_get_usage (x)->reasoning_tokens);
      g_assert_cmpint (relay_trace_get_usage (y)->estimated, ==, relay_trace_get_usage (x)->estimated);
      g_assert_cmpuint (relay_trace_get_http_status (y), ==, relay_trace_get_http_status (x));
      g_assert_cmpstr (relay_trace_get_http_version (y), ==, relay_trace_get_http_version (x));
      g_assert_cmpstr (relay_trace_get_tls_version (y), ==, relay_trace_get_tls_version (x));
      g_assert_cmpstr (relay_trace_get_server_header (y, "x-request-id"), ==, relay_trace_get_server_header (x, "x-request-id"));
      g_assert_cmpstr (relay_trace_get_model_reported (y), ==, relay_trace_get_model_reported (x));
      g_assert_cmpint (relay_trace_get_error_stage (y), ==, relay_trace_get_error_stage (x));
      g_assert_cmpstr (relay_trace_get_error_kind (y), ==, relay_trace_get_error_kind (x));
      g_assert_cmpstr (relay_trace_get_error_message (y), ==, relay_trace_get_error_message (x));
      g_assert_cmpuint (relay_trace_get_connect_attempts (y), ==, relay_trace_get_connect_attempts (x));
    }
}

static void
test_har_import_browser (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "har", "browser.har", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySession) session = relay_har_load (file, NULL, &error);
  g_autoptr(RelayTrace) t0 = NULL;
  g_autoptr(RelayTrace) t1 = NULL;
  g_autoptr(RelayTrace) t2 = NULL;
  RelayEndpoint *endpoint;
  RelayRun *run;

  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (session)), ==, 3);
  t0 = g_list_model_get_item (relay_session_get_traces (session), 0);
  t1 = g_list_model_get_item (relay_session_get_traces (session), 1);
  t2 = g_list_model_get_item (relay_session_get_traces (session), 2);

  /* blocked 5, dns 10, connect 30 of which ssl 20, send 1, wait 100, receive 50. */
  g_assert_cmpint (relay_trace_get_mark (t0, RELAY_MARK_DNS_START), ==, 5000);
  g_assert_cmpint (relay_trace_get_mark (t0, RELAY_MARK_DNS_END), ==, 15000);
  g_assert_cmpint (relay_trace_get_mark (t0, RELAY_MARK_CONNECT_START), ==, 15000);
  g_assert_cmpint (relay_trace_get_mark (t0, RELAY_MARK_TCP_END), ==, 25000);
  g_assert_cmpint (relay_trace_get_mark (t0, RELAY_MARK_TLS_END), ==, 45000);
  g_assert_cmpint (relay_trace_get_mark (t0, RELAY_MARK_REQUEST_END), ==, 46000);
  g_assert_cmpint (relay_trace_get_mark (t0, RELAY_MARK_RESPONSE_START), ==, 146000);
  g_assert_cmpint (relay_trace_get_mark (t0, RELAY_MARK_END), ==, 196000);
  g_assert_cmpint (relay_trace_get_stage_duration (t0, RELAY_STAGE_WAIT), ==, 100000);
  g_assert_cmpuint (relay_trace_get_http_status (t0), ==, 200);
  g_assert_cmpstr (relay_trace_get_http_version (t0), ==, "h2");
  g_assert_cmpstr (relay_trace_get_server_header (t0, "x-request-id"), ==, "req-77");
  g_assert_null (relay_trace_get_server_header (t0, "set-cookie"));
  g_assert_cmpstr (relay_trace_get_remote (t0), ==, "192.0.2.10");
  g_assert_true (relay_trace_is_ok (t0));
  g_assert_false (relay_trace_get_reused (t0));

  endpoint = relay_session_find_endpoint (session, "api.example.test");
  g_assert_nonnull (endpoint);
  g_assert_cmpstr (relay_endpoint_get_base_url (endpoint), ==, "https://api.example.test/v1");
  g_assert_cmpint (relay_endpoint_get_api (endpoint), ==, RELAY_API_OPENAI_CHAT);
  run = relay_session_get_run (session, relay_trace_get_run (t0));
  g_assert_cmpstr (relay_run_get_model (run), ==, "gpt-x");
  g_assert_cmpstr (relay_run_get_prompt (run), ==, "Say hi");
  g_assert_cmpuint (relay_run_get_max_tokens (run), ==, 64);

  /* The Anthropic call: a reused connection, rate-limited. */
  endpoint = relay_session_find_endpoint (session, "claude.example.test");
  g_assert_cmpint (relay_endpoint_get_api (endpoint), ==, RELAY_API_ANTHROPIC_MESSAGES);
  g_assert_cmpstr (relay_endpoint_get_base_url (endpoint), ==, "https://claude.example.test");
  g_assert_true (relay_trace_get_reused (t1));
  g_assert_false (relay_trace_has_mark (t1, RELAY_MARK_DNS_START));
  g_assert_cmpint (relay_trace_get_mark (t1, RELAY_MARK_RESPONSE_START), ==, 70500);
  g_assert_cmpint (relay_trace_get_error_stage (t1), ==, RELAY_ERROR_STAGE_HTTP);
  g_assert_cmpstr (relay_trace_get_error_kind (t1), ==, "http-429");

  /* The refused connection. */
  g_assert_cmpint (relay_trace_get_error_stage (t2), ==, RELAY_ERROR_STAGE_CONNECT);
  g_assert_cmpstr (relay_trace_get_error_message (t2), ==, "net::ERR_CONNECTION_REFUSED");
  g_assert_cmpstr (relay_run_get_model (relay_session_get_run (session, relay_trace_get_run (t2))), ==, "default");
}

static void
test_har_import_bad (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySession) session = NULL;

  session = relay_har_import ("{ nope", -1, &error);
  g_assert_null (session);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);

  session = relay_har_import ("{\"log\": {\"version\": \"1.2\"}}", -1, &error);
  g_assert_null (session);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);

  session = relay_har_import ("{\"log\": {\"entries\": [{\"request\": {}}]}}", -1, &error);
  g_assert_null (session);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
}

/* ---- secrets ---------------------------------------------------------------------------- */

/* An endpoint whose extra headers hold keys, as a user might type them. None of the exports
 * may contain them. */
static RelaySession *
make_secret_session (const char *base_url,
                     const char *prompt)
{
  RelaySession *session = relay_session_new ();
  g_autoptr(RelayEndpoint) endpoint = relay_endpoint_new ("secretive", base_url, RELAY_API_OPENAI_CHAT);
  g_autoptr(RelayRun) run = relay_run_new ("secretive", "sim-model");
  g_autoptr(RelayTrace) trace = relay_trace_new (0, 1);
  const char *headers[] = { "Authorization: Bearer sk-secret-123", "x-api-key: sk-secret-456",
                            "Proxy-Authorization: Basic c2stc2VjcmV0LTc4OQ==", "X-Team: latency", NULL };
  const char *models[] = { "sim-model", NULL };

  relay_endpoint_set_headers (endpoint, headers);
  relay_endpoint_set_models (endpoint, models);
  relay_session_add_endpoint (session, endpoint);
  relay_run_set_prompt (run, prompt);
  relay_run_set_max_tokens (run, 16);
  relay_session_add_run (session, run);
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, 100);
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, 200);
  relay_trace_set_mark (trace, RELAY_MARK_RESPONSE_START, 5000);
  relay_trace_set_mark (trace, RELAY_MARK_END, 9000);
  relay_trace_set_http_status (trace, 200);
  relay_session_add_trace (session, trace);

  return session;
}

static void
assert_no_secret (const char *text)
{
  g_assert_nonnull (text);
  g_assert_null (strstr (text, "sk-secret"));
  g_assert_null (strstr (text, "c2stc2VjcmV0LTc4OQ"));
}

static void
test_no_secrets (void)
{
  g_autoptr(RelaySession) session = make_secret_session ("https://relay.relayscope.test/v1", "Hi");
  g_autoptr(RelayTrace) trace = g_list_model_get_item (relay_session_get_traces (session), 0);
  g_autofree char *har = relay_har_to_data (session, NULL);
  g_autofree char *csv = relay_export_csv (session);
  g_autofree char *jsonl = relay_export_jsonl (session);
  g_autofree char *prom = relay_prometheus_format (session);
  g_autofree char *curl = relay_export_curl_command (session, trace, NULL);

  assert_no_secret (har);
  assert_no_secret (csv);
  assert_no_secret (jsonl);
  assert_no_secret (prom);
  assert_no_secret (curl);

  /* The headers are still there, with their shape and not their value. */
  g_assert_nonnull (strstr (har, "\"Bearer REDACTED\""));
  g_assert_nonnull (strstr (har, "\"x-api-key\""));
  g_assert_nonnull (strstr (curl, "-H \"Authorization: Bearer $OPENAI_API_KEY\""));
  g_assert_nonnull (strstr (curl, "-H \"x-api-key: $OPENAI_API_KEY\""));
  g_assert_nonnull (strstr (curl, "-H 'X-Team: latency'"));
}

/* The command must work as printed: run it with sh against the simulated relay, with the key
 * in the environment and a prompt that needs shell quoting. */
static void
test_curl_runs (void)
{
  RelaySimProfile profile = { 0 };
  g_autoptr(RelaySimServer) server = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *base = NULL;
  g_autofree char *command = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *curl = g_find_program_in_path ("curl");
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  g_auto(GStrv) env = NULL;
  int status;

  if (curl == NULL)
    {
      g_test_skip ("curl is not installed");
      return;
    }

  g_assert_true (relay_sim_profile_init_named (&profile, "fast"));
  profile.seed = 1;
  server = relay_sim_server_new (&profile);
  relay_sim_profile_clear (&profile);
  relay_sim_server_start (server, 0, FALSE, &error);
  g_assert_no_error (error);
  root = relay_sim_server_dup_root_url (server, NULL);
  base = g_strconcat (root, "/v1", NULL);

  session = make_secret_session (base, "It's a \"test\" with $HOME and `backticks`");
  trace = g_list_model_get_item (relay_session_get_traces (session), 0);
  command = relay_export_curl_command (session, trace, &error);
  g_assert_no_error (error);
  g_test_message ("%s", command);
  g_assert_true (g_str_has_prefix (command, "curl -N -sS -X POST '"));
  g_assert_nonnull (strstr (command, "--data-raw '{\"model\":\"sim-model\""));

  {
    const char *argv[] = { "/bin/sh", "-c", command, NULL };

    env = g_get_environ ();
    env = g_environ_setenv (env, "OPENAI_API_KEY", "test-key", TRUE);
    env = g_environ_setenv (env, "no_proxy", "*", TRUE);
    /* The relay serves from a thread of its own, so a blocking wait is fine. */
    {
      g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
      g_autoptr(GSubprocess) process = NULL;

      g_subprocess_launcher_set_environ (launcher, env);
      process = g_subprocess_launcher_spawnv (launcher, argv, &error);
      g_assert_no_error (error);
      g_subprocess_communicate_utf8 (process, NULL, NULL, &out, &err, &error);
      g_assert_no_error (error);
      status = g_subprocess_get_exit_status (process);
    }
  }

  g_test_message ("exit %d\n%s\n%s", status, out, err);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "data: "));
  g_assert_nonnull (strstr (out, "[DONE]"));
}

/* ---- Prometheus ------------------------------------------------------------------------- */

/* Every line is a comment (HELP/TYPE) or "name{labels} value" as the format defines. */
static void
assert_exposition_format (const char *text)
{
  g_autoptr(GRegex) sample = g_regex_new ("^[a-zA-Z_:][a-zA-Z0-9_:]*(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\\n]|\\\\[\\\\\"n])*\",?)*\\})? "
                                          "(NaN|[+-]Inf|-?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?)$", 0, 0, NULL);
  g_autoptr(GRegex) comment = g_regex_new ("^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$", 0, 0, NULL);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = g_strv_length (lines);

  g_assert_cmpuint (n, >, 2);
  g_assert_cmpstr (lines[n - 1], ==, "");
  for (guint i = 0; i + 1 < n; i++)
    {
      if (!g_regex_match (comment, lines[i], 0, NULL) && !g_regex_match (sample, lines[i], 0, NULL))
        g_error ("not exposition format: %s", lines[i]);
    }
}

static void
test_prometheus (void)
{
  g_autoptr(RelaySession) session = load_data_session ("valid.relayscope");
  g_autofree char *text = NULL;
  g_autofree char *escaped = relay_prometheus_escape_label ("a\"b\\c\nd");

  g_assert_cmpstr (escaped, ==, "a\\\"b\\\\c\\nd");

  text = relay_prometheus_format (session);
  g_test_message ("%s", text);
  assert_exposition_format (text);

  g_assert_nonnull (strstr (text, "# HELP relayscope_ttft_seconds "));
  g_assert_nonnull (strstr (text, "# TYPE relayscope_ttft_seconds summary\n"));
  g_assert_nonnull (strstr (text, "relayscope_ttft_seconds{endpoint=\"relay-a\",model=\"model-small\",quantile=\"0.5\"} 0.2254\n"));
  g_assert_nonnull (strstr (text, "relayscope_ttft_seconds_sum{endpoint=\"relay-a\",model=\"model-small\"} 0.2254\n"));
  g_assert_nonnull (strstr (text, "relayscope_ttft_seconds_count{endpoint=\"relay-a\",model=\"model-small\"} 1\n"));
  g_assert_nonnull (strstr (text, "relayscope_wait_seconds{endpoint=\"relay-a\",model=\"model-small\",quantile=\"0.95\"} 0.2\n"));
  g_assert_nonnull (strstr (text, "# TYPE relayscope_probes_total counter\n"));
  g_assert_nonnull (strstr (text, "relayscope_probes_total{endpoint=\"relay-a\",model=\"model-small\"} 2\n"));
  g_assert_nonnull (strstr (text, "relayscope_probe_errors_total{endpoint=\"relay-a\",model=\"model-small\",stage=\"connect\"} 1\n"));
  g_assert_nonnull (strstr (text, "relayscope_probe_errors_total{endpoint=\"relay-a\",model=\"model-small\",stage=\"http\"} 0\n"));

  /* Names that need escaping stay valid. */
  {
    g_autoptr(RelaySession) odd = relay_session_new ();
    g_autoptr(RelayRun) run = relay_run_new ("we\"ird\\relay", "model\nx");
    g_autoptr(RelayTrace) trace = relay_trace_new (0, 1);
    g_autofree char *odd_text = NULL;

    relay_session_add_run (odd, run);
    relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, 1500);
    relay_trace_set_mark (trace, RELAY_MARK_END, 3000);
    relay_session_add_trace (odd, trace);
    odd_text = relay_prometheus_format (odd);
    assert_exposition_format (odd_text);
    g_assert_nonnull (strstr (odd_text, "relayscope_ttft_seconds_count{endpoint=\"we\\\"ird\\\\relay\",model=\"model\\nx\"} 1\n"));
    g_assert_nonnull (strstr (odd_text, "relayscope_dns_seconds{endpoint=\"we\\\"ird\\\\relay\",model=\"model\\nx\",quantile=\"0.5\"} NaN\n"));
  }
}

/* ---- budgets ---------------------------------------------------------------------------- */

static void
test_budget_api (void)
{
  g_autoptr(RelaySession) session = load_data_session ("valid.relayscope");
  g_autoptr(RelayBudget) budget = relay_budget_new ();
  g_autoptr(RelayBudget) back = NULL;
  g_autoptr(GPtrArray) overruns = NULL;
  g_autoptr(GPtrArray) sentences = NULL;
  g_autoptr(RelayTrace) trace = g_list_model_get_item (relay_session_get_traces (session), 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  g_auto(GStrv) names = NULL;
  const RelayBudgetOverrun *o;
  RelayBudgetItem items[RELAY_N_BUDGET_ITEMS];
  guint n;

  /* The trace: TTFT 225.4, wait 200, network 1 + 0.2 + 3 = 4.2, ITL gaps 100 and 100. */
  relay_budget_set_percentile (budget, 50);
  relay_budget_set_limit (budget, RELAY_BUDGET_WAIT, 150);
  relay_budget_set_limit (budget, RELAY_BUDGET_TTFT, 300);
  relay_budget_set_limit (budget, RELAY_BUDGET_ITL, 80);
  relay_budget_set_limit (budget, RELAY_BUDGET_END_TO_END, 400);
  relay_budget_set_limit (budget, RELAY_BUDGET_TOKENS_PER_S, 50);
  relay_budget_set_allowance (budget, "front_end", 50);
  relay_budget_set_allowance (budget, "back_end", 200);
  relay_budget_set_allowance (budget, "front_end", 60);
  g_assert_cmpfloat (relay_budget_get_allowances (budget), ==, 260);

  overruns = relay_budget_check_overruns (budget, session);
  g_assert_cmpuint (overruns->len, ==, 4);
  o = g_ptr_array_index (overruns, 0);
  g_assert_cmpstr (o->endpoint, ==, "relay-a");
  g_assert_cmpint (o->item, ==, RELAY_BUDGET_WAIT);
  g_assert_cmpfloat (o->value, ==, 200);
  g_assert_cmpfloat (o->limit, ==, 150);
  g_assert_cmpuint (o->n, ==, 1);
  o = g_ptr_array_index (overruns, 1);
  g_assert_cmpint (o->item, ==, RELAY_BUDGET_END_TO_END);
  g_assert_cmpfloat_with_epsilon (o->value, 485.4, 1e-9);
  o = g_ptr_array_index (overruns, 2);
  g_assert_cmpint (o->item, ==, RELAY_BUDGET_ITL);
  g_assert_cmpuint (o->n, ==, 2);
  o = g_ptr_array_index (overruns, 3);
  g_assert_cmpint (o->item, ==, RELAY_BUDGET_TOKENS_PER_S);
  g_assert_cmpfloat (o->value, ==, 45);

  sentences = relay_budget_check (budget, session);
  g_assert_cmpuint (sentences->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (sentences, 0), ==,
                   "relay-a model-small: wait p50 is 200.0 ms, over its budget of 150 ms by 50.0 ms");
  g_assert_cmpstr (g_ptr_array_index (sentences, 3), ==,
                   "relay-a model-small: output p50 45.0 tokens/s is below the floor of 50.0");

  n = relay_budget_trace_overruns (budget, trace, items, G_N_ELEMENTS (items));
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpint (items[0], ==, RELAY_BUDGET_WAIT);

  /* Written and read back. */
  data = relay_budget_to_data (budget);
  back = relay_budget_new_from_data (data, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (relay_budget_get_percentile (back), ==, 50);
  g_assert_cmpfloat (relay_budget_get_limit (back, RELAY_BUDGET_WAIT), ==, 150);
  g_assert_cmpfloat (relay_budget_get_limit (back, RELAY_BUDGET_TOKENS_PER_S), ==, 50);
  g_assert_cmpfloat (relay_budget_get_limit (back, RELAY_BUDGET_DNS), <, 0);
  g_assert_cmpfloat (relay_budget_get_allowance (back, "front_end"), ==, 60);
  names = relay_budget_dup_allowance_names (back);
  g_assert_cmpstrv (names, ((const char * const[]) { "front_end", "back_end", NULL }));

  /* Removing a limit. */
  relay_budget_set_limit (budget, RELAY_BUDGET_WAIT, -1);
  g_clear_pointer (&overruns, g_ptr_array_unref);
  overruns = relay_budget_check_overruns (budget, session);
  g_assert_cmpuint (overruns->len, ==, 3);
}

/* ---- the PDF report --------------------------------------------------------------------- */

static guint
count_occurrences (const char *data,
                   gsize       len,
                   const char *needle)
{
  guint n = 0;
  gsize nlen = strlen (needle);

  for (gsize i = 0; i + nlen <= len; i++)
    if (memcmp (data + i, needle, nlen) == 0)
      n++;
  return n;
}

static void
test_report_pdf (void)
{
  g_autoptr(RelaySession) session = load_data_session ("valid.relayscope");
  g_autoptr(RelayBudget) budget = relay_budget_new_default ();
  g_autoptr(GError) error = NULL;
  g_autofree char *path = tmp_path ("report.pdf");
  g_autofree char *bad = g_build_filename (tmpdir, "no-such-dir", "report.pdf", NULL);
  g_autofree char *data = NULL;
  gsize len;

  /* Enough traces for the waterfall to need two pages. */
  for (guint i = 0; i < 40; i++)
    {
      g_autoptr(RelayTrace) trace = relay_trace_new (0, 10 + i);

      relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, 100);
      relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, 200);
      relay_trace_set_mark (trace, RELAY_MARK_RESPONSE_START, 100000 + i * 5000);
      relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, 150000 + i * 5000);
      relay_trace_set_mark (trace, RELAY_MARK_FIRST_CONTENT, 150000 + i * 5000);
      relay_trace_set_mark (trace, RELAY_MARK_LAST_TOKEN, 250000 + i * 5000);
      relay_trace_set_mark (trace, RELAY_MARK_END, 251000 + i * 5000);
      for (guint k = 0; k < 10; k++)
        relay_trace_add_chunk (trace, 150000 + i * 5000 + k * 10000, RELAY_CHUNK_CONTENT, 40, 8);
      relay_trace_set_http_status (trace, 200);
      relay_session_add_trace (session, trace);
    }

  g_assert_true (relay_report_export_pdf (session, budget, NULL, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_true (g_str_has_prefix (data, "%PDF-"));
  /* Summary page, two waterfall pages, the stream page. */
  g_test_message ("%u pages", count_occurrences (data, len, "/Type /Page\n") + count_occurrences (data, len, "/Type /Page "));
  g_assert_cmpuint (count_occurrences (data, len, "/Type /Page\n") + count_occurrences (data, len, "/Type /Page "), >=, 4);

  g_assert_false (relay_report_export_pdf (session, NULL, NULL, bad, &error));
  g_assert_nonnull (error);
}

/* ---- the CLI ---------------------------------------------------------------------------- */


static void
test_cli_check (void)
{
  g_autofree char *session = g_test_build_filename (G_TEST_DIST, "data", "sessions", "valid.relayscope", NULL);
  g_autofree char *bad_session = g_test_build_filename (G_TEST_DIST, "data", "sessions", "not-json.relayscope", NULL);
  g_autofree char *within = tmp_path ("within.json");
  g_autofree char *over = tmp_path ("over.json");
  g_autofree char *broken = tmp_path ("broken.json");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  CliResult r = { 0 };
  JsonObject *root;

  g_file_set_contents (within, "{\"percentile\": 50, \"limits_ms\": {\"ttft\": 300, \"wait\": 250}}", -1, NULL);
  g_file_set_contents (over, "{\"percentile\": \"p95\", \"limits_ms\": {\"wait\": 150, \"ttft\": 300}}", -1, NULL);
  g_file_set_contents (broken, "{\"limits_ms\": {\"warp\": 1}}", -1, NULL);

  /* The session has one failed probe: within budget, that gives 1. */
  run_cli (&r, "check", session, "--budget", within, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.out, "Within budget (checked at p50)."));
  g_assert_nonnull (strstr (r.out, "Failed probes:"));
  cli_result_clear (&r);

  run_cli (&r, "check", session, "--budget", over, NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.out, "relay-a model-small: wait p95 is 200.0 ms, over its budget of 150 ms by 50.0 ms"));
  g_assert_null (strstr (r.out, "ttft p95"));
  cli_result_clear (&r);

  run_cli (&r, "check", session, "--budget", over, "--json", NULL);
  g_assert_cmpint (r.status, ==, 3);
  json_parser_load_from_data (parser, r.out, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_false (json_object_get_boolean_member (root, "within_budget"));
  g_assert_cmpint (json_object_get_int_member (root, "failed_probes"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (root, "overruns"), 0), "stage"), ==, "wait");
  cli_result_clear (&r);

  /* The default budget: network 4.2 ≤ 100, wait 200 ≤ 330, first token 10.2 ≤ 200, end to end
   * 225.4 + 250 ≤ 880. */
  run_cli (&r, "check", session, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.out, "Within budget (checked at p95)."));
  cli_result_clear (&r);

  run_cli (&r, "check", session, "--budget", broken, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "warp"));
  cli_result_clear (&r);
  run_cli (&r, "check", bad_session, "--budget", within, NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
  run_cli (&r, "check", NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
}

static void
test_cli_export (void)
{
  g_autofree char *session = g_test_build_filename (G_TEST_DIST, "data", "sessions", "valid.relayscope", NULL);
  g_autofree char *har = tmp_path ("cli.har");
  g_autofree char *csv = tmp_path ("cli.csv");
  g_autofree char *pdf = tmp_path ("cli.pdf");
  g_autofree char *png = tmp_path ("cli.png");
  g_autofree char *svg = tmp_path ("cli.svg");
  g_autofree char *budget = tmp_path ("cli-budget.json");
  g_autofree char *data = NULL;
  gsize len;
  CliResult r = { 0 };

  run_cli (&r, "export", session, "-o", har, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (har, &data, &len, NULL));
  g_assert_nonnull (strstr (data, "\"version\" : \"1.2\""));
  g_clear_pointer (&data, g_free);
  cli_result_clear (&r);
  validate_har_file (har);

  run_cli (&r, "export", session, "--format", "csv", "-o", csv, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (csv, &data, &len, NULL));
  g_assert_true (g_str_has_prefix (data, "endpoint,model,run,seq,wall_start,mark_start_ms,"));
  g_clear_pointer (&data, g_free);
  cli_result_clear (&r);

  run_cli (&r, "export", session, "--format", "jsonl", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "{\"endpoint\":\"relay-a\""));
  cli_result_clear (&r);

  g_file_set_contents (budget, "{\"limits_ms\": {\"wait\": 150}}", -1, NULL);
  run_cli (&r, "export", session, "-o", pdf, "--budget", budget, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (pdf, &data, &len, NULL));
  g_assert_true (g_str_has_prefix (data, "%PDF-"));
  g_clear_pointer (&data, g_free);
  cli_result_clear (&r);

  run_cli (&r, "export", session, "-o", png, "--width", "800", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (png, &data, &len, NULL));
  g_assert_cmpmem (data, 8, "\x89PNG\r\n\x1a\n", 8);
  /* PNG width is big-endian at byte 16. */
  g_assert_cmpuint (((guint8) data[16] << 24) | ((guint8) data[17] << 16) | ((guint8) data[18] << 8) | (guint8) data[19], ==, 800);
  g_clear_pointer (&data, g_free);
  cli_result_clear (&r);

  run_cli (&r, "export", session, "-o", svg, "--chart", "stream", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (svg, &data, &len, NULL));
  g_assert_nonnull (strstr (data, "<svg"));
  g_clear_pointer (&data, g_free);
  cli_result_clear (&r);

  /* Usage errors. */
  run_cli (&r, "export", session, "--format", "docx", NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
  run_cli (&r, "export", session, "--format", "pdf", NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
  run_cli (&r, "export", session, NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
  run_cli (&r, "export", session, "-o", png, "--chart", "pie", NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
}

static void
test_cli_curl (void)
{
  g_autofree char *session = g_test_build_filename (G_TEST_DIST, "data", "sessions", "valid.relayscope", NULL);
  CliResult r = { 0 };

  run_cli (&r, "curl", session, "--trace", "0", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "curl -N -sS -X POST 'https://relay-a.relayscope.test/v1/chat/completions'"));
  /* The endpoint keeps its key in RELAY_A_KEY. */
  g_assert_nonnull (strstr (r.out, "-H \"Authorization: Bearer $RELAY_A_KEY\""));
  g_assert_nonnull (strstr (r.out, "-H 'X-Team: latency'"));
  g_assert_null (strstr (r.out, "test-key"));
  cli_result_clear (&r);

  run_cli (&r, "curl", session, "--trace", "2", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "the session has 2 traces"));
  cli_result_clear (&r);
}

static void
test_cli_prometheus (void)
{
  RelaySimProfile profile = { 0 };
  g_autoptr(RelaySimServer) server = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *url = NULL;
  g_autofree char *prom = tmp_path ("probe.prom");
  g_autofree char *text = NULL;
  CliResult r = { 0 };

  g_assert_true (relay_sim_profile_init_named (&profile, "fast"));
  profile.seed = 7;
  server = relay_sim_server_new (&profile);
  relay_sim_profile_clear (&profile);
  relay_sim_server_start (server, 0, FALSE, &error);
  g_assert_no_error (error);
  root = relay_sim_server_dup_root_url (server, NULL);
  url = g_strconcat (root, "/v1", NULL);

  run_cli (&r, "probe", url, "--name", "sim", "-m", "sim-model", "--repeat", "2", "--quiet", "--prometheus", prom, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (prom, &text, NULL, NULL));
  assert_exposition_format (text);
  g_assert_nonnull (strstr (text, "relayscope_ttft_seconds_count{endpoint=\"sim\",model=\"sim-model\"} 2\n"));
  g_assert_nonnull (strstr (text, "relayscope_probes_total{endpoint=\"sim\",model=\"sim-model\"} 2\n"));
  cli_result_clear (&r);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);

  tmpdir = g_dir_make_tmp ("relayscope-export-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);

  g_test_add_func ("/export/csv", test_csv);
  g_test_add_func ("/export/jsonl", test_jsonl);
  g_test_add_func ("/export/har", test_har_export);
  g_test_add_func ("/export/har-round-trip", test_har_round_trip);
  g_test_add_func ("/export/har-import-browser", test_har_import_browser);
  g_test_add_func ("/export/har-import-bad", test_har_import_bad);
  g_test_add_func ("/export/no-secrets", test_no_secrets);
  g_test_add_func ("/export/curl-runs", test_curl_runs);
  g_test_add_func ("/export/prometheus", test_prometheus);
  g_test_add_func ("/export/budget-api", test_budget_api);
  g_test_add_func ("/export/report-pdf", test_report_pdf);
  g_test_add_func ("/cli/check", test_cli_check);
  g_test_add_func ("/cli/export", test_cli_export);
  g_test_add_func ("/cli/curl", test_cli_curl);
  g_test_add_func ("/cli/prometheus", test_cli_prometheus);

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
