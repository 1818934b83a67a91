/* relay-result-chart.c: bars, stacked bars and XY points with fit lines and error bars,
 * drawn with cairo for the experiment result, the A/B CDFs and the budget usage.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>
#include <pango/pangocairo.h>

#include "relay-chart-palette.h"
#include "relay-result-chart.h"

typedef struct
{
  char    *name;
  char    *unit;
  gboolean line;
  gboolean fit;
  GArray  *points;
} Series;

typedef struct
{
  double  y;
  char   *label;
} Reference;

struct _RelayResultChart
{
  GtkWidget             parent_instance;

  RelayExperimentChart  kind;
  char                 *x_label;
  char                 *y_label;
  GPtrArray            *categories;
  GPtrArray            *series;
  GArray               *references;
};

G_DEFINE_FINAL_TYPE (RelayResultChart, relay_result_chart, GTK_TYPE_WIDGET)

static void
series_free (Series *series)
{
  g_free (series->name);
  g_free (series->unit);
  g_clear_pointer (&series->points, g_array_unref);
  g_free (series);
}

static void
reference_clear (Reference *reference)
{
  g_free (reference->label);
}

static gboolean
is_dark (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ());
}

static void
show_text (cairo_t    *cr,
           const char *font,
           const char *text,
           double      x,
           double      y,
           double      xalign,
           double      yalign,
           double      max_width)
{
  g_autoptr(PangoLayout) layout = pango_cairo_create_layout (cr);
  g_autoptr(PangoFontDescription) desc = pango_font_description_from_string (font);
  int w, h;

  pango_layout_set_font_description (layout, desc);
  pango_layout_set_text (layout, text, -1);
  if (max_width > 0)
    {
      pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
      pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
    }
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, x - xalign * w, y - yalign * h);
  pango_cairo_show_layout (cr, layout);
}

static char *
format_value (double value)
{
  if (fabs (value) < 1e-9)
    return g_strdup ("0");
  if (fabs (value) >= 100 || value == floor (value))
    return g_strdup_printf ("%.0f", value);
  if (fabs (value) >= 10)
    return g_strdup_printf ("%.1f", value);
  return g_strdup_printf ("%.2f", value);
}

static void
value_range (RelayResultChart *self,
             double           *y0,
             double           *y1,
             double           *x0,
             double           *x1)
{
  *y0 = 0;
  *y1 = -INFINITY;
  *x0 = INFINITY;
  *x1 = -INFINITY;

  if (self->kind == RELAY_EXPERIMENT_CHART_STACKED_BARS)
    {
      for (guint c = 0; c < self->categories->len; c++)
        {
          double sum = 0;

          for (guint s = 0; s < self->series->len; s++)
            {
              Series *series = g_ptr_array_index (self->series, s);

              for (guint i = 0; i < series->points->len; i++)
                {
                  const RelayExperimentPoint *p = &g_array_index (series->points, RelayExperimentPoint, i);

                  if ((guint) p->x == c && isfinite (p->y) && p->y > 0)
                    sum += p->y;
                }
            }
          *y1 = MAX (*y1, sum);
        }
    }
  else
    {
      for (guint s = 0; s < self->series->len; s++)
        {
          Series *series = g_ptr_array_index (self->series, s);

          for (guint i = 0; i < series->points->len; i++)
            {
              const RelayExperimentPoint *p = &g_array_index (series->points, RelayExperimentPoint, i);

              if (!isfinite (p->y) || !isfinite (p->x))
                continue;
              *y0 = MIN (*y0, p->y);
              *y1 = MAX (*y1, isfinite (p->hi) ? MAX (p->hi, p->y) : p->y);
              if (isfinite (p->lo))
                *y0 = MIN (*y0, p->lo);
              *x0 = MIN (*x0, p->x);
              *x1 = MAX (*x1, p->x);
            }
        }
    }

  for (guint i = 0; i < self->references->len; i++)
    *y1 = MAX (*y1, g_array_index (self->references, Reference, i).y);

  if (!isfinite (*y1) || *y1 <= *y0)
    *y1 = *y0 + 1;
  *y1 *= 1.08;
  if (!isfinite (*x0))
    {
      *x0 = 0;
      *x1 = 1;
    }
  if (*x1 <= *x0)
    {
      *x0 -= 0.5;
      *x1 += 0.5;
    }
}

void
relay_result_chart_draw (RelayResultChart *self,
                         cairo_t          *cr,
                         double            width,
                         double            height)
{
  RelayChartStyle style;
  gboolean dark = is_dark ();
  double left = 64, right = 16, top = 12, bottom = 44;
  double legend_h = 40;
  double y0, y1, x0, x1, step, first;
  double pw, ph;
  gboolean bars = self->kind != RELAY_EXPERIMENT_CHART_XY;

  g_return_if_fail (RELAY_IS_RESULT_CHART (self));

  relay_chart_style_init (&style, dark);
  relay_chart_set_source_color (cr, &style.background);
  cairo_paint (cr);

  if (self->series->len == 0)
    {
      relay_chart_set_source_color (cr, &style.muted);
      show_text (cr, style.font, _("No data to chart"), width / 2, height / 2, 0.5, 0.5, width);
      return;
    }

  top += legend_h;
  pw = width - left - right;
  ph = height - top - bottom;
  if (pw < 20 || ph < 20)
    return;

  value_range (self, &y0, &y1, &x0, &x1);
  if (bars)
    {
      x0 = -0.5;
      x1 = MAX (self->categories->len, 1) - 0.5;
    }
  else
    {
      double pad = (x1 - x0) * 0.04;

      x0 -= pad;
      x1 += pad;
    }

#define X(v) (left + ((v) - x0) / (x1 - x0) * pw)
#define Y(v) (top + ph - ((v) - y0) / (y1 - y0) * ph)

  /* Grid and y ticks. */
  cairo_set_line_width (cr, 1);
  step = relay_chart_nice_step (y0, y1, 5, &first);
  for (double v = first; step > 0 && v <= y1 + step * 1e-6; v += step)
    {
      g_autofree char *tick = format_value (v);

      relay_chart_set_source_color (cr, &style.grid);
      cairo_move_to (cr, left, round (Y (v)) + 0.5);
      cairo_line_to (cr, left + pw, round (Y (v)) + 0.5);
      cairo_stroke (cr);
      relay_chart_set_source_color (cr, &style.muted);
      show_text (cr, style.font, tick, left - 6, Y (v), 1, 0.5, 0);
    }

  /* x ticks: categories, or numbers. */
  relay_chart_set_source_color (cr, &style.muted);
  if (bars)
    {
      double slot = pw / MAX (self->categories->len, 1);

      for (guint c = 0; c < self->categories->len; c++)
        show_text (cr, style.font, g_ptr_array_index (self->categories, c), X (c), top + ph + 4, 0.5, 0, slot - 4);
    }
  else
    {
      step = relay_chart_nice_step (x0, x1, 6, &first);
      for (double v = first; step > 0 && v <= x1 + step * 1e-6; v += step)
        {
          g_autofree char *tick = format_value (v);

          show_text (cr, style.font, tick, X (v), top + ph + 4, 0.5, 0, 0);
        }
    }

  if (self->x_label != NULL)
    show_text (cr, style.font, self->x_label, left + pw / 2, height - 4, 0.5, 1, pw);
  if (self->y_label != NULL)
    show_text (cr, style.font, self->y_label, 4, top - 4, 0, 1, left + pw / 2);

  /* Axis. */
  relay_chart_set_source_color (cr, &style.foreground);
  cairo_move_to (cr, left + 0.5, top);
  cairo_line_to (cr, left + 0.5, top + ph + 0.5);
  cairo_line_to (cr, left + pw, top + ph + 0.5);
  cairo_stroke (cr);

  cairo_save (cr);
  cairo_rectangle (cr, left, top - 2, pw + 2, ph + 4);
  cairo_clip (cr);

  if (self->kind == RELAY_EXPERIMENT_CHART_STACKED_BARS)
    {
      double bar_w = pw / MAX (self->categories->len, 1) * 0.6;

      for (guint c = 0; c < self->categories->len; c++)
        {
          double base = 0;

          for (guint s = 0; s < self->series->len; s++)
            {
              Series *series = g_ptr_array_index (self->series, s);

              for (guint i = 0; i < series->points->len; i++)
                {
                  const RelayExperimentPoint *p = &g_array_index (series->points, RelayExperimentPoint, i);

                  if ((guint) p->x != c || !isfinite (p->y) || p->y <= 0)
                    continue;
                  relay_chart_set_source_color (cr, relay_chart_series_color (s, dark));
                  cairo_rectangle (cr, X (c) - bar_w / 2, Y (base + p->y), bar_w, Y (base) - Y (base + p->y));
                  cairo_fill (cr);
                  base += p->y;
                }
            }
        }
    }
  else if (self->kind == RELAY_EXPERIMENT_CHART_BARS)
    {
      double slot = pw / MAX (self->categories->len, 1) * 0.8;
      double bar_w = slot / MAX (self->series->len, 1);

      for (guint s = 0; s < self->series->len; s++)
        {
          Series *series = g_ptr_array_index (self->series, s);

          for (guint i = 0; i < series->points->len; i++)
            {
              const RelayExperimentPoint *p = &g_array_index (series->points, RelayExperimentPoint, i);
              double bx = X (p->x) - slot / 2 + s * bar_w;

              if (!isfinite (p->y))
                continue;
              relay_chart_set_source_color (cr, relay_chart_series_color (s, dark));
              cairo_rectangle (cr, bx + 1, Y (MAX (p->y, 0)), bar_w - 2, fabs (Y (p->y) - Y (0)));
              cairo_fill (cr);
              if (isfinite (p->lo) && isfinite (p->hi))
                {
                  relay_chart_set_source_color (cr, &style.foreground);
                  cairo_move_to (cr, bx + bar_w / 2, Y (p->lo));
                  cairo_line_to (cr, bx + bar_w / 2, Y (p->hi));
                  cairo_move_to (cr, bx + bar_w / 2 - 4, Y (p->lo));
                  cairo_line_to (cr, bx + bar_w / 2 + 4, Y (p->lo));
                  cairo_move_to (cr, bx + bar_w / 2 - 4, Y (p->hi));
                  cairo_line_to (cr, bx + bar_w / 2 + 4, Y (p->hi));
                  cairo_stroke (cr);
                }
            }
        }
    }
  else
    {
      for (guint s = 0; s < self->series->len; s++)
        {
          Series *series = g_ptr_array_index (self->series, s);
          const RelayChartColor *color = relay_chart_series_color (s, dark);
          gboolean started = FALSE;

          relay_chart_set_source_color (cr, color);
          if (series->line)
            {
              static const double dash[] = { 6, 4 };

              cairo_set_line_width (cr, 2);
              if (series->fit)
                cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
              for (guint i = 0; i < series->points->len; i++)
                {
                  const RelayExperimentPoint *p = &g_array_index (series->points, RelayExperimentPoint, i);

                  if (!isfinite (p->x) || !isfinite (p->y))
                    continue;
                  if (!started)
                    cairo_move_to (cr, X (p->x), Y (p->y));
                  else
                    cairo_line_to (cr, X (p->x), Y (p->y));
                  started = TRUE;
                }
              cairo_stroke (cr);
              cairo_set_dash (cr, NULL, 0, 0);
              cairo_set_line_width (cr, 1);
            }
          if (series->fit)
            continue;

          for (guint i = 0; i < series->points->len && (!series->line || series->points->len <= 64); i++)
            {
              const RelayExperimentPoint *p = &g_array_index (series->points, RelayExperimentPoint, i);

              if (!isfinite (p->x) || !isfinite (p->y))
                continue;
              if (isfinite (p->lo) && isfinite (p->hi))
                {
                  cairo_move_to (cr, X (p->x), Y (p->lo));
                  cairo_line_to (cr, X (p->x), Y (p->hi));
                  cairo_move_to (cr, X (p->x) - 3, Y (p->lo));
                  cairo_line_to (cr, X (p->x) + 3, Y (p->lo));
                  cairo_move_to (cr, X (p->x) - 3, Y (p->hi));
                  cairo_line_to (cr, X (p->x) + 3, Y (p->hi));
                  cairo_stroke (cr);
                }
              cairo_arc (cr, X (p->x), Y (p->y), 3.5, 0, 2 * G_PI);
              cairo_fill (cr);
            }
        }
    }

  for (guint i = 0; i < self->references->len; i++)
    {
      const Reference *ref = &g_array_index (self->references, Reference, i);
      static const double dash[] = { 3, 3 };

      relay_chart_set_source_color (cr, &style.error);
      cairo_set_line_width (cr, 1.5);
      cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
      cairo_move_to (cr, left, Y (ref->y));
      cairo_line_to (cr, left + pw, Y (ref->y));
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      cairo_set_line_width (cr, 1);
      if (ref->label != NULL)
        show_text (cr, style.font, ref->label, left + pw - 4, Y (ref->y) - 2, 1, 1, 0);
    }

  cairo_restore (cr);

  /* Legend: a swatch and the name (the second cue besides colour). */
  {
    double lx = left;

    for (guint s = 0; s < self->series->len; s++)
      {
        Series *series = g_ptr_array_index (self->series, s);
        g_autoptr(PangoLayout) layout = pango_cairo_create_layout (cr);
        g_autoptr(PangoFontDescription) desc = pango_font_description_from_string (style.font);
        Series *first = g_ptr_array_index (self->series, 0);
        g_autofree char *text = NULL;
        int w, h;

        pango_layout_set_font_description (layout, desc);

        /* A series in another unit than the axis says so in the legend. */
        if (series->unit != NULL && first->unit != NULL && g_strcmp0 (series->unit, first->unit) != 0)
          text = g_strdup_printf ("%s (%s)", series->name != NULL ? series->name : "", series->unit);
        else
          text = g_strdup (series->name != NULL ? series->name : "");
        pango_layout_set_text (layout, text, -1);
        pango_layout_get_pixel_size (layout, &w, &h);
        if (lx + 16 + w > width - right && lx > left)
          break;
        relay_chart_set_source_color (cr, relay_chart_series_color (s, dark));
        if (series->fit)
          cairo_rectangle (cr, lx, top - legend_h + 8, 12, 2);
        else
          cairo_rectangle (cr, lx, top - legend_h + 3, 12, 12);
        cairo_fill (cr);
        relay_chart_set_source_color (cr, &style.foreground);
        cairo_move_to (cr, lx + 16, top - legend_h + 9 - h / 2.0);
        pango_cairo_show_layout (cr, layout);
        lx += 16 + w + 14;
      }
  }

