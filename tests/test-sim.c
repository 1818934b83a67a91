/* test-sim.c: the simulated relay keeps its word: formats, timing, faults, resolver, demo.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The client here is a plain SoupSession and a hand-written event splitter, on purpose: the
 * simulated relay is the ground truth for the core, so the core must not be used to check it.
 */

#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "relay-sim-demo.h"
#include "relay-sim-resolver.h"
#include "relay-sim-server.h"

/* Tolerance for a single injected delay, measured from the client (shared noisy machine). */
#define DELAY_SLACK_US 15000

/* RELAYSCOPE_TIMING_TESTS=0 (the sanitizer build, many times slower) keeps the checks that
 * hold at any speed, a delay is never short, and skips upper bounds and pacing. */
static gboolean timing = TRUE;

/* Test client */

typedef enum
{
  TEXT_NONE,
  TEXT_CONTENT,
  TEXT_REASONING,
} TextKind;

typedef struct
{
  char     *name;     /* "event:" field, or NULL */
  char     *data;     /* "data:" lines joined with \n */
  JsonNode *json;     /* data parsed, or NULL */
  gint64    t_read;   /* when the read that completed it returned */
  gint64    sent_us;  /* relayscope_sent_us, or -1 */
} Event;

typedef struct
{
  guint               status;
  SoupMessageHeaders *headers;
  gint64              t_send;
  gint64              t_headers;
  gint64              t_end;
  gint64              start_us;  /* x-relayscope-start-us */
  GPtrArray          *events;
  GString            *raw;
  GError             *error;     /* send or read error */
} Response;

typedef struct
{
  const char   *url;
  const char   *method;
  const char   *body;
  const char   *auth;      /* "bearer", "x-api-key" or NULL */
  const char   *sim;       /* X-Relayscope-Sim */
  guint         timeout;   /* seconds; 0: 10 */
  const char   *ca_file;
  gsize         max_events; /* stop reading after this many events; 0: all */
} Request;

static void
event_free (Event *e)
{
  g_free (e->name);
  g_free (e->data);
  g_clear_pointer (&e->json, json_node_unref);
  g_free (e);
}

static void
response_free (Response *r)
{
  g_clear_pointer (&r->headers, soup_message_headers_unref);
  g_ptr_array_unref (r->events);
  g_string_free (r->raw, TRUE);
  g_clear_error (&r->error);
  g_free (r);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Response, response_free)

static void
split_events (Response *r,
              GString  *pending,
              gint64    now)
{
  char *sep;

  while ((sep = strstr (pending->str, "\n\n")) != NULL)
    {
      g_autofree char *block = g_strndup (pending->str, sep - pending->str);
      g_auto(GStrv) lines = g_strsplit (block, "\n", -1);
      g_autoptr(GString) data = NULL;
      Event *e = g_new0 (Event, 1);

      g_string_erase (pending, 0, sep - pending->str + 2);

      for (guint i = 0; lines[i] != NULL; i++)
        {
          if (g_str_has_prefix (lines[i], "event: "))
            e->name = g_strdup (lines[i] + 7);
          else if (g_str_has_prefix (lines[i], "data: "))
            {
              if (data == NULL)
                data = g_string_new (lines[i] + 6);
              else
                g_string_append_printf (data, "\n%s", lines[i] + 6);
            }
        }

      e->data = data ? g_string_free (g_steal_pointer (&data), FALSE) : NULL;
      e->t_read = now;
      e->sent_us = -1;
      if (e->data != NULL && (e->json = json_from_string (e->data, NULL)) &&
          JSON_NODE_HOLDS_OBJECT (e->json))
        e->sent_us = json_object_get_int_member_with_default (json_node_get_object (e->json),
                                                              "relayscope_sent_us", -1);
      g_ptr_array_add (r->events, e);
    }
}

static Response *
run (const Request *req)
{
  g_autoptr(SoupSession) session = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GString) pending = g_string_new (NULL);
  Response *r = g_new0 (Response, 1);
  SoupMessageHeaders *headers;
  const char *start;
  guchar buf[16384];

  r->events = g_ptr_array_new_with_free_func ((GDestroyNotify) event_free);
  r->raw = g_string_new (NULL);

  session = soup_session_new_with_options ("timeout", req->timeout ? req->timeout : 10, NULL);
  if (req->ca_file != NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GTlsDatabase) db = g_tls_file_database_new (req->ca_file, &error);

      g_assert_no_error (error);
      soup_session_set_tls_database (session, db);
    }

  msg = soup_message_new (req->method ? req->method : (req->body ? "POST" : "GET"), req->url);
  g_assert_nonnull (msg);
  headers = soup_message_get_request_headers (msg);
  if (g_strcmp0 (req->auth, "bearer") == 0)
    soup_message_headers_replace (headers, "Authorization", "Bearer test-key");
  else if (g_strcmp0 (req->auth, "x-api-key") == 0)
    soup_message_headers_replace (headers, "x-api-key", "test-key");
  if (req->sim != NULL)
    soup_message_headers_replace (headers, "X-Relayscope-Sim", req->sim);
  soup_message_headers_replace (headers, "Accept-Encoding", "identity");
  if (req->body != NULL)
    {
      g_autoptr(GBytes) body = g_bytes_new (req->body, strlen (req->body));

      soup_message_set_request_body_from_bytes (msg, "application/json", body);
    }

  r->t_send = g_get_monotonic_time ();
  stream = soup_session_send (session, msg, NULL, &r->error);
  r->t_headers = g_get_monotonic_time ();
  if (stream == NULL)
    {
      r->t_end = r->t_headers;
      return r;
    }

  r->status = soup_message_get_status (msg);
  r->headers = soup_message_headers_ref (soup_message_get_response_headers (msg));
  start = soup_message_headers_get_one (r->headers, "x-relayscope-start-us");
  r->start_us = start ? g_ascii_strtoll (start, NULL, 10) : -1;

  for (;;)
    {
      gssize n = g_input_stream_read (stream, buf, sizeof buf, NULL, &r->error);
      gint64 now = g_get_monotonic_time ();

      if (n <= 0)
        break;

      g_string_append_len (r->raw, (const char *) buf, n);
      g_string_append_len (pending, (const char *) buf, n);
      split_events (r, pending, now);

      if (req->max_events > 0 && r->events->len >= req->max_events)
        break;
    }
  r->t_end = g_get_monotonic_time ();

  return r;
}

static JsonObject *
event_object (const Event *e)
{
  return e->json && JSON_NODE_HOLDS_OBJECT (e->json) ? json_node_get_object (e->json) : NULL;
}

/* What text an event carries, in either dialect. */
static TextKind
event_text (const Event  *e,
            const char  **text)
{
  JsonObject *o = event_object (e);
  JsonObject *delta = NULL;

  if (o == NULL)
    return TEXT_NONE;

  if (json_object_has_member (o, "choices"))
    {
      JsonArray *choices = json_object_get_array_member (o, "choices");

      if (json_array_get_length (choices) == 0)
        return TEXT_NONE;
      delta = json_object_get_object_member (json_array_get_object_element (choices, 0), "delta");
      if (json_object_has_member (delta, "content") &&
          *json_object_get_string_member (delta, "content") != '\0')
        {
          *text = json_object_get_string_member (delta, "content");
          return TEXT_CONTENT;
        }
      if (json_object_has_member (delta, "reasoning_content"))
        {
          *text = json_object_get_string_member (delta, "reasoning_content");
          return TEXT_REASONING;
        }
      return TEXT_NONE;
    }

  if (g_strcmp0 (json_object_get_string_member_with_default (o, "type", ""),
                 "content_block_delta") == 0)
    {
      const char *type;

      delta = json_object_get_object_member (o, "delta");
      type = json_object_get_string_member (delta, "type");
      if (g_strcmp0 (type, "text_delta") == 0)
        {
          *text = json_object_get_string_member (delta, "text");
          return TEXT_CONTENT;
        }
      if (g_strcmp0 (type, "thinking_delta") == 0)
        {
          *text = json_object_get_string_member (delta, "thinking");
          return TEXT_REASONING;
        }
    }

  return TEXT_NONE;
}

static GPtrArray *
text_events (Response *r,
             TextKind  kind)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < r->events->len; i++)
    {
      Event *e = g_ptr_array_index (r->events, i);
      const char *text;
      TextKind k = event_text (e, &text);

      if (k != TEXT_NONE && (kind == TEXT_NONE || k == kind))
        g_ptr_array_add (out, e);
    }

  return out;
}

static gboolean
has_done (Response *r)
{
  for (guint i = 0; i < r->events->len; i++)
    {
      Event *e = g_ptr_array_index (r->events, i);

      if (g_strcmp0 (e->data, "[DONE]") == 0 || g_strcmp0 (e->name, "message_stop") == 0)
        return TRUE;
    }

  return FALSE;
}

