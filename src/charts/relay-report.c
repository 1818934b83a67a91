/* relay-report.c: lays out the PDF report with pangocairo on a cairo PDF surface and draws
 * the charts with the same painters as the app, so the report shows what the window shows.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <cairo-pdf.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "relay-chart-palette.h"
#include "relay-report.h"
#include "relay-stream-painter.h"
#include "relay-summary.h"
#include "relay-waterfall-painter.h"

/* A4 landscape in points: wide enough for the table's sixteen columns. */
#define PAGE_WIDTH   841.89
#define PAGE_HEIGHT  595.28
#define MARGIN       40.0
#define FOOTER       18.0

typedef struct
{
  cairo_t          *cr;
  RelayChartStyle   style;
  const char       *title;
  double            y;
  guint             page;
} Report;

static double
content_width (void)
{
  return PAGE_WIDTH - 2 * MARGIN;
}

static double
content_bottom (void)
{
  return PAGE_HEIGHT - MARGIN - FOOTER;
}

static void
draw_footer (Report *report)
{
  g_autoptr(PangoLayout) layout = pango_cairo_create_layout (report->cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans 7");
  g_autofree char *text = g_strdup_printf (_("%s — Relayscope report — page %u"),
                                           report->title, report->page);

  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  pango_layout_set_text (layout, text, -1);
  pango_layout_set_width (layout, (int) (content_width () * PANGO_SCALE));
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_MIDDLE);
  relay_chart_set_source_color (report->cr, &report->style.muted);
  cairo_move_to (report->cr, MARGIN, PAGE_HEIGHT - MARGIN);
  pango_cairo_show_layout (report->cr, layout);
}

static void
new_page (Report *report)
{
  if (report->page > 0)
    cairo_show_page (report->cr);
  report->page++;
  report->y = MARGIN;
  relay_chart_set_source_color (report->cr, &report->style.background);
  cairo_paint (report->cr);
  draw_footer (report);
}

/* A paragraph in font (a Pango description), wrapped to the content width; starts a new
 * page when it does not fit. Returns its height. */
static double
paragraph (Report                *report,
           const char            *font_name,
           const RelayChartColor *color,
           const char            *text,
           double                 space_after)
{
  g_autoptr(PangoLayout) layout = pango_cairo_create_layout (report->cr);
  PangoFontDescription *font = pango_font_description_from_string (font_name);
  int w, h;

  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  pango_layout_set_width (layout, (int) (content_width () * PANGO_SCALE));
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_size (layout, &w, &h);

  if (report->y + h / (double) PANGO_SCALE > content_bottom () && report->y > MARGIN)
    new_page (report);

  relay_chart_set_source_color (report->cr, color ? color : &report->style.foreground);
  cairo_move_to (report->cr, MARGIN, report->y);
  pango_cairo_show_layout (report->cr, layout);
  report->y += h / (double) PANGO_SCALE + space_after;

  return h / (double) PANGO_SCALE;
}

static void
heading (Report     *report,
         const char *text)
{
  /* Keep a heading with at least a few lines of what follows. */
  if (report->y + 80 > content_bottom ())
    new_page (report);
  report->y += 6;
  paragraph (report, "Sans Bold 12", NULL, text, 6);
}

/* A table: cells row-major, n_cols wide; the first row is the header; columns from
 * first_numeric on are right-aligned. Breaks across pages, repeating the header. */
