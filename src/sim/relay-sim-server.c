/* relay-sim-server.c: the simulated relay: OpenAI chat and Anthropic messages streams paced
 * by a profile, served by a SoupServer on a thread of its own.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This file is the ground truth the engine is measured against, so it speaks the wire formats
 * with its own hand-written code and shares nothing with src/core.
 *
 * Timing: every write of a response has an absolute deadline computed from the moment the
 * request arrived, so timer lateness never accumulates. A custom GSource per request fires at
 * the deadline (GLib polls in whole milliseconds, so a write is up to ~1 ms late); the data is
 * appended to the chunked body and the paused message is resumed. Every JSON payload carries
 * "relayscope_sent_us", the monotonic time at which it was handed to the connection.
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "relay-sim-resources.h"
#include "relay-sim-server.h"

#define RESOURCE_PATH "/io/github/relayscope/Relayscope/sim/"
#define PREFIX_CHARS 1024
#define MAX_PREFIXES 1024
#define MAX_TOTAL_TOKENS 200000
#define HUGE_PIECE (64 * 1024)

typedef enum
{
  DIALECT_OPENAI,
  DIALECT_ANTHROPIC,
} Dialect;

typedef enum
{
  PHASE_HEADERS,   /* waiting for the headers deadline */
  PHASE_STREAM,    /* streaming tokens */
  PHASE_RESPOND,   /* non-streaming: waiting to send the whole answer */
  PHASE_HUGE,      /* writing a huge line piece by piece */
  PHASE_STALLED,   /* never sends again */
  PHASE_DONE,
} Phase;

typedef enum
{
  BLOCK_NONE,
  BLOCK_THINKING,
  BLOCK_TEXT,
} Block;

typedef struct
{
  RelaySimServer    *server;      /* unowned: streams end before the server thread does */
  SoupServerMessage *msg;
  GSource           *timer;
  GSource           *watch;       /* client-gone watch while stalled */
  gulong             wrote_chunk_id;

  RelaySimProfile    profile;
  Dialect            dialect;
  gboolean           stream;
  gboolean           include_usage;
  char              *model_json;  /* the reported model, as a JSON string literal */
  char              *id;
  gint64             created;

  gint64             t_request;
  gint64             t_headers;
  gint64             overhead_us;  /* part of the headers delay the latency headers leave out */
  gint64             t_tail;
  gint64            *token_times;
  guint              n_reasoning;
  guint              n_content;
  guint              n_total;
  gboolean           truncated;   /* max_tokens cut the content short */
  guint              prompt_tokens;
  guint              cached_tokens;

  RelaySimFault      fault;       /* the fault this request suffers, or NONE */
  gboolean           fault_pending;
  guint              fault_at;

  Phase              phase;
  guint              next_token;
  Block              block;
  int                block_index;
  gsize              huge_left;
  guint64            n_appended;  /* body bytes handed to libsoup … */
  guint64            n_written;   /* … and those it has written */
  gulong             wrote_data_id;
  gboolean           finished;
} Stream;

struct _RelaySimServer
{
  GObject          parent_instance;

  RelaySimProfile  profile;

  GMutex           lock;
  GCond            cond;
  GThread         *thread;
  GMainContext    *context;
  GMainLoop       *loop;
  gboolean         ready;
  GError          *start_error;
  char            *address;
  gboolean         tls;
  guint            port;

  /* Owned by the server thread */
  SoupServer      *soup;
  GRand           *rand;
  GHashTable      *prefixes;
  GHashTable      *streams;  /* SoupServerMessage → Stream */
  guint            cycle_index;
  guint64          seq;

  int              n_requests;
  int              n_active;
};

G_DEFINE_FINAL_TYPE (RelaySimServer, relay_sim_server, G_TYPE_OBJECT)

static const char * const content_words[] = {
  "The", "relay", "streams", "each", "token", "at", "a", "steady", "pace", "while", "the",
  "probe", "measures", "every", "gap", "between", "them", "so", "that", "slow", "parts",
  "of", "a", "request", "stand", "out", "in", "the", "waterfall", "and", "can", "be",
  "fixed", "one", "stage", "after", "another",
};

static const char * const reasoning_words[] = {
  "Let", "me", "think", "about", "this", "step", "by", "step", "first", "the", "question",
  "asks", "for", "a", "short", "answer", "so", "I", "should", "keep", "it", "brief", "and",
  "clear",
};

static void stream_step (Stream *st);

/* JSON helpers */

static char *
json_quote (const char *str)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), str ? str : "");

  return json_to_string (node, FALSE);
}

static char *
builder_to_string (JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = json_builder_get_root (builder);

  return json_to_string (root, FALSE);
}

static const char *
token_word (gboolean reasoning,
            guint    i)
{
  if (reasoning)
    return reasoning_words[i % G_N_ELEMENTS (reasoning_words)];
  return content_words[i % G_N_ELEMENTS (content_words)];
}

/* The text of token i of a kind: words separated by spaces, as tokenizers cut them. */
static void
append_token_text (GString  *out,
                   gboolean  reasoning,
                   guint     i)
{
  if (i > 0)
    g_string_append_c (out, ' ');
  g_string_append (out, token_word (reasoning, i));
}

static char *
dup_text (gboolean reasoning,
          guint    n)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    append_token_text (s, reasoning, i);

  return g_string_free (s, FALSE);
}

/* Error bodies in each dialect's own shape */

static const char *
openai_error_type (guint status)
{
  switch (status)
    {
    case 429: return "requests";
    case 500:
    case 502:
    case 503: return "server_error";
    default: return "invalid_request_error";
    }
}

static const char *
anthropic_error_type (guint status)
{
  switch (status)
    {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 405: return "invalid_request_error";
    case 429: return "rate_limit_error";
    case 503: return "overloaded_error";
    default: return "api_error";
    }
}

static const char *
reason_phrase (guint status)
{
  /* libsoup 3.2 has no phrase for some of these. */
  switch (status)
    {
    case 429: return "Too Many Requests";
    default: return NULL;
    }
}

static char *
error_body (Dialect     dialect,
            guint       status,
            const char *message,
            const char *code)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  if (dialect == DIALECT_ANTHROPIC)
    {
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "error");
      json_builder_set_member_name (b, "error");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, anthropic_error_type (status));
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, message);
      json_builder_end_object (b);
    }
  else
    {
      json_builder_set_member_name (b, "error");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, message);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, openai_error_type (status));
      json_builder_set_member_name (b, "param");
      json_builder_add_null_value (b);
      json_builder_set_member_name (b, "code");
      if (code != NULL)
        json_builder_add_string_value (b, code);
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);

  return builder_to_string (b);
}

static void
set_common_headers (RelaySimServer    *self,
                    SoupServerMessage *msg,
                    gint64             t_request)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  g_autofree char *request_id = NULL;
  g_autofree char *start = NULL;

  request_id = g_strdup_printf ("req_sim_%08x%08x", g_random_int (), g_random_int ());
  start = g_strdup_printf ("%" G_GINT64_FORMAT, t_request);

  soup_message_headers_replace (headers, "x-request-id", request_id);
  /* When the request reached the handler, so a client can line its reads up with our
   * schedule (same monotonic clock in the same process or machine). */
  soup_message_headers_replace (headers, "x-relayscope-start-us", start);
}

static void
respond_error (RelaySimServer    *self,
               SoupServerMessage *msg,
               Dialect            dialect,
               guint              status,
               const char        *message,
               const char        *code)
{
  g_autofree char *body = error_body (dialect, status, message, code);
  gsize length = strlen (body ? body : "");

  soup_server_message_set_status (msg, status, reason_phrase (status));
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE,
                                    g_steal_pointer (&body), length);
}

/* Streams: bookkeeping */

static gboolean
free_stream_cb (gpointer data)
{
  Stream *st = data;

  g_clear_object (&st->msg);
  relay_sim_profile_clear (&st->profile);
  g_free (st->model_json);
  g_free (st->id);
  g_free (st->token_times);
  g_free (st);

  return G_SOURCE_REMOVE;
}

