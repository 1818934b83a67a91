/* test-dialect.c: request bodies, headers, recorded streams read through the SSE parser and
 * the dialects, and HTTP error bodies.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "relay-dialect.h"
#include "relay-sse-parser.h"

/* What a whole stream said, gathered the way the prober gathers it. */
typedef struct
{
  RelayApi    api;
  GString    *kinds;        /* one letter per text event: C, R or T */
  GString    *content;
  GString    *reasoning;
  GString    *tool;
  guint       chars[3];
  guint       n_events;
  guint       n_parse_errors;
  RelayUsage  usage;
  guint       n_usage;
  char       *model;
  char       *finish_reason;
  char       *error_type;
  char       *error_message;
  gboolean    done;
  gint64      first_sent_us;
  guint       n_sent_us;
} StreamResult;

static void
stream_result_free (StreamResult *r)
{
  g_string_free (r->kinds, TRUE);
  g_string_free (r->content, TRUE);
  g_string_free (r->reasoning, TRUE);
  g_string_free (r->tool, TRUE);
  g_free (r->model);
  g_free (r->finish_reason);
  g_free (r->error_type);
  g_free (r->error_message);
  g_free (r);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StreamResult, stream_result_free)

static void
set_str (char       **into,
         const char  *value)
{
  g_free (*into);
  *into = g_strdup (value);
}

static void
merge_count (gint64 *into,
             gint64  value)
{
  if (value >= 0)
    *into = value;
}

static gboolean
on_event (const char *event_type,
          const char *data,
          gsize       data_len,
          const char *last_event_id,
          gpointer    user_data)
{
  StreamResult *r = user_data;
  RelayDialectEvent event = { 0 };
  g_autoptr(GError) error = NULL;

  r->n_events++;

  if (!relay_dialect_parse_event (r->api, event_type, data, data_len, &event, &error))
    {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_null (event.priv_parser);
      r->n_parse_errors++;
      return TRUE;
    }
  g_assert_no_error (error);

  if (event.has_text)
    {
      static const char letters[] = "CRT";
      GString *texts[] = { r->content, r->reasoning, r->tool };

      g_assert_nonnull (event.text);
      g_assert_cmpuint (event.text_len, >, 0);
      g_assert_cmpuint (strlen (event.text), ==, event.text_len);
      g_assert_cmpuint (event.chars, >, 0);
      g_assert_cmpuint (event.chars, <=, event.text_len);
      g_assert_cmpint (event.kind, <=, RELAY_CHUNK_TOOL);
      g_string_append_c (r->kinds, letters[event.kind]);
      g_string_append_len (texts[event.kind], event.text, event.text_len);
      r->chars[event.kind] += event.chars;
    }

  if (event.has_usage)
    {
      r->n_usage++;
      merge_count (&r->usage.prompt_tokens, event.usage.prompt_tokens);
      merge_count (&r->usage.cached_prompt_tokens, event.usage.cached_prompt_tokens);
      merge_count (&r->usage.completion_tokens, event.usage.completion_tokens);
      merge_count (&r->usage.reasoning_tokens, event.usage.reasoning_tokens);
      g_assert_false (event.usage.estimated);
    }

  if (event.model != NULL && r->model == NULL)
    r->model = g_strdup (event.model);
  if (event.finish_reason != NULL)
    set_str (&r->finish_reason, event.finish_reason);
  if (event.is_error)
    {
      g_assert_nonnull (event.error_message);
      set_str (&r->error_type, event.error_type);
      set_str (&r->error_message, event.error_message);
    }
  if (event.done)
    {
      /* Nothing may follow the end of the stream. */
      g_assert_false (r->done);
      r->done = TRUE;
    }
  if (event.sent_us >= 0)
    {
      if (r->n_sent_us == 0)
        r->first_sent_us = event.sent_us;
      r->n_sent_us++;
    }

  relay_dialect_event_clear (&event);
  g_assert_null (event.priv_parser);

  return TRUE;
}

