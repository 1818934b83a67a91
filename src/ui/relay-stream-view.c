/* relay-stream-view.c: the streaming chart widget.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "relay-stats.h"
#include "relay-stream-view.h"

struct _RelayStreamView
{
  GtkWidget           parent_instance;

  RelayStreamPainter *painter;
  guint               describe_id;
};

G_DEFINE_FINAL_TYPE (RelayStreamView, relay_stream_view, GTK_TYPE_WIDGET)

static void
update_style (RelayStreamView *self)
{
  RelayChartStyle style;

  relay_chart_style_init (&style, adw_style_manager_get_dark (adw_style_manager_get_default ()));
  relay_stream_painter_set_style (self->painter, &style);
}

static gboolean
describe_timeout_cb (gpointer user_data)
{
  RelayStreamView *self = user_data;
  g_autofree char *text = relay_stream_view_describe (self);

  self->describe_id = 0;
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text,
                                  -1);
  return G_SOURCE_REMOVE;
}

static void
painter_changed_cb (RelayStreamView *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));

  if (self->describe_id == 0)
    self->describe_id = g_timeout_add (500, describe_timeout_cb, self);
}

static void
relay_stream_view_snapshot (GtkWidget   *widget,
                            GtkSnapshot *snapshot)
{
  RelayStreamView *self = RELAY_STREAM_VIEW (widget);
  double width = gtk_widget_get_width (widget);
  double height = gtk_widget_get_height (widget);
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  relay_stream_painter_draw (self->painter, cr, width, height);
  cairo_destroy (cr);
}

static void
relay_stream_view_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 240 : 160;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 800 : 400;
}

static gboolean
query_tooltip_cb (RelayStreamView *self,
                  int              x,
                  int              y,
                  gboolean         keyboard_mode,
                  GtkTooltip      *tooltip)
{
  RelayStreamHit hit;
  g_autofree char *text = NULL;
  g_autofree char *label = NULL;

  if (keyboard_mode ||
      !relay_stream_painter_hit_test (self->painter,
                                      gtk_widget_get_width (GTK_WIDGET (self)),
                                      gtk_widget_get_height (GTK_WIDGET (self)),
                                      x, y, 8, &hit))
    return FALSE;

  if (hit.trace != NULL)
    label = relay_stream_painter_dup_trace_label (self->painter, hit.trace);

  switch (relay_stream_painter_get_mode (self->painter))
    {
    case RELAY_STREAM_MODE_GAPS:
      {
        double threshold = relay_stream_painter_get_trace_stall_threshold (self->painter, hit.trace);

        /* Translators: trace, chunk number, time since the first token, gap before the chunk */
        text = g_strdup_printf (_("%s, chunk %u at %.1f ms: %.1f ms after the previous one"),
                                label != NULL ? label : "", hit.chunk + 1, hit.x_value, hit.y_value);
        if (!isnan (threshold) && hit.y_value > threshold)
          {
            /* Translators: appended to a chunk's tooltip; %.0f is the trace's stall threshold */
            g_autofree char *stall = g_strdup_printf (_("A stall: over this trace’s threshold of %.0f ms"), threshold);
            char *both = g_strconcat (text, "\n", stall, NULL);

            g_free (text);
            text = both;
          }
      }
      break;

    case RELAY_STREAM_MODE_CUMULATIVE:
      /* Translators: trace, chunk number, time since the start, output so far */
      text = g_strdup_printf (_("%s, chunk %u at %.1f ms: %.0f so far"),
                              label != NULL ? label : "", hit.chunk + 1, hit.x_value, hit.y_value);
      break;

    case RELAY_STREAM_MODE_DISTRIBUTION:
    default:
      text = g_strdup_printf (_("%.0f %% of gaps are at most %.1f ms"),
                              hit.y_value * 100, hit.x_value);
      break;
    }

  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

char *
relay_stream_view_describe (RelayStreamView *self)
{
  GListModel *traces;
  g_autoptr(GArray) gaps = g_array_new (FALSE, FALSE, sizeof (double));
  RelayStats stats;
  guint n, n_chunks = 0;

  g_return_val_if_fail (RELAY_IS_STREAM_VIEW (self), NULL);

  traces = relay_stream_painter_get_traces (self->painter);
  n = traces != NULL ? g_list_model_get_n_items (traces) : 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      guint n_trace_chunks;
      const RelayChunk *chunks = relay_trace_get_chunks (trace, &n_trace_chunks);

      n_chunks += n_trace_chunks;
      for (guint c = 1; c < n_trace_chunks; c++)
        {
          double gap = (chunks[c].t_us - chunks[c - 1].t_us) / 1000.0;

          g_array_append_val (gaps, gap);
        }
    }

  if (gaps->len == 0)
    return g_strdup (_("Streaming chart: no streamed chunks yet"));

  relay_stats_compute ((double *) (gpointer) gaps->data, gaps->len, &stats);

  return g_strdup_printf (_("Streaming chart: %u chunks in %u traces; inter-chunk gap p50 %.1f ms, p95 %.1f ms, longest %.1f ms"),
                          n_chunks, n, stats.p50, stats.p95, stats.max);
}

static void
relay_stream_view_dispose (GObject *object)
{
  RelayStreamView *self = (RelayStreamView *)object;

  g_clear_handle_id (&self->describe_id, g_source_remove);
  g_clear_object (&self->painter);

  G_OBJECT_CLASS (relay_stream_view_parent_class)->dispose (object);
}

static void
relay_stream_view_class_init (RelayStreamViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = relay_stream_view_dispose;

  widget_class->snapshot = relay_stream_view_snapshot;
  widget_class->measure = relay_stream_view_measure;

  gtk_widget_class_set_css_name (widget_class, "streamview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
relay_stream_view_init (RelayStreamView *self)
{
  self->painter = relay_stream_painter_new ();
  g_signal_connect_object (self->painter, "changed",
                           G_CALLBACK (painter_changed_cb), self,
                           G_CONNECT_SWAPPED);

  update_style (self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (update_style), self,
                           G_CONNECT_SWAPPED);

  gtk_widget_add_css_class (GTK_WIDGET (self), "stream-view");
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Streaming chart"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("Streaming chart: no streamed chunks yet"),
                                  -1);
}

GtkWidget *
relay_stream_view_new (void)
{
  return g_object_new (RELAY_TYPE_STREAM_VIEW, NULL);
}

void
relay_stream_view_set_traces (RelayStreamView *self,
                              GListModel      *traces,
                              RelaySession    *session)
{
  g_return_if_fail (RELAY_IS_STREAM_VIEW (self));

  relay_stream_painter_set_traces (self->painter, traces, session);
}

RelayStreamPainter *
relay_stream_view_get_painter (RelayStreamView *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_VIEW (self), NULL);

  return self->painter;
}

void
relay_stream_view_set_mode (RelayStreamView *self,
                            RelayStreamMode  mode)
{
  g_return_if_fail (RELAY_IS_STREAM_VIEW (self));

  relay_stream_painter_set_mode (self->painter, mode);
}

void
relay_stream_view_invalidate (RelayStreamView *self)
{
  g_return_if_fail (RELAY_IS_STREAM_VIEW (self));

  relay_stream_painter_invalidate (self->painter);
}
