/* relay-trace.h: one probe's timeline: marks, chunks, HTTP facts, usage and error.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "relay-types.h"

G_BEGIN_DECLS

#define RELAY_TYPE_TRACE (relay_trace_get_type())

G_DECLARE_FINAL_TYPE (RelayTrace, relay_trace, RELAY, TRACE, GObject)

/* One waterfall segment: [begin_us, end_us) relative to start. */
typedef struct
{
  RelayStage stage;
  gint64     begin_us;
  gint64     end_us;
} RelaySegment;

RelayTrace       *relay_trace_new                 (guint             run,
                                                   guint             seq);
guint             relay_trace_get_run             (RelayTrace       *self);
guint             relay_trace_get_seq             (RelayTrace       *self);

/* Wall-clock time of the start mark (for "wall clock" alignment and the file). */
GDateTime        *relay_trace_get_wall_start      (RelayTrace       *self);
void              relay_trace_set_wall_start      (RelayTrace       *self,
                                                   GDateTime        *wall_start);
/* Monotonic time (g_get_monotonic_time) of the start mark, 0 when loaded from a file. */
gint64            relay_trace_get_mono_start      (RelayTrace       *self);
void              relay_trace_set_mono_start      (RelayTrace       *self,
                                                   gint64            mono_start);

/* Marks: microseconds since start, or RELAY_TIME_NONE. */
gint64            relay_trace_get_mark            (RelayTrace       *self,
                                                   RelayMark         mark);
void              relay_trace_set_mark            (RelayTrace       *self,
                                                   RelayMark         mark,
                                                   gint64            t_us);
gboolean          relay_trace_has_mark            (RelayTrace       *self,
                                                   RelayMark         mark);
/* Duration between two marks, or RELAY_TIME_NONE when either is absent. */
gint64            relay_trace_get_interval        (RelayTrace       *self,
                                                   RelayMark         from,
                                                   RelayMark         to);

/* The waterfall segments tiling start → end (or start → last mark while live). Zero-length
 * segments are dropped, adjacent segments of the same stage merged. Returns n segments written
 * (at most RELAY_N_MARKS + 1). */
guint             relay_trace_get_segments        (RelayTrace       *self,
                                                   RelaySegment     *segments,
                                                   guint             n_segments);
/* Total duration of one stage (sum of its segments), or RELAY_TIME_NONE if absent. */
gint64            relay_trace_get_stage_duration  (RelayTrace       *self,
                                                   RelayStage        stage);

/* Chunks. */
void              relay_trace_add_chunk           (RelayTrace       *self,
                                                   gint64            t_us,
                                                   RelayChunkKind    kind,
                                                   guint32           bytes,
                                                   guint32           chars);
const RelayChunk *relay_trace_get_chunks          (RelayTrace       *self,
                                                   guint            *n_chunks);
guint             relay_trace_get_n_chunks        (RelayTrace       *self);
/* The sender's own monotonic send stamp of a chunk (the simulated relay's
 * "relayscope_sent_us"), for measuring read lag; -1 when unknown. Kept in memory only. */
void              relay_trace_set_chunk_sent      (RelayTrace       *self,
                                                   guint             index,
                                                   gint64            sent_us);
gint64            relay_trace_get_chunk_sent      (RelayTrace       *self,
                                                   guint             index);
/* Output characters over all chunks. */
guint64           relay_trace_get_output_chars    (RelayTrace       *self);

/* Usage. */
const RelayUsage *relay_trace_get_usage           (RelayTrace       *self);
void              relay_trace_set_usage           (RelayTrace       *self,
                                                   const RelayUsage *usage);
/* Output tokens: reported, or estimated from the characters (about 4 per token). */
gint64            relay_trace_get_output_tokens   (RelayTrace       *self,
                                                   gboolean         *estimated);
/* Output tokens per second from first token to last token, or -1. */
double            relay_trace_get_output_tokens_per_second (RelayTrace *self);

/* HTTP and TLS facts. */
guint             relay_trace_get_http_status     (RelayTrace       *self);
void              relay_trace_set_http_status     (RelayTrace       *self,
                                                   guint             status);
const char       *relay_trace_get_http_version    (RelayTrace       *self);
void              relay_trace_set_http_version    (RelayTrace       *self,
                                                   const char       *version);
gboolean          relay_trace_get_reused          (RelayTrace       *self);
void              relay_trace_set_reused          (RelayTrace       *self,
                                                   gboolean          reused);
const char       *relay_trace_get_remote          (RelayTrace       *self);
void              relay_trace_set_remote          (RelayTrace       *self,
                                                   const char       *remote);
const char       *relay_trace_get_tls_version     (RelayTrace       *self);
void              relay_trace_set_tls_version     (RelayTrace       *self,
                                                   const char       *tls_version);
const char       *relay_trace_get_cipher          (RelayTrace       *self);
void              relay_trace_set_cipher          (RelayTrace       *self,
                                                   const char       *cipher);
guint             relay_trace_get_connect_attempts (RelayTrace      *self);
void              relay_trace_set_connect_attempts (RelayTrace      *self,
                                                   guint             attempts);

/* Latency headers (lower-case names), in the order received. */
void              relay_trace_add_server_header   (RelayTrace       *self,
                                                   const char       *name,
                                                   const char       *value);
const char       *relay_trace_get_server_header   (RelayTrace       *self,
                                                   const char       *name);
/* Alternating name, value strings; NULL-terminated. */
const char * const *relay_trace_get_server_headers (RelayTrace      *self);

const char       *relay_trace_get_model_reported  (RelayTrace       *self);
void              relay_trace_set_model_reported  (RelayTrace       *self,
                                                   const char       *model);

/* The first events of the raw stream, for the details view (bounded). */
void              relay_trace_add_raw_event       (RelayTrace       *self,
                                                   const char       *event_type,
                                                   const char       *data);
/* Each entry is "event: TYPE\ndata: DATA" or "data: DATA". NULL-terminated. */
const char * const *relay_trace_get_raw_events    (RelayTrace       *self);

/* Error. Stage NONE means the probe succeeded. */
RelayErrorStage   relay_trace_get_error_stage     (RelayTrace       *self);
const char       *relay_trace_get_error_kind      (RelayTrace       *self);
const char       *relay_trace_get_error_message   (RelayTrace       *self);
void              relay_trace_set_error           (RelayTrace       *self,
                                                   RelayErrorStage   stage,
                                                   const char       *kind,
                                                   const char       *message);
gboolean          relay_trace_is_ok               (RelayTrace       *self);
/* TRUE once the end mark is set. */
gboolean          relay_trace_is_finished         (RelayTrace       *self);

/* Serialisation (the session file's trace object). Unknown members are kept. */
JsonNode         *relay_trace_to_json             (RelayTrace       *self);
RelayTrace       *relay_trace_new_from_json       (JsonNode         *node,
                                                   GError          **error);

/* Emits "changed" (for live views). Cheap; call after a batch of updates. */
void              relay_trace_emit_changed        (RelayTrace       *self);

G_END_DECLS
