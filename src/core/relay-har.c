/* relay-har.c: HAR 1.2 export and import. A trace's waterfall maps onto HAR's timings, the
 * streaming details go in "_relayscope" extension fields, and keys are never written.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <libsoup/soup.h>
#include <math.h>
#include <string.h>

#include "relay-export.h"
#include "relay-har.h"
#include "relay-json-private.h"

#define HAR_MIME_STREAM "text/event-stream"

/* ---- export ----------------------------------------------------------------------------- */

static double
stage_ms (RelayTrace *trace,
          RelayStage  stage)
{
  gint64 d = relay_trace_get_stage_duration (trace, stage);

  return d == RELAY_TIME_NONE ? -1 : d / 1000.0;
}

/* Sums stages that may be absent: -1 when all are. */
static double
sum_ms (RelayTrace       *trace,
        const RelayStage *stages,
        guint             n)
{
  double total = -1;

  for (guint i = 0; i < n; i++)
    {
      double v = stage_ms (trace, stages[i]);

      if (v >= 0)
        total = MAX (total, 0) + v;
    }

  return total;
}

static void
set_ms (JsonObject *object,
        const char *name,
        double      value)
{
  if (value < 0 || !isfinite (value))
    json_object_set_int_member (object, name, -1);
  else
    json_object_set_double_member (object, name, round (value * 1000) / 1000);
}

/* The waterfall's segments tile start → end; HAR's timings must add up to "time", so every
 * segment lands in exactly one of them. "other" (time no stage claims) counts as blocked,
 * like Chrome's queueing; proxy negotiation and TLS are part of connect, as HAR asks. */
static JsonObject *
build_timings (RelayTrace *trace,
               double     *time)
{
  static const RelayStage blocked_stages[] = { RELAY_STAGE_BLOCKED, RELAY_STAGE_OTHER };
  static const RelayStage connect_stages[] = { RELAY_STAGE_TCP, RELAY_STAGE_PROXY, RELAY_STAGE_TLS_SETUP, RELAY_STAGE_TLS };
  static const RelayStage ssl_stages[] = { RELAY_STAGE_TLS_SETUP, RELAY_STAGE_TLS };
  static const RelayStage receive_stages[] = { RELAY_STAGE_FIRST_EVENT, RELAY_STAGE_FIRST_TOKEN, RELAY_STAGE_REASONING,
                                               RELAY_STAGE_STREAM, RELAY_STAGE_TAIL };
  JsonObject *timings = json_object_new ();
  double blocked = sum_ms (trace, blocked_stages, G_N_ELEMENTS (blocked_stages));
  double dns = stage_ms (trace, RELAY_STAGE_DNS);
  double connect = sum_ms (trace, connect_stages, G_N_ELEMENTS (connect_stages));
  double ssl = sum_ms (trace, ssl_stages, G_N_ELEMENTS (ssl_stages));
  double send = MAX (stage_ms (trace, RELAY_STAGE_SEND), 0);
  double wait = MAX (stage_ms (trace, RELAY_STAGE_WAIT), 0);
  double receive = MAX (sum_ms (trace, receive_stages, G_N_ELEMENTS (receive_stages)), 0);

  set_ms (timings, "blocked", blocked);
  set_ms (timings, "dns", dns);
  set_ms (timings, "connect", connect);
  json_object_set_double_member (timings, "send", round (send * 1000) / 1000);
  json_object_set_double_member (timings, "wait", round (wait * 1000) / 1000);
  json_object_set_double_member (timings, "receive", round (receive * 1000) / 1000);
  set_ms (timings, "ssl", ssl);

  *time = MAX (blocked, 0) + MAX (dns, 0) + MAX (connect, 0) + send + wait + receive;

  return timings;
}

static JsonArray *
name_value_array (const char * const *pairs)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; pairs != NULL && pairs[i] != NULL && pairs[i + 1] != NULL; i += 2)
    {
      JsonObject *header = json_object_new ();

      json_object_set_string_member (header, "name", pairs[i]);
      json_object_set_string_member (header, "value", pairs[i + 1]);
      json_array_add_object_element (array, header);
    }

  return array;
}

