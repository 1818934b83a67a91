/* test-sse-parser.c: the event-stream parser against the WHATWG rules, against recorded
 * streams split at every byte, and at its limits.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "relay-sse-parser.h"

typedef struct
{
  GPtrArray *events;   /* GString "type|data|id" */
  guint      stop_after;   /* 0: never stop */
} Collector;

static gboolean
collect (const char *event_type,
         const char *data,
         gsize       data_len,
         const char *last_event_id,
         gpointer    user_data)
{
  Collector *c = user_data;
  GString *str = g_string_new (event_type);

  /* The spec promises data_len bytes plus a terminating NUL. */
  g_assert_cmpint (data[data_len], ==, '\0');

  g_string_append_c (str, '|');
  g_string_append_len (str, data, data_len);
  g_string_append_c (str, '|');
  g_string_append (str, last_event_id);
  g_ptr_array_add (c->events, str);

  return c->stop_after == 0 || c->events->len < c->stop_after;
}

static void
free_event (gpointer data)
{
  g_string_free (data, TRUE);
}

static const char *
event_at (Collector *c,
          guint      i)
{
  return ((GString *) c->events->pdata[i])->str;
}

static void
collector_init (Collector *c)
{
  c->events = g_ptr_array_new_with_free_func (free_event);
  c->stop_after = 0;
}

static void
collector_clear (Collector *c)
{
  g_clear_pointer (&c->events, g_ptr_array_unref);
}

/* Feeds data in pieces of at most step bytes (0: whole) and returns the events as one
 * string, one per line, with "pending" or "complete" at the end. */
static char *
parse_in_steps (const char *data,
                gsize       len,
                gsize       step)
{
  g_autoptr(RelaySseParser) parser = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  Collector c;
  gboolean pending;

  collector_init (&c);
  parser = relay_sse_parser_new (0, collect, &c);

  if (step == 0)
    step = MAX (len, 1);

  for (gsize off = 0; off < len; off += step)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (relay_sse_parser_feed (parser, data + off, MIN (step, len - off), &error));
      g_assert_no_error (error);
    }
  pending = relay_sse_parser_finish (parser);

  g_assert_cmpuint (relay_sse_parser_get_n_events (parser), ==, c.events->len);
  for (guint i = 0; i < c.events->len; i++)
    {
      GString *event = c.events->pdata[i];

      g_string_append_len (out, event->str, event->len);
      g_string_append_c (out, '\n');
    }
  g_string_append (out, pending ? "pending" : "complete");

  collector_clear (&c);

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Parses in two pieces split at pos. */
static char *
parse_split (const char *data,
             gsize       len,
             gsize       pos)
{
  g_autoptr(RelaySseParser) parser = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  Collector c;
  gboolean pending;

  collector_init (&c);
  parser = relay_sse_parser_new (0, collect, &c);

  g_assert_true (relay_sse_parser_feed (parser, data, pos, NULL));
  g_assert_true (relay_sse_parser_feed (parser, data + pos, len - pos, NULL));
  pending = relay_sse_parser_finish (parser);

  for (guint i = 0; i < c.events->len; i++)
    {
      GString *event = c.events->pdata[i];

      g_string_append_len (out, event->str, event->len);
      g_string_append_c (out, '\n');
    }
  g_string_append (out, pending ? "pending" : "complete");

  collector_clear (&c);

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Every stream is checked whole, byte by byte and in odd pieces: the result must not
 * depend on how the network cut it. */
static void
check_stream (const char *input,
              const char *expected)
{
  gsize len = strlen (input);
  static const gsize steps[] = { 0, 1, 2, 3, 7 };

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      g_autofree char *got = parse_in_steps (input, len, steps[i]);

      if (g_strcmp0 (got, expected) != 0)
        g_test_message ("step %" G_GSIZE_FORMAT, steps[i]);
      g_assert_cmpstr (got, ==, expected);
    }
}

