/* relay-summary-table.c: the comparison table of endpoints × models.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>

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

typedef enum
{
  COLUMN_ENDPOINT,
  COLUMN_MODEL,
  COLUMN_N,
  COLUMN_ERRORS,
  COLUMN_FIRST_METRIC,
  N_COLUMNS = COLUMN_FIRST_METRIC + 2 * RELAY_N_METRICS,
} Column;

struct _RelaySummaryTable
{
  GtkWidget      parent_instance;

  GtkStack      *stack;
  GtkColumnView *column_view;
  GListStore    *store;
  RelaySession  *session;
  double         best[N_COLUMNS];
  guint          n_rows;
};

G_DEFINE_FINAL_TYPE (RelaySummaryTable, relay_summary_table, GTK_TYPE_WIDGET)

static gboolean
column_is_metric (Column column,
                  RelayMetric *metric,
                  gboolean *p95)
{
  if (column < COLUMN_FIRST_METRIC || column >= N_COLUMNS)
    return FALSE;

  *metric = (column - COLUMN_FIRST_METRIC) / 2;
  *p95 = (column - COLUMN_FIRST_METRIC) % 2 == 1;
  return TRUE;
}

static double
row_value (const RelaySummaryRow *row,
           Column                 column)
{
  RelayMetric metric;
  gboolean p95;

  switch ((int) column)
    {
    case COLUMN_N:
      return row->n;
    case COLUMN_ERRORS:
      return row->errors;
    default:
      if (column_is_metric (column, &metric, &p95))
        return p95 ? row->stats[metric].p95 : row->stats[metric].p50;
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
    case RELAY_METRIC_DNS: return _("Name resolution, in milliseconds (cold connections only)");
    case RELAY_METRIC_TCP: return _("TCP handshake, in milliseconds");
    case RELAY_METRIC_TLS: return _("TLS handshake, in milliseconds");
    case RELAY_METRIC_WAIT: return _("Request sent to response headers: gateway, queue and prefill, in milliseconds");
    case RELAY_METRIC_TTFT: return _("Time to first token, from the start of the probe, in milliseconds");
    case RELAY_METRIC_ITL: return _("Inter-chunk latency: the gaps between streamed chunks, in milliseconds");
    case RELAY_METRIC_TOKENS_PER_SECOND: return _("Output tokens per second from the first to the last token");
    case RELAY_METRIC_TOTAL: return _("Start to the end of the stream, in milliseconds");
    case RELAY_N_METRICS:
    default: return "";
    }
}

static void
setup_cb (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          gpointer                  user_data)
{
  Column column = GPOINTER_TO_UINT (user_data);
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

static void
bind_cb (GtkSignalListItemFactory *factory,
         GtkListItem              *item,
         gpointer                  user_data)
{
  Column column = GPOINTER_TO_UINT (user_data);
  RelaySummaryItem *summary = gtk_list_item_get_item (item);
  GtkLabel *label = GTK_LABEL (gtk_list_item_get_child (item));
  const RelaySummaryRow *row = relay_summary_item_get_row (summary);
  RelaySummaryTable *self;
  g_autofree char *text = NULL;
  RelayMetric metric;
  gboolean p95;
  double value;

  gtk_widget_remove_css_class (GTK_WIDGET (label), "best");
  gtk_widget_remove_css_class (GTK_WIDGET (label), "error-count");
  gtk_widget_remove_css_class (GTK_WIDGET (label), "dim-label");

  switch ((int) column)
    {
    case COLUMN_ENDPOINT:
      gtk_label_set_text (label, row->endpoint);
      gtk_widget_set_tooltip_text (GTK_WIDGET (label), row->endpoint);
      return;

    case COLUMN_MODEL:
      gtk_label_set_text (label, row->model);
      gtk_widget_set_tooltip_text (GTK_WIDGET (label), row->model);
      return;

    case COLUMN_N:
      text = g_strdup_printf ("%u", row->n);
      gtk_label_set_text (label, text);
      return;

    case COLUMN_ERRORS:
      text = g_strdup_printf ("%u", row->errors);
      gtk_label_set_text (label, text);
      if (row->errors > 0)
        gtk_widget_add_css_class (GTK_WIDGET (label), "error-count");
      return;

    default:
      break;
    }

  if (!column_is_metric (column, &metric, &p95))
    return;

  value = row_value (row, column);
  if (isnan (value))
    {
      gtk_label_set_text (label, "—");
      gtk_widget_add_css_class (GTK_WIDGET (label), "dim-label");
      return;
    }

  if (metric == RELAY_METRIC_TOKENS_PER_SECOND)
    text = g_strdup_printf ("%s%.1f", row->tokens_estimated ? "≈" : "", value);
  else
    text = g_strdup_printf ("%.1f", value);
  gtk_label_set_text (label, text);

  self = g_object_get_data (G_OBJECT (factory), "table");
  if (self != NULL &&
      self->n_rows > 1 &&
      !isnan (self->best[column]) &&
      value == self->best[column])
    gtk_widget_add_css_class (GTK_WIDGET (label), "best");
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
  /* Names need room to be read; the figures are short. */
  gtk_column_view_column_set_fixed_width (view_column, column == COLUMN_ENDPOINT ? 200 : column == COLUMN_MODEL ? 150 : -1);
  gtk_column_view_column_set_resizable (view_column, TRUE);
  if (tooltip != NULL)
    g_object_set_data_full (G_OBJECT (view_column), "tooltip", g_strdup (tooltip), g_free);

  gtk_column_view_append_column (self->column_view, view_column);
}