static char *
format_time (GDateTime *dt)
{
  if (dt == NULL)
    {
      g_autoptr(GDateTime) epoch = g_date_time_new_from_unix_utc (0);
      return _relay_json_format_time (epoch);
    }
  return _relay_json_format_time (dt);
}

static JsonObject *
build_request (RelaySession *session,
               RelayTrace   *trace)
{
  JsonObject *request = json_object_new ();
  g_autofree char *url = relay_export_request_url (session, trace, NULL);
  g_autofree char *body = relay_export_request_body (session, trace, NULL);
  g_auto(GStrv) headers = relay_export_request_headers (session, trace, RELAY_EXPORT_REDACTED, NULL);
  const char *version = relay_trace_get_http_version (trace);

  json_object_set_string_member (request, "method", "POST");
  json_object_set_string_member (request, "url", url ? url : "");
  json_object_set_string_member (request, "httpVersion", version ? version : "HTTP/1.1");
  json_object_set_array_member (request, "cookies", json_array_new ());
  json_object_set_array_member (request, "headers", name_value_array ((const char * const *) headers));
  json_object_set_array_member (request, "queryString", json_array_new ());
  if (body != NULL)
    {
      JsonObject *post = json_object_new ();

      json_object_set_string_member (post, "mimeType", "application/json");
      json_object_set_array_member (post, "params", json_array_new ());
      json_object_set_string_member (post, "text", body);
      json_object_set_object_member (request, "postData", post);
    }
  json_object_set_int_member (request, "headersSize", -1);
  json_object_set_int_member (request, "bodySize", body ? (gint64) strlen (body) : 0);

  return request;
}

static JsonObject *
build_response (RelayTrace *trace)
{
  JsonObject *response = json_object_new ();
  JsonObject *content = json_object_new ();
  const char * const *raw = relay_trace_get_raw_events (trace);
  const char *version = relay_trace_get_http_version (trace);
  guint status = relay_trace_get_http_status (trace);
  guint n_chunks;
  const RelayChunk *chunks = relay_trace_get_chunks (trace, &n_chunks);
  gint64 size = 0;
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < n_chunks; i++)
    size += chunks[i].bytes;
  for (guint i = 0; raw != NULL && raw[i] != NULL; i++)
    {
      g_string_append (text, raw[i]);
      g_string_append (text, "\n\n");
    }

  json_object_set_int_member (response, "status", status);
  json_object_set_string_member (response, "statusText", status > 0 ? soup_status_get_phrase (status) : "");
  json_object_set_string_member (response, "httpVersion", version ? version : "");
  json_object_set_array_member (response, "cookies", json_array_new ());
  json_object_set_array_member (response, "headers", name_value_array (relay_trace_get_server_headers (trace)));
  json_object_set_int_member (content, "size", size);
  json_object_set_string_member (content, "mimeType", HAR_MIME_STREAM);
  if (text->len > 0)
    json_object_set_string_member (content, "text", text->str);
  json_object_set_string_member (content, "comment",
                                 "size counts the events that carried text; text holds the first events");
  json_object_set_object_member (response, "content", content);
  json_object_set_string_member (response, "redirectURL", "");
  json_object_set_int_member (response, "headersSize", -1);
  json_object_set_int_member (response, "bodySize", -1);

  return response;
}

static double
mark_ms (RelayTrace *trace,
         RelayMark   mark)
{
  gint64 d = relay_trace_get_interval (trace, RELAY_MARK_START, mark);

  return d == RELAY_TIME_NONE ? -1 : d / 1000.0;
}