static void
test_spec_examples (void)
{
  /* The examples of the HTML standard's "server-sent events" section. */
  check_stream ("data: This is the first message.\n"
                "\n"
                "data: This is the second message, it\n"
                "data: has two lines.\n"
                "\n"
                "data: This is the third message.\n"
                "\n",
                "message|This is the first message.|\n"
                "message|This is the second message, it\nhas two lines.|\n"
                "message|This is the third message.|\n"
                "complete");

  check_stream ("event: add\n"
                "data: 73857293\n"
                "\n"
                "event: remove\n"
                "data: 2153\n"
                "\n"
                "event: add\n"
                "data: 113411\n"
                "\n",
                "add|73857293|\n"
                "remove|2153|\n"
                "add|113411|\n"
                "complete");

  check_stream ("data: YHOO\n"
                "data: +2\n"
                "data: 10\n"
                "\n",
                "message|YHOO\n+2\n10|\n"
                "complete");

  /* Comments, id handling (an "id" line without colon empties the id) and removal of only
   * one space after the colon. */
  check_stream (": test stream\n"
                "\n"
                "data: first event\n"
                "id: 1\n"
                "\n"
                "data:second event\n"
                "id\n"
                "\n"
                "data:  third event\n"
                "\n",
                "message|first event|1\n"
                "message|second event|\n"
                "message| third event|\n"
                "complete");

  /* "data" alone and "data:" give empty data; an unfinished last block is discarded. */
  check_stream ("data\n"
                "\n"
                "data\n"
                "data\n"
                "\n"
                "data:\n",
                "message||\n"
                "message|\n|\n"
                "pending");

  check_stream ("data:test\n"
                "\n"
                "data: test\n"
                "\n",
                "message|test|\n"
                "message|test|\n"
                "complete");
}

static void
test_fields (void)
{
  /* The last event id persists across events until set again. */
  check_stream ("id: 7\ndata: a\n\ndata: b\n\nid: 8\ndata: c\n\n",
                "message|a|7\nmessage|b|7\nmessage|c|8\ncomplete");

  /* The event type resets after each dispatch, also when nothing was dispatched. */
  check_stream ("event: foo\ndata: a\n\ndata: b\n\nevent: bar\n\ndata: c\n\n",
                "foo|a|\nmessage|b|\nmessage|c|\ncomplete");

  /* Unknown fields, a field name with trailing space, and odd cases are ignored. */
  check_stream ("foo: bar\ndata : x\nDATA: y\n:data: z\ndata: ok\n\n",
                "message|ok|\ncomplete");

  /* Colons after the first belong to the value. */
  check_stream ("data: a: b:c\n\n", "message|a: b:c|\ncomplete");

  /* A blank line with nothing before it dispatches nothing. */
  check_stream ("\n\n\n\ndata: x\n\n\n", "message|x|\ncomplete");

  /* No terminator at all: the final line is read but its event is not dispatched. */
  check_stream ("data: a\n\ndata: b", "message|a|\npending");
  check_stream ("data: a\n\n: comment only", "message|a|\ncomplete");
}

static void
test_id_with_nul (void)
{
  static const char input[] = "id: 5\ndata: a\n\nid: x\0y\ndata: b\n\n";
  g_autofree char *got = parse_in_steps (input, sizeof input - 1, 0);

  g_assert_cmpstr (got, ==, "message|a|5\nmessage|b|5\ncomplete");
}

static void
test_retry (void)
{
  static const struct {
    const char *input;
    gint64      retry;
  } cases[] = {
    { "retry: 3000\n", 3000 },
    { "retry:250\n", 250 },
    { "retry: 3000\nretry: 30x\n", 3000 },
    { "retry: -5\n", -1 },
    { "retry:\n", -1 },
    { "retry\n", -1 },
    { "retry:  12\n", -1 },            /* the second space is part of the value */
    { "retry: 99999999999999999999999\n", -1 },
    { "retry: 42", 42 },               /* unterminated: read at finish */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Collector c;
      g_autoptr(RelaySseParser) parser = NULL;

      collector_init (&c);
      parser = relay_sse_parser_new (0, collect, &c);
      g_assert_cmpint (relay_sse_parser_get_retry (parser), ==, -1);
      g_assert_true (relay_sse_parser_feed (parser, cases[i].input, strlen (cases[i].input),
                                            NULL));
      g_assert_false (relay_sse_parser_finish (parser));
      g_assert_cmpint (relay_sse_parser_get_retry (parser), ==, cases[i].retry);
      g_assert_cmpuint (c.events->len, ==, 0);
      collector_clear (&c);
    }
}

