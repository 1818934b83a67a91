/* relay-findings-view.c: the Findings page, rebuilt from the session after every run: the
 * experiment's answer and chart first (when the session holds one), then each finding as an
 * expander row with its numbers, remedy and links to the traces that show it.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "relay-chart-palette.h"
#include "relay-findings.h"
#include "relay-findings-view.h"
#include "relay-result-chart.h"

/* Links beyond this many would bury the remedy; the rest are counted. */
#define MAX_TRACE_LINKS 12

struct _RelayFindingsView
{
  GtkWidget              parent_instance;

  RelaySession          *session;
  GPtrArray             *findings;
  RelayExperimentResult *result;
  char                  *status;

  GtkWidget             *scroller;
  AdwClamp              *clamp;
};

G_DEFINE_FINAL_TYPE (RelayFindingsView, relay_findings_view, GTK_TYPE_WIDGET)

enum {
  TRACE_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static char *
dup_trace_label (RelayFindingsView *self,
                 RelayTrace        *trace)
{
  RelayRun *run = relay_session_get_run (self->session, relay_trace_get_run (trace));

  if (run == NULL)
    return g_strdup_printf ("#%u", relay_trace_get_seq (trace));

  /* Translators: a link to a trace: endpoint, model and the trace's number */
  return g_strdup_printf (_("%s · %s #%u"),
                          relay_chart_short_endpoint_name (relay_run_get_endpoint (run)),
                          relay_run_get_model (run),
                          relay_trace_get_seq (trace));
}

static void
trace_link_clicked_cb (GtkButton         *button,
                       RelayFindingsView *self)
{
  RelayTrace *trace = g_object_get_data (G_OBJECT (button), "trace");

  if (trace != NULL)
    g_signal_emit (self, signals[TRACE_ACTIVATED], 0, trace);
}

static GtkWidget *
wrap_label (const char *text,
            const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);

  return label;
}

static const char *
confidence_label (RelayConfidence confidence)
{
  switch (confidence)
    {
    case RELAY_CONFIDENCE_HIGH:
      return _("High confidence");
    case RELAY_CONFIDENCE_MEDIUM:
      return _("Medium confidence");
    case RELAY_CONFIDENCE_LOW:
    default:
      return _("Low confidence");
    }
}