static JsonObject *
build_extension (RelaySession *session,
                 RelayTrace   *trace)
{
  g_autoptr(JsonNode) node = relay_trace_to_json (trace);
  JsonObject *file = json_node_get_object (node);
  JsonObject *ext = json_object_new ();
  RelayRun *run = relay_session_get_run (session, relay_trace_get_run (trace));
  static const char * const copied[] = { "marks_us", "chunks", "usage", "http", "model_reported", "error" };

  _relay_json_set_string (ext, "endpoint", run ? relay_run_get_endpoint (run) : NULL);
  _relay_json_set_string (ext, "model", run ? relay_run_get_model (run) : NULL);
  json_object_set_int_member (ext, "run", relay_trace_get_run (trace));
  json_object_set_int_member (ext, "seq", relay_trace_get_seq (trace));
  set_ms (ext, "ttft_ms", mark_ms (trace, RELAY_MARK_FIRST_TOKEN));
  set_ms (ext, "ttfo_ms", mark_ms (trace, RELAY_MARK_FIRST_CONTENT));
  set_ms (ext, "tls_setup_ms", stage_ms (trace, RELAY_STAGE_TLS_SETUP));
  for (guint i = 0; i < G_N_ELEMENTS (copied); i++)
    json_object_set_member (ext, copied[i], json_node_copy (json_object_get_member (file, copied[i])));

  return ext;
}

/* serverIPAddress is an address; the remote is "host:port", "[v6]:port" or a bare address. */
static char *
address_of (const char *remote)
{
  const char *colon = strchr (remote, ':');

  if (remote[0] == '[')
    {
      const char *end = strchr (remote, ']');
      return end ? g_strndup (remote + 1, end - remote - 1) : g_strdup (remote + 1);
    }
  if (colon != NULL && strchr (colon + 1, ':') == NULL)
    return g_strndup (remote, colon - remote);
  return g_strdup (remote);
}

JsonNode *
relay_har_from_session (RelaySession *session)
{
  JsonObject *root;
  JsonObject *log;
  JsonObject *creator;
  JsonObject *ext;
  JsonArray *pages;
  JsonArray *entries;
  GListModel *traces;
  guint n_runs;
  g_autofree gboolean *page_added = NULL;
  JsonNode *node;

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);

  traces = relay_session_get_traces (session);
  n_runs = g_list_model_get_n_items (relay_session_get_runs (session));
  page_added = g_new0 (gboolean, MAX (n_runs, 1));

  root = json_object_new ();
  log = json_object_new ();
  creator = json_object_new ();
  pages = json_array_new ();
  entries = json_array_new ();

  json_object_set_string_member (log, "version", "1.2");
  json_object_set_string_member (creator, "name", "Relayscope");
  json_object_set_string_member (creator, "version", PACKAGE_VERSION);
  json_object_set_object_member (log, "creator", creator);

  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      RelayRun *run = relay_session_get_run (session, relay_trace_get_run (trace));
      JsonObject *entry = json_object_new ();
      g_autofree char *started = NULL;
      g_autofree char *pageref = NULL;
      double time;
      JsonObject *timings = build_timings (trace, &time);
      const char *remote = relay_trace_get_remote (trace);

      started = format_time (relay_trace_get_wall_start (trace) ? relay_trace_get_wall_start (trace)
                             : run && relay_run_get_started (run) ? relay_run_get_started (run)
                             : relay_session_get_created (session));

      /* One page per run, so viewers group the entries by endpoint × model. */
      if (run != NULL)
        {
          guint r = relay_trace_get_run (trace);

          pageref = g_strdup_printf ("run-%u", r);
          if (!page_added[r])
            {
              JsonObject *page = json_object_new ();
              JsonObject *page_timings = json_object_new ();
              g_autofree char *page_started = relay_run_get_started (run) ? format_time (relay_run_get_started (run))
                                                                         : g_strdup (started);
              g_autofree char *title = g_strdup_printf ("%s %s", relay_run_get_endpoint (run), relay_run_get_model (run));

              json_object_set_string_member (page, "startedDateTime", page_started);
              json_object_set_string_member (page, "id", pageref);
              json_object_set_string_member (page, "title", title);
              json_object_set_int_member (page_timings, "onContentLoad", -1);
              json_object_set_int_member (page_timings, "onLoad", -1);
              json_object_set_object_member (page, "pageTimings", page_timings);
              json_array_add_object_element (pages, page);
              page_added[r] = TRUE;
            }
          json_object_set_string_member (entry, "pageref", pageref);
        }

      json_object_set_string_member (entry, "startedDateTime", started);
      json_object_set_double_member (entry, "time", round (time * 1000) / 1000);
      json_object_set_object_member (entry, "request", build_request (session, trace));
      json_object_set_object_member (entry, "response", build_response (trace));
      json_object_set_object_member (entry, "cache", json_object_new ());
      json_object_set_object_member (entry, "timings", timings);
      if (remote != NULL)
        {
          g_autofree char *host = address_of (remote);
          json_object_set_string_member (entry, "serverIPAddress", host);
        }
      if (relay_trace_get_error_message (trace) != NULL)
        json_object_set_string_member (entry, "_error", relay_trace_get_error_message (trace));
      json_object_set_object_member (entry, "_relayscope", build_extension (session, trace));
      json_array_add_object_element (entries, entry);
    }

  json_object_set_array_member (log, "pages", pages);
  json_object_set_array_member (log, "entries", entries);
  if (relay_session_get_title (session) != NULL)
    json_object_set_string_member (log, "comment", relay_session_get_title (session));

  ext = json_object_new ();
  _relay_json_set_string (ext, "title", relay_session_get_title (session));
  _relay_json_set_string (ext, "notes", relay_session_get_notes (session));
  _relay_json_set_time (ext, "created", relay_session_get_created (session));
  json_object_set_object_member (log, "_relayscope", ext);

  json_object_set_object_member (root, "log", log);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, root);
  return node;
}

