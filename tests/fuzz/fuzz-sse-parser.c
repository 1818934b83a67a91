/* fuzz-sse-parser.c: libFuzzer target for the event-stream parser. The parser promises that
 * input may be split anywhere, so the same bytes fed whole, split at a point the input picks
 * and fed in small pieces must dispatch the same events and fail at the same place.
 *
 * Input: byte 0 picks the line cap and when the callback asks to stop, bytes 1–2 the split
 * point, byte 3 the piece size; the rest is the stream.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "relay-sse-parser.h"

#include "fuzz-common.h"

typedef struct
{
  GString *log;        /* every dispatched event, serialised */
  guint    stop_after; /* 0: never ask to stop */
  guint    n;
} Record;

static gboolean
on_event (const char *event_type,
          const char *data,
          gsize       data_len,
          const char *last_event_id,
          gpointer    user_data)
{
  Record *record = user_data;

  /* The contract: a named type, data without its final newline, an id string. */
  g_assert_nonnull (event_type);
  g_assert_nonnull (data);
  g_assert_nonnull (last_event_id);
  g_assert_cmpint (data[data_len], ==, '\0');

  g_string_append_printf (record->log, "%zu:%s|%zu:", strlen (event_type), event_type, data_len);
  g_string_append_len (record->log, data, data_len);
  g_string_append_printf (record->log, "|%s\n", last_event_id);

  record->n++;
  return record->stop_after == 0 || record->n < record->stop_after;
}

typedef struct
{
  gboolean failed;     /* a line was too long */
  gboolean pending;    /* finish() found an unterminated event */
  gint64   retry;
  guint64  n_events;
} Outcome;

/* Feeds text in pieces of at most piece bytes, the first one ending at split. */
static char *
run (const char *text,
     gsize       len,
     gsize       max_line,
     guint       stop_after,
     gsize       split,
     gsize       piece,
     Outcome    *out)
{
  Record record = { g_string_new (NULL), stop_after, 0 };
  g_autoptr(RelaySseParser) parser = relay_sse_parser_new (max_line, on_event, &record);
  gsize offset = 0;
  gboolean ok = TRUE;

  memset (out, 0, sizeof *out);

  while (ok && offset < len)
    {
      gsize n = offset == 0 ? MIN (split, len) : MIN (piece, len - offset);
      g_autoptr(GError) error = NULL;
      /* A copy of exactly n bytes, so that ASan sees any read past the piece. */
      g_autofree char *copy = g_memdup2 (text + offset, n);

      ok = relay_sse_parser_feed (parser, copy, n, &error);
      if (!ok)
        {
          if (error != NULL)
            {
              g_assert_true (g_error_matches (error, RELAY_SSE_ERROR, RELAY_SSE_ERROR_LINE_TOO_LONG));
              g_assert_true (g_utf8_validate (error->message, -1, NULL));
              out->failed = TRUE;
            }
          else
            {
              /* Stopped without an error only when the callback asked for it. */
              g_assert_cmpuint (stop_after, >, 0);
              g_assert_cmpuint (record.n, ==, stop_after);
            }

          /* Once stopped, the parser ignores further input. */
          g_assert_false (relay_sse_parser_feed (parser, "data: x\n\n", 9, NULL));
        }

      offset += n;
    }

  out->pending = relay_sse_parser_finish (parser);
  out->retry = relay_sse_parser_get_retry (parser);
  out->n_events = relay_sse_parser_get_n_events (parser);
  g_assert_cmpuint (out->n_events, ==, record.n);

  return g_string_free (record.log, FALSE);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *whole = NULL;
  g_autofree char *halves = NULL;
  g_autofree char *pieces = NULL;
  Outcome a, b, c;
  const char *text;
  gsize len;
  gsize max_line;
  gsize split;
  gsize piece;
  guint stop_after;

  if (size < 4)
    return 0;

  /* Small caps reach the too-long paths with small inputs; 0 is the 16 MiB default. */
  max_line = (data[0] & 0x0F) == 0 ? 0 : (gsize) (data[0] & 0x0F) * 7;
  stop_after = data[0] >> 5;
  split = data[1] | (data[2] << 8);
  piece = 1 + data[3] % 16;
  text = (const char *) data + 4;
  len = size - 4;
  split = len > 0 ? split % (len + 1) : 0;

  whole = run (text, len, max_line, stop_after, len, len, &a);
  halves = run (text, len, max_line, stop_after, split == 0 ? len : split, len, &b);
  pieces = run (text, len, max_line, stop_after, piece, piece, &c);

  g_assert_cmpstr (whole, ==, halves);
  g_assert_cmpstr (whole, ==, pieces);
  g_assert_cmpint (a.failed, ==, b.failed);
  g_assert_cmpint (a.failed, ==, c.failed);
  g_assert_cmpint (a.pending, ==, b.pending);
  g_assert_cmpint (a.pending, ==, c.pending);
  g_assert_cmpint (a.retry, ==, b.retry);
  g_assert_cmpint (a.retry, ==, c.retry);
  g_assert_cmpuint (a.n_events, ==, c.n_events);

  return 0;
}
