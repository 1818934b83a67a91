/* test-charts.c: the chart painters, checked by reading back pixels of image surfaces.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "relay-chart-export.h"
#include "relay-chart-palette.h"
#include "relay-run.h"
#include "relay-stream-painter.h"
#include "relay-waterfall-painter.h"

#define MS(x) ((gint64) ((x) * 1000))

/* Helpers. */

typedef struct
{
  cairo_surface_t *surface;
  cairo_t         *cr;
} Canvas;

static Canvas
canvas_new (int width,
            int height)
{
  Canvas canvas;

  canvas.surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  canvas.cr = cairo_create (canvas.surface);

  return canvas;
}

static void
canvas_free (Canvas *canvas)
{
  g_clear_pointer (&canvas->cr, cairo_destroy);
  g_clear_pointer (&canvas->surface, cairo_surface_destroy);
}

static guint32
pixel_at (cairo_surface_t *surface,
          double           x,
          double           y)
{
  int ix = (int) floor (x);
  int iy = (int) floor (y);
  const guchar *data;

  cairo_surface_flush (surface);
  g_assert_cmpint (ix, >=, 0);
  g_assert_cmpint (iy, >=, 0);
  g_assert_cmpint (ix, <, cairo_image_surface_get_width (surface));
  g_assert_cmpint (iy, <, cairo_image_surface_get_height (surface));

  data = cairo_image_surface_get_data (surface);
  return *(const guint32 *) (gconstpointer) (data + iy * cairo_image_surface_get_stride (surface) + ix * 4);
}

static guint32
color_to_pixel (const RelayChartColor *color)
{
  return 0xff000000u |
         (guint32) lround (color->red * 255) << 16 |
         (guint32) lround (color->green * 255) << 8 |
         (guint32) lround (color->blue * 255);
}

static int
pixel_distance (guint32 a,
                guint32 b)
{
  int d = 0;

  for (int shift = 0; shift <= 16; shift += 8)
    d = MAX (d, ABS ((int) ((a >> shift) & 0xff) - (int) ((b >> shift) & 0xff)));

  return d;
}

static void
assert_pixel_color (cairo_surface_t       *surface,
                    double                 x,
                    double                 y,
                    const RelayChartColor *expected,
                    const char            *what)
{
  guint32 got = pixel_at (surface, x, y);
  guint32 want = color_to_pixel (expected);

  if (pixel_distance (got, want) > 2)
    g_error ("%s: pixel at (%.1f, %.1f) is #%06x, expected #%06x", what, x, y,
             got & 0xffffff, want & 0xffffff);
}

static RelayTrace *
add_trace (RelaySession *session,
           guint         run,
           guint         seq)
{
  g_autoptr(RelayTrace) trace = relay_trace_new (run, seq);

  relay_trace_set_mark (trace, RELAY_MARK_START, 0);
  relay_session_add_trace (session, trace);

  return trace;  /* the session keeps it */
}

/* A cold trace with every stage and known times (ms). */
static void
set_full_marks (RelayTrace *trace)
{
  static const struct { RelayMark mark; double ms; } marks[] = {
    { RELAY_MARK_DNS_START, 0 },
    { RELAY_MARK_DNS_END, 10 },
    { RELAY_MARK_CONNECT_START, 10 },
    { RELAY_MARK_TCP_END, 20 },
    { RELAY_MARK_TLS_START, 25 },
    { RELAY_MARK_TLS_END, 40 },
    { RELAY_MARK_REQUEST_START, 40 },
    { RELAY_MARK_REQUEST_END, 50 },
    { RELAY_MARK_RESPONSE_START, 300 },
    { RELAY_MARK_FIRST_BYTE, 310 },
    { RELAY_MARK_FIRST_EVENT, 320 },
    { RELAY_MARK_FIRST_TOKEN, 350 },
    { RELAY_MARK_FIRST_CONTENT, 400 },
    { RELAY_MARK_LAST_TOKEN, 800 },
    { RELAY_MARK_END, 850 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (marks); i++)
    relay_trace_set_mark (trace, marks[i].mark, MS (marks[i].ms));
}

/* A simple trace with a given time to first token (ms). */
static void
set_ttft_marks (RelayTrace *trace,
                double      ttft)
{
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, 0);
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, MS (10));
  relay_trace_set_mark (trace, RELAY_MARK_RESPONSE_START, MS (ttft - 20));
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_EVENT, MS (ttft - 10));
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, MS (ttft));
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_CONTENT, MS (ttft));
  relay_trace_set_mark (trace, RELAY_MARK_LAST_TOKEN, MS (ttft + 100));
  relay_trace_set_mark (trace, RELAY_MARK_END, MS (ttft + 110));
}

static double
row_center_y (RelayWaterfallPainter *painter,
              guint                  row)
{
  return relay_waterfall_painter_get_header_height (painter) +
         (row + 0.5) * relay_waterfall_painter_get_row_height (painter);
}

/* Palette and helpers. */

static void
test_palette (void)
{
  for (guint dark = 0; dark < 2; dark++)
    {
      RelayChartStyle style;

      relay_chart_style_init (&style, dark);
      g_assert_true (style.dark == (gboolean) dark);
      g_assert_cmpstr (style.font, !=, "");

      for (guint a = 0; a < RELAY_N_STAGES; a++)
        {
          guint32 pa = color_to_pixel (relay_chart_stage_color (a, dark));

          g_assert_nonnull (relay_chart_stage_label (a));
          /* Every stage stands apart from the background and from every other stage. */
          g_assert_cmpint (pixel_distance (pa, color_to_pixel (&style.background)), >, 30);
          for (guint b = a + 1; b < RELAY_N_STAGES; b++)
            g_assert_cmpint (pixel_distance (pa, color_to_pixel (relay_chart_stage_color (b, dark))), >, 20);
        }
    }

  g_assert_cmpint (relay_chart_stage_pattern (RELAY_STAGE_OTHER), ==, RELAY_CHART_PATTERN_HATCH);
  g_assert_cmpint (relay_chart_stage_pattern (RELAY_STAGE_WAIT), ==, RELAY_CHART_PATTERN_SOLID);
  g_assert_true (relay_chart_series_color (0, FALSE) != relay_chart_series_color (1, FALSE));
  /* Series never wear the error colour, which marks stalls and failures on the same chart. */
  for (guint dark = 0; dark < 2; dark++)
    {
      RelayChartStyle style;

      relay_chart_style_init (&style, dark);
      for (guint i = 0; i < relay_chart_series_n_colors (); i++)
        g_assert_cmpint (pixel_distance (color_to_pixel (relay_chart_series_color (i, dark)),
                                         color_to_pixel (&style.error)), >, 45);
    }
  g_assert_true (relay_chart_series_color (0, FALSE) ==
                 relay_chart_series_color (relay_chart_series_n_colors (), FALSE));
}