static Event *
find_event (Response   *r,
            const char *name)
{
  for (guint i = 0; i < r->events->len; i++)
    {
      Event *e = g_ptr_array_index (r->events, i);

      if (g_strcmp0 (e->name, name) == 0)
        return e;
    }

  return NULL;
}

static char *
openai_body (gboolean stream,
             gboolean usage,
             int      max_tokens,
             const char *prompt)
{
  g_autofree char *max = max_tokens >= 0 ? g_strdup_printf (",\"max_tokens\":%d", max_tokens)
                                         : g_strdup ("");

  return g_strdup_printf ("{\"model\":\"sim-test\",\"stream\":%s%s%s,"
                          "\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}]}",
                          stream ? "true" : "false",
                          usage ? ",\"stream_options\":{\"include_usage\":true}" : "",
                          max, prompt ? prompt : "Say hello");
}

static char *
anthropic_body (gboolean stream)
{
  return g_strdup_printf ("{\"model\":\"claude-test\",\"max_tokens\":1024,\"stream\":%s,"
                          "\"system\":\"Be brief.\","
                          "\"messages\":[{\"role\":\"user\",\"content\":"
                          "[{\"type\":\"text\",\"text\":\"Say hello\"}]}]}",
                          stream ? "true" : "false");
}

static RelaySimServer *
start_server (const char *overrides,
              gboolean    tls)
{
  g_autoptr(GError) error = NULL;
  RelaySimProfile profile;
  RelaySimServer *server;

  relay_sim_profile_init_named (&profile, "fast");
  profile.seed = 42;
  if (overrides != NULL)
    {
      relay_sim_profile_apply_overrides (&profile, overrides, &error);
      g_assert_no_error (error);
    }

  server = relay_sim_server_new (&profile);
  relay_sim_profile_clear (&profile);

  relay_sim_server_start (server, 0, tls, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (relay_sim_server_get_port (server), >, 0);

  return server;
}

static char *
url_for (RelaySimServer *server,
         const char     *path)
{
  g_autofree char *root = relay_sim_server_dup_root_url (server, NULL);

  return g_strconcat (root, path, NULL);
}

static int
cmp_int64 (gconstpointer a,
           gconstpointer b)
{
  gint64 x = *(const gint64 *) a;
  gint64 y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static gint64
percentile (GArray *values,
            double  p)
{
  g_autoptr(GArray) sorted = g_array_copy (values);

  g_assert_cmpuint (sorted->len, >, 0);
  g_array_sort (sorted, cmp_int64);
  return g_array_index (sorted, gint64, (guint) (p * (sorted->len - 1) + 0.5));
}

static void
wait_for_idle (RelaySimServer *server)
{
  gint64 deadline = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;

  while (relay_sim_server_get_n_active (server) > 0 && g_get_monotonic_time () < deadline)
    g_usleep (5000);

  g_assert_cmpuint (relay_sim_server_get_n_active (server), ==, 0);
}

/* Profiles */

static void
test_profile_named (void)
{
  const char * const *names = relay_sim_profile_list_names ();
  RelaySimProfile p;

  g_assert_cmpuint (g_strv_length ((GStrv) names), ==, 5);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_assert_true (relay_sim_profile_init_named (&p, names[i]));
      g_assert_cmpuint (p.coalesce, >=, 1);
      g_assert_cmpuint (p.tokens, >, 0);
      relay_sim_profile_clear (&p);
    }

  g_assert_false (relay_sim_profile_init_named (&p, "no-such-profile"));
  relay_sim_profile_clear (&p);

  g_assert_true (relay_sim_profile_init_named (&p, "buffering"));
  g_assert_cmpuint (p.coalesce, ==, 16);
  relay_sim_profile_clear (&p);

  g_assert_true (relay_sim_profile_init_named (&p, "reasoning"));
  g_assert_cmpuint (p.reasoning_tokens, ==, 48);
  relay_sim_profile_clear (&p);

  g_assert_true (relay_sim_profile_init_named (&p, "flaky"));
  g_assert_cmpfloat (p.fault_probability, >, 0);
  g_assert_nonnull (p.fault_cycle);
  relay_sim_profile_clear (&p);
}

static void
test_profile_json (void)
{
  g_autoptr(GError) error = NULL;
  RelaySimProfile p;
  RelaySimFault fault;

  g_assert_true (relay_sim_profile_init_from_json (&p,
                                                   "{\"profile\":\"congested\",\"ttft_ms\":5,"
                                                   "\"fault\":\"reset\",\"fault_after\":3,"
                                                   "\"role_chunk\":false,\"model\":\"m-1\","
                                                   "\"fault_bytes\":4096}",
                                                   &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (p.ttft_ms, ==, 5);
  g_assert_cmpfloat (p.headers_delay_ms, ==, 250);  /* from the base */
  g_assert_cmpint (p.fault, ==, RELAY_SIM_FAULT_RESET);
  g_assert_cmpfloat (p.fault_probability, ==, 1);    /* a named fault without odds: always */
  g_assert_cmpuint (p.fault_after, ==, 3);
  g_assert_cmpuint (p.fault_bytes, ==, 4096);
  g_assert_false (p.role_chunk);
  g_assert_cmpstr (p.model, ==, "m-1");
  relay_sim_profile_clear (&p);

  g_assert_false (relay_sim_profile_init_from_json (&p, "{\"ttft\":5}", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "ttft"));
  g_clear_error (&error);

  g_assert_false (relay_sim_profile_init_from_json (&p, "{\"tokens\":\"many\"}", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_assert_false (relay_sim_profile_init_from_json (&p, "{\"tokens\":2.5}", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_assert_false (relay_sim_profile_init_from_json (&p, "{\"cache_discount\":2}", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_assert_false (relay_sim_profile_init_from_json (&p, "{\"fault\":\"explode\"}", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_assert_false (relay_sim_profile_init_from_json (&p, "[1]", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_assert_false (relay_sim_profile_init_from_json (&p, "{\"profile\":\"warp\"}", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  for (guint f = RELAY_SIM_FAULT_NONE; f <= RELAY_SIM_FAULT_HUGE_LINE; f++)
    {
      g_assert_true (relay_sim_fault_from_string (relay_sim_fault_to_string (f), &fault));
      g_assert_cmpint (fault, ==, f);
    }
}

static void
test_profile_overrides (void)
{
  g_autoptr(GError) error = NULL;
  RelaySimProfile p;

  relay_sim_profile_init_named (&p, "fast");

  g_assert_true (relay_sim_profile_apply_overrides (&p, " ttft_ms=300 , fault=http-500,"
                                                    "itl_jitter_ms = 0.5,role_chunk=false",
                                                    &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (p.ttft_ms, ==, 300);
  g_assert_cmpfloat (p.itl_jitter_ms, ==, 0.5);
  g_assert_cmpint (p.fault, ==, RELAY_SIM_FAULT_HTTP_500);
  g_assert_cmpfloat (p.fault_probability, ==, 1);
  g_assert_false (p.role_chunk);

  /* A base profile applies first, wherever it is written. */
  g_assert_true (relay_sim_profile_apply_overrides (&p, "tokens=7, profile=buffering", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (p.tokens, ==, 7);
  g_assert_cmpuint (p.coalesce, ==, 16);
  g_assert_cmpint (p.fault, ==, RELAY_SIM_FAULT_NONE);

  /* A bad item leaves the profile untouched. */
  g_assert_false (relay_sim_profile_apply_overrides (&p, "tokens=9, ttft=3", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "ttft"));
  g_clear_error (&error);
  g_assert_cmpuint (p.tokens, ==, 7);

  g_assert_false (relay_sim_profile_apply_overrides (&p, "tokens=-1", &error));
  g_clear_error (&error);
  g_assert_false (relay_sim_profile_apply_overrides (&p, "tokens", &error));
  g_clear_error (&error);
  g_assert_false (relay_sim_profile_apply_overrides (&p, "itl_ms=fast", &error));
  g_clear_error (&error);
  g_assert_false (relay_sim_profile_apply_overrides (&p, "fault_cycle=reset|boom", &error));
  g_clear_error (&error);

  g_assert_true (relay_sim_profile_apply_overrides (&p, "fault_cycle=reset|stall, "
                                                    "fault_probability=0.5", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (p.fault_cycle, ==, "reset|stall");
  g_assert_cmpfloat (p.fault_probability, ==, 0.5);

  relay_sim_profile_clear (&p);
}

/* Formats */

static void
test_openai_stream (void)
{
  g_autoptr(RelaySimServer) server = start_server ("tokens=12, itl_ms=2, ttft_ms=10, "
                                                   "headers_delay_ms=5, itl_jitter_ms=0", FALSE);
  g_autofree char *url = url_for (server, "/v1/chat/completions");
  g_autofree char *body = openai_body (TRUE, TRUE, -1, NULL);
  g_autoptr(Response) r = run (&(Request) { .url = url, .body = body, .auth = "bearer" });
  g_autoptr(GPtrArray) content = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  JsonObject *o, *usage;
  Event *first, *last, *finish;

  g_assert_no_error (r->error);
  g_assert_cmpuint (r->status, ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (r->headers, NULL), ==,
                   "text/event-stream");
  g_assert_cmpstr (soup_message_headers_get_one (r->headers, "cache-control"), ==, "no-cache");
  g_assert_nonnull (soup_message_headers_get_one (r->headers, "x-request-id"));
  g_assert_nonnull (soup_message_headers_get_one (r->headers, "openai-processing-ms"));
  g_assert_true (g_str_has_prefix (soup_message_headers_get_one (r->headers, "server-timing"),
                                   "upstream;dur="));
  g_assert_nonnull (soup_message_headers_get_one (r->headers, "x-ratelimit-remaining-requests"));
  g_assert_cmpint (soup_message_headers_get_encoding (r->headers), ==, SOUP_ENCODING_CHUNKED);

  /* role chunk, 12 content chunks, finish, usage, [DONE] */
  g_assert_cmpuint (r->events->len, ==, 16);
  first = g_ptr_array_index (r->events, 0);
  o = event_object (first);
  g_assert_nonnull (o);
  g_assert_cmpstr (json_object_get_string_member (o, "object"), ==, "chat.completion.chunk");
  g_assert_cmpstr (json_object_get_string_member (o, "model"), ==, "sim-test");
  g_assert_true (json_object_has_member (o, "id"));
  g_assert_true (json_object_has_member (o, "created"));
  {
    JsonObject *delta = json_object_get_object_member (
      json_array_get_object_element (json_object_get_array_member (o, "choices"), 0), "delta");
    g_assert_cmpstr (json_object_get_string_member (delta, "role"), ==, "assistant");
    g_assert_cmpstr (json_object_get_string_member (delta, "content"), ==, "");
  }

  content = text_events (r, TEXT_CONTENT);
  g_assert_cmpuint (content->len, ==, 12);
  for (guint i = 0; i < content->len; i++)
    {
      const char *t;

      event_text (content->pdata[i], &t);
      g_assert_cmpuint (strlen (t), >, 0);
      g_string_append (text, t);
    }
  g_assert_true (g_str_has_prefix (text->str, "The relay streams"));

  finish = g_ptr_array_index (r->events, 13);
  o = json_array_get_object_element (
    json_object_get_array_member (event_object (finish), "choices"), 0);
  g_assert_cmpstr (json_object_get_string_member (o, "finish_reason"), ==, "stop");

  o = event_object (g_ptr_array_index (r->events, 14));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "choices")), ==, 0);
  usage = json_object_get_object_member (o, "usage");
  g_assert_cmpint (json_object_get_int_member (usage, "completion_tokens"), ==, 12);
  g_assert_cmpint (json_object_get_int_member (usage, "prompt_tokens"), >, 0);
  g_assert_cmpint (json_object_get_int_member (usage, "total_tokens"), ==,
                   json_object_get_int_member (usage, "prompt_tokens") + 12);
  g_assert_true (json_object_has_member (json_object_get_object_member (usage,
                                                                        "prompt_tokens_details"),
                                         "cached_tokens"));
  g_assert_cmpint (json_object_get_int_member (
                     json_object_get_object_member (usage, "completion_tokens_details"),
                     "reasoning_tokens"), ==, 0);

  last = g_ptr_array_index (r->events, 15);
  g_assert_cmpstr (last->data, ==, "[DONE]");

  /* Every JSON payload carries its send time. */
  for (guint i = 0; i < 15; i++)
    g_assert_cmpint (((Event *) g_ptr_array_index (r->events, i))->sent_us, >, 0);

  g_assert_cmpuint (relay_sim_server_get_n_requests (server), ==, 1);
}

static void
test_openai_reasoning_and_no_usage (void)
{
  g_autoptr(RelaySimServer) server = start_server ("tokens=5, reasoning_tokens=4, itl_ms=1, "
                                                   "ttft_ms=5, headers_delay_ms=0, "
                                                   "role_chunk=false, model=sim-reported",
                                                   FALSE);
  g_autofree char *url = url_for (server, "/v1/chat/completions");
  g_autofree char *body = openai_body (TRUE, FALSE, -1, NULL);
  g_autoptr(Response) r = run (&(Request) { .url = url, .body = body, .auth = "bearer" });
  g_autoptr(GPtrArray) all = NULL;
  const char *t;

  g_assert_no_error (r->error);
  g_assert_cmpuint (r->status, ==, 200);
  /* 4 reasoning + 5 content + finish + [DONE]: no role chunk, no usage chunk */
  g_assert_cmpuint (r->events->len, ==, 11);
  all = text_events (r, TEXT_NONE);
  g_assert_cmpuint (all->len, ==, 9);
  for (guint i = 0; i < 9; i++)
    g_assert_cmpint (event_text (all->pdata[i], &t), ==, i < 4 ? TEXT_REASONING : TEXT_CONTENT);
  g_assert_cmpstr (json_object_get_string_member (event_object (all->pdata[0]), "model"), ==,
                   "sim-reported");
  g_assert_true (has_done (r));
}

static void
test_anthropic_stream (void)
{
  g_autoptr(RelaySimServer) server = start_server ("tokens=6, reasoning_tokens=3, itl_ms=2, "
                                                   "ttft_ms=10, headers_delay_ms=5", FALSE);
  g_autofree char *url = url_for (server, "/v1/messages");
  g_autofree char *body = anthropic_body (TRUE);
  g_autoptr(Response) r = run (&(Request) { .url = url, .body = body, .auth = "x-api-key" });
  static const char * const expected[] = {
    "message_start", "ping", "content_block_start", "content_block_delta",
    "content_block_delta", "content_block_delta", "content_block_delta" /* signature */,
    "content_block_stop", "content_block_start", "content_block_delta", "content_block_delta",
    "content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta",
    "content_block_stop", "message_delta", "message_stop",
  };
  g_autoptr(GPtrArray) thinking = NULL;
  g_autoptr(GPtrArray) text = NULL;
  JsonObject *o;

  g_assert_no_error (r->error);
  g_assert_cmpuint (r->status, ==, 200);
  g_assert_cmpuint (r->events->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < r->events->len; i++)
    {
      Event *e = g_ptr_array_index (r->events, i);

      g_assert_cmpstr (e->name, ==, expected[i]);
      g_assert_cmpstr (json_object_get_string_member (event_object (e), "type"), ==, e->name);
      g_assert_cmpint (e->sent_us, >, 0);
    }

  o = json_object_get_object_member (event_object (g_ptr_array_index (r->events, 0)), "message");
  g_assert_cmpstr (json_object_get_string_member (o, "model"), ==, "claude-test");
  g_assert_true (json_object_has_member (json_object_get_object_member (o, "usage"),
                                         "input_tokens"));
  g_assert_true (json_object_has_member (json_object_get_object_member (o, "usage"),
                                         "cache_read_input_tokens"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "usage"),
                                               "output_tokens"), ==, 1);

  o = json_object_get_object_member (event_object (g_ptr_array_index (r->events, 2)),
                                     "content_block");
  g_assert_cmpstr (json_object_get_string_member (o, "type"), ==, "thinking");

  thinking = text_events (r, TEXT_REASONING);
  text = text_events (r, TEXT_CONTENT);
  g_assert_cmpuint (thinking->len, ==, 3);
  g_assert_cmpuint (text->len, ==, 6);

  o = event_object (find_event (r, "message_delta"));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (o, "delta"),
                                                  "stop_reason"), ==, "end_turn");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "usage"),
                                               "output_tokens"), ==, 9);
}

static void
test_non_streaming (void)
{
  g_autoptr(RelaySimServer) server = start_server ("tokens=4, reasoning_tokens=2, itl_ms=10, "
                                                   "ttft_ms=40, headers_delay_ms=30, "
                                                   "itl_jitter_ms=0", FALSE);
  g_autofree char *url = url_for (server, "/v1/chat/completions");
  g_autofree char *url2 = url_for (server, "/v1/messages");
  g_autofree char *body = openai_body (FALSE, FALSE, -1, NULL);
  g_autofree char *body2 = anthropic_body (FALSE);
  g_autoptr(Response) r = run (&(Request) { .url = url, .body = body, .auth = "bearer" });
  g_autoptr(Response) r2 = run (&(Request) { .url = url2, .body = body2, .auth = "x-api-key" });
  g_autoptr(JsonNode) node = NULL;
  JsonObject *o, *message, *usage;
  JsonArray *content;
  /* headers 30 + ttft 40 + 5 gaps of 10 (4 after the first token, one before the end) */
  gint64 expected = (30 + 40 + 5 * 10) * 1000;

  g_assert_no_error (r->error);
  g_assert_cmpuint (r->status, ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (r->headers, NULL), ==,
                   "application/json");
  node = json_from_string (r->raw->str, NULL);
  g_assert_nonnull (node);
  o = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (o, "object"), ==, "chat.completion");
  message = json_object_get_object_member (
    json_array_get_object_element (json_object_get_array_member (o, "choices"), 0), "message");
  g_assert_cmpstr (json_object_get_string_member (message, "content"), ==,
                   "The relay streams each");
  g_assert_cmpstr (json_object_get_string_member (message, "reasoning_content"), ==, "Let me");
  usage = json_object_get_object_member (o, "usage");
  g_assert_cmpint (json_object_get_int_member (usage, "completion_tokens"), ==, 6);
  g_assert_cmpint (r->t_headers - r->start_us, >=, expected);
  if (timing)
    g_assert_cmpint (r->t_headers - r->start_us, <, expected + DELAY_SLACK_US);
  g_clear_pointer (&node, json_node_unref);

  g_assert_no_error (r2->error);
  g_assert_cmpuint (r2->status, ==, 200);
  node = json_from_string (r2->raw->str, NULL);
  g_assert_nonnull (node);
  o = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (o, "type"), ==, "message");
  g_assert_cmpstr (json_object_get_string_member (o, "stop_reason"), ==, "end_turn");
  content = json_object_get_array_member (o, "content");
  g_assert_cmpuint (json_array_get_length (content), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 0),
                                                  "type"), ==, "thinking");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 1),
                                                  "text"), ==, "The relay streams each");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "usage"),
                                               "output_tokens"), ==, 6);
}

static void
test_models_and_errors (void)
{
  g_autoptr(RelaySimServer) server = start_server (NULL, FALSE);
  g_autofree char *models = url_for (server, "/v1/models");
  g_autofree char *chat = url_for (server, "/v1/chat/completions");
  g_autofree char *messages = url_for (server, "/v1/messages");
  g_autofree char *nowhere = url_for (server, "/v1/nowhere");
  g_autofree char *body = openai_body (TRUE, FALSE, -1, NULL);
  g_autoptr(Response) r = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonArray *data;

  r = run (&(Request) { .url = models, .auth = "bearer" });
  g_assert_cmpuint (r->status, ==, 200);
  node = json_from_string (r->raw->str, NULL);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "object"), ==,
                   "list");
  data = json_object_get_array_member (json_node_get_object (node), "data");
  g_assert_cmpuint (json_array_get_length (data), >=, 3);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (data, 0),
                                                  "object"), ==, "model");
  g_clear_pointer (&node, json_node_unref);
  g_clear_pointer (&r, response_free);

  /* No key: 401 in each dialect's error format. */
  r = run (&(Request) { .url = chat, .body = body });
  g_assert_cmpuint (r->status, ==, 401);
  node = json_from_string (r->raw->str, NULL);
  g_assert_true (json_object_has_member (json_object_get_object_member (json_node_get_object (node),
                                                                        "error"), "message"));
  g_clear_pointer (&node, json_node_unref);
  g_clear_pointer (&r, response_free);

  r = run (&(Request) { .url = messages, .body = body });
  g_assert_cmpuint (r->status, ==, 401);
  node = json_from_string (r->raw->str, NULL);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "type"), ==,
                   "error");
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (json_node_get_object (node), "error"),
                     "type"), ==, "authentication_error");
  g_clear_pointer (&node, json_node_unref);
  g_clear_pointer (&r, response_free);

  r = run (&(Request) { .url = models });
  g_assert_cmpuint (r->status, ==, 401);
  g_clear_pointer (&r, response_free);

  r = run (&(Request) { .url = nowhere, .auth = "bearer" });
  g_assert_cmpuint (r->status, ==, 404);
  g_assert_cmpstr (soup_message_headers_get_content_type (r->headers, NULL), ==,
                   "application/json");
  node = json_from_string (r->raw->str, NULL);
  g_assert_nonnull (node);
  g_clear_pointer (&node, json_node_unref);
  g_clear_pointer (&r, response_free);

  r = run (&(Request) { .url = chat, .auth = "bearer" });  /* GET */
  g_assert_cmpuint (r->status, ==, 405);
  g_clear_pointer (&r, response_free);

  r = run (&(Request) { .url = chat, .body = "{not json", .auth = "bearer" });
  g_assert_cmpuint (r->status, ==, 400);
  g_clear_pointer (&r, response_free);

  g_assert_cmpuint (relay_sim_server_get_n_requests (server), ==, 7);
}

