/* relay-har.h: HAR 1.2 (HTTP Archive) export of a session, one entry per trace, and import
 * of HAR files (ours or a browser's) as a session whose waterfall can be viewed.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "relay-session.h"

G_BEGIN_DECLS

/* The HAR document: a page per run, an entry per trace with timings (blocked, dns, connect
 * including ssl, ssl, send, wait, receive; -1 where a stage does not apply), the request as
 * sent (keys REDACTED, the JSON body) and the response (status, recorded headers, the first
 * events of the stream), plus "_relayscope" fields: marks, chunks, TTFT, TTFO, usage, error. */
JsonNode      *relay_har_from_session (RelaySession  *session);
/* The same as pretty-printed JSON text. */
char          *relay_har_to_data      (RelaySession  *session,
                                       gsize         *length);

/* Reads a HAR document. Entries become traces: their "_relayscope" fields where present
 * (an exact round trip), otherwise marks derived from the timings. Endpoints and runs come
 * from the request URLs and the models named in the bodies. Errors are G_IO_ERROR_INVALID_DATA. */
RelaySession  *relay_har_import       (const char    *data,
                                       gssize         length,
                                       GError       **error);
RelaySession  *relay_har_load         (GFile         *file,
                                       GCancellable  *cancellable,
                                       GError       **error);

G_END_DECLS