static void
test_nice_ticks (void)
{
  double first;
  struct { double ms; const char *text; } labels[] = {
    { 0, "0" }, { 250, "250 ms" }, { 1000, "1 s" }, { 1500, "1.5 s" }, { 0.25, "0.25 ms" },
    { 12500, "12.5 s" },
  };

  g_assert_cmpfloat_with_epsilon (relay_chart_nice_step (0, 1000, 5, &first), 200, 1e-9);
  g_assert_cmpfloat_with_epsilon (first, 0, 1e-9);
  g_assert_cmpfloat_with_epsilon (relay_chart_nice_step (0, 1000, 10, &first), 100, 1e-9);
  g_assert_cmpfloat_with_epsilon (relay_chart_nice_step (0, 7, 3, &first), 5, 1e-9);
  g_assert_cmpfloat_with_epsilon (relay_chart_nice_step (130, 870, 4, &first), 200, 1e-9);
  g_assert_cmpfloat_with_epsilon (first, 200, 1e-9);
  g_assert_cmpfloat_with_epsilon (relay_chart_nice_step (0, 3, 6, &first), 0.5, 1e-9);

  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      g_autofree char *text = relay_chart_format_ms (labels[i].ms);

      g_assert_cmpstr (text, ==, labels[i].text);
    }
}

/* Waterfall. */

static void
test_waterfall_stages (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayRun) run = relay_run_new ("alpha", "model-a");
  g_autoptr(RelayWaterfallPainter) painter = relay_waterfall_painter_new ();
  const RelayChartStyle *style;
  RelaySegment segments[RELAY_N_MARKS + 1];
  RelayWaterfallHit hit;
  RelayTrace *trace;
  Canvas canvas = canvas_new (1200, 200);
  double y, x;
  guint n;

  trace = add_trace (session, relay_session_add_run (session, run), 1);
  set_full_marks (trace);

  relay_waterfall_painter_set_traces (painter, relay_session_get_traces (session), session);
  relay_waterfall_painter_set_view (painter, 0, 1000);
  relay_waterfall_painter_draw (painter, canvas.cr, 1200, 200);
  style = relay_waterfall_painter_get_style (painter);

  g_assert_cmpuint (relay_waterfall_painter_get_n_rows (painter), ==, 1);
  y = row_center_y (painter, 0);
  g_assert_cmpfloat_with_epsilon (relay_waterfall_painter_get_trace_y (painter, trace) +
                                  relay_waterfall_painter_get_row_height (painter) / 2, y, 1e-9);

  n = relay_trace_get_segments (trace, segments, G_N_ELEMENTS (segments));
  g_assert_cmpuint (n, ==, 11);  /* DNS … TAIL with TLS setup in between */

  for (guint i = 0; i < n; i++)
    {
      double mid = (segments[i].begin_us + segments[i].end_us) / 2000.0;
      g_autofree char *what = g_strdup_printf ("stage %s", relay_stage_to_string (segments[i].stage));

      x = relay_waterfall_painter_time_to_x (painter, 1200, mid);
      assert_pixel_color (canvas.surface, x, y, relay_chart_stage_color (segments[i].stage, FALSE), what);

      g_assert_true (relay_waterfall_painter_hit_test (painter, 1200, x, y, &hit));
      g_assert_true (hit.trace == trace);
      g_assert_false (hit.in_label);
      g_assert_cmpint (hit.stage, ==, segments[i].stage);
      g_assert_cmpint (hit.begin_us, ==, segments[i].begin_us);
      g_assert_cmpint (hit.end_us, ==, segments[i].end_us);
      g_assert_cmpfloat (hit.x, <=, x);
      g_assert_cmpfloat (hit.x + hit.width, >=, x);
    }

  /* After the end: no bar, only the background. */
  x = relay_waterfall_painter_time_to_x (painter, 1200, 925);
  assert_pixel_color (canvas.surface, x, y, &style->background, "after the end");
  g_assert_true (relay_waterfall_painter_hit_test (painter, 1200, x, y, &hit));
  g_assert_cmpint (hit.stage, ==, RELAY_N_STAGES);

  /* The label column and the space below the rows. */
  g_assert_true (relay_waterfall_painter_hit_test (painter, 1200, 20, y, &hit));
  g_assert_true (hit.in_label);
  g_assert_true (hit.trace == trace);
  g_assert_false (relay_waterfall_painter_hit_test (painter, 1200, 600, 190, &hit));
  g_assert_null (hit.trace);

  /* x ↔ time round trip, and zooming keeps the anchor in place. */
  g_assert_cmpfloat_with_epsilon (relay_waterfall_painter_x_to_time (painter, 1200,
                                    relay_waterfall_painter_time_to_x (painter, 1200, 123.0)),
                                  123.0, 1e-6);
  x = relay_waterfall_painter_time_to_x (painter, 1200, 300);
  relay_waterfall_painter_zoom (painter, 4, 300);
  g_assert_cmpfloat_with_epsilon (relay_waterfall_painter_time_to_x (painter, 1200, 300), x, 1e-6);
  g_assert_false (relay_waterfall_painter_get_auto_fit (painter));

  /* Zoomed 4× around 300 ms, the wait segment (50–300) fills the left of the plot. */
  cairo_save (canvas.cr);
  relay_waterfall_painter_draw (painter, canvas.cr, 1200, 200);
  cairo_restore (canvas.cr);
  x = relay_waterfall_painter_time_to_x (painter, 1200, 260);
  assert_pixel_color (canvas.surface, x, y, relay_chart_stage_color (RELAY_STAGE_WAIT, FALSE), "zoomed wait");

  /* Auto fit shows the whole trace. */
  relay_waterfall_painter_reset_view (painter);
  {
    double t0, t1;

    relay_waterfall_painter_get_view (painter, &t0, &t1);
    g_assert_cmpfloat (t0, ==, 0);
    g_assert_cmpfloat (t1, >=, 850);
    g_assert_cmpfloat (t1, <, 1000);
  }

  canvas_free (&canvas);
}

