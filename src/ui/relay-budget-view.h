/* relay-budget-view.h: the Budget page: how much of the end-to-end budget each stage uses,
 * per endpoint × model (stacked bars against the budget line), and the overruns in words.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "relay-budget.h"
#include "relay-session.h"

G_BEGIN_DECLS

#define RELAY_TYPE_BUDGET_VIEW (relay_budget_view_get_type())

G_DECLARE_FINAL_TYPE (RelayBudgetView, relay_budget_view, RELAY, BUDGET_VIEW, GtkWidget)

GtkWidget *relay_budget_view_new          (void);
/* Both referenced; either may be NULL. Recomputes. */
void       relay_budget_view_set_session  (RelayBudgetView *self,
                                           RelaySession    *session,
                                           RelayBudget     *budget);
/* Recomputes from the session (after a run). */
void       relay_budget_view_refresh      (RelayBudgetView *self);
/* Overruns shown (sentences), for tests. */
guint      relay_budget_view_get_n_overruns (RelayBudgetView *self);

G_END_DECLS
