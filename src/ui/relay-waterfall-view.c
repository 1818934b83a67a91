/* relay-waterfall-view.c: the live latency waterfall widget.
 *
 * The painter does all drawing and hit testing; this widget adds scrolling (GtkScrollable,
 * the painter keeps the axis fixed), zoom and pan, hover and selection, and the frame-clock
 * tick that makes running probes grow.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "relay-budget-editor.h"
#include "relay-stats.h"
#include "relay-summary.h"
#include "relay-waterfall-view.h"

#define ZOOM_STEP 1.5

struct _RelayWaterfallView
{
  GtkWidget              parent_instance;

  RelayWaterfallPainter *painter;
  RelaySession          *session;
  RelayTrace            *selected;
  GtkAdjustment         *hadjustment;
  GtkAdjustment         *vadjustment;

  double                 pointer_x;
  double                 pointer_y;
  double                 drag_t0;
  double                 drag_t1;
  guint                  tick_id;
  guint                  describe_id;
  guint                  hscroll_policy : 1;
  guint                  vscroll_policy : 1;
  guint                  dragging : 1;
  guint                  keyboard_used : 1;
};

enum {
  PROP_0,
  PROP_LIVE,
  PROP_SELECTED,
  N_PROPS,

  /* GtkScrollable */
  PROP_HADJUSTMENT,
  PROP_VADJUSTMENT,
  PROP_HSCROLL_POLICY,
  PROP_VSCROLL_POLICY,
};

enum {
  TRACE_ACTIVATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE_WITH_CODE (RelayWaterfallView, relay_waterfall_view, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, NULL))

static void
update_style (RelayWaterfallView *self)
{
  RelayChartStyle style;

  relay_chart_style_init (&style, adw_style_manager_get_dark (adw_style_manager_get_default ()));
  relay_waterfall_painter_set_style (self->painter, &style);
}

static void
update_vadjustment (RelayWaterfallView *self)
{
  double height = gtk_widget_get_height (GTK_WIDGET (self));
  double content;
  double value;

  if (self->vadjustment == NULL)
    return;

  content = MAX (relay_waterfall_painter_get_content_height (self->painter), height);
  value = CLAMP (gtk_adjustment_get_value (self->vadjustment), 0, content - height);
  gtk_adjustment_configure (self->vadjustment, value, 0, content, 24, MAX (height * 0.9, 1), height);
}

static gboolean
describe_timeout_cb (gpointer user_data)
{
  RelayWaterfallView *self = user_data;
  g_autofree char *text = relay_waterfall_view_describe (self);

  self->describe_id = 0;
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text,
                                  -1);
  return G_SOURCE_REMOVE;
}

static void
painter_changed_cb (RelayWaterfallView *self)
{
  update_vadjustment (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));

  /* The text alternative needs no frame rate; twice a second is plenty. */
  if (self->describe_id == 0)
    self->describe_id = g_timeout_add (500, describe_timeout_cb, self);
}