char *
relay_har_to_data (RelaySession *session,
                   gsize        *length)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);

  root = relay_har_from_session (session);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_indent (generator, 1);

  return json_generator_to_data (generator, length);
}

/* ---- import ----------------------------------------------------------------------------- */

static double
get_ms (JsonObject *object,
        const char *name)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return -1;
  type = json_node_get_value_type (node);
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return -1;

  return json_node_get_double (node);
}

static gint64
us (double ms)
{
  return (gint64) llround (ms * 1000);
}

/* Lays the timings out end to end, the way HAR defines them. */
static void
marks_from_timings (RelayTrace *trace,
                    JsonObject *timings,
                    double      time)
{
  double blocked = get_ms (timings, "blocked");
  double dns = get_ms (timings, "dns");
  double connect = get_ms (timings, "connect");
  double ssl = get_ms (timings, "ssl");
  double send = get_ms (timings, "send");
  double wait = get_ms (timings, "wait");
  double receive = get_ms (timings, "receive");
  double t = 0;

  if (blocked > 0)
    t += blocked;
  if (dns >= 0)
    {
      relay_trace_set_mark (trace, RELAY_MARK_DNS_START, us (t));
      t += dns;
      relay_trace_set_mark (trace, RELAY_MARK_DNS_END, us (t));
    }
  if (connect >= 0)
    {
      relay_trace_set_mark (trace, RELAY_MARK_CONNECT_START, us (t));
      if (ssl >= 0 && ssl <= connect)
        {
          relay_trace_set_mark (trace, RELAY_MARK_TCP_END, us (t + connect - ssl));
          relay_trace_set_mark (trace, RELAY_MARK_TLS_START, us (t + connect - ssl));
          relay_trace_set_mark (trace, RELAY_MARK_TLS_END, us (t + connect));
        }
      else
        relay_trace_set_mark (trace, RELAY_MARK_TCP_END, us (t + connect));
      t += connect;
    }
  if (send >= 0)
    {
      relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, us (t));
      t += send;
      relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, us (t));
    }
  if (wait >= 0)
    {
      t += wait;
      relay_trace_set_mark (trace, RELAY_MARK_RESPONSE_START, us (t));
    }
  if (receive >= 0)
    t += receive;
  if (t <= 0 && time > 0)
    t = time;
  relay_trace_set_mark (trace, RELAY_MARK_END, us (t));
}