static void
table (Report     *report,
       GPtrArray  *cells,
       guint       n_cols,
       guint       first_numeric)
{
  g_autoptr(PangoLayout) layout = pango_cairo_create_layout (report->cr);
  g_autofree double *widths = g_new0 (double, n_cols);
  PangoFontDescription *font = NULL;
  PangoFontDescription *bold = NULL;
  double total = 0;
  double gap = 8;
  double row_height;
  double size = 8;
  guint n_rows = cells->len / n_cols;

  /* Shrink the type until the columns fit the page. */
  for (;;)
    {
      g_clear_pointer (&font, pango_font_description_free);
      font = pango_font_description_from_string ("Sans");
      pango_font_description_set_size (font, (int) (size * PANGO_SCALE));
      pango_layout_set_font_description (layout, font);

      g_clear_pointer (&bold, pango_font_description_free);
      bold = pango_font_description_copy (font);
      pango_font_description_set_weight (bold, PANGO_WEIGHT_BOLD);

      total = 0;
      for (guint c = 0; c < n_cols; c++)
        {
          widths[c] = 0;
          for (guint r = 0; r < n_rows; r++)
            {
              int w;

              /* The header is bold, and bold is wider. */
              pango_layout_set_font_description (layout, r == 0 ? bold : font);
              pango_layout_set_text (layout, g_ptr_array_index (cells, r * n_cols + c), -1);
              pango_layout_get_size (layout, &w, NULL);
              widths[c] = MAX (widths[c], w / (double) PANGO_SCALE);
            }
          total += widths[c] + (c + 1 < n_cols ? gap : 0);
        }

      if (total <= content_width () || size <= 5)
        break;
      size -= 0.5;
      gap = MAX (4, gap - 1);
    }

  row_height = size * 1.6;

  for (guint r = 0; r < n_rows; r++)
    {
      double x = MARGIN;
      gboolean header = r == 0;

      if (report->y + row_height > content_bottom ())
        {
          new_page (report);
          if (!header)
            {
              /* Repeat the header on the new page. */
              double hx = MARGIN;

              pango_layout_set_font_description (layout, bold);
              for (guint c = 0; c < n_cols; c++)
                {
                  int w;

                  pango_layout_set_text (layout, g_ptr_array_index (cells, c), -1);
                  pango_layout_get_size (layout, &w, NULL);
                  relay_chart_set_source_color (report->cr, &report->style.foreground);
                  cairo_move_to (report->cr, c >= first_numeric ? hx + widths[c] - w / (double) PANGO_SCALE : hx, report->y);
                  pango_cairo_show_layout (report->cr, layout);
                  hx += widths[c] + gap;
                }
              report->y += row_height;
            }
        }

      if (!header && r % 2 == 0)
        {
          relay_chart_set_source_color (report->cr, &report->style.group);
          cairo_rectangle (report->cr, MARGIN - 3, report->y - 1, MIN (total, content_width ()) + 6, row_height);
          cairo_fill (report->cr);
        }

      pango_layout_set_font_description (layout, header ? bold : font);
      for (guint c = 0; c < n_cols; c++)
        {
          int w;

          pango_layout_set_text (layout, g_ptr_array_index (cells, r * n_cols + c), -1);
          pango_layout_get_size (layout, &w, NULL);
          relay_chart_set_source_color (report->cr, &report->style.foreground);
          cairo_move_to (report->cr, c >= first_numeric ? x + widths[c] - w / (double) PANGO_SCALE : x, report->y);
          pango_cairo_show_layout (report->cr, layout);
          x += widths[c] + gap;
        }

      report->y += row_height;
      if (header)
        {
          relay_chart_set_source_color (report->cr, &report->style.grid);
          cairo_set_line_width (report->cr, 0.75);
          cairo_move_to (report->cr, MARGIN, report->y - 1.5);
          cairo_line_to (report->cr, MARGIN + MIN (total, content_width ()), report->y - 1.5);
          cairo_stroke (report->cr);
        }
    }

  report->y += 8;
  pango_font_description_free (font);
  pango_font_description_free (bold);
}

static char *
format_value (double value)
{
  if (!isfinite (value))
    return g_strdup ("–");
  if (fabs (value) >= 1000)
    return g_strdup_printf ("%.0f", value);
  return g_strdup_printf ("%.1f", value);
}

