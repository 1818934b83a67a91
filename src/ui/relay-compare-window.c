/* relay-compare-window.c: the Compare window. Each side is a session (this one, or one
 * opened from a file) and a selection of its traces; the core's RelayComparison does the
 * statistics, this file lays them out as a table, verdicts and CDF charts.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "relay-chart-palette.h"
#include "relay-compare-window.h"
#include "relay-result-chart.h"

typedef struct
{
  RelaySession  *session;
  char          *label;
  GPtrArray     *selectors;   /* char *, "" for every trace */
  GtkStringList *names;        /* owned by the dropdown */
  GtkDropDown   *dropdown;
  GtkLabel      *session_label;
} Side;

struct _RelayCompareWindow
{
  AdwWindow         parent_instance;

  RelaySession     *session;
  Side              sides[2];
  RelayComparison  *comparison;
  char             *verdict;
  gboolean          filling;

  GtkGrid          *grid;
  GtkLabel         *verdict_label;
  GtkLabel         *warning_label;
  RelayResultChart *ttft_chart;
  RelayResultChart *itl_chart;
  GtkWidget        *results;
  GtkLabel         *status_label;
};

G_DEFINE_FINAL_TYPE (RelayCompareWindow, relay_compare_window, ADW_TYPE_WINDOW)

static void recompute (RelayCompareWindow *self);

static void
side_clear (Side *side)
{
  g_clear_object (&side->session);
  g_clear_pointer (&side->label, g_free);
  g_clear_pointer (&side->selectors, g_ptr_array_unref);
}

static void
add_choice (Side       *side,
            const char *name,
            const char *selector)
{
  gtk_string_list_append (side->names, name);
  g_ptr_array_add (side->selectors, g_strdup (selector));
}

/* The selections a session offers: every trace, each endpoint, each endpoint × model and
 * each run. */
static void
fill_choices (RelayCompareWindow *self,
              Side               *side)
{
  GListModel *runs = relay_session_get_runs (side->session);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  self->filling = TRUE;
  gtk_string_list_splice (side->names, 0, g_list_model_get_n_items (G_LIST_MODEL (side->names)), NULL);
  g_ptr_array_set_size (side->selectors, 0);

  add_choice (side, _("Every trace"), "");
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < g_list_model_get_n_items (runs); i++)
      {
        g_autoptr(RelayRun) run = g_list_model_get_item (runs, i);
        const char *endpoint = relay_run_get_endpoint (run);
        g_autofree char *selector = pass == 0 ? g_strdup (endpoint)
                                              : g_strdup_printf ("%s/%s", endpoint, relay_run_get_model (run));
        g_autofree char *name = NULL;

        if (g_hash_table_contains (seen, selector))
          continue;
        name = pass == 0 ? g_strdup (relay_chart_short_endpoint_name (endpoint))
                         : g_strdup_printf ("%s · %s", relay_chart_short_endpoint_name (endpoint), relay_run_get_model (run));
        add_choice (side, name, selector);
        g_hash_table_add (seen, g_steal_pointer (&selector));
      }
  for (guint i = 0; i < g_list_model_get_n_items (runs); i++)
    {
      g_autoptr(RelayRun) run = g_list_model_get_item (runs, i);
      g_autofree char *selector = g_strdup_printf ("#%u", i);
      /* Translators: a run of a session: its number, endpoint and model */
      g_autofree char *name = g_strdup_printf (_("Run %u: %s · %s"), i + 1,
                                               relay_chart_short_endpoint_name (relay_run_get_endpoint (run)),
                                               relay_run_get_model (run));

      add_choice (side, name, selector);
    }
  gtk_label_set_text (side->session_label, side->label);
  self->filling = FALSE;
}

