/* relay-summary-table.c: the comparison table of endpoints × models.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "relay-chart-palette.h"
#include "relay-summary-table.h"

/* ---- RelaySummaryItem: one row, keeping the array that owns it alive ---- */

struct _RelaySummaryItem
{
  GObject          parent_instance;
  GPtrArray       *rows;
  RelaySummaryRow *row;
};

G_DEFINE_FINAL_TYPE (RelaySummaryItem, relay_summary_item, G_TYPE_OBJECT)

static void
relay_summary_item_finalize (GObject *object)
{
  RelaySummaryItem *self = (RelaySummaryItem *)object;

  g_clear_pointer (&self->rows, g_ptr_array_unref);

  G_OBJECT_CLASS (relay_summary_item_parent_class)->finalize (object);
}

static void
relay_summary_item_class_init (RelaySummaryItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = relay_summary_item_finalize;
}

static void
relay_summary_item_init (RelaySummaryItem *self)
{
}

static RelaySummaryItem *
relay_summary_item_new (GPtrArray *rows,
                        guint      index)
{
  RelaySummaryItem *self = g_object_new (RELAY_TYPE_SUMMARY_ITEM, NULL);

  self->rows = g_ptr_array_ref (rows);
  self->row = g_ptr_array_index (rows, index);

  return self;
}

const RelaySummaryRow *
relay_summary_item_get_row (RelaySummaryItem *self)
{
  g_return_val_if_fail (RELAY_IS_SUMMARY_ITEM (self), NULL);

  return self->row;
}

/* ---- RelaySummaryTable ---- */

/* One column per metric, each cell "p50 / p95"; a metric column sorts by its median. */
typedef enum
{
  COLUMN_ENDPOINT,
  COLUMN_MODEL,
  COLUMN_N,
  COLUMN_ERRORS,
  COLUMN_FIRST_METRIC,
  N_COLUMNS = COLUMN_FIRST_METRIC + RELAY_N_METRICS,
} Column;

struct _RelaySummaryTable
{
  GtkWidget      parent_instance;

  GtkStack      *stack;
  GtkColumnView *column_view;
  GListStore    *store;
  RelaySession  *session;
  /* "endpoint\nmodel" → "2 × http-429, 1 × timeout", for the errors' tooltips. */
  GHashTable    *error_kinds;
  double         best_p50[RELAY_N_METRICS];
  double         best_p95[RELAY_N_METRICS];
  guint          n_valued[RELAY_N_METRICS];  /* rows with a median for the metric */
  RelayBudget   *budget;
  GPtrArray     *overruns;  /* RelayBudgetOverrun, marked in error colour */
};

G_DEFINE_FINAL_TYPE (RelaySummaryTable, relay_summary_table, GTK_TYPE_WIDGET)

static gboolean
column_is_metric (Column       column,
                  RelayMetric *metric)
{
  if (column < COLUMN_FIRST_METRIC || column >= N_COLUMNS)
    return FALSE;

  *metric = column - COLUMN_FIRST_METRIC;
  return TRUE;
}

static double
row_value (const RelaySummaryRow *row,
           Column                 column)
{
  RelayMetric metric;

  switch ((int) column)
    {
    case COLUMN_N:
      return row->n;
    case COLUMN_ERRORS:
      return row->errors;
    default:
      if (column_is_metric (column, &metric))
        return row->stats[metric].p50;
      return NAN;
    }
}

static const char *
metric_title (RelayMetric metric)
{
  switch (metric)
    {
    case RELAY_METRIC_DNS: return _("DNS");
    case RELAY_METRIC_TCP: return _("TCP");
    case RELAY_METRIC_TLS: return _("TLS");
    case RELAY_METRIC_WAIT: return _("Wait");
    case RELAY_METRIC_TTFT: return _("TTFT");
    case RELAY_METRIC_ITL: return _("ITL");
    case RELAY_METRIC_TOKENS_PER_SECOND: return _("Tokens/s");
    case RELAY_METRIC_TOTAL: return _("Total");
    case RELAY_N_METRICS:
    default: return "";
    }
}