static void
test_line_ends (void)
{
  /* CR, CRLF and LF mixed; CR CR and LF CR are two line ends each. */
  check_stream ("data: a\rdata: b\r\ndata: c\n\r\n", "message|a\nb\nc|\ncomplete");
  check_stream ("data: x\r\rdata: y\n\rdata: z\r\n\r\n",
                "message|x|\nmessage|y|\nmessage|z|\ncomplete");
  check_stream ("event: e\r\ndata: 1\r\n\r\n", "e|1|\ncomplete");
  check_stream ("data: only CR\r\r", "message|only CR|\ncomplete");
}

static void
test_cr_at_split (void)
{
  Collector c;
  g_autoptr(RelaySseParser) parser = NULL;

  collector_init (&c);
  parser = relay_sse_parser_new (0, collect, &c);

  /* The blank line ends in CR: the event must go out now, not when the next bytes come. */
  g_assert_true (relay_sse_parser_feed (parser, "data: x\n\r", 9, NULL));
  g_assert_cmpuint (c.events->len, ==, 1);
  g_assert_cmpstr (event_at (&c, 0), ==, "message|x|");

  /* The LF that follows completes that CRLF: it is not a second blank line, so "a" and
   * "b" stay in one event. */
  g_assert_true (relay_sse_parser_feed (parser, "data: a\r", 8, NULL));
  g_assert_true (relay_sse_parser_feed (parser, "\ndata: b\r", 9, NULL));
  g_assert_true (relay_sse_parser_feed (parser, "\n", 1, NULL));
  g_assert_cmpuint (c.events->len, ==, 1);
  g_assert_true (relay_sse_parser_feed (parser, "\r", 1, NULL));
  g_assert_cmpuint (c.events->len, ==, 2);
  g_assert_cmpstr (event_at (&c, 1), ==, "message|a\nb|");

  /* Only one LF is swallowed: an LF after that ends a (blank) line of its own. */
  g_assert_true (relay_sse_parser_feed (parser, "data: c\r", 8, NULL));
  g_assert_true (relay_sse_parser_feed (parser, "\n\n", 2, NULL));
  g_assert_cmpuint (c.events->len, ==, 3);
  g_assert_cmpstr (event_at (&c, 2), ==, "message|c|");

  g_assert_false (relay_sse_parser_finish (parser));
  collector_clear (&c);
}

static void
test_bom (void)
{
  check_stream ("\xEF\xBB\xBF" "data: a\n\n", "message|a|\ncomplete");
  /* Only a BOM at the very start is skipped: later, it makes an unknown field name. */
  check_stream ("data: a\n\n\xEF\xBB\xBF" "data: b\n\n", "message|a|\ncomplete");
  check_stream ("\xEF\xBB\xBF\xEF\xBB\xBF" "data: a\n\n", "complete");
  /* The start of a BOM that is not one is kept as line content. */
  check_stream ("\xEF\xBB" "data: a\n\ndata: b\n\n", "message|b|\ncomplete");
  check_stream ("\xEF\xBB\xBF", "complete");
  check_stream ("\xEF", "complete");
  /* A BOM followed straight by a blank line ending in CRLF. */
  check_stream ("\xEF\xBB\xBF\r\ndata: a\r\n\r\n", "message|a|\ncomplete");
}

static void
test_binary_data (void)
{
  /* Bytes are passed through: invalid UTF-8 and NULs inside data must not cut or crash. */
  static const char input[] = "data: \xFF\xFE\0z\n\n";
  g_autofree char *got = parse_in_steps (input, sizeof input - 1, 1);

  g_assert_cmpmem (got, 12, "message|\xFF\xFE\0z|", 12);
}

static char *
load_stream (const char *name,
             gsize      *len)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "streams", name, NULL);
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, len, &error);
  g_assert_no_error (error);

  return contents;
}