void
relay_compare_window_set_side (RelayCompareWindow *self,
                               gboolean            b,
                               RelaySession       *session,
                               const char         *label,
                               const char         *selector)
{
  Side *side;
  guint position = 0;

  g_return_if_fail (RELAY_IS_COMPARE_WINDOW (self));
  g_return_if_fail (RELAY_IS_SESSION (session));

  side = &self->sides[b ? 1 : 0];
  g_set_object (&side->session, session);
  g_free (side->label);
  side->label = g_strdup (label != NULL ? label : (relay_session_get_title (session) != NULL
                                                   ? relay_session_get_title (session) : _("Untitled session")));
  fill_choices (self, side);

  for (guint i = 0; i < side->selectors->len; i++)
    if (g_strcmp0 (g_ptr_array_index (side->selectors, i), selector != NULL ? selector : "") == 0)
      position = i;

  self->filling = TRUE;
  gtk_drop_down_set_selected (side->dropdown, position);
  self->filling = FALSE;

  recompute (self);
}

static const char *
side_selector (Side *side)
{
  guint position = gtk_drop_down_get_selected (side->dropdown);

  if (side->selectors == NULL || position >= side->selectors->len)
    return "";

  return g_ptr_array_index (side->selectors, position);
}

static char *
side_label (RelayCompareWindow *self,
            Side               *side)
{
  GtkStringObject *item = gtk_drop_down_get_selected_item (side->dropdown);
  const char *choice = item != NULL ? gtk_string_object_get_string (item) : "";

  /* Two parts of one session are told apart by the part alone. */
  if (side->label == NULL || self->sides[0].session == self->sides[1].session)
    return g_strdup (choice);

  return g_strdup_printf ("%s: %s", side->label, choice);
}

static GtkWidget *
cell (const char *text,
      gboolean    heading,
      double      xalign)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  gtk_widget_add_css_class (label, heading ? "heading" : "numeric");
  gtk_label_set_selectable (GTK_LABEL (label), !heading);

  return label;
}

static char *
format_figure (RelayMetric metric,
               double      value)
{
  if (isnan (value))
    return g_strdup ("—");
  if (metric == RELAY_METRIC_TOKENS_PER_SECOND)
    return g_strdup_printf ("%.1f", value);
  /* Three significant digits are more than a noisy network gives. */
  if (fabs (value) >= 100)
    return g_strdup_printf (_("%.0f ms"), value);
  if (fabs (value) >= 10)
    return g_strdup_printf (_("%.1f ms"), value);

  return g_strdup_printf (_("%.2f ms"), value);
}

static char *
format_interval (RelayMetric               metric,
                 const RelayStatsInterval *interval)
{
  g_autofree char *estimate = NULL;
  g_autofree char *lo = NULL;
  g_autofree char *hi = NULL;

  if (isnan (interval->estimate))
    return g_strdup ("—");

  estimate = format_figure (metric, interval->estimate);
  if (isnan (interval->lo) || isnan (interval->hi))
    return g_steal_pointer (&estimate);
  lo = format_figure (metric, interval->lo);
  hi = format_figure (metric, interval->hi);

  /* Translators: a difference and its confidence interval: "+120 ms (90 ms … 150 ms)" */
  return g_strdup_printf (_("%s%s (%s … %s)"), interval->estimate > 0 ? "+" : "", estimate, lo, hi);
}

static void
fill_cdf (RelayCompareWindow *self,
          RelayResultChart   *chart,
          RelayMetric         metric)
{
  g_autofree char *x_label = g_strdup_printf (_("%s (ms)"), relay_compare_metric_label (metric));

  relay_result_chart_reset (chart, RELAY_EXPERIMENT_CHART_XY, x_label, _("Share of samples"));

  for (guint s = 0; s < 2; s++)
    {
      guint n = 0;
      const double *sorted = relay_comparison_get_cdf (self->comparison, metric, s == 1, &n);
      g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (RelayExperimentPoint));
      /* A step per sample would be thousands of ITL gaps: a few hundred steps draw the same. */
      guint stride = MAX (1, n / 400);

      for (guint i = 0; i < n; i += stride)
        {
          RelayExperimentPoint point = { sorted[i], (double) (i + 1) / n, NAN, NAN };

          g_array_append_val (points, point);
        }
      if (n > 0)
        {
          RelayExperimentPoint last = { sorted[n - 1], 1.0, NAN, NAN };

          g_array_append_val (points, last);
        }
      /* The status line above says what A and B are; long names would not fit a legend. */
      relay_result_chart_add_series (chart, s == 1 ? "B" : "A", TRUE, FALSE,
                                     (RelayExperimentPoint *) (gpointer) points->data, points->len);
    }
}