/* Ends our part in a request: no timer fires for it again. Safe to call more than once, and
 * from libsoup's signals: the memory goes in an idle, after the signal has returned. */
static void
stream_finish (Stream *st)
{
  RelaySimServer *self = st->server;
  g_autoptr(GSource) idle = NULL;

  if (st->finished)
    return;

  st->finished = TRUE;
  st->phase = PHASE_DONE;

  if (st->timer)
    {
      g_source_destroy (st->timer);
      g_clear_pointer (&st->timer, g_source_unref);
    }
  if (st->watch)
    {
      g_source_destroy (st->watch);
      g_clear_pointer (&st->watch, g_source_unref);
    }
  g_clear_signal_handler (&st->wrote_chunk_id, st->msg);
  g_clear_signal_handler (&st->wrote_data_id, st->msg);

  g_hash_table_remove (self->streams, st->msg);
  g_atomic_int_add (&self->n_active, -1);

  idle = g_idle_source_new ();
  g_source_set_callback (idle, free_stream_cb, st, NULL);
  g_source_attach (idle, self->context);
}

static void
request_done_cb (SoupServer        *soup,
                 SoupServerMessage *msg,
                 RelaySimServer    *self)
{
  Stream *st = g_hash_table_lookup (self->streams, msg);

  if (st != NULL)
    stream_finish (st);
}

static void
body_append (Stream *st,
             char   *data,
             gsize   len)
{
  soup_message_body_append (soup_server_message_get_response_body (st->msg),
                            SOUP_MEMORY_TAKE, data, len);
  st->n_appended += len;
}

static void
wrote_body_data_cb (SoupServerMessage *msg,
                    guint              n,
                    Stream            *st)
{
  st->n_written += n;
}

static void
stream_arm (Stream *st,
            gint64  deadline)
{
  g_source_set_ready_time (st->timer, deadline);
}

static void
stream_write (Stream  *st,
              GString *data)
{
  gsize len = data->len;

  if (len > 0)
    body_append (st, g_string_free (data, FALSE), len);
  else
    g_string_free (data, TRUE);

  soup_server_message_unpause (st->msg);
}

static void
stream_complete (Stream  *st,
                 GString *data)
{
  SoupMessageBody *body = soup_server_message_get_response_body (st->msg);

  if (data != NULL && data->len > 0)
    {
      gsize len = data->len;

      body_append (st, g_string_free (data, FALSE), len);
    }
  else if (data != NULL)
    g_string_free (data, TRUE);

  soup_message_body_complete (body);
  soup_server_message_unpause (st->msg);

  /* libsoup finishes the message on its own; "request-finished" then frees the stream. */
  st->phase = PHASE_DONE;
  g_source_set_ready_time (st->timer, -1);
}

/* Closes the TCP connection with a reset, as a crashing upstream or a killed proxy does:
 * no chunked terminator, no TLS close_notify. The connection is reset before libsoup lets go
 * of it, because releasing it closes the chunked body stream, which would otherwise write a
 * proper terminator. connect(AF_UNSPEC) resets a TCP connection and leaves the descriptor
 * valid for libsoup's own bookkeeping. */
static void
stream_reset (Stream *st)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GIOStream) stolen = NULL;
  struct linger lin = { 1, 0 };
  struct sockaddr unspec = { .sa_family = AF_UNSPEC };

  /* libsoup asks for these while letting go of the connection; it keeps what it got. */
  soup_server_message_get_local_address (st->msg);
  soup_server_message_get_remote_address (st->msg);

  if ((socket = soup_server_message_get_socket (st->msg)))
    {
      int fd = g_socket_get_fd (g_object_ref (socket));

      if (setsockopt (fd, SOL_SOCKET, SO_LINGER, &lin, sizeof lin) != 0)
        g_debug ("SO_LINGER: %s", g_strerror (errno));
      if (connect (fd, &unspec, sizeof unspec) != 0)
        g_debug ("Resetting the connection: %s", g_strerror (errno));
    }

  stolen = soup_server_message_steal_connection (st->msg);
  if (socket != NULL)
    g_socket_close (socket, NULL);

  stream_finish (st);
}

static gboolean
client_gone_cb (GSocket      *socket,
                GIOCondition  condition,
                gpointer      data)
{
  Stream *st = data;

  /* A stalled stream never writes again, so a client that gave up is only seen here: any
   * input (FIN, RST or a TLS close alert) means it is gone. */
  g_debug ("Client left a stalled stream");
  g_clear_pointer (&st->watch, g_source_unref);
  stream_reset (st);

  return G_SOURCE_REMOVE;
}

static void
stream_stall (Stream *st)
{
  GSocket *socket = soup_server_message_get_socket (st->msg);

  st->phase = PHASE_STALLED;
  g_source_set_ready_time (st->timer, -1);

  if (socket != NULL && st->watch == NULL)
    {
      st->watch = g_socket_create_source (socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
      g_source_set_callback (st->watch, G_SOURCE_FUNC (client_gone_cb), st, NULL);
      g_source_attach (st->watch, st->server->context);
    }
}

/* Events: OpenAI chat completions */

static void
openai_chunk (Stream     *st,
              GString    *out,
              gint64      now,
              const char *delta,
              const char *finish_reason)
{
  g_string_append_printf (out,
                          "data: {\"id\":\"%s\",\"object\":\"chat.completion.chunk\","
                          "\"created\":%" G_GINT64_FORMAT ",\"model\":%s,"
                          "\"system_fingerprint\":\"fp_relayscope_sim\","
                          "\"choices\":[{\"index\":0,\"delta\":%s,\"logprobs\":null,"
                          "\"finish_reason\":%s}],"
                          "\"relayscope_sent_us\":%" G_GINT64_FORMAT "}\n\n",
                          st->id, st->created, st->model_json, delta,
                          finish_reason ? finish_reason : "null", now);
}

static void
append_usage (Stream      *st,
              JsonBuilder *b)
{
  guint completion = st->n_reasoning + st->n_content;

  json_builder_begin_object (b);
  if (st->dialect == DIALECT_ANTHROPIC)
    {
      json_builder_set_member_name (b, "input_tokens");
      json_builder_add_int_value (b, st->prompt_tokens - st->cached_tokens);
      json_builder_set_member_name (b, "cache_creation_input_tokens");
      json_builder_add_int_value (b, 0);
      json_builder_set_member_name (b, "cache_read_input_tokens");
      json_builder_add_int_value (b, st->cached_tokens);
      json_builder_set_member_name (b, "output_tokens");
      json_builder_add_int_value (b, completion);
    }
  else
    {
      json_builder_set_member_name (b, "prompt_tokens");
      json_builder_add_int_value (b, st->prompt_tokens);
      json_builder_set_member_name (b, "completion_tokens");
      json_builder_add_int_value (b, completion);
      json_builder_set_member_name (b, "total_tokens");
      json_builder_add_int_value (b, st->prompt_tokens + completion);
      json_builder_set_member_name (b, "prompt_tokens_details");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "cached_tokens");
      json_builder_add_int_value (b, st->cached_tokens);
      json_builder_end_object (b);
      json_builder_set_member_name (b, "completion_tokens_details");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "reasoning_tokens");
      json_builder_add_int_value (b, st->n_reasoning);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
}

static char *
usage_json (Stream *st)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  append_usage (st, b);
  return builder_to_string (b);
}

/* Events: Anthropic messages */

static void
anthropic_event (GString    *out,
                 gint64      now,
                 const char *type,
                 const char *members)
{
  g_string_append_printf (out,
                          "event: %s\ndata: {\"type\":\"%s\"%s%s,"
                          "\"relayscope_sent_us\":%" G_GINT64_FORMAT "}\n\n",
                          type, type, members ? "," : "", members ? members : "", now);
}

static void
anthropic_close_block (Stream  *st,
                       GString *out,
                       gint64   now)
{
  g_autofree char *members = NULL;

  if (st->block == BLOCK_NONE)
    return;

  if (st->block == BLOCK_THINKING)
    {
      members = g_strdup_printf ("\"index\":%d,\"delta\":{\"type\":\"signature_delta\","
                                 "\"signature\":\"c2ltdWxhdGVk\"}", st->block_index);
      anthropic_event (out, now, "content_block_delta", members);
      g_clear_pointer (&members, g_free);
    }

  members = g_strdup_printf ("\"index\":%d", st->block_index);
  anthropic_event (out, now, "content_block_stop", members);
  st->block = BLOCK_NONE;
}