/* Timing */

static void
test_timing (void)
{
  const double headers_ms = 60, ttft_ms = 100, itl_ms = 10;
  const guint n_tokens = 40;
  g_autoptr(RelaySimServer) server = start_server ("headers_delay_ms=60, ttft_ms=100, "
                                                   "itl_ms=10, itl_jitter_ms=0, tokens=40, "
                                                   "role_chunk=true", FALSE);
  g_autofree char *url = url_for (server, "/v1/chat/completions");
  g_autofree char *body = openai_body (TRUE, FALSE, -1, NULL);
  g_autoptr(Response) r = run (&(Request) { .url = url, .body = body, .auth = "bearer" });
  g_autoptr(GPtrArray) content = NULL;
  g_autoptr(GArray) send_error = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) read_lag = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 t_headers_sched, t_first, mean_itl, p50, p95, max;
  Event *role;

  if (!timing)
    {
      g_test_skip ("RELAYSCOPE_TIMING_TESTS=0");
      return;
    }

  g_assert_no_error (r->error);
  g_assert_cmpuint (r->status, ==, 200);
  g_assert_cmpint (r->start_us, >, 0);
  g_assert_cmpint (r->start_us, >=, r->t_send);

  /* Headers: right when the delay elapses, and the role chunk with them. */
  t_headers_sched = r->start_us + (gint64) (headers_ms * 1000);
  g_assert_cmpint (r->t_headers, >=, t_headers_sched);
  g_assert_cmpint (r->t_headers, <, t_headers_sched + DELAY_SLACK_US);
  g_assert_cmpint (r->t_headers - r->t_send, <, (gint64) (headers_ms * 1000) + DELAY_SLACK_US);
  role = g_ptr_array_index (r->events, 0);
  g_assert_cmpint (role->sent_us - t_headers_sched, <, DELAY_SLACK_US);

  content = text_events (r, TEXT_CONTENT);
  g_assert_cmpuint (content->len, ==, n_tokens);

  /* First token: ttft after the headers. */
  t_first = ((Event *) content->pdata[0])->t_read;
  g_assert_cmpint (t_first - r->t_headers, >=, (gint64) (ttft_ms * 1000) - DELAY_SLACK_US);
  g_assert_cmpint (t_first - r->t_headers, <, (gint64) (ttft_ms * 1000) + DELAY_SLACK_US);

  /* ITL: deadlines are absolute, so the mean gap has no drift. */
  mean_itl = (((Event *) content->pdata[n_tokens - 1])->t_read - t_first) / (n_tokens - 1);
  g_assert_cmpint (ABS (mean_itl - (gint64) (itl_ms * 1000)), <, 1000);

  /* Each chunk's send time against its schedule. */
  for (guint i = 0; i < n_tokens; i++)
    {
      Event *e = content->pdata[i];
      gint64 sched = t_headers_sched + (gint64) ((ttft_ms + i * itl_ms) * 1000);
      gint64 err = e->sent_us - sched;
      gint64 lag = e->t_read - e->sent_us;

      g_assert_cmpint (err, >=, 0);  /* never early */
      g_array_append_val (send_error, err);
      g_array_append_val (read_lag, lag);
    }

  p50 = percentile (send_error, 0.5);
  p95 = percentile (send_error, 0.95);
  max = percentile (send_error, 1.0);
  g_test_message ("send time - schedule: p50 %" G_GINT64_FORMAT " us, p95 %" G_GINT64_FORMAT
                  " us, max %" G_GINT64_FORMAT " us", p50, p95, max);
  g_test_message ("client read - send time: p50 %" G_GINT64_FORMAT " us, p95 %" G_GINT64_FORMAT
                  " us", percentile (read_lag, 0.5), percentile (read_lag, 0.95));
  g_assert_cmpint (p50, <, 3000);
}