static const char *
metric_tooltip (RelayMetric metric)
{
  switch (metric)
    {
    case RELAY_METRIC_DNS: return _("Name resolution, p50 / p95 in milliseconds (cold connections only)");
    case RELAY_METRIC_TCP: return _("TCP handshake, p50 / p95 in milliseconds");
    case RELAY_METRIC_TLS: return _("TLS handshake, p50 / p95 in milliseconds");
    case RELAY_METRIC_WAIT: return _("Request sent to response headers (gateway, queue and prefill), p50 / p95 in milliseconds");
    case RELAY_METRIC_TTFT: return _("Time to first token from the start of the probe, p50 / p95 in milliseconds");
    case RELAY_METRIC_ITL: return _("Inter-chunk latency, the gaps between streamed chunks, p50 / p95 in milliseconds");
    case RELAY_METRIC_TOKENS_PER_SECOND: return _("Output tokens per second from the first to the last token, p50 / p95");
    case RELAY_METRIC_TOTAL: return _("Start to the end of the stream, p50 / p95 in milliseconds");
    case RELAY_N_METRICS:
    default: return "";
    }
}

/* Three significant figures at most: "241", "35.2", "0.24". */
static char *
format_figure (RelayMetric metric,
               double      value,
               gboolean    estimated)
{
  const char *prefix = estimated ? "≈" : "";

  if (isnan (value))
    return g_strdup ("—");
  if (fabs (value) >= 100 || metric == RELAY_METRIC_TOKENS_PER_SECOND)
    return g_strdup_printf ("%s%.0f", prefix, value);
  if (fabs (value) >= 10)
    return g_strdup_printf ("%s%.1f", prefix, value);

  return g_strdup_printf ("%s%.2f", prefix, value);
}

static void
setup_cb (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          gpointer                  user_data)
{
  Column column = GPOINTER_TO_UINT (user_data);
  RelayMetric metric;

  if (column_is_metric (column, &metric))
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
      GtkWidget *p50 = gtk_label_new (NULL);
      GtkWidget *slash = gtk_label_new (" / ");
      GtkWidget *p95 = gtk_label_new (NULL);

      /* Medians line up on the slash, so a column reads down at a glance. */
      gtk_label_set_xalign (GTK_LABEL (p50), 1);
      gtk_label_set_width_chars (GTK_LABEL (p50), 4);
      gtk_label_set_xalign (GTK_LABEL (p95), 0);
      gtk_label_set_width_chars (GTK_LABEL (p95), 4);
      gtk_widget_add_css_class (p50, "numeric");
      gtk_widget_add_css_class (p95, "numeric");
      gtk_widget_add_css_class (p95, "p95");
      gtk_widget_add_css_class (slash, "dim-label");
      gtk_box_append (GTK_BOX (box), p50);
      gtk_box_append (GTK_BOX (box), slash);
      gtk_box_append (GTK_BOX (box), p95);
      gtk_widget_set_halign (box, GTK_ALIGN_CENTER);
      g_object_set_data (G_OBJECT (box), "p50", p50);
      g_object_set_data (G_OBJECT (box), "slash", slash);
      g_object_set_data (G_OBJECT (box), "p95", p95);
      gtk_list_item_set_child (item, box);
      return;
    }

  {
    GtkWidget *label = gtk_label_new (NULL);

    if (column >= COLUMN_N)
      {
        gtk_label_set_xalign (GTK_LABEL (label), 1);
        gtk_widget_add_css_class (label, "numeric");
      }
    else
      {
        gtk_label_set_xalign (GTK_LABEL (label), 0);
        gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      }

    gtk_list_item_set_child (item, label);
  }
}

