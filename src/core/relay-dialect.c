/* relay-dialect.c: request bodies and stream-event readers for openai-chat and
 * anthropic-messages. Event reading runs once per SSE event in the read loop, so it parses
 * the JSON once and hands out pointers into it instead of copies.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>

#include "relay-dialect.h"

#define ANTHROPIC_VERSION          "2023-06-01"
/* Anthropic requires max_tokens; this is what a request without one asks for. */
#define ANTHROPIC_DEFAULT_MAX      1024
#define ERROR_QUOTE_MAX            80
#define ERROR_MESSAGE_MAX          200

const char *
relay_dialect_get_path (RelayApi api)
{
  switch (api)
    {
    case RELAY_API_OPENAI_CHAT:
      return "/chat/completions";
    case RELAY_API_ANTHROPIC_MESSAGES:
      return "/v1/messages";
    default:
      g_return_val_if_reached (NULL);
    }
}

const char *
relay_dialect_get_default_key_env (RelayApi api)
{
  switch (api)
    {
    case RELAY_API_OPENAI_CHAT:
      return "OPENAI_API_KEY";
    case RELAY_API_ANTHROPIC_MESSAGES:
      return "ANTHROPIC_API_KEY";
    default:
      g_return_val_if_reached (NULL);
    }
}

void
relay_dialect_add_headers (RelayApi         api,
                           const char      *key,
                           RelayHeaderFunc  func,
                           gpointer         user_data)
{
  gboolean have_key = key != NULL && key[0] != '\0';

  g_return_if_fail (func != NULL);

  switch (api)
    {
    case RELAY_API_OPENAI_CHAT:
      if (have_key)
        {
          g_autofree char *value = g_strconcat ("Bearer ", key, NULL);

          func ("Authorization", value, user_data);
          /* The copy held the key: do not leave it in freed memory. */
          memset (value, 0, strlen (value));
        }
      break;

    case RELAY_API_ANTHROPIC_MESSAGES:
      if (have_key)
        func ("x-api-key", key, user_data);
      func ("anthropic-version", ANTHROPIC_VERSION, user_data);
      break;

    default:
      g_return_if_reached ();
    }
}

static void
add_user_message (JsonBuilder *builder,
                  const char  *prompt)
{
  json_builder_set_member_name (builder, "messages");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, "user");
  json_builder_set_member_name (builder, "content");
  json_builder_add_string_value (builder, prompt != NULL ? prompt : "");
  json_builder_end_object (builder);
  json_builder_end_array (builder);
}

static guint
thinking_budget (const char *effort)
{
  if (g_strcmp0 (effort, "low") == 0 || g_strcmp0 (effort, "minimal") == 0)
    return 1024;
  if (g_strcmp0 (effort, "high") == 0)
    return 16384;
  return 4096;
}

char *
relay_dialect_build_request_body (RelayApi                api,
                                  const RelayRequestSpec *spec)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonGenerator) generator = NULL;
  g_autoptr(JsonNode) root = NULL;
  gboolean thinking;

  g_return_val_if_fail (spec != NULL, NULL);
  g_return_val_if_fail (spec->model != NULL, NULL);
  g_return_val_if_fail (api == RELAY_API_OPENAI_CHAT ||
                        api == RELAY_API_ANTHROPIC_MESSAGES, NULL);

  thinking = spec->reasoning_effort != NULL && spec->reasoning_effort[0] != '\0';

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, spec->model);

  if (api == RELAY_API_OPENAI_CHAT)
    {
      add_user_message (builder, spec->prompt);

      /* 0 leaves the length to the server's default. */
      if (spec->max_tokens > 0)
        {
          json_builder_set_member_name (builder, "max_tokens");
          json_builder_add_int_value (builder, spec->max_tokens);
        }

      json_builder_set_member_name (builder, "stream");
      json_builder_add_boolean_value (builder, TRUE);

      /* Without this the stream carries no token counts and they must be estimated. */
      json_builder_set_member_name (builder, "stream_options");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "include_usage");
      json_builder_add_boolean_value (builder, TRUE);
      json_builder_end_object (builder);

      if (thinking)
        {
          json_builder_set_member_name (builder, "reasoning_effort");
          json_builder_add_string_value (builder, spec->reasoning_effort);
        }
    }
  else
    {
      guint64 max_tokens = spec->max_tokens > 0 ? spec->max_tokens : ANTHROPIC_DEFAULT_MAX;
      guint budget = 0;

      /* The thinking budget counts against max_tokens, which must exceed it: keep the
       * caller's allowance for the visible answer on top of the budget. */
      if (thinking)
        {
          budget = thinking_budget (spec->reasoning_effort);
          if (max_tokens <= budget)
            max_tokens += budget;
        }

      json_builder_set_member_name (builder, "max_tokens");
      json_builder_add_int_value (builder, max_tokens);
      json_builder_set_member_name (builder, "stream");
      json_builder_add_boolean_value (builder, TRUE);
      add_user_message (builder, spec->prompt);

      if (thinking)
        {
          json_builder_set_member_name (builder, "thinking");
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "type");
          json_builder_add_string_value (builder, "enabled");
          json_builder_set_member_name (builder, "budget_tokens");
          json_builder_add_int_value (builder, budget);
          json_builder_end_object (builder);
        }
    }

  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  generator = json_generator_new ();
  json_generator_set_root (generator, root);

  return json_generator_to_data (generator, NULL);
}