static void
test_waterfall_sort_ttft (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayRun) run = relay_run_new ("alpha", "model-a");
  g_autoptr(RelayWaterfallPainter) painter = relay_waterfall_painter_new ();
  const double ttfts[] = { 300, 100, 200 };
  RelayTrace *traces[3];
  guint run_index = relay_session_add_run (session, run);
  Canvas canvas = canvas_new (1000, 200);
  double x;

  for (guint i = 0; i < G_N_ELEMENTS (ttfts); i++)
    {
      traces[i] = add_trace (session, run_index, i + 1);
      set_ttft_marks (traces[i], ttfts[i]);
    }

  relay_waterfall_painter_set_traces (painter, relay_session_get_traces (session), session);
  relay_waterfall_painter_set_view (painter, 0, 500);

  /* At 150 ms the slowest trace still waits, the fastest already streams. */
  relay_waterfall_painter_draw (painter, canvas.cr, 1000, 200);
  x = relay_waterfall_painter_time_to_x (painter, 1000, 150);
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 0),
                      relay_chart_stage_color (RELAY_STAGE_WAIT, FALSE), "start order, row 0");
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 1),
                      relay_chart_stage_color (RELAY_STAGE_STREAM, FALSE), "start order, row 1");

  relay_waterfall_painter_set_sort (painter, RELAY_WATERFALL_SORT_TTFT);
  relay_waterfall_painter_draw (painter, canvas.cr, 1000, 200);
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 0),
                      relay_chart_stage_color (RELAY_STAGE_STREAM, FALSE), "ttft order, row 0");
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 1),
                      relay_chart_stage_color (RELAY_STAGE_WAIT, FALSE), "ttft order, row 1");
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 2),
                      relay_chart_stage_color (RELAY_STAGE_WAIT, FALSE), "ttft order, row 2");

  g_assert_cmpfloat (relay_waterfall_painter_get_trace_y (painter, traces[1]), <,
                     relay_waterfall_painter_get_trace_y (painter, traces[2]));
  g_assert_cmpfloat (relay_waterfall_painter_get_trace_y (painter, traces[2]), <,
                     relay_waterfall_painter_get_trace_y (painter, traces[0]));

  canvas_free (&canvas);
}

static void
test_waterfall_groups (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayRun) run_a = relay_run_new ("alpha", "model-a");
  g_autoptr(RelayRun) run_b = relay_run_new ("beta", "model-b");
  g_autoptr(RelayWaterfallPainter) painter = relay_waterfall_painter_new ();
  guint a = relay_session_add_run (session, run_a);
  guint b = relay_session_add_run (session, run_b);
  RelayWaterfallHit hit;
  RelayTrace *t1, *t2, *t3;
  Canvas canvas = canvas_new (800, 200);
  double x;

  t1 = add_trace (session, a, 1);
  t2 = add_trace (session, b, 1);
  t3 = add_trace (session, a, 2);
  set_ttft_marks (t1, 100);
  set_ttft_marks (t2, 100);
  set_ttft_marks (t3, 100);

  relay_waterfall_painter_set_traces (painter, relay_session_get_traces (session), session);
  relay_waterfall_painter_set_group_by_endpoint (painter, TRUE);
  relay_waterfall_painter_set_view (painter, 0, 300);
  relay_waterfall_painter_draw (painter, canvas.cr, 800, 200);

  /* header alpha, t1, t3, header beta, t2 */
  g_assert_cmpuint (relay_waterfall_painter_get_n_rows (painter), ==, 5);
  x = relay_waterfall_painter_time_to_x (painter, 800, 150);
  g_assert_true (relay_waterfall_painter_hit_test (painter, 800, x, row_center_y (painter, 0), &hit));
  g_assert_null (hit.trace);
  g_assert_true (relay_waterfall_painter_hit_test (painter, 800, x, row_center_y (painter, 2), &hit));
  g_assert_true (hit.trace == t3);
  g_assert_true (relay_waterfall_painter_hit_test (painter, 800, x, row_center_y (painter, 4), &hit));
  g_assert_true (hit.trace == t2);
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 3),
                      &relay_waterfall_painter_get_style (painter)->group, "group header");
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 4),
                      relay_chart_stage_color (RELAY_STAGE_STREAM, FALSE), "grouped row");

  g_assert_cmpfloat_with_epsilon (relay_waterfall_painter_get_content_height (painter),
                                  relay_waterfall_painter_get_header_height (painter) +
                                  5 * relay_waterfall_painter_get_row_height (painter), 1e-9);

  canvas_free (&canvas);
}

static void
test_waterfall_live (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayWaterfallPainter) painter = relay_waterfall_painter_new ();
  const RelayChartStyle *style;
  const gint64 mono_start = 5000000000;
  RelayTrace *trace;
  Canvas canvas = canvas_new (1000, 100);
  double x, y, t0, t1;

  trace = add_trace (session, 0, 1);
  relay_trace_set_mono_start (trace, mono_start);
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, MS (10));
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, MS (50));
  g_assert_false (relay_trace_is_finished (trace));

  relay_waterfall_painter_set_traces (painter, relay_session_get_traces (session), NULL);
  relay_waterfall_painter_set_view (painter, 0, 1000);
  style = relay_waterfall_painter_get_style (painter);
  y = row_center_y (painter, 0);
  x = relay_waterfall_painter_time_to_x (painter, 1000, 500);

  relay_waterfall_painter_draw (painter, canvas.cr, 1000, 100);
  assert_pixel_color (canvas.surface, x, y, &style->background, "live, no clock");

  /* 600 ms after its start the trace is still waiting for the response. */
  relay_waterfall_painter_set_now (painter, mono_start + MS (600));
  relay_waterfall_painter_draw (painter, canvas.cr, 1000, 100);
  assert_pixel_color (canvas.surface, x, y, relay_chart_stage_color (RELAY_STAGE_WAIT, FALSE), "live at 600 ms");
  x = relay_waterfall_painter_time_to_x (painter, 1000, 700);
  assert_pixel_color (canvas.surface, x, y, &style->background, "live, beyond now");

  /* It keeps growing, and auto fit follows it. */
  relay_waterfall_painter_set_now (painter, mono_start + MS (800));
  relay_waterfall_painter_draw (painter, canvas.cr, 1000, 100);
  assert_pixel_color (canvas.surface, x, y, relay_chart_stage_color (RELAY_STAGE_WAIT, FALSE), "live at 800 ms");

  relay_waterfall_painter_reset_view (painter);
  relay_waterfall_painter_get_view (painter, &t0, &t1);
  g_assert_cmpfloat (t1, >=, 800);
  relay_waterfall_painter_set_now (painter, mono_start + MS (2000));
  relay_waterfall_painter_get_view (painter, &t0, &t1);
  g_assert_cmpfloat (t1, >=, 2000);

  /* Once it ends (at 650 ms) it stops growing, even before the painter re-reads it. */
  relay_trace_set_mark (trace, RELAY_MARK_END, MS (650));
  relay_waterfall_painter_set_view (painter, 0, 1000);
  relay_waterfall_painter_draw (painter, canvas.cr, 1000, 100);
  assert_pixel_color (canvas.surface, x, y, &style->background, "finished, beyond its end");
  x = relay_waterfall_painter_time_to_x (painter, 1000, 600);
  assert_pixel_color (canvas.surface, x, y, relay_chart_stage_color (RELAY_STAGE_WAIT, FALSE), "finished, before its end");

  canvas_free (&canvas);
}

