/* bench-accuracy.c: how close each client's timings come to what the simulated relay did:
 * Relayscope's prober, curl -w, the official openai npm client, and a bare socket as a floor.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The relay runs as a separate process on 127.0.0.1 and stamps, with CLOCK_MONOTONIC, when a
 * request reached its handler (header x-relayscope-start-us, "A") and when it handed each
 * event to its connection ("relayscope_sent_us"; the role-only first event goes out with the
 * headers, so its stamp "H" is when the headers were released). Every client on this machine
 * reads the same clock, so a client's stamp minus the relay's stamp is the time the client
 * needed to notice; a client's duration minus the relay's duration is its error.
 *
 * Measures (error = client's figure − the relay's, ms):
 *   ttfb      headers seen − H, for clients that stamp on the same clock (start → headers
 *             is then exact but for this lag, since the client's start is its own);
 *   wait      (headers seen − request sent) − (H − A), for clients that only report
 *             durations from their own start (curl); adds the request's delivery time;
 *   ttft      first content chunk seen − its send stamp;
 *   gap       each gap between content chunks − the gap between their send stamps.
 */

#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench-accuracy.h"

#define HEADERS_MS 20
#define TTFT_MS    30
#define ITL_MS     10
#define TOKENS     20
#define CALIBRATION_ROUNDS 50

static const char profile_json[] =
  "{\"profile\": \"fast\", \"headers_delay_ms\": " G_STRINGIFY (HEADERS_MS) ","
  " \"prefill_us_per_token\": 0, \"cache_discount\": 0,"
  " \"ttft_ms\": " G_STRINGIFY (TTFT_MS) ", \"reasoning_tokens\": 0,"
  " \"itl_ms\": " G_STRINGIFY (ITL_MS) ", \"itl_jitter_ms\": 0,"
  " \"stall_probability\": 0, \"coalesce\": 1, \"tokens\": " G_STRINGIFY (TOKENS) ","
  " \"role_chunk\": true, \"fault\": \"none\", \"fault_probability\": 0, \"seed\": 1}";

static const char request_body[] =
  "{\"model\":\"bench-model\",\"stream\":true,"
  "\"messages\":[{\"role\":\"user\",\"content\":\"Say something for the benchmark.\"}]}";

typedef enum
{
  MEASURE_TTFB,
  MEASURE_WAIT,
  MEASURE_TTFT,
  MEASURE_GAP,
  N_MEASURES
} Measure;

static const char * const measure_names[N_MEASURES] = { "ttfb", "wait", "ttft", "gap" };

typedef struct
{
  const char   *name;
  const char   *label;
  gboolean      reference;       /* a floor to read the others against, not a contender */
  BenchSamples *samples[N_MEASURES];
  guint         requests;
  guint         failed;
  char         *skipped;         /* why the tool did not run */
  BenchSamples *wait_from_connect;  /* curl: wait taken from time_connect instead */
} Tool;

static void
tool_init (Tool       *tool,
           const char *name,
           const char *label,
           gboolean    reference)
{
  memset (tool, 0, sizeof *tool);
  tool->name = name;
  tool->label = label;
  tool->reference = reference;
  for (guint m = 0; m < N_MEASURES; m++)
    tool->samples[m] = bench_samples_new ();
  tool->wait_from_connect = bench_samples_new ();
}

static void
tool_clear (Tool *tool)
{
  for (guint m = 0; m < N_MEASURES; m++)
    g_clear_pointer (&tool->samples[m], g_array_unref);
  g_clear_pointer (&tool->wait_from_connect, g_array_unref);
  g_clear_pointer (&tool->skipped, g_free);
}

/* One request as a client saw it, on the shared clock (-1 where it cannot tell). */
typedef struct
{
  gint64  sent_request;  /* the request was written */
  gint64  headers_seen;
  gint64  relay_start;   /* A */
  gint64  relay_headers; /* H */
  GArray *seen;          /* content chunks: when seen … */
  GArray *sent;          /* … and their send stamps */
} Observation;

static void
observation_init (Observation *obs)
{
  obs->sent_request = obs->headers_seen = obs->relay_start = obs->relay_headers = -1;
  obs->seen = g_array_new (FALSE, FALSE, sizeof (gint64));
  obs->sent = g_array_new (FALSE, FALSE, sizeof (gint64));
}

