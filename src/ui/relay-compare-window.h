/* relay-compare-window.h: A/B comparison: two sessions, or two endpoints, models or runs of
 * one, stage by stage with intervals, a test, a verdict and overlaid CDFs.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "relay-compare.h"
#include "relay-session.h"

G_BEGIN_DECLS

#define RELAY_TYPE_COMPARE_WINDOW (relay_compare_window_get_type())

G_DECLARE_FINAL_TYPE (RelayCompareWindow, relay_compare_window, RELAY, COMPARE_WINDOW, AdwWindow)

/* session (may be NULL) is offered for both sides; other sessions are opened from files. */
RelayCompareWindow *relay_compare_window_new            (GtkWindow          *parent,
                                                         RelaySession       *session);
/* Sets a side: a session and a selector (relay_compare_select_traces: NULL for every
 * trace, "ENDPOINT", "ENDPOINT/MODEL", "#N"); label names it ("before", a file name). */
void                relay_compare_window_set_side       (RelayCompareWindow *self,
                                                         gboolean            b,
                                                         RelaySession       *session,
                                                         const char         *label,
                                                         const char         *selector);
/* The comparison shown (NULL before both sides are set or when a side has no traces). */
RelayComparison    *relay_compare_window_get_comparison (RelayCompareWindow *self);
/* The verdict sentences shown (TTFT first), or an error message. */
const char         *relay_compare_window_get_verdict    (RelayCompareWindow *self);

G_END_DECLS