static void
test_jitter_and_stalls (void)
{
  g_autoptr(RelaySimServer) server = start_server ("headers_delay_ms=0, ttft_ms=0, itl_ms=10, "
                                                   "itl_jitter_ms=8, tokens=60, "
                                                   "stall_probability=0.05, stall_ms=100",
                                                   FALSE);
  g_autofree char *url = url_for (server, "/v1/chat/completions");
  g_autofree char *body = openai_body (TRUE, FALSE, -1, NULL);
  g_autoptr(Response) r = run (&(Request) { .url = url, .body = body, .auth = "bearer",
                                            .sim = "seed=7" });
  g_autoptr(GPtrArray) content = text_events (r, TEXT_CONTENT);
  gint64 min_gap = G_MAXINT64, max_gap = 0, sum = 0;
  guint n_stalls = 0;

  if (!timing)
    {
      g_test_skip ("RELAYSCOPE_TIMING_TESTS=0");
      return;
    }

  g_assert_cmpuint (content->len, ==, 60);
  for (guint i = 1; i < content->len; i++)
    {
      gint64 gap = ((Event *) content->pdata[i])->sent_us -
                   ((Event *) content->pdata[i - 1])->sent_us;

      if (gap >= 90000)
        n_stalls++;
      else
        {
          min_gap = MIN (min_gap, gap);
          max_gap = MAX (max_gap, gap);
          sum += gap;
        }
    }

  /* Uniform ±8 ms around 10 ms: the gaps spread out, stalls show as ~100 ms pauses. With
   * seed 7 the dice give at least one stall among 59 gaps. */
  g_test_message ("gaps %" G_GINT64_FORMAT "–%" G_GINT64_FORMAT " us, %u stalls",
                  min_gap, max_gap, n_stalls);
  g_assert_cmpint (max_gap - min_gap, >, 6000);
  g_assert_cmpint (ABS (sum / (gint64) (59 - n_stalls) - 10000), <, 2000);
  g_assert_cmpuint (n_stalls, >=, 1);
}