static void
observation_clear (Observation *obs)
{
  g_clear_pointer (&obs->seen, g_array_unref);
  g_clear_pointer (&obs->sent, g_array_unref);
}

static void
observation_add_chunk (Observation *obs,
                       gint64       seen,
                       gint64       sent)
{
  g_array_append_val (obs->seen, seen);
  g_array_append_val (obs->sent, sent);
}

/* Turns an observation into error samples; FALSE when it lacks what it should have. */
static gboolean
tool_add (Tool              *tool,
          const Observation *obs,
          gboolean           same_clock)
{
  gint64 *seen = (gint64 *) (gpointer) obs->seen->data;
  gint64 *sent = (gint64 *) (gpointer) obs->sent->data;

  tool->requests++;

  if (obs->relay_headers < 0 || obs->seen->len != TOKENS)
    {
      tool->failed++;
      return FALSE;
    }

  if (same_clock && obs->headers_seen >= 0)
    bench_samples_add_us (tool->samples[MEASURE_TTFB], obs->headers_seen - obs->relay_headers);

  if (obs->sent_request >= 0 && obs->headers_seen >= 0 && obs->relay_start >= 0)
    bench_samples_add_us (tool->samples[MEASURE_WAIT],
                          (obs->headers_seen - obs->sent_request) -
                          (obs->relay_headers - obs->relay_start));

  if (same_clock && sent[0] >= 0)
    bench_samples_add_us (tool->samples[MEASURE_TTFT], seen[0] - sent[0]);

  for (guint i = 1; i < obs->seen->len; i++)
    {
      if (sent[i] >= 0 && sent[i - 1] >= 0)
        bench_samples_add_us (tool->samples[MEASURE_GAP],
                              (seen[i] - seen[i - 1]) - (sent[i] - sent[i - 1]));
    }

  return TRUE;
}

/* Parsing what the relay sent (its own fixed format; only what the benchmark needs) */

/* The number after a header name, searched case-insensitively in the header block. */
static gint64
find_header_number (const char *headers,
                    gsize       len,
                    const char *name)
{
  g_autofree char *lower = g_ascii_strdown (headers, len);
  g_autofree char *key = g_strconcat ("\n", name, ":", NULL);
  const char *p = strstr (lower, key);

  if (p == NULL)
    return -1;
  p += strlen (key);
  while (*p == ' ')
    p++;

  return g_ascii_strtoll (p, NULL, 10);
}

/* TRUE for an OpenAI chunk whose delta carries non-empty content. */
static gboolean
event_has_content (const char *event,
                   gsize       len)
{
  static const char key[] = "\"delta\":{\"content\":\"";
  const char *p = g_strstr_len (event, len, key);

  return p != NULL && p + strlen (key) < event + len && p[strlen (key)] != '"';
}

/* Walks the SSE events of body[0..len); calls func with each event's span. */
typedef void (*EventFunc) (const char *event,
                           gsize       len,
                           gsize       end_offset,
                           gpointer    user_data);

static void
foreach_event (const char *body,
               gsize       len,
               EventFunc   func,
               gpointer    user_data)
{
  const char *p = body;
  const char *end = body + len;

  while (p < end && (p = g_strstr_len (p, end - p, "data: ")) != NULL)
    {
      const char *stop = g_strstr_len (p, end - p, "\n\n");

      if (stop == NULL)
        break;
      func (p, stop - p, stop + 2 - body, user_data);
      p = stop + 2;
    }
}

/* The floor: a blocking socket that stamps each read as it returns */

typedef struct
{
  GArray      *read_end;   /* gsize: offset after each read */
  GArray      *read_time;  /* gint64 */
  Observation *obs;
  gsize        body_offset;
  gboolean     first;
} FloorParse;

static gint64
floor_time_at (FloorParse *fp,
               gsize       offset)
{
  for (guint i = 0; i < fp->read_end->len; i++)
    {
      if (g_array_index (fp->read_end, gsize, i) > offset)
        return g_array_index (fp->read_time, gint64, i);
    }
  return -1;
}

