/* relay-chart-palette.c: stage colours, labels, the chart style and small drawing helpers.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "relay-chart-palette.h"

#define RGB(hex) { ((hex) >> 16 & 0xff) / 255.0, ((hex) >> 8 & 0xff) / 255.0, ((hex) & 0xff) / 255.0, 1.0 }

/* Light colours keep at least 3:1 against white, dark ones against #242424; neighbouring
 * stages differ in hue, not only in lightness. */
static const RelayChartColor stage_colors[2][RELAY_N_STAGES] = {
  {
    [RELAY_STAGE_BLOCKED]     = RGB (0x8e8d8a),
    [RELAY_STAGE_DNS]         = RGB (0x0f8f84),
    [RELAY_STAGE_TCP]         = RGB (0xe66100),
    [RELAY_STAGE_PROXY]       = RGB (0x865e3c),
    [RELAY_STAGE_TLS_SETUP]   = RGB (0xb294e6),
    [RELAY_STAGE_TLS]         = RGB (0x813d9c),
    [RELAY_STAGE_SEND]        = RGB (0x26a269),
    [RELAY_STAGE_WAIT]        = RGB (0xe5a50a),
    [RELAY_STAGE_FIRST_EVENT] = RGB (0x8cbcf2),
    [RELAY_STAGE_FIRST_TOKEN] = RGB (0x1c71d8),
    [RELAY_STAGE_REASONING]   = RGB (0xd6409f),
    [RELAY_STAGE_STREAM]      = RGB (0x1e3a8a),
    [RELAY_STAGE_TAIL]        = RGB (0x6a7d91),
    [RELAY_STAGE_OTHER]       = RGB (0xd6d5d2),
  },
  {
    [RELAY_STAGE_BLOCKED]     = RGB (0xa8a7a4),
    [RELAY_STAGE_DNS]         = RGB (0x33c7b6),
    [RELAY_STAGE_TCP]         = RGB (0xffa348),
    [RELAY_STAGE_PROXY]       = RGB (0xb5835a),
    [RELAY_STAGE_TLS_SETUP]   = RGB (0xd4c0f5),
    [RELAY_STAGE_TLS]         = RGB (0xa66be0),
    [RELAY_STAGE_SEND]        = RGB (0x57e389),
    [RELAY_STAGE_WAIT]        = RGB (0xf6d32d),
    [RELAY_STAGE_FIRST_EVENT] = RGB (0xb3d4f8),
    [RELAY_STAGE_FIRST_TOKEN] = RGB (0x4f95e8),
    [RELAY_STAGE_REASONING]   = RGB (0xf076c0),
    [RELAY_STAGE_STREAM]      = RGB (0x6d72e0),
    [RELAY_STAGE_TAIL]        = RGB (0x8fa3b8),
    [RELAY_STAGE_OTHER]       = RGB (0x5e5c64),
  },
};

static const RelayChartColor other_stripes[2] = { RGB (0xa9a8a5), RGB (0x8a8891) };

static const RelayChartColor chunk_colors[2][3] = {
  { RGB (0x1c71d8), RGB (0xc01c8c), RGB (0xe66100) },
  { RGB (0x62a0ea), RGB (0xf076c0), RGB (0xffa348) },
};

/* No red among them: red marks errors and stalls. */
static const RelayChartColor series_colors[2][10] = {
  {
    RGB (0x1c71d8), RGB (0xe66100), RGB (0x26a269), RGB (0x4a3fb0), RGB (0x813d9c),
    RGB (0x865e3c), RGB (0xd6409f), RGB (0x0f8f84), RGB (0x5e5c64), RGB (0x9c8e00),
  },
  {
    RGB (0x62a0ea), RGB (0xffbe6f), RGB (0x57e389), RGB (0x9d95f5), RGB (0xc061cb),
    RGB (0xcdab8f), RGB (0xf076c0), RGB (0x33c7b6), RGB (0xc0bfbc), RGB (0xe5d74f),
  },
};