static void
recompute (RelayCompareWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) verdicts = g_string_new (NULL);
  g_autofree char *label_a = NULL;
  g_autofree char *label_b = NULL;
  GtkWidget *child;
  gboolean few = FALSE;
  guint row = 1;
  static const char *headings[] = {
    N_("Stage"), N_("A p50"), N_("B p50"), N_("Δ p50 (95% CI)"), N_("A p95"), N_("B p95"), N_("Δ p95 (95% CI)"), N_("p-value"),
  };

  if (self->filling)
    return;

  g_clear_object (&self->comparison);
  g_clear_pointer (&self->verdict, g_free);

  if (self->sides[0].session == NULL || self->sides[1].session == NULL)
    {
      gtk_label_set_text (self->status_label, _("Choose two sessions or two parts of one to compare"));
      gtk_widget_set_visible (self->results, FALSE);
      return;
    }

  label_a = side_label (self, &self->sides[0]);
  label_b = side_label (self, &self->sides[1]);

  {
    g_autoptr(GPtrArray) a = relay_compare_select_traces (self->sides[0].session, side_selector (&self->sides[0]), &error);
    g_autoptr(GPtrArray) b = a != NULL ? relay_compare_select_traces (self->sides[1].session, side_selector (&self->sides[1]), &error) : NULL;

    if (a == NULL || b == NULL)
      {
        self->verdict = g_strdup (error->message);
        gtk_label_set_text (self->status_label, error->message);
        gtk_widget_set_visible (self->results, FALSE);
        return;
      }
    if (a->len == 0 || b->len == 0)
      {
        self->verdict = g_strdup (_("A side has no finished traces to compare"));
        gtk_label_set_text (self->status_label, self->verdict);
        gtk_widget_set_visible (self->results, FALSE);
        return;
      }

    self->comparison = relay_comparison_new (label_a, self->sides[0].session, a,
                                             label_b, self->sides[1].session, b);
  }

  {
    /* Translators: which side is which: "A: this session: run 1 (12 traces) · B: …" */
    g_autofree char *status = g_strdup_printf (_("A: %s (%u traces) · B: %s (%u traces)"),
                                               label_a, relay_comparison_get_n_traces (self->comparison, FALSE),
                                               label_b, relay_comparison_get_n_traces (self->comparison, TRUE));

    gtk_label_set_text (self->status_label, status);
  }

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->grid))))
    gtk_grid_remove (self->grid, child);
  for (guint c = 0; c < G_N_ELEMENTS (headings); c++)
    gtk_grid_attach (self->grid, cell (_(headings[c]), TRUE, c == 0 ? 0 : 1), c, 0, 1, 1);

  for (RelayMetric m = 0; m < RELAY_N_METRICS; m++)
    {
      const RelayCompareStage *stage = relay_comparison_get_stage (self->comparison, m);
      g_autofree char *a50 = NULL, *b50 = NULL, *a95 = NULL, *b95 = NULL, *d50 = NULL, *d95 = NULL, *p = NULL;
      GtkWidget *w;

      if (stage == NULL || (stage->traces_a == 0 && stage->traces_b == 0))
        continue;

      a50 = format_figure (m, stage->a.p50);
      b50 = format_figure (m, stage->b.p50);
      a95 = format_figure (m, stage->a.p95);
      b95 = format_figure (m, stage->b.p95);
      d50 = format_interval (m, &stage->diff_p50);
      d95 = format_interval (m, &stage->diff_p95);
      p = isnan (stage->test.p_value) ? g_strdup ("—") : g_strdup_printf ("%.3g", stage->test.p_value);
      few |= stage->few_samples;

      gtk_grid_attach (self->grid, cell (relay_compare_metric_label (m), TRUE, 0), 0, row, 1, 1);
      gtk_grid_attach (self->grid, cell (a50, FALSE, 1), 1, row, 1, 1);
      gtk_grid_attach (self->grid, cell (b50, FALSE, 1), 2, row, 1, 1);
      gtk_grid_attach (self->grid, w = cell (d50, FALSE, 1), 3, row, 1, 1);
      if (stage->significant_p50)
        gtk_widget_add_css_class (w, "accent");
      gtk_grid_attach (self->grid, cell (a95, FALSE, 1), 4, row, 1, 1);
      gtk_grid_attach (self->grid, cell (b95, FALSE, 1), 5, row, 1, 1);
      gtk_grid_attach (self->grid, w = cell (d95, FALSE, 1), 6, row, 1, 1);
      if (stage->significant_p95)
        gtk_widget_add_css_class (w, "accent");
      gtk_grid_attach (self->grid, cell (p, FALSE, 1), 7, row, 1, 1);
      row++;
    }

  {
    /* The questions people ask first: the first token, typical and slow, and the stream's
     * stutter. The table has the rest. */
    static const struct { RelayMetric metric; double percentile; } order[] = {
      { RELAY_METRIC_TTFT, 50 }, { RELAY_METRIC_TTFT, 95 }, { RELAY_METRIC_ITL, 95 },
    };

    for (guint i = 0; i < G_N_ELEMENTS (order); i++)
      {
        g_autofree char *sentence = relay_comparison_dup_verdict (self->comparison, order[i].metric, order[i].percentile);

        if (sentence == NULL || sentence[0] == '\0')
          continue;
        if (verdicts->len > 0)
          g_string_append_c (verdicts, '\n');
        g_string_append (verdicts, sentence);
      }
  }
  self->verdict = g_string_free (g_steal_pointer (&verdicts), FALSE);
  gtk_label_set_text (self->verdict_label, self->verdict);

  if (few)
    {
      g_autofree char *warning = g_strdup_printf (_("Too few samples: at least %u traces a side are needed before a difference can be trusted. Run more probes."),
                                                  relay_comparison_get_min_samples (self->comparison));

      gtk_label_set_text (self->warning_label, warning);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->warning_label), few);

  fill_cdf (self, self->ttft_chart, RELAY_METRIC_TTFT);
  fill_cdf (self, self->itl_chart, RELAY_METRIC_ITL);
  gtk_widget_set_visible (self->results, TRUE);
}