static StreamResult *
run_stream (RelayApi    api,
            const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "streams", name, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(RelaySseParser) parser = NULL;
  StreamResult *r;
  RelayUsage none = RELAY_USAGE_INIT;
  gsize len;

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);

  r = g_new0 (StreamResult, 1);
  r->api = api;
  r->kinds = g_string_new (NULL);
  r->content = g_string_new (NULL);
  r->reasoning = g_string_new (NULL);
  r->tool = g_string_new (NULL);
  r->usage = none;
  r->first_sent_us = -1;

  parser = relay_sse_parser_new (0, on_event, r);
  /* Odd-sized reads, as a socket would deliver them. */
  for (gsize off = 0; off < len; off += 97)
    {
      g_assert_true (relay_sse_parser_feed (parser, contents + off, MIN (97, len - off), &error));
      g_assert_no_error (error);
    }
  g_assert_false (relay_sse_parser_finish (parser));

  return r;
}

static void
test_openai_basic (void)
{
  g_autoptr(StreamResult) r = run_stream (RELAY_API_OPENAI_CHAT, "openai-basic.sse");

  /* role-only and empty deltas are not text; the finish and usage chunks neither. */
  g_assert_cmpuint (r->n_events, ==, 9);
  g_assert_cmpuint (r->n_parse_errors, ==, 0);
  g_assert_cmpstr (r->kinds->str, ==, "CCCC");
  g_assert_cmpstr (r->content->str, ==, "Hello, wörld! 👋 café");
  g_assert_cmpuint (r->chars[RELAY_CHUNK_CONTENT], ==, 20);
  g_assert_cmpuint (r->content->len, ==, 25);
  g_assert_cmpstr (r->reasoning->str, ==, "");
  g_assert_cmpstr (r->model, ==, "gpt-4o-mini-2024-07-18");
  g_assert_cmpstr (r->finish_reason, ==, "stop");
  g_assert_true (r->done);
  g_assert_null (r->error_message);

  /* "usage": null on every chunk but the last must not count as usage. */
  g_assert_cmpuint (r->n_usage, ==, 1);
  g_assert_cmpint (r->usage.prompt_tokens, ==, 1200);
  g_assert_cmpint (r->usage.cached_prompt_tokens, ==, 1024);
  g_assert_cmpint (r->usage.completion_tokens, ==, 57);
  g_assert_cmpint (r->usage.reasoning_tokens, ==, 32);

  g_assert_cmpuint (r->n_sent_us, ==, 2);
  g_assert_cmpint (r->first_sent_us, ==, 1500);
}

static void
test_openai_reasoning (void)
{
  g_autoptr(StreamResult) r = run_stream (RELAY_API_OPENAI_CHAT, "openai-reasoning.sse");

  g_assert_cmpstr (r->kinds->str, ==, "RRRCC");
  g_assert_cmpstr (r->reasoning->str, ==, "The user greets me; reply briefly.");
  g_assert_cmpstr (r->content->str, ==, "Hi there!");
  g_assert_cmpuint (r->chars[RELAY_CHUNK_REASONING], ==, 34);
  g_assert_cmpuint (r->chars[RELAY_CHUNK_CONTENT], ==, 9);
  g_assert_cmpstr (r->model, ==, "deep-reasoner-1");
  g_assert_cmpstr (r->finish_reason, ==, "stop");
  g_assert_true (r->done);
  g_assert_cmpuint (r->n_usage, ==, 1);
  g_assert_cmpint (r->usage.prompt_tokens, ==, 14);
  g_assert_cmpint (r->usage.cached_prompt_tokens, ==, -1);
  g_assert_cmpint (r->usage.completion_tokens, ==, 19);
  g_assert_cmpint (r->usage.reasoning_tokens, ==, 16);
  g_assert_cmpuint (r->n_sent_us, ==, 0);
}