/* Rewrites every LF as the given line end. */
static char *
with_line_ends (const char *text,
                const char *eol)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  return g_strjoinv (eol, lines);
}

static void
check_every_split (const char *text,
                   guint       min_events)
{
  gsize len = strlen (text);
  g_autofree char *whole = parse_in_steps (text, len, 0);
  g_autofree char *bytewise = parse_in_steps (text, len, 1);
  guint n_lines = 0;

  for (const char *p = whole; *p; p++)
    n_lines += *p == '\n';
  g_assert_cmpuint (n_lines, >=, min_events);
  g_assert_true (g_str_has_suffix (whole, "complete"));

  g_assert_cmpstr (bytewise, ==, whole);

  for (gsize pos = 0; pos <= len; pos++)
    {
      g_autofree char *got = parse_split (text, len, pos);

      if (g_strcmp0 (got, whole) != 0)
        g_test_message ("split at byte %" G_GSIZE_FORMAT, pos);
      g_assert_cmpstr (got, ==, whole);
    }
}

static void
test_recorded_splits (gconstpointer data)
{
  const char *name = data;
  gsize len;
  g_autofree char *text = load_stream (name, &len);
  g_autofree char *lf = NULL;
  g_autofree char *crlf = NULL;
  g_autofree char *cr = NULL;
  g_autofree char *whole_lf = NULL;
  g_autofree char *whole_crlf = NULL;
  g_autofree char *whole_cr = NULL;
  g_autofree char *with_bom = NULL;
  g_autofree char *whole_bom = NULL;

  g_assert_cmpuint (strlen (text), ==, len);

  /* Normalise the file's own line ends, then try all three: a CRLF cut in two by a feed
   * boundary is the case a naive parser gets wrong. */
  {
    g_auto(GStrv) parts = g_strsplit (text, "\r\n", -1);
    lf = g_strjoinv ("\n", parts);
  }
  crlf = with_line_ends (lf, "\r\n");
  cr = with_line_ends (lf, "\r");

  check_every_split (lf, 3);
  check_every_split (crlf, 3);
  check_every_split (cr, 3);

  whole_lf = parse_in_steps (lf, strlen (lf), 0);
  whole_crlf = parse_in_steps (crlf, strlen (crlf), 0);
  whole_cr = parse_in_steps (cr, strlen (cr), 0);
  g_assert_cmpstr (whole_crlf, ==, whole_lf);
  g_assert_cmpstr (whole_cr, ==, whole_lf);

  /* A BOM split at every position must vanish as well. */
  with_bom = g_strconcat ("\xEF\xBB\xBF", crlf, NULL);
  check_every_split (with_bom, 3);
  whole_bom = parse_in_steps (with_bom, strlen (with_bom), 0);
  g_assert_cmpstr (whole_bom, ==, whole_lf);
}