static void
open_response_cb (GtkNativeDialog *native,
                  int              response,
                  gpointer         user_data)
{
  RelayCompareWindow *self = g_object_get_data (G_OBJECT (native), "window");
  gboolean b = GPOINTER_TO_UINT (user_data);

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autoptr(GError) error = NULL;
      g_autoptr(RelaySession) session = relay_session_load (file, NULL, &error);

      if (session == NULL)
        {
          GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Cannot Open the Session"), error->message);

          adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
          gtk_window_present (GTK_WINDOW (dialog));
        }
      else
        {
          g_autofree char *name = g_file_get_basename (file);

          relay_compare_window_set_side (self, b, session, name, NULL);
        }
    }

  gtk_native_dialog_destroy (native);
  g_object_unref (native);
}

static void
open_clicked_cb (GtkButton          *button,
                 RelayCompareWindow *self)
{
  gboolean b = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "side"));
  GtkFileChooserNative *native;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Relayscope Sessions"));
  gtk_file_filter_add_pattern (filter, "*.relayscope");
  native = gtk_file_chooser_native_new (b ? _("Open Session B") : _("Open Session A"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_object_set_data_full (G_OBJECT (native), "window", g_object_ref (self), g_object_unref);
  g_signal_connect (native, "response", G_CALLBACK (open_response_cb), GUINT_TO_POINTER (b));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
this_session_clicked_cb (GtkButton          *button,
                         RelayCompareWindow *self)
{
  gboolean b = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "side"));

  if (self->session != NULL)
    relay_compare_window_set_side (self, b, self->session, _("This session"), NULL);
}