static void
test_waterfall_error (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayWaterfallPainter) painter = relay_waterfall_painter_new ();
  const RelayChartStyle *style;
  RelayTrace *ok, *broken;
  Canvas canvas = canvas_new (1000, 100);
  double x;

  ok = add_trace (session, 0, 1);
  relay_trace_set_mark (ok, RELAY_MARK_DNS_START, 0);
  relay_trace_set_mark (ok, RELAY_MARK_DNS_END, MS (10));
  relay_trace_set_mark (ok, RELAY_MARK_CONNECT_START, MS (10));
  relay_trace_set_mark (ok, RELAY_MARK_TCP_END, MS (20));
  relay_trace_set_mark (ok, RELAY_MARK_TLS_START, MS (20));
  relay_trace_set_mark (ok, RELAY_MARK_TLS_END, MS (40));
  relay_trace_set_mark (ok, RELAY_MARK_REQUEST_START, MS (40));
  relay_trace_set_mark (ok, RELAY_MARK_REQUEST_END, MS (45));
  relay_trace_set_mark (ok, RELAY_MARK_RESPONSE_START, MS (200));
  relay_trace_set_mark (ok, RELAY_MARK_END, MS (210));

  /* The same connection, broken in the TLS handshake. */
  broken = add_trace (session, 0, 2);
  relay_trace_set_mark (broken, RELAY_MARK_DNS_START, 0);
  relay_trace_set_mark (broken, RELAY_MARK_DNS_END, MS (10));
  relay_trace_set_mark (broken, RELAY_MARK_CONNECT_START, MS (10));
  relay_trace_set_mark (broken, RELAY_MARK_TCP_END, MS (20));
  relay_trace_set_mark (broken, RELAY_MARK_TLS_START, MS (20));
  relay_trace_set_mark (broken, RELAY_MARK_END, MS (40));
  relay_trace_set_error (broken, RELAY_ERROR_STAGE_TLS, "bad-certificate", "The certificate is not trusted");

  relay_waterfall_painter_set_traces (painter, relay_session_get_traces (session), NULL);
  relay_waterfall_painter_set_view (painter, 0, 400);
  relay_waterfall_painter_draw (painter, canvas.cr, 1000, 100);
  style = relay_waterfall_painter_get_style (painter);

  /* Right at 40 ms: the broken row ends in a red cap, the good one carries on. */
  x = round (relay_waterfall_painter_time_to_x (painter, 1000, 40)) + 1;
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 1), &style->error, "error cap");
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 0),
                      relay_chart_stage_color (RELAY_STAGE_SEND, FALSE), "no cap on a good row");
  /* Before the break the broken row still shows its TLS segment. */
  x = relay_waterfall_painter_time_to_x (painter, 1000, 30);
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 1),
                      relay_chart_stage_color (RELAY_STAGE_TLS, FALSE), "tls before the break");

  canvas_free (&canvas);
}

static void
test_waterfall_dark_and_scroll (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayWaterfallPainter) painter = relay_waterfall_painter_new ();
  RelayChartStyle dark;
  RelayTrace *first = NULL;
  Canvas canvas = canvas_new (800, 120);
  double x, row_h;

  for (guint i = 0; i < 20; i++)
    {
      RelayTrace *trace = add_trace (session, 0, i + 1);

      set_ttft_marks (trace, 100 + 10 * i);
      if (i == 0)
        first = trace;
    }

  relay_chart_style_init (&dark, TRUE);
  relay_waterfall_painter_set_traces (painter, relay_session_get_traces (session), NULL);
  relay_waterfall_painter_set_style (painter, &dark);
  relay_waterfall_painter_set_view (painter, 0, 400);
  row_h = relay_waterfall_painter_get_row_height (painter);

  relay_waterfall_painter_draw (painter, canvas.cr, 800, 120);
  x = relay_waterfall_painter_time_to_x (painter, 800, 50);
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 0),
                      relay_chart_stage_color (RELAY_STAGE_WAIT, TRUE), "dark wait");
  x = relay_waterfall_painter_time_to_x (painter, 800, 390);
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 0), &dark.background, "dark background");

  /* Scrolled by 10 rows: row 10 sits where row 0 was; the first trace is off the top. */
  relay_waterfall_painter_set_scroll_offset (painter, 10 * row_h);
  relay_waterfall_painter_draw (painter, canvas.cr, 800, 120);
  g_assert_cmpfloat (relay_waterfall_painter_get_trace_y (painter, first), <, 0);
  /* Row 10 has TTFT 200 ms: at 150 ms it waits, row 0 (TTFT 100) would stream. */
  x = relay_waterfall_painter_time_to_x (painter, 800, 150);
  assert_pixel_color (canvas.surface, x, row_center_y (painter, 0),
                      relay_chart_stage_color (RELAY_STAGE_WAIT, TRUE), "scrolled row");

  canvas_free (&canvas);
}

static void
test_waterfall_large (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayRun) run = relay_run_new ("alpha", "model-a");
  g_autoptr(RelayWaterfallPainter) painter = relay_waterfall_painter_new ();
  guint run_index = relay_session_add_run (session, run);
  RelayTrace *big;
  Canvas canvas = canvas_new (1600, 900);
  gint64 begin;

  for (guint i = 0; i < 10000; i++)
    {
      RelayTrace *trace = add_trace (session, run_index, i + 1);

      set_ttft_marks (trace, 100 + (i * 7919) % 900);
    }

  big = add_trace (session, run_index, 10001);
  set_ttft_marks (big, 50);
  relay_trace_set_mark (big, RELAY_MARK_LAST_TOKEN, MS (50) + 1000000 * 20);
  relay_trace_set_mark (big, RELAY_MARK_END, MS (50) + 1000000 * 20 + 10);
  for (guint c = 0; c < 1000000; c++)
    relay_trace_add_chunk (big, MS (50) + (gint64) c * 20, RELAY_CHUNK_CONTENT, 12, 4);

  relay_waterfall_painter_set_traces (painter, relay_session_get_traces (session), session);
  relay_waterfall_painter_set_sort (painter, RELAY_WATERFALL_SORT_TTFT);
  g_assert_cmpuint (relay_waterfall_painter_get_n_rows (painter), ==, 10001);

  /* The fastest first token sorts first, so the big trace's row is on screen. */
  begin = g_get_monotonic_time ();
  relay_waterfall_painter_draw (painter, canvas.cr, 1600, 900);
  g_test_message ("10001 rows, 1e6 chunks: first frame %.1f ms", (g_get_monotonic_time () - begin) / 1000.0);
  g_assert_cmpint (cairo_status (canvas.cr), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpfloat (relay_waterfall_painter_get_trace_y (painter, big), ==,
                     relay_waterfall_painter_get_header_height (painter));
  assert_pixel_color (canvas.surface, relay_waterfall_painter_time_to_x (painter, 1600, 5000),
                      row_center_y (painter, 0), relay_chart_stage_color (RELAY_STAGE_STREAM, FALSE),
                      "big trace streams");

  begin = g_get_monotonic_time ();
  relay_waterfall_painter_draw (painter, canvas.cr, 1600, 900);
  g_test_message ("next frame %.1f ms", (g_get_monotonic_time () - begin) / 1000.0);

  /* A frame clipped to the middle of a scrolled list. */
  relay_waterfall_painter_set_scroll_offset (painter, 5000 * relay_waterfall_painter_get_row_height (painter));
  relay_waterfall_painter_set_view (painter, 0, 1200);
  begin = g_get_monotonic_time ();
  relay_waterfall_painter_draw (painter, canvas.cr, 1600, 900);
  g_test_message ("scrolled frame %.1f ms", (g_get_monotonic_time () - begin) / 1000.0);
  g_assert_cmpint (cairo_status (canvas.cr), ==, CAIRO_STATUS_SUCCESS);

  g_assert_cmpfloat (relay_waterfall_painter_get_content_height (painter), >=,
                     10001 * relay_waterfall_painter_get_row_height (painter));

  canvas_free (&canvas);
}

