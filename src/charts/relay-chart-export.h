/* relay-chart-export.h: writes a chart to PNG, SVG or PDF through cairo surfaces, so the app
 * and the CLI export the same picture the widget shows.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <gio/gio.h>

#include "relay-stream-painter.h"
#include "relay-waterfall-painter.h"

G_BEGIN_DECLS

typedef enum
{
  RELAY_CHART_FORMAT_PNG,
  RELAY_CHART_FORMAT_SVG,
  RELAY_CHART_FORMAT_PDF,
} RelayChartFormat;

/* Draws a chart of width × height into cr (origin at the top left). */
typedef void (*RelayChartDrawFunc) (cairo_t  *cr,
                                    double    width,
                                    double    height,
                                    gpointer  user_data);

/* From a file name's extension (".png", ".svg", ".pdf", any case); FALSE if none fits. */
gboolean     relay_chart_format_from_path   (const char             *path,
                                             RelayChartFormat       *format);
const char  *relay_chart_format_to_string   (RelayChartFormat        format);

/* Writes width × height (points; pixels for PNG) to path. Errors are G_IO_ERROR. */
gboolean     relay_chart_export             (RelayChartFormat        format,
                                             const char             *path,
                                             double                  width,
                                             double                  height,
                                             RelayChartDrawFunc      draw,
                                             gpointer                user_data,
                                             GError                **error);

/* Export a painter in the document style with title, axis and legend on; the painter's own
 * style and decorations are restored afterwards. For the waterfall, height ≤ 0 means its
 * content height (every row, no scrolling). */
gboolean     relay_chart_export_waterfall   (RelayWaterfallPainter  *painter,
                                             RelayChartFormat        format,
                                             const char             *path,
                                             double                  width,
                                             double                  height,
                                             GError                **error);
gboolean     relay_chart_export_stream      (RelayStreamPainter     *painter,
                                             RelayChartFormat        format,
                                             const char             *path,
                                             double                  width,
                                             double                  height,
                                             GError                **error);

G_END_DECLS