static void
style_set_colors (RelayChartStyle *style,
                  gboolean         dark)
{
  static const RelayChartStyle light_style = {
    .background = RGB (0xffffff),
    .foreground = RGB (0x1e1e1e),
    .muted      = RGB (0x6e6d6a),
    .grid       = RGB (0xe6e5e3),
    .group      = RGB (0xf2f1f0),
    .highlight  = RGB (0xdce8f9),
    .error      = RGB (0xc01c28),
    .marker     = RGB (0x1e1e1e),
  };
  static const RelayChartStyle dark_style = {
    .background = RGB (0x242424),
    .foreground = RGB (0xffffff),
    .muted      = RGB (0xa8a8a8),
    .grid       = RGB (0x3a3a3a),
    .group      = RGB (0x303030),
    .highlight  = RGB (0x2b3e5c),
    .error      = RGB (0xff7b63),
    .marker     = RGB (0xffffff),
  };
  const RelayChartStyle *src = dark ? &dark_style : &light_style;

  style->dark = dark;
  style->background = src->background;
  style->foreground = src->foreground;
  style->muted = src->muted;
  style->grid = src->grid;
  style->group = src->group;
  style->highlight = src->highlight;
  style->error = src->error;
  style->marker = src->marker;
}

void
relay_chart_style_init (RelayChartStyle *style,
                        gboolean         dark)
{
  g_return_if_fail (style != NULL);

  memset (style, 0, sizeof *style);
  style_set_colors (style, !!dark);
  g_strlcpy (style->font, "Cantarell 9", sizeof style->font);
}

void
relay_chart_style_init_document (RelayChartStyle *style)
{
  g_return_if_fail (style != NULL);

  relay_chart_style_init (style, FALSE);
  /* Reports are opened elsewhere; a generic family renders everywhere. */
  g_strlcpy (style->font, "Sans 9", sizeof style->font);
}

const RelayChartColor *
relay_chart_stage_color (RelayStage stage,
                         gboolean   dark)
{
  if ((guint) stage >= RELAY_N_STAGES)
    stage = RELAY_STAGE_OTHER;
  return &stage_colors[dark ? 1 : 0][stage];
}

const char *
relay_chart_stage_label (RelayStage stage)
{
  switch (stage)
    {
    case RELAY_STAGE_BLOCKED:     return _("Blocked");
    case RELAY_STAGE_DNS:         return _("DNS");
    case RELAY_STAGE_TCP:         return _("TCP");
    case RELAY_STAGE_PROXY:       return _("Proxy");
    case RELAY_STAGE_TLS_SETUP:   return _("TLS setup");
    case RELAY_STAGE_TLS:         return _("TLS");
    case RELAY_STAGE_SEND:        return _("Send");
    case RELAY_STAGE_WAIT:        return _("Wait");
    case RELAY_STAGE_FIRST_EVENT: return _("First event");
    case RELAY_STAGE_FIRST_TOKEN: return _("First token");
    case RELAY_STAGE_REASONING:   return _("Reasoning");
    case RELAY_STAGE_STREAM:      return _("Stream");
    case RELAY_STAGE_TAIL:        return _("Tail");
    case RELAY_STAGE_OTHER:
    case RELAY_N_STAGES:
    default:                      return _("Other");
    }
}

RelayChartPattern
relay_chart_stage_pattern (RelayStage stage)
{
  return stage == RELAY_STAGE_OTHER ? RELAY_CHART_PATTERN_HATCH : RELAY_CHART_PATTERN_SOLID;
}

const RelayChartColor *
relay_chart_chunk_kind_color (RelayChunkKind kind,
                              gboolean       dark)
{
  if ((guint) kind > RELAY_CHUNK_TOOL)
    kind = RELAY_CHUNK_CONTENT;
  return &chunk_colors[dark ? 1 : 0][kind];
}

const char *
relay_chart_chunk_kind_label (RelayChunkKind kind)
{
  switch (kind)
    {
    case RELAY_CHUNK_REASONING: return _("Reasoning");
    case RELAY_CHUNK_TOOL:      return _("Tool call");
    case RELAY_CHUNK_CONTENT:
    default:                    return _("Content");
    }
}

guint
relay_chart_series_n_colors (void)
{
  return G_N_ELEMENTS (series_colors[0]);
}