void
relay_dialect_event_clear (RelayDialectEvent *event)
{
  RelayUsage usage = RELAY_USAGE_INIT;

  g_return_if_fail (event != NULL);

  g_clear_object (&event->priv_parser);
  memset (event, 0, sizeof *event);
  event->usage = usage;
  event->sent_us = -1;
}

/* Up to ERROR_QUOTE_MAX bytes of data, cut on a character boundary and made printable, for
 * error messages: enough to recognise the data, never a whole megabyte of it. */
static char *
quote_data (const char *data,
            gsize       len)
{
  gsize n = MIN (len, ERROR_QUOTE_MAX);
  g_autofree char *valid = NULL;
  GString *str;

  /* Do not cut a UTF-8 sequence in half. */
  if (n < len)
    while (n > 0 && ((guint8) data[n] & 0xC0) == 0x80)
      n--;

  valid = g_utf8_make_valid (data, n);
  str = g_string_new (NULL);

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c < 0x20 || c == 0x7F)
        g_string_append_c (str, ' ');
      else
        g_string_append_unichar (str, c);
    }

  if (n < len)
    g_string_append (str, "…");

  return g_string_free (str, FALSE);
}

static gboolean
fail_data (RelayDialectEvent  *event,
           const char         *data,
           gsize               len,
           const char         *reason,
           GError            **error)
{
  g_autofree char *quote = quote_data (data, len);

  relay_dialect_event_clear (event);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("malformed stream event (%s): “%s”"), reason, quote);

  return FALSE;
}

static JsonObject *
get_object (JsonObject *object,
            const char *name)
{
  JsonNode *node;

  if (object == NULL || (node = json_object_get_member (object, name)) == NULL)
    return NULL;

  return JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static const char *
get_string (JsonObject *object,
            const char *name)
{
  JsonNode *node;

  if (object == NULL || (node = json_object_get_member (object, name)) == NULL)
    return NULL;

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);

  return NULL;
}

/* Sets *out only when the member is a number, so absent counts stay -1. */
static gboolean
get_count (JsonObject *object,
           const char *name,
           gint64     *out)
{
  JsonNode *node;
  GType type;

  if (object == NULL || (node = json_object_get_member (object, name)) == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;

  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *out = json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    *out = (gint64) json_node_get_double (node);
  else
    return FALSE;

  return TRUE;
}

static void
set_text (RelayDialectEvent *event,
          RelayChunkKind     kind,
          const char        *text)
{
  gsize len;

  if (text == NULL || text[0] == '\0')
    return;

  len = strlen (text);

  event->has_text = TRUE;
  event->kind = kind;
  event->text = text;
  event->text_len = len;

  /* JSON escapes can still produce lone surrogates; count bytes rather than trust them. */
  if (g_utf8_validate (text, len, NULL))
    event->chars = g_utf8_strlen (text, len);
  else
    event->chars = len;
}

static void
read_error (RelayDialectEvent *event,
            JsonObject        *root)
{
  JsonNode *node = json_object_get_member (root, "error");
  JsonObject *error;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return;

  event->is_error = TRUE;

  if ((error = get_object (root, "error")) != NULL)
    {
      event->error_type = get_string (error, "type");
      if (event->error_type == NULL)
        event->error_type = get_string (error, "code");
      event->error_message = get_string (error, "message");
    }
  else
    {
      event->error_message = get_string (root, "error");
    }

  if (event->error_message == NULL)
    event->error_message = event->error_type != NULL ? event->error_type : _("unknown error");
}

static void
read_openai_tool_calls (RelayDialectEvent *event,
                        JsonParser        *parser,
                        JsonArray         *calls)
{
  guint n = json_array_get_length (calls);
  const char *first = NULL;
  GString *joined = NULL;

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (calls, i);
      const char *args;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;

      args = get_string (get_object (json_node_get_object (node), "function"), "arguments");
      if (args == NULL || args[0] == '\0')
        continue;

      if (first == NULL)
        {
          first = args;
          continue;
        }

      /* Rare: several calls' arguments in one delta. Only then is a copy needed. */
      if (joined == NULL)
        joined = g_string_new (first);
      g_string_append (joined, args);
    }

  if (joined != NULL)
    {
      char *text = g_string_free (joined, FALSE);

      g_object_set_data_full (G_OBJECT (parser), "relay-joined-text", text, g_free);
      set_text (event, RELAY_CHUNK_TOOL, text);
    }
  else
    {
      set_text (event, RELAY_CHUNK_TOOL, first);
    }
}