static void
test_openai_reasoning_field (void)
{
  g_autoptr(StreamResult) r = run_stream (RELAY_API_OPENAI_CHAT, "openai-reasoning-field.sse");

  g_assert_cmpuint (r->n_events, ==, 6);
  g_assert_cmpstr (r->kinds->str, ==, "RRC");
  g_assert_cmpstr (r->reasoning->str, ==, "Two plus two is four.");
  g_assert_cmpstr (r->content->str, ==, "4");
  g_assert_cmpstr (r->model, ==, "example/thinker-mini");
  g_assert_true (r->done);
  g_assert_cmpint (r->usage.prompt_tokens, ==, 11);
  g_assert_cmpint (r->usage.cached_prompt_tokens, ==, 0);
  g_assert_cmpint (r->usage.completion_tokens, ==, 9);
  g_assert_cmpint (r->usage.reasoning_tokens, ==, 8);
}

static void
test_openai_tool (void)
{
  g_autoptr(StreamResult) r = run_stream (RELAY_API_OPENAI_CHAT, "openai-tool.sse");

  g_assert_cmpstr (r->kinds->str, ==, "TTT");
  g_assert_cmpstr (r->tool->str, ==, "{\"city\": \"Paris\"}");
  g_assert_cmpuint (r->chars[RELAY_CHUNK_TOOL], ==, 17);
  g_assert_cmpstr (r->content->str, ==, "");
  g_assert_cmpstr (r->finish_reason, ==, "tool_calls");
  g_assert_true (r->done);
  g_assert_cmpint (r->usage.completion_tokens, ==, 17);
}

static void
test_openai_error (void)
{
  g_autoptr(StreamResult) r = run_stream (RELAY_API_OPENAI_CHAT, "openai-error.sse");

  g_assert_cmpstr (r->kinds->str, ==, "C");
  g_assert_cmpstr (r->content->str, ==, "Once");
  g_assert_false (r->done);
  g_assert_cmpstr (r->error_type, ==, "server_error");
  g_assert_cmpstr (r->error_message, ==,
                   "The server had an error while processing your request. Sorry about that!");
  g_assert_cmpuint (r->n_usage, ==, 0);
  g_assert_cmpint (r->usage.completion_tokens, ==, -1);
}

static void
test_anthropic_basic (void)
{
  g_autoptr(StreamResult) r = run_stream (RELAY_API_ANTHROPIC_MESSAGES, "anthropic-basic.sse");

  g_assert_cmpuint (r->n_events, ==, 9);
  g_assert_cmpuint (r->n_parse_errors, ==, 0);
  g_assert_cmpstr (r->kinds->str, ==, "CCC");
  g_assert_cmpstr (r->content->str, ==, "Bonjour à tous.");
  g_assert_cmpuint (r->chars[RELAY_CHUNK_CONTENT], ==, 15);
  g_assert_cmpstr (r->model, ==, "claude-sonnet-4-5");
  g_assert_cmpstr (r->finish_reason, ==, "end_turn");
  g_assert_true (r->done);
  g_assert_null (r->error_message);

  /* message_start and message_delta both report usage; the later output count wins.
   * Prompt tokens include the cache read, so that cached ≤ prompt as for OpenAI. */
  g_assert_cmpuint (r->n_usage, ==, 2);
  g_assert_cmpint (r->usage.prompt_tokens, ==, 25 + 2048);
  g_assert_cmpint (r->usage.cached_prompt_tokens, ==, 2048);
  g_assert_cmpint (r->usage.completion_tokens, ==, 12);
  g_assert_cmpint (r->usage.reasoning_tokens, ==, -1);

  g_assert_cmpuint (r->n_sent_us, ==, 1);
  g_assert_cmpint (r->first_sent_us, ==, 42000);
}

