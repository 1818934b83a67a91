/* relay-chart-export.c: PNG, SVG and PDF through cairo surfaces.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <glib/gi18n-lib.h>

#include "relay-chart-export.h"
#include "relay-waterfall-painter-private.h"

gboolean
relay_chart_format_from_path (const char       *path,
                              RelayChartFormat *format)
{
  g_autofree char *lower = NULL;

  g_return_val_if_fail (path != NULL, FALSE);

  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".png"))
    *format = RELAY_CHART_FORMAT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *format = RELAY_CHART_FORMAT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    *format = RELAY_CHART_FORMAT_PDF;
  else
    return FALSE;

  return TRUE;
}

const char *
relay_chart_format_to_string (RelayChartFormat format)
{
  switch (format)
    {
    case RELAY_CHART_FORMAT_PNG: return "png";
    case RELAY_CHART_FORMAT_SVG: return "svg";
    case RELAY_CHART_FORMAT_PDF: return "pdf";
    default:                     return NULL;
    }
}

static gboolean
check_status (cairo_status_t   status,
              const char      *path,
              GError         **error)
{
  g_autofree char *name = NULL;

  if (status == CAIRO_STATUS_SUCCESS)
    return TRUE;

  name = g_filename_display_name (path);
  g_set_error (error, G_IO_ERROR,
               status == CAIRO_STATUS_NO_MEMORY ? G_IO_ERROR_NO_SPACE : G_IO_ERROR_FAILED,
               /* TRANSLATORS: first the file, then the reason from the graphics library */
               _("Could not write the chart to “%s”: %s"), name, cairo_status_to_string (status));
  return FALSE;
}

gboolean
relay_chart_export (RelayChartFormat     format,
                    const char          *path,
                    double               width,
                    double               height,
                    RelayChartDrawFunc   draw,
                    gpointer             user_data,
                    GError             **error)
{
  cairo_surface_t *surface = NULL;
  cairo_status_t status;
  cairo_t *cr;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (draw != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!(width >= 1 && height >= 1 && width <= 32767 && height <= 32767))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("A chart of %.0f × %.0f cannot be exported"), width, height);
      return FALSE;
    }

  switch (format)
    {
    case RELAY_CHART_FORMAT_PNG:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) ceil (width), (int) ceil (height));
      break;
    case RELAY_CHART_FORMAT_SVG:
      surface = cairo_svg_surface_create (path, width, height);
      break;
    case RELAY_CHART_FORMAT_PDF:
      surface = cairo_pdf_surface_create (path, width, height);
      break;
    default:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Unknown chart format"));
      return FALSE;
    }

  status = cairo_surface_status (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      return check_status (status, path, error);
    }

  cr = cairo_create (surface);
  draw (cr, width, height, user_data);
  status = cairo_status (cr);
  cairo_destroy (cr);

  if (status == CAIRO_STATUS_SUCCESS && format == RELAY_CHART_FORMAT_PNG)
    status = cairo_surface_write_to_png (surface, path);

  /* SVG and PDF are written as the surface finishes; errors surface only then. */
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);

  return check_status (status, path, error);
}

static void
draw_waterfall (cairo_t  *cr,
                double    width,
                double    height,
                gpointer  user_data)
{
  relay_waterfall_painter_draw (user_data, cr, width, height);
}

static void
draw_stream (cairo_t  *cr,
             double    width,
             double    height,
             gpointer  user_data)
{
  relay_stream_painter_draw (user_data, cr, width, height);
}

gboolean
relay_chart_export_waterfall (RelayWaterfallPainter  *painter,
                              RelayChartFormat        format,
                              const char             *path,
                              double                  width,
                              double                  height,
                              GError                **error)
{
  RelayChartStyle saved = *relay_waterfall_painter_get_style (painter);
  RelayChartStyle document;
  gboolean show_title = relay_waterfall_painter_get_show_title (painter);
  gboolean show_legend = relay_waterfall_painter_get_show_legend (painter);
  gboolean show_axis = relay_waterfall_painter_get_show_axis (painter);
  double scroll_offset = relay_waterfall_painter_get_scroll_offset (painter);
  gboolean ret;

  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (painter), FALSE);

  relay_chart_style_init_document (&document);
  relay_waterfall_painter_set_style (painter, &document);
  relay_waterfall_painter_set_show_title (painter, TRUE);
  relay_waterfall_painter_set_show_legend (painter, TRUE);
  relay_waterfall_painter_set_show_axis (painter, TRUE);
  relay_waterfall_painter_set_scroll_offset (painter, 0);

  if (height <= 0)
    height = _relay_waterfall_painter_get_content_height_for_width (painter, width);

  ret = relay_chart_export (format, path, width, height, draw_waterfall, painter, error);

  relay_waterfall_painter_set_style (painter, &saved);
  relay_waterfall_painter_set_show_title (painter, show_title);
  relay_waterfall_painter_set_show_legend (painter, show_legend);
  relay_waterfall_painter_set_show_axis (painter, show_axis);
  relay_waterfall_painter_set_scroll_offset (painter, scroll_offset);

  return ret;
}

gboolean
relay_chart_export_stream (RelayStreamPainter  *painter,
                           RelayChartFormat     format,
                           const char          *path,
                           double               width,
                           double               height,
                           GError             **error)
{
  RelayChartStyle saved = *relay_stream_painter_get_style (painter);
  RelayChartStyle document;
  gboolean show_title = relay_stream_painter_get_show_title (painter);
  gboolean show_legend = relay_stream_painter_get_show_legend (painter);
  gboolean show_axis = relay_stream_painter_get_show_axis (painter);
  gboolean ret;

  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (painter), FALSE);

  relay_chart_style_init_document (&document);
  relay_stream_painter_set_style (painter, &document);
  relay_stream_painter_set_show_title (painter, TRUE);
  relay_stream_painter_set_show_legend (painter, TRUE);
  relay_stream_painter_set_show_axis (painter, TRUE);

  ret = relay_chart_export (format, path, width, height, draw_stream, painter, error);

  relay_stream_painter_set_style (painter, &saved);
  relay_stream_painter_set_show_title (painter, show_title);
  relay_stream_painter_set_show_legend (painter, show_legend);
  relay_stream_painter_set_show_axis (painter, show_axis);

  return ret;
}