/* Stream painter. */

static RelayTrace *
add_streaming_trace (RelaySession *session,
                     guint         seq,
                     double        first_token_ms,
                     guint         n_chunks,
                     double        gap_ms,
                     guint         stall_at,
                     double        stall_ms)
{
  RelayTrace *trace = add_trace (session, 0, seq);
  double t = first_token_ms;

  relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, MS (first_token_ms));
  for (guint c = 0; c < n_chunks; c++)
    {
      if (c > 0)
        t += c == stall_at ? stall_ms : gap_ms;
      relay_trace_add_chunk (trace, MS (t), RELAY_CHUNK_CONTENT, 20, 5);
    }
  relay_trace_set_mark (trace, RELAY_MARK_LAST_TOKEN, MS (t));
  relay_trace_set_mark (trace, RELAY_MARK_END, MS (t + 5));

  return trace;
}

/* The plot is kept between frames; a new chunk (and its invalidation) must show. */
static void
test_stream_cache (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayStreamPainter) painter = relay_stream_painter_new ();
  const RelayChartStyle *style;
  RelayTrace *trace;
  Canvas first = canvas_new (800, 400);
  Canvas again = canvas_new (800, 400);
  Canvas later = canvas_new (800, 400);
  double x, y;

  trace = add_streaming_trace (session, 1, 100, 50, 20, 0, 0);
  relay_stream_painter_set_traces (painter, relay_session_get_traces (session), NULL);
  relay_stream_painter_set_mode (painter, RELAY_STREAM_MODE_GAPS);
  relay_stream_painter_set_stall_threshold (painter, 250);
  style = relay_stream_painter_get_style (painter);

  relay_stream_painter_draw (painter, first.cr, 800, 400);
  relay_stream_painter_draw (painter, again.cr, 800, 400);
  cairo_surface_flush (first.surface);
  cairo_surface_flush (again.surface);
  g_assert_cmpint (memcmp (cairo_image_surface_get_data (first.surface),
                           cairo_image_surface_get_data (again.surface),
                           cairo_image_surface_get_stride (first.surface) * 400), ==, 0);

  /* A 600 ms stall arrives: after invalidation it is drawn, in the stall colour. */
  relay_trace_add_chunk (trace, MS (100 + 49 * 20 + 600), RELAY_CHUNK_CONTENT, 20, 5);
  relay_stream_painter_invalidate (painter);
  relay_stream_painter_draw (painter, later.cr, 800, 400);
  relay_stream_painter_value_to_point (painter, 800, 400, 49 * 20 + 600, 600, &x, &y);
  assert_pixel_color (later.surface, x, y, &style->error, "new stall after invalidation");

  canvas_free (&first);
  canvas_free (&again);
  canvas_free (&later);
}

static void
test_stream_gaps (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayStreamPainter) painter = relay_stream_painter_new ();
  const RelayChartStyle *style;
  const RelayChartColor *series;
  RelayStreamHit hit;
  RelayTrace *trace;
  Canvas canvas = canvas_new (800, 400);
  double x, y;

  /* 50 chunks 20 ms apart from 100 ms on, one 600 ms stall before chunk 25. */
  trace = add_streaming_trace (session, 1, 100, 50, 20, 25, 600);

  relay_stream_painter_set_traces (painter, relay_session_get_traces (session), NULL);
  relay_stream_painter_set_mode (painter, RELAY_STREAM_MODE_GAPS);
  style = relay_stream_painter_get_style (painter);
  series = relay_chart_series_color (0, FALSE);

  /* Automatic threshold: 4 × the median gap. */
  g_assert_cmpfloat_with_epsilon (relay_stream_painter_get_effective_stall_threshold (painter), 80, 1e-9);
  relay_stream_painter_set_stall_threshold (painter, 250);
  g_assert_cmpfloat_with_epsilon (relay_stream_painter_get_effective_stall_threshold (painter), 250, 1e-9);

  relay_stream_painter_draw (painter, canvas.cr, 800, 400);

  /* The stall (chunk 25, at 24 × 20 + 600 ms since first token, gap 600 ms) is marked. */
  relay_stream_painter_value_to_point (painter, 800, 400, 24 * 20 + 600, 600, &x, &y);
  assert_pixel_color (canvas.surface, x, y, &style->error, "stall marked");

  /* An ordinary gap (chunk 10, at 200 ms, gap 20 ms) is drawn in the series colour. */
  relay_stream_painter_value_to_point (painter, 800, 400, 200, 20, &x, &y);
  assert_pixel_color (canvas.surface, x, y, series, "ordinary gap");

  /* A 20 ms gap drawn near zero would be wrong: a point well above it must be empty. */
  relay_stream_painter_value_to_point (painter, 800, 400, 200, 150, &x, &y);
  g_assert_cmpint (pixel_distance (pixel_at (canvas.surface, x, y), color_to_pixel (series)), >, 40);
  g_assert_cmpint (pixel_distance (pixel_at (canvas.surface, x, y), color_to_pixel (&style->error)), >, 40);

  /* With the threshold above the stall nothing is marked there. */
  relay_stream_painter_set_stall_threshold (painter, 1000);
  relay_stream_painter_draw (painter, canvas.cr, 800, 400);
  relay_stream_painter_value_to_point (painter, 800, 400, 24 * 20 + 600, 600, &x, &y);
  assert_pixel_color (canvas.surface, x, y, series, "stall under a higher threshold");

  g_assert_true (relay_stream_painter_hit_test (painter, 800, 400, x + 1, y + 1, 6, &hit));
  g_assert_true (hit.trace == trace);
  g_assert_cmpuint (hit.chunk, ==, 25);
  g_assert_cmpfloat_with_epsilon (hit.y_value, 600, 1e-6);

  canvas_free (&canvas);
}

/* A congested relay's normal jitter is no stall; its 600 ms pause is. Each trace is judged
 * against its own median gap, not the median of every trace pooled. */