/* The budget item a table column shows, if any. */
static gboolean
metric_for_budget_item (RelayBudgetItem  item,
                        RelayMetric     *metric)
{
  switch (item)
    {
    case RELAY_BUDGET_DNS: *metric = RELAY_METRIC_DNS; return TRUE;
    case RELAY_BUDGET_TCP: *metric = RELAY_METRIC_TCP; return TRUE;
    case RELAY_BUDGET_TLS: *metric = RELAY_METRIC_TLS; return TRUE;
    case RELAY_BUDGET_WAIT: *metric = RELAY_METRIC_WAIT; return TRUE;
    case RELAY_BUDGET_TTFT:
    case RELAY_BUDGET_END_TO_END: *metric = RELAY_METRIC_TTFT; return TRUE;
    case RELAY_BUDGET_ITL: *metric = RELAY_METRIC_ITL; return TRUE;
    case RELAY_BUDGET_TOTAL: *metric = RELAY_METRIC_TOTAL; return TRUE;
    case RELAY_BUDGET_TOKENS_PER_S: *metric = RELAY_METRIC_TOKENS_PER_SECOND; return TRUE;
    case RELAY_BUDGET_NETWORK:
    case RELAY_BUDGET_FIRST_TOKEN:
    case RELAY_N_BUDGET_ITEMS:
    default:
      return FALSE;
    }
}

/* The overrun of a row's cell (p95 when high, else p50), or NULL. */
static const RelayBudgetOverrun *
find_overrun (RelaySummaryTable     *self,
              const RelaySummaryRow *row,
              RelayMetric            metric,
              gboolean               high)
{
  for (guint i = 0; self != NULL && self->overruns != NULL && i < self->overruns->len; i++)
    {
      const RelayBudgetOverrun *overrun = g_ptr_array_index (self->overruns, i);
      RelayMetric m;

      if (metric_for_budget_item (overrun->item, &m) && m == metric &&
          (overrun->percentile >= 95) == high &&
          g_strcmp0 (overrun->endpoint, row->endpoint) == 0 &&
          g_strcmp0 (overrun->model, row->model) == 0)
        return overrun;
    }

  return NULL;
}

static void
set_figure (GtkLabel    *label,
            RelayMetric  metric,
            double       value,
            double       best,
            gboolean     estimated,
            gboolean     mark_best,
            gboolean     over)
{
  g_autofree char *text = format_figure (metric, value, estimated);

  gtk_label_set_text (label, text);
  gtk_widget_remove_css_class (GTK_WIDGET (label), "best");
  gtk_widget_remove_css_class (GTK_WIDGET (label), "dim-label");
  gtk_widget_remove_css_class (GTK_WIDGET (label), "over-budget");

  if (over)
    gtk_widget_add_css_class (GTK_WIDGET (label), "over-budget");
  else if (isnan (value))
    gtk_widget_add_css_class (GTK_WIDGET (label), "dim-label");
  else if (mark_best && !isnan (best) && value == best)
    gtk_widget_add_css_class (GTK_WIDGET (label), "best");
}