static void
test_override_header (void)
{
  g_autoptr(RelaySimServer) server = start_server ("headers_delay_ms=0, ttft_ms=20, tokens=3, "
                                                   "itl_ms=1", FALSE);
  g_autofree char *url = url_for (server, "/v1/chat/completions");
  g_autofree char *url2 = url_for (server, "/v1/messages");
  g_autofree char *body = openai_body (TRUE, FALSE, -1, NULL);
  g_autoptr(Response) r = run (&(Request) { .url = url, .body = body, .auth = "bearer",
                                            .sim = "ttft_ms=300, tokens=5" });
  g_autoptr(Response) bad = NULL;
  g_autoptr(GPtrArray) content = text_events (r, TEXT_CONTENT);
  g_autoptr(JsonNode) node = NULL;
  const char *message;
  gint64 ttft;

  g_assert_cmpuint (content->len, ==, 5);
  ttft = ((Event *) content->pdata[0])->t_read - r->t_headers;
  g_assert_cmpint (ttft, >=, 300000 - DELAY_SLACK_US);
  if (timing)
    g_assert_cmpint (ttft, <, 300000 + DELAY_SLACK_US);

  bad = run (&(Request) { .url = url, .body = body, .auth = "bearer",
                          .sim = "ttft_ms=300, warp_factor=9" });
  g_assert_cmpuint (bad->status, ==, 400);
  node = json_from_string (bad->raw->str, NULL);
  message = json_object_get_string_member (
    json_object_get_object_member (json_node_get_object (node), "error"), "message");
  g_assert_nonnull (strstr (message, "warp_factor"));
  g_clear_pointer (&bad, response_free);
  g_clear_pointer (&node, json_node_unref);

  bad = run (&(Request) { .url = url2, .body = body, .auth = "x-api-key",
                          .sim = "tokens=lots" });
  g_assert_cmpuint (bad->status, ==, 400);
  node = json_from_string (bad->raw->str, NULL);
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (json_node_get_object (node), "error"),
                     "type"), ==, "invalid_request_error");
}

static void
test_coalesce (void)
{
  g_autoptr(RelaySimServer) server = start_server ("headers_delay_ms=0, ttft_ms=10, itl_ms=10, "
                                                   "itl_jitter_ms=0, tokens=16, coalesce=4",
                                                   FALSE);
  g_autofree char *url = url_for (server, "/v1/chat/completions");
  g_autofree char *body = openai_body (TRUE, FALSE, -1, NULL);
  g_autoptr(Response) r = run (&(Request) { .url = url, .body = body, .auth = "bearer" });
  g_autoptr(GPtrArray) content = text_events (r, TEXT_CONTENT);

  g_assert_cmpuint (content->len, ==, 16);
  for (guint g = 0; g < 4; g++)
    {
      Event *head = content->pdata[g * 4];

      /* One write per group: the four events share one send time and arrive in one read. */
      for (guint i = 1; i < 4; i++)
        {
          Event *e = content->pdata[g * 4 + i];

          g_assert_cmpint (e->sent_us, ==, head->sent_us);
          g_assert_cmpint (e->t_read, ==, head->t_read);
        }

      /* A group leaves when its last token is due: 4 token gaps after the previous group. */
      if (g > 0 && timing)
        {
          Event *prev = content->pdata[(g - 1) * 4];
          gint64 gap = head->sent_us - prev->sent_us;

          /* Deadlines are absolute, so one late group shortens the next gap: allow for a
           * busy machine's timer lateness on either side. */
          g_assert_cmpint (gap, >, 40000 - 15000);
          g_assert_cmpint (gap, <, 40000 + 15000);
        }
    }
}

static void
test_prefix_cache (void)
{
  g_autoptr(RelaySimServer) server = start_server ("headers_delay_ms=10, ttft_ms=0, tokens=2, "
                                                   "itl_ms=1, prefill_us_per_token=2000, "
                                                   "cache_discount=0.75", FALSE);
  g_autofree char *url = url_for (server, "/v1/chat/completions");
  /* 396 characters + a newline: 100 prompt tokens, 200 ms of prefill */
  g_autofree char *prompt = g_strnfill (396, 'a');
  g_autofree char *body = openai_body (TRUE, TRUE, -1, prompt);
  g_autoptr(Response) cold = run (&(Request) { .url = url, .body = body, .auth = "bearer" });
  g_autoptr(Response) warm = run (&(Request) { .url = url, .body = body, .auth = "bearer" });
  gint64 cold_wait = cold->t_headers - cold->start_us;
  gint64 warm_wait = warm->t_headers - warm->start_us;
  JsonObject *usage;

  usage = json_object_get_object_member (event_object (g_ptr_array_index (cold->events, 4)),
                                         "usage");
  g_assert_cmpint (json_object_get_int_member (usage, "prompt_tokens"), ==, 100);
  g_assert_cmpint (json_object_get_int_member (
                     json_object_get_object_member (usage, "prompt_tokens_details"),
                     "cached_tokens"), ==, 0);
  usage = json_object_get_object_member (event_object (g_ptr_array_index (warm->events, 4)),
                                         "usage");
  g_assert_cmpint (json_object_get_int_member (
                     json_object_get_object_member (usage, "prompt_tokens_details"),
                     "cached_tokens"), ==, 75);

  /* 10 + 200 ms cold; 10 + 50 ms warm. */
  g_assert_cmpint (cold_wait, >=, 210000);
  g_assert_cmpint (warm_wait, >=, 60000);
  if (timing)
    {
      g_assert_cmpint (cold_wait, <, 210000 + DELAY_SLACK_US);
      g_assert_cmpint (warm_wait, <, 60000 + DELAY_SLACK_US);
    }
}

static void
test_max_tokens (void)
{
  g_autoptr(RelaySimServer) server = start_server ("headers_delay_ms=0, ttft_ms=0, tokens=10, "
                                                   "itl_ms=1", FALSE);
  g_autofree char *url = url_for (server, "/v1/chat/completions");
  g_autofree char *body = openai_body (TRUE, FALSE, 4, NULL);
  g_autoptr(Response) r = run (&(Request) { .url = url, .body = body, .auth = "bearer" });
  g_autoptr(GPtrArray) content = text_events (r, TEXT_CONTENT);
  Event *finish = g_ptr_array_index (r->events, r->events->len - 2);
  JsonObject *choice;

  g_assert_cmpuint (content->len, ==, 4);
  choice = json_array_get_object_element (
    json_object_get_array_member (event_object (finish), "choices"), 0);
  g_assert_cmpstr (json_object_get_string_member (choice, "finish_reason"), ==, "length");
}

/* Faults */

#define FAULT_BASE "headers_delay_ms=0, ttft_ms=5, itl_ms=3, itl_jitter_ms=0, tokens=6, " \
                   "fault_after=3, "

static Response *
fault_request (RelaySimServer *server,
               gboolean        anthropic,
               const char     *sim,
               guint           timeout)
{
  g_autofree char *url = url_for (server, anthropic ? "/v1/messages" : "/v1/chat/completions");
  g_autofree char *body = anthropic ? anthropic_body (TRUE) : openai_body (TRUE, FALSE, -1, NULL);

  return run (&(Request) { .url = url, .body = body, .auth = anthropic ? "x-api-key" : "bearer",
                           .sim = sim, .timeout = timeout });
}