static void
anthropic_open_block (Stream  *st,
                      GString *out,
                      gint64   now,
                      Block    block)
{
  g_autofree char *members = NULL;

  if (st->block == block)
    return;

  anthropic_close_block (st, out, now);
  st->block_index++;
  st->block = block;

  if (block == BLOCK_THINKING)
    members = g_strdup_printf ("\"index\":%d,\"content_block\":{\"type\":\"thinking\","
                               "\"thinking\":\"\"}", st->block_index);
  else
    members = g_strdup_printf ("\"index\":%d,\"content_block\":{\"type\":\"text\","
                               "\"text\":\"\"}", st->block_index);
  anthropic_event (out, now, "content_block_start", members);
}

/* Writes the text of token i (reasoning first, then content) in the dialect's framing. */
static void
append_token (Stream  *st,
              GString *out,
              gint64   now,
              guint    i)
{
  gboolean reasoning = i < st->n_reasoning;
  guint k = reasoning ? i : i - st->n_reasoning;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *quoted = NULL;
  g_autofree char *members = NULL;

  append_token_text (text, reasoning, k);
  quoted = json_quote (text->str);

  if (st->dialect == DIALECT_OPENAI)
    {
      g_autofree char *delta = g_strdup_printf ("{\"%s\":%s}",
                                                reasoning ? "reasoning_content" : "content",
                                                quoted);
      openai_chunk (st, out, now, delta, NULL);
      return;
    }

  anthropic_open_block (st, out, now, reasoning ? BLOCK_THINKING : BLOCK_TEXT);
  members = g_strdup_printf ("\"index\":%d,\"delta\":{\"type\":\"%s\",\"%s\":%s}",
                             st->block_index,
                             reasoning ? "thinking_delta" : "text_delta",
                             reasoning ? "thinking" : "text",
                             quoted);
  anthropic_event (out, now, "content_block_delta", members);
}

static void
append_tail (Stream   *st,
             GString  *out,
             gint64    now,
             gboolean  terminator)
{
  if (st->dialect == DIALECT_OPENAI)
    {
      openai_chunk (st, out, now, "{}", st->truncated ? "\"length\"" : "\"stop\"");
      if (st->include_usage)
        {
          g_autofree char *usage = usage_json (st);

          g_string_append_printf (out,
                                  "data: {\"id\":\"%s\",\"object\":\"chat.completion.chunk\","
                                  "\"created\":%" G_GINT64_FORMAT ",\"model\":%s,"
                                  "\"system_fingerprint\":\"fp_relayscope_sim\","
                                  "\"choices\":[],\"usage\":%s,"
                                  "\"relayscope_sent_us\":%" G_GINT64_FORMAT "}\n\n",
                                  st->id, st->created, st->model_json, usage, now);
        }
      if (terminator)
        g_string_append (out, "data: [DONE]\n\n");
    }
  else
    {
      g_autofree char *members = NULL;

      anthropic_close_block (st, out, now);
      members = g_strdup_printf ("\"delta\":{\"stop_reason\":\"%s\",\"stop_sequence\":null},"
                                 "\"usage\":{\"output_tokens\":%u}",
                                 st->truncated ? "max_tokens" : "end_turn",
                                 st->n_reasoning + st->n_content);
      anthropic_event (out, now, "message_delta", members);
      if (terminator)
        anthropic_event (out, now, "message_stop", NULL);
    }
}

static void
append_error_event (Stream  *st,
                    GString *out,
                    gint64   now)
{
  if (st->dialect == DIALECT_OPENAI)
    g_string_append_printf (out,
                            "data: {\"error\":{\"message\":\"The upstream model is overloaded "
                            "(simulated)\",\"type\":\"server_error\",\"param\":null,"
                            "\"code\":null},\"relayscope_sent_us\":%" G_GINT64_FORMAT "}\n\n",
                            now);
  else
    anthropic_event (out, now, "error",
                     "\"error\":{\"type\":\"overloaded_error\","
                     "\"message\":\"Overloaded (simulated)\"}");
}

static void
append_malformed (Stream  *st,
                  GString *out)
{
  if (st->dialect == DIALECT_OPENAI)
    g_string_append (out, "data: {\"choices\":[{\"delta\":{\"content\": oops}}\n\n");
  else
    g_string_append_printf (out,
                            "event: content_block_delta\n"
                            "data: {\"type\":\"content_block_delta\",\"index\":%d,"
                            "\"delta\":{\"type\":\"text_delta\",\"text\": oops}}\n\n",
                            MAX (st->block_index, 0));
}

/* The message_start an Anthropic stream opens with, or OpenAI's role-only chunk. */
static void
append_preamble (Stream  *st,
                 GString *out,
                 gint64   now)
{
  if (st->dialect == DIALECT_OPENAI)
    {
      if (st->profile.role_chunk)
        openai_chunk (st, out, now, "{\"role\":\"assistant\",\"content\":\"\"}", NULL);
    }
  else
    {
      g_autofree char *members = NULL;

      members = g_strdup_printf ("\"message\":{\"id\":\"%s\",\"type\":\"message\","
                                 "\"role\":\"assistant\",\"model\":%s,\"content\":[],"
                                 "\"stop_reason\":null,\"stop_sequence\":null,"
                                 "\"usage\":{\"input_tokens\":%u,"
                                 "\"cache_creation_input_tokens\":0,"
                                 "\"cache_read_input_tokens\":%u,\"output_tokens\":1}}",
                                 st->id, st->model_json,
                                 st->prompt_tokens - st->cached_tokens, st->cached_tokens);
      anthropic_event (out, now, "message_start", members);
      anthropic_event (out, now, "ping", NULL);
    }
}

/* Non-streaming answers */

static char *
complete_body (Stream *st,
               gint64  now)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *reasoning = dup_text (TRUE, st->n_reasoning);
  g_autofree char *content = dup_text (FALSE, st->n_content);
  g_autoptr(JsonNode) model = json_from_string (st->model_json, NULL);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, st->id);

  if (st->dialect == DIALECT_OPENAI)
    {
      json_builder_set_member_name (b, "object");
      json_builder_add_string_value (b, "chat.completion");
      json_builder_set_member_name (b, "created");
      json_builder_add_int_value (b, st->created);
      json_builder_set_member_name (b, "model");
      json_builder_add_value (b, g_steal_pointer (&model));
      json_builder_set_member_name (b, "choices");
      json_builder_begin_array (b);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "index");
      json_builder_add_int_value (b, 0);
      json_builder_set_member_name (b, "message");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "role");
      json_builder_add_string_value (b, "assistant");
      json_builder_set_member_name (b, "content");
      json_builder_add_string_value (b, content);
      if (st->n_reasoning > 0)
        {
          json_builder_set_member_name (b, "reasoning_content");
          json_builder_add_string_value (b, reasoning);
        }
      json_builder_end_object (b);
      json_builder_set_member_name (b, "logprobs");
      json_builder_add_null_value (b);
      json_builder_set_member_name (b, "finish_reason");
      json_builder_add_string_value (b, st->truncated ? "length" : "stop");
      json_builder_end_object (b);
      json_builder_end_array (b);
    }
  else
    {
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "message");
      json_builder_set_member_name (b, "role");
      json_builder_add_string_value (b, "assistant");
      json_builder_set_member_name (b, "model");
      json_builder_add_value (b, g_steal_pointer (&model));
      json_builder_set_member_name (b, "content");
      json_builder_begin_array (b);
      if (st->n_reasoning > 0)
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "type");
          json_builder_add_string_value (b, "thinking");
          json_builder_set_member_name (b, "thinking");
          json_builder_add_string_value (b, reasoning);
          json_builder_set_member_name (b, "signature");
          json_builder_add_string_value (b, "c2ltdWxhdGVk");
          json_builder_end_object (b);
        }
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "text");
      json_builder_set_member_name (b, "text");
      json_builder_add_string_value (b, content);
      json_builder_end_object (b);
      json_builder_end_array (b);
      json_builder_set_member_name (b, "stop_reason");
      json_builder_add_string_value (b, st->truncated ? "max_tokens" : "end_turn");
      json_builder_set_member_name (b, "stop_sequence");
      json_builder_add_null_value (b);
    }

  json_builder_set_member_name (b, "usage");
  append_usage (st, b);
  json_builder_set_member_name (b, "relayscope_sent_us");
  json_builder_add_int_value (b, now);
  json_builder_end_object (b);

  return builder_to_string (b);
}