static void
floor_event (const char *event,
             gsize       len,
             gsize       end_offset,
             gpointer    user_data)
{
  FloorParse *fp = user_data;
  gint64 sent = bench_find_sent_us (event, len);
  gint64 seen = floor_time_at (fp, fp->body_offset + end_offset - 1);

  if (fp->first)
    {
      fp->obs->relay_headers = sent;
      fp->first = FALSE;
    }
  else if (event_has_content (event, len))
    observation_add_chunk (fp->obs, seen, sent);
}

static gboolean
floor_request (guint         port,
               Observation  *obs,
               GError      **error)
{
  g_autoptr(GByteArray) data = g_byte_array_new ();
  g_autoptr(GArray) read_end = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autoptr(GArray) read_time = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *request = NULL;
  struct sockaddr_in addr = { 0 };
  FloorParse fp = { read_end, read_time, obs, 0, TRUE };
  guint8 buffer[64 * 1024];
  const char *header_end;
  gsize written = 0;
  gsize len;
  int one = 1;
  int fd;

  request = g_strdup_printf ("POST /v1/chat/completions HTTP/1.1\r\n"
                             "Host: 127.0.0.1:%u\r\n"
                             "Authorization: Bearer dummy\r\n"
                             "Content-Type: application/json\r\n"
                             "Accept-Encoding: identity\r\n"
                             "Connection: close\r\n"
                             "Content-Length: %zu\r\n\r\n%s",
                             port, strlen (request_body), request_body);

  addr.sin_family = AF_INET;
  addr.sin_port = htons (port);
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);

  fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "floor client: %s", g_strerror (saved));
      if (fd >= 0)
        close (fd);
      return FALSE;
    }
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  /* Let the relay accept the connection first, as it has by the time a real client has
   * built its request: otherwise its accept would count in the wait form's delivery time. */
  g_usleep (2000);

  while (written < strlen (request))
    {
      ssize_t n = write (fd, request + written, strlen (request) - written);

      if (n <= 0)
        break;
      written += n;
    }
  obs->sent_request = bench_now_us ();

  for (;;)
    {
      ssize_t n = recv (fd, buffer, sizeof buffer, 0);
      gint64 t = bench_now_us ();
      gsize end;

      if (n <= 0)
        break;
      g_byte_array_append (data, buffer, n);
      end = data->len;
      g_array_append_val (read_end, end);
      g_array_append_val (read_time, t);
    }
  close (fd);

  if (data->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "floor client: no response");
      return FALSE;
    }

  g_byte_array_append (data, (const guint8 *) "", 1);
  len = data->len - 1;
  header_end = g_strstr_len ((const char *) data->data, len, "\r\n\r\n");
  if (header_end == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "floor client: no headers");
      return FALSE;
    }

  /* Time to first byte: the read that brought the status line. */
  obs->headers_seen = g_array_index (read_time, gint64, 0);
  obs->relay_start = find_header_number ((const char *) data->data,
                                         header_end - (const char *) data->data,
                                         "x-relayscope-start-us");
  fp.body_offset = header_end + 4 - (const char *) data->data;
  foreach_event ((const char *) data->data + fp.body_offset, len - fp.body_offset,
                 floor_event, &fp);

  return TRUE;
}

static void
run_floor (Tool     *tool,
           BenchSim *sim,
           guint     requests)
{
  for (guint i = 0; i <= requests; i++)
    {
      g_autoptr(GError) error = NULL;
      Observation obs;

      observation_init (&obs);
      if (!floor_request (bench_sim_get_port (sim), &obs, &error))
        g_printerr ("bench: %s\n", error->message);
      /* The first request of every tool warms caches and is not counted. */
      if (i > 0)
        tool_add (tool, &obs, TRUE);
      observation_clear (&obs);
    }
}

/* Relayscope: the prober in this process, stamps on its worker thread */