static void
read_openai (RelayDialectEvent *event,
             JsonParser        *parser,
             JsonObject        *root)
{
  JsonNode *node;
  JsonObject *usage;

  read_error (event, root);
  event->model = get_string (root, "model");

  node = json_object_get_member (root, "choices");
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node) &&
      json_array_get_length (json_node_get_array (node)) > 0)
    {
      JsonNode *first = json_array_get_element (json_node_get_array (node), 0);

      if (JSON_NODE_HOLDS_OBJECT (first))
        {
          JsonObject *choice = json_node_get_object (first);
          JsonObject *delta = get_object (choice, "delta");
          JsonNode *calls;

          event->finish_reason = get_string (choice, "finish_reason");

          /* Visible content wins when a delta carries both; such deltas carry one in
           * practice, with the other empty or null. */
          set_text (event, RELAY_CHUNK_CONTENT, get_string (delta, "content"));
          if (!event->has_text)
            set_text (event, RELAY_CHUNK_REASONING, get_string (delta, "reasoning_content"));
          if (!event->has_text)
            set_text (event, RELAY_CHUNK_REASONING, get_string (delta, "reasoning"));
          if (!event->has_text && delta != NULL &&
              (calls = json_object_get_member (delta, "tool_calls")) != NULL &&
              JSON_NODE_HOLDS_ARRAY (calls))
            read_openai_tool_calls (event, parser, json_node_get_array (calls));
        }
    }

  /* The final chunk of include_usage carries usage and an empty choices array; the
   * others say "usage": null. */
  if ((usage = get_object (root, "usage")) != NULL)
    {
      event->has_usage = TRUE;
      get_count (usage, "prompt_tokens", &event->usage.prompt_tokens);
      get_count (usage, "completion_tokens", &event->usage.completion_tokens);
      get_count (get_object (usage, "prompt_tokens_details"), "cached_tokens",
                 &event->usage.cached_prompt_tokens);
      get_count (get_object (usage, "completion_tokens_details"), "reasoning_tokens",
                 &event->usage.reasoning_tokens);
    }
}

/* Anthropic counts cached input apart from input_tokens; RelayUsage follows OpenAI, where
 * prompt_tokens includes the cached part, so that cached ≤ prompt holds for both. */
static void
read_anthropic_usage (RelayDialectEvent *event,
                      JsonObject        *usage)
{
  gint64 input = -1;
  gint64 cache_read = -1;
  gint64 cache_write = -1;

  if (usage == NULL)
    return;

  event->has_usage = TRUE;

  get_count (usage, "output_tokens", &event->usage.completion_tokens);
  get_count (usage, "cache_creation_input_tokens", &cache_write);
  if (get_count (usage, "cache_read_input_tokens", &cache_read))
    event->usage.cached_prompt_tokens = cache_read;
  if (get_count (usage, "input_tokens", &input))
    event->usage.prompt_tokens = input + MAX (cache_read, 0) + MAX (cache_write, 0);
}