static void
test_stream_per_trace_threshold (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayStreamPainter) painter = relay_stream_painter_new ();
  static const double cycle[] = { 10, 35, 60 };
  const RelayChartStyle *style;
  const RelayChartColor *slow_color;
  RelayTrace *fast, *slow;
  Canvas canvas = canvas_new (1000, 500);
  double t = 100, x, y, jitter_x = -1, stall_x = -1;

  /* A fast relay: 200 chunks 10 ms apart. Pooled with the slow one, the median gap is
   * 10 ms and everything over 50 ms would count as a stall. */
  fast = add_streaming_trace (session, 1, 100, 200, 10, 0, 0);

  /* A slow relay: gaps of 10, 35 and 60 ms in turn (median 35 ms, so its own threshold is
   * 140 ms), with one 600 ms stall before chunk 60. */
  slow = add_trace (session, 0, 2);
  relay_trace_set_mark (slow, RELAY_MARK_FIRST_TOKEN, MS (t));
  for (guint c = 0; c < 90; c++)
    {
      if (c == 60)
        {
          t += 600;
          stall_x = t - 100;
        }
      else if (c > 0)
        {
          t += cycle[c % 3];
          /* A 60 ms gap past the end of the fast trace, where only the slow one draws. */
          if (cycle[c % 3] == 60 && t - 100 > 2300 && jitter_x < 0)
            jitter_x = t - 100;
        }
      relay_trace_add_chunk (slow, MS (t), RELAY_CHUNK_CONTENT, 20, 5);
    }
  relay_trace_set_mark (slow, RELAY_MARK_END, MS (t + 5));
  g_assert_cmpfloat (jitter_x, >, 0);

  relay_stream_painter_set_traces (painter, relay_session_get_traces (session), NULL);
  relay_stream_painter_set_mode (painter, RELAY_STREAM_MODE_GAPS);
  relay_stream_painter_set_show_legend (painter, FALSE);
  style = relay_stream_painter_get_style (painter);
  slow_color = relay_chart_series_color (1, FALSE);

  g_assert_cmpfloat_with_epsilon (relay_stream_painter_get_trace_stall_threshold (painter, fast), 50, 1e-9);
  g_assert_cmpfloat_with_epsilon (relay_stream_painter_get_trace_stall_threshold (painter, slow), 140, 1e-9);

  relay_stream_painter_draw (painter, canvas.cr, 1000, 500);

  /* The slow trace's 60 ms gap: its own colour, no stall ring. */
  relay_stream_painter_value_to_point (painter, 1000, 500, jitter_x, 60, &x, &y);
  assert_pixel_color (canvas.surface, x, y, slow_color, "normal jitter of a slow trace");

  /* Its 600 ms stall is marked. */
  relay_stream_painter_value_to_point (painter, 1000, 500, stall_x, 600, &x, &y);
  assert_pixel_color (canvas.surface, x, y, &style->error, "stall of a slow trace");

  /* A threshold set by hand applies to every trace again: now the 60 ms gap is a stall. */
  relay_stream_painter_set_stall_threshold (painter, 50);
  g_assert_cmpfloat_with_epsilon (relay_stream_painter_get_trace_stall_threshold (painter, slow), 50, 1e-9);
  relay_stream_painter_draw (painter, canvas.cr, 1000, 500);
  relay_stream_painter_value_to_point (painter, 1000, 500, jitter_x, 60, &x, &y);
  assert_pixel_color (canvas.surface, x, y, &style->error, "jitter over a threshold set by hand");

  canvas_free (&canvas);
}

/* Labels are short ("relay-b #2"), and many traces of several endpoints are coloured by
 * endpoint × model with one legend entry each. */
static void
test_stream_labels (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayStreamPainter) painter = relay_stream_painter_new ();
  const char *pairs[][2] = {
    { "Simulated: fast", "sim-fast-1" },
    { "relay-b", "model-a" },
    { "relay-b", "model-b" },
  };
  g_autoptr(GPtrArray) traces = g_ptr_array_new ();
  Canvas canvas = canvas_new (900, 400);
  g_autofree char *label = NULL;

  for (guint p = 0; p < G_N_ELEMENTS (pairs); p++)
    {
      g_autoptr(RelayRun) run = relay_run_new (pairs[p][0], pairs[p][1]);
      guint index = relay_session_add_run (session, run);

      for (guint seq = 1; seq <= 4; seq++)
        {
          g_autoptr(RelayTrace) trace = relay_trace_new (index, seq);

          relay_trace_set_mark (trace, RELAY_MARK_START, 0);
          relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, MS (100));
          for (guint c = 0; c < 10; c++)
            relay_trace_add_chunk (trace, MS (100 + c * 20), RELAY_CHUNK_CONTENT, 20, 5);
          relay_session_add_trace (session, trace);
          g_ptr_array_add (traces, trace);
        }
    }

  relay_stream_painter_set_traces (painter, relay_session_get_traces (session), session);
  relay_stream_painter_set_mode (painter, RELAY_STREAM_MODE_GAPS);

  /* The demo prefix goes; the model shows only for an endpoint with several. */
  label = relay_stream_painter_dup_trace_label (painter, g_ptr_array_index (traces, 1));
  g_assert_cmpstr (label, ==, "fast #2");
  g_clear_pointer (&label, g_free);
  label = relay_stream_painter_dup_trace_label (painter, g_ptr_array_index (traces, 4 + 2));
  g_assert_cmpstr (label, ==, "relay-b · model-a #3");
  g_clear_pointer (&label, g_free);

  /* Twelve traces of three groups: coloured by group. */
  g_assert_true (relay_stream_painter_get_colors_by_group (painter));
  relay_stream_painter_set_show_legend (painter, FALSE);
  relay_stream_painter_draw (painter, canvas.cr, 900, 400);
  g_assert_cmpint (cairo_status (canvas.cr), ==, CAIRO_STATUS_SUCCESS);
  {
    double x, y;

    /* Every trace has the same gaps; the last drawn (the third group's) is on top. */
    relay_stream_painter_value_to_point (painter, 900, 400, 100, 20, &x, &y);
    assert_pixel_color (canvas.surface, x, y, relay_chart_series_color (2, FALSE), "coloured by group");
  }

  /* Four traces of one group: each its own colour. */
  {
    g_autoptr(GListStore) few = g_list_store_new (RELAY_TYPE_TRACE);

    for (guint i = 0; i < 4; i++)
      g_list_store_append (few, g_ptr_array_index (traces, i));
    relay_stream_painter_set_traces (painter, G_LIST_MODEL (few), session);
    g_assert_false (relay_stream_painter_get_colors_by_group (painter));
  }

  canvas_free (&canvas);
}