static void
run_relayscope (Tool     *tool,
                BenchSim *sim,
                guint     requests)
{
  g_autofree char *base_url = g_strconcat (bench_sim_get_url (sim), "/v1", NULL);
  g_autoptr(RelayEndpoint) endpoint = relay_endpoint_new ("sim", base_url, RELAY_API_OPENAI_CHAT);
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(GError) error = NULL;
  const char * const models[] = { "bench-model", NULL };
  GListModel *traces;

  relay_endpoint_set_models (endpoint, models);
  relay_probe_plan_add_endpoint (plan, endpoint);
  relay_probe_plan_set_prompt (plan, "Say something for the benchmark.");
  relay_probe_plan_set_repeat (plan, requests + 1);
  relay_probe_plan_set_concurrency (plan, 1);
  /* A new connection per probe, as curl makes one per run. */
  relay_probe_plan_set_connection (plan, RELAY_CONNECTION_COLD);
  relay_probe_plan_set_timeout (plan, 30);

  error = bench_run_plan (plan, session);
  if (error != NULL)
    {
      tool->skipped = g_strdup (error->message);
      return;
    }

  traces = relay_session_get_traces (session);
  for (guint i = 1; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      const char * const *raw = relay_trace_get_raw_events (trace);
      gint64 mono = relay_trace_get_mono_start (trace);
      const RelayChunk *chunks;
      guint n_chunks;
      Observation obs;

      observation_init (&obs);
      if (relay_trace_is_ok (trace) && raw != NULL && raw[0] != NULL)
        {
          /* The first raw event is the role-only chunk that left with the headers. */
          obs.relay_headers = bench_find_sent_us (raw[0], strlen (raw[0]));
          obs.headers_seen = mono + relay_trace_get_mark (trace, RELAY_MARK_RESPONSE_START);
          obs.sent_request = mono + relay_trace_get_mark (trace, RELAY_MARK_REQUEST_END);
          /* The engine keeps only latency headers; x-relayscope-start-us is not one. */
          obs.relay_start = -1;

          chunks = relay_trace_get_chunks (trace, &n_chunks);
          for (guint c = 0; c < n_chunks; c++)
            observation_add_chunk (&obs, mono + chunks[c].t_us,
                                   relay_trace_get_chunk_sent (trace, c));
        }
      else
        g_printerr ("bench: relayscope probe %u: %s\n", i,
                    relay_trace_get_error_message (trace));

      tool_add (tool, &obs, TRUE);
      observation_clear (&obs);
    }
}

/* curl: one process per request; -w reports durations from its own start */

static void
run_curl (Tool              *tool,
          const BenchConfig *config,
          BenchSim          *sim,
          guint              requests)
{
  g_autofree char *url = g_strconcat (bench_sim_get_url (sim), "/v1/chat/completions", NULL);
  g_autofree char *body_path = g_build_filename (config->work_dir, "bench-curl-body.txt", NULL);
  g_autofree char *headers_path = g_build_filename (config->work_dir, "bench-curl-headers.txt",
                                                     NULL);
  g_autofree char *request_path = g_build_filename (config->work_dir, "bench-curl-request.json",
                                                     NULL);
  g_autofree char *data_arg = g_strconcat ("@", request_path, NULL);
  g_autofree char *curl = g_find_program_in_path ("curl");
  g_autoptr(GError) error = NULL;

  if (curl == NULL)
    {
      tool->skipped = g_strdup ("curl is not installed");
      return;
    }

  if (!g_file_set_contents (request_path, request_body, -1, &error))
    {
      tool->skipped = g_strdup (error->message);
      return;
    }

  for (guint i = 0; i <= requests; i++)
    {
      /* The body goes to a file rather than /dev/null: it holds the relay's stamps. */
      const char * const argv[] = {
        curl, "-s", "-o", body_path, "-D", headers_path,
        "-w", "%{time_connect} %{time_pretransfer} %{time_starttransfer}",
        "-H", "Authorization: Bearer dummy", "-H", "Content-Type: application/json",
        "-H", "Accept-Encoding: identity", "-H", "Expect:",
        "--data-binary", data_arg, url, NULL
      };
      g_autoptr(GSubprocess) child = NULL;
      g_autofree char *out = NULL;
      g_autofree char *body = NULL;
      g_autofree char *headers = NULL;
      g_autoptr(GError) local_error = NULL;
      gsize body_len = 0;
      gsize headers_len = 0;
      double connect_s, pretransfer_s, starttransfer_s;
      char *end;
      Observation obs;

      child = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &local_error);
      if (child == NULL ||
          !g_subprocess_communicate_utf8 (child, NULL, NULL, &out, NULL, &local_error) ||
          !g_file_get_contents (body_path, &body, &body_len, &local_error) ||
          !g_file_get_contents (headers_path, &headers, &headers_len, &local_error))
        {
          g_printerr ("bench: curl: %s\n", local_error->message);
          tool->requests++;
          tool->failed++;
          continue;
        }

      connect_s = g_ascii_strtod (out, &end);
      pretransfer_s = g_ascii_strtod (end, &end);
      starttransfer_s = g_ascii_strtod (end, NULL);
      if (i == 0)
        continue;

      /* curl's durations start at its own start, on no clock we can read: keep curl's
       * time before the request went out (pretransfer: connect and set-up) out of it and
       * compare the rest with the relay's own arrival → headers. */
      observation_init (&obs);
      obs.sent_request = (gint64) (pretransfer_s * G_USEC_PER_SEC);
      obs.headers_seen = (gint64) (starttransfer_s * G_USEC_PER_SEC);
      obs.relay_start = find_header_number (headers, headers_len, "x-relayscope-start-us");
      obs.relay_headers = bench_find_sent_us (body, body_len);
      /* curl -w has no per-chunk times: count the chunks so the request is whole. */
      for (guint c = 0; c < TOKENS; c++)
        observation_add_chunk (&obs, -1, -1);
      tool_add (tool, &obs, FALSE);
      if (obs.relay_start >= 0 && obs.relay_headers >= 0)
        bench_samples_add_us (tool->wait_from_connect,
                              (gint64) ((starttransfer_s - connect_s) * G_USEC_PER_SEC) -
                              (obs.relay_headers - obs.relay_start));
      observation_clear (&obs);
    }

  g_unlink (body_path);
  g_unlink (headers_path);
  g_unlink (request_path);
}

