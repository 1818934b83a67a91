/* relay-waterfall-painter.h: draws the latency waterfall (one row per trace, stacked stage
 * segments on a shared time axis) onto any cairo_t: the widget, PNG/SVG/PDF export, the CLI.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <gio/gio.h>

#include "relay-chart-enums.h"
#include "relay-budget.h"
#include "relay-chart-palette.h"
#include "relay-session.h"
#include "relay-trace.h"

G_BEGIN_DECLS

typedef enum
{
  RELAY_WATERFALL_ALIGN_START,       /* every row starts at 0 */
  RELAY_WATERFALL_ALIGN_WALL_CLOCK,  /* rows offset by their start time (concurrency shows) */
} RelayWaterfallAlign;

typedef enum
{
  RELAY_WATERFALL_SORT_START,  /* the order the traces started (the model's order) */
  RELAY_WATERFALL_SORT_TTFT,   /* fastest first token first; traces without one last */
} RelayWaterfallSort;

/* What lies under a point (see relay_waterfall_painter_hit_test()). */
typedef struct
{
  RelayTrace *trace;      /* unowned; NULL on a group header, the axis or empty space */
  guint       row;        /* row index (group headers count as rows) */
  gboolean    in_label;   /* in the label column rather than the plot */
  RelayStage  stage;      /* RELAY_N_STAGES when not over a segment */
  gint64      begin_us;   /* the segment, µs since the trace's start */
  gint64      end_us;
  double      x, y;       /* the segment's (or row's) bounds in drawing coordinates */
  double      width, height;
} RelayWaterfallHit;

#define RELAY_TYPE_WATERFALL_PAINTER (relay_waterfall_painter_get_type())

G_DECLARE_FINAL_TYPE (RelayWaterfallPainter, relay_waterfall_painter, RELAY, WATERFALL_PAINTER, GObject)

/* Signals: "changed" (no arguments) whenever a redraw is needed: data, view, options. The
 * painter listens to the traces model's "items-changed"; for updates inside a trace (a live
 * probe) call relay_waterfall_painter_invalidate() or relay_waterfall_painter_set_now(). */

RelayWaterfallPainter *relay_waterfall_painter_new            (void);

/* traces: a GListModel of RelayTrace; session (may be NULL) names each trace's endpoint
 * and model. Both are referenced. */
void                   relay_waterfall_painter_set_traces     (RelayWaterfallPainter *self,
                                                               GListModel            *traces,
                                                               RelaySession          *session);
GListModel            *relay_waterfall_painter_get_traces     (RelayWaterfallPainter *self);
RelaySession          *relay_waterfall_painter_get_session    (RelayWaterfallPainter *self);
/* Re-reads the traces (marks, chunks, errors changed). Cheap; call after a batch. */
void                   relay_waterfall_painter_invalidate     (RelayWaterfallPainter *self);

/* Properties "align", "sort", "group-by-endpoint" (endpoint × model header rows). */
void                   relay_waterfall_painter_set_align      (RelayWaterfallPainter *self,
                                                               RelayWaterfallAlign    align);
RelayWaterfallAlign    relay_waterfall_painter_get_align      (RelayWaterfallPainter *self);
void                   relay_waterfall_painter_set_sort       (RelayWaterfallPainter *self,
                                                               RelayWaterfallSort     sort);
RelayWaterfallSort     relay_waterfall_painter_get_sort       (RelayWaterfallPainter *self);
void                   relay_waterfall_painter_set_group_by_endpoint (RelayWaterfallPainter *self,
                                                               gboolean               group);
gboolean               relay_waterfall_painter_get_group_by_endpoint (RelayWaterfallPainter *self);

/* The visible time range in ms (zoom and pan). Setting it turns auto-fit off. */
void                   relay_waterfall_painter_set_view       (RelayWaterfallPainter *self,
                                                               double                 t0_ms,
                                                               double                 t1_ms);
void                   relay_waterfall_painter_get_view       (RelayWaterfallPainter *self,
                                                               double                *t0_ms,
                                                               double                *t1_ms);
/* Back to auto-fit: 0 to the latest end (or "now" for live traces), plus a margin. */
void                   relay_waterfall_painter_reset_view     (RelayWaterfallPainter *self);
gboolean               relay_waterfall_painter_get_auto_fit   (RelayWaterfallPainter *self);
/* Zoom by factor (> 1 zooms in) keeping anchor_ms at the same x; pan by delta_ms. */
void                   relay_waterfall_painter_zoom           (RelayWaterfallPainter *self,
                                                               double                 factor,
                                                               double                 anchor_ms);
void                   relay_waterfall_painter_pan            (RelayWaterfallPainter *self,
                                                               double                 delta_ms);

/* The monotonic time (g_get_monotonic_time()) the picture shows: an unfinished trace's bar
 * grows to now - mono_start. 0 (the default) draws live traces up to their last mark. */
void                   relay_waterfall_painter_set_now        (RelayWaterfallPainter *self,
                                                               gint64                 now_us);
