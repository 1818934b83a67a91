/* relay-summary-table.h: the comparison table (GtkColumnView over relay_summarize rows).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "relay-budget.h"
#include "relay-summary.h"

G_BEGIN_DECLS

#define RELAY_TYPE_SUMMARY_ITEM (relay_summary_item_get_type())

G_DECLARE_FINAL_TYPE (RelaySummaryItem, relay_summary_item, RELAY, SUMMARY_ITEM, GObject)

const RelaySummaryRow *relay_summary_item_get_row (RelaySummaryItem *self);

#define RELAY_TYPE_SUMMARY_TABLE (relay_summary_table_get_type())

G_DECLARE_FINAL_TYPE (RelaySummaryTable, relay_summary_table, RELAY, SUMMARY_TABLE, GtkWidget)

GtkWidget  *relay_summary_table_new         (void);
void        relay_summary_table_set_session (RelaySummaryTable *self,
                                             RelaySession      *session);
/* Recomputes the rows from the session (after traces finished). */
void        relay_summary_table_refresh     (RelaySummaryTable *self);
/* A budget whose overruns show in error colour (NULL for none; referenced). */
void        relay_summary_table_set_budget  (RelaySummaryTable *self,
                                             RelayBudget       *budget);
/* Whether a row's cell of metric is marked over the budget. */
gboolean    relay_summary_table_is_over_budget (RelaySummaryTable *self,
                                             const char        *endpoint,
                                             const char        *model,
                                             RelayMetric        metric);
/* The unsorted rows: a GListModel of RelaySummaryItem. */
GListModel *relay_summary_table_get_model   (RelaySummaryTable *self);

G_END_DECLS