static void
test_anthropic_thinking (void)
{
  g_autoptr(StreamResult) r = run_stream (RELAY_API_ANTHROPIC_MESSAGES,
                                          "anthropic-thinking.sse");

  /* The signature delta carries no generated text. */
  g_assert_cmpstr (r->kinds->str, ==, "RRCC");
  g_assert_cmpstr (r->reasoning->str, ==, "Let me think: 3 × 7 = 21.");
  g_assert_cmpstr (r->content->str, ==, "3 × 7 = 21");
  g_assert_cmpuint (r->chars[RELAY_CHUNK_REASONING], ==, 25);
  g_assert_cmpuint (r->chars[RELAY_CHUNK_CONTENT], ==, 10);
  g_assert_cmpstr (r->model, ==, "claude-opus-4-1");
  g_assert_true (r->done);
  g_assert_cmpint (r->usage.prompt_tokens, ==, 140);
  g_assert_cmpint (r->usage.cached_prompt_tokens, ==, 0);
  g_assert_cmpint (r->usage.completion_tokens, ==, 48);
}

static void
test_anthropic_error (void)
{
  g_autoptr(StreamResult) r = run_stream (RELAY_API_ANTHROPIC_MESSAGES, "anthropic-error.sse");

  g_assert_cmpstr (r->kinds->str, ==, "C");
  g_assert_cmpstr (r->content->str, ==, "Hel");
  g_assert_false (r->done);
  g_assert_cmpstr (r->error_type, ==, "overloaded_error");
  g_assert_cmpstr (r->error_message, ==, "Overloaded");
  g_assert_cmpstr (r->model, ==, "claude-haiku-4-5");
  g_assert_cmpint (r->usage.prompt_tokens, ==, 9);
}

static void
test_anthropic_type_from_json (void)
{
  static const char delta[] =
    "{\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}";
  static const char stop[] = "{\"type\":\"message_stop\"}";
  RelayDialectEvent event = { 0 };

  /* A stream without "event:" lines reaches the dialect as "message". */
  g_assert_true (relay_dialect_parse_event (RELAY_API_ANTHROPIC_MESSAGES, "message", delta,
                                            strlen (delta), &event, NULL));
  g_assert_true (event.has_text);
  g_assert_cmpstr (event.text, ==, "x");

  g_assert_true (relay_dialect_parse_event (RELAY_API_ANTHROPIC_MESSAGES, NULL, stop,
                                            strlen (stop), &event, NULL));
  g_assert_false (event.has_text);
  g_assert_true (event.done);

  /* The SSE event name wins over the JSON type. */
  g_assert_true (relay_dialect_parse_event (RELAY_API_ANTHROPIC_MESSAGES, "ping", delta,
                                            strlen (delta), &event, NULL));
  g_assert_false (event.has_text);
  g_assert_cmpint (event.sent_us, ==, -1);

  relay_dialect_event_clear (&event);
}

