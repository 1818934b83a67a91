/* relay-sse-parser.h: an incremental text/event-stream parser (WHATWG rules).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "relay-types.h"

G_BEGIN_DECLS

/* Called once per dispatched event. event_type is "message" when the stream named none.
 * data has the trailing newline removed, as the spec says. Return FALSE to stop parsing
 * (relay_sse_parser_feed then returns FALSE without an error). */
typedef gboolean (*RelaySseEventFunc) (const char *event_type,
                                       const char *data,
                                       gsize       data_len,
                                       const char *last_event_id,
                                       gpointer    user_data);

#define RELAY_SSE_ERROR (relay_sse_error_quark())

typedef enum
{
  RELAY_SSE_ERROR_LINE_TOO_LONG,
} RelaySseError;

GQuark          relay_sse_error_quark          (void);

/* max_line: the longest line accepted, in bytes (0 for the default of 16 MiB). */
RelaySseParser *relay_sse_parser_new           (gsize              max_line,
                                                RelaySseEventFunc  func,
                                                gpointer           user_data);
void            relay_sse_parser_free          (RelaySseParser    *self);
/* Feed bytes as they arrive, split anywhere (even inside a UTF-8 sequence or a CRLF).
 * Returns FALSE with error set when a line exceeds max_line. */
gboolean        relay_sse_parser_feed          (RelaySseParser    *self,
                                                const char        *data,
                                                gsize              len,
                                                GError           **error);
/* At end of stream: a final line without terminator is processed; an event that was not
 * followed by a blank line is NOT dispatched (per spec). Returns TRUE when such an
 * incomplete event was pending (the stream ended mid-event). */
gboolean        relay_sse_parser_finish        (RelaySseParser    *self);
/* The last "retry" value seen in ms, or -1. */
gint64          relay_sse_parser_get_retry     (RelaySseParser    *self);
/* Events dispatched so far. */
guint64         relay_sse_parser_get_n_events  (RelaySseParser    *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RelaySseParser, relay_sse_parser_free)

G_END_DECLS