/* The pacing */

static void
set_response_headers (Stream *st,
                      guint   status)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (st->msg);
  double processing_ms = MAX (0, st->t_headers - st->t_request - st->overhead_us) / 1000.0;
  g_autofree char *processing = g_strdup_printf ("%.0f", processing_ms);
  g_autofree char *timing = NULL;
  g_autofree char *remaining = NULL;
  guint n = (guint) g_atomic_int_get (&st->server->n_requests);

  timing = g_strdup_printf ("upstream;dur=%.1f", processing_ms);
  if (status == 429)
    remaining = g_strdup ("0");
  else if (st->profile.ratelimit_remaining >= 0)
    remaining = g_strdup_printf ("%.0f", st->profile.ratelimit_remaining);
  else
    remaining = g_strdup_printf ("%u", 10000 - (n % 10000));

  soup_message_headers_replace (headers, "openai-processing-ms", processing);
  soup_message_headers_replace (headers, "server-timing", timing);
  soup_message_headers_replace (headers, "x-ratelimit-limit-requests", "10000");
  soup_message_headers_replace (headers, "x-ratelimit-remaining-requests", remaining);
  soup_message_headers_replace (headers, "x-ratelimit-reset-requests",
                                status == 429 ? "2s" : "6ms");
  if (st->profile.close_connection)
    soup_message_headers_replace (headers, "Connection", "close");
  if (st->dialect == DIALECT_ANTHROPIC)
    soup_message_headers_replace (headers, "request-id",
                                  soup_message_headers_get_one (headers, "x-request-id"));
}

static gboolean
is_http_fault (RelaySimFault fault)
{
  return fault >= RELAY_SIM_FAULT_HTTP_401 && fault <= RELAY_SIM_FAULT_HTML_502;
}

static void
send_http_fault (Stream *st)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (st->msg);
  guint status;
  const char *message;
  const char *code = NULL;

  switch (st->fault)
    {
    case RELAY_SIM_FAULT_HTTP_401:
      status = 401;
      message = "Incorrect API key provided (simulated)";
      code = "invalid_api_key";
      break;
    case RELAY_SIM_FAULT_HTTP_403:
      status = 403;
      message = "You are not allowed to use this model (simulated)";
      code = "model_not_allowed";
      break;
    case RELAY_SIM_FAULT_HTTP_404:
      status = 404;
      message = "The model does not exist or you do not have access to it "
                "(simulated)";
      code = "model_not_found";
      break;
    case RELAY_SIM_FAULT_HTTP_429:
      status = 429;
      message = "Rate limit reached for requests (simulated). Please try again "
                "in 2s.";
      code = "rate_limit_exceeded";
      break;
    case RELAY_SIM_FAULT_HTTP_500:
      status = 500;
      message = "The server had an error while processing your request "
                "(simulated)";
      break;
    case RELAY_SIM_FAULT_HTTP_503:
      status = 503;
      message = "The engine is currently overloaded, please try again later "
                "(simulated)";
      break;
    case RELAY_SIM_FAULT_HTML_502:
      {
        static const char html[] =
          "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
          "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
          "</body>\r\n</html>\r\n";

        set_response_headers (st, 502);
        soup_server_message_set_status (st->msg, 502, NULL);
        soup_server_message_set_response (st->msg, "text/html", SOUP_MEMORY_STATIC,
                                          html, strlen (html));
        soup_server_message_unpause (st->msg);
        st->phase = PHASE_DONE;
        return;
      }
    case RELAY_SIM_FAULT_NONE:
    case RELAY_SIM_FAULT_RESET:
    case RELAY_SIM_FAULT_MALFORMED:
    case RELAY_SIM_FAULT_NO_TERMINATOR:
    case RELAY_SIM_FAULT_ERROR_EVENT:
    case RELAY_SIM_FAULT_STALL:
    case RELAY_SIM_FAULT_HUGE_LINE:
    default:
      g_assert_not_reached ();
    }

  set_response_headers (st, status);
  if (status == 429)
    {
      soup_message_headers_replace (headers, "retry-after", "2");
      if (st->dialect == DIALECT_ANTHROPIC)
        soup_message_headers_replace (headers, "anthropic-ratelimit-requests-remaining", "0");
    }

  respond_error (st->server, st->msg, st->dialect, status, message, code);
  soup_server_message_unpause (st->msg);
  st->phase = PHASE_DONE;
}

/* The token that ends the group starting at next_token: a buffering proxy releases
 * `coalesce` tokens at once, and a mid-stream fault cuts a group short. */
static guint
group_end (Stream *st)
{
  guint end = MIN (st->next_token + st->profile.coalesce, st->n_total);

  if (st->fault_pending && st->fault_at > st->next_token)
    end = MIN (end, st->fault_at);

  return end;
}

static gint64
next_deadline (Stream *st)
{
  if (st->fault_pending && st->next_token == st->fault_at)
    return st->next_token < st->n_total ? st->token_times[st->next_token] : st->t_tail;

  if (st->next_token < st->n_total)
    return st->token_times[group_end (st) - 1];

  return st->t_tail;
}

static void
huge_append_piece (Stream *st)
{
  gsize n = MIN (st->huge_left, HUGE_PIECE);

  if (n > 0)
    {
      char *piece = g_malloc (n);

      memset (piece, 'x', n);
      body_append (st, piece, n);
      st->huge_left -= n;
    }
}