static void
read_anthropic (RelayDialectEvent *event,
                const char        *event_type,
                JsonObject        *root)
{
  const char *type = event_type;

  /* The SSE event name is authoritative; a stream that names none still says it in JSON. */
  if (type == NULL || type[0] == '\0' || strcmp (type, "message") == 0)
    type = get_string (root, "type");
  if (type == NULL)
    type = "";

  if (strcmp (type, "content_block_delta") == 0)
    {
      JsonObject *delta = get_object (root, "delta");
      const char *delta_type = get_string (delta, "type");

      if (g_strcmp0 (delta_type, "text_delta") == 0)
        set_text (event, RELAY_CHUNK_CONTENT, get_string (delta, "text"));
      else if (g_strcmp0 (delta_type, "thinking_delta") == 0)
        set_text (event, RELAY_CHUNK_REASONING, get_string (delta, "thinking"));
      else if (g_strcmp0 (delta_type, "input_json_delta") == 0)
        set_text (event, RELAY_CHUNK_TOOL, get_string (delta, "partial_json"));
      /* signature_delta and unknown deltas carry no generated text. */
    }
  else if (strcmp (type, "message_start") == 0)
    {
      JsonObject *message = get_object (root, "message");

      event->model = get_string (message, "model");
      read_anthropic_usage (event, get_object (message, "usage"));
    }
  else if (strcmp (type, "content_block_start") == 0)
    {
      JsonObject *block = get_object (root, "content_block");
      const char *block_type = get_string (block, "type");

      /* Usually empty, but a block may open with text already in it. */
      if (g_strcmp0 (block_type, "text") == 0)
        set_text (event, RELAY_CHUNK_CONTENT, get_string (block, "text"));
      else if (g_strcmp0 (block_type, "thinking") == 0)
        set_text (event, RELAY_CHUNK_REASONING, get_string (block, "thinking"));
    }
  else if (strcmp (type, "message_delta") == 0)
    {
      event->finish_reason = get_string (get_object (root, "delta"), "stop_reason");
      read_anthropic_usage (event, get_object (root, "usage"));
    }
  else if (strcmp (type, "message_stop") == 0)
    {
      event->done = TRUE;
    }
  else if (strcmp (type, "error") == 0)
    {
      read_error (event, root);
      if (!event->is_error)
        {
          event->is_error = TRUE;
          event->error_message = _("unknown error");
        }
    }
  else if (json_object_has_member (root, "error"))
    {
      read_error (event, root);
    }
  /* ping, content_block_stop and event types added later carry nothing we measure. */
}

gboolean
relay_dialect_parse_event (RelayApi            api,
                           const char         *event_type,
                           const char         *data,
                           gsize               data_len,
                           RelayDialectEvent  *event,
                           GError            **error)
{
  g_autoptr(GError) local_error = NULL;
  JsonParser *parser;
  JsonNode *root;
  JsonObject *object;
  JsonNode *sent;
  gsize start = 0;
  gsize end = data_len;

  g_return_val_if_fail (event != NULL, FALSE);
  g_return_val_if_fail (data != NULL || data_len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  relay_dialect_event_clear (event);

  /* Some relays send empty events to keep the connection alive: nothing to read. */
  while (start < end && g_ascii_isspace (data[start]))
    start++;
  while (end > start && g_ascii_isspace (data[end - 1]))
    end--;
  if (start == end)
    return TRUE;

  if (api == RELAY_API_OPENAI_CHAT && end - start == 6 && memcmp (data + start, "[DONE]", 6) == 0)
    {
      event->done = TRUE;
      return TRUE;
    }

  parser = json_parser_new_immutable ();
  event->priv_parser = parser;

  if (!json_parser_load_from_data (parser, data, data_len, &local_error))
    return fail_data (event, data, data_len, local_error->message, error);

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return fail_data (event, data, data_len, _("not a JSON object"), error);

  object = json_node_get_object (root);

  if (api == RELAY_API_OPENAI_CHAT)
    read_openai (event, parser, object);
  else
    read_anthropic (event, event_type, object);

  sent = json_object_get_member (object, "relayscope_sent_us");
  if (sent != NULL && JSON_NODE_HOLDS_VALUE (sent) &&
      json_node_get_value_type (sent) == G_TYPE_INT64)
    event->sent_us = json_node_get_int (sent);

  return TRUE;
}

/* Cuts to at most ERROR_MESSAGE_MAX characters and folds whitespace runs into one space. */
static char *
shorten (const char *text,
         gssize      len)
{
  g_autofree char *valid = g_utf8_make_valid (text, len);
  GString *str = g_string_new (NULL);
  guint chars = 0;
  gboolean space = FALSE;

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isspace (c) || c < 0x20)
        {
          space = str->len > 0;
          continue;
        }

      if (chars + (space ? 2 : 1) > ERROR_MESSAGE_MAX)
        {
          g_string_append (str, "…");
          break;
        }

      if (space)
        {
          g_string_append_c (str, ' ');
          chars++;
          space = FALSE;
        }

      g_string_append_unichar (str, c);
      chars++;
    }

  if (str->len == 0)
    {
      g_string_free (str, TRUE);
      return NULL;
    }

  return g_string_free (str, FALSE);
}