const RelayChartColor *
relay_chart_series_color (guint    index,
                          gboolean dark)
{
  return &series_colors[dark ? 1 : 0][index % G_N_ELEMENTS (series_colors[0])];
}

void
relay_chart_set_source_color (cairo_t               *cr,
                              const RelayChartColor *color)
{
  cairo_set_source_rgba (cr, color->red, color->green, color->blue, color->alpha);
}

void
relay_chart_fill_hatched (cairo_t               *cr,
                          const RelayChartColor *base,
                          const RelayChartColor *stripes,
                          double                 x,
                          double                 y,
                          double                 width,
                          double                 height)
{
  double d;

  if (width <= 0 || height <= 0)
    return;

  cairo_save (cr);
  cairo_rectangle (cr, x, y, width, height);
  cairo_clip (cr);
  relay_chart_set_source_color (cr, base);
  cairo_paint (cr);

  /* Stripes are anchored to the surface, not the rectangle, so neighbours line up. */
  relay_chart_set_source_color (cr, stripes);
  cairo_set_line_width (cr, 1.5);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
  for (d = floor ((x - height) / 6.0) * 6.0; d < x + width; d += 6.0)
    {
      cairo_move_to (cr, d, y + height);
      cairo_line_to (cr, d + height, y);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
relay_chart_fill_stage (cairo_t               *cr,
                        const RelayChartStyle *style,
                        RelayStage             stage,
                        double                 x,
                        double                 y,
                        double                 width,
                        double                 height)
{
  gboolean dark = style != NULL && style->dark;

  if (relay_chart_stage_pattern (stage) == RELAY_CHART_PATTERN_HATCH)
    {
      relay_chart_fill_hatched (cr, relay_chart_stage_color (stage, dark),
                                &other_stripes[dark ? 1 : 0], x, y, width, height);
      return;
    }

  relay_chart_set_source_color (cr, relay_chart_stage_color (stage, dark));
  cairo_rectangle (cr, x, y, width, height);
  cairo_fill (cr);
}

double
relay_chart_nice_step (double  lo,
                       double  hi,
                       guint   max_ticks,
                       double *first)
{
  double range = hi - lo;
  double raw, mag, norm, step;

  if (max_ticks < 1)
    max_ticks = 1;
  if (!(range > 0) || !isfinite (range))
    {
      if (first)
        *first = lo;
      return 1.0;
    }

  raw = range / max_ticks;
  mag = pow (10.0, floor (log10 (raw)));
  norm = raw / mag;
  if (norm <= 1.0)
    step = mag;
  else if (norm <= 2.0)
    step = 2.0 * mag;
  else if (norm <= 5.0)
    step = 5.0 * mag;
  else
    step = 10.0 * mag;

  if (first)
    *first = ceil (lo / step - 1e-9) * step;

  return step;
}

/* Up to three decimals, trailing zeros dropped. */
static char *
format_number (double value)
{
  char *str = g_strdup_printf ("%.3f", value);
  char *dot = strpbrk (str, ".,");

  if (dot != NULL)
    {
      char *end = str + strlen (str) - 1;

      while (end > dot && *end == '0')
        *end-- = '\0';
      if (end == dot)
        *end = '\0';
    }

  return str;
}

char *
relay_chart_format_ms (double ms)
{
  g_autofree char *number = NULL;

  if (fabs (ms) < 1e-9)
    return g_strdup ("0");

  if (fabs (ms) >= 1000.0)
    {
      number = format_number (ms / 1000.0);
      /* TRANSLATORS: a duration in seconds on a chart axis, e.g. "1.5 s" */
      return g_strdup_printf (_("%s s"), number);
    }

  number = format_number (ms);
  /* TRANSLATORS: a duration in milliseconds on a chart axis, e.g. "250 ms" */
  return g_strdup_printf (_("%s ms"), number);
}

const char *
relay_chart_short_endpoint_name (const char *name)
{
  static const char prefix[] = "Simulated: ";

  if (name != NULL && g_str_has_prefix (name, prefix) && name[strlen (prefix)] != '\0')
    return name + strlen (prefix);

  return name;
}