static void
wrote_chunk_cb (SoupServerMessage *msg,
                Stream            *st)
{
  GString *suffix;

  if (st->phase != PHASE_HUGE)
    return;

  /* Called from libsoup's write loop: appending here keeps it writing without a pause, one
   * piece at a time, so the whole line never sits in memory. */
  if (st->huge_left > 0)
    {
      huge_append_piece (st);
      return;
    }

  suffix = g_string_new (NULL);
  if (st->dialect == DIALECT_OPENAI)
    g_string_append (suffix, "\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
  else
    g_string_append (suffix, "\"}}\n\n");

  body_append (st, suffix->str, suffix->len);
  g_string_free (suffix, FALSE);

  st->phase = PHASE_STREAM;
  stream_arm (st, next_deadline (st));
}

static void
start_huge_line (Stream *st,
                 gint64  now)
{
  g_autoptr(GString) prefix = g_string_new (NULL);
  gboolean reasoning = st->next_token < st->n_reasoning;
  gsize line_start;
  gsize overhead;

  if (st->dialect == DIALECT_ANTHROPIC)
    anthropic_open_block (st, prefix, now, reasoning ? BLOCK_THINKING : BLOCK_TEXT);

  line_start = prefix->len;
  if (st->dialect == DIALECT_OPENAI)
    g_string_append_printf (prefix,
                            "data: {\"relayscope_sent_us\":%" G_GINT64_FORMAT ",\"id\":\"%s\","
                            "\"object\":\"chat.completion.chunk\",\"created\":%" G_GINT64_FORMAT
                            ",\"model\":%s,\"choices\":[{\"index\":0,\"delta\":{\"%s\":\"",
                            now, st->id, st->created, st->model_json,
                            reasoning ? "reasoning_content" : "content");
  else
    g_string_append_printf (prefix,
                            "event: content_block_delta\n"
                            "data: {\"relayscope_sent_us\":%" G_GINT64_FORMAT ","
                            "\"type\":\"content_block_delta\",\"index\":%d,"
                            "\"delta\":{\"type\":\"%s\",\"%s\":\"",
                            now, st->block_index,
                            reasoning ? "thinking_delta" : "text_delta",
                            reasoning ? "thinking" : "text");

  /* fault_bytes is the length of the data line itself, its "data: " to its last brace. */
  if (st->dialect == DIALECT_OPENAI)
    overhead = prefix->len - line_start + strlen ("\"},\"logprobs\":null,\"finish_reason\":null}]}");
  else
    overhead = prefix->len - line_start - strlen ("event: content_block_delta\n") +
               strlen ("\"}}");

  st->huge_left = st->profile.fault_bytes > overhead ? st->profile.fault_bytes - overhead : 0;
  st->phase = PHASE_HUGE;

  if (st->wrote_chunk_id == 0)
    st->wrote_chunk_id = g_signal_connect (st->msg, "wrote-chunk",
                                           G_CALLBACK (wrote_chunk_cb), st);

  stream_write (st, g_steal_pointer (&prefix));
}

/* Mid-stream faults happen when the token at fault_at would have been sent (or the tail,
 * when fault_after is past the last token). */
static gboolean
run_fault (Stream *st,
           gint64  now)
{
  /* The tokens before the fault must reach the client first: libsoup writes appended data
   * from an idle, which a late timer can overtake on a busy machine. */
  if (st->fault == RELAY_SIM_FAULT_RESET && st->n_written < st->n_appended)
    {
      stream_arm (st, now + 500);
      return TRUE;
    }

  st->fault_pending = FALSE;

  switch (st->fault)
    {
    case RELAY_SIM_FAULT_RESET:
      stream_reset (st);
      return TRUE;

    case RELAY_SIM_FAULT_STALL:
      stream_stall (st);
      return TRUE;

    case RELAY_SIM_FAULT_ERROR_EVENT:
      {
        GString *out = g_string_new (NULL);

        append_error_event (st, out, now);
        stream_complete (st, out);
        return TRUE;
      }

    case RELAY_SIM_FAULT_NO_TERMINATOR:
      {
        GString *out = g_string_new (NULL);

        /* Cut short before the last token, or complete but for the terminator. */
        if (st->next_token >= st->n_total)
          append_tail (st, out, now, FALSE);
        stream_complete (st, out);
        return TRUE;
      }

    case RELAY_SIM_FAULT_MALFORMED:
      {
        GString *out = g_string_new (NULL);

        append_malformed (st, out);
        stream_write (st, out);
        stream_arm (st, next_deadline (st));
        return TRUE;
      }

    case RELAY_SIM_FAULT_HUGE_LINE:
      start_huge_line (st, now);
      return TRUE;

    case RELAY_SIM_FAULT_NONE:
    case RELAY_SIM_FAULT_HTTP_401:
    case RELAY_SIM_FAULT_HTTP_403:
    case RELAY_SIM_FAULT_HTTP_404:
    case RELAY_SIM_FAULT_HTTP_429:
    case RELAY_SIM_FAULT_HTTP_500:
    case RELAY_SIM_FAULT_HTTP_503:
    case RELAY_SIM_FAULT_HTML_502:
    default:
      return FALSE;
    }
}

static void
respond_complete (Stream *st,
                  gint64  now)
{
  g_autofree char *body = NULL;
  gsize length;

  switch (st->fault)
    {
    case RELAY_SIM_FAULT_RESET:
      stream_reset (st);
      return;

    case RELAY_SIM_FAULT_STALL:
      stream_stall (st);
      return;

    case RELAY_SIM_FAULT_ERROR_EVENT:
      set_response_headers (st, 500);
      respond_error (st->server, st->msg, st->dialect, 500,
                     "The upstream model is overloaded (simulated)", NULL);
      soup_server_message_unpause (st->msg);
      st->phase = PHASE_DONE;
      return;

    case RELAY_SIM_FAULT_MALFORMED:
      body = g_strdup_printf ("{\"id\":\"%s\",\"choices\":[{\"message\":{\"content\": oops}}",
                              st->id);
      break;

    case RELAY_SIM_FAULT_NONE:
    case RELAY_SIM_FAULT_HTTP_401:
    case RELAY_SIM_FAULT_HTTP_403:
    case RELAY_SIM_FAULT_HTTP_404:
    case RELAY_SIM_FAULT_HTTP_429:
    case RELAY_SIM_FAULT_HTTP_500:
    case RELAY_SIM_FAULT_HTTP_503:
    case RELAY_SIM_FAULT_HTML_502:
    case RELAY_SIM_FAULT_NO_TERMINATOR:
    case RELAY_SIM_FAULT_HUGE_LINE:
    default:
      body = complete_body (st, now);
      break;
    }

  /* Headers go out with the whole answer, so the server's time is all of it. The length
   * is taken first: argument order is unspecified, and clang steals the pointer first. */
  st->t_headers = st->t_tail;
  set_response_headers (st, 200);
  soup_server_message_set_status (st->msg, 200, NULL);
  length = strlen (body);
  soup_server_message_set_response (st->msg, "application/json", SOUP_MEMORY_TAKE,
                                    g_steal_pointer (&body), length);
  soup_server_message_unpause (st->msg);
  st->phase = PHASE_DONE;
}

static void
stream_step (Stream *st)
{
  gint64 now = g_get_monotonic_time ();

  switch (st->phase)
    {
    case PHASE_HEADERS:
      {
        SoupMessageHeaders *headers = soup_server_message_get_response_headers (st->msg);
        GString *out;

        if (is_http_fault (st->fault))
          {
            send_http_fault (st);
            return;
          }

        if (!st->stream)
          {
            st->phase = PHASE_RESPOND;
            stream_arm (st, st->t_tail);
            return;
          }

        set_response_headers (st, 200);
        soup_server_message_set_status (st->msg, 200, NULL);
        soup_message_headers_replace (headers, "content-type",
                                      "text/event-stream; charset=utf-8");
        soup_message_headers_replace (headers, "cache-control", "no-cache");
        soup_message_headers_replace (headers, "x-accel-buffering", "no");
        soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
        /* Written chunks are dropped, so a long stream or a huge line does not pile up. */
        soup_message_body_set_accumulate (soup_server_message_get_response_body (st->msg),
                                          FALSE);

        out = g_string_new (NULL);
        append_preamble (st, out, now);
        st->phase = PHASE_STREAM;
        stream_write (st, out);
        stream_arm (st, next_deadline (st));
        return;
      }

    case PHASE_RESPOND:
      respond_complete (st, now);
      return;

    case PHASE_STREAM:
      {
        GString *out;

        if (st->fault_pending && st->next_token == st->fault_at && run_fault (st, now))
          return;

        out = g_string_new (NULL);
        if (st->next_token < st->n_total)
          {
            guint end = group_end (st);

            for (guint i = st->next_token; i < end; i++)
              append_token (st, out, now, i);
            st->next_token = end;
            stream_write (st, out);
            stream_arm (st, next_deadline (st));
            return;
          }

        append_tail (st, out, now, TRUE);
        stream_complete (st, out);
        return;
      }

    case PHASE_HUGE:
    case PHASE_STALLED:
    case PHASE_DONE:
    default:
      return;
    }
}

static gboolean
stream_step_cb (gpointer data)
{
  stream_step (data);
  return G_SOURCE_CONTINUE;
}

static gboolean
timer_dispatch (GSource     *source,
                GSourceFunc  callback,
                gpointer     user_data)
{
  /* Disarm first: the step re-arms the timer for its next deadline if it has one. */
  g_source_set_ready_time (source, -1);
  return callback (user_data);
}

static GSourceFuncs timer_funcs = {
  .dispatch = timer_dispatch,
};

/* Requests */

static void
append_content_text (GString  *out,
                     JsonNode *content)
{
  if (content == NULL)
    return;

  if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    {
      g_string_append (out, json_node_get_string (content));
      g_string_append_c (out, '\n');
    }
  else if (JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonNode *part = json_array_get_element (parts, i);

          if (JSON_NODE_HOLDS_OBJECT (part))
            {
              JsonObject *o = json_node_get_object (part);
              const char *text = json_object_get_string_member_with_default (o, "text", NULL);

              if (text != NULL)
                {
                  g_string_append (out, text);
                  g_string_append_c (out, '\n');
                }
            }
        }
    }
}

