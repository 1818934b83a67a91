/* relay-chart-palette.h: the colours, patterns and labels every chart shares, and the chart
 * style (light, dark, or the light "document" style used for exported reports).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>

#include "relay-types.h"

G_BEGIN_DECLS

/* Components in [0, 1]. Palette colours are opaque (alpha 1). */
typedef struct
{
  double red;
  double green;
  double blue;
  double alpha;
} RelayChartColor;

/* A second cue beside colour, for stages whose colour alone could be mistaken. */
typedef enum
{
  RELAY_CHART_PATTERN_SOLID,
  RELAY_CHART_PATTERN_HATCH,   /* diagonal stripes over the fill colour */
} RelayChartPattern;

/* A plain value type: copy it with `=`; it owns no memory. */
typedef struct
{
  gboolean        dark;
  char            font[64];     /* a Pango font description, e.g. "Cantarell 9" */
  RelayChartColor background;   /* the whole chart's background */
  RelayChartColor foreground;   /* text, axis lines */
  RelayChartColor muted;        /* secondary text (status, tick labels) */
  RelayChartColor grid;         /* grid lines and row separators */
  RelayChartColor group;        /* background of group header rows */
  RelayChartColor highlight;    /* the selected / hovered row */
  RelayChartColor error;        /* error caps, error text, points over a threshold */
  RelayChartColor marker;       /* the TTFT marker and chunk ticks */
} RelayChartStyle;

/* The app's style: light on white, or dark on #242424 (libadwaita's window colours). */
void                   relay_chart_style_init          (RelayChartStyle   *style,
                                                        gboolean           dark);
/* Light on a white background, for PNG/SVG/PDF exports and reports. */
void                   relay_chart_style_init_document (RelayChartStyle   *style);

/* The colour of a stage in the waterfall; readable on the style's background. */
const RelayChartColor *relay_chart_stage_color         (RelayStage         stage,
                                                        gboolean           dark);
/* A short translated label for the legend and tooltips ("DNS", "Wait", "Stream", …). */
const char            *relay_chart_stage_label         (RelayStage         stage);
/* HATCH for RELAY_STAGE_OTHER; SOLID for the rest. */
RelayChartPattern      relay_chart_stage_pattern       (RelayStage         stage);

/* An endpoint's name as charts and tables show it: the demo relays' "Simulated: " prefix is
 * dropped (the app tags them, an export's title says so), other names are kept. */
const char            *relay_chart_short_endpoint_name (const char      *name);

/* Colours of chunk kinds (content, reasoning, tool). */
const RelayChartColor *relay_chart_chunk_kind_color    (RelayChunkKind     kind,
                                                        gboolean           dark);
/* A translated label of a chunk kind ("Content", "Reasoning", "Tool call"). */
const char            *relay_chart_chunk_kind_label    (RelayChunkKind     kind);

/* A categorical palette for series (endpoints, endpoint × model groups, traces). Colours
 * repeat after relay_chart_series_n_colors(); callers add a label or dash as second cue. */
guint                  relay_chart_series_n_colors     (void);
const RelayChartColor *relay_chart_series_color        (guint              index,
                                                        gboolean           dark);

/* Drawing helpers. */
void                   relay_chart_set_source_color    (cairo_t               *cr,
                                                        const RelayChartColor *color);
/* Fills the rectangle in the stage's colour, with its hatch where the stage has one. */
void                   relay_chart_fill_stage          (cairo_t               *cr,
                                                        const RelayChartStyle *style,
                                                        RelayStage             stage,
                                                        double                 x,
                                                        double                 y,
                                                        double                 width,
                                                        double                 height);
/* Fills the rectangle with diagonal stripes of color over base (for OTHER and errors). */
void                   relay_chart_fill_hatched        (cairo_t               *cr,
                                                        const RelayChartColor *base,
                                                        const RelayChartColor *stripes,
                                                        double                 x,
                                                        double                 y,
                                                        double                 width,
                                                        double                 height);

/* Pretty axis ticks: steps of 1, 2 or 5 × 10^n covering [lo, hi] with about max_ticks
 * ticks. Returns the step; *first is the first tick ≥ lo. */
double                 relay_chart_nice_step           (double             lo,
                                                        double             hi,
                                                        guint              max_ticks,
                                                        double            *first);
/* A millisecond label: "0", "250 ms", "1 s", "1.5 s", "0.25 ms". Free with g_free. */
char                  *relay_chart_format_ms           (double             ms);

G_END_DECLS