static void
test_fault_http (void)
{
  static const struct { const char *fault; guint status; const char *anthropic_type; } cases[] = {
    { "http-401", 401, "authentication_error" },
    { "http-403", 403, "permission_error" },
    { "http-404", 404, "not_found_error" },
    { "http-429", 429, "rate_limit_error" },
    { "http-500", 500, "api_error" },
    { "http-503", 503, "overloaded_error" },
  };
  g_autoptr(RelaySimServer) server = start_server ("headers_delay_ms=30", FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      for (guint a = 0; a < 2; a++)
        {
          g_autofree char *sim = g_strdup_printf ("fault=%s", cases[i].fault);
          g_autoptr(Response) r = fault_request (server, a == 1, sim, 0);
          g_autoptr(JsonNode) node = json_from_string (r->raw->str, NULL);
          JsonObject *error;

          g_assert_no_error (r->error);
          g_assert_cmpuint (r->status, ==, cases[i].status);
          g_assert_cmpstr (soup_message_headers_get_content_type (r->headers, NULL), ==,
                           "application/json");
          /* The delay before headers applies to errors too. */
          g_assert_cmpint (r->t_headers - r->start_us, >=, 30000);
          g_assert_nonnull (node);
          error = json_object_get_object_member (json_node_get_object (node), "error");
          g_assert_nonnull (error);
          g_assert_cmpuint (strlen (json_object_get_string_member (error, "message")), >, 0);
          if (a == 1)
            {
              g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node),
                                                              "type"), ==, "error");
              g_assert_cmpstr (json_object_get_string_member (error, "type"), ==,
                               cases[i].anthropic_type);
            }
          else
            g_assert_true (json_object_has_member (error, "type"));

          if (cases[i].status == 429)
            {
              g_assert_cmpstr (soup_message_headers_get_one (r->headers, "retry-after"), ==, "2");
              g_assert_cmpstr (soup_message_headers_get_one (r->headers,
                                                             "x-ratelimit-remaining-requests"),
                               ==, "0");
            }
        }
    }
}

static void
test_fault_html_502 (void)
{
  g_autoptr(RelaySimServer) server = start_server (NULL, FALSE);
  g_autoptr(Response) r = fault_request (server, FALSE, FAULT_BASE "fault=html-502", 0);

  g_assert_cmpuint (r->status, ==, 502);
  g_assert_cmpstr (soup_message_headers_get_content_type (r->headers, NULL), ==, "text/html");
  g_assert_true (g_str_has_prefix (r->raw->str, "<html>"));
  g_assert_nonnull (strstr (r->raw->str, "<title>502 Bad Gateway</title>"));
}

static void
test_fault_reset (void)
{
  g_autoptr(RelaySimServer) server = start_server (NULL, FALSE);

  for (guint tls = 0; tls < 2; tls++)
    {
      g_autoptr(RelaySimServer) s = tls ? start_server (NULL, TRUE) : g_object_ref (server);
      g_autofree char *url = url_for (s, "/v1/chat/completions");
      g_autofree char *body = openai_body (TRUE, FALSE, -1, NULL);
      g_autoptr(Response) r = NULL;
      g_autoptr(GPtrArray) content = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) pem = relay_sim_server_get_certificate_pem ();
      g_autofree char *ca = NULL;
      int fd;

      if (tls)
        {
          fd = g_file_open_tmp ("test-sim-ca-XXXXXX.pem", &ca, &error);
          g_assert_no_error (error);
          g_assert_cmpint (write (fd, g_bytes_get_data (pem, NULL), g_bytes_get_size (pem)), >, 0);
          close (fd);
        }

      r = run (&(Request) { .url = url, .body = body, .auth = "bearer", .ca_file = ca,
                            .sim = FAULT_BASE "fault=reset" });
      if (ca != NULL)
        g_unlink (ca);

      g_assert_cmpuint (r->status, ==, 200);
      content = text_events (r, TEXT_CONTENT);
      g_assert_cmpuint (content->len, ==, 3);
      g_assert_false (has_done (r));
      /* An abrupt close: a read error, not a clean end of the chunked body. */
      g_assert_nonnull (r->error);
      g_test_message ("reset seen as: %s", r->error->message);
      wait_for_idle (s);
    }
}

static void
test_fault_malformed (void)
{
  g_autoptr(RelaySimServer) server = start_server (NULL, FALSE);
  g_autoptr(Response) r = fault_request (server, FALSE, FAULT_BASE "fault=malformed", 0);
  g_autoptr(Response) a = fault_request (server, TRUE, FAULT_BASE "fault=malformed", 0);
  g_autoptr(GPtrArray) content = text_events (r, TEXT_CONTENT);
  Event *bad = g_ptr_array_index (r->events, 4);  /* role, 3 tokens, then the bad one */

  g_assert_no_error (r->error);
  g_assert_cmpstr (bad->data, ==, "{\"choices\":[{\"delta\":{\"content\": oops}}");
  g_assert_null (bad->json);
  /* The stream goes on after it. */
  g_assert_cmpuint (content->len, ==, 6);
  g_assert_true (has_done (r));

  g_assert_no_error (a->error);
  g_assert_nonnull (strstr (a->raw->str, "\"text\": oops}}\n\n"));
  g_assert_true (has_done (a));
}

static void
test_fault_no_terminator (void)
{
  g_autoptr(RelaySimServer) server = start_server (NULL, FALSE);
  g_autoptr(Response) cut = fault_request (server, FALSE, FAULT_BASE "fault=no-terminator", 0);
  g_autoptr(Response) full = fault_request (server, FALSE,
                                            FAULT_BASE "fault=no-terminator, fault_after=100", 0);
  g_autoptr(Response) a = fault_request (server, TRUE,
                                         FAULT_BASE "fault=no-terminator, fault_after=100", 0);
  g_autoptr(GPtrArray) cut_content = text_events (cut, TEXT_CONTENT);
  g_autoptr(GPtrArray) full_content = text_events (full, TEXT_CONTENT);
  Event *last;

  /* A clean end of the HTTP body, but no [DONE]. */
  g_assert_no_error (cut->error);
  g_assert_cmpuint (cut_content->len, ==, 3);
  g_assert_false (has_done (cut));

  g_assert_no_error (full->error);
  g_assert_cmpuint (full_content->len, ==, 6);
  g_assert_false (has_done (full));
  last = g_ptr_array_index (full->events, full->events->len - 1);
  g_assert_nonnull (strstr (last->data, "\"finish_reason\":\"stop\""));

  g_assert_no_error (a->error);
  g_assert_nonnull (find_event (a, "message_delta"));
  g_assert_false (has_done (a));
}

static void
test_fault_error_event (void)
{
  g_autoptr(RelaySimServer) server = start_server (NULL, FALSE);
  g_autoptr(Response) r = fault_request (server, FALSE, FAULT_BASE "fault=error-event", 0);
  g_autoptr(Response) a = fault_request (server, TRUE, FAULT_BASE "fault=error-event", 0);
  Event *last = g_ptr_array_index (r->events, r->events->len - 1);
  JsonObject *error;

  g_assert_no_error (r->error);
  g_assert_cmpuint (r->status, ==, 200);
  error = json_object_get_object_member (event_object (last), "error");
  g_assert_cmpstr (json_object_get_string_member (error, "type"), ==, "server_error");
  g_assert_false (has_done (r));

  last = g_ptr_array_index (a->events, a->events->len - 1);
  g_assert_cmpstr (last->name, ==, "error");
  error = json_object_get_object_member (event_object (last), "error");
  g_assert_cmpstr (json_object_get_string_member (error, "type"), ==, "overloaded_error");
}

static void
test_fault_stall (void)
{
  g_autoptr(RelaySimServer) server = start_server (NULL, FALSE);
  g_autoptr(Response) r = fault_request (server, FALSE, FAULT_BASE "fault=stall", 1);
  g_autoptr(GPtrArray) content = text_events (r, TEXT_CONTENT);

  g_assert_cmpuint (content->len, ==, 3);
  g_assert_error (r->error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_assert_cmpint (r->t_end - r->t_headers, >=, 900000);

  /* The client gave up: the server notices though it never writes again. */
  wait_for_idle (server);
}

static void
test_fault_huge_line (void)
{
  g_autoptr(RelaySimServer) server = start_server (NULL, FALSE);
  g_autoptr(Response) r = fault_request (server, FALSE,
                                         FAULT_BASE "fault=huge-line, fault_bytes=300000", 0);
  g_autoptr(Response) a = fault_request (server, TRUE,
                                         FAULT_BASE "fault=huge-line, fault_bytes=200000", 0);
  g_autoptr(GPtrArray) content = text_events (r, TEXT_CONTENT);
  g_auto(GStrv) lines = NULL;
  guint n_huge = 0;

  g_assert_no_error (r->error);
  lines = g_strsplit (r->raw->str, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (strlen (lines[i]) > 10000)
        {
          g_assert_cmpuint (strlen (lines[i]), ==, 300000);
          n_huge++;
        }
    }
  g_assert_cmpuint (n_huge, ==, 1);
  /* It is valid JSON, one more content event, and the stream carries on. */
  g_assert_cmpuint (content->len, ==, 7);
  g_assert_true (has_done (r));

  g_clear_pointer (&lines, g_strfreev);
  g_assert_no_error (a->error);
  lines = g_strsplit (a->raw->str, "\n", -1);
  n_huge = 0;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (strlen (lines[i]) > 10000)
        {
          g_assert_cmpuint (strlen (lines[i]), ==, 200000);
          n_huge++;
        }
    }
  g_assert_cmpuint (n_huge, ==, 1);
  g_assert_true (has_done (a));
}

