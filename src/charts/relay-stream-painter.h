/* relay-stream-painter.h: draws streaming behaviour (inter-chunk gaps, cumulative output,
 * the distribution of gaps per endpoint × model) onto any cairo_t.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <gio/gio.h>

#include "relay-chart-enums.h"
#include "relay-chart-palette.h"
#include "relay-session.h"
#include "relay-trace.h"

G_BEGIN_DECLS

typedef enum
{
  RELAY_STREAM_MODE_GAPS,          /* x: ms since first token, y: gap to the previous chunk (ms) */
  RELAY_STREAM_MODE_CUMULATIVE,    /* x: ms since start, y: output so far (step lines) */
  RELAY_STREAM_MODE_DISTRIBUTION,  /* per endpoint × model: empirical CDF of gaps */
} RelayStreamMode;

typedef enum
{
  RELAY_STREAM_UNITS_CHARS,
  RELAY_STREAM_UNITS_TOKENS,  /* chars scaled by the trace's (reported or estimated) tokens */
} RelayStreamUnits;

/* What lies near a point (see relay_stream_painter_hit_test()). */
typedef struct
{
  RelayTrace *trace;       /* unowned; NULL in DISTRIBUTION mode */
  guint       series;      /* index of the trace (GAPS, CUMULATIVE) or group (DISTRIBUTION) */
  guint       chunk;       /* index into the trace's chunks (GAPS, CUMULATIVE) */
  double      x_value;     /* in the axis unit: ms (or the gap in DISTRIBUTION) */
  double      y_value;     /* gap ms, output units, or the cumulative fraction */
  double      x, y;        /* the point in drawing coordinates */
} RelayStreamHit;

#define RELAY_TYPE_STREAM_PAINTER (relay_stream_painter_get_type())

G_DECLARE_FINAL_TYPE (RelayStreamPainter, relay_stream_painter, RELAY, STREAM_PAINTER, GObject)

/* Signals: "changed" (no arguments) whenever a redraw is needed. */

RelayStreamPainter    *relay_stream_painter_new                (void);

/* traces: a GListModel of RelayTrace (the selection for GAPS and CUMULATIVE, usually the
 * whole session for DISTRIBUTION); session (may be NULL) names endpoint and model. */
void                   relay_stream_painter_set_traces         (RelayStreamPainter    *self,
                                                                GListModel            *traces,
                                                                RelaySession          *session);
GListModel            *relay_stream_painter_get_traces         (RelayStreamPainter    *self);
RelaySession          *relay_stream_painter_get_session        (RelayStreamPainter    *self);
/* Re-reads the traces' chunks (a live probe added some). */
void                   relay_stream_painter_invalidate         (RelayStreamPainter    *self);

/* Property "mode". */
void                   relay_stream_painter_set_mode           (RelayStreamPainter    *self,
                                                                RelayStreamMode        mode);
RelayStreamMode        relay_stream_painter_get_mode           (RelayStreamPainter    *self);
/* Property "units" for CUMULATIVE. */
void                   relay_stream_painter_set_units          (RelayStreamPainter    *self,
                                                                RelayStreamUnits       units);
RelayStreamUnits       relay_stream_painter_get_units          (RelayStreamPainter    *self);
/* Property "log-scale": a log x axis for DISTRIBUTION (default TRUE). */
void                   relay_stream_painter_set_log_scale      (RelayStreamPainter    *self,
                                                                gboolean               log_scale);
gboolean               relay_stream_painter_get_log_scale      (RelayStreamPainter    *self);

/* Property "stall-threshold" in ms: gaps above it are stalls (marked in GAPS, a dashed line
 * in GAPS and DISTRIBUTION). ≤ 0 (the default) means automatic and per trace: 4 × that
 * trace's own median gap, at least 50 ms (in DISTRIBUTION, per endpoint × model group), so a
 * slow relay's ordinary jitter is not flagged while its real stalls are. */
void                   relay_stream_painter_set_stall_threshold (RelayStreamPainter   *self,
                                                                double                 ms);
double                 relay_stream_painter_get_stall_threshold (RelayStreamPainter   *self);
/* The threshold in use: the set one, or the lowest automatic one of the shown traces
 * (groups in DISTRIBUTION); 250 ms when there are no gaps. */
double                 relay_stream_painter_get_effective_stall_threshold (RelayStreamPainter *self);
/* The threshold a shown trace's gaps are judged by; NAN when the trace is not shown. */
double                 relay_stream_painter_get_trace_stall_threshold (RelayStreamPainter *self,
                                                                RelayTrace            *trace);
/* A trace's compact label as the legend writes it ("fast #2", "relay · model-b #1"), or
 * NULL when the trace is not shown. Free with g_free. */
char                  *relay_stream_painter_dup_trace_label    (RelayStreamPainter    *self,
                                                                RelayTrace            *trace);
/* TRUE when traces are coloured by endpoint × model (many traces of several endpoints),
 * with one legend entry per group. */
gboolean               relay_stream_painter_get_colors_by_group (RelayStreamPainter   *self);

/* The style is copied. The default is relay_chart_style_init (style, FALSE). */
void                   relay_stream_painter_set_style          (RelayStreamPainter    *self,
                                                                const RelayChartStyle *style);
const RelayChartStyle *relay_stream_painter_get_style          (RelayStreamPainter    *self);

/* Decorations: title (off by default), legend and axis labels (on by default). */
void                   relay_stream_painter_set_title          (RelayStreamPainter    *self,
                                                                const char            *title);
const char            *relay_stream_painter_get_title          (RelayStreamPainter    *self);
void                   relay_stream_painter_set_show_title     (RelayStreamPainter    *self,
                                                                gboolean               show);
void                   relay_stream_painter_set_show_legend    (RelayStreamPainter    *self,
                                                                gboolean               show);
void                   relay_stream_painter_set_show_axis      (RelayStreamPainter    *self,
                                                                gboolean               show);

gboolean               relay_stream_painter_get_show_title     (RelayStreamPainter *self);
gboolean               relay_stream_painter_get_show_legend    (RelayStreamPainter *self);
gboolean               relay_stream_painter_get_show_axis      (RelayStreamPainter *self);

/* The plot area (inside axes, title and legend) at a drawing size. */
void                   relay_stream_painter_get_plot_area      (RelayStreamPainter    *self,
                                                                double                 width,
                                                                double                 height,
                                                                cairo_rectangle_t     *area);
/* Data value ↔ drawing coordinate at a drawing size, in the current mode's axes. */
void                   relay_stream_painter_value_to_point     (RelayStreamPainter    *self,
                                                                double                 width,
                                                                double                 height,
                                                                double                 x_value,
                                                                double                 y_value,
                                                                double                *x,
                                                                double                *y);

/* The data point nearest (x, y) within radius pixels; FALSE when none (hit is cleared). */
gboolean               relay_stream_painter_hit_test           (RelayStreamPainter    *self,
                                                                double                 width,
                                                                double                 height,
                                                                double                 x,
                                                                double                 y,
                                                                double                 radius,
                                                                RelayStreamHit        *hit);

/* Draws the whole picture into (0, 0, width, height), background included. With no chunks
 * it draws "No streamed chunks yet". */
void                   relay_stream_painter_draw               (RelayStreamPainter    *self,
                                                                cairo_t               *cr,
                                                                double                 width,
                                                                double                 height);

G_END_DECLS