gint64                 relay_waterfall_painter_get_now        (RelayWaterfallPainter *self);

/* The style is copied. The default is relay_chart_style_init (style, FALSE). */
void                   relay_waterfall_painter_set_style      (RelayWaterfallPainter *self,
                                                               const RelayChartStyle *style);
const RelayChartStyle *relay_waterfall_painter_get_style      (RelayWaterfallPainter *self);

/* Decorations for export: a title line above the axis, a legend of the stages below the
 * rows, and the time axis (on by default; title and legend off by default). */
void                   relay_waterfall_painter_set_title      (RelayWaterfallPainter *self,
                                                               const char            *title);
const char            *relay_waterfall_painter_get_title      (RelayWaterfallPainter *self);
void                   relay_waterfall_painter_set_show_title (RelayWaterfallPainter *self,
                                                               gboolean               show);
void                   relay_waterfall_painter_set_show_legend (RelayWaterfallPainter *self,
                                                               gboolean               show);
void                   relay_waterfall_painter_set_show_axis  (RelayWaterfallPainter *self,
                                                               gboolean               show);

gboolean               relay_waterfall_painter_get_show_title  (RelayWaterfallPainter *self);
gboolean               relay_waterfall_painter_get_show_legend (RelayWaterfallPainter *self);
gboolean               relay_waterfall_painter_get_show_axis   (RelayWaterfallPainter *self);

/* Scrolling: rows are shifted up by offset pixels under the fixed header (title + axis).
 * The widget sets it from its vertical adjustment; exports leave it at 0. */
void                   relay_waterfall_painter_set_scroll_offset (RelayWaterfallPainter *self,
                                                               double                 offset);
double                 relay_waterfall_painter_get_scroll_offset (RelayWaterfallPainter *self);
/* A row drawn with the highlight colour (selection); NULL for none. Not referenced. */
void                   relay_waterfall_painter_set_selected   (RelayWaterfallPainter *self,
                                                               RelayTrace            *trace);

/* A budget whose overruns are marked (referenced; NULL for none): a red
 * stripe at the start of an overrunning row and a red outline on the stages over their
 * limit, or on the whole bar for the items that span it (TTFT, total, ITL, tokens/s). */
void                   relay_waterfall_painter_set_budget     (RelayWaterfallPainter *self,
                                                               RelayBudget           *budget);
RelayBudget           *relay_waterfall_painter_get_budget     (RelayWaterfallPainter *self);
/* Whether a trace's row carries an overrun mark under the current budget. */
gboolean               relay_waterfall_painter_trace_over_budget (RelayWaterfallPainter *self,
                                                               RelayTrace            *trace);

/* Layout. */
double                 relay_waterfall_painter_get_row_height (RelayWaterfallPainter *self);
guint                  relay_waterfall_painter_get_n_rows     (RelayWaterfallPainter *self);
/* Height of the fixed part above the rows (title + axis). */
double                 relay_waterfall_painter_get_header_height (RelayWaterfallPainter *self);
/* header + rows × row height + legend: the height that shows every row (scroll range). */
double                 relay_waterfall_painter_get_content_height (RelayWaterfallPainter *self);
/* Width of the label column at a given drawing width. */
double                 relay_waterfall_painter_get_label_width (RelayWaterfallPainter *self,
                                                               double                 width);
/* The y (in drawing coordinates, scroll offset applied) of a trace's row, or -1. */
double                 relay_waterfall_painter_get_trace_y    (RelayWaterfallPainter *self,
                                                               RelayTrace            *trace);

/* The trace drawn on a row (NULL for a group header or past the end), and the row of a
 * trace (-1 when it is not drawn): for keyboard navigation. */
RelayTrace            *relay_waterfall_painter_get_row_trace  (RelayWaterfallPainter *self,
                                                               guint                  row);
int                    relay_waterfall_painter_get_trace_row  (RelayWaterfallPainter *self,
                                                               RelayTrace            *trace);

/* Time ↔ x at a drawing width, for the view. */
double                 relay_waterfall_painter_time_to_x      (RelayWaterfallPainter *self,
                                                               double                 width,
                                                               double                 t_ms);
double                 relay_waterfall_painter_x_to_time      (RelayWaterfallPainter *self,
                                                               double                 width,
                                                               double                 x);

/* What is at (x, y) in a drawing of the given width; FALSE on nothing (hit is cleared). */
gboolean               relay_waterfall_painter_hit_test       (RelayWaterfallPainter *self,
                                                               double                 width,
                                                               double                 x,
                                                               double                 y,
                                                               RelayWaterfallHit     *hit);

/* Draws the whole picture into (0, 0, width, height), background included. Only rows that
 * meet the clip are drawn. */
void                   relay_waterfall_painter_draw           (RelayWaterfallPainter *self,
                                                               cairo_t               *cr,
                                                               double                 width,
                                                               double                 height);

G_END_DECLS