/* The prompt as one text, to estimate its tokens and find its prefix. */
static char *
dup_prompt (JsonObject *request)
{
  GString *prompt = g_string_new (NULL);
  JsonNode *messages;

  if (json_object_has_member (request, "system"))
    append_content_text (prompt, json_object_get_member (request, "system"));

  messages = json_object_get_member (request, "messages");
  if (messages != NULL && JSON_NODE_HOLDS_ARRAY (messages))
    {
      JsonArray *array = json_node_get_array (messages);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *m = json_array_get_element (array, i);

          if (JSON_NODE_HOLDS_OBJECT (m))
            append_content_text (prompt,
                                 json_object_get_member (json_node_get_object (m), "content"));
        }
    }

  return g_string_free (prompt, FALSE);
}

static gint64
get_int_member (JsonObject *o,
                const char *name,
                gint64      fallback)
{
  JsonNode *node = json_object_get_member (o, name);

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      (json_node_get_value_type (node) == G_TYPE_INT64 ||
       json_node_get_value_type (node) == G_TYPE_DOUBLE))
    return json_node_get_int (node);

  return fallback;
}

static gboolean
get_bool_member (JsonObject *o,
                 const char *name)
{
  JsonNode *node = json_object_get_member (o, name);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_BOOLEAN && json_node_get_boolean (node);
}

static RelaySimFault
roll_fault (RelaySimServer        *self,
            const RelaySimProfile *profile,
            GRand                 *rand)
{
  RelaySimFault fault = profile->fault;
  g_auto(GStrv) cycle = NULL;
  guint n;

  if (profile->fault_probability <= 0 ||
      (fault == RELAY_SIM_FAULT_NONE && profile->fault_cycle == NULL))
    return RELAY_SIM_FAULT_NONE;

  if (profile->fault_probability < 1 && g_rand_double (rand) >= profile->fault_probability)
    return RELAY_SIM_FAULT_NONE;

  if (profile->fault_cycle == NULL)
    return fault;

  cycle = g_strsplit (profile->fault_cycle, "|", -1);
  n = g_strv_length (cycle);
  if (n == 0)
    return fault;

  if (!relay_sim_fault_from_string (g_strstrip (cycle[self->cycle_index++ % n]), &fault))
    return profile->fault;

  return fault;
}

/* Looks key up in "name:number|name:number"; FALSE when it is not there. */
static gboolean
lookup_number (const char *map,
               const char *key,
               double     *value)
{
  g_auto(GStrv) parts = NULL;

  if (map == NULL || key == NULL)
    return FALSE;

  parts = g_strsplit (map, "|", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *colon = strrchr (parts[i], ':');

      if (colon == NULL)
        continue;
      *colon = '\0';
      if (strcmp (g_strstrip (parts[i]), key) == 0)
        {
          *value = g_ascii_strtod (colon + 1, NULL);
          return TRUE;
        }
    }

  return FALSE;
}

/* The reasoning effort a request asks for: OpenAI names it, Anthropic gives a thinking budget
 * (up to 2048 tokens reads as low, from 8192 as high). NULL when it asks for none. */
static const char *
request_effort (JsonObject *request)
{
  const char *effort = json_object_get_string_member_with_default (request, "reasoning_effort", NULL);
  JsonNode *thinking = json_object_get_member (request, "thinking");

  if (effort != NULL)
    return effort;

  if (thinking != NULL && JSON_NODE_HOLDS_OBJECT (thinking))
    {
      gint64 budget = get_int_member (json_node_get_object (thinking), "budget_tokens", -1);

      if (budget < 0)
        return NULL;
      if (budget <= 2048)
        return "low";
      if (budget >= 8192)
        return "high";
      return "medium";
    }

  return NULL;
}

static gboolean
prefix_seen (RelaySimServer *self,
             const char     *prompt)
{
  gsize len = strlen (prompt);
  g_autofree char *sum = NULL;

  if (len == 0)
    return FALSE;

  sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, prompt, MIN (len, PREFIX_CHARS));
  if (g_hash_table_contains (self->prefixes, sum))
    return TRUE;

  /* A small cache, as a provider's is: forget everything when full. */
  if (g_hash_table_size (self->prefixes) >= MAX_PREFIXES)
    g_hash_table_remove_all (self->prefixes);
  g_hash_table_add (self->prefixes, g_steal_pointer (&sum));

  return FALSE;
}

static void
handle_chat (RelaySimServer    *self,
             SoupServerMessage *msg,
             Dialect            dialect,
             gint64             t_request)
{
  SoupMessageHeaders *req_headers = soup_server_message_get_request_headers (msg);
  g_autoptr(GBytes) body_bytes = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GRand) own_rand = NULL;
  g_autofree char *prompt = NULL;
  RelaySimProfile profile;
  const char *overrides;
  const char *model;
  JsonObject *request;
  JsonNode *options;
  GRand *rand;
  Stream *st;
  gint64 max_tokens;
  double prefill_tokens;
  double by_key;
  gint64 t;
  gsize prompt_len;

  relay_sim_profile_copy (&self->profile, &profile);

  overrides = soup_message_headers_get_one (req_headers, "X-Relayscope-Sim");
  if (overrides != NULL && !relay_sim_profile_apply_overrides (&profile, overrides, &error))
    {
      g_autofree char *message = g_strdup_printf ("X-Relayscope-Sim: %s", error->message);

      respond_error (self, msg, dialect, 400, message, NULL);
      relay_sim_profile_clear (&profile);
      return;
    }

  body_bytes = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  if (!json_parser_load_from_data (parser, g_bytes_get_data (body_bytes, NULL),
                                   g_bytes_get_size (body_bytes), &error) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_autofree char *message = g_strdup_printf ("The request body is not a JSON object%s%s",
                                                  error ? ": " : "",
                                                  error ? error->message : "");

      respond_error (self, msg, dialect, 400, message, NULL);
      relay_sim_profile_clear (&profile);
      return;
    }

  request = json_node_get_object (json_parser_get_root (parser));
  if (!json_object_has_member (request, "messages") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (request, "messages")))
    {
      respond_error (self, msg, dialect, 400, "'messages' is a required property", NULL);
      relay_sim_profile_clear (&profile);
      return;
    }

  /* A per-request seed makes that request reproducible on its own. */
  if (profile.seed != 0 && profile.seed != self->profile.seed)
    rand = own_rand = g_rand_new_with_seed (profile.seed);
  else
    rand = self->rand;

  st = g_new0 (Stream, 1);
  st->server = self;
  st->msg = g_object_ref (msg);
  st->profile = profile;
  st->dialect = dialect;
  st->stream = get_bool_member (request, "stream");
  st->created = g_get_real_time () / G_USEC_PER_SEC;
  st->t_request = t_request;
  st->block_index = -1;
  st->id = g_strdup_printf ("%s%" G_GUINT64_FORMAT "%08x",
                            dialect == DIALECT_OPENAI ? "chatcmpl-sim" : "msg_sim",
                            ++self->seq, g_rand_int (rand));

  options = json_object_get_member (request, "stream_options");
  if (options != NULL && JSON_NODE_HOLDS_OBJECT (options))
    st->include_usage = get_bool_member (json_node_get_object (options), "include_usage");

  model = json_object_get_string_member_with_default (request, "model", NULL);
  st->model_json = json_quote (profile.model ? profile.model : model ? model : "sim-model");

  /* Prompt: ~4 characters a token; a prefix seen before is a cache hit that saves
   * cache_discount of the prefill and is reported as cached tokens. */
  prompt = dup_prompt (request);
  prompt_len = strlen (prompt);
  st->prompt_tokens = MAX (1, (guint) ((prompt_len + 3) / 4));
  if (prefix_seen (self, prompt))
    st->cached_tokens = (guint) (st->prompt_tokens * profile.cache_discount);
  prefill_tokens = st->prompt_tokens - st->cached_tokens;

  /* Per model and per effort, so that one relay can stand for a flagship and a small
   * variant, or for a model thinking longer at a higher effort. */
  if (lookup_number (profile.model_ttft_ms, model, &by_key))
    profile.ttft_ms = st->profile.ttft_ms = by_key;
  if (lookup_number (profile.effort_reasoning_tokens, request_effort (request), &by_key))
    profile.reasoning_tokens = st->profile.reasoning_tokens = (guint) by_key;

  /* Tokens: reasoning first, then content capped by the request's max_tokens. */
  max_tokens = get_int_member (request, "max_completion_tokens",
                               get_int_member (request, "max_tokens", -1));
  st->n_reasoning = MIN (profile.reasoning_tokens, MAX_TOTAL_TOKENS / 2);
  st->n_content = MIN (profile.tokens, MAX_TOTAL_TOKENS / 2);
  if (max_tokens >= 0 && (guint64) max_tokens < st->n_content)
    {
      st->n_content = (guint) max_tokens;
      st->truncated = TRUE;
    }
  st->n_total = st->n_reasoning + st->n_content;

  /* The schedule, as absolute deadlines from the request's arrival. A queue makes every
   * request already in flight delay this one; a relay's own overhead is not in the upstream's
   * processing time it reports. */
  st->overhead_us = (gint64) (profile.relay_overhead_ms * 1000);
  st->t_headers = t_request + (gint64) (profile.headers_delay_ms * 1000 +
                                        profile.prefill_us_per_token * prefill_tokens +
                                        profile.queue_ms_per_active * 1000 *
                                        g_atomic_int_get (&self->n_active)) + st->overhead_us;
  t = st->t_headers + (gint64) (profile.ttft_ms * 1000);
  st->token_times = g_new (gint64, MAX (st->n_total, 1));
  for (guint i = 0; i < st->n_total; i++)
    {
      if (i > 0)
        {
          double gap = profile.itl_ms;

          if (profile.itl_jitter_ms > 0)
            gap += g_rand_double_range (rand, -profile.itl_jitter_ms, profile.itl_jitter_ms);
          if (profile.stall_probability > 0 && g_rand_double (rand) < profile.stall_probability)
            gap += profile.stall_ms;
          t += (gint64) (MAX (gap, 0) * 1000);
        }
      st->token_times[i] = t;
    }
  st->t_tail = st->n_total > 0 ? t + (gint64) (profile.itl_ms * 1000) : t;

  st->fault = roll_fault (self, &profile, rand);
  st->fault_pending = st->fault != RELAY_SIM_FAULT_NONE && !is_http_fault (st->fault);
  st->fault_at = MIN (profile.fault_after, st->n_total);

  st->phase = PHASE_HEADERS;
  st->timer = g_source_new (&timer_funcs, sizeof (GSource));
  g_source_set_name (st->timer, "[relayscope-sim] stream");
  g_source_set_priority (st->timer, G_PRIORITY_HIGH);
  g_source_set_callback (st->timer, stream_step_cb, st, NULL);
  g_source_set_ready_time (st->timer, st->t_headers);
  g_source_attach (st->timer, self->context);

  st->wrote_data_id = g_signal_connect (msg, "wrote-body-data",
                                        G_CALLBACK (wrote_body_data_cb), st);

  g_hash_table_insert (self->streams, msg, st);
  g_atomic_int_inc (&self->n_active);

  soup_server_message_pause (msg);
}