static void
test_fault_cycle (void)
{
  g_autoptr(RelaySimServer) server = start_server ("fault_cycle=http-429|http-500, "
                                                   "fault_probability=1, headers_delay_ms=0",
                                                   FALSE);
  static const guint expected[] = { 429, 500, 429, 500 };

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autoptr(Response) r = fault_request (server, FALSE, NULL, 0);

      g_assert_cmpuint (r->status, ==, expected[i]);
    }
}

static void
test_fault_probability (void)
{
  g_autoptr(RelaySimServer) server = start_server ("fault=http-500, fault_probability=0.5, "
                                                   "headers_delay_ms=0, ttft_ms=0, tokens=1, "
                                                   "itl_ms=0", FALSE);
  guint n_fail = 0;

  for (guint i = 0; i < 40; i++)
    {
      g_autoptr(Response) r = fault_request (server, FALSE, NULL, 0);

      n_fail += r->status == 500;
    }

  /* Binomial(40, 0.5): outside 8–32 has a probability below 1e-4 (and the seed is fixed). */
  g_assert_cmpuint (n_fail, >, 8);
  g_assert_cmpuint (n_fail, <, 32);
}

/* Lifecycle */

static void
test_client_disconnect (void)
{
  g_autoptr(RelaySimServer) server = start_server ("headers_delay_ms=0, ttft_ms=0, itl_ms=20, "
                                                   "tokens=200", FALSE);
  g_autofree char *url = url_for (server, "/v1/chat/completions");
  g_autofree char *body = openai_body (TRUE, FALSE, -1, NULL);
  g_autoptr(Response) r = run (&(Request) { .url = url, .body = body, .auth = "bearer",
                                            .max_events = 4 });
  g_autoptr(Response) again = NULL;

  /* run() returned early and dropped its session: the connection is gone mid-stream. */
  g_assert_cmpuint (r->events->len, >=, 4);
  wait_for_idle (server);

  again = run (&(Request) { .url = url, .body = body, .auth = "bearer",
                            .sim = "tokens=2" });
  g_assert_cmpuint (again->status, ==, 200);
  g_assert_true (has_done (again));
}

typedef struct
{
  RelaySimServer *server;
  char           *url;
  char           *sim;
  Response       *response;
} ClientThread;

static gpointer
client_thread (gpointer data)
{
  ClientThread *c = data;
  g_autofree char *body = openai_body (TRUE, FALSE, -1, NULL);

  c->response = run (&(Request) { .url = c->url, .body = body, .auth = "bearer",
                                  .sim = c->sim });
  return NULL;
}

static void
test_stop_with_clients (void)
{
  RelaySimServer *server = start_server ("headers_delay_ms=0, ttft_ms=0, itl_ms=500, "
                                         "tokens=100", FALSE);
  ClientThread clients[3] = {
    { server, url_for (server, "/v1/chat/completions"), g_strdup ("fault=stall, fault_after=1") },
    { server, url_for (server, "/v1/chat/completions"), NULL },
    { server, url_for (server, "/v1/chat/completions"), g_strdup ("headers_delay_ms=5000") },
  };
  GThread *threads[3];
  gint64 deadline = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;
  gint64 t_stop;

  for (guint i = 0; i < 3; i++)
    threads[i] = g_thread_new ("client", client_thread, &clients[i]);

  while (relay_sim_server_get_n_active (server) < 3 && g_get_monotonic_time () < deadline)
    g_usleep (5000);
  g_assert_cmpuint (relay_sim_server_get_n_active (server), ==, 3);
  g_usleep (100000);

  t_stop = g_get_monotonic_time ();
  relay_sim_server_stop (server);
  g_assert_cmpint (g_get_monotonic_time () - t_stop, <, G_USEC_PER_SEC);
  g_assert_cmpuint (relay_sim_server_get_n_active (server), ==, 0);

  for (guint i = 0; i < 3; i++)
    {
      g_thread_join (threads[i]);
      /* Each client saw its stream end early, one way or another. */
      g_assert_false (has_done (clients[i].response));
      g_assert_cmpint (clients[i].response->t_end - t_stop, <, G_USEC_PER_SEC);
      response_free (clients[i].response);
      g_free (clients[i].url);
      g_free (clients[i].sim);
    }

  /* Stopping twice is fine; so is finalizing a stopped server. */
  relay_sim_server_stop (server);
  g_object_unref (server);

  /* Finalizing a running server with a client attached stops it too. */
  {
    RelaySimServer *s = start_server ("headers_delay_ms=0, ttft_ms=0, itl_ms=500, tokens=100",
                                      FALSE);
    ClientThread c = { s, url_for (s, "/v1/chat/completions"), NULL, NULL };
    GThread *t = g_thread_new ("client", client_thread, &c);

    deadline = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;
    while (relay_sim_server_get_n_active (s) < 1 && g_get_monotonic_time () < deadline)
      g_usleep (5000);
    g_object_unref (s);
    g_thread_join (t);
    g_assert_false (has_done (c.response));
    response_free (c.response);
    g_free (c.url);
  }
}

static void
test_tls (void)
{
  g_autoptr(RelaySimServer) server = start_server ("headers_delay_ms=0, ttft_ms=0, tokens=3, "
                                                   "itl_ms=1", TRUE);
  g_autofree char *root = relay_sim_server_dup_root_url (server, "localhost");
  g_autofree char *url = g_strconcat (root, "/v1/chat/completions", NULL);
  g_autofree char *body = openai_body (TRUE, FALSE, -1, NULL);
  g_autoptr(GBytes) pem = relay_sim_server_get_certificate_pem ();
  g_autoptr(GError) error = NULL;
  g_autofree char *ca = NULL;
  g_autoptr(Response) trusted = NULL;
  g_autoptr(Response) untrusted = NULL;
  int fd;

  g_assert_true (g_str_has_prefix (root, "https://localhost:"));

  fd = g_file_open_tmp ("test-sim-ca-XXXXXX.pem", &ca, &error);
  g_assert_no_error (error);
  g_assert_cmpint (write (fd, g_bytes_get_data (pem, NULL), g_bytes_get_size (pem)), >, 0);
  close (fd);

  trusted = run (&(Request) { .url = url, .body = body, .auth = "bearer", .ca_file = ca });
  g_unlink (ca);
  g_assert_no_error (trusted->error);
  g_assert_cmpuint (trusted->status, ==, 200);
  g_assert_true (has_done (trusted));

  /* Without the certificate the system trust rejects it. */
  untrusted = run (&(Request) { .url = url, .body = body, .auth = "bearer" });
  g_assert_error (untrusted->error, G_TLS_ERROR, G_TLS_ERROR_BAD_CERTIFICATE);
}

/* Resolver */

typedef struct
{
  GMainLoop *loop;
  GList     *addresses;
  GError    *error;
  gint64     t_done;
} Lookup;

static void
lookup_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      data)
{
  Lookup *l = data;

  l->addresses = g_resolver_lookup_by_name_finish (G_RESOLVER (source), result, &l->error);
  l->t_done = g_get_monotonic_time ();
  g_main_loop_quit (l->loop);
}

