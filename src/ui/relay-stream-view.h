/* relay-stream-view.h: the streaming chart widget (chunk gaps, cumulative output, the gap
 * distribution), drawn by RelayStreamPainter.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "relay-session.h"
#include "relay-stream-painter.h"

G_BEGIN_DECLS

#define RELAY_TYPE_STREAM_VIEW (relay_stream_view_get_type())

G_DECLARE_FINAL_TYPE (RelayStreamView, relay_stream_view, RELAY, STREAM_VIEW, GtkWidget)

GtkWidget          *relay_stream_view_new         (void);
/* traces: what GAPS and CUMULATIVE show (a selection, or the whole session). */
void                relay_stream_view_set_traces  (RelayStreamView *self,
                                                   GListModel      *traces,
                                                   RelaySession    *session);
RelayStreamPainter *relay_stream_view_get_painter (RelayStreamView *self);
void                relay_stream_view_set_mode    (RelayStreamView *self,
                                                   RelayStreamMode  mode);
/* Re-reads chunks (live probes). */
void                relay_stream_view_invalidate  (RelayStreamView *self);
/* The chart's text alternative. */
char               *relay_stream_view_describe    (RelayStreamView *self);

G_END_DECLS