/* The openai npm client */

typedef struct
{
  gboolean ok;
  guint    rounds;
  guint    inside;      /* stamps that fell inside their bracket */
  gint64   offset_us;   /* node − ours at the tightest bracket */
  gint64   bound_us;    /* ± half that bracket */
  char    *error;
} Calibration;

/* Sends lines to the script's calibrate mode; each answer is Node's clock, which must fall
 * between our stamps before the question and after the answer. */
static void
calibrate_node (const char  *node,
                const char  *script,
                Calibration *cal)
{
  const char * const argv[] = { node, script, "calibrate", NULL };
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GDataInputStream) answers = NULL;
  g_autoptr(GError) error = NULL;
  GOutputStream *questions;
  gint64 best_rtt = G_MAXINT64;

  memset (cal, 0, sizeof *cal);
  child = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                             &error);
  if (child == NULL)
    {
      cal->error = g_strdup (error->message);
      return;
    }

  questions = g_subprocess_get_stdin_pipe (child);
  answers = g_data_input_stream_new (g_subprocess_get_stdout_pipe (child));

  for (guint i = 0; i < CALIBRATION_ROUNDS; i++)
    {
      g_autofree char *line = NULL;
      gint64 before, after, theirs;

      before = bench_now_us ();
      if (!g_output_stream_write_all (questions, "t\n", 2, NULL, NULL, &error) ||
          !g_output_stream_flush (questions, NULL, &error) ||
          (line = g_data_input_stream_read_line_utf8 (answers, NULL, NULL, &error)) == NULL)
        {
          cal->error = g_strdup (error ? error->message : "node answered nothing");
          break;
        }
      after = bench_now_us ();
      theirs = g_ascii_strtoll (line, NULL, 10);

      /* The first answers include Node's start-up; all count for the bracket test. */
      cal->rounds++;
      if (theirs >= before && theirs <= after)
        cal->inside++;
      if (after - before < best_rtt)
        {
          best_rtt = after - before;
          cal->offset_us = theirs - (before + after) / 2;
          cal->bound_us = (best_rtt + 1) / 2;
        }
    }

  g_output_stream_close (questions, NULL, NULL);
  g_subprocess_wait (child, NULL, NULL);
  cal->ok = cal->error == NULL && cal->rounds > 0 && cal->inside == cal->rounds;
}