static void
test_resolver (void)
{
  g_autoptr(GResolver) resolver = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  Lookup l = { loop };
  GList *addresses;
  gint64 t0, ticks = 0;
  guint forwarded;

  relay_sim_resolver_install ();
  relay_sim_resolver_install ();  /* once per process */
  relay_sim_resolver_set_delay ("slow.relayscope.test", 80);
  relay_sim_resolver_set_delay (NULL, 0);
  resolver = g_resolver_get_default ();

  /* Asynchronous: the delay is a timer, the caller's loop keeps turning meanwhile. */
  t0 = g_get_monotonic_time ();
  g_resolver_lookup_by_name_async (resolver, "SLOW.relayscope.test.", NULL, lookup_cb, &l);
  while (l.t_done == 0)
    {
      g_main_context_iteration (NULL, TRUE);
      ticks++;
    }
  g_assert_no_error (l.error);
  g_assert_cmpint (l.t_done - t0, >=, 80000);
  if (timing)
    g_assert_cmpint (l.t_done - t0, <, 80000 + DELAY_SLACK_US);
  g_assert_cmpuint (g_list_length (l.addresses), ==, 1);
  name = g_inet_address_to_string (l.addresses->data);
  g_assert_cmpstr (name, ==, "127.0.0.1");
  g_clear_pointer (&name, g_free);
  g_resolver_free_addresses (l.addresses);

  /* Synchronous: sleeps. */
  t0 = g_get_monotonic_time ();
  addresses = g_resolver_lookup_by_name (resolver, "slow.relayscope.test", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, 80000);
  g_resolver_free_addresses (addresses);

  addresses = g_resolver_lookup_by_name (resolver, "relayscope.test", NULL, &error);
  g_assert_no_error (error);
  g_resolver_free_addresses (addresses);

  /* Unknown hosts fail the way real ones do. */
  addresses = g_resolver_lookup_by_name (resolver, "nxdomain.relayscope.test", NULL, &error);
  g_assert_null (addresses);
  g_assert_error (error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND);
  g_clear_error (&error);

  l = (Lookup) { loop };
  g_resolver_lookup_by_name_async (resolver, "nxdomain.relayscope.test", NULL, lookup_cb, &l);
  g_main_loop_run (loop);
  g_assert_error (l.error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND);
  g_clear_error (&l.error);

  /* Other names go to the resolver it replaced. */
  forwarded = relay_sim_resolver_get_n_forwarded ();
  addresses = g_resolver_lookup_by_name (resolver, "localhost", NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (addresses);
  g_resolver_free_addresses (addresses);
  {
    g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autofree char *host = g_resolver_lookup_by_address (resolver, loopback, NULL, &error);

    g_test_message ("127.0.0.1 is %s", host ? host : error->message);
    g_clear_error (&error);
  }
  g_assert_cmpuint (relay_sim_resolver_get_n_forwarded (), >, forwarded);
}

static void
test_resolver_with_soup (void)
{
  g_autoptr(RelaySimServer) server = start_server (NULL, FALSE);
  g_autofree char *root = NULL;
  g_autofree char *url = NULL;
  g_autofree char *bad = NULL;
  g_autoptr(Response) r = NULL;
  g_autoptr(Response) nx = NULL;

  relay_sim_resolver_install ();
  relay_sim_resolver_set_delay ("dns-slow.relayscope.test", 100);

  root = relay_sim_server_dup_root_url (server, "dns-slow.relayscope.test");
  url = g_strconcat (root, "/v1/models", NULL);
  r = run (&(Request) { .url = url, .auth = "bearer" });
  g_assert_no_error (r->error);
  g_assert_cmpuint (r->status, ==, 200);
  /* GSocketClient's lookup goes through the fake resolver: the delay shows up. */
  g_assert_cmpint (r->t_headers - r->t_send, >=, 100000);
  if (timing)
    g_assert_cmpint (r->t_headers - r->t_send, <, 100000 + 2 * DELAY_SLACK_US);

  bad = g_strdup_printf ("http://nxdomain.relayscope.test:%u/v1/models",
                         relay_sim_server_get_port (server));
  nx = run (&(Request) { .url = bad, .auth = "bearer" });
  g_assert_error (nx->error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND);
}

/* Demo */

static void
test_demo (void)
{
  g_autoptr(GError) error = NULL;
  RelaySimDemo *demo = relay_sim_demo_start (&error);
  g_autofree char *ca = NULL;
  g_autofree char *pem = NULL;
  struct stat st;

  g_assert_no_error (error);
  g_assert_nonnull (demo);
  g_assert_cmpuint (relay_sim_demo_get_n_relays (demo), ==, 4);

  ca = g_strdup (relay_sim_demo_get_ca_file (demo));
  g_assert_true (g_path_is_absolute (ca));
  g_assert_cmpint (stat (ca, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  g_assert_true (g_file_get_contents (ca, &pem, NULL, NULL));
  g_assert_nonnull (strstr (pem, "-----BEGIN CERTIFICATE-----"));

  for (guint i = 0; i < relay_sim_demo_get_n_relays (demo); i++)
    {
      const RelaySimDemoRelay *relay = relay_sim_demo_get_relay (demo, i);
      gboolean anthropic = g_strcmp0 (relay->api, "anthropic-messages") == 0;
      g_autofree char *host = g_strdup_printf ("https://%s.relayscope.test:", relay->profile);
      g_autofree char *url = NULL;
      g_autofree char *body = anthropic ? anthropic_body (TRUE) : openai_body (TRUE, FALSE, -1, NULL);
      g_autoptr(Response) r = NULL;
      g_autoptr(GPtrArray) content = NULL;
      Event *first;
      JsonObject *o;

      g_assert_true (g_str_has_prefix (relay->name, "Simulated: "));
      g_assert_true (g_str_has_prefix (relay->base_url, host));
      g_assert_true (g_str_has_prefix (relay->model, "sim-"));
      if (anthropic)
        {
          g_assert_cmpstr (relay->profile, ==, "reasoning");
          g_assert_false (g_str_has_suffix (relay->base_url, "/v1"));
          url = g_strconcat (relay->base_url, "/v1/messages", NULL);
        }
      else
        {
          g_assert_true (g_str_has_suffix (relay->base_url, "/v1"));
          url = g_strconcat (relay->base_url, "/chat/completions", NULL);
        }

      /* Short answers: the profiles' delays are seconds long in places. */
      r = run (&(Request) { .url = url, .body = body,
                            .auth = anthropic ? "x-api-key" : "bearer", .ca_file = ca,
                            .sim = "headers_delay_ms=0, prefill_us_per_token=0, ttft_ms=0, "
                                   "tokens=2, reasoning_tokens=1, itl_ms=1, "
                                   "stall_probability=0" });
      g_assert_no_error (r->error);
      g_assert_cmpuint (r->status, ==, 200);
      g_assert_true (has_done (r));
      content = text_events (r, TEXT_CONTENT);
      g_assert_cmpuint (content->len, ==, 2);
      first = g_ptr_array_index (r->events, 0);
      o = event_object (first);
      if (anthropic)
        o = json_object_get_object_member (o, "message");
      g_assert_cmpstr (json_object_get_string_member (o, "model"), ==, relay->model);
    }

  relay_sim_demo_free (demo);
  g_assert_false (g_file_test (ca, G_FILE_TEST_EXISTS));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  timing = g_strcmp0 (g_getenv ("RELAYSCOPE_TIMING_TESTS"), "0") != 0;

  g_test_add_func ("/sim/profile/named", test_profile_named);
  g_test_add_func ("/sim/profile/json", test_profile_json);
  g_test_add_func ("/sim/profile/overrides", test_profile_overrides);
  g_test_add_func ("/sim/format/openai-stream", test_openai_stream);
  g_test_add_func ("/sim/format/openai-reasoning", test_openai_reasoning_and_no_usage);
  g_test_add_func ("/sim/format/anthropic-stream", test_anthropic_stream);
  g_test_add_func ("/sim/format/non-streaming", test_non_streaming);
  g_test_add_func ("/sim/format/models-and-errors", test_models_and_errors);
  g_test_add_func ("/sim/timing/schedule", test_timing);
  g_test_add_func ("/sim/timing/jitter-and-stalls", test_jitter_and_stalls);
  g_test_add_func ("/sim/timing/override-header", test_override_header);
  g_test_add_func ("/sim/timing/coalesce", test_coalesce);
  g_test_add_func ("/sim/timing/prefix-cache", test_prefix_cache);
  g_test_add_func ("/sim/timing/max-tokens", test_max_tokens);
  g_test_add_func ("/sim/fault/http", test_fault_http);
  g_test_add_func ("/sim/fault/html-502", test_fault_html_502);
  g_test_add_func ("/sim/fault/reset", test_fault_reset);
  g_test_add_func ("/sim/fault/malformed", test_fault_malformed);
  g_test_add_func ("/sim/fault/no-terminator", test_fault_no_terminator);
  g_test_add_func ("/sim/fault/error-event", test_fault_error_event);
  g_test_add_func ("/sim/fault/stall", test_fault_stall);
  g_test_add_func ("/sim/fault/huge-line", test_fault_huge_line);
  g_test_add_func ("/sim/fault/cycle", test_fault_cycle);
  g_test_add_func ("/sim/fault/probability", test_fault_probability);
  g_test_add_func ("/sim/lifecycle/client-disconnect", test_client_disconnect);
  g_test_add_func ("/sim/lifecycle/stop-with-clients", test_stop_with_clients);
  g_test_add_func ("/sim/tls", test_tls);
  g_test_add_func ("/sim/resolver/lookups", test_resolver);
  g_test_add_func ("/sim/resolver/soup", test_resolver_with_soup);
  g_test_add_func ("/sim/demo", test_demo);

  return g_test_run ();
}
