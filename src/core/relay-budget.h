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

/* An empty budget (no limits, no allowances, p95), for building one in code. */
RelayBudget *relay_budget_new            (void);
void         relay_budget_set_percentile (RelayBudget *self,
                                          double       percentile);
/* A negative limit removes the item's budget. */
void         relay_budget_set_limit      (RelayBudget *self,
                                          RelayBudgetItem item,
                                          double       limit);
/* Named allowances (front_end, back_end, …) for the stages a probe cannot see, in ms. */
void         relay_budget_set_allowance  (RelayBudget *self,
                                          const char  *name,
                                          double       ms);
/* Names of the allowances, NULL-terminated; and one by name (0 when absent). */
GStrv        relay_budget_dup_allowance_names (RelayBudget *self);
double       relay_budget_get_allowance  (RelayBudget *self,
                                          const char  *name);
/* The budget file (README "Latency budgets"), which relay_budget_new_from_data() reads. */
char        *relay_budget_to_data        (RelayBudget *self);

/* One overrun, for views that mark it (the table, the waterfall) rather than print it. */
typedef struct
{
  char            *endpoint;
  char            *model;
  RelayBudgetItem  item;
  double           percentile;   /* the percentile checked (for tokens/s, the low one) */
  double           value;        /* ms, or tokens/s */
  double           limit;
  guint            n;            /* samples the percentile rests on */
} RelayBudgetOverrun;

/* Structured overruns (freed with the array), in the order relay_budget_check() gives. */
GPtrArray   *relay_budget_check_overruns (RelayBudget  *self,
                                          RelaySession *session);
/* The sentence relay_budget_check() prints for an overrun. */
char        *relay_budget_overrun_format (const RelayBudgetOverrun *overrun);
/* The items a single trace exceeds (limits compared with its own value, ITL by its largest
 * gap), for marking a waterfall row; returns how many were written to items. */
guint        relay_budget_trace_overruns (RelayBudget      *self,
                                          RelayTrace       *trace,
                                          RelayBudgetItem  *items,
                                          guint             n_items);

G_END_DECLS