static void
test_stream_cumulative (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayStreamPainter) painter = relay_stream_painter_new ();
  const RelayChartStyle *style;
  Canvas canvas = canvas_new (800, 400);
  cairo_rectangle_t area;
  double x, y_before, y_after, y_top;

  /* 5 characters per chunk every 20 ms from 100 ms; a 600 ms stall before chunk 25. */
  add_streaming_trace (session, 1, 100, 50, 20, 25, 600);

  relay_stream_painter_set_traces (painter, relay_session_get_traces (session), NULL);
  relay_stream_painter_set_mode (painter, RELAY_STREAM_MODE_CUMULATIVE);
  relay_stream_painter_set_show_legend (painter, FALSE);
  relay_stream_painter_draw (painter, canvas.cr, 800, 400);
  style = relay_stream_painter_get_style (painter);
  relay_stream_painter_get_plot_area (painter, 800, 400, &area);

  /* During the stall (at 800 ms) the line holds at 25 chunks × 5 characters. */
  relay_stream_painter_value_to_point (painter, 800, 400, 800, 125, &x, &y_before);
  relay_stream_painter_value_to_point (painter, 800, 400, 800, 126, NULL, &y_after);
  relay_stream_painter_value_to_point (painter, 800, 400, 800, 250, NULL, &y_top);

  {
    gboolean found = FALSE;

    for (double y = y_before - 2; y <= y_before + 2; y++)
      if (pixel_distance (pixel_at (canvas.surface, x, y), color_to_pixel (relay_chart_series_color (0, FALSE))) < 60)
        found = TRUE;
    g_assert_true (found);
  }
  assert_pixel_color (canvas.surface, x, (y_top + y_before) / 2, &style->background, "nothing above the tread");
  g_assert_cmpfloat (area.width, >, 0);

  canvas_free (&canvas);
}

static void
test_stream_distribution (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayStreamPainter) painter = relay_stream_painter_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  const RelayChartColor *series;
  RelayTrace *trace;
  Canvas canvas = canvas_new (800, 400);
  cairo_rectangle_t area;
  double t = 100, prev_top = -1, first_top = -1, last_top = -1;
  guint checked = 0;

  trace = add_trace (session, 0, 1);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, MS (t));
  for (guint c = 0; c < 2000; c++)
    {
      t += g_rand_double_range (rand, 5, 150);
      relay_trace_add_chunk (trace, MS (t), RELAY_CHUNK_CONTENT, 20, 4);
    }

  relay_stream_painter_set_traces (painter, relay_session_get_traces (session), NULL);
  relay_stream_painter_set_mode (painter, RELAY_STREAM_MODE_DISTRIBUTION);
  relay_stream_painter_set_log_scale (painter, FALSE);
  relay_stream_painter_set_show_legend (painter, FALSE);
  relay_stream_painter_draw (painter, canvas.cr, 800, 400);
  relay_stream_painter_get_plot_area (painter, 800, 400, &area);
  series = relay_chart_series_color (0, FALSE);

  /* The topmost pixel of the curve in each column never moves down: the CDF only grows. */
  for (int x = (int) area.x + 2; x < (int) (area.x + area.width) - 2; x++)
    {
      double top = -1;

      for (int y = (int) area.y; y < (int) (area.y + area.height); y++)
        if (pixel_distance (pixel_at (canvas.surface, x, y), color_to_pixel (series)) < 40)
          {
            top = y;
            break;
          }

      if (top < 0)
        continue;
      if (prev_top >= 0)
        g_assert_cmpfloat (top, <=, prev_top + 5);  /* slack for the percentile rings */
      prev_top = top;
      if (first_top < 0)
        first_top = top;
      last_top = top;
      checked++;
    }

  g_assert_cmpuint (checked, >, area.width / 2);
  /* From near 0 on the left to 100 % on the right. */
  g_assert_cmpfloat (first_top, >, area.y + area.height * 0.8);
  g_assert_cmpfloat (last_top, <, area.y + area.height * 0.1);

  /* The median of a uniform 5–150 ms gap sits near 77.5 ms: the curve crosses 50 % there. */
  {
    double x, y;
    gboolean found = FALSE;

    relay_stream_painter_value_to_point (painter, 800, 400, 77.5, 0.5, &x, &y);
    for (double dx = -6; dx <= 6; dx++)
      for (double dy = -6; dy <= 6; dy++)
        if (pixel_distance (pixel_at (canvas.surface, x + dx, y + dy), color_to_pixel (series)) < 40)
          found = TRUE;
    g_assert_true (found);
  }

  /* Log scale draws too. */
  relay_stream_painter_set_log_scale (painter, TRUE);
  relay_stream_painter_set_show_title (painter, TRUE);
  relay_stream_painter_set_show_legend (painter, TRUE);
  relay_stream_painter_draw (painter, canvas.cr, 800, 400);
  g_assert_cmpint (cairo_status (canvas.cr), ==, CAIRO_STATUS_SUCCESS);

  canvas_free (&canvas);
}

static void
test_stream_empty (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayStreamPainter) painter = relay_stream_painter_new ();
  const RelayChartStyle *style;
  Canvas canvas = canvas_new (400, 200);
  guint inked = 0, inked_elsewhere = 0;

  add_trace (session, 0, 1);  /* no chunks */
  relay_stream_painter_set_traces (painter, relay_session_get_traces (session), NULL);
  relay_stream_painter_draw (painter, canvas.cr, 400, 200);
  style = relay_stream_painter_get_style (painter);

  /* Only the centred message: ink in the middle band, none elsewhere (no axes). */
  for (int y = 0; y < 200; y++)
    for (int x = 0; x < 400; x++)
      if (pixel_at (canvas.surface, x, y) != color_to_pixel (&style->background))
        {
          if (y > 80 && y < 120)
            inked++;
          else
            inked_elsewhere++;
        }

  g_assert_cmpuint (inked, >, 20);
  g_assert_cmpuint (inked_elsewhere, ==, 0);

  canvas_free (&canvas);
}

static void
test_stream_large (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayStreamPainter) painter = relay_stream_painter_new ();
  Canvas canvas = canvas_new (1600, 900);
  const RelayStreamMode modes[] = {
    RELAY_STREAM_MODE_GAPS, RELAY_STREAM_MODE_CUMULATIVE, RELAY_STREAM_MODE_DISTRIBUTION,
  };

  add_streaming_trace (session, 1, 300, 1000000, 2, 500000, 900);
  relay_stream_painter_set_traces (painter, relay_session_get_traces (session), NULL);

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      gint64 begin = g_get_monotonic_time ();

      relay_stream_painter_set_mode (painter, modes[m]);
      relay_stream_painter_draw (painter, canvas.cr, 1600, 900);
      g_test_message ("1e6 chunks, mode %u: %.1f ms (with data preparation)", m,
                      (g_get_monotonic_time () - begin) / 1000.0);
      begin = g_get_monotonic_time ();
      relay_stream_painter_draw (painter, canvas.cr, 1600, 900);
      g_test_message ("1e6 chunks, mode %u: %.1f ms (redraw)", m,
                      (g_get_monotonic_time () - begin) / 1000.0);
      g_assert_cmpint (cairo_status (canvas.cr), ==, CAIRO_STATUS_SUCCESS);
    }

  /* Median gap 2 ms → the automatic threshold is the 50 ms floor. */
  g_assert_cmpfloat_with_epsilon (relay_stream_painter_get_effective_stall_threshold (painter), 50, 1e-9);

  canvas_free (&canvas);
}