static void
read_extension (RelayTrace *trace,
                JsonObject *ext)
{
  JsonObject *marks = NULL;
  JsonArray *chunks = NULL;
  JsonObject *usage_obj = NULL;
  JsonObject *error_obj = NULL;
  const char *model_reported = NULL;

  _relay_json_get_object (ext, "", "marks_us", &marks, NULL);
  for (guint m = 0; marks != NULL && m < RELAY_N_MARKS; m++)
    {
      JsonNode *node = json_object_get_member (marks, relay_mark_to_string (m));

      relay_trace_set_mark (trace, m, _relay_json_is_int (node) ? json_node_get_int (node)
                                      : m == RELAY_MARK_START ? 0 : RELAY_TIME_NONE);
    }

  _relay_json_get_array (ext, "", "chunks", &chunks, NULL);
  for (guint i = 0; chunks != NULL && i < json_array_get_length (chunks); i++)
    {
      JsonNode *node = json_array_get_element (chunks, i);
      JsonArray *tuple;
      RelayChunkKind kind = RELAY_CHUNK_CONTENT;

      if (!JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (tuple = json_node_get_array (node)) < 4 ||
          !_relay_json_is_int (json_array_get_element (tuple, 0)))
        continue;
      relay_chunk_kind_from_string (json_array_get_string_element (tuple, 1), &kind);
      relay_trace_add_chunk (trace, json_array_get_int_element (tuple, 0), kind,
                             (guint32) json_array_get_int_element (tuple, 2),
                             (guint32) json_array_get_int_element (tuple, 3));
    }

  _relay_json_get_object (ext, "", "usage", &usage_obj, NULL);
  if (usage_obj != NULL)
    {
      RelayUsage usage = RELAY_USAGE_INIT;
      gint64 v;

      if (_relay_json_get_int (usage_obj, "", "prompt_tokens", 0, G_MAXINT64, -1, &v, NULL))
        usage.prompt_tokens = v;
      if (_relay_json_get_int (usage_obj, "", "cached_prompt_tokens", 0, G_MAXINT64, -1, &v, NULL))
        usage.cached_prompt_tokens = v;
      if (_relay_json_get_int (usage_obj, "", "completion_tokens", 0, G_MAXINT64, -1, &v, NULL))
        usage.completion_tokens = v;
      if (_relay_json_get_int (usage_obj, "", "reasoning_tokens", 0, G_MAXINT64, -1, &v, NULL))
        usage.reasoning_tokens = v;
      _relay_json_get_bool (usage_obj, "", "estimated", &usage.estimated, NULL);
      relay_trace_set_usage (trace, &usage);
    }

  _relay_json_get_object (ext, "", "error", &error_obj, NULL);
  if (error_obj != NULL)
    {
      const char *stage_name = NULL, *kind = NULL, *message = NULL;
      RelayErrorStage stage = RELAY_ERROR_STAGE_HTTP;

      _relay_json_get_string (error_obj, "", "stage", &stage_name, NULL);
      _relay_json_get_string (error_obj, "", "kind", &kind, NULL);
      _relay_json_get_string (error_obj, "", "message", &message, NULL);
      if (stage_name != NULL)
        relay_error_stage_from_string (stage_name, &stage);
      if (stage != RELAY_ERROR_STAGE_NONE)
        relay_trace_set_error (trace, stage, kind, message);
    }

  _relay_json_get_string (ext, "", "model_reported", &model_reported, NULL);
  if (model_reported != NULL)
    relay_trace_set_model_reported (trace, model_reported);

  {
    JsonObject *http = NULL;
    gboolean reused = FALSE;
    const char *tls = NULL, *cipher = NULL, *remote = NULL;
    gint64 attempts = 0;

    _relay_json_get_object (ext, "", "http", &http, NULL);
    if (http != NULL)
      {
        _relay_json_get_bool (http, "", "reused", &reused, NULL);
        _relay_json_get_string (http, "", "tls", &tls, NULL);
        _relay_json_get_string (http, "", "cipher", &cipher, NULL);
        _relay_json_get_string (http, "", "remote", &remote, NULL);
        _relay_json_get_int (http, "", "connect_attempts", 0, G_MAXUINT, 0, &attempts, NULL);
        relay_trace_set_reused (trace, reused);
        relay_trace_set_tls_version (trace, tls);
        relay_trace_set_cipher (trace, cipher);
        if (remote != NULL)
          relay_trace_set_remote (trace, remote);
        relay_trace_set_connect_attempts (trace, (guint) attempts);
      }
  }
}