static GtkWidget *
build_side (RelayCompareWindow *self,
            guint               index)
{
  Side *side = &self->sides[index];
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *title = gtk_label_new (index == 0 ? "A" : "B");
  GtkWidget *this_button = gtk_button_new_with_label (_("This Session"));
  GtkWidget *open_button = gtk_button_new_with_label (_("Open…"));

  side->names = gtk_string_list_new (NULL);
  side->selectors = g_ptr_array_new_with_free_func (g_free);
  side->dropdown = GTK_DROP_DOWN (gtk_drop_down_new (G_LIST_MODEL (side->names), NULL));
  side->session_label = GTK_LABEL (gtk_label_new (_("No session")));

  gtk_widget_add_css_class (title, "title-3");
  gtk_widget_set_size_request (title, 24, -1);
  gtk_label_set_ellipsize (side->session_label, PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_max_width_chars (side->session_label, 28);
  gtk_widget_set_tooltip_text (GTK_WIDGET (side->dropdown), _("Which traces of the session"));
  gtk_widget_set_hexpand (GTK_WIDGET (side->dropdown), TRUE);
  g_object_set_data (G_OBJECT (this_button), "side", GUINT_TO_POINTER (index));
  g_object_set_data (G_OBJECT (open_button), "side", GUINT_TO_POINTER (index));
  gtk_widget_set_sensitive (this_button, self->session != NULL);
  g_signal_connect (this_button, "clicked", G_CALLBACK (this_session_clicked_cb), self);
  g_signal_connect (open_button, "clicked", G_CALLBACK (open_clicked_cb), self);
  g_signal_connect_swapped (side->dropdown, "notify::selected", G_CALLBACK (recompute), self);

  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (side->session_label));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (side->dropdown));
  gtk_box_append (GTK_BOX (box), this_button);
  gtk_box_append (GTK_BOX (box), open_button);

  return box;
}

static GtkWidget *
wrap_label (GtkLabel **out,
            const char *css_class)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  *out = GTK_LABEL (label);

  return label;
}

