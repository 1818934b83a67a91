/* relay-sse-parser.c: an incremental text/event-stream parser (WHATWG rules) that runs in
 * the prober's read loop, so it must not allocate per byte or hold a line back.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "relay-sse-parser.h"

#define DEFAULT_MAX_LINE (16 * 1024 * 1024)

static const guint8 utf8_bom[3] = { 0xEF, 0xBB, 0xBF };

struct _RelaySseParser
{
  RelaySseEventFunc  func;
  gpointer           user_data;
  gsize              max_line;

  /* A line that a feed ended in the middle of; empty most of the time, since complete
   * lines are read straight from the caller's buffer. */
  GByteArray        *line;
  GString           *data;
  GString           *event_type;
  GString           *last_event_id;

  gint64             retry;
  guint64            n_events;

  /* Bytes of a leading BOM matched so far; 3 once the start of the stream is behind us. */
  guint              bom_matched;
  /* The previous feed ended in CR: an LF that opens the next one ends no line. */
  guint              skip_lf : 1;
  /* The callback asked to stop, or a limit was hit: further input is ignored. */
  guint              stopped : 1;
};

G_DEFINE_QUARK (relay-sse-error-quark, relay_sse_error)

RelaySseParser *
relay_sse_parser_new (gsize             max_line,
                      RelaySseEventFunc func,
                      gpointer          user_data)
{
  RelaySseParser *self;

  g_return_val_if_fail (func != NULL, NULL);

  self = g_new0 (RelaySseParser, 1);
  self->func = func;
  self->user_data = user_data;
  self->max_line = max_line > 0 ? max_line : DEFAULT_MAX_LINE;
  self->line = g_byte_array_new ();
  self->data = g_string_new (NULL);
  self->event_type = g_string_new (NULL);
  self->last_event_id = g_string_new (NULL);
  self->retry = -1;

  return self;
}

void
relay_sse_parser_free (RelaySseParser *self)
{
  if (self == NULL)
    return;

  g_byte_array_unref (self->line);
  g_string_free (self->data, TRUE);
  g_string_free (self->event_type, TRUE);
  g_string_free (self->last_event_id, TRUE);
  g_free (self);
}

/* "16 MiB" rather than "16.0 MiB" or "16777216 bytes": the cap is usually a round number. */
static char *
format_cap (gsize bytes)
{
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " MiB", bytes / (1024 * 1024));
  if (bytes >= 1024 && bytes % 1024 == 0)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " KiB", bytes / 1024);
  return g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
}

static gboolean
fail_too_long (RelaySseParser  *self,
               gboolean         is_data,
               GError         **error)
{
  g_autofree char *cap = format_cap (self->max_line);

  self->stopped = TRUE;

  if (is_data)
    g_set_error (error, RELAY_SSE_ERROR, RELAY_SSE_ERROR_LINE_TOO_LONG,
                 _("an event-stream event’s data exceeded %s; the stream was stopped"), cap);
  else
    g_set_error (error, RELAY_SSE_ERROR, RELAY_SSE_ERROR_LINE_TOO_LONG,
                 _("an event-stream line exceeded %s; the stream was stopped"), cap);

  return FALSE;
}

static void
dispatch (RelaySseParser *self)
{
  const char *type;
  gboolean keep_going;

  if (self->data->len == 0)
    {
      g_string_truncate (self->event_type, 0);
      return;
    }

  /* Every data line appended a newline; the spec drops the last one. */
  g_string_truncate (self->data, self->data->len - 1);
  type = self->event_type->len > 0 ? self->event_type->str : "message";
  self->n_events++;

  keep_going = self->func (type, self->data->str, self->data->len,
                           self->last_event_id->str, self->user_data);

  g_string_truncate (self->data, 0);
  g_string_truncate (self->event_type, 0);

  if (!keep_going)
    self->stopped = TRUE;
}

static gboolean
field_is (const char *field,
          gsize       field_len,
          const char *name,
          gsize       name_len)
{
  return field_len == name_len && memcmp (field, name, name_len) == 0;
}

static void
set_retry (RelaySseParser *self,
           const char     *value,
           gsize           len)
{
  guint64 ms = 0;

  if (len == 0)
    return;

  for (gsize i = 0; i < len; i++)
    {
      guint digit;

      if (!g_ascii_isdigit (value[i]))
        return;

      digit = value[i] - '0';
      if (ms > ((guint64) G_MAXINT64 - digit) / 10)
        return;
      ms = ms * 10 + digit;
    }

  self->retry = (gint64) ms;
}

