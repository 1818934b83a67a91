/* relay-types.h: forward declarations and the enumerations shared by the core.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* A mark that was not observed (a reused connection has no DNS, TCP or TLS marks). */
#define RELAY_TIME_NONE G_MININT64

typedef struct _RelayEndpoint   RelayEndpoint;
typedef struct _RelayProbePlan  RelayProbePlan;
typedef struct _RelayProber     RelayProber;
typedef struct _RelayRun        RelayRun;
typedef struct _RelaySession    RelaySession;
typedef struct _RelaySseParser  RelaySseParser;
typedef struct _RelayTrace      RelayTrace;

typedef enum
{
  RELAY_API_OPENAI_CHAT,
  RELAY_API_ANTHROPIC_MESSAGES,
} RelayApi;

typedef enum
{
  RELAY_CONNECTION_COLD,
  RELAY_CONNECTION_WARM,
} RelayConnection;

/* The marks of the latency model, in the order they normally happen.
 * Values are microseconds since RELAY_MARK_START, or RELAY_TIME_NONE. */
typedef enum
{
  RELAY_MARK_START,
  RELAY_MARK_DNS_START,
  RELAY_MARK_DNS_END,
  RELAY_MARK_CONNECT_START,
  RELAY_MARK_TCP_END,
  RELAY_MARK_PROXY_START,
  RELAY_MARK_PROXY_END,
  RELAY_MARK_TLS_START,
  RELAY_MARK_TLS_END,
  RELAY_MARK_REQUEST_START,
  RELAY_MARK_REQUEST_END,
  RELAY_MARK_RESPONSE_START,
  RELAY_MARK_FIRST_BYTE,
  RELAY_MARK_FIRST_EVENT,
  RELAY_MARK_FIRST_TOKEN,
  RELAY_MARK_FIRST_CONTENT,
  RELAY_MARK_LAST_TOKEN,
  RELAY_MARK_END,
  RELAY_N_MARKS
} RelayMark;

/* The waterfall's segments. They tile the timeline from start to end. */
typedef enum
{
  RELAY_STAGE_BLOCKED,
  RELAY_STAGE_DNS,
  RELAY_STAGE_TCP,
  RELAY_STAGE_PROXY,
  RELAY_STAGE_TLS_SETUP,
  RELAY_STAGE_TLS,
  RELAY_STAGE_SEND,
  RELAY_STAGE_WAIT,
  RELAY_STAGE_FIRST_EVENT,   /* response headers → first complete SSE event */
  RELAY_STAGE_FIRST_TOKEN,   /* first event → first generated text (role-only, empty chunks) */
  RELAY_STAGE_REASONING,     /* first token → first visible content */
  RELAY_STAGE_STREAM,        /* first content → last token */
  RELAY_STAGE_TAIL,          /* last token → end of stream */
  RELAY_STAGE_OTHER,         /* time between marks no stage claims */
  RELAY_N_STAGES
} RelayStage;

typedef enum
{
  RELAY_CHUNK_CONTENT,
  RELAY_CHUNK_REASONING,
  RELAY_CHUNK_TOOL,
} RelayChunkKind;

typedef enum
{
  RELAY_ERROR_STAGE_NONE,
  RELAY_ERROR_STAGE_DNS,
  RELAY_ERROR_STAGE_CONNECT,
  RELAY_ERROR_STAGE_TLS,
  RELAY_ERROR_STAGE_HTTP,
  RELAY_ERROR_STAGE_STREAM,
  RELAY_ERROR_STAGE_PARSE,
  RELAY_ERROR_STAGE_TIMEOUT,
  RELAY_ERROR_STAGE_CANCELLED,
} RelayErrorStage;

/* One SSE event that carried generated text. t_us is when its bytes were read. */
typedef struct
{
  gint64   t_us;
  guint32  bytes;
  guint32  chars;
  guint8   kind;   /* RelayChunkKind */
} RelayChunk;

/* Token counts the server reported; -1 where it did not say. */
typedef struct
{
  gint64   prompt_tokens;
  gint64   cached_prompt_tokens;
  gint64   completion_tokens;
  gint64   reasoning_tokens;
  gboolean estimated;   /* completion_tokens estimated from the text, not reported */
} RelayUsage;

#define RELAY_USAGE_INIT { -1, -1, -1, -1, FALSE }

/* Names used in files, the CLI and the UI's legend. */
const char      *relay_api_to_string        (RelayApi          api);
gboolean         relay_api_from_string      (const char       *str,
                                             RelayApi         *api);
const char      *relay_connection_to_string (RelayConnection   connection);
gboolean         relay_connection_from_string (const char     *str,
                                             RelayConnection  *connection);
const char      *relay_mark_to_string       (RelayMark         mark);
gboolean         relay_mark_from_string     (const char       *str,
                                             RelayMark        *mark);
const char      *relay_stage_to_string      (RelayStage        stage);
const char      *relay_chunk_kind_to_string (RelayChunkKind    kind);
gboolean         relay_chunk_kind_from_string (const char     *str,
                                             RelayChunkKind   *kind);
const char      *relay_error_stage_to_string (RelayErrorStage  stage);
gboolean         relay_error_stage_from_string (const char    *str,
                                             RelayErrorStage  *stage);

G_END_DECLS
