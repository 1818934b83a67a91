/* relay-dialect.h: what an API dialect sends and how its stream events read:
 * openai-chat (/chat/completions) and anthropic-messages (/v1/messages).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "relay-types.h"

G_BEGIN_DECLS

typedef struct
{
  const char *model;
  const char *prompt;
  guint       max_tokens;
  const char *reasoning_effort;   /* "low", "medium", "high" or NULL */
} RelayRequestSpec;

/* What one SSE event said. Strings point into the event's parsed JSON and are valid until
 * relay_dialect_event_clear(). */
typedef struct
{
  gboolean     has_text;          /* the event carried non-empty generated text */
  RelayChunkKind kind;            /* of that text */
  const char  *text;              /* the text (content, reasoning or tool arguments) */
  gsize        text_len;
  guint        chars;             /* UTF-8 characters of text */
  gboolean     has_usage;
  RelayUsage   usage;             /* fields the event did not carry stay -1 */
  const char  *model;             /* model the server reported, or NULL */
  gboolean     done;              /* "[DONE]" or message_stop */
  gboolean     is_error;          /* an error event */
  const char  *error_type;        /* e.g. "overloaded_error", or NULL */
  const char  *error_message;
  const char  *finish_reason;     /* "stop", "length", "end_turn", … or NULL */
  gint64       sent_us;           /* simulated relay's send stamp ("relayscope_sent_us"), or -1 */
  /* private */
  gpointer     priv_parser;
} RelayDialectEvent;

/* Path appended to the base URL: "/chat/completions" or "/v1/messages". */
const char *relay_dialect_get_path              (RelayApi                api);
/* Default environment variable of the key. */
const char *relay_dialect_get_default_key_env   (RelayApi                api);
/* Header name that carries the key ("Authorization" with "Bearer " prefix, or "x-api-key")
 * plus any fixed headers (anthropic-version). Adds them to headers via the callback. */
typedef void (*RelayHeaderFunc) (const char *name, const char *value, gpointer user_data);
void        relay_dialect_add_headers           (RelayApi                api,
                                                 const char             *key,
                                                 RelayHeaderFunc         func,
                                                 gpointer                user_data);
/* The streaming request body as JSON text (stream on; usage requested for openai-chat). */
char       *relay_dialect_build_request_body    (RelayApi                api,
                                                 const RelayRequestSpec *spec);
/* Reads one SSE event. Returns FALSE with error set when data is not what the dialect
 * expects (malformed JSON); the event is then cleared. */
gboolean    relay_dialect_parse_event           (RelayApi                api,
                                                 const char             *event_type,
                                                 const char             *data,
                                                 gsize                   data_len,
                                                 RelayDialectEvent      *event,
                                                 GError                **error);
void        relay_dialect_event_clear           (RelayDialectEvent      *event);
/* Reads an HTTP error body (JSON or not) into a short human message, or NULL. */
char       *relay_dialect_parse_error_body      (RelayApi                api,
                                                 const char             *body,
                                                 gsize                   len);

G_END_DECLS