static GtkWidget *
build_finding_row (RelayFindingsView  *self,
                   const RelayFinding *finding)
{
  GListModel *traces = relay_session_get_traces (self->session);
  GtkWidget *row = adw_expander_row_new ();
  GtkWidget *icon;
  GtkWidget *badge;
  GtkWidget *box;
  GtkWidget *links;
  g_autofree char *subtitle = NULL;
  g_autofree char *remedy = NULL;

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), finding->title);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  if (finding->endpoint != NULL && finding->model != NULL)
    subtitle = g_strdup_printf ("%s · %s", relay_chart_short_endpoint_name (finding->endpoint), finding->model);
  else if (finding->endpoint != NULL)
    subtitle = g_strdup (relay_chart_short_endpoint_name (finding->endpoint));
  else
    subtitle = g_strdup (_("Whole session"));
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (row), subtitle);

  icon = gtk_image_new_from_icon_name (finding->severity == RELAY_FINDING_PROBLEM
                                       ? "dialog-warning-symbolic" : "dialog-information-symbolic");
  gtk_widget_add_css_class (icon, finding->severity == RELAY_FINDING_PROBLEM ? "warning" : "accent");
  gtk_widget_set_tooltip_text (icon, finding->severity == RELAY_FINDING_PROBLEM ? _("Problem") : _("Note"));
  adw_expander_row_add_prefix (ADW_EXPANDER_ROW (row), icon);

  badge = gtk_label_new (confidence_label (finding->confidence));
  gtk_widget_set_valign (badge, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (badge, "caption");
  gtk_widget_add_css_class (badge, "dim-label");
  adw_expander_row_add_action (ADW_EXPANDER_ROW (row), badge);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 10);
  gtk_widget_set_margin_bottom (box, 12);
  gtk_box_append (GTK_BOX (box), wrap_label (finding->summary, NULL));
  /* Translators: the remedy of a finding follows */
  remedy = g_strdup_printf (_("What to do: %s"), finding->remedy);
  gtk_box_append (GTK_BOX (box), wrap_label (remedy, NULL));

  if (finding->traces != NULL && finding->traces->len > 0)
    {
      GtkWidget *heading = gtk_label_new (_("Evidence"));

      gtk_label_set_xalign (GTK_LABEL (heading), 0);
      gtk_widget_add_css_class (heading, "caption-heading");
      gtk_box_append (GTK_BOX (box), heading);

      links = gtk_flow_box_new ();
      gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (links), GTK_SELECTION_NONE);
      gtk_flow_box_set_min_children_per_line (GTK_FLOW_BOX (links), 3);
      gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (links), 8);
      gtk_flow_box_set_homogeneous (GTK_FLOW_BOX (links), FALSE);
      gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (links), 6);
      gtk_flow_box_set_row_spacing (GTK_FLOW_BOX (links), 6);

      for (guint i = 0; i < finding->traces->len && i < MAX_TRACE_LINKS; i++)
        {
          guint index = g_array_index (finding->traces, guint, i);
          g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, index);
          g_autofree char *label = NULL;
          GtkWidget *button;

          if (trace == NULL)
            continue;

          label = dup_trace_label (self, trace);
          button = gtk_button_new_with_label (label);
          gtk_widget_set_tooltip_text (button, _("Show this trace in the waterfall and its details"));
          gtk_widget_add_css_class (button, "caption");
          gtk_widget_set_halign (button, GTK_ALIGN_START);
          g_object_set_data_full (G_OBJECT (button), "trace", g_object_ref (trace), g_object_unref);
          g_signal_connect (button, "clicked", G_CALLBACK (trace_link_clicked_cb), self);
          gtk_flow_box_append (GTK_FLOW_BOX (links), button);
        }
      gtk_box_append (GTK_BOX (box), links);

      if (finding->traces->len > MAX_TRACE_LINKS)
        {
          guint more = finding->traces->len - MAX_TRACE_LINKS;
          g_autofree char *text = g_strdup_printf (ngettext ("and %u more trace", "and %u more traces", more), more);

          gtk_box_append (GTK_BOX (box), wrap_label (text, "dim-label"));
        }
    }

  adw_expander_row_add_row (ADW_EXPANDER_ROW (row), box);

  return row;
}