static void
test_line_cap (void)
{
  Collector c;
  g_autoptr(GError) error = NULL;
  char line[200];

  collector_init (&c);

  /* A line of exactly max_line bytes is accepted, one more is not. */
  {
    g_autoptr(RelaySseParser) parser = relay_sse_parser_new (64, collect, &c);

    memset (line, 'a', sizeof line);
    memcpy (line, "data:", 5);
    line[64] = '\n';
    line[65] = '\n';
    g_assert_true (relay_sse_parser_feed (parser, line, 66, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (c.events->len, ==, 1);

    line[64] = 'a';
    line[65] = 'a';
    line[100] = '\n';
    g_assert_false (relay_sse_parser_feed (parser, line, 101, &error));
    g_assert_error (error, RELAY_SSE_ERROR, RELAY_SSE_ERROR_LINE_TOO_LONG);
    g_assert_nonnull (strstr (error->message, "64 bytes"));
    g_clear_error (&error);

    /* The stream stays stopped. */
    g_assert_false (relay_sse_parser_feed (parser, "data: x\n\n", 9, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (c.events->len, ==, 1);
  }

  /* A long line that arrives in pieces is caught before it is all buffered. */
  {
    g_autoptr(RelaySseParser) parser = relay_sse_parser_new (1024, collect, &c);
    gboolean ok = TRUE;
    guint fed = 0;

    memset (line, 'b', sizeof line);
    while (ok && fed < 100)
      {
        ok = relay_sse_parser_feed (parser, line, sizeof line, &error);
        fed++;
      }
    g_assert_false (ok);
    g_assert_cmpuint (fed, ==, 6);
    g_assert_error (error, RELAY_SSE_ERROR, RELAY_SSE_ERROR_LINE_TOO_LONG);
    g_assert_nonnull (strstr (error->message, "1 KiB"));
    g_clear_error (&error);
  }

  /* The data of one event is capped too, though each line is short. */
  {
    g_autoptr(RelaySseParser) parser = relay_sse_parser_new (64, collect, &c);
    const char *chunk = "data: 0123456789\n";
    gboolean ok = TRUE;
    guint fed = 0;

    while (ok && fed < 100)
      {
        ok = relay_sse_parser_feed (parser, chunk, strlen (chunk), &error);
        fed++;
      }
    g_assert_false (ok);
    g_assert_cmpuint (fed, ==, 6);
    g_assert_error (error, RELAY_SSE_ERROR, RELAY_SSE_ERROR_LINE_TOO_LONG);
    g_clear_error (&error);
  }

  collector_clear (&c);
}

static void
test_default_cap_message (void)
{
  Collector c;
  g_autoptr(RelaySseParser) parser = NULL;
  g_autoptr(GError) error = NULL;
  gsize len = 16 * 1024 * 1024 + 1;
  g_autofree char *big = g_malloc (len);

  collector_init (&c);
  parser = relay_sse_parser_new (0, collect, &c);
  memset (big, 'x', len);

  g_assert_false (relay_sse_parser_feed (parser, big, len, &error));
  g_assert_error (error, RELAY_SSE_ERROR, RELAY_SSE_ERROR_LINE_TOO_LONG);
  g_assert_cmpstr (error->message, ==,
                   "an event-stream line exceeded 16 MiB; the stream was stopped");
  collector_clear (&c);
}

static void
test_callback_stop (void)
{
  Collector c;
  g_autoptr(RelaySseParser) parser = NULL;
  g_autoptr(GError) error = NULL;
  const char *input = "data: 1\n\ndata: 2\n\ndata: 3\n\n";

  collector_init (&c);
  c.stop_after = 2;
  parser = relay_sse_parser_new (0, collect, &c);

  g_assert_false (relay_sse_parser_feed (parser, input, strlen (input), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, 2);
  g_assert_cmpuint (relay_sse_parser_get_n_events (parser), ==, 2);

  g_assert_false (relay_sse_parser_feed (parser, input, strlen (input), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (c.events->len, ==, 2);

  collector_clear (&c);
}

int
main (int   argc,
      char *argv[])
{
  static const char * const streams[] = {
    "openai-basic.sse", "openai-reasoning.sse", "openai-reasoning-field.sse",
    "openai-tool.sse", "openai-error.sse", "anthropic-basic.sse", "anthropic-thinking.sse",
    "anthropic-error.sse",
  };

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sse-parser/spec-examples", test_spec_examples);
  g_test_add_func ("/sse-parser/fields", test_fields);
  g_test_add_func ("/sse-parser/id-with-nul", test_id_with_nul);
  g_test_add_func ("/sse-parser/retry", test_retry);
  g_test_add_func ("/sse-parser/line-ends", test_line_ends);
  g_test_add_func ("/sse-parser/cr-at-split", test_cr_at_split);
  g_test_add_func ("/sse-parser/bom", test_bom);
  g_test_add_func ("/sse-parser/binary-data", test_binary_data);
  g_test_add_func ("/sse-parser/line-cap", test_line_cap);
  g_test_add_func ("/sse-parser/default-cap-message", test_default_cap_message);
  g_test_add_func ("/sse-parser/callback-stop", test_callback_stop);

  for (guint i = 0; i < G_N_ELEMENTS (streams); i++)
    {
      g_autofree char *path = g_strdup_printf ("/sse-parser/recorded-splits/%s", streams[i]);

      g_test_add_data_func (path, streams[i], test_recorded_splits);
    }

  return g_test_run ();
}
