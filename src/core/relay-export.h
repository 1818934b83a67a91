/* relay-export.h: a session as CSV and JSON lines, and a trace's request as a curl command
 * or as the headers and body it sent (keys always replaced, never written).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "relay-session.h"

G_BEGIN_DECLS

/* The value written wherever a key would be. */
#define RELAY_EXPORT_REDACTED "REDACTED"

/* One row per trace (RFC 4180: CRLF line ends, fields quoted where needed, a header row):
 * endpoint, model, run, seq, wall_start, every mark and every stage in ms, TTFT, TTFO, ITL
 * p50/p95, chunks, tokens, tokens/s, usage, HTTP facts and the error. */
char       *relay_export_csv             (RelaySession  *session);
/* One JSON object per line and trace: the session file's trace with endpoint and model
 * names resolved and the derived figures (ttft_ms, ttfo_ms, stages_ms, itl_ms). */
char       *relay_export_jsonl           (RelaySession  *session);

/* The request body a trace's run sent, rebuilt from the run's request spec. Errors are
 * G_IO_ERROR_NOT_FOUND when the run or its prompt is not recorded. */
char       *relay_export_request_body    (RelaySession  *session,
                                          RelayTrace    *trace,
                                          GError       **error);
/* The request's URL (base URL + dialect path); NULL with an error when the endpoint is not
 * in the session. */
char       *relay_export_request_url     (RelaySession  *session,
                                          RelayTrace    *trace,
                                          GError       **error);
/* The request headers as alternating name, value strings (NULL-terminated). Headers that
 * carry a key (Authorization, x-api-key, Proxy-Authorization) get key_value instead of the
 * endpoint's: RELAY_EXPORT_REDACTED for a record, "$VAR" for a command. NULL with an error
 * when the endpoint is not in the session. */
GStrv       relay_export_request_headers (RelaySession  *session,
                                          RelayTrace    *trace,
                                          const char    *key_value,
                                          GError       **error);
/* "Copy as cURL": the request as a POSIX shell curl command with the key read from the
 * endpoint's environment variable ("$OPENAI_API_KEY"), never the key itself. */
char       *relay_export_curl_command    (RelaySession  *session,
                                          RelayTrace    *trace,
                                          GError       **error);

G_END_DECLS