static GtkWidget *
build_result_group (RelayFindingsView *self)
{
  RelayExperimentResult *result = self->result;
  GtkWidget *group = adw_preferences_group_new ();
  GtkWidget *card;
  GtkWidget *box;
  GtkWidget *chart;
  g_autofree char *title = NULL;

  /* Translators: heading of an experiment's answer; %s is its title */
  title = g_strdup_printf (_("Experiment: %s"), result->title);
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);

  card = gtk_box_new (GTK_ORIENTATION_VERTICAL, 10);
  gtk_widget_add_css_class (card, "card");
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_set_margin_start (box, 16);
  gtk_widget_set_margin_end (box, 16);
  gtk_widget_set_margin_top (box, 14);
  gtk_widget_set_margin_bottom (box, 14);
  gtk_box_append (GTK_BOX (card), box);

  gtk_box_append (GTK_BOX (box), wrap_label (result->headline, "title-4"));
  for (guint i = 0; result->details != NULL && i < result->details->len; i++)
    gtk_box_append (GTK_BOX (box), wrap_label (g_ptr_array_index (result->details, i), NULL));

  chart = relay_result_chart_new ();
  gtk_widget_set_size_request (chart, -1, 300);
  relay_result_chart_set_result (RELAY_RESULT_CHART (chart), result);
  gtk_accessible_update_property (GTK_ACCESSIBLE (chart), GTK_ACCESSIBLE_PROPERTY_LABEL, result->headline, -1);
  gtk_widget_set_visible (chart, relay_result_chart_get_n_series (RELAY_RESULT_CHART (chart)) > 0);
  gtk_box_append (GTK_BOX (box), chart);

  /* The table the CLI prints, as a grid: the exact figures behind the chart. */
  if (result->columns != NULL && result->rows != NULL && result->rows->len > 0)
    {
      GtkWidget *grid = gtk_grid_new ();
      guint n_columns = g_strv_length (result->columns);

      gtk_grid_set_column_spacing (GTK_GRID (grid), 18);
      gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
      for (guint c = 0; c < n_columns; c++)
        {
          GtkWidget *label = gtk_label_new (result->columns[c]);

          gtk_widget_add_css_class (label, "heading");
          gtk_label_set_xalign (GTK_LABEL (label), c == 0 ? 0 : 1);
          gtk_grid_attach (GTK_GRID (grid), label, c, 0, 1, 1);
        }
      for (guint r = 0; r < result->rows->len; r++)
        {
          GStrv row = g_ptr_array_index (result->rows, r);

          for (guint c = 0; row[c] != NULL && c < n_columns; c++)
            {
              GtkWidget *label = gtk_label_new (row[c]);

              gtk_label_set_xalign (GTK_LABEL (label), c == 0 ? 0 : 1);
              gtk_widget_add_css_class (label, "numeric");
              gtk_label_set_selectable (GTK_LABEL (label), TRUE);
              gtk_grid_attach (GTK_GRID (grid), label, c, r + 1, 1, 1);
            }
        }
      gtk_box_append (GTK_BOX (box), grid);
    }

  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), card);

  return group;
}

static guint
count_finished (RelaySession *session)
{
  GListModel *traces = relay_session_get_traces (session);
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);

      if (relay_trace_is_finished (trace))
        n++;
    }

  return n;
}

static void
rebuild (RelayFindingsView *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 24);
  guint n_finished = self->session != NULL ? count_finished (self->session) : 0;

  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 24);
  gtk_widget_set_margin_bottom (box, 24);

  g_clear_pointer (&self->status, g_free);

  if (self->result != NULL)
    gtk_box_append (GTK_BOX (box), build_result_group (self));

  if (n_finished == 0)
    {
      GtkWidget *page = adw_status_page_new ();

      self->status = g_strdup (_("Findings appear here once probes have finished"));
      adw_status_page_set_icon_name (ADW_STATUS_PAGE (page), "system-search-symbolic");
      adw_status_page_set_title (ADW_STATUS_PAGE (page), _("No Findings Yet"));
      adw_status_page_set_description (ADW_STATUS_PAGE (page), self->status);
      gtk_widget_set_vexpand (page, TRUE);
      gtk_box_append (GTK_BOX (box), page);
    }
  else if (self->findings == NULL || self->findings->len == 0)
    {
      GtkWidget *page = adw_status_page_new ();

      /* Translators: the empty state of the findings; %u is the number of probes */
      self->status = g_strdup_printf (ngettext ("No problems found — %u probe looks healthy",
                                                "No problems found — %u probes look healthy",
                                                n_finished), n_finished);
      adw_status_page_set_icon_name (ADW_STATUS_PAGE (page), "emblem-ok-symbolic");
      adw_status_page_set_title (ADW_STATUS_PAGE (page), _("No Problems Found"));
      adw_status_page_set_description (ADW_STATUS_PAGE (page), self->status);
      gtk_widget_set_vexpand (page, TRUE);
      gtk_box_append (GTK_BOX (box), page);
    }
  else
    {
      GtkWidget *group = adw_preferences_group_new ();
      guint n_problems = 0;
      guint n_notes = 0;

      for (guint i = 0; i < self->findings->len; i++)
        {
          const RelayFinding *finding = g_ptr_array_index (self->findings, i);

          if (finding->severity == RELAY_FINDING_PROBLEM)
            n_problems++;
          else
            n_notes++;
        }

      if (n_problems == 0)
        self->status = g_strdup_printf (ngettext ("No problems found in %u probe; worth knowing:",
                                                  "No problems found in %u probes; worth knowing:",
                                                  n_finished), n_finished);
      else
        /* Translators: "2 problems slow the first token (in 12 probes)" */
        self->status = g_strdup_printf (ngettext ("%u problem found in %u probes", "%u problems found in %u probes",
                                                  n_problems), n_problems, n_finished);

      adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Findings"));
      adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), self->status);

      for (guint i = 0; i < self->findings->len; i++)
        {
          GtkWidget *row = build_finding_row (self, g_ptr_array_index (self->findings, i));

          /* The first problem is the one most worth reading: open it. */
          if (i == 0 && n_problems > 0)
            adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);
          adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
        }
      gtk_box_append (GTK_BOX (box), group);
    }

  adw_clamp_set_child (self->clamp, box);
}

