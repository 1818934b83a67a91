/* fuzz-dialect.c: libFuzzer target for both dialects' stream-event reader and the HTTP error
 * body reader, which see whatever a relay sends.
 *
 * Input: the event type up to the first newline (at most 64 bytes), then the data.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdint.h>
#include <string.h>

#include <gio/gio.h>

#include "relay-dialect.h"

#include "fuzz-common.h"

/* What relay_dialect_event_clear leaves. */
static void
assert_cleared (const RelayDialectEvent *event)
{
  g_assert_false (event->has_text);
  g_assert_null (event->text);
  g_assert_false (event->is_error);
  g_assert_false (event->done);
  g_assert_null (event->priv_parser);
  g_assert_cmpint (event->sent_us, ==, -1);
}

static void
check_event (RelayApi    api,
             const char *event_type,
             const char *data,
             gsize       len)
{
  RelayDialectEvent event = { 0 };
  g_autoptr(GError) error = NULL;

  relay_dialect_event_clear (&event);

  if (!relay_dialect_parse_event (api, event_type, data, len, &event, &error))
    {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      /* Shown to people and written to sessions: valid UTF-8 and short. */
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      g_assert_cmpuint (strlen (error->message), <, 1024);
      assert_cleared (&event);
      return;
    }

  g_assert_no_error (error);

  if (event.has_text)
    {
      g_assert_nonnull (event.text);
      g_assert_cmpuint (event.text_len, >, 0);
      g_assert_cmpuint (event.text_len, ==, strlen (event.text));
      g_assert_cmpuint (event.chars, >, 0);
      g_assert_cmpuint (event.chars, <=, event.text_len);
      g_assert_cmpint (event.kind, >=, RELAY_CHUNK_CONTENT);
      g_assert_cmpint (event.kind, <=, RELAY_CHUNK_TOOL);
    }
  else
    {
      g_assert_null (event.text);
    }

  if (event.is_error)
    g_assert_nonnull (event.error_message);

  /* Touch every string the event hands out: they must live until the clear. */
  if (event.model != NULL)
    g_assert_cmpuint (strlen (event.model), <=, len);
  if (event.error_type != NULL)
    g_assert_cmpuint (strlen (event.error_type), <=, len);
  if (event.error_message != NULL)
    (void) strlen (event.error_message);
  if (event.finish_reason != NULL)
    g_assert_cmpuint (strlen (event.finish_reason), <=, len);

  relay_dialect_event_clear (&event);
  assert_cleared (&event);
}

static void
check_error_body (RelayApi    api,
                  const char *data,
                  gsize       len)
{
  g_autofree char *message = relay_dialect_parse_error_body (api, data, len);

  if (message == NULL)
    return;

  /* One short, printable line that a person can read. */
  g_assert_true (g_utf8_validate (message, -1, NULL));
  g_assert_cmpuint (g_utf8_strlen (message, -1), <=, 201);
  g_assert_cmpuint (strlen (message), >, 0);
  g_assert_null (strchr (message, '\n'));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *text = (const char *) data;
  const char *eol = memchr (text, '\n', MIN (size, 65));
  g_autofree char *event_type = NULL;
  g_autofree char *body = NULL;
  g_autofree char *terminated = NULL;
  const char *type;
  gsize body_len;

  if (eol != NULL)
    {
      event_type = g_strndup (text, eol - text);
      body_len = size - (eol - text) - 1;
      body = g_memdup2 (eol + 1, body_len);
    }
  else
    {
      body_len = size;
      body = g_memdup2 (text, size);
    }

  /* The prober's parser hands out data with a NUL after it; the error reader gets a body
   * without one, as libsoup gives it. Copies of exactly the length let ASan see overreads. */
  terminated = g_malloc (body_len + 1);
  if (body_len > 0)
    memcpy (terminated, body, body_len);
  terminated[body_len] = '\0';

  type = event_type != NULL ? event_type : "message";
  check_event (RELAY_API_OPENAI_CHAT, type, terminated, body_len);
  check_event (RELAY_API_ANTHROPIC_MESSAGES, type, terminated, body_len);
  /* A stream that names no event type: Anthropic then reads the type from the JSON. */
  check_event (RELAY_API_ANTHROPIC_MESSAGES, "message", terminated, body_len);

  check_error_body (RELAY_API_OPENAI_CHAT, body, body_len);
  check_error_body (RELAY_API_ANTHROPIC_MESSAGES, body, body_len);

  return 0;
}