#undef X
#undef Y
}

static void
relay_result_chart_snapshot (GtkWidget   *widget,
                             GtkSnapshot *snapshot)
{
  RelayResultChart *self = RELAY_RESULT_CHART (widget);
  double width = gtk_widget_get_width (widget);
  double height = gtk_widget_get_height (widget);
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  relay_result_chart_draw (self, cr, width, height);
  cairo_destroy (cr);
}

static void
relay_result_chart_measure (GtkWidget      *widget,
                            GtkOrientation  orientation,
                            int             for_size,
                            int            *minimum,
                            int            *natural,
                            int            *minimum_baseline,
                            int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 240 : 200;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 560 : 280;
}

static void
relay_result_chart_finalize (GObject *object)
{
  RelayResultChart *self = RELAY_RESULT_CHART (object);

  g_clear_pointer (&self->x_label, g_free);
  g_clear_pointer (&self->y_label, g_free);
  g_clear_pointer (&self->categories, g_ptr_array_unref);
  g_clear_pointer (&self->series, g_ptr_array_unref);
  g_clear_pointer (&self->references, g_array_unref);

  G_OBJECT_CLASS (relay_result_chart_parent_class)->finalize (object);
}

static void
relay_result_chart_class_init (RelayResultChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = relay_result_chart_finalize;
  widget_class->snapshot = relay_result_chart_snapshot;
  widget_class->measure = relay_result_chart_measure;
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
relay_result_chart_init (RelayResultChart *self)
{
  self->categories = g_ptr_array_new_with_free_func (g_free);
  self->series = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);
  self->references = g_array_new (FALSE, TRUE, sizeof (Reference));
  g_array_set_clear_func (self->references, (GDestroyNotify) reference_clear);

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (gtk_widget_queue_draw), self, G_CONNECT_SWAPPED);
}