/* Export. */

static void
draw_square (cairo_t  *cr,
             double    width,
             double    height,
             gpointer  user_data)
{
  cairo_set_source_rgb (cr, 1, 0, 0);
  cairo_paint (cr);
  cairo_set_source_rgb (cr, 0, 0, 1);
  cairo_rectangle (cr, 0, 0, width / 2, height / 2);
  cairo_fill (cr);
}

static void
test_export (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayWaterfallPainter) waterfall = relay_waterfall_painter_new ();
  g_autoptr(RelayStreamPainter) stream = relay_stream_painter_new ();
  g_autofree char *dir = g_dir_make_tmp ("relayscope-charts-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "chart.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "chart.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "chart.pdf", NULL);
  g_autofree char *wf_png = g_build_filename (dir, "waterfall.png", NULL);
  g_autofree char *st_svg = g_build_filename (dir, "stream.svg", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-such-dir", "chart.png", NULL);
  g_autofree char *contents = NULL;
  RelayChartStyle dark;
  RelayChartFormat format;
  cairo_surface_t *read;
  RelayTrace *trace;

  g_assert_nonnull (dir);

  g_assert_true (relay_chart_format_from_path ("a/b.PNG", &format));
  g_assert_cmpint (format, ==, RELAY_CHART_FORMAT_PNG);
  g_assert_true (relay_chart_format_from_path ("x.svg", &format));
  g_assert_cmpint (format, ==, RELAY_CHART_FORMAT_SVG);
  g_assert_true (relay_chart_format_from_path ("x.pdf", &format));
  g_assert_cmpint (format, ==, RELAY_CHART_FORMAT_PDF);
  g_assert_false (relay_chart_format_from_path ("x.jpeg", &format));

  /* PNG of the requested size, with what was drawn. */
  g_assert_true (relay_chart_export (RELAY_CHART_FORMAT_PNG, png, 640, 360, draw_square, NULL, &error));
  g_assert_no_error (error);
  read = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (read), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (read), ==, 640);
  g_assert_cmpint (cairo_image_surface_get_height (read), ==, 360);
  g_assert_cmphex (pixel_at (read, 10, 10) & 0xffffff, ==, 0x0000ff);
  g_assert_cmphex (pixel_at (read, 600, 300) & 0xffffff, ==, 0xff0000);
  cairo_surface_destroy (read);

  /* SVG with its size. */
  g_assert_true (relay_chart_export (RELAY_CHART_FORMAT_SVG, svg, 640, 360, draw_square, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg, &contents, NULL, &error));
  g_assert_true (g_str_has_prefix (contents, "<?xml") || g_str_has_prefix (contents, "<svg"));
  g_assert_nonnull (strstr (contents, "width=\"640"));
  g_assert_nonnull (strstr (contents, "height=\"360"));
  g_clear_pointer (&contents, g_free);

  g_assert_true (relay_chart_export (RELAY_CHART_FORMAT_PDF, pdf, 640, 360, draw_square, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (pdf, &contents, NULL, &error));
  g_assert_true (g_str_has_prefix (contents, "%PDF"));
  g_clear_pointer (&contents, g_free);

  /* A path that cannot be written is an error, not a crash. */
  g_assert_false (relay_chart_export (RELAY_CHART_FORMAT_PNG, missing, 64, 64, draw_square, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_clear_error (&error);
  g_assert_false (relay_chart_export (RELAY_CHART_FORMAT_PNG, png, 0, 64, draw_square, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* Painters export in the document style at their full height, then are left as they were. */
  trace = add_streaming_trace (session, 1, 100, 30, 20, 10, 400);
  set_full_marks (trace);
  relay_chart_style_init (&dark, TRUE);
  relay_waterfall_painter_set_traces (waterfall, relay_session_get_traces (session), session);
  relay_waterfall_painter_set_style (waterfall, &dark);
  g_assert_true (relay_chart_export_waterfall (waterfall, RELAY_CHART_FORMAT_PNG, wf_png, 900, 0, &error));
  g_assert_no_error (error);
  read = cairo_image_surface_create_from_png (wf_png);
  g_assert_cmpint (cairo_image_surface_get_width (read), ==, 900);
  g_assert_cmpint (cairo_image_surface_get_height (read), >,
                   relay_waterfall_painter_get_header_height (waterfall) +
                   relay_waterfall_painter_get_row_height (waterfall));
  g_assert_cmphex (pixel_at (read, 2, 2) & 0xffffff, ==, 0xffffff);  /* document: white */
  cairo_surface_destroy (read);
  g_assert_true (relay_waterfall_painter_get_style (waterfall)->dark);
  g_assert_false (relay_waterfall_painter_get_show_legend (waterfall));

  relay_stream_painter_set_traces (stream, relay_session_get_traces (session), session);
  g_assert_true (relay_chart_export_stream (stream, RELAY_CHART_FORMAT_SVG, st_svg, 700, 400, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (st_svg, &contents, NULL, &error));
  g_assert_nonnull (strstr (contents, "<svg"));

  g_unlink (png);
  g_unlink (svg);
  g_unlink (pdf);
  g_unlink (wf_png);
  g_unlink (st_svg);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/charts/palette", test_palette);
  g_test_add_func ("/charts/nice-ticks", test_nice_ticks);
  g_test_add_func ("/charts/waterfall/stages", test_waterfall_stages);
  g_test_add_func ("/charts/waterfall/sort-ttft", test_waterfall_sort_ttft);
  g_test_add_func ("/charts/waterfall/groups", test_waterfall_groups);
  g_test_add_func ("/charts/waterfall/live", test_waterfall_live);
  g_test_add_func ("/charts/waterfall/error", test_waterfall_error);
  g_test_add_func ("/charts/waterfall/dark-and-scroll", test_waterfall_dark_and_scroll);
  g_test_add_func ("/charts/waterfall/large", test_waterfall_large);
  g_test_add_func ("/charts/stream/gaps", test_stream_gaps);
  g_test_add_func ("/charts/stream/cache", test_stream_cache);
  g_test_add_func ("/charts/stream/per-trace-threshold", test_stream_per_trace_threshold);
  g_test_add_func ("/charts/stream/labels", test_stream_labels);
  g_test_add_func ("/charts/stream/cumulative", test_stream_cumulative);
  g_test_add_func ("/charts/stream/distribution", test_stream_distribution);
  g_test_add_func ("/charts/stream/empty", test_stream_empty);
  g_test_add_func ("/charts/stream/large", test_stream_large);
  g_test_add_func ("/charts/export", test_export);

  return g_test_run ();
}