static void
summary_section (Report       *report,
                 RelaySession *session)
{
  static const struct { const char *title; RelayMetric metric; } columns[] = {
    { N_("DNS"), RELAY_METRIC_DNS }, { N_("TCP"), RELAY_METRIC_TCP }, { N_("TLS"), RELAY_METRIC_TLS },
    { N_("wait"), RELAY_METRIC_WAIT }, { N_("TTFT"), RELAY_METRIC_TTFT }, { N_("ITL"), RELAY_METRIC_ITL },
    { N_("tok/s"), RELAY_METRIC_TOKENS_PER_SECOND }, { N_("total"), RELAY_METRIC_TOTAL },
  };
  g_autoptr(GPtrArray) rows = relay_summarize (session);
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  guint n_cols = 4 + G_N_ELEMENTS (columns);

  heading (report, _("Latency by endpoint and model"));

  if (rows->len == 0)
    {
      paragraph (report, "Sans 9", &report->style.muted, _("The session holds no probes."), 8);
      return;
    }

  g_ptr_array_add (cells, g_strdup (_("endpoint")));
  g_ptr_array_add (cells, g_strdup (_("model")));
  g_ptr_array_add (cells, g_strdup (_("n")));
  g_ptr_array_add (cells, g_strdup (_("errors")));
  for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
    g_ptr_array_add (cells, g_strdup (_(columns[c].title)));

  for (guint r = 0; r < rows->len; r++)
    {
      const RelaySummaryRow *row = g_ptr_array_index (rows, r);

      g_ptr_array_add (cells, g_strdup (row->endpoint));
      g_ptr_array_add (cells, g_strdup (row->model));
      g_ptr_array_add (cells, g_strdup_printf ("%u", row->n));
      g_ptr_array_add (cells, g_strdup_printf ("%u", row->errors));
      for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
        {
          const RelayStats *stats = &row->stats[columns[c].metric];
          g_autofree char *p50 = format_value (stats->p50);
          g_autofree char *p95 = format_value (stats->p95);

          g_ptr_array_add (cells, stats->n > 0 ? g_strdup_printf ("%s / %s", p50, p95) : g_strdup ("–"));
        }
    }

  table (report, cells, n_cols, 2);
  paragraph (report, "Sans 8", &report->style.muted,
             _("Each cell: p50 / p95 in ms (tok/s: output tokens per second). ITL pools the gaps "
               "between the chunks of all streams. Failed probes count in n and errors, not in the figures."), 10);
}

static char *
format_diff (const RelayStatsInterval *diff)
{
  g_autofree char *estimate = format_value (diff->estimate);
  g_autofree char *lo = format_value (diff->lo);
  g_autofree char *hi = format_value (diff->hi);

  if (!isfinite (diff->estimate))
    return g_strdup ("–");
  return g_strdup_printf ("%s%s [%s, %s]", diff->estimate > 0 ? "+" : "", estimate, lo, hi);
}

static void
comparison_section (Report          *report,
                    RelayComparison *comparison)
{
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  const char *titles[] = { N_("stage"), N_("n A"), N_("n B"), N_("A p50"), N_("B p50"), N_("B − A p50 [95% CI]"),
                           N_("A p95"), N_("B p95"), N_("B − A p95 [95% CI]"), N_("p") };
  g_autofree char *sides = NULL;

  heading (report, _("A/B comparison"));
  sides = g_strdup_printf (_("A: %s (%u probes, %u failed)\nB: %s (%u probes, %u failed)"),
                           relay_comparison_get_label (comparison, FALSE),
                           relay_comparison_get_n_traces (comparison, FALSE),
                           relay_comparison_get_n_errors (comparison, FALSE),
                           relay_comparison_get_label (comparison, TRUE),
                           relay_comparison_get_n_traces (comparison, TRUE),
                           relay_comparison_get_n_errors (comparison, TRUE));
  paragraph (report, "Sans 9", NULL, sides, 6);

  for (guint c = 0; c < G_N_ELEMENTS (titles); c++)
    g_ptr_array_add (cells, g_strdup (_(titles[c])));

  for (guint m = 0; m < RELAY_N_METRICS; m++)
    {
      const RelayCompareStage *stage = relay_comparison_get_stage (comparison, m);

      g_ptr_array_add (cells, g_strdup (relay_compare_metric_label (m)));
      g_ptr_array_add (cells, g_strdup_printf ("%u", stage->traces_a));
      g_ptr_array_add (cells, g_strdup_printf ("%u", stage->traces_b));
      g_ptr_array_add (cells, format_value (stage->a.p50));
      g_ptr_array_add (cells, format_value (stage->b.p50));
      g_ptr_array_add (cells, format_diff (&stage->diff_p50));
      g_ptr_array_add (cells, format_value (stage->a.p95));
      g_ptr_array_add (cells, format_value (stage->b.p95));
      g_ptr_array_add (cells, format_diff (&stage->diff_p95));
      g_ptr_array_add (cells, isfinite (stage->test.p_value) ? g_strdup_printf ("%.3f", stage->test.p_value)
                                                             : g_strdup ("–"));
    }
  table (report, cells, G_N_ELEMENTS (titles), 1);

  for (guint m = 0; m < RELAY_N_METRICS; m++)
    {
      const RelayCompareStage *stage = relay_comparison_get_stage (comparison, m);
      g_autofree char *verdict = NULL;

      if (stage->traces_a == 0 || stage->traces_b == 0)
        continue;
      verdict = relay_comparison_dup_verdict (comparison, m, 50);
      paragraph (report, "Sans 8.5", (stage->significant_p50 ? NULL : &report->style.muted), verdict, 2);
    }
  report->y += 8;
}

