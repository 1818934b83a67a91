/* relay-report.h: the PDF report of a session: title, notes, the table per endpoint × model,
 * an optional A/B comparison, the budget and its overruns, the waterfall and stream charts.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <gio/gio.h>

#include "relay-budget.h"
#include "relay-compare.h"
#include "relay-session.h"

G_BEGIN_DECLS

/* Writes the report to path as PDF (A4 landscape pages). budget and comparison may be NULL.
 * Errors are G_IO_ERROR. */
gboolean relay_report_export_pdf (RelaySession     *session,
                                  RelayBudget      *budget,
                                  RelayComparison  *comparison,
                                  const char       *path,
                                  GError          **error);

G_END_DECLS