static void
vadjustment_value_changed_cb (RelayWaterfallView *self,
                              GtkAdjustment      *adjustment)
{
  relay_waterfall_painter_set_scroll_offset (self->painter, gtk_adjustment_get_value (adjustment));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
set_vadjustment (RelayWaterfallView *self,
                 GtkAdjustment      *adjustment)
{
  if (self->vadjustment == adjustment)
    return;

  if (self->vadjustment != NULL)
    g_signal_handlers_disconnect_by_func (self->vadjustment, vadjustment_value_changed_cb, self);

  g_set_object (&self->vadjustment, adjustment);

  if (self->vadjustment != NULL)
    {
      g_signal_connect_object (self->vadjustment, "value-changed",
                               G_CALLBACK (vadjustment_value_changed_cb), self,
                               G_CONNECT_SWAPPED);
      update_vadjustment (self);
    }

  g_object_notify (G_OBJECT (self), "vadjustment");
}

/* The visible part of the rows, between the fixed axis and the fixed legend. */
static void
rows_viewport (RelayWaterfallView *self,
               double             *top,
               double             *bottom)
{
  double height = gtk_widget_get_height (GTK_WIDGET (self));
  double header = relay_waterfall_painter_get_header_height (self->painter);
  double rows = relay_waterfall_painter_get_n_rows (self->painter) * relay_waterfall_painter_get_row_height (self->painter);
  double legend = relay_waterfall_painter_get_content_height (self->painter) - header - rows;

  *top = header;
  *bottom = MAX (header, height - MAX (legend, 0));
}

/* Keyboard users see where they are: a ring around the selected row (or the whole chart
 * before anything is selected), in the theme's focus colour. */
static void
snapshot_focus_ring (RelayWaterfallView *self,
                     GtkSnapshot        *snapshot,
                     double              width,
                     double              height)
{
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  GtkStyleContext *context = gtk_widget_get_style_context (GTK_WIDGET (self));
  G_GNUC_END_IGNORE_DEPRECATIONS
  GdkRGBA color = { 0.21, 0.52, 0.89, 0.5 };
  GskRoundedRect outline;
  double y, top, bottom, rh;
  float widths[4] = { 2, 2, 2, 2 };
  GdkRGBA colors[4];

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  if (gtk_style_context_lookup_color (context, "accent_color", &color))
    color.alpha = 0.5;
  G_GNUC_END_IGNORE_DEPRECATIONS

  for (guint i = 0; i < 4; i++)
    colors[i] = color;

  rh = relay_waterfall_painter_get_row_height (self->painter);
  rows_viewport (self, &top, &bottom);

  if (self->selected != NULL &&
      (y = relay_waterfall_painter_get_trace_y (self->painter, self->selected)) >= 0 &&
      y + rh > top && y < bottom)
    {
      gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, top, width, bottom - top));
      gsk_rounded_rect_init_from_rect (&outline, &GRAPHENE_RECT_INIT (1, y, width - 2, rh), 4);
      gtk_snapshot_append_border (snapshot, &outline, widths, colors);
      gtk_snapshot_pop (snapshot);
    }
  else if (self->selected == NULL)
    {
      gsk_rounded_rect_init_from_rect (&outline, &GRAPHENE_RECT_INIT (1, 1, width - 2, height - 2), 6);
      gtk_snapshot_append_border (snapshot, &outline, widths, colors);
    }
}

/* Scrolls the rows so the selected one is in view. */
static void
scroll_to_selected (RelayWaterfallView *self)
{
  double rh = relay_waterfall_painter_get_row_height (self->painter);
  double top, bottom, row_top, value, visible;
  int row;

  if (self->vadjustment == NULL ||
      (row = relay_waterfall_painter_get_trace_row (self->painter, self->selected)) < 0)
    return;

  rows_viewport (self, &top, &bottom);
  visible = bottom - top;
  row_top = row * rh;
  value = gtk_adjustment_get_value (self->vadjustment);

  if (row_top < value)
    gtk_adjustment_set_value (self->vadjustment, row_top);
  else if (row_top + rh > value + visible)
    gtk_adjustment_set_value (self->vadjustment, row_top + rh - visible);
}

/* Moves the selection by delta trace rows (group headers are skipped), clamped. */
static void
move_selection (RelayWaterfallView *self,
                int                 delta)
{
  guint n = relay_waterfall_painter_get_n_rows (self->painter);
  int row = relay_waterfall_painter_get_trace_row (self->painter, self->selected);
  int step = delta < 0 ? -1 : 1;
  int remaining = ABS (delta);
  RelayTrace *target = NULL;

  if (n == 0)
    return;

  if (row < 0)
    {
      /* Nothing selected yet: start from the first (or last) trace. */
      row = delta < 0 ? (int) n : -1;
      remaining = 1;
    }

  for (int r = row + step; r >= 0 && r < (int) n && remaining > 0; r += step)
    {
      RelayTrace *trace = relay_waterfall_painter_get_row_trace (self->painter, r);

      if (trace != NULL)
        {
          target = trace;
          remaining--;
        }
    }

  if (target != NULL)
    {
      relay_waterfall_view_set_selected (self, target);
      scroll_to_selected (self);
    }
}