static void
handle_models (RelaySimServer    *self,
               SoupServerMessage *msg)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();
  g_autofree char *body = NULL;
  gsize length;

  if (self->profile.model != NULL)
    g_ptr_array_add (ids, self->profile.model);
  g_ptr_array_add (ids, (char *) "sim-fast-1");
  g_ptr_array_add (ids, (char *) "sim-large-1");
  g_ptr_array_add (ids, (char *) "sim-reasoning-1");

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "object");
  json_builder_add_string_value (b, "list");
  json_builder_set_member_name (b, "data");
  json_builder_begin_array (b);
  for (guint i = 0; i < ids->len; i++)
    {
      if (i > 0 && g_strcmp0 (ids->pdata[i], ids->pdata[0]) == 0)
        continue;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_string_value (b, ids->pdata[i]);
      json_builder_set_member_name (b, "object");
      json_builder_add_string_value (b, "model");
      json_builder_set_member_name (b, "created");
      json_builder_add_int_value (b, 1767225600);
      json_builder_set_member_name (b, "owned_by");
      json_builder_add_string_value (b, "relayscope-sim");
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  body = builder_to_string (b);
  length = strlen (body);
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE,
                                    g_steal_pointer (&body), length);
}

static gboolean
has_key (SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *auth = soup_message_headers_get_one (headers, "Authorization");
  const char *key = soup_message_headers_get_one (headers, "x-api-key");

  if (key != NULL && *key != '\0')
    return TRUE;

  if (auth != NULL && g_ascii_strncasecmp (auth, "Bearer ", 7) == 0)
    {
      auth += 7;
      while (*auth == ' ')
        auth++;
      return *auth != '\0';
    }

  return FALSE;
}

static void
server_callback (SoupServer        *soup,
                 SoupServerMessage *msg,
                 const char        *path,
                 GHashTable        *query,
                 gpointer           user_data)
{
  RelaySimServer *self = user_data;
  gint64 t_request = g_get_monotonic_time ();
  const char *method = soup_server_message_get_method (msg);
  Dialect dialect;
  const char *expected_method;

  g_atomic_int_inc (&self->n_requests);
  set_common_headers (self, msg, t_request);

  if (g_strcmp0 (path, "/v1/chat/completions") == 0)
    {
      dialect = DIALECT_OPENAI;
      expected_method = SOUP_METHOD_POST;
    }
  else if (g_strcmp0 (path, "/v1/messages") == 0)
    {
      dialect = DIALECT_ANTHROPIC;
      expected_method = SOUP_METHOD_POST;
    }
  else if (g_strcmp0 (path, "/v1/models") == 0)
    {
      dialect = DIALECT_OPENAI;
      expected_method = SOUP_METHOD_GET;
    }
  else
    {
      g_autofree char *message = g_strdup_printf ("Unknown request URL: %s %s", method, path);

      respond_error (self, msg, DIALECT_OPENAI, 404, message, "unknown_url");
      return;
    }

  if (method != expected_method)
    {
      g_autofree char *message = g_strdup_printf ("Method %s is not allowed on %s",
                                                  method, path);

      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "allow", expected_method);
      respond_error (self, msg, dialect, 405, message, NULL);
      return;
    }

  if (!has_key (msg))
    {
      respond_error (self, msg, dialect, 401,
                     dialect == DIALECT_ANTHROPIC
                       ? "x-api-key header is required"
                       : "You didn't provide an API key. You need to provide your API key in "
                         "an Authorization header using Bearer auth",
                     "missing_api_key");
      return;
    }

  if (expected_method == SOUP_METHOD_GET)
    handle_models (self, msg);
  else
    handle_chat (self, msg, dialect, t_request);
}

/* The server thread */

/* Looked up in our own GResource rather than the global table: in a static library the
 * linker may leave the resource's constructor out unless something refers to it. */
static GBytes *
lookup_resource (const char  *name,
                 GError     **error)
{
  g_autofree char *path = g_strconcat (RESOURCE_PATH, name, NULL);

  return g_resource_lookup_data (relay_sim_get_resource (), path, 0, error);
}

GBytes *
relay_sim_server_get_certificate_pem (void)
{
  return lookup_resource ("cert.pem", NULL);
}

static GTlsCertificate *
load_certificate (GError **error)
{
  g_autoptr(GBytes) cert = NULL;
  g_autoptr(GBytes) key = NULL;
  g_autoptr(GString) pem = g_string_new (NULL);

  if (!(cert = lookup_resource ("cert.pem", error)) ||
      !(key = lookup_resource ("key.pem", error)))
    return NULL;

  g_string_append_len (pem, g_bytes_get_data (cert, NULL), g_bytes_get_size (cert));
  g_string_append_c (pem, '\n');
  g_string_append_len (pem, g_bytes_get_data (key, NULL), g_bytes_get_size (key));

  return g_tls_certificate_new_from_pem (pem->str, pem->len, error);
}