GtkWidget *
relay_result_chart_new (void)
{
  return g_object_new (RELAY_TYPE_RESULT_CHART, NULL);
}

void
relay_result_chart_reset (RelayResultChart     *self,
                          RelayExperimentChart  kind,
                          const char           *x_label,
                          const char           *y_label)
{
  g_return_if_fail (RELAY_IS_RESULT_CHART (self));

  self->kind = kind;
  g_free (self->x_label);
  self->x_label = g_strdup (x_label);
  g_free (self->y_label);
  self->y_label = g_strdup (y_label);
  g_ptr_array_set_size (self->categories, 0);
  g_ptr_array_set_size (self->series, 0);
  g_array_set_size (self->references, 0);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
relay_result_chart_add_category (RelayResultChart *self,
                                 const char       *label)
{
  g_return_if_fail (RELAY_IS_RESULT_CHART (self));

  g_ptr_array_add (self->categories, g_strdup (label != NULL ? label : ""));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
relay_result_chart_add_series (RelayResultChart           *self,
                               const char                 *name,
                               gboolean                    line,
                               gboolean                    fit,
                               const RelayExperimentPoint *points,
                               guint                       n_points)
{
  Series *series;

  g_return_if_fail (RELAY_IS_RESULT_CHART (self));

  series = g_new0 (Series, 1);
  series->name = g_strdup (name);
  series->line = line;
  series->fit = fit;
  series->points = g_array_sized_new (FALSE, FALSE, sizeof (RelayExperimentPoint), n_points);
  if (n_points > 0)
    g_array_append_vals (series->points, points, n_points);
  g_ptr_array_add (self->series, series);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
relay_result_chart_add_reference (RelayResultChart *self,
                                  double            y,
                                  const char       *label)
{
  Reference ref = { y, g_strdup (label) };

  g_return_if_fail (RELAY_IS_RESULT_CHART (self));

  g_array_append_val (self->references, ref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
relay_result_chart_set_result (RelayResultChart      *self,
                               RelayExperimentResult *result)
{
  g_return_if_fail (RELAY_IS_RESULT_CHART (self));

  if (result == NULL)
    {
      relay_result_chart_reset (self, RELAY_EXPERIMENT_CHART_BARS, NULL, NULL);
      return;
    }

  relay_result_chart_reset (self, result->chart, result->x_label, result->y_label);
  for (guint i = 0; result->categories != NULL && i < result->categories->len; i++)
    relay_result_chart_add_category (self, g_ptr_array_index (result->categories, i));
  for (guint i = 0; result->series != NULL && i < result->series->len; i++)
    {
      RelayExperimentSeries *series = g_ptr_array_index (result->series, i);
      Series *added;

      relay_result_chart_add_series (self, series->name, series->line, series->fit,
                                     series->points != NULL ? (RelayExperimentPoint *) (gpointer) series->points->data : NULL,
                                     series->points != NULL ? series->points->len : 0);
      added = g_ptr_array_index (self->series, self->series->len - 1);
      added->unit = g_strdup (series->unit);
    }
}

guint
relay_result_chart_get_n_series (RelayResultChart *self)
{
  g_return_val_if_fail (RELAY_IS_RESULT_CHART (self), 0);

  return self->series->len;
}