static RelayApi
api_of_url (const char  *url,
            char       **base_url)
{
  const char *anthropic = "/v1/messages";
  const char *openai = "/chat/completions";
  g_autofree char *path_less = g_strdup (url);
  char *query = strpbrk (path_less, "?#");

  if (query != NULL)
    *query = '\0';

  if (g_str_has_suffix (path_less, anthropic))
    {
      *base_url = g_strndup (path_less, strlen (path_less) - strlen (anthropic));
      return RELAY_API_ANTHROPIC_MESSAGES;
    }
  if (g_str_has_suffix (path_less, openai))
    *base_url = g_strndup (path_less, strlen (path_less) - strlen (openai));
  else
    *base_url = g_strdup (path_less);

  return RELAY_API_OPENAI_CHAT;
}

static char *
host_of (const char *url)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return g_strdup (url && url[0] ? url : "imported");
  if (g_uri_get_port (uri) > 0)
    return g_strdup_printf ("%s:%d", g_uri_get_host (uri), g_uri_get_port (uri));
  return g_strdup (g_uri_get_host (uri));
}

/* The request spec from a JSON body: model, the first user message, max_tokens. */
static void
read_body (const char  *body,
           char       **model,
           char       **prompt,
           guint       *max_tokens,
           char       **effort)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *object;
  JsonNode *messages;

  if (body == NULL || !json_parser_load_from_data (parser, body, -1, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return;

  object = json_node_get_object (json_parser_get_root (parser));
  *model = g_strdup (json_object_get_string_member_with_default (object, "model", NULL));
  *max_tokens = (guint) CLAMP (json_object_get_int_member_with_default (object, "max_tokens", 0), 0, G_MAXUINT);
  *effort = g_strdup (json_object_get_string_member_with_default (object, "reasoning_effort", NULL));

  messages = json_object_get_member (object, "messages");
  if (messages != NULL && JSON_NODE_HOLDS_ARRAY (messages))
    {
      JsonArray *array = json_node_get_array (messages);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *message = json_array_get_element (array, i);
          JsonNode *content;

          if (!JSON_NODE_HOLDS_OBJECT (message))
            continue;
          content = json_object_get_member (json_node_get_object (message), "content");
          if (content != NULL && JSON_NODE_HOLDS_VALUE (content) &&
              json_node_get_value_type (content) == G_TYPE_STRING)
            {
              *prompt = g_strdup (json_node_get_string (content));
              break;
            }
        }
    }
}

static void
read_response (RelayTrace *trace,
               JsonObject *response)
{
  JsonArray *headers = NULL;
  const char *version = NULL;
  JsonObject *content = NULL;
  const char *text = NULL;
  gint64 status = 0;

  _relay_json_get_int (response, "", "status", 0, 999, 0, &status, NULL);
  relay_trace_set_http_status (trace, (guint) status);
  _relay_json_get_string (response, "", "httpVersion", &version, NULL);
  if (version != NULL && version[0] != '\0')
    relay_trace_set_http_version (trace, version);

  _relay_json_get_array (response, "", "headers", &headers, NULL);
  for (guint i = 0; headers != NULL && i < json_array_get_length (headers); i++)
    {
      JsonNode *node = json_array_get_element (headers, i);
      const char *name = NULL, *value = NULL;
      g_autofree char *lower = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      _relay_json_get_string (json_node_get_object (node), "", "name", &name, NULL);
      _relay_json_get_string (json_node_get_object (node), "", "value", &value, NULL);
      if (name == NULL || value == NULL)
        continue;
      lower = g_ascii_strdown (name, -1);
      /* Cookies say who the user is, not why a call was slow. */
      if (strcmp (lower, "set-cookie") == 0 || strcmp (lower, "cookie") == 0)
        continue;
      relay_trace_add_server_header (trace, lower, value);
    }

  _relay_json_get_object (response, "", "content", &content, NULL);
  if (content != NULL)
    _relay_json_get_string (content, "", "text", &text, NULL);
  if (text != NULL)
    {
      g_auto(GStrv) events = g_strsplit (text, "\n\n", -1);

      for (guint i = 0; events[i] != NULL; i++)
        {
          const char *event = events[i];
          g_autofree char *type = NULL;

          if (event[0] == '\0')
            continue;
          if (g_str_has_prefix (event, "event: "))
            {
              const char *nl = strchr (event, '\n');

              if (nl == NULL)
                continue;
              type = g_strndup (event + 7, nl - event - 7);
              event = nl + 1;
            }
          if (g_str_has_prefix (event, "data: "))
            relay_trace_add_raw_event (trace, type, event + 6);
        }
    }
}

