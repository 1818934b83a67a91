/* relay-budget-view.c: the Budget page. Each endpoint × model gets a stacked bar of the
 * stages a budget names (network, wait, first token after the headers, and the allowances
 * for what a probe cannot see) at the budget's percentile, drawn against the end-to-end
 * line; the overruns follow as the CLI words them.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>

#include "relay-budget-view.h"
#include "relay-chart-palette.h"
#include "relay-result-chart.h"
#include "relay-stats.h"
#include "relay-summary.h"

struct _RelayBudgetView
{
  GtkWidget         parent_instance;

  RelaySession     *session;
  RelayBudget      *budget;
  guint             n_overruns;

  GtkWidget        *scroller;
  GtkLabel         *summary_label;
  RelayResultChart *chart;
  GtkBox           *overrun_box;
  GtkLabel         *usage_label;
};

G_DEFINE_FINAL_TYPE (RelayBudgetView, relay_budget_view, GTK_TYPE_WIDGET)

/* The stacked parts, in the order a request meets them. */
static const RelayBudgetItem parts[] = {
  RELAY_BUDGET_NETWORK,
  RELAY_BUDGET_WAIT,
  RELAY_BUDGET_FIRST_TOKEN,
};

static const char *
part_title (guint part)
{
  switch (part)
    {
    case 0: return _("Network");
    case 1: return _("Wait");
    case 2: return _("First token");
    default: return _("Allowances");
    }
}

/* The percentile of item over the traces of one endpoint × model. */
static double
group_value (RelayBudgetView *self,
             const char      *endpoint,
             const char      *model,
             RelayBudgetItem  item)
{
  GListModel *traces = relay_session_get_traces (self->session);
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  RelayStats stats;

  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      RelayRun *run = relay_session_get_run (self->session, relay_trace_get_run (trace));
      double value;

      if (run == NULL || !relay_trace_is_finished (trace) || !relay_trace_is_ok (trace) ||
          g_strcmp0 (relay_run_get_endpoint (run), endpoint) != 0 ||
          g_strcmp0 (relay_run_get_model (run), model) != 0)
        continue;

      value = relay_budget_trace_value (self->budget, trace, item);
      /* A reused connection has no network stage: it costs nothing. */
      if (isnan (value) && item == RELAY_BUDGET_NETWORK)
        value = 0;
      if (!isnan (value))
        g_array_append_val (values, value);
    }

  if (values->len == 0)
    return NAN;

  /* relay_stats_compute sorts in place. */
  relay_stats_compute ((double *) (gpointer) values->data, values->len, &stats);

  return relay_budget_get_percentile (self->budget) <= 50 ? stats.p50 : stats.p95;
}