static guint
listener_port (SoupServer *soup)
{
  GSList *listeners = soup_server_get_listeners (soup);
  guint port = 0;

  for (const GSList *l = listeners; l != NULL && port == 0; l = l->next)
    {
      g_autoptr(GSocketAddress) address = g_socket_get_local_address (l->data, NULL);

      if (G_IS_INET_SOCKET_ADDRESS (address))
        port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (address));
    }
  g_slist_free (listeners);

  return port;
}

static gboolean
listen_on (SoupServer   *soup,
           const char   *host,
           guint         port,
           gboolean      tls,
           GError      **error)
{
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocket) socket = NULL;

  if (!(address = g_inet_socket_address_new_from_string (host, port)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "“%s” is not an IP address", host);
      return FALSE;
    }

  /* Hundreds of probes connect at once in capacity runs: GLib's default backlog of 10
   * would drop their handshakes and make the relay, not the client, the bottleneck. */
  socket = g_socket_new (g_socket_address_get_family (address), G_SOCKET_TYPE_STREAM,
                         G_SOCKET_PROTOCOL_TCP, error);
  if (socket == NULL)
    return FALSE;
  g_socket_set_listen_backlog (socket, 1024);
  if (!g_socket_bind (socket, address, TRUE, error) || !g_socket_listen (socket, error))
    return FALSE;

  return soup_server_listen_socket (soup, socket, tls ? SOUP_SERVER_LISTEN_HTTPS : 0, error);
}

static gboolean
setup_server (RelaySimServer  *self,
              GError         **error)
{
  g_autoptr(GTlsCertificate) certificate = NULL;
  g_autoptr(GError) v6_error = NULL;

  if (self->tls && !(certificate = load_certificate (error)))
    return FALSE;

  self->soup = g_object_new (SOUP_TYPE_SERVER,
                             "server-header", "relayscope-sim/" PACKAGE_VERSION " ",
                             "tls-certificate", certificate,
                             NULL);
  soup_server_add_handler (self->soup, NULL, server_callback, self, NULL);
  g_signal_connect (self->soup, "request-finished", G_CALLBACK (request_done_cb), self);
  g_signal_connect (self->soup, "request-aborted", G_CALLBACK (request_done_cb), self);

  if (!listen_on (self->soup, self->address ? self->address : "127.0.0.1",
                  self->port, self->tls, error))
    return FALSE;

  self->port = listener_port (self->soup);

  /* "localhost" resolves to ::1 first: answering there too saves clients a refused try. */
  if (self->address == NULL && !listen_on (self->soup, "::1", self->port, self->tls, &v6_error))
    g_debug ("Not listening on [::1]:%u: %s", self->port, v6_error->message);

  return TRUE;
}

static void
abort_stream_cb (gpointer key,
                 gpointer value,
                 gpointer data)
{
  Stream *st = value;

  if (st->timer)
    g_source_set_ready_time (st->timer, -1);
  st->phase = PHASE_DONE;
}

static gpointer
server_thread (gpointer data)
{
  RelaySimServer *self = data;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  g_main_context_push_thread_default (self->context);

  ok = setup_server (self, &error);

  g_mutex_lock (&self->lock);
  self->ready = TRUE;
  if (!ok)
    self->start_error = g_steal_pointer (&error);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);

  if (ok)
    g_main_loop_run (self->loop);

  /* Stop every timer first so nothing writes into connections being torn down. */
  g_hash_table_foreach (self->streams, abort_stream_cb, NULL);
  if (self->soup != NULL)
    soup_server_disconnect (self->soup);

  /* Let libsoup report the aborted requests, then free what is left. */
  while (g_main_context_iteration (self->context, FALSE))
    ;
  while (g_hash_table_size (self->streams) > 0)
    {
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, self->streams);
      if (g_hash_table_iter_next (&iter, NULL, &value))
        stream_finish (value);
    }
  g_clear_object (&self->soup);
  while (g_main_context_iteration (self->context, FALSE))
    ;

  g_main_context_pop_thread_default (self->context);

  return NULL;
}

/* GObject */

static void
relay_sim_server_finalize (GObject *object)
{
  RelaySimServer *self = (RelaySimServer *) object;

  relay_sim_server_stop (self);

  relay_sim_profile_clear (&self->profile);
  g_clear_pointer (&self->rand, g_rand_free);
  g_clear_pointer (&self->prefixes, g_hash_table_unref);
  g_clear_pointer (&self->streams, g_hash_table_unref);
  g_clear_pointer (&self->loop, g_main_loop_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_error (&self->start_error);
  g_clear_pointer (&self->address, g_free);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (relay_sim_server_parent_class)->finalize (object);
}

static void
relay_sim_server_class_init (RelaySimServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = relay_sim_server_finalize;
}

static void
relay_sim_server_init (RelaySimServer *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->prefixes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->streams = g_hash_table_new (NULL, NULL);
}

RelaySimServer *
relay_sim_server_new (const RelaySimProfile *profile)
{
  RelaySimServer *self = g_object_new (RELAY_TYPE_SIM_SERVER, NULL);

  if (profile != NULL)
    relay_sim_profile_copy (profile, &self->profile);
  else
    relay_sim_profile_init_named (&self->profile, "fast");

  if (self->profile.coalesce == 0)
    self->profile.coalesce = 1;

  self->rand = self->profile.seed != 0 ? g_rand_new_with_seed (self->profile.seed)
                                       : g_rand_new ();

  return self;
}

gboolean
relay_sim_server_start_on (RelaySimServer  *self,
                           const char      *address,
                           guint            port,
                           gboolean         tls,
                           GError         **error)
{
  g_return_val_if_fail (RELAY_IS_SIM_SERVER (self), FALSE);
  g_return_val_if_fail (port <= G_MAXUINT16, FALSE);

  if (self->thread != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                           "The simulated relay is already running");
      return FALSE;
    }

  g_free (self->address);
  self->address = g_strdup (address);
  self->port = port;
  self->tls = tls;
  self->ready = FALSE;
  g_clear_error (&self->start_error);

  self->context = self->context ? self->context : g_main_context_new ();
  self->loop = self->loop ? self->loop : g_main_loop_new (self->context, FALSE);

  self->thread = g_thread_new ("relayscope-sim", server_thread, self);

  g_mutex_lock (&self->lock);
  while (!self->ready)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);

  if (self->start_error != NULL)
    {
      g_thread_join (g_steal_pointer (&self->thread));
      g_propagate_error (error, g_steal_pointer (&self->start_error));
      return FALSE;
    }

  return TRUE;
}

gboolean
relay_sim_server_start (RelaySimServer  *self,
                        guint            port,
                        gboolean         tls,
                        GError         **error)
{
  return relay_sim_server_start_on (self, NULL, port, tls, error);
}

void
relay_sim_server_stop (RelaySimServer *self)
{
  g_return_if_fail (RELAY_IS_SIM_SERVER (self));

  if (self->thread == NULL)
    return;

  g_main_loop_quit (self->loop);
  g_thread_join (g_steal_pointer (&self->thread));
}

guint
relay_sim_server_get_port (RelaySimServer *self)
{
  g_return_val_if_fail (RELAY_IS_SIM_SERVER (self), 0);

  return self->port;
}

char *
relay_sim_server_dup_root_url (RelaySimServer *self,
                               const char     *host)
{
  const char *h;

  g_return_val_if_fail (RELAY_IS_SIM_SERVER (self), NULL);

  h = host ? host : self->address ? self->address : "127.0.0.1";
  if (strchr (h, ':') != NULL)
    return g_strdup_printf ("%s://[%s]:%u", self->tls ? "https" : "http", h, self->port);

  return g_strdup_printf ("%s://%s:%u", self->tls ? "https" : "http", h, self->port);
}

guint
relay_sim_server_get_n_requests (RelaySimServer *self)
{
  g_return_val_if_fail (RELAY_IS_SIM_SERVER (self), 0);

  return (guint) g_atomic_int_get (&self->n_requests);
}

guint
relay_sim_server_get_n_active (RelaySimServer *self)
{
  g_return_val_if_fail (RELAY_IS_SIM_SERVER (self), 0);

  return (guint) g_atomic_int_get (&self->n_active);
}