RelaySession *
relay_har_import (const char  *data,
                  gssize       length,
                  GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(GHashTable) run_seq = g_hash_table_new (NULL, NULL);
  g_autoptr(GError) local_error = NULL;
  JsonObject *root;
  JsonObject *log = NULL;
  JsonObject *ext = NULL;
  JsonArray *entries = NULL;
  const char *title = NULL;
  const char *notes = NULL;

  g_return_val_if_fail (data != NULL, NULL);

  if (!json_parser_load_from_data (parser, data, length, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("Not a HAR file: %s"), local_error->message);
      return NULL;
    }

  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)) ||
      !_relay_json_get_object (root = json_node_get_object (json_parser_get_root (parser)), "", "log", &log, NULL) ||
      log == NULL ||
      !_relay_json_get_array (log, "", "entries", &entries, NULL) || entries == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("Not a HAR file: it has no log with entries"));
      return NULL;
    }

  session = relay_session_new ();
  _relay_json_get_object (log, "", "_relayscope", &ext, NULL);
  if (ext != NULL)
    {
      _relay_json_get_string (ext, "", "title", &title, NULL);
      _relay_json_get_string (ext, "", "notes", &notes, NULL);
    }
  if (title == NULL)
    _relay_json_get_string (log, "", "comment", &title, NULL);
  relay_session_set_title (session, title ? title : _("Imported HAR"));
  if (notes != NULL)
    relay_session_set_notes (session, notes);

  for (guint i = 0; i < json_array_get_length (entries); i++)
    {
      JsonNode *node = json_array_get_element (entries, i);
      JsonObject *entry;
      JsonObject *request = NULL;
      JsonObject *response = NULL;
      JsonObject *timings = NULL;
      JsonObject *post = NULL;
      JsonObject *entry_ext = NULL;
      const char *url = NULL;
      const char *body = NULL;
      const char *endpoint_name = NULL;
      const char *model_name = NULL;
      const char *started = NULL;
      const char *server_ip = NULL;
      const char *har_error = NULL;
      g_autofree char *base_url = NULL;
      g_autofree char *host = NULL;
      g_autofree char *body_model = NULL;
      g_autofree char *prompt = NULL;
      g_autofree char *effort = NULL;
      guint max_tokens = 0;
      RelayApi api;
      RelayEndpoint *endpoint;
      g_autoptr(RelayTrace) trace = NULL;
      guint run_index = G_MAXUINT;
      guint seq;
      gint64 ext_seq = -1;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("HAR entry %u is not an object"), i);
          return NULL;
        }
      entry = json_node_get_object (node);

      if (!_relay_json_get_object (entry, "", "request", &request, NULL) || request == NULL ||
          !_relay_json_get_string (request, "", "url", &url, NULL) || url == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("HAR entry %u has no request URL"), i);
          return NULL;
        }
      _relay_json_get_object (entry, "", "response", &response, NULL);
      _relay_json_get_object (entry, "", "timings", &timings, NULL);
      _relay_json_get_object (request, "", "postData", &post, NULL);
      if (post != NULL)
        _relay_json_get_string (post, "", "text", &body, NULL);
      _relay_json_get_object (entry, "", "_relayscope", &entry_ext, NULL);
      if (entry_ext != NULL)
        {
          _relay_json_get_string (entry_ext, "", "endpoint", &endpoint_name, NULL);
          _relay_json_get_string (entry_ext, "", "model", &model_name, NULL);
          _relay_json_get_int (entry_ext, "", "seq", 0, G_MAXUINT, -1, &ext_seq, NULL);
        }
      _relay_json_get_string (entry, "", "startedDateTime", &started, NULL);
      _relay_json_get_string (entry, "", "serverIPAddress", &server_ip, NULL);
      _relay_json_get_string (entry, "", "_error", &har_error, NULL);

      read_body (body, &body_model, &prompt, &max_tokens, &effort);
      api = api_of_url (url, &base_url);
      host = host_of (url);
      if (endpoint_name == NULL)
        endpoint_name = host;
      if (model_name == NULL)
        model_name = body_model ? body_model : "default";

      endpoint = relay_session_find_endpoint (session, endpoint_name);
      if (endpoint == NULL)
        {
          g_autoptr(RelayEndpoint) created = relay_endpoint_new (endpoint_name, base_url, api);
          const char *models[] = { model_name, NULL };

          relay_endpoint_set_models (created, models);
          relay_session_add_endpoint (session, created);
        }

      for (guint r = 0; r < g_list_model_get_n_items (relay_session_get_runs (session)); r++)
        {
          RelayRun *run = relay_session_get_run (session, r);

          if (g_strcmp0 (relay_run_get_endpoint (run), endpoint_name) == 0 &&
              g_strcmp0 (relay_run_get_model (run), model_name) == 0)
            {
              run_index = r;
              break;
            }
        }
      if (run_index == G_MAXUINT)
        {
          g_autoptr(RelayRun) run = relay_run_new (endpoint_name, model_name);
          g_autoptr(GDateTime) run_started = started ? g_date_time_new_from_iso8601 (started, NULL) : NULL;

          relay_run_set_prompt (run, prompt);
          relay_run_set_prompt_preset (run, "custom");
          if (max_tokens > 0)
            relay_run_set_max_tokens (run, max_tokens);
          relay_run_set_reasoning_effort (run, effort);
          if (run_started != NULL)
            relay_run_set_started (run, run_started);
          run_index = relay_session_add_run (session, run);
        }

      seq = GPOINTER_TO_UINT (g_hash_table_lookup (run_seq, GUINT_TO_POINTER (run_index))) + 1;
      g_hash_table_insert (run_seq, GUINT_TO_POINTER (run_index), GUINT_TO_POINTER (seq));
      trace = relay_trace_new (run_index, ext_seq >= 0 ? (guint) ext_seq : seq);

      if (started != NULL)
        {
          g_autoptr(GDateTime) wall = g_date_time_new_from_iso8601 (started, NULL);
          relay_trace_set_wall_start (trace, wall);
        }

      if (response != NULL)
        read_response (trace, response);
      if (server_ip != NULL)
        relay_trace_set_remote (trace, server_ip);

      if (entry_ext != NULL && json_object_has_member (entry_ext, "marks_us"))
        read_extension (trace, entry_ext);
      else
        {
          double time = get_ms (entry, "time");

          marks_from_timings (trace, timings, time);
          relay_trace_set_reused (trace, get_ms (timings, "connect") < 0);
          if (entry_ext != NULL)
            read_extension (trace, entry_ext);
        }

      if (relay_trace_get_error_stage (trace) == RELAY_ERROR_STAGE_NONE)
        {
          guint status = relay_trace_get_http_status (trace);

          if (status >= 400)
            {
              g_autofree char *kind = g_strdup_printf ("http-%u", status);
              relay_trace_set_error (trace, RELAY_ERROR_STAGE_HTTP, kind, soup_status_get_phrase (status));
            }
          else if (status == 0)
            relay_trace_set_error (trace, RELAY_ERROR_STAGE_CONNECT, "failed",
                                   har_error ? har_error : _("No response was recorded"));
        }

      relay_session_add_trace (session, trace);
    }

  relay_session_set_modified (session, FALSE);
  return g_steal_pointer (&session);
}

RelaySession *
relay_har_load (GFile         *file,
                GCancellable  *cancellable,
                GError       **error)
{
  g_autofree char *data = NULL;
  gsize length;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  if (!g_file_load_contents (file, cancellable, &data, &length, NULL, error))
    return NULL;

  return relay_har_import (data, length, error);
}