static void
budget_section (Report       *report,
                RelayBudget  *budget,
                RelaySession *session)
{
  g_autoptr(GPtrArray) overruns = relay_budget_check_overruns (budget, session);
  g_autoptr(GString) limits = g_string_new (NULL);
  g_auto(GStrv) allowances = relay_budget_dup_allowance_names (budget);
  g_autofree char *heading_text = g_strdup_printf (_("Latency budget (checked at p%g)"),
                                                   relay_budget_get_percentile (budget));

  heading (report, heading_text);

  for (guint i = 0; i < RELAY_N_BUDGET_ITEMS; i++)
    {
      double limit = relay_budget_get_limit (budget, i);

      if (limit < 0)
        continue;
      if (limits->len > 0)
        g_string_append (limits, " · ");
      if (i == RELAY_BUDGET_TOKENS_PER_S)
        g_string_append_printf (limits, _("output ≥ %.0f tokens/s"), limit);
      else
        g_string_append_printf (limits, "%s %.0f ms", relay_budget_item_to_string (i), limit);
    }
  for (guint i = 0; allowances != NULL && allowances[i] != NULL; i++)
    g_string_append_printf (limits, _("%sallowance %s %.0f ms"), limits->len ? " · " : "", allowances[i],
                            relay_budget_get_allowance (budget, allowances[i]));
  paragraph (report, "Sans 9", NULL, limits->len ? limits->str : _("No limits set."), 6);

  if (overruns->len == 0)
    {
      paragraph (report, "Sans Bold 9", NULL, _("Every endpoint and model is within the budget."), 8);
      return;
    }

  {
    g_autofree char *count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u overrun:", "%u overruns:", overruns->len),
                                              overruns->len);
    paragraph (report, "Sans Bold 9", &report->style.error, count, 4);
  }
  for (guint i = 0; i < overruns->len; i++)
    {
      g_autofree char *message = relay_budget_overrun_format (g_ptr_array_index (overruns, i));
      g_autofree char *line = g_strconcat ("• ", message, NULL);

      paragraph (report, "Sans 9", &report->style.error, line, 2);
    }
  report->y += 8;
}

/* The waterfall, one page after another, the axis repeated at the top of each. */
static void
waterfall_pages (Report       *report,
                 RelaySession *session)
{
  g_autoptr(RelayWaterfallPainter) painter = relay_waterfall_painter_new ();
  double width = content_width ();
  double height = content_bottom () - MARGIN;
  double header, row_height, legend, per_page;
  guint n_rows, rows_per_page;

  relay_waterfall_painter_set_traces (painter, relay_session_get_traces (session), session);
  relay_waterfall_painter_set_style (painter, &report->style);
  relay_waterfall_painter_set_group_by_endpoint (painter, TRUE);
  relay_waterfall_painter_set_title (painter, _("Waterfall: every probe's stages"));
  relay_waterfall_painter_set_show_title (painter, TRUE);
  relay_waterfall_painter_set_show_axis (painter, TRUE);
  relay_waterfall_painter_set_show_legend (painter, TRUE);

  n_rows = relay_waterfall_painter_get_n_rows (painter);
  if (n_rows == 0)
    return;

  header = relay_waterfall_painter_get_header_height (painter);
  row_height = relay_waterfall_painter_get_row_height (painter);
  /* The legend's height: what the content height adds beyond header and rows. */
  legend = relay_waterfall_painter_get_content_height (painter) - header - n_rows * row_height;
  legend = MAX (legend, 0);
  per_page = height - header - legend;
  rows_per_page = MAX (1, (guint) floor (per_page / row_height));

  for (guint first = 0; first < n_rows; first += rows_per_page)
    {
      guint rows = MIN (rows_per_page, n_rows - first);

      new_page (report);
      cairo_save (report->cr);
      cairo_translate (report->cr, MARGIN, MARGIN);
      relay_waterfall_painter_set_scroll_offset (painter, first * row_height);
      relay_waterfall_painter_draw (painter, report->cr, width, header + rows * row_height + legend);
      cairo_restore (report->cr);
    }
}

