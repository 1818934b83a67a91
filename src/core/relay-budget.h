/* relay-budget.h: latency budgets: a ceiling per observable stage at a percentile.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "relay-session.h"

G_BEGIN_DECLS

typedef enum
{
  RELAY_BUDGET_NETWORK,       /* DNS + TCP + TLS (handshakes only), ms */
  RELAY_BUDGET_DNS,
  RELAY_BUDGET_TCP,
  RELAY_BUDGET_TLS,
  RELAY_BUDGET_WAIT,          /* request sent → response headers, ms */
  RELAY_BUDGET_FIRST_TOKEN,   /* response headers → first token, ms */
  RELAY_BUDGET_TTFT,          /* start → first token, ms */
  RELAY_BUDGET_END_TO_END,    /* allowances + TTFT, ms */
  RELAY_BUDGET_ITL,           /* gaps between chunks, ms */
  RELAY_BUDGET_TOTAL,         /* start → end, ms */
  RELAY_BUDGET_TOKENS_PER_S,  /* a floor, not a ceiling */
  RELAY_N_BUDGET_ITEMS
} RelayBudgetItem;

#define RELAY_TYPE_BUDGET (relay_budget_get_type())

G_DECLARE_FINAL_TYPE (RelayBudget, relay_budget, RELAY, BUDGET, GObject)

/* The default: the 880 ms first-character budget (network 100, wait 330, first token 200,
 * allowances front end 50 + back end 200), checked at p95. */
RelayBudget *relay_budget_new_default   (void);
RelayBudget *relay_budget_load          (GFile        *file,
                                         GError      **error);
RelayBudget *relay_budget_new_from_data (const char   *data,
                                         gssize        length,
                                         GError      **error);
/* The percentile checked (50 or 95). */
double       relay_budget_get_percentile (RelayBudget *self);
/* The limit of an item in ms (tokens/s for TOKENS_PER_S), or a negative value for none. */
double       relay_budget_get_limit      (RelayBudget *self,
                                          RelayBudgetItem item);
double       relay_budget_get_allowances (RelayBudget *self);
const char  *relay_budget_item_to_string (RelayBudgetItem item);
/* One trace's value of an item (ms or tokens/s), NAN when it does not apply. */
double       relay_budget_trace_value    (RelayBudget *self,
                                          RelayTrace  *trace,
                                          RelayBudgetItem item);
/* Overruns per endpoint × model, as sentences; an empty array when all fit. */
GPtrArray   *relay_budget_check          (RelayBudget  *self,
                                          RelaySession *session);

G_END_DECLS