static void
test_openai_details (void)
{
  static const char two_calls[] =
    "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":["
    "{\"index\":0,\"function\":{\"arguments\":\"{}\"}},"
    "{\"index\":1,\"id\":\"call_2\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}"
    "]}}]}";
  static const char both[] =
    "{\"choices\":[{\"delta\":{\"content\":\"out\",\"reasoning_content\":\"think\"}}]}";
  static const char sent[] = "{\"choices\":[],\"relayscope_sent_us\":123456789012}";
  static const char sent_float[] = "{\"choices\":[],\"relayscope_sent_us\":1.5}";
  RelayDialectEvent event = { 0 };

  g_assert_true (relay_dialect_parse_event (RELAY_API_OPENAI_CHAT, "message", two_calls,
                                            strlen (two_calls), &event, NULL));
  g_assert_true (event.has_text);
  g_assert_cmpint (event.kind, ==, RELAY_CHUNK_TOOL);
  g_assert_cmpstr (event.text, ==, "{}{\"a\"");
  g_assert_cmpuint (event.text_len, ==, 6);

  g_assert_true (relay_dialect_parse_event (RELAY_API_OPENAI_CHAT, "message", both,
                                            strlen (both), &event, NULL));
  g_assert_cmpint (event.kind, ==, RELAY_CHUNK_CONTENT);
  g_assert_cmpstr (event.text, ==, "out");

  g_assert_true (relay_dialect_parse_event (RELAY_API_OPENAI_CHAT, "message", sent,
                                            strlen (sent), &event, NULL));
  g_assert_cmpint (event.sent_us, ==, G_GINT64_CONSTANT (123456789012));
  g_assert_false (event.has_text);
  g_assert_false (event.has_usage);

  g_assert_true (relay_dialect_parse_event (RELAY_API_OPENAI_CHAT, "message", sent_float,
                                            strlen (sent_float), &event, NULL));
  g_assert_cmpint (event.sent_us, ==, -1);

  /* "[DONE]" with stray whitespace, and an empty keep-alive event. */
  g_assert_true (relay_dialect_parse_event (RELAY_API_OPENAI_CHAT, "message", " [DONE]\n", 8,
                                            &event, NULL));
  g_assert_true (event.done);
  g_assert_true (relay_dialect_parse_event (RELAY_API_OPENAI_CHAT, "message", "", 0,
                                            &event, NULL));
  g_assert_false (event.done);
  g_assert_false (event.has_text);
  g_assert_false (event.is_error);

  relay_dialect_event_clear (&event);
}

static void
test_malformed (void)
{
  RelayDialectEvent event = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) long_data = g_string_new ("{\"choices\":[{\"delta\":{\"content\":\"");
  static const char *bad[] = {
    "{\"choices\": [",
    "not json",
    "[1, 2, 3]",
    "\"a string\"",
    "{\"a\":1}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      for (guint api = RELAY_API_OPENAI_CHAT; api <= RELAY_API_ANTHROPIC_MESSAGES; api++)
        {
          g_assert_false (relay_dialect_parse_event (api, "message", bad[i], strlen (bad[i]),
                                                     &event, &error));
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
          g_assert_nonnull (strstr (error->message, bad[i]));
          g_assert_null (event.priv_parser);
          g_assert_false (event.has_text);
          g_clear_error (&error);
        }
    }

  /* A huge broken event is quoted, not copied whole into the message. */
  for (guint i = 0; i < 5000; i++)
    g_string_append (long_data, "é");
  g_assert_false (relay_dialect_parse_event (RELAY_API_OPENAI_CHAT, "message", long_data->str,
                                             long_data->len, &event, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "{\"choices\":[{\"delta\""));
  g_assert_cmpuint (strlen (error->message), <, 400);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_clear_error (&error);

  /* Invalid UTF-8 must not crash, whatever the JSON parser makes of it. */
  {
    static const char invalid[] = "{\"choices\":[{\"delta\":{\"content\":\"a\xFF\xFE\"}}]}";
    static const char surrogate[] = "{\"choices\":[{\"delta\":{\"content\":\"a\\ud800b\"}}]}";

    if (relay_dialect_parse_event (RELAY_API_OPENAI_CHAT, "message", invalid,
                                   strlen (invalid), &event, &error))
      g_assert_cmpuint (event.chars, <=, event.text_len);
    else
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
    g_clear_error (&error);

    if (relay_dialect_parse_event (RELAY_API_OPENAI_CHAT, "message", surrogate,
                                   strlen (surrogate), &event, &error))
      {
        g_assert_true (event.has_text);
        g_assert_cmpuint (event.chars, >=, 2);
        g_assert_cmpuint (event.chars, <=, event.text_len);
      }
    g_clear_error (&error);
  }

  relay_dialect_event_clear (&event);
}

static void
test_paths_and_keys (void)
{
  g_assert_cmpstr (relay_dialect_get_path (RELAY_API_OPENAI_CHAT), ==, "/chat/completions");
  g_assert_cmpstr (relay_dialect_get_path (RELAY_API_ANTHROPIC_MESSAGES), ==, "/v1/messages");
  g_assert_cmpstr (relay_dialect_get_default_key_env (RELAY_API_OPENAI_CHAT), ==,
                   "OPENAI_API_KEY");
  g_assert_cmpstr (relay_dialect_get_default_key_env (RELAY_API_ANTHROPIC_MESSAGES), ==,
                   "ANTHROPIC_API_KEY");
}

static void
add_header (const char *name,
            const char *value,
            gpointer    user_data)
{
  GHashTable *headers = user_data;

  g_assert_false (g_hash_table_contains (headers, name));
  g_hash_table_insert (headers, g_strdup (name), g_strdup (value));
}