/* Returns FALSE when the event's data grew past the cap. */
static gboolean
process_line (RelaySseParser  *self,
              const char      *line,
              gsize            len,
              GError         **error)
{
  const char *colon;
  const char *value;
  gsize field_len;
  gsize value_len;

  if (len == 0)
    {
      dispatch (self);
      return TRUE;
    }

  if (line[0] == ':')
    return TRUE;

  colon = memchr (line, ':', len);
  if (colon != NULL)
    {
      field_len = colon - line;
      value = colon + 1;
      value_len = len - field_len - 1;
      if (value_len > 0 && value[0] == ' ')
        {
          value++;
          value_len--;
        }
    }
  else
    {
      field_len = len;
      value = "";
      value_len = 0;
    }

  if (field_is (line, field_len, "data", 4))
    {
      if (self->data->len + value_len + 1 > self->max_line)
        return fail_too_long (self, TRUE, error);
      g_string_append_len (self->data, value, value_len);
      g_string_append_c (self->data, '\n');
    }
  else if (field_is (line, field_len, "event", 5))
    {
      g_string_truncate (self->event_type, 0);
      g_string_append_len (self->event_type, value, value_len);
    }
  else if (field_is (line, field_len, "id", 2))
    {
      if (memchr (value, '\0', value_len) == NULL)
        {
          g_string_truncate (self->last_event_id, 0);
          g_string_append_len (self->last_event_id, value, value_len);
        }
    }
  else if (field_is (line, field_len, "retry", 5))
    {
      set_retry (self, value, value_len);
    }

  /* Any other field is ignored, as the spec says. */
  return TRUE;
}

/* Consumes a leading BOM, which may arrive split over several feeds. Returns how many
 * bytes of data it took. */
static gsize
skip_bom (RelaySseParser *self,
          const char     *data,
          gsize           len)
{
  gsize i = 0;

  while (self->bom_matched < 3 && i < len)
    {
      if ((guint8) data[i] != utf8_bom[self->bom_matched])
        {
          /* Not a BOM after all: what matched so far is ordinary (if odd) line content. */
          g_byte_array_append (self->line, utf8_bom, self->bom_matched);
          self->bom_matched = 3;
          return i;
        }

      self->bom_matched++;
      i++;
    }

  return i;
}

gboolean
relay_sse_parser_feed (RelaySseParser  *self,
                       const char      *data,
                       gsize            len,
                       GError         **error)
{
  const char *p;
  const char *end;
  const char *next_lf;
  const char *next_cr;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->stopped)
    return FALSE;

  if (len == 0)
    return TRUE;

  p = data;
  end = data + len;

  if (self->bom_matched < 3)
    {
      p += skip_bom (self, p, len);
      if (p == end)
        return TRUE;
    }

  if (self->skip_lf)
    {
      self->skip_lf = FALSE;
      if (*p == '\n' && ++p == end)
        return TRUE;
    }

  /* Remember where the next CR and LF are, so that a stream without CRs is scanned for
   * them once per feed rather than once per line. */
  next_lf = memchr (p, '\n', end - p);
  next_cr = memchr (p, '\r', end - p);

  while (p < end)
    {
      const char *eol;
      const char *line;
      gsize line_len;
      gboolean ok;

      if (next_lf != NULL && next_lf < p)
        next_lf = memchr (p, '\n', end - p);
      if (next_cr != NULL && next_cr < p)
        next_cr = memchr (p, '\r', end - p);

      if (next_lf == NULL)
        eol = next_cr;
      else if (next_cr == NULL)
        eol = next_lf;
      else
        eol = MIN (next_lf, next_cr);

      if (eol == NULL)
        {
          if ((gsize) self->line->len + (gsize) (end - p) > self->max_line)
            return fail_too_long (self, FALSE, error);
          g_byte_array_append (self->line, (const guint8 *) p, end - p);
          return TRUE;
        }

      if (self->line->len > 0)
        {
          if ((gsize) self->line->len + (gsize) (eol - p) > self->max_line)
            return fail_too_long (self, FALSE, error);
          g_byte_array_append (self->line, (const guint8 *) p, eol - p);
          line = (const char *) self->line->data;
          line_len = self->line->len;
        }
      else
        {
          line = p;
          line_len = eol - p;
          if (line_len > self->max_line)
            return fail_too_long (self, FALSE, error);
        }

      /* A CR ends the line at once; an LF right after it belongs to the same line end,
       * even when it only arrives with the next feed. */
      p = eol + 1;
      if (*eol == '\r')
        {
          if (p == end)
            self->skip_lf = TRUE;
          else if (*p == '\n')
            p++;
        }

      ok = process_line (self, line, line_len, error);
      g_byte_array_set_size (self->line, 0);

      if (!ok || self->stopped)
        return FALSE;
    }

  return TRUE;
}

gboolean
relay_sse_parser_finish (RelaySseParser *self)
{
  gboolean pending;

  g_return_val_if_fail (self != NULL, FALSE);

  if (!self->stopped)
    {
      /* A stream that was nothing but the start of a BOM. */
      if (self->bom_matched < 3)
        {
          g_byte_array_append (self->line, utf8_bom, self->bom_matched);
          self->bom_matched = 3;
        }

      /* A non-empty unterminated line can only add to the event, never dispatch it. */
      if (self->line->len > 0)
        process_line (self, (const char *) self->line->data, self->line->len, NULL);
    }

  pending = self->data->len > 0;

  g_byte_array_set_size (self->line, 0);
  g_string_truncate (self->data, 0);
  g_string_truncate (self->event_type, 0);
  self->skip_lf = FALSE;

  return pending;
}

gint64
relay_sse_parser_get_retry (RelaySseParser *self)
{
  g_return_val_if_fail (self != NULL, -1);

  return self->retry;
}

guint64
relay_sse_parser_get_n_events (RelaySseParser *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_events;
}