static char *
error_from_json (const char *body,
                 gsize       len)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  JsonNode *root;
  JsonObject *object;
  JsonObject *error;
  const char *message = NULL;
  const char *type = NULL;
  const char *code = NULL;
  g_autofree char *full = NULL;

  if (!json_parser_load_from_data (parser, body, len, NULL))
    return NULL;

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  object = json_node_get_object (root);

  /* OpenAI: {"error":{"message","type","code"}}; Anthropic: {"type":"error","error":{…}};
   * relays also send {"error":"…"}, {"message":"…"} or {"detail":"…"}. */
  if ((error = get_object (object, "error")) != NULL)
    {
      message = get_string (error, "message");
      type = get_string (error, "type");
      code = get_string (error, "code");
    }
  else
    {
      message = get_string (object, "error");
    }

  if (message == NULL)
    message = get_string (object, "message");
  if (message == NULL)
    message = get_string (object, "detail");
  if (message == NULL)
    message = type != NULL ? type : code;
  if (message == NULL)
    return NULL;

  if (type != NULL && code != NULL && strcmp (type, code) != 0 && message != type)
    full = g_strdup_printf ("%s (%s, %s)", message, type, code);
  else if (type != NULL && message != type)
    full = g_strdup_printf ("%s (%s)", message, type);
  else if (code != NULL && message != code)
    full = g_strdup_printf ("%s (%s)", message, code);
  else
    full = g_strdup (message);

  return shorten (full, -1);
}

static const char *
find_ascii_nocase (const char *haystack,
                   const char *end,
                   const char *needle)
{
  gsize n = strlen (needle);

  for (const char *p = haystack; p + n <= end; p++)
    if (g_ascii_strncasecmp (p, needle, n) == 0)
      return p;

  return NULL;
}

/* Text of an HTML page with the tags dropped, for pages without a usable <title>. Scripts
 * and style sheets are not text a person should read. */
static char *
strip_tags (const char *start,
            const char *end)
{
  static const char * const skipped[] = { "script", "style" };
  GString *str = g_string_new (NULL);
  gboolean in_tag = FALSE;

  for (const char *p = start; p < end; p++)
    {
      if (*p == '<')
        {
          in_tag = TRUE;

          for (guint i = 0; i < G_N_ELEMENTS (skipped); i++)
            {
              gsize n = strlen (skipped[i]);
              g_autofree char *closing = g_strconcat ("</", skipped[i], NULL);
              const char *close;

              if ((gsize) (end - p) > n + 1 &&
                  g_ascii_strncasecmp (p + 1, skipped[i], n) == 0 &&
                  (p[n + 1] == '>' || g_ascii_isspace (p[n + 1])) &&
                  (close = find_ascii_nocase (p, end, closing)) != NULL)
                {
                  /* Resume at the closing tag, which the loop then skips as a tag. */
                  p = close;
                  break;
                }
            }
        }
      else if (*p == '>' && in_tag)
        {
          in_tag = FALSE;
          g_string_append_c (str, '\n');
        }
      else if (!in_tag)
        g_string_append_c (str, *p);
    }

  return g_string_free (str, FALSE);
}

static char *
first_line (const char *text,
            const char *end)
{
  const char *p = text;

  while (p < end)
    {
      const char *eol = p;
      g_autofree char *line = NULL;

      while (eol < end && *eol != '\n' && *eol != '\r')
        eol++;

      if ((line = shorten (p, eol - p)) != NULL)
        return g_steal_pointer (&line);

      p = eol + 1;
    }

  return NULL;
}

char *
relay_dialect_parse_error_body (RelayApi    api,
                                const char *body,
                                gsize       len)
{
  const char *p;
  const char *end;
  const char *title;
  char *message;

  if (body == NULL || len == 0)
    return NULL;

  p = body;
  end = body + len;
  while (p < end && g_ascii_isspace (*p))
    p++;
  if (p == end)
    return NULL;

  if (*p == '{' && (message = error_from_json (p, end - p)) != NULL)
    return message;

  if (*p == '<')
    {
      const char *close;
      g_autofree char *text = NULL;

      if ((title = find_ascii_nocase (p, end, "<title")) != NULL &&
          (title = memchr (title, '>', end - title)) != NULL &&
          (close = find_ascii_nocase (title, end, "</title")) != NULL &&
          (message = shorten (title + 1, close - title - 1)) != NULL)
        return message;

      text = strip_tags (p, end);
      return first_line (text, text + strlen (text));
    }

  return first_line (p, end);
}
