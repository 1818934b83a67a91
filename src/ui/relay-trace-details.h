/* relay-trace-details.h: everything recorded about one trace, as preferences-style groups.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "relay-session.h"

G_BEGIN_DECLS

#define RELAY_TYPE_TRACE_DETAILS (relay_trace_details_get_type())

G_DECLARE_FINAL_TYPE (RelayTraceDetails, relay_trace_details, RELAY, TRACE_DETAILS, GtkWidget)

GtkWidget  *relay_trace_details_new       (void);
/* session names the trace's endpoint and model; both may be NULL. */
void        relay_trace_details_set_trace (RelayTraceDetails *self,
                                           RelayTrace        *trace,
                                           RelaySession      *session);
RelayTrace *relay_trace_details_get_trace (RelayTraceDetails *self);
/* Redraws from the trace (it changed while running). */
void        relay_trace_details_refresh   (RelayTraceDetails *self);

G_END_DECLS