void
relay_findings_view_refresh (RelayFindingsView *self)
{
  g_return_if_fail (RELAY_IS_FINDINGS_VIEW (self));

  g_clear_pointer (&self->findings, g_ptr_array_unref);
  g_clear_pointer (&self->result, relay_experiment_result_unref);

  if (self->session != NULL)
    {
      self->findings = relay_findings_analyze (self->session);

      if (relay_session_get_extra (self->session, RELAY_EXPERIMENT_MEMBER) != NULL)
        {
          g_autoptr(GError) error = NULL;

          self->result = relay_experiment_analyze (self->session, &error);
          if (self->result == NULL)
            g_debug ("Cannot analyse the session's experiment: %s", error->message);
        }
    }

  rebuild (self);
}

void
relay_findings_view_set_session (RelayFindingsView *self,
                                 RelaySession      *session)
{
  g_return_if_fail (RELAY_IS_FINDINGS_VIEW (self));
  g_return_if_fail (session == NULL || RELAY_IS_SESSION (session));

  g_set_object (&self->session, session);
  relay_findings_view_refresh (self);
}

GPtrArray *
relay_findings_view_get_findings (RelayFindingsView *self)
{
  g_return_val_if_fail (RELAY_IS_FINDINGS_VIEW (self), NULL);

  return self->findings;
}

RelayExperimentResult *
relay_findings_view_get_result (RelayFindingsView *self)
{
  g_return_val_if_fail (RELAY_IS_FINDINGS_VIEW (self), NULL);

  return self->result;
}

const char *
relay_findings_view_get_status (RelayFindingsView *self)
{
  g_return_val_if_fail (RELAY_IS_FINDINGS_VIEW (self), NULL);

  return self->status;
}

static void
relay_findings_view_dispose (GObject *object)
{
  RelayFindingsView *self = RELAY_FINDINGS_VIEW (object);

  g_clear_pointer (&self->scroller, gtk_widget_unparent);
  g_clear_object (&self->session);
  g_clear_pointer (&self->findings, g_ptr_array_unref);
  g_clear_pointer (&self->result, relay_experiment_result_unref);
  g_clear_pointer (&self->status, g_free);

  G_OBJECT_CLASS (relay_findings_view_parent_class)->dispose (object);
}

static void
relay_findings_view_class_init (RelayFindingsViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = relay_findings_view_dispose;

  signals[TRACE_ACTIVATED] =
    g_signal_new ("trace-activated",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, RELAY_TYPE_TRACE);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "findings");
}

static void
relay_findings_view_init (RelayFindingsView *self)
{
  self->scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));

  self->clamp = ADW_CLAMP (adw_clamp_new ());
  adw_clamp_set_maximum_size (self->clamp, 860);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), GTK_WIDGET (self->clamp));

  rebuild (self);
}

GtkWidget *
relay_findings_view_new (void)
{
  return g_object_new (RELAY_TYPE_FINDINGS_VIEW, NULL);
}
