/* relay-budget-editor.h: edits a session's latency budget: the percentile, a ceiling per
 * stage, the allowances for what a probe cannot see, and named presets.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "relay-budget.h"

G_BEGIN_DECLS

typedef enum
{
  RELAY_BUDGET_PRESET_CHAT,    /* the 880 ms first-character budget (the default) */
  RELAY_BUDGET_PRESET_STRICT,  /* an interactive budget of 500 ms at p95 */
  RELAY_BUDGET_PRESET_BATCH,   /* throughput first: generous waits, a floor on tokens/s */
  RELAY_N_BUDGET_PRESETS
} RelayBudgetPreset;

/* A new budget for a preset, and its translated name. */
RelayBudget *relay_budget_preset_new      (RelayBudgetPreset preset);
const char  *relay_budget_preset_get_name (RelayBudgetPreset preset);
/* A translated name of a budget item ("Wait (gateway, queue and prefill)"). */
const char  *relay_budget_item_get_title  (RelayBudgetItem   item);

#define RELAY_TYPE_BUDGET_EDITOR (relay_budget_editor_get_type())

G_DECLARE_FINAL_TYPE (RelayBudgetEditor, relay_budget_editor, RELAY, BUDGET_EDITOR, AdwWindow)

/* Signal "apply" (RelayBudget *budget, gboolean as_default) when the user applies it. */
RelayBudgetEditor *relay_budget_editor_new        (GtkWindow         *parent,
                                                   RelayBudget       *budget);
void               relay_budget_editor_set_budget (RelayBudgetEditor *self,
                                                   RelayBudget       *budget);
/* The budget the editor's fields describe (a new object). */
RelayBudget       *relay_budget_editor_dup_budget (RelayBudgetEditor *self);

G_END_DECLS