static GHashTable *
collect_headers (RelayApi    api,
                 const char *key)
{
  GHashTable *headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  relay_dialect_add_headers (api, key, add_header, headers);

  return headers;
}

static void
test_headers (void)
{
  g_autoptr(GHashTable) openai = collect_headers (RELAY_API_OPENAI_CHAT, "test-key");
  g_autoptr(GHashTable) openai_none = collect_headers (RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(GHashTable) openai_empty = collect_headers (RELAY_API_OPENAI_CHAT, "");
  g_autoptr(GHashTable) anthropic = collect_headers (RELAY_API_ANTHROPIC_MESSAGES, "test-key");
  g_autoptr(GHashTable) anthropic_none = collect_headers (RELAY_API_ANTHROPIC_MESSAGES, "");

  g_assert_cmpuint (g_hash_table_size (openai), ==, 1);
  g_assert_cmpstr (g_hash_table_lookup (openai, "Authorization"), ==, "Bearer test-key");
  g_assert_cmpuint (g_hash_table_size (openai_none), ==, 0);
  g_assert_cmpuint (g_hash_table_size (openai_empty), ==, 0);

  g_assert_cmpuint (g_hash_table_size (anthropic), ==, 2);
  g_assert_cmpstr (g_hash_table_lookup (anthropic, "x-api-key"), ==, "test-key");
  g_assert_cmpstr (g_hash_table_lookup (anthropic, "anthropic-version"), ==, "2023-06-01");
  g_assert_cmpuint (g_hash_table_size (anthropic_none), ==, 1);
  g_assert_cmpstr (g_hash_table_lookup (anthropic_none, "anthropic-version"), ==, "2023-06-01");
}

static JsonObject *
build_body (RelayApi          api,
            RelayRequestSpec *spec,
            JsonParser      **parser_out)
{
  g_autofree char *body = relay_dialect_build_request_body (api, spec);
  g_autoptr(GError) error = NULL;
  JsonParser *parser = json_parser_new ();
  JsonNode *root;

  g_assert_nonnull (body);
  json_parser_load_from_data (parser, body, -1, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  *parser_out = parser;

  return json_node_get_object (root);
}

static void
check_messages (JsonObject *body,
                const char *prompt)
{
  JsonArray *messages = json_object_get_array_member (body, "messages");
  JsonObject *message;

  g_assert_cmpuint (json_array_get_length (messages), ==, 1);
  message = json_array_get_object_element (messages, 0);
  g_assert_cmpstr (json_object_get_string_member (message, "role"), ==, "user");
  g_assert_cmpstr (json_object_get_string_member (message, "content"), ==, prompt);
}

static void
test_request_openai (void)
{
  const char *prompt = "Say \"hi\"\nin 中文, please\\";
  RelayRequestSpec spec = { "gpt-4o-mini", prompt, 64, NULL };
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(JsonParser) parser2 = NULL;
  JsonObject *body;
  JsonObject *options;

  body = build_body (RELAY_API_OPENAI_CHAT, &spec, &parser);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "gpt-4o-mini");
  check_messages (body, prompt);
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 64);
  g_assert_true (json_object_get_boolean_member (body, "stream"));
  options = json_object_get_object_member (body, "stream_options");
  g_assert_nonnull (options);
  g_assert_true (json_object_get_boolean_member (options, "include_usage"));
  g_assert_false (json_object_has_member (body, "reasoning_effort"));
  g_assert_false (json_object_has_member (body, "thinking"));

  spec.reasoning_effort = "high";
  body = build_body (RELAY_API_OPENAI_CHAT, &spec, &parser2);
  g_assert_cmpstr (json_object_get_string_member (body, "reasoning_effort"), ==, "high");
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 64);
}

