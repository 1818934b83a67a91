/* relay-waterfall-view.h: the live latency waterfall widget, drawn by RelayWaterfallPainter.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "relay-session.h"
#include "relay-waterfall-painter.h"

G_BEGIN_DECLS

#define RELAY_TYPE_WATERFALL_VIEW (relay_waterfall_view_get_type())

G_DECLARE_FINAL_TYPE (RelayWaterfallView, relay_waterfall_view, RELAY, WATERFALL_VIEW, GtkWidget)

GtkWidget             *relay_waterfall_view_new          (void);
void                   relay_waterfall_view_set_session  (RelayWaterfallView *self,
                                                          RelaySession       *session);
RelayWaterfallPainter *relay_waterfall_view_get_painter  (RelayWaterfallView *self);
/* While live, the view redraws every frame so unfinished bars grow with the clock. */
void                   relay_waterfall_view_set_live     (RelayWaterfallView *self,
                                                          gboolean            live);
gboolean               relay_waterfall_view_get_live     (RelayWaterfallView *self);
/* Property "selected": the highlighted trace (not referenced); Up/Down move it, Enter
 * emits "trace-activated". */
RelayTrace            *relay_waterfall_view_get_selected (RelayWaterfallView *self);
void                   relay_waterfall_view_set_selected (RelayWaterfallView *self,
                                                          RelayTrace         *trace);
void                   relay_waterfall_view_zoom_in      (RelayWaterfallView *self);
void                   relay_waterfall_view_zoom_out     (RelayWaterfallView *self);
void                   relay_waterfall_view_zoom_reset   (RelayWaterfallView *self);
/* The text alternative of the chart ("12 traces; time to first token p50 240 ms"). */
char                  *relay_waterfall_view_describe     (RelayWaterfallView *self);
/* The tooltip text for a trace: every stage's exact duration. */
char                  *relay_waterfall_view_describe_trace (RelayWaterfallView *self,
                                                          RelayTrace         *trace);

G_END_DECLS