static void
bind_cb (GtkSignalListItemFactory *factory,
         GtkListItem              *item,
         gpointer                  user_data)
{
  Column column = GPOINTER_TO_UINT (user_data);
  RelaySummaryItem *summary = gtk_list_item_get_item (item);
  GtkWidget *child = gtk_list_item_get_child (item);
  const RelaySummaryRow *row = relay_summary_item_get_row (summary);
  RelaySummaryTable *self = g_object_get_data (G_OBJECT (factory), "table");
  GtkLabel *label = GTK_IS_LABEL (child) ? GTK_LABEL (child) : NULL;
  g_autofree char *text = NULL;
  RelayMetric metric;

  if (column_is_metric (column, &metric))
    {
      const RelayStats *stats = &row->stats[metric];
      gboolean estimated = metric == RELAY_METRIC_TOKENS_PER_SECOND && row->tokens_estimated;
      /* A best value needs something to beat. */
      gboolean mark_best = self != NULL && self->n_valued[metric] > 1;
      gboolean empty = isnan (stats->p50) && isnan (stats->p95);
      g_autofree char *tooltip = NULL;
      const RelayBudgetOverrun *over50 = find_overrun (self, row, metric, FALSE);
      const RelayBudgetOverrun *over95 = find_overrun (self, row, metric, TRUE);

      set_figure (g_object_get_data (G_OBJECT (child), "p50"), metric, stats->p50,
                  self != NULL ? self->best_p50[metric] : NAN, estimated, mark_best, over50 != NULL);
      set_figure (g_object_get_data (G_OBJECT (child), "p95"), metric, stats->p95,
                  self != NULL ? self->best_p95[metric] : NAN, estimated, mark_best, over95 != NULL);
      /* Nothing measured reads as one dash, not "— / —". */
      gtk_widget_set_visible (g_object_get_data (G_OBJECT (child), "slash"), !empty);
      gtk_widget_set_visible (g_object_get_data (G_OBJECT (child), "p95"), !empty);

      if (stats->n > 0)
        /* Translators: a table cell's tooltip: metric, median, 95th percentile, sample count */
        tooltip = g_strdup_printf (_("%s: p50 %.2f, p95 %.2f, from %u values"),
                                   metric_title (metric), stats->p50, stats->p95, (guint) stats->n);
      if (over50 != NULL || over95 != NULL)
        {
          g_autofree char *sentence = relay_budget_overrun_format (over95 != NULL ? over95 : over50);
          g_autofree char *joined = g_strdup_printf ("%s\n%s", tooltip != NULL ? tooltip : "", sentence);

          g_free (tooltip);
          tooltip = g_steal_pointer (&joined);
        }
      gtk_widget_set_tooltip_text (child, tooltip);
      return;
    }

  gtk_widget_remove_css_class (GTK_WIDGET (label), "error-count");
  gtk_widget_remove_css_class (GTK_WIDGET (label), "dim-label");

  switch ((int) column)
    {
    case COLUMN_ENDPOINT:
      /* The demo relays' names all start alike; the sidebar tags them as simulated. */
      gtk_label_set_text (label, relay_chart_short_endpoint_name (row->endpoint));
      gtk_widget_set_tooltip_text (GTK_WIDGET (label), row->endpoint);
      break;

    case COLUMN_MODEL:
      gtk_label_set_text (label, row->model);
      gtk_widget_set_tooltip_text (GTK_WIDGET (label), row->model);
      break;

    case COLUMN_N:
      text = g_strdup_printf ("%u", row->n);
      gtk_label_set_text (label, text);
      break;

    case COLUMN_ERRORS:
      text = g_strdup_printf ("%u", row->errors);
      gtk_label_set_text (label, text);
      if (row->errors > 0)
        {
          g_autofree char *key = g_strconcat (row->endpoint, "\n", row->model, NULL);

          gtk_widget_add_css_class (GTK_WIDGET (label), "error-count");
          gtk_widget_set_tooltip_text (GTK_WIDGET (label),
                                       self != NULL ? g_hash_table_lookup (self->error_kinds, key) : NULL);
        }
      else
        {
          gtk_widget_add_css_class (GTK_WIDGET (label), "dim-label");
          gtk_widget_set_tooltip_text (GTK_WIDGET (label), NULL);
        }
      break;

    default:
      break;
    }
}

static int
compare_rows (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  Column column = GPOINTER_TO_UINT (user_data);
  const RelaySummaryRow *ra = relay_summary_item_get_row ((RelaySummaryItem *) a);
  const RelaySummaryRow *rb = relay_summary_item_get_row ((RelaySummaryItem *) b);
  double va, vb;

  if (column == COLUMN_ENDPOINT)
    return g_utf8_collate (ra->endpoint, rb->endpoint);
  if (column == COLUMN_MODEL)
    return g_utf8_collate (ra->model, rb->model);

  va = row_value (ra, column);
  vb = row_value (rb, column);

  /* Missing values sort after every number. */
  if (isnan (va) || isnan (vb))
    return isnan (va) - isnan (vb);

  return va < vb ? GTK_ORDERING_SMALLER : va > vb ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static void
add_column (RelaySummaryTable *self,
            Column             column,
            const char        *title,
            const char        *tooltip,
            gboolean           expand)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  g_autoptr(GtkColumnViewColumn) view_column = NULL;
  g_autoptr(GtkSorter) sorter = NULL;

  g_object_set_data (G_OBJECT (factory), "table", self);
  g_signal_connect (factory, "setup", G_CALLBACK (setup_cb), GUINT_TO_POINTER (column));
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cb), GUINT_TO_POINTER (column));

  view_column = gtk_column_view_column_new (title, g_steal_pointer (&factory));
  sorter = GTK_SORTER (gtk_custom_sorter_new (compare_rows, GUINT_TO_POINTER (column), NULL));
  gtk_column_view_column_set_sorter (view_column, sorter);
  gtk_column_view_column_set_expand (view_column, expand);
  gtk_column_view_column_set_resizable (view_column, TRUE);
  /* Names need room to be read; the figures size themselves. */
  if (column == COLUMN_ENDPOINT || column == COLUMN_MODEL)
    gtk_column_view_column_set_fixed_width (view_column, column == COLUMN_ENDPOINT ? 140 : 120);
  if (tooltip != NULL)
    g_object_set_data_full (G_OBJECT (view_column), "tooltip", g_strdup (tooltip), g_free);

  gtk_column_view_append_column (self->column_view, view_column);
}