static void
test_request_anthropic (void)
{
  static const struct {
    const char *effort;
    guint       max_tokens;
    gint64      budget;        /* -1: no thinking */
    gint64      body_max;
  } cases[] = {
    { NULL, 300, -1, 300 },
    { NULL, 0, -1, 1024 },
    { "low", 256, 1024, 1024 + 256 },
    { "medium", 4096, 4096, 4096 + 4096 },
    { "medium", 8000, 4096, 8000 },
    { "high", 32000, 16384, 32000 },
    { "high", 100, 16384, 16384 + 100 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RelayRequestSpec spec = { "claude-sonnet-4-5", "Hello", cases[i].max_tokens,
                                cases[i].effort };
      g_autoptr(JsonParser) parser = NULL;
      JsonObject *body = build_body (RELAY_API_ANTHROPIC_MESSAGES, &spec, &parser);
      gint64 max_tokens = json_object_get_int_member (body, "max_tokens");

      g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "claude-sonnet-4-5");
      check_messages (body, "Hello");
      g_assert_true (json_object_get_boolean_member (body, "stream"));
      g_assert_false (json_object_has_member (body, "stream_options"));
      g_assert_false (json_object_has_member (body, "reasoning_effort"));
      g_assert_cmpint (max_tokens, ==, cases[i].body_max);

      if (cases[i].budget < 0)
        {
          g_assert_false (json_object_has_member (body, "thinking"));
        }
      else
        {
          JsonObject *thinking = json_object_get_object_member (body, "thinking");

          g_assert_nonnull (thinking);
          g_assert_cmpstr (json_object_get_string_member (thinking, "type"), ==, "enabled");
          g_assert_cmpint (json_object_get_int_member (thinking, "budget_tokens"), ==,
                           cases[i].budget);
          g_assert_cmpint (max_tokens, >, cases[i].budget);
        }
    }
}