static void
compute_best (RelaySummaryTable *self,
              GPtrArray         *items)
{
  guint n = items->len;

  for (guint c = 0; c < N_COLUMNS; c++)
    {
      RelayMetric metric;
      gboolean p95;

      self->best[c] = NAN;
      if (!column_is_metric (c, &metric, &p95))
        continue;

      for (guint i = 0; i < n; i++)
        {
          RelaySummaryItem *item = g_ptr_array_index (items, i);
          double value = row_value (relay_summary_item_get_row (item), c);

          if (isnan (value))
            continue;

          /* Throughput is better high; every other figure is a latency, better low. */
          if (isnan (self->best[c]) ||
              (metric == RELAY_METRIC_TOKENS_PER_SECOND ? value > self->best[c] : value < self->best[c]))
            self->best[c] = value;
        }
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

  /* The best values first: cells read them when the splice binds them. */
  compute_best (self, items);
  self->n_rows = items->len;
  g_list_store_splice (self->store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->store)),
                       items->pdata, items->len);

  gtk_stack_set_visible_child_name (self->stack, items->len > 0 ? "table" : "empty");
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

static const RelayMetric metric_order[] = {
  RELAY_METRIC_TTFT, RELAY_METRIC_ITL, RELAY_METRIC_TOKENS_PER_SECOND, RELAY_METRIC_TOTAL,
  RELAY_METRIC_WAIT, RELAY_METRIC_DNS, RELAY_METRIC_TCP, RELAY_METRIC_TLS,
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

  for (guint c = 0; c < N_COLUMNS; c++)
    self->best[c] = NAN;

  self->store = g_list_store_new (RELAY_TYPE_SUMMARY_ITEM);
  self->column_view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  gtk_column_view_set_show_column_separators (self->column_view, TRUE);
  gtk_column_view_set_reorderable (self->column_view, FALSE);
  gtk_widget_add_css_class (GTK_WIDGET (self->column_view), "data-table");

  add_column (self, COLUMN_ENDPOINT, _("Endpoint"), NULL, TRUE);
  add_column (self, COLUMN_MODEL, _("Model"), NULL, TRUE);
  add_column (self, COLUMN_N, _("n"), _("Traces"), FALSE);
  add_column (self, COLUMN_ERRORS, _("Errors"), NULL, FALSE);
  /* What users compare first comes first; the connection stages follow. */
  for (guint i = 0; i < G_N_ELEMENTS (metric_order); i++)
    {
      RelayMetric m = metric_order[i];
      g_autofree char *p50 = NULL;
      g_autofree char *p95 = NULL;

      /* Translators: a column title, "TTFT p50": the median of a metric */
      p50 = g_strdup_printf (_("%s p50"), metric_title (m));
      /* Translators: a column title, "TTFT p95": the 95th percentile of a metric */
      p95 = g_strdup_printf (_("%s p95"), metric_title (m));
      add_column (self, COLUMN_FIRST_METRIC + 2 * m, p50, metric_tooltip (m), FALSE);
      add_column (self, COLUMN_FIRST_METRIC + 2 * m + 1, p95, metric_tooltip (m), FALSE);
    }

  sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->store)),
                                    g_object_ref (gtk_column_view_get_sorter (self->column_view)));
  selection = GTK_SELECTION_MODEL (gtk_no_selection_new (G_LIST_MODEL (sorted)));
  gtk_column_view_set_model (self->column_view, selection);
  g_object_unref (selection);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  caption = gtk_label_new (_("Per endpoint and model: the median (p50) and 95th percentile (p95), in milliseconds; the best value of each column is highlighted. Click a title to sort."));
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