static void
compute_best (RelaySummaryTable *self,
              GPtrArray         *items)
{
  for (guint m = 0; m < RELAY_N_METRICS; m++)
    {
      self->best_p50[m] = NAN;
      self->best_p95[m] = NAN;
      self->n_valued[m] = 0;

      for (guint i = 0; i < items->len; i++)
        {
          const RelaySummaryRow *row = relay_summary_item_get_row (g_ptr_array_index (items, i));
          /* Throughput is better high; every other figure is a latency, better low. */
          gboolean high = m == RELAY_METRIC_TOKENS_PER_SECOND;
          double p50 = row->stats[m].p50;
          double p95 = row->stats[m].p95;

          if (!isnan (p50))
            self->n_valued[m]++;

          if (!isnan (p50) && (isnan (self->best_p50[m]) || (high ? p50 > self->best_p50[m] : p50 < self->best_p50[m])))
            self->best_p50[m] = p50;
          if (!isnan (p95) && (isnan (self->best_p95[m]) || (high ? p95 > self->best_p95[m] : p95 < self->best_p95[m])))
            self->best_p95[m] = p95;
        }
    }
}

static int
compare_counts (gconstpointer a,
                gconstpointer b,
                gpointer      user_data)
{
  GHashTable *counts = user_data;

  return GPOINTER_TO_UINT (g_hash_table_lookup (counts, *(const char **) b)) -
         GPOINTER_TO_UINT (g_hash_table_lookup (counts, *(const char **) a));
}

/* What went wrong per endpoint × model, most frequent first: the errors cell's tooltip. */
static void
collect_error_kinds (RelaySummaryTable *self)
{
  g_autoptr(GHashTable) per_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) g_hash_table_unref);
  GListModel *traces;
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_remove_all (self->error_kinds);
  if (self->session == NULL)
    return;

  traces = relay_session_get_traces (self->session);
  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      RelayRun *run;
      GHashTable *counts;
      const char *kind;
      g_autofree char *group = NULL;

      if (relay_trace_is_ok (trace) ||
          !(run = relay_session_get_run (self->session, relay_trace_get_run (trace))))
        continue;

      group = g_strconcat (relay_run_get_endpoint (run), "\n", relay_run_get_model (run), NULL);
      if (!(counts = g_hash_table_lookup (per_key, group)))
        {
          counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
          g_hash_table_insert (per_key, g_strdup (group), counts);
        }

      kind = relay_trace_get_error_kind (trace);
      if (kind == NULL || kind[0] == '\0')
        kind = relay_error_stage_to_string (relay_trace_get_error_stage (trace));
      g_hash_table_insert (counts, g_strdup (kind),
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, kind)) + 1));
    }

  g_hash_table_iter_init (&iter, per_key);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autoptr(GString) text = g_string_new (NULL);
      g_autofree const char **kinds = (const char **) g_hash_table_get_keys_as_array (value, NULL);
      guint n = g_strv_length ((char **) kinds);

      g_qsort_with_data (kinds, n, sizeof (char *), compare_counts, value);
      for (guint k = 0; k < n; k++)
        {
          if (k > 0)
            g_string_append (text, ", ");
          /* Translators: how often an error happened, "3 × http-429" */
          g_string_append_printf (text, _("%u × %s"), GPOINTER_TO_UINT (g_hash_table_lookup (value, kinds[k])), kinds[k]);
        }
      g_hash_table_insert (self->error_kinds, g_strdup (key), g_string_free (g_steal_pointer (&text), FALSE));
    }
}