void
relay_budget_view_refresh (RelayBudgetView *self)
{
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) overruns = NULL;
  /* One GArray of RelayExperimentPoint per part, allowances last. */
  g_autoptr(GPtrArray) series = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  const guint n_series = G_N_ELEMENTS (parts) + 1;
  g_autoptr(GString) usage = g_string_new (NULL);
  GtkWidget *child;
  double allowances;
  double line;
  double percentile;

  g_return_if_fail (RELAY_IS_BUDGET_VIEW (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->overrun_box))))
    gtk_box_remove (self->overrun_box, child);
  self->n_overruns = 0;

  if (self->session == NULL || self->budget == NULL)
    {
      relay_result_chart_reset (self->chart, RELAY_EXPERIMENT_CHART_STACKED_BARS, NULL, NULL);
      gtk_label_set_text (self->summary_label, _("No budget"));
      gtk_label_set_text (self->usage_label, "");
      return;
    }

  percentile = relay_budget_get_percentile (self->budget);
  allowances = relay_budget_get_allowances (self->budget);
  line = relay_budget_get_limit (self->budget, RELAY_BUDGET_END_TO_END);
  if (line <= 0)
    line = relay_budget_get_limit (self->budget, RELAY_BUDGET_TTFT);

  {
    g_autofree char *y_label = g_strdup_printf (_("ms at p%.0f"), percentile);

    relay_result_chart_reset (self->chart, RELAY_EXPERIMENT_CHART_STACKED_BARS, NULL, y_label);
  }

  for (guint p = 0; p < n_series; p++)
    g_ptr_array_add (series, g_array_new (FALSE, FALSE, sizeof (RelayExperimentPoint)));

  rows = relay_summarize (self->session);
  for (guint r = 0; r < rows->len; r++)
    {
      const RelaySummaryRow *row = g_ptr_array_index (rows, r);
      g_autofree char *category = g_strdup_printf ("%s · %s", relay_chart_short_endpoint_name (row->endpoint), row->model);
      double sum = allowances;

      relay_result_chart_add_category (self->chart, category);
      for (guint p = 0; p < G_N_ELEMENTS (parts); p++)
        {
          RelayExperimentPoint point = { r, group_value (self, row->endpoint, row->model, parts[p]), NAN, NAN };

          if (isnan (point.y))
            point.y = 0;
          sum += point.y;
          g_array_append_val ((GArray *) g_ptr_array_index (series, p), point);
        }
      {
        RelayExperimentPoint point = { r, allowances, NAN, NAN };

        g_array_append_val ((GArray *) g_ptr_array_index (series, G_N_ELEMENTS (parts)), point);
      }

      if (line > 0)
        {
          /* Translators: budget usage of one endpoint × model: name, percent, budget */
          g_string_append_printf (usage, _("%s uses %.0f %% of the %.0f ms budget"), category, 100 * sum / line, line);
          g_string_append (usage, " (");
          for (guint p = 0; p < G_N_ELEMENTS (parts); p++)
            {
              RelayExperimentPoint *point = &g_array_index ((GArray *) g_ptr_array_index (series, p), RelayExperimentPoint, r);

              /* Translators: one stage's share of the budget: "wait 38 %" */
              g_string_append_printf (usage, _("%s %.0f %%"), part_title (p), 100 * point->y / line);
              g_string_append (usage, ", ");
            }
          g_string_append_printf (usage, _("%s %.0f %%"), part_title (G_N_ELEMENTS (parts)), 100 * allowances / line);
          g_string_append (usage, ")\n");
        }
    }

  for (guint p = 0; p < n_series; p++)
    {
      GArray *points = g_ptr_array_index (series, p);

      relay_result_chart_add_series (self->chart, part_title (p), FALSE, FALSE,
                                     (RelayExperimentPoint *) (gpointer) points->data, points->len);
    }
  if (line > 0)
    {
      g_autofree char *label = g_strdup_printf (_("Budget %.0f ms"), line);

      relay_result_chart_add_reference (self->chart, line, label);
    }

  if (usage->len > 0)
    g_string_truncate (usage, usage->len - 1);
  gtk_label_set_text (self->usage_label, usage->str);

  overruns = relay_budget_check_overruns (self->budget, self->session);
  self->n_overruns = overruns->len;
  for (guint i = 0; i < overruns->len; i++)
    {
      g_autofree char *sentence = relay_budget_overrun_format (g_ptr_array_index (overruns, i));
      GtkWidget *label = gtk_label_new (sentence);

      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_widget_add_css_class (label, "error");
      gtk_box_append (self->overrun_box, label);
    }

  if (rows->len == 0)
    gtk_label_set_text (self->summary_label, _("Run probes to see how they fit the budget"));
  else if (overruns->len == 0)
    gtk_label_set_text (self->summary_label, _("Every endpoint fits the budget"));
  else
    {
      g_autofree char *text = g_strdup_printf (ngettext ("%u stage over its budget", "%u stages over their budget",
                                                         overruns->len), overruns->len);

      gtk_label_set_text (self->summary_label, text);
    }
}

void
relay_budget_view_set_session (RelayBudgetView *self,
                               RelaySession    *session,
                               RelayBudget     *budget)
{
  g_return_if_fail (RELAY_IS_BUDGET_VIEW (self));

  g_set_object (&self->session, session);
  g_set_object (&self->budget, budget);
  relay_budget_view_refresh (self);
}

guint
relay_budget_view_get_n_overruns (RelayBudgetView *self)
{
  g_return_val_if_fail (RELAY_IS_BUDGET_VIEW (self), 0);

  return self->n_overruns;
}

static void
relay_budget_view_dispose (GObject *object)
{
  RelayBudgetView *self = RELAY_BUDGET_VIEW (object);

  g_clear_pointer (&self->scroller, gtk_widget_unparent);
  g_clear_object (&self->session);
  g_clear_object (&self->budget);

  G_OBJECT_CLASS (relay_budget_view_parent_class)->dispose (object);
}

static void
relay_budget_view_class_init (RelayBudgetViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = relay_budget_view_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
relay_budget_view_init (RelayBudgetView *self)
{
  GtkWidget *clamp = adw_clamp_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *edit = gtk_button_new_with_mnemonic (_("_Edit Budget…"));

  self->scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));
  adw_clamp_set_maximum_size (ADW_CLAMP (clamp), 900);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), clamp);

  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 24);
  gtk_widget_set_margin_bottom (box, 24);
  adw_clamp_set_child (ADW_CLAMP (clamp), box);

  self->summary_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->summary_label, 0);
  gtk_label_set_wrap (self->summary_label, TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->summary_label), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->summary_label), "title-4");
  gtk_box_append (GTK_BOX (header), GTK_WIDGET (self->summary_label));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (edit), "win.edit-budget");
  gtk_widget_set_valign (edit, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (header), edit);
  gtk_box_append (GTK_BOX (box), header);

  self->overrun_box = GTK_BOX (gtk_box_new (GTK_ORIENTATION_VERTICAL, 4));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->overrun_box));

  self->chart = RELAY_RESULT_CHART (relay_result_chart_new ());
  gtk_widget_set_size_request (GTK_WIDGET (self->chart), -1, 320);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->chart), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Budget usage per endpoint and model"), -1);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->chart));

  self->usage_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->usage_label, 0);
  gtk_label_set_wrap (self->usage_label, TRUE);
  gtk_label_set_selectable (self->usage_label, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->usage_label), "dim-label");
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->usage_label));

  relay_budget_view_refresh (self);
}

GtkWidget *
relay_budget_view_new (void)
{
  return g_object_new (RELAY_TYPE_BUDGET_VIEW, NULL);
}