static void
run_node (Tool              *tool,
          const BenchConfig *config,
          BenchSim          *sim,
          guint              requests,
          Calibration       *cal)
{
  g_autofree char *node = g_find_program_in_path ("node");
  g_autofree char *script = NULL;
  g_autofree char *modules = NULL;
  g_autofree char *base_url = g_strconcat (bench_sim_get_url (sim), "/v1", NULL);
  g_autofree char *count = g_strdup_printf ("%u", requests + 1);
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;

  memset (cal, 0, sizeof *cal);
  if (config->node_dir == NULL)
    {
      tool->skipped = g_strdup ("no --node-dir given");
      return;
    }
  script = g_build_filename (config->node_dir, "openai-stream.mjs", NULL);
  modules = g_build_filename (config->node_dir, "node_modules", "openai", "package.json", NULL);
  if (node == NULL)
    {
      tool->skipped = g_strdup ("node is not installed");
      return;
    }
  if (!g_file_test (modules, G_FILE_TEST_EXISTS))
    {
      tool->skipped = g_strdup_printf ("the openai package is not installed: run npm ci in %s",
                                       config->node_dir);
      return;
    }

  calibrate_node (node, script, cal);
  if (cal->error != NULL)
    {
      tool->skipped = g_strdup_printf ("calibration failed: %s", cal->error);
      return;
    }

  {
    const char * const argv[] = { node, script, "stream", base_url, count, NULL };

    child = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
    if (child == NULL ||
        !g_subprocess_communicate_utf8 (child, NULL, NULL, &out, NULL, &error))
      {
        tool->skipped = g_strdup (error->message);
        return;
      }
  }

  lines = g_strsplit (out != NULL ? out : "", "\n", -1);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      JsonObject *object;
      JsonArray *chunks;
      Observation obs;
      gboolean first = TRUE;

      if (*lines[i] == '\0')
        continue;
      if (!json_parser_load_from_data (parser, lines[i], -1, NULL) ||
          !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        {
          tool->requests++;
          tool->failed++;
          continue;
        }

      object = json_node_get_object (json_parser_get_root (parser));
      chunks = json_object_get_array_member (object, "chunks");
      observation_init (&obs);
      obs.headers_seen = json_object_get_int_member (object, "headers_us");
      obs.relay_start = json_object_get_int_member (object, "start_us");
      /* A stamp from before the request left is not a "request sent" stamp: leave wait
       * to clients that report one. */
      obs.sent_request = -1;

      for (guint c = 0; chunks != NULL && c < json_array_get_length (chunks); c++)
        {
          JsonArray *chunk = json_array_get_array_element (chunks, c);
          gint64 seen = json_array_get_int_element (chunk, 0);
          gint64 sent = json_array_get_int_element (chunk, 1);

          if (first)
            {
              obs.relay_headers = sent;
              first = FALSE;
            }
          else if (json_array_get_int_element (chunk, 2))
            observation_add_chunk (&obs, seen, sent);
        }

      tool_add (tool, &obs, TRUE);
      observation_clear (&obs);
    }
}

/* The report */

static JsonNode *
tool_to_json (Tool *tool)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "tool");
  json_builder_add_string_value (b, tool->name);
  json_builder_set_member_name (b, "reference");
  json_builder_add_boolean_value (b, tool->reference);
  json_builder_set_member_name (b, "requests");
  json_builder_add_int_value (b, tool->requests);
  json_builder_set_member_name (b, "failed");
  json_builder_add_int_value (b, tool->failed);
  if (tool->skipped != NULL)
    {
      json_builder_set_member_name (b, "skipped");
      json_builder_add_string_value (b, tool->skipped);
    }

  for (guint m = 0; m < N_MEASURES; m++)
    {
      RelayStats stats, signed_stats;
      JsonNode *node;

      if (tool->samples[m]->len == 0)
        continue;

      /* The size of the error, and its signed median (a bias shows there). */
      bench_samples_abs_stats (tool->samples[m], &stats);
      bench_samples_stats (tool->samples[m], &signed_stats);
      node = bench_stats_to_json (&stats);
      json_object_set_double_member (json_node_get_object (node), "signed_p50_ms",
                                     signed_stats.p50);
      json_builder_set_member_name (b, measure_names[m]);
      json_builder_add_value (b, node);
    }

  if (tool->wait_from_connect->len > 0)
    {
      RelayStats stats;

      bench_samples_abs_stats (tool->wait_from_connect, &stats);
      json_builder_set_member_name (b, "wait_from_connect");
      json_builder_add_value (b, bench_stats_to_json (&stats));
    }
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