static void
test_error_bodies (void)
{
  static const char openai[] =
    "{\n  \"error\": {\n    \"message\": \"Rate limit reached for gpt-4o-mini in organization "
    "org-test on tokens per min (TPM): Limit 200000, Used 199800, Requested 900.\",\n"
    "    \"type\": \"tokens\",\n    \"param\": null,\n    \"code\": \"rate_limit_exceeded\"\n  }\n}\n";
  static const char anthropic[] =
    "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}";
  static const char html[] =
    "<!DOCTYPE html>\r\n<html>\r\n<head><TITLE>502 Bad   Gateway</TITLE></head>\r\n"
    "<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>";
  static const char html_untitled[] =
    "<html><body>\n<h1>Service Unavailable</h1>\n<p>Try later.</p></body></html>";
  static const char html_styled[] =
    "<html><head><STYLE>\nbody { color: red }\n</STYLE><script type=\"x\">var a = 1;</script>"
    "</head><body><p>Gateway Timeout</p></body></html>";
  static const char plain[] = "\n  upstream connect error or disconnect/reset before headers. "
                              "reset reason: overflow  \nsecond line\n";
  static const char detail[] = "{\"detail\":\"Not authenticated\"}";
  static const char json_unknown[] = "{\"status\": 503}";
  g_autofree char *m_openai = relay_dialect_parse_error_body (RELAY_API_OPENAI_CHAT, openai,
                                                              strlen (openai));
  g_autofree char *m_anthropic = relay_dialect_parse_error_body (RELAY_API_ANTHROPIC_MESSAGES,
                                                                 anthropic, strlen (anthropic));
  g_autofree char *m_html = relay_dialect_parse_error_body (RELAY_API_OPENAI_CHAT, html,
                                                            strlen (html));
  g_autofree char *m_untitled = relay_dialect_parse_error_body (RELAY_API_OPENAI_CHAT,
                                                                html_untitled,
                                                                strlen (html_untitled));
  g_autofree char *m_styled = relay_dialect_parse_error_body (RELAY_API_OPENAI_CHAT,
                                                              html_styled,
                                                              strlen (html_styled));
  g_autofree char *m_plain = relay_dialect_parse_error_body (RELAY_API_ANTHROPIC_MESSAGES,
                                                             plain, strlen (plain));
  g_autofree char *m_detail = relay_dialect_parse_error_body (RELAY_API_OPENAI_CHAT, detail,
                                                              strlen (detail));
  g_autofree char *m_unknown = relay_dialect_parse_error_body (RELAY_API_OPENAI_CHAT,
                                                               json_unknown,
                                                               strlen (json_unknown));
  g_autoptr(GString) long_text = g_string_new (NULL);
  g_autofree char *m_long = NULL;

  g_assert_cmpstr (m_openai, ==,
                   "Rate limit reached for gpt-4o-mini in organization org-test on tokens per "
                   "min (TPM): Limit 200000, Used 199800, Requested 900. "
                   "(tokens, rate_limit_exceeded)");
  g_assert_cmpstr (m_anthropic, ==, "Overloaded (overloaded_error)");
  g_assert_cmpstr (m_html, ==, "502 Bad Gateway");
  g_assert_cmpstr (m_untitled, ==, "Service Unavailable");
  g_assert_cmpstr (m_styled, ==, "Gateway Timeout");
  g_assert_cmpstr (m_plain, ==,
                   "upstream connect error or disconnect/reset before headers. "
                   "reset reason: overflow");
  g_assert_cmpstr (m_detail, ==, "Not authenticated");
  g_assert_cmpstr (m_unknown, ==, "{\"status\": 503}");

  g_assert_null (relay_dialect_parse_error_body (RELAY_API_OPENAI_CHAT, "", 0));
  g_assert_null (relay_dialect_parse_error_body (RELAY_API_OPENAI_CHAT, NULL, 0));
  g_assert_null (relay_dialect_parse_error_body (RELAY_API_OPENAI_CHAT, " \r\n\t ", 5));

  /* Long bodies are cut to a readable length, on a character boundary. */
  for (guint i = 0; i < 1000; i++)
    g_string_append (long_text, "ä ");
  m_long = relay_dialect_parse_error_body (RELAY_API_OPENAI_CHAT, long_text->str,
                                           long_text->len);
  g_assert_nonnull (m_long);
  g_assert_true (g_utf8_validate (m_long, -1, NULL));
  g_assert_cmpuint (g_utf8_strlen (m_long, -1), <=, 201);
  g_assert_cmpuint (g_utf8_strlen (m_long, -1), >=, 150);
  g_assert_true (g_str_has_prefix (m_long, "ä ä ä"));

  /* Binary junk gives something printable, never a crash. */
  {
    static const char junk[] = "\xFF\xFE\x01garbage\x00tail";
    g_autofree char *m_junk = relay_dialect_parse_error_body (RELAY_API_OPENAI_CHAT, junk,
                                                              sizeof junk - 1);

    g_assert_nonnull (m_junk);
    g_assert_true (g_utf8_validate (m_junk, -1, NULL));
    g_assert_nonnull (strstr (m_junk, "garbage"));
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/dialect/openai/basic", test_openai_basic);
  g_test_add_func ("/dialect/openai/reasoning", test_openai_reasoning);
  g_test_add_func ("/dialect/openai/reasoning-field", test_openai_reasoning_field);
  g_test_add_func ("/dialect/openai/tool", test_openai_tool);
  g_test_add_func ("/dialect/openai/error", test_openai_error);
  g_test_add_func ("/dialect/openai/details", test_openai_details);
  g_test_add_func ("/dialect/anthropic/basic", test_anthropic_basic);
  g_test_add_func ("/dialect/anthropic/thinking", test_anthropic_thinking);
  g_test_add_func ("/dialect/anthropic/error", test_anthropic_error);
  g_test_add_func ("/dialect/anthropic/type-from-json", test_anthropic_type_from_json);
  g_test_add_func ("/dialect/malformed", test_malformed);
  g_test_add_func ("/dialect/paths-and-keys", test_paths_and_keys);
  g_test_add_func ("/dialect/headers", test_headers);
  g_test_add_func ("/dialect/request/openai", test_request_openai);
  g_test_add_func ("/dialect/request/anthropic", test_request_anthropic);
  g_test_add_func ("/dialect/error-bodies", test_error_bodies);

  return g_test_run ();
}