static void
note_keyboard_use (RelayWaterfallView *self)
{
  if (!self->keyboard_used)
    {
      self->keyboard_used = TRUE;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static int
rows_per_page (RelayWaterfallView *self)
{
  double top, bottom;

  rows_viewport (self, &top, &bottom);
  return MAX (1, (int) ((bottom - top) / relay_waterfall_painter_get_row_height (self->painter)) - 1);
}

/* "waterfall.select-row" (i): moves the selection by that many traces; G_MININT and
 * G_MAXINT go to the first and last. Bound to Up, Down, Page Up, Page Down, Home, End. */
static void
select_row_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  RelayWaterfallView *self = RELAY_WATERFALL_VIEW (widget);
  int delta = g_variant_get_int32 (param);

  note_keyboard_use (self);

  if (delta == G_MININT || delta == G_MAXINT)
    {
      relay_waterfall_view_set_selected (self, NULL);
      move_selection (self, delta == G_MININT ? 1 : -1);
    }
  else if (delta == G_MININT + 1 || delta == G_MAXINT - 1)
    move_selection (self, (delta < 0 ? -1 : 1) * rows_per_page (self));
  else
    move_selection (self, delta);
}

/* "waterfall.activate-selected": Enter on a row, like a click, opens its details. */
static void
activate_selected_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *param)
{
  RelayWaterfallView *self = RELAY_WATERFALL_VIEW (widget);

  note_keyboard_use (self);
  if (self->selected != NULL)
    g_signal_emit (self, signals[TRACE_ACTIVATED], 0, self->selected);
}

/* "waterfall.pan" (i): pans by a tenth of the view, left (-1) or right (1). */
static void
pan_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *param)
{
  RelayWaterfallView *self = RELAY_WATERFALL_VIEW (widget);
  double t0, t1;

  note_keyboard_use (self);
  relay_waterfall_painter_get_view (self->painter, &t0, &t1);
  relay_waterfall_painter_pan (self->painter, g_variant_get_int32 (param) * (t1 - t0) / 10.0);
}

static void
relay_waterfall_view_snapshot (GtkWidget   *widget,
                               GtkSnapshot *snapshot)
{
  RelayWaterfallView *self = RELAY_WATERFALL_VIEW (widget);
  double width = gtk_widget_get_width (widget);
  double height = gtk_widget_get_height (widget);
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  relay_waterfall_painter_draw (self->painter, cr, width, height);
  cairo_destroy (cr);

  /* GTK shows focus after Tab; arrow keys on the chart count as keyboard use too. */
  if (gtk_widget_has_focus (widget) &&
      (gtk_widget_has_visible_focus (widget) || self->keyboard_used))
    snapshot_focus_ring (self, snapshot, width, height);
}

static void
relay_waterfall_view_state_flags_changed (GtkWidget     *widget,
                                          GtkStateFlags  previous)
{
  GtkStateFlags changed = previous ^ gtk_widget_get_state_flags (widget);

  GTK_WIDGET_CLASS (relay_waterfall_view_parent_class)->state_flags_changed (widget, previous);

  /* The focus ring is drawn here, not by CSS. */
  if (changed & (GTK_STATE_FLAG_FOCUSED | GTK_STATE_FLAG_FOCUS_VISIBLE | GTK_STATE_FLAG_FOCUS_WITHIN))
    gtk_widget_queue_draw (widget);
}

static void
relay_waterfall_view_measure (GtkWidget      *widget,
                              GtkOrientation  orientation,
                              int             for_size,
                              int            *minimum,
                              int            *natural,
                              int            *minimum_baseline,
                              int            *natural_baseline)
{
  RelayWaterfallView *self = RELAY_WATERFALL_VIEW (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 240;
      *natural = 800;
    }
  else
    {
      *minimum = 120;
      *natural = MAX (120, (int) ceil (relay_waterfall_painter_get_content_height (self->painter)));
    }
}

static void
relay_waterfall_view_size_allocate (GtkWidget *widget,
                                    int        width,
                                    int        height,
                                    int        baseline)
{
  update_vadjustment (RELAY_WATERFALL_VIEW (widget));
}