void
relay_summary_table_refresh (RelaySummaryTable *self)
{
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_if_fail (RELAY_IS_SUMMARY_TABLE (self));

  if (self->session != NULL)
    rows = relay_summarize (self->session);

  for (guint i = 0; rows != NULL && i < rows->len; i++)
    g_ptr_array_add (items, relay_summary_item_new (rows, i));

  /* The best values, overruns and error kinds first: cells read them when the splice
   * binds them. */
  compute_best (self, items);
  g_clear_pointer (&self->overruns, g_ptr_array_unref);
  if (self->budget != NULL && self->session != NULL)
    self->overruns = relay_budget_check_overruns (self->budget, self->session);
  collect_error_kinds (self);
  g_list_store_splice (self->store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->store)),
                       items->pdata, items->len);

  gtk_stack_set_visible_child_name (self->stack, items->len > 0 ? "table" : "empty");
}

void
relay_summary_table_set_budget (RelaySummaryTable *self,
                                RelayBudget       *budget)
{
  g_return_if_fail (RELAY_IS_SUMMARY_TABLE (self));
  g_return_if_fail (budget == NULL || RELAY_IS_BUDGET (budget));

  g_set_object (&self->budget, budget);
  relay_summary_table_refresh (self);
}

gboolean
relay_summary_table_is_over_budget (RelaySummaryTable *self,
                                    const char        *endpoint,
                                    const char        *model,
                                    RelayMetric        metric)
{
  g_return_val_if_fail (RELAY_IS_SUMMARY_TABLE (self), FALSE);

  for (guint i = 0; self->overruns != NULL && i < self->overruns->len; i++)
    {
      const RelayBudgetOverrun *overrun = g_ptr_array_index (self->overruns, i);
      RelayMetric m;

      if (metric_for_budget_item (overrun->item, &m) && m == metric &&
          g_strcmp0 (overrun->endpoint, endpoint) == 0 && g_strcmp0 (overrun->model, model) == 0)
        return TRUE;
    }

  return FALSE;
}

static void
relay_summary_table_dispose (GObject *object)
{
  RelaySummaryTable *self = (RelaySummaryTable *)object;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);

  g_clear_object (&self->store);
  g_clear_object (&self->session);
  g_clear_pointer (&self->error_kinds, g_hash_table_unref);
  g_clear_object (&self->budget);
  g_clear_pointer (&self->overruns, g_ptr_array_unref);

  G_OBJECT_CLASS (relay_summary_table_parent_class)->dispose (object);
}

static void
relay_summary_table_class_init (RelaySummaryTableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = relay_summary_table_dispose;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "summarytable");
}

/* What users compare first comes first; the connection stages follow. */
static const RelayMetric metric_order[] = {
  RELAY_METRIC_TTFT, RELAY_METRIC_WAIT, RELAY_METRIC_ITL, RELAY_METRIC_TOKENS_PER_SECOND,
  RELAY_METRIC_TOTAL, RELAY_METRIC_DNS, RELAY_METRIC_TCP, RELAY_METRIC_TLS,
};