static void
stream_page (Report          *report,
             RelaySession    *session)
{
  g_autoptr(RelayStreamPainter) painter = relay_stream_painter_new ();
  double width = content_width ();
  double half = (content_bottom () - MARGIN - 12) / 2;

  relay_stream_painter_set_traces (painter, relay_session_get_traces (session), session);
  relay_stream_painter_set_style (painter, &report->style);
  relay_stream_painter_set_show_title (painter, TRUE);
  relay_stream_painter_set_show_legend (painter, TRUE);
  relay_stream_painter_set_show_axis (painter, TRUE);

  new_page (report);

  cairo_save (report->cr);
  cairo_translate (report->cr, MARGIN, MARGIN);
  relay_stream_painter_set_mode (painter, RELAY_STREAM_MODE_DISTRIBUTION);
  relay_stream_painter_set_title (painter, _("Inter-chunk gaps: distribution per endpoint and model"));
  relay_stream_painter_draw (painter, report->cr, width, half);
  cairo_restore (report->cr);

  cairo_save (report->cr);
  cairo_translate (report->cr, MARGIN, MARGIN + half + 12);
  relay_stream_painter_set_mode (painter, RELAY_STREAM_MODE_CUMULATIVE);
  relay_stream_painter_set_title (painter, _("Output over time"));
  relay_stream_painter_draw (painter, report->cr, width, half);
  cairo_restore (report->cr);
}

gboolean
relay_report_export_pdf (RelaySession     *session,
                         RelayBudget      *budget,
                         RelayComparison  *comparison,
                         const char       *path,
                         GError          **error)
{
  cairo_surface_t *surface;
  cairo_status_t status;
  Report report = { 0 };
  g_autofree char *created = NULL;
  g_autofree char *facts = NULL;
  GListModel *traces;

  g_return_val_if_fail (RELAY_IS_SESSION (session), FALSE);
  g_return_val_if_fail (!budget || RELAY_IS_BUDGET (budget), FALSE);
  g_return_val_if_fail (!comparison || RELAY_IS_COMPARISON (comparison), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  surface = cairo_pdf_surface_create (path, PAGE_WIDTH, PAGE_HEIGHT);
  status = cairo_surface_status (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write %s: %s"), path,
                   cairo_status_to_string (status));
      return FALSE;
    }

  report.title = relay_session_get_title (session) ? relay_session_get_title (session) : _("Untitled session");
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, report.title);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "Relayscope " PACKAGE_VERSION);

  report.cr = cairo_create (surface);
  relay_chart_style_init_document (&report.style);
  traces = relay_session_get_traces (session);

  new_page (&report);
  paragraph (&report, "Sans Bold 18", NULL, report.title, 4);
  if (relay_session_get_created (session) != NULL)
    created = g_date_time_format (relay_session_get_created (session), "%Y-%m-%d %H:%M:%S %:z");
  facts = g_strdup_printf (_("Created %s · %u probes · %u runs"), created ? created : _("(unknown)"),
                           g_list_model_get_n_items (traces),
                           g_list_model_get_n_items (relay_session_get_runs (session)));
  paragraph (&report, "Sans 9", &report.style.muted, facts, 8);
  if (relay_session_get_notes (session) != NULL && relay_session_get_notes (session)[0] != '\0')
    paragraph (&report, "Sans 10", NULL, relay_session_get_notes (session), 10);

  summary_section (&report, session);
  if (comparison != NULL)
    comparison_section (&report, comparison);
  if (budget != NULL)
    budget_section (&report, budget, session);

  waterfall_pages (&report, session);
  stream_page (&report, session);

  cairo_show_page (report.cr);
  status = cairo_status (report.cr);
  cairo_destroy (report.cr);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);

  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write %s: %s"), path,
                   cairo_status_to_string (status));
      return FALSE;
    }

  return TRUE;
}