static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *frame_clock,
         gpointer       user_data)
{
  RelayWaterfallView *self = RELAY_WATERFALL_VIEW (widget);

  /* The painter emits "changed", which queues the draw: one frame per frame-clock tick. */
  relay_waterfall_painter_set_now (self->painter, g_get_monotonic_time ());

  return G_SOURCE_CONTINUE;
}

static gboolean
scroll_cb (RelayWaterfallView       *self,
           double                    dx,
           double                    dy,
           GtkEventControllerScroll *controller)
{
  GdkModifierType state;
  double width = gtk_widget_get_width (GTK_WIDGET (self));
  double t0, t1;

  state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));

  if (state & GDK_CONTROL_MASK)
    {
      double anchor = relay_waterfall_painter_x_to_time (self->painter, width, self->pointer_x);

      relay_waterfall_painter_zoom (self->painter, pow (ZOOM_STEP, -dy), anchor);
      return TRUE;
    }

  if (dx == 0 && (state & GDK_SHIFT_MASK))
    dx = dy;
  else if (dx == 0)
    return FALSE;

  relay_waterfall_painter_get_view (self->painter, &t0, &t1);
  relay_waterfall_painter_pan (self->painter, dx * (t1 - t0) / 20.0);

  return TRUE;
}

static void
motion_cb (RelayWaterfallView       *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *controller)
{
  self->pointer_x = x;
  self->pointer_y = y;
}