static void
build_ui (RelayCompareWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *clamp = adw_clamp_new ();
  GtkWidget *content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *charts = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *heading;

  gtk_window_set_title (GTK_WINDOW (self), _("Compare"));
  gtk_window_set_default_size (GTK_WINDOW (self), 1100, 820);
  gtk_box_append (GTK_BOX (box), header);

  gtk_widget_set_margin_start (content, 18);
  gtk_widget_set_margin_end (content, 18);
  gtk_widget_set_margin_top (content, 18);
  gtk_widget_set_margin_bottom (content, 18);
  adw_clamp_set_maximum_size (ADW_CLAMP (clamp), 1200);
  adw_clamp_set_child (ADW_CLAMP (clamp), content);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), clamp);
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_box_append (GTK_BOX (box), scroller);

  gtk_box_append (GTK_BOX (content), build_side (self, 0));
  gtk_box_append (GTK_BOX (content), build_side (self, 1));
  gtk_box_append (GTK_BOX (content), wrap_label (&self->status_label, "dim-label"));

  self->results = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  gtk_box_append (GTK_BOX (content), self->results);

  gtk_box_append (GTK_BOX (self->results), wrap_label (&self->verdict_label, "heading"));
  gtk_box_append (GTK_BOX (self->results), wrap_label (&self->warning_label, "warning"));

  self->grid = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_column_spacing (self->grid, 18);
  gtk_grid_set_row_spacing (self->grid, 6);
  gtk_widget_set_margin_start (GTK_WIDGET (self->grid), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (self->grid), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (self->grid), 10);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self->grid), 10);
  {
    GtkWidget *card = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

    gtk_widget_add_css_class (card, "card");
    gtk_box_append (GTK_BOX (card), GTK_WIDGET (self->grid));
    gtk_box_append (GTK_BOX (self->results), card);
  }

  heading = gtk_label_new (_("Cumulative distributions: the further left a curve, the faster"));
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_widget_add_css_class (heading, "heading");
  gtk_box_append (GTK_BOX (self->results), heading);

  self->ttft_chart = RELAY_RESULT_CHART (relay_result_chart_new ());
  self->itl_chart = RELAY_RESULT_CHART (relay_result_chart_new ());
  gtk_widget_set_size_request (GTK_WIDGET (self->ttft_chart), -1, 300);
  gtk_widget_set_hexpand (GTK_WIDGET (self->ttft_chart), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->itl_chart), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->ttft_chart), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Time to first token of A and B as cumulative distributions"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->itl_chart), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Gaps between chunks of A and B as cumulative distributions"), -1);
  gtk_box_append (GTK_BOX (charts), GTK_WIDGET (self->ttft_chart));
  gtk_box_append (GTK_BOX (charts), GTK_WIDGET (self->itl_chart));
  gtk_box_append (GTK_BOX (self->results), charts);

  adw_window_set_content (ADW_WINDOW (self), box);
}

static void
relay_compare_window_dispose (GObject *object)
{
  RelayCompareWindow *self = RELAY_COMPARE_WINDOW (object);

  side_clear (&self->sides[0]);
  side_clear (&self->sides[1]);
  g_clear_object (&self->session);
  g_clear_object (&self->comparison);
  g_clear_pointer (&self->verdict, g_free);

  G_OBJECT_CLASS (relay_compare_window_parent_class)->dispose (object);
}

static void
relay_compare_window_class_init (RelayCompareWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = relay_compare_window_dispose;

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
relay_compare_window_init (RelayCompareWindow *self)
{
}

RelayCompareWindow *
relay_compare_window_new (GtkWindow    *parent,
                          RelaySession *session)
{
  RelayCompareWindow *self;
  GListModel *runs;

  g_return_val_if_fail (session == NULL || RELAY_IS_SESSION (session), NULL);

  self = g_object_new (RELAY_TYPE_COMPARE_WINDOW,
                       "transient-for", parent,
                       NULL);
  self->session = session != NULL ? g_object_ref (session) : NULL;
  build_ui (self);
  gtk_widget_set_visible (self->results, FALSE);
  gtk_label_set_text (self->status_label, _("Choose two sessions or two parts of one to compare"));

  /* A useful start: the first two runs of this session against each other. */
  if (session != NULL && (runs = relay_session_get_runs (session)) != NULL &&
      g_list_model_get_n_items (runs) >= 2)
    {
      relay_compare_window_set_side (self, FALSE, session, _("This session"), "#0");
      relay_compare_window_set_side (self, TRUE, session, _("This session"), "#1");
    }
  else if (session != NULL)
    {
      relay_compare_window_set_side (self, FALSE, session, _("This session"), NULL);
      relay_compare_window_set_side (self, TRUE, session, _("This session"), NULL);
    }

  return self;
}

RelayComparison *
relay_compare_window_get_comparison (RelayCompareWindow *self)
{
  g_return_val_if_fail (RELAY_IS_COMPARE_WINDOW (self), NULL);

  return self->comparison;
}

const char *
relay_compare_window_get_verdict (RelayCompareWindow *self)
{
  g_return_val_if_fail (RELAY_IS_COMPARE_WINDOW (self), NULL);

  return self->verdict;
}