static gboolean
tool_p50 (Tool    *tool,
          Measure  m,
          double  *p50)
{
  RelayStats stats;

  if (tool->samples[m]->len == 0)
    return FALSE;
  bench_samples_abs_stats (tool->samples[m], &stats);
  *p50 = stats.p50;
  return TRUE;
}

JsonNode *
bench_accuracy_run (const BenchConfig  *config,
                    GError            **error)
{
  g_autoptr(BenchSim) sim = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  Tool tools[4];
  enum { FLOOR, RELAYSCOPE, CURL, NODE };
  Calibration cal;
  gboolean smallest = TRUE;
  gboolean under = TRUE;
  gboolean compared = FALSE;

  sim = bench_sim_start (config, profile_json, error);
  if (sim == NULL)
    return NULL;

  tool_init (&tools[FLOOR], "socket-floor", "bare socket (floor)", TRUE);
  tool_init (&tools[RELAYSCOPE], "relayscope", "Relayscope", FALSE);
  tool_init (&tools[CURL], "curl", "curl -w", FALSE);
  tool_init (&tools[NODE], "openai-node", "openai npm", FALSE);

  g_printerr ("bench: accuracy: %u requests per client against %s\n",
              config->requests, bench_sim_get_url (sim));
  g_printerr ("bench:   bare socket…\n");
  run_floor (&tools[FLOOR], sim, config->requests);
  g_printerr ("bench:   Relayscope…\n");
  run_relayscope (&tools[RELAYSCOPE], sim, config->requests);
  g_printerr ("bench:   curl…\n");
  run_curl (&tools[CURL], config, sim, config->requests);
  g_printerr ("bench:   openai npm client…\n");
  run_node (&tools[NODE], config, sim, config->requests, &cal);

  bench_report_section ("Accuracy: |error| against the relay's own stamps, p50 / p99 in ms");
  bench_report_note ("relay: separate process, HTTP on 127.0.0.1, headers %d ms, TTFT %d ms, "
                     "%d tokens at %d ms, jitter 0", HEADERS_MS, TTFT_MS, TOKENS, ITL_MS);
  bench_report_note ("%u requests per client, one after another, after one warm-up request",
                     config->requests);
  {
    g_autoptr(GString) head = g_string_new (NULL);

    for (guint m = 0; m < N_MEASURES; m++)
      g_string_append_printf (head, "%-17s", measure_names[m]);
    bench_report_row ("", "%s", head->str);
  }
  for (guint t = 0; t < G_N_ELEMENTS (tools); t++)
    {
      g_autoptr(GString) line = g_string_new (NULL);

      for (guint m = 0; m < N_MEASURES; m++)
        {
          g_autofree char *cell = NULL;
          RelayStats stats;

          if (tools[t].samples[m]->len == 0)
            cell = g_strdup ("—");
          else
            {
              bench_samples_abs_stats (tools[t].samples[m], &stats);
              cell = g_strdup_printf ("%.3f / %.3f", stats.p50, stats.p99);
            }
          /* Pad by characters: "—" is one character, three bytes. */
          g_string_append_printf (line, "%s%*s", cell,
                                  (int) MAX (17 - g_utf8_strlen (cell, -1), 1), "");
        }
      bench_report_row (tools[t].label, "%s", line->str);
    }
  bench_report_note ("ttfb = headers seen − released (same clock); wait = (headers seen − "
                     "request sent) − (relay's arrival → headers): curl reports durations only");
  bench_report_note ("ttft = first token seen − sent; gap = our inter-chunk gap − the relay's");
  if (tools[CURL].wait_from_connect->len > 0)
    {
      RelayStats stats;

      bench_samples_abs_stats (tools[CURL].wait_from_connect, &stats);
      bench_report_note ("curl's wait from time_connect instead of time_pretransfer: "
                         "%.3f / %.3f", stats.p50, stats.p99);
    }
  for (guint t = 0; t < G_N_ELEMENTS (tools); t++)
    {
      if (tools[t].skipped != NULL)
        bench_report_note ("%s did not run: %s", tools[t].label, tools[t].skipped);
      else if (tools[t].failed > 0)
        bench_report_note ("%s: %u of %u requests incomplete (left out)", tools[t].label,
                           tools[t].failed, tools[t].requests);
    }
  if (cal.rounds > 0)
    bench_report_note ("Node clock check: %u of %u hrtime stamps inside our CLOCK_MONOTONIC "
                       "bracket; offset %+" G_GINT64_FORMAT " µs ± %" G_GINT64_FORMAT " µs%s",
                       cal.inside, cal.rounds, cal.offset_us, cal.bound_us,
                       cal.ok ? "" : " — NOT the same clock: Node's figures are not comparable");

  /* Goal: Relayscope's error is under 0.5 ms at p50 and the smallest of the clients'. Each
   * comparison is made in one form: a client's excess over the floor in the form that
   * client has (curl has only "wait"; the floor has both, so the forms line up). */
  for (guint m = 0; m < N_MEASURES; m++)
    {
      g_autoptr(GString) verdict = g_string_new (NULL);
      double ours, floor_ours;
      gboolean best = TRUE;

      if (!tool_p50 (&tools[RELAYSCOPE], m, &ours))
        continue;
      under &= ours < 0.5;
      if (!tool_p50 (&tools[FLOOR], m, &floor_ours))
        floor_ours = 0;
      g_string_append_printf (verdict, "Relayscope %.3f (floor %+.3f)", ours, ours - floor_ours);

      for (guint t = CURL; t <= NODE; t++)
        {
          Measure other = (t == CURL && m == MEASURE_TTFB) ? MEASURE_WAIT : m;
          double theirs, floor_theirs;

          if (!tool_p50 (&tools[t], other, &theirs))
            continue;
          if (!tool_p50 (&tools[FLOOR], other, &floor_theirs))
            floor_theirs = 0;
          compared = TRUE;
          best &= ours - floor_ours <= theirs - floor_theirs;
          g_string_append_printf (verdict, ", %s %.3f%s (floor %+.3f)", tools[t].label, theirs,
                                  other != m ? " as wait" : "", theirs - floor_theirs);
        }
      smallest &= best;
      {
        g_autofree char *label = g_strdup_printf ("smallest %s error", measure_names[m]);

        bench_report_row (label, "%s: %s", best ? "yes" : "NO", verdict->str);
      }
    }

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "relay_profile");
  json_builder_add_value (b, json_from_string (profile_json, NULL));
  json_builder_set_member_name (b, "requests_per_tool");
  json_builder_add_int_value (b, config->requests);
  json_builder_set_member_name (b, "node_clock");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "rounds");
  json_builder_add_int_value (b, cal.rounds);
  json_builder_set_member_name (b, "inside_bracket");
  json_builder_add_int_value (b, cal.inside);
  json_builder_set_member_name (b, "offset_us");
  json_builder_add_int_value (b, cal.offset_us);
  json_builder_set_member_name (b, "bound_us");
  json_builder_add_int_value (b, cal.bound_us);
  json_builder_set_member_name (b, "same_clock");
  json_builder_add_boolean_value (b, cal.ok);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "tools");
  json_builder_begin_array (b);
  for (guint t = 0; t < G_N_ELEMENTS (tools); t++)
    json_builder_add_value (b, tool_to_json (&tools[t]));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "goal_p50_under_0_5_ms");
  json_builder_add_boolean_value (b, under);
  json_builder_set_member_name (b, "goal_smallest_error");
  if (compared)
    json_builder_add_boolean_value (b, smallest);
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);

  bench_report_row ("goal: Relayscope p50 < 0.5 ms", "%s", under ? "met" : "NOT met");
  bench_report_row ("goal: Relayscope smallest", "%s",
                    !compared ? "not compared (no other client ran)" :
                    smallest ? "met" : "NOT met");

  for (guint t = 0; t < G_N_ELEMENTS (tools); t++)
    tool_clear (&tools[t]);
  g_free (cal.error);

  return json_builder_get_root (b);
}