static void
drag_begin_cb (RelayWaterfallView *self,
               double              x,
               double              y,
               GtkGestureDrag     *gesture)
{
  relay_waterfall_painter_get_view (self->painter, &self->drag_t0, &self->drag_t1);
  self->dragging = FALSE;

  /* A press anywhere on the chart gives it the keyboard, for Up, Down and Enter. */
  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (self->keyboard_used)
    {
      self->keyboard_used = FALSE;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

static void
drag_update_cb (RelayWaterfallView *self,
                double              dx,
                double              dy,
                GtkGestureDrag     *gesture)
{
  double width = gtk_widget_get_width (GTK_WIDGET (self));
  double label = relay_waterfall_painter_get_label_width (self->painter, width);
  double plot = MAX (width - label, 1);
  double delta;

  if (!self->dragging && fabs (dx) < 4 && fabs (dy) < 4)
    return;

  if (!self->dragging)
    {
      self->dragging = TRUE;
      gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
    }

  delta = -dx * (self->drag_t1 - self->drag_t0) / plot;
  relay_waterfall_painter_set_view (self->painter, self->drag_t0 + delta, self->drag_t1 + delta);

  /* A vertical drag scrolls the rows, like a touch screen would. */
  if (self->vadjustment != NULL && fabs (dy) > fabs (dx))
    gtk_adjustment_set_value (self->vadjustment, gtk_adjustment_get_value (self->vadjustment) - dy / 8);
}

static void
drag_end_cb (RelayWaterfallView *self,
             double              dx,
             double              dy,
             GtkGestureDrag     *gesture)
{
  double x, y;

  gtk_widget_set_cursor (GTK_WIDGET (self), NULL);

  if (self->dragging)
    {
      self->dragging = FALSE;
      return;
    }

  /* Not a drag: a click, which selects the trace under the pointer. */
  if (gtk_gesture_drag_get_start_point (gesture, &x, &y))
    {
      RelayWaterfallHit hit;

      if (relay_waterfall_painter_hit_test (self->painter, gtk_widget_get_width (GTK_WIDGET (self)),
                                            x, y, &hit) &&
          hit.trace != NULL)
        {
          relay_waterfall_view_set_selected (self, hit.trace);
          g_signal_emit (self, signals[TRACE_ACTIVATED], 0, hit.trace);
        }
    }
}

static char *
format_duration_us (gint64 us)
{
  if (us == RELAY_TIME_NONE)
    return g_strdup ("—");

  /* Translators: a duration in milliseconds with 0.1 ms precision */
  return g_strdup_printf (_("%.1f ms"), us / 1000.0);
}

static const char *
trace_group_name (RelayWaterfallView *self,
                  RelayTrace         *trace,
                  const char        **model)
{
  RelayRun *run = NULL;

  *model = NULL;
  if (self->session != NULL)
    run = relay_session_get_run (self->session, relay_trace_get_run (trace));
  if (run == NULL)
    return NULL;

  *model = relay_run_get_model (run);
  return relay_run_get_endpoint (run);
}

char *
relay_waterfall_view_describe_trace (RelayWaterfallView *self,
                                     RelayTrace         *trace)
{
  g_autoptr(GString) str = g_string_new (NULL);
  const char *endpoint, *model;
  g_autofree char *total = NULL;

  g_return_val_if_fail (RELAY_IS_WATERFALL_VIEW (self), NULL);
  g_return_val_if_fail (RELAY_IS_TRACE (trace), NULL);

  endpoint = trace_group_name (self, trace, &model);
  g_string_append_printf (str, "<b>%s</b>", endpoint != NULL ? endpoint : _("Trace"));
  if (model != NULL)
    g_string_append_printf (str, " · %s", model);
  g_string_append_printf (str, " · #%u\n", relay_trace_get_seq (trace));

  for (guint stage = 0; stage < RELAY_N_STAGES; stage++)
    {
      gint64 duration = relay_trace_get_stage_duration (trace, stage);
      g_autofree char *text = NULL;

      if (duration == RELAY_TIME_NONE)
        continue;

      text = format_duration_us (duration);
      g_string_append_printf (str, "%s: <tt>%s</tt>\n",
                              relay_chart_stage_label (stage), text);
    }

  total = format_duration_us (relay_trace_get_interval (trace, RELAY_MARK_START, RELAY_MARK_END));
  if (relay_trace_is_finished (trace))
    g_string_append_printf (str, "<b>%s: <tt>%s</tt></b>", _("Total"), total);
  else
    g_string_append_printf (str, "<i>%s</i>", _("Still running"));

  if (relay_trace_has_mark (trace, RELAY_MARK_FIRST_TOKEN))
    {
      g_autofree char *ttft = format_duration_us (relay_trace_get_mark (trace, RELAY_MARK_FIRST_TOKEN));

      g_string_append_printf (str, "\n%s: <tt>%s</tt>", _("Time to first token"), ttft);
    }

  /* The red outlines say that a stage is over its budget; the tooltip says which. */
  if (relay_waterfall_painter_get_budget (self->painter) != NULL && relay_trace_is_finished (trace))
    {
      RelayBudget *budget = relay_waterfall_painter_get_budget (self->painter);
      RelayBudgetItem items[RELAY_N_BUDGET_ITEMS];
      guint n = relay_budget_trace_overruns (budget, trace, items, G_N_ELEMENTS (items));

      for (guint i = 0; i < n; i++)
        {
          g_autofree char *line = NULL;

          double value = relay_budget_trace_value (budget, trace, items[i]);
          const char *unit = items[i] == RELAY_BUDGET_TOKENS_PER_S ? _("tokens/s") : _("ms");

          /* ITL is judged by the largest gap, which the trace's value (its median) is not. */
          if (items[i] == RELAY_BUDGET_ITL || isnan (value))
            /* Translators: a trace's stage over its budget: the stage, its limit and unit */
            line = g_strdup_printf (_("Over budget: %s (limit %.0f %s)"),
                                    relay_budget_item_get_title (items[i]),
                                    relay_budget_get_limit (budget, items[i]), unit);
          else
            /* Translators: a trace's stage over its budget: the stage, its value, the limit */
            line = g_strdup_printf (_("Over budget: %s %.0f %s (limit %.0f %s)"),
                                    relay_budget_item_get_title (items[i]), value, unit,
                                    relay_budget_get_limit (budget, items[i]), unit);
          g_string_append_printf (str, "\n<span foreground=\"#e01b24\">%s</span>", line);
        }
    }

  if (!relay_trace_is_ok (trace))
    {
      g_autofree char *escaped = g_markup_escape_text (relay_trace_get_error_message (trace) != NULL ? relay_trace_get_error_message (trace) : "", -1);

      g_string_append_printf (str, "\n<span foreground=\"#e01b24\"><b>%s</b> (%s): %s</span>",
                              _("Error"),
                              relay_error_stage_to_string (relay_trace_get_error_stage (trace)),
                              escaped);
    }

  return g_string_free (g_steal_pointer (&str), FALSE);
}

static gboolean
query_tooltip_cb (RelayWaterfallView *self,
                  int                 x,
                  int                 y,
                  gboolean            keyboard_mode,
                  GtkTooltip         *tooltip)
{
  RelayWaterfallHit hit;
  g_autofree char *markup = NULL;

  if (keyboard_mode)
    {
      if (self->selected == NULL)
        return FALSE;
      hit.trace = self->selected;
    }
  else if (!relay_waterfall_painter_hit_test (self->painter, gtk_widget_get_width (GTK_WIDGET (self)),
                                              x, y, &hit) ||
           hit.trace == NULL)
    return FALSE;

  markup = relay_waterfall_view_describe_trace (self, hit.trace);
  gtk_tooltip_set_markup (tooltip, markup);

  return TRUE;
}

char *
relay_waterfall_view_describe (RelayWaterfallView *self)
{
  GListModel *traces;
  g_autoptr(GArray) ttft = g_array_new (FALSE, FALSE, sizeof (double));
  RelayStats stats;
  guint n, errors = 0;

  g_return_val_if_fail (RELAY_IS_WATERFALL_VIEW (self), NULL);

  traces = relay_waterfall_painter_get_traces (self->painter);
  n = traces != NULL ? g_list_model_get_n_items (traces) : 0;
  if (n == 0)
    return g_strdup (_("Latency waterfall: no traces yet"));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      double value = relay_trace_get_metric (trace, RELAY_METRIC_TTFT);

      if (!relay_trace_is_ok (trace))
        errors++;
      if (!isnan (value))
        g_array_append_val (ttft, value);
    }

  relay_stats_compute ((double *) (gpointer) ttft->data, ttft->len, &stats);

  if (stats.n == 0)
    return g_strdup_printf (ngettext ("Latency waterfall: %u trace, %u with errors",
                                      "Latency waterfall: %u traces, %u with errors", n),
                            n, errors);

  return g_strdup_printf (ngettext ("Latency waterfall: %u trace, %u with errors; time to first token p50 %.0f ms, p95 %.0f ms",
                                    "Latency waterfall: %u traces, %u with errors; time to first token p50 %.0f ms, p95 %.0f ms", n),
                          n, errors, stats.p50, stats.p95);
}

static void
relay_waterfall_view_dispose (GObject *object)
{
  RelayWaterfallView *self = (RelayWaterfallView *)object;

  g_clear_handle_id (&self->describe_id, g_source_remove);
  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
  if (self->vadjustment != NULL)
    g_signal_handlers_disconnect_by_func (self->vadjustment, vadjustment_value_changed_cb, self);
  g_clear_object (&self->vadjustment);
  g_clear_object (&self->hadjustment);
  g_clear_object (&self->painter);
  g_clear_object (&self->session);
  self->selected = NULL;

  G_OBJECT_CLASS (relay_waterfall_view_parent_class)->dispose (object);
}

static void
relay_waterfall_view_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  RelayWaterfallView *self = RELAY_WATERFALL_VIEW (object);

  switch (prop_id)
    {
    case PROP_LIVE:
      g_value_set_boolean (value, relay_waterfall_view_get_live (self));
      break;

    case PROP_SELECTED:
      g_value_set_object (value, self->selected);
      break;

    case PROP_HADJUSTMENT:
      g_value_set_object (value, self->hadjustment);
      break;

    case PROP_VADJUSTMENT:
      g_value_set_object (value, self->vadjustment);
      break;

    case PROP_HSCROLL_POLICY:
      g_value_set_enum (value, self->hscroll_policy);
      break;

    case PROP_VSCROLL_POLICY:
      g_value_set_enum (value, self->vscroll_policy);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_waterfall_view_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  RelayWaterfallView *self = RELAY_WATERFALL_VIEW (object);

  switch (prop_id)
    {
    case PROP_LIVE:
      relay_waterfall_view_set_live (self, g_value_get_boolean (value));
      break;

    case PROP_SELECTED:
      relay_waterfall_view_set_selected (self, g_value_get_object (value));
      break;

    case PROP_HADJUSTMENT:
      /* Time is zoomed and panned, not scrolled: the horizontal adjustment is unused. */
      g_set_object (&self->hadjustment, g_value_get_object (value));
      break;

    case PROP_VADJUSTMENT:
      set_vadjustment (self, g_value_get_object (value));
      break;

    case PROP_HSCROLL_POLICY:
      self->hscroll_policy = g_value_get_enum (value);
      break;

    case PROP_VSCROLL_POLICY:
      self->vscroll_policy = g_value_get_enum (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_waterfall_view_class_init (RelayWaterfallViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = relay_waterfall_view_dispose;
  object_class->get_property = relay_waterfall_view_get_property;
  object_class->set_property = relay_waterfall_view_set_property;

  widget_class->snapshot = relay_waterfall_view_snapshot;
  widget_class->measure = relay_waterfall_view_measure;
  widget_class->size_allocate = relay_waterfall_view_size_allocate;
  widget_class->state_flags_changed = relay_waterfall_view_state_flags_changed;

  properties[PROP_LIVE] =
    g_param_spec_boolean ("live", NULL, NULL,
                          FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /* Not referenced: the session holds its traces. */
  properties[PROP_SELECTED] =
    g_param_spec_object ("selected", NULL, NULL,
                         RELAY_TYPE_TRACE,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  /**
   * RelayWaterfallView::trace-activated:
   * @trace: the clicked trace
   *
   * A row was clicked, or Enter pressed on the selected row; the window shows the
   * trace's details.
   */
  signals[TRACE_ACTIVATED] =
    g_signal_new ("trace-activated",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, RELAY_TYPE_TRACE);

  gtk_widget_class_install_action (widget_class, "waterfall.select-row", "i", select_row_action);
  gtk_widget_class_install_action (widget_class, "waterfall.activate-selected", NULL, activate_selected_action);
  gtk_widget_class_install_action (widget_class, "waterfall.pan", "i", pan_action);

  {
    static const struct {
      guint keyval;
      int   delta;
    } moves[] = {
      { GDK_KEY_Up, -1 }, { GDK_KEY_KP_Up, -1 },
      { GDK_KEY_Down, 1 }, { GDK_KEY_KP_Down, 1 },
      { GDK_KEY_Page_Up, G_MININT + 1 }, { GDK_KEY_KP_Page_Up, G_MININT + 1 },
      { GDK_KEY_Page_Down, G_MAXINT - 1 }, { GDK_KEY_KP_Page_Down, G_MAXINT - 1 },
      { GDK_KEY_Home, G_MININT }, { GDK_KEY_KP_Home, G_MININT },
      { GDK_KEY_End, G_MAXINT }, { GDK_KEY_KP_End, G_MAXINT },
    };
    static const guint activate_keys[] = {
      GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_ISO_Enter, GDK_KEY_space, GDK_KEY_KP_Space,
    };

    for (guint i = 0; i < G_N_ELEMENTS (moves); i++)
      gtk_widget_class_add_binding_action (widget_class, moves[i].keyval, 0,
                                           "waterfall.select-row", "i", moves[i].delta);
    for (guint i = 0; i < G_N_ELEMENTS (activate_keys); i++)
      gtk_widget_class_add_binding_action (widget_class, activate_keys[i], 0,
                                           "waterfall.activate-selected", NULL);
    gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, 0, "waterfall.pan", "i", -1);
    gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Left, 0, "waterfall.pan", "i", -1);
    gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, 0, "waterfall.pan", "i", 1);
    gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Right, 0, "waterfall.pan", "i", 1);
  }

  gtk_widget_class_set_css_name (widget_class, "waterfallview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
relay_waterfall_view_init (RelayWaterfallView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  self->painter = relay_waterfall_painter_new ();
  g_signal_connect_object (self->painter, "changed",
                           G_CALLBACK (painter_changed_cb), self,
                           G_CONNECT_SWAPPED);

  /* A newcomer needs the legend to read the colours; it sits below the rows. */
  relay_waterfall_painter_set_show_legend (self->painter, TRUE);
  relay_waterfall_painter_set_group_by_endpoint (self->painter, TRUE);

  update_style (self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (update_style), self,
                           G_CONNECT_SWAPPED);

  gtk_widget_add_css_class (GTK_WIDGET (self), "waterfall-view");
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect_object (controller, "scroll", G_CALLBACK (scroll_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect_object (controller, "motion", G_CALLBACK (motion_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  g_signal_connect_object (gesture, "drag-begin", G_CALLBACK (drag_begin_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gesture, "drag-update", G_CALLBACK (drag_update_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gesture, "drag-end", G_CALLBACK (drag_end_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Latency waterfall"),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("Latency waterfall: no traces yet"),
                                  -1);
}

GtkWidget *
relay_waterfall_view_new (void)
{
  return g_object_new (RELAY_TYPE_WATERFALL_VIEW, NULL);
}

void
relay_waterfall_view_set_session (RelayWaterfallView *self,
                                  RelaySession       *session)
{
  g_return_if_fail (RELAY_IS_WATERFALL_VIEW (self));
  g_return_if_fail (!session || RELAY_IS_SESSION (session));

  if (!g_set_object (&self->session, session))
    return;

  relay_waterfall_view_set_selected (self, NULL);
  relay_waterfall_painter_set_traces (self->painter,
                                      session != NULL ? relay_session_get_traces (session) : NULL,
                                      session);
  relay_waterfall_painter_reset_view (self->painter);
  if (self->vadjustment != NULL)
    gtk_adjustment_set_value (self->vadjustment, 0);
}

RelayWaterfallPainter *
relay_waterfall_view_get_painter (RelayWaterfallView *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_VIEW (self), NULL);

  return self->painter;
}

gboolean
relay_waterfall_view_get_live (RelayWaterfallView *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_VIEW (self), FALSE);

  return self->tick_id != 0;
}

void
relay_waterfall_view_set_live (RelayWaterfallView *self,
                               gboolean            live)
{
  g_return_if_fail (RELAY_IS_WATERFALL_VIEW (self));

  live = !!live;
  if (live == relay_waterfall_view_get_live (self))
    return;

  if (live)
    {
      self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), tick_cb, NULL, NULL);
    }
  else
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
      /* Finished traces draw to their end mark; nothing should follow the clock now. */
      relay_waterfall_painter_set_now (self->painter, 0);
      relay_waterfall_painter_invalidate (self->painter);
    }

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LIVE]);
}

RelayTrace *
relay_waterfall_view_get_selected (RelayWaterfallView *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_VIEW (self), NULL);

  return self->selected;
}

void
relay_waterfall_view_set_selected (RelayWaterfallView *self,
                                   RelayTrace         *trace)
{
  g_return_if_fail (RELAY_IS_WATERFALL_VIEW (self));
  g_return_if_fail (trace == NULL || RELAY_IS_TRACE (trace));

  if (self->selected == trace)
    return;

  self->selected = trace;
  relay_waterfall_painter_set_selected (self->painter, trace);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED]);
}

static double
view_center (RelayWaterfallView *self)
{
  double t0, t1;

  relay_waterfall_painter_get_view (self->painter, &t0, &t1);
  return (t0 + t1) / 2;
}

void
relay_waterfall_view_zoom_in (RelayWaterfallView *self)
{
  g_return_if_fail (RELAY_IS_WATERFALL_VIEW (self));

  relay_waterfall_painter_zoom (self->painter, ZOOM_STEP, view_center (self));
}

void
relay_waterfall_view_zoom_out (RelayWaterfallView *self)
{
  g_return_if_fail (RELAY_IS_WATERFALL_VIEW (self));

  relay_waterfall_painter_zoom (self->painter, 1 / ZOOM_STEP, view_center (self));
}

void
relay_waterfall_view_zoom_reset (RelayWaterfallView *self)
{
  g_return_if_fail (RELAY_IS_WATERFALL_VIEW (self));

  relay_waterfall_painter_reset_view (self->painter);
}