static void
relay_summary_table_init (RelaySummaryTable *self)
{
  GtkWidget *scroller;
  GtkWidget *box;
  GtkWidget *caption;
  GtkWidget *empty;
  GtkSortListModel *sorted;
  GtkSelectionModel *selection;
  GtkWidget *header;

  for (guint m = 0; m < RELAY_N_METRICS; m++)
    self->best_p50[m] = self->best_p95[m] = NAN;

  self->error_kinds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->store = g_list_store_new (RELAY_TYPE_SUMMARY_ITEM);
  self->column_view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  gtk_column_view_set_show_column_separators (self->column_view, TRUE);
  gtk_column_view_set_show_row_separators (self->column_view, TRUE);
  gtk_column_view_set_reorderable (self->column_view, FALSE);
  gtk_widget_add_css_class (GTK_WIDGET (self->column_view), "data-table");
  gtk_widget_add_css_class (GTK_WIDGET (self->column_view), "summary-table");

  add_column (self, COLUMN_ENDPOINT, _("Endpoint"), NULL, TRUE);
  add_column (self, COLUMN_MODEL, _("Model"), NULL, TRUE);
  add_column (self, COLUMN_N, _("n"), _("Probes"), FALSE);
  add_column (self, COLUMN_ERRORS, _("Errors"), _("Probes that failed; hover a count for the kinds"), FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (metric_order); i++)
    add_column (self, COLUMN_FIRST_METRIC + metric_order[i], metric_title (metric_order[i]),
                metric_tooltip (metric_order[i]), FALSE);

  sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->store)),
                                    g_object_ref (gtk_column_view_get_sorter (self->column_view)));
  selection = GTK_SELECTION_MODEL (gtk_no_selection_new (G_LIST_MODEL (sorted)));
  gtk_column_view_set_model (self->column_view, selection);
  g_object_unref (selection);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  caption = gtk_label_new (_("Each cell is p50 / p95 (the median and the 95th percentile) in milliseconds; the best of each column is highlighted. Click a title to sort by its median."));
  gtk_label_set_wrap (GTK_LABEL (caption), TRUE);
  gtk_label_set_xalign (GTK_LABEL (caption), 0);
  gtk_widget_add_css_class (caption, "dim-label");
  gtk_widget_set_margin_start (caption, 12);
  gtk_widget_set_margin_end (caption, 12);
  gtk_widget_set_margin_top (caption, 9);
  gtk_widget_set_margin_bottom (caption, 9);
  gtk_box_append (GTK_BOX (box), caption);
  gtk_box_append (GTK_BOX (box), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));

  scroller = gtk_scrolled_window_new ();
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->column_view));
  gtk_box_append (GTK_BOX (box), scroller);

  /* Column tooltips go on the header buttons, which the column API does not expose. */
  header = gtk_widget_get_first_child (GTK_WIDGET (self->column_view));
  if (header != NULL)
    {
      GListModel *columns = gtk_column_view_get_columns (self->column_view);
      guint i = 0;

      for (GtkWidget *button = gtk_widget_get_first_child (header);
           button != NULL;
           button = gtk_widget_get_next_sibling (button), i++)
        {
          g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
          const char *tooltip;

          if (column == NULL)
            break;
          tooltip = g_object_get_data (G_OBJECT (column), "tooltip");
          if (tooltip != NULL)
            gtk_widget_set_tooltip_text (button, tooltip);
        }
    }

  empty = adw_status_page_new ();
  adw_status_page_set_icon_name (ADW_STATUS_PAGE (empty), "relayscope-table-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (empty), _("No Results Yet"));
  adw_status_page_set_description (ADW_STATUS_PAGE (empty),
                                   _("Run probes to compare endpoints and models here"));

  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_stack_add_named (self->stack, empty, "empty");
  gtk_stack_add_named (self->stack, box, "table");
  gtk_stack_set_visible_child_name (self->stack, "empty");
  gtk_widget_set_parent (GTK_WIDGET (self->stack), GTK_WIDGET (self));

  gtk_accessible_update_property (GTK_ACCESSIBLE (self->column_view),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Comparison of endpoints and models"),
                                  -1);
}

GtkWidget *
relay_summary_table_new (void)
{
  return g_object_new (RELAY_TYPE_SUMMARY_TABLE, NULL);
}

void
relay_summary_table_set_session (RelaySummaryTable *self,
                                 RelaySession      *session)
{
  g_return_if_fail (RELAY_IS_SUMMARY_TABLE (self));

  g_set_object (&self->session, session);
  relay_summary_table_refresh (self);
}

GListModel *
relay_summary_table_get_model (RelaySummaryTable *self)
{
  g_return_val_if_fail (RELAY_IS_SUMMARY_TABLE (self), NULL);

  return G_LIST_MODEL (self->store);
}
