/* relay-trace.c: one probe's timeline: marks, chunks, HTTP facts, usage and error, the
 * waterfall segments derived from the marks, and the trace object of the session file.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "relay-json-private.h"
#include "relay-trace.h"

/* The details view shows the start of the raw stream; the rest only costs memory. */
#define MAX_RAW_EVENTS      32
#define MAX_RAW_EVENT_BYTES (16 * 1024)

/* Marks and chunk times in a file must leave room for subtracting one from another. */
#define MAX_FILE_TIME_US    (G_MAXINT64 / 4)

struct _RelayTrace
{
  GObject          parent_instance;

  guint            run;
  guint            seq;
  GDateTime       *wall_start;
  gint64           mono_start;
  gint64           marks[RELAY_N_MARKS];

  GArray          *chunks;
  GArray          *chunk_sent;   /* gint64 per chunk, created on first use */
  RelayUsage       usage;

  guint            http_status;
  char            *http_version;
  char            *remote;
  char            *tls_version;
  char            *cipher;
  guint            connect_attempts;
  gboolean         reused;

  /* Alternating name, value; NULL-terminated. */
  GPtrArray       *server_headers;
  char            *model_reported;

  /* NULL-terminated. */
  GPtrArray       *raw_events;
  gsize            raw_events_bytes;
  gboolean         raw_events_full;

  RelayErrorStage  error_stage;
  char            *error_kind;
  char            *error_message;

  /* Members of the file's objects that this version does not know, written back on save. */
  JsonObject      *extras;
  JsonObject      *marks_extras;
  JsonObject      *usage_extras;
  JsonObject      *http_extras;
  JsonObject      *error_extras;
};

G_DEFINE_FINAL_TYPE (RelayTrace, relay_trace, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
relay_trace_finalize (GObject *object)
{
  RelayTrace *self = (RelayTrace *)object;

  g_clear_pointer (&self->wall_start, g_date_time_unref);
  g_clear_pointer (&self->chunks, g_array_unref);
  g_clear_pointer (&self->chunk_sent, g_array_unref);
  g_clear_pointer (&self->http_version, g_free);
  g_clear_pointer (&self->remote, g_free);
  g_clear_pointer (&self->tls_version, g_free);
  g_clear_pointer (&self->cipher, g_free);
  g_clear_pointer (&self->server_headers, g_ptr_array_unref);
  g_clear_pointer (&self->model_reported, g_free);
  g_clear_pointer (&self->raw_events, g_ptr_array_unref);
  g_clear_pointer (&self->error_kind, g_free);
  g_clear_pointer (&self->error_message, g_free);
  g_clear_pointer (&self->extras, json_object_unref);
  g_clear_pointer (&self->marks_extras, json_object_unref);
  g_clear_pointer (&self->usage_extras, json_object_unref);
  g_clear_pointer (&self->http_extras, json_object_unref);
  g_clear_pointer (&self->error_extras, json_object_unref);

  G_OBJECT_CLASS (relay_trace_parent_class)->finalize (object);
}

static void
relay_trace_class_init (RelayTraceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = relay_trace_finalize;

  /**
   * RelayTrace::changed:
   *
   * Emitted by relay_trace_emit_changed() after a batch of updates, so live views redraw
   * once per batch rather than once per mark or chunk.
   */
  signals[CHANGED] =
    g_signal_new ("changed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0,
                  NULL, NULL,
                  NULL,
                  G_TYPE_NONE, 0);
}

static void
relay_trace_init (RelayTrace *self)
{
  for (guint i = 0; i < RELAY_N_MARKS; i++)
    self->marks[i] = RELAY_TIME_NONE;
  self->marks[RELAY_MARK_START] = 0;

  /* Reserve room for a typical answer up front so the read loop rarely reallocates. */
  self->chunks = g_array_sized_new (FALSE, FALSE, sizeof (RelayChunk), 256);

  self->usage = (RelayUsage) RELAY_USAGE_INIT;

  self->server_headers = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->server_headers, NULL);

  self->raw_events = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->raw_events, NULL);
}

RelayTrace *
relay_trace_new (guint run,
                 guint seq)
{
  RelayTrace *self = g_object_new (RELAY_TYPE_TRACE, NULL);

  self->run = run;
  self->seq = seq;

  return self;
}

guint
relay_trace_get_run (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), 0);

  return self->run;
}

guint
relay_trace_get_seq (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), 0);

  return self->seq;
}

GDateTime *
relay_trace_get_wall_start (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  return self->wall_start;
}

void
relay_trace_set_wall_start (RelayTrace *self,
                            GDateTime  *wall_start)
{
  g_return_if_fail (RELAY_IS_TRACE (self));

  if (wall_start != NULL)
    g_date_time_ref (wall_start);
  g_clear_pointer (&self->wall_start, g_date_time_unref);
  self->wall_start = wall_start;
}

gint64
relay_trace_get_mono_start (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), 0);

  return self->mono_start;
}

void
relay_trace_set_mono_start (RelayTrace *self,
                            gint64      mono_start)
{
  g_return_if_fail (RELAY_IS_TRACE (self));

  self->mono_start = mono_start;
}

gint64
relay_trace_get_mark (RelayTrace *self,
                      RelayMark   mark)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), RELAY_TIME_NONE);
  g_return_val_if_fail ((guint) mark < RELAY_N_MARKS, RELAY_TIME_NONE);

  return self->marks[mark];
}

void
relay_trace_set_mark (RelayTrace *self,
                      RelayMark   mark,
                      gint64      t_us)
{
  g_return_if_fail (RELAY_IS_TRACE (self));
  g_return_if_fail ((guint) mark < RELAY_N_MARKS);

  self->marks[mark] = t_us;
}

gboolean
relay_trace_has_mark (RelayTrace *self,
                      RelayMark   mark)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), FALSE);
  g_return_val_if_fail ((guint) mark < RELAY_N_MARKS, FALSE);

  return self->marks[mark] != RELAY_TIME_NONE;
}

gint64
relay_trace_get_interval (RelayTrace *self,
                          RelayMark   from,
                          RelayMark   to)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), RELAY_TIME_NONE);
  g_return_val_if_fail ((guint) from < RELAY_N_MARKS, RELAY_TIME_NONE);
  g_return_val_if_fail ((guint) to < RELAY_N_MARKS, RELAY_TIME_NONE);

  if (self->marks[from] == RELAY_TIME_NONE || self->marks[to] == RELAY_TIME_NONE)
    return RELAY_TIME_NONE;

  return self->marks[to] - self->marks[from];
}

/* The stage of the time between two consecutive marks. Most segments are named by the mark
 * that ends them (the time up to dns_end is DNS); the time up to end is named by the mark
 * before it, the stage the probe was in when the stream ended or failed. */
static RelayStage
segment_stage (RelayMark prev,
               RelayMark next)
{
  switch (next)
    {
    case RELAY_MARK_DNS_START:
    case RELAY_MARK_CONNECT_START:
    case RELAY_MARK_REQUEST_START:
    case RELAY_MARK_PROXY_START:
      return prev == RELAY_MARK_START ? RELAY_STAGE_BLOCKED : RELAY_STAGE_OTHER;
    case RELAY_MARK_DNS_END:
      return RELAY_STAGE_DNS;
    case RELAY_MARK_TCP_END:
      return RELAY_STAGE_TCP;
    case RELAY_MARK_PROXY_END:
      return RELAY_STAGE_PROXY;
    case RELAY_MARK_TLS_START:
      return RELAY_STAGE_TLS_SETUP;
    case RELAY_MARK_TLS_END:
      return RELAY_STAGE_TLS;
    case RELAY_MARK_REQUEST_END:
      return RELAY_STAGE_SEND;
    case RELAY_MARK_RESPONSE_START:
      return RELAY_STAGE_WAIT;
    case RELAY_MARK_FIRST_BYTE:
    case RELAY_MARK_FIRST_EVENT:
      return RELAY_STAGE_FIRST_EVENT;
    case RELAY_MARK_FIRST_TOKEN:
      return RELAY_STAGE_FIRST_TOKEN;
    case RELAY_MARK_FIRST_CONTENT:
      return RELAY_STAGE_REASONING;
    case RELAY_MARK_LAST_TOKEN:
      return RELAY_STAGE_STREAM;

    case RELAY_MARK_END:
      switch (prev)
        {
        case RELAY_MARK_LAST_TOKEN:
          return RELAY_STAGE_TAIL;
        case RELAY_MARK_FIRST_CONTENT:
        case RELAY_MARK_FIRST_TOKEN:
          return RELAY_STAGE_STREAM;
        case RELAY_MARK_FIRST_EVENT:
          return RELAY_STAGE_FIRST_TOKEN;
        case RELAY_MARK_RESPONSE_START:
        case RELAY_MARK_FIRST_BYTE:
          return RELAY_STAGE_FIRST_EVENT;
        case RELAY_MARK_REQUEST_END:
          return RELAY_STAGE_WAIT;
        case RELAY_MARK_REQUEST_START:
          return RELAY_STAGE_SEND;
        case RELAY_MARK_TLS_START:
          return RELAY_STAGE_TLS;
        case RELAY_MARK_CONNECT_START:
          return RELAY_STAGE_TCP;
        case RELAY_MARK_PROXY_START:
          return RELAY_STAGE_PROXY;
        case RELAY_MARK_DNS_START:
          return RELAY_STAGE_DNS;
        case RELAY_MARK_START:
          return RELAY_STAGE_BLOCKED;
        /* After tcp_end a probe may be in TLS setup or already sending plain HTTP; the
         * trace cannot tell which, so it does not guess. */
        case RELAY_MARK_TCP_END:
        case RELAY_MARK_TLS_END:
        case RELAY_MARK_DNS_END:
        case RELAY_MARK_PROXY_END:
        case RELAY_MARK_END:
        case RELAY_N_MARKS:
        default:
          return RELAY_STAGE_OTHER;
        }

    case RELAY_MARK_START:
    case RELAY_N_MARKS:
    default:
      return RELAY_STAGE_OTHER;
    }
}

guint
relay_trace_get_segments (RelayTrace   *self,
                          RelaySegment *segments,
                          guint         n_segments)
{
  RelayMark order[RELAY_N_MARKS];
  guint n_marks = 0;
  guint n = 0;

  g_return_val_if_fail (RELAY_IS_TRACE (self), 0);
  g_return_val_if_fail (segments != NULL || n_segments == 0, 0);

  /* Insertion sort by time; marks are visited in enum order and an equal time is inserted
   * after its peers, so ties keep the order in which marks normally happen. */
  for (guint m = 0; m < RELAY_N_MARKS; m++)
    {
      gint64 t = self->marks[m];
      guint pos = n_marks;

      if (t == RELAY_TIME_NONE)
        continue;

      while (pos > 0 && self->marks[order[pos - 1]] > t)
        {
          order[pos] = order[pos - 1];
          pos--;
        }

      order[pos] = (RelayMark) m;
      n_marks++;
    }

  for (guint i = 1; i < n_marks; i++)
    {
      RelayMark prev = order[i - 1];
      RelayMark next = order[i];
      gint64 begin = self->marks[prev];
      gint64 end = self->marks[next];
      RelayStage stage;

      if (end <= begin)
        continue;

      stage = segment_stage (prev, next);

      /* Zero-length segments leave no hole, so a same-stage neighbour always touches. */
      if (n > 0 && segments[n - 1].stage == stage)
        {
          segments[n - 1].end_us = end;
          continue;
        }

      if (n >= n_segments)
        break;

      segments[n].stage = stage;
      segments[n].begin_us = begin;
      segments[n].end_us = end;
      n++;
    }

  return n;
}

gint64
relay_trace_get_stage_duration (RelayTrace *self,
                                RelayStage  stage)
{
  RelaySegment segments[RELAY_N_MARKS + 1];
  gint64 total = 0;
  gboolean found = FALSE;
  guint n;

  g_return_val_if_fail (RELAY_IS_TRACE (self), RELAY_TIME_NONE);
  g_return_val_if_fail ((guint) stage < RELAY_N_STAGES, RELAY_TIME_NONE);

  n = relay_trace_get_segments (self, segments, G_N_ELEMENTS (segments));

  for (guint i = 0; i < n; i++)
    {
      if (segments[i].stage == stage)
        {
          total += segments[i].end_us - segments[i].begin_us;
          found = TRUE;
        }
    }

  return found ? total : RELAY_TIME_NONE;
}

void
relay_trace_add_chunk (RelayTrace     *self,
                       gint64          t_us,
                       RelayChunkKind  kind,
                       guint32         bytes,
                       guint32         chars)
{
  RelayChunk chunk;

  g_return_if_fail (RELAY_IS_TRACE (self));

  chunk.t_us = t_us;
  chunk.bytes = bytes;
  chunk.chars = chars;
  chunk.kind = (guint8) kind;

  g_array_append_val (self->chunks, chunk);
}

const RelayChunk *
relay_trace_get_chunks (RelayTrace *self,
                        guint      *n_chunks)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  if (n_chunks != NULL)
    *n_chunks = self->chunks->len;

  return (const RelayChunk *) (gpointer) self->chunks->data;
}

void
relay_trace_set_chunk_sent (RelayTrace *self,
                            guint       index,
                            gint64      sent_us)
{
  g_return_if_fail (RELAY_IS_TRACE (self));
  g_return_if_fail (index < self->chunks->len);

  if (self->chunk_sent == NULL)
    self->chunk_sent = g_array_sized_new (FALSE, FALSE, sizeof (gint64), self->chunks->len);

  while (self->chunk_sent->len <= index)
    {
      gint64 unknown = -1;
      g_array_append_val (self->chunk_sent, unknown);
    }

  g_array_index (self->chunk_sent, gint64, index) = sent_us;
}

gint64
relay_trace_get_chunk_sent (RelayTrace *self,
                            guint       index)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), -1);

  if (self->chunk_sent == NULL || index >= self->chunk_sent->len)
    return -1;

  return g_array_index (self->chunk_sent, gint64, index);
}

guint
relay_trace_get_n_chunks (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), 0);

  return self->chunks->len;
}

guint64
relay_trace_get_output_chars (RelayTrace *self)
{
  guint64 total = 0;

  g_return_val_if_fail (RELAY_IS_TRACE (self), 0);

  for (guint i = 0; i < self->chunks->len; i++)
    total += g_array_index (self->chunks, RelayChunk, i).chars;

  return total;
}

const RelayUsage *
relay_trace_get_usage (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  return &self->usage;
}

void
relay_trace_set_usage (RelayTrace       *self,
                       const RelayUsage *usage)
{
  g_return_if_fail (RELAY_IS_TRACE (self));
  g_return_if_fail (usage != NULL);

  self->usage = *usage;
}

gint64
relay_trace_get_output_tokens (RelayTrace *self,
                               gboolean   *estimated)
{
  guint64 chars;

  g_return_val_if_fail (RELAY_IS_TRACE (self), 0);

  if (self->usage.completion_tokens >= 0)
    {
      if (estimated != NULL)
        *estimated = self->usage.estimated;
      return self->usage.completion_tokens;
    }

  /* About four characters a token for English text; rough, hence marked as estimated. */
  chars = relay_trace_get_output_chars (self);

  if (estimated != NULL)
    *estimated = TRUE;

  return (gint64) ((chars + 3) / 4);
}

double
relay_trace_get_output_tokens_per_second (RelayTrace *self)
{
  gint64 first;
  gint64 last;
  gint64 tokens;

  g_return_val_if_fail (RELAY_IS_TRACE (self), -1);

  if (self->chunks->len < 2)
    return -1;

  first = self->marks[RELAY_MARK_FIRST_TOKEN];
  last = self->marks[RELAY_MARK_LAST_TOKEN];

  if (first == RELAY_TIME_NONE)
    first = g_array_index (self->chunks, RelayChunk, 0).t_us;
  if (last == RELAY_TIME_NONE)
    last = g_array_index (self->chunks, RelayChunk, self->chunks->len - 1).t_us;

  if (last <= first)
    return -1;

  /* completion_tokens includes reasoning tokens, and so does the first→last window. */
  tokens = relay_trace_get_output_tokens (self, NULL);

  return (double) tokens / ((double) (last - first) / G_USEC_PER_SEC);
}

guint
relay_trace_get_http_status (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), 0);

  return self->http_status;
}

void
relay_trace_set_http_status (RelayTrace *self,
                             guint       status)
{
  g_return_if_fail (RELAY_IS_TRACE (self));

  self->http_status = status;
}

const char *
relay_trace_get_http_version (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  return self->http_version;
}

void
relay_trace_set_http_version (RelayTrace *self,
                              const char *version)
{
  g_return_if_fail (RELAY_IS_TRACE (self));

  _relay_str_set (&self->http_version, version);
}

gboolean
relay_trace_get_reused (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), FALSE);

  return self->reused;
}

void
relay_trace_set_reused (RelayTrace *self,
                        gboolean    reused)
{
  g_return_if_fail (RELAY_IS_TRACE (self));

  self->reused = !!reused;
}

const char *
relay_trace_get_remote (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  return self->remote;
}

void
relay_trace_set_remote (RelayTrace *self,
                        const char *remote)
{
  g_return_if_fail (RELAY_IS_TRACE (self));

  _relay_str_set (&self->remote, remote);
}

const char *
relay_trace_get_tls_version (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  return self->tls_version;
}

void
relay_trace_set_tls_version (RelayTrace *self,
                             const char *tls_version)
{
  g_return_if_fail (RELAY_IS_TRACE (self));

  _relay_str_set (&self->tls_version, tls_version);
}

const char *
relay_trace_get_cipher (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  return self->cipher;
}

void
relay_trace_set_cipher (RelayTrace *self,
                        const char *cipher)
{
  g_return_if_fail (RELAY_IS_TRACE (self));

  _relay_str_set (&self->cipher, cipher);
}

guint
relay_trace_get_connect_attempts (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), 0);

  return self->connect_attempts;
}

void
relay_trace_set_connect_attempts (RelayTrace *self,
                                  guint       attempts)
{
  g_return_if_fail (RELAY_IS_TRACE (self));

  self->connect_attempts = attempts;
}

void
relay_trace_add_server_header (RelayTrace *self,
                               const char *name,
                               const char *value)
{
  g_autofree char *valid_name = _relay_strdup_utf8 (name);

  g_return_if_fail (RELAY_IS_TRACE (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (value != NULL);

  /* Replace the terminating NULL, then terminate again. */
  g_ptr_array_index (self->server_headers, self->server_headers->len - 1) = g_ascii_strdown (valid_name, -1);
  g_ptr_array_add (self->server_headers, _relay_strdup_utf8 (value));
  g_ptr_array_add (self->server_headers, NULL);
}

const char *
relay_trace_get_server_header (RelayTrace *self,
                               const char *name)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i + 1 < self->server_headers->len; i += 2)
    {
      if (g_ascii_strcasecmp (g_ptr_array_index (self->server_headers, i), name) == 0)
        return g_ptr_array_index (self->server_headers, i + 1);
    }

  return NULL;
}

const char * const *
relay_trace_get_server_headers (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  return (const char * const *) self->server_headers->pdata;
}

const char *
relay_trace_get_model_reported (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  return self->model_reported;
}

void
relay_trace_set_model_reported (RelayTrace *self,
                                const char *model)
{
  g_return_if_fail (RELAY_IS_TRACE (self));

  _relay_str_set (&self->model_reported, model);
}

/* Keeps an entry while the caps allow; the entry that crosses the byte cap is cut at a
 * character boundary and closes the list, so the view shows a contiguous start. */
static void
take_raw_event (RelayTrace *self,
                char       *entry)
{
  gsize len;

  if (self->raw_events_full || self->raw_events->len - 1 >= MAX_RAW_EVENTS)
    {
      g_free (entry);
      self->raw_events_full = TRUE;
      return;
    }

  len = strlen (entry);

  if (self->raw_events_bytes + len > MAX_RAW_EVENT_BYTES)
    {
      gsize room = MAX_RAW_EVENT_BYTES - self->raw_events_bytes;
      const char *end = entry + room;

      self->raw_events_full = TRUE;

      if (!g_utf8_validate (entry, room, &end))
        room = end - entry;
      if (room == 0)
        {
          g_free (entry);
          return;
        }

      entry[room] = '\0';
      len = room;
    }

  self->raw_events_bytes += len;
  g_ptr_array_index (self->raw_events, self->raw_events->len - 1) = entry;
  g_ptr_array_add (self->raw_events, NULL);
}

void
relay_trace_add_raw_event (RelayTrace *self,
                           const char *event_type,
                           const char *data)
{
  g_autofree char *entry = NULL;

  g_return_if_fail (RELAY_IS_TRACE (self));

  if (self->raw_events_full)
    return;

  if (data == NULL)
    data = "";

  if (event_type != NULL && event_type[0] != '\0')
    entry = g_strdup_printf ("event: %s\ndata: %s", event_type, data);
  else
    entry = g_strdup_printf ("data: %s", data);

  take_raw_event (self, _relay_strdup_utf8 (entry));
}

const char * const *
relay_trace_get_raw_events (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  return (const char * const *) self->raw_events->pdata;
}

RelayErrorStage
relay_trace_get_error_stage (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), RELAY_ERROR_STAGE_NONE);

  return self->error_stage;
}

const char *
relay_trace_get_error_kind (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  return self->error_kind;
}

const char *
relay_trace_get_error_message (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  return self->error_message;
}

void
relay_trace_set_error (RelayTrace      *self,
                       RelayErrorStage  stage,
                       const char      *kind,
                       const char      *message)
{
  g_return_if_fail (RELAY_IS_TRACE (self));
  g_return_if_fail ((guint) stage <= RELAY_ERROR_STAGE_CANCELLED);

  self->error_stage = stage;
  _relay_str_set (&self->error_kind, kind);
  _relay_str_set (&self->error_message, message);
}

gboolean
relay_trace_is_ok (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), FALSE);

  return self->error_stage == RELAY_ERROR_STAGE_NONE;
}

gboolean
relay_trace_is_finished (RelayTrace *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE (self), FALSE);

  return self->marks[RELAY_MARK_END] != RELAY_TIME_NONE;
}

void
relay_trace_emit_changed (RelayTrace *self)
{
  g_return_if_fail (RELAY_IS_TRACE (self));

  g_signal_emit (self, signals[CHANGED], 0);
}

/* Serialisation */

static const char * const trace_members[] = {
  "run", "seq", "wall_start", "marks_us", "chunks", "usage", "http", "server",
  "model_reported", "raw_events", "error", NULL
};
static const char * const usage_members[] = {
  "prompt_tokens", "cached_prompt_tokens", "completion_tokens", "reasoning_tokens",
  "estimated", NULL
};
static const char * const http_members[] = {
  "status", "version", "reused", "remote", "tls", "cipher", "connect_attempts", NULL
};
static const char * const error_members[] = { "stage", "kind", "message", NULL };

static void
set_count (JsonObject *object,
           const char *name,
           gint64      value)
{
  if (value >= 0)
    json_object_set_int_member (object, name, value);
  else
    json_object_set_null_member (object, name);
}

JsonNode *
relay_trace_to_json (RelayTrace *self)
{
  g_autoptr(JsonObject) object = NULL;
  JsonObject *marks;
  JsonArray *chunks;
  JsonObject *usage;
  JsonObject *http;
  JsonObject *server;
  JsonArray *raw;
  JsonNode *node;

  g_return_val_if_fail (RELAY_IS_TRACE (self), NULL);

  object = json_object_new ();
  json_object_set_int_member (object, "run", self->run);
  json_object_set_int_member (object, "seq", self->seq);
  _relay_json_set_time (object, "wall_start", self->wall_start);

  marks = json_object_new ();
  for (guint m = 0; m < RELAY_N_MARKS; m++)
    {
      if (self->marks[m] != RELAY_TIME_NONE)
        json_object_set_int_member (marks, relay_mark_to_string (m), self->marks[m]);
      else
        json_object_set_null_member (marks, relay_mark_to_string (m));
    }
  _relay_json_add_unknown (marks, self->marks_extras);
  json_object_set_object_member (object, "marks_us", marks);

  chunks = json_array_sized_new (self->chunks->len);
  for (guint i = 0; i < self->chunks->len; i++)
    {
      const RelayChunk *chunk = &g_array_index (self->chunks, RelayChunk, i);
      JsonArray *tuple = json_array_sized_new (4);
      const char *kind = chunk->kind <= RELAY_CHUNK_TOOL ? relay_chunk_kind_to_string (chunk->kind)
                                                         : "content";

      json_array_add_int_element (tuple, chunk->t_us);
      json_array_add_string_element (tuple, kind);
      json_array_add_int_element (tuple, chunk->bytes);
      json_array_add_int_element (tuple, chunk->chars);
      json_array_add_array_element (chunks, tuple);
    }
  json_object_set_array_member (object, "chunks", chunks);

  usage = json_object_new ();
  set_count (usage, "prompt_tokens", self->usage.prompt_tokens);
  set_count (usage, "cached_prompt_tokens", self->usage.cached_prompt_tokens);
  set_count (usage, "completion_tokens", self->usage.completion_tokens);
  set_count (usage, "reasoning_tokens", self->usage.reasoning_tokens);
  json_object_set_boolean_member (usage, "estimated", self->usage.estimated);
  _relay_json_add_unknown (usage, self->usage_extras);
  json_object_set_object_member (object, "usage", usage);

  http = json_object_new ();
  json_object_set_int_member (http, "status", self->http_status);
  _relay_json_set_string (http, "version", self->http_version);
  json_object_set_boolean_member (http, "reused", self->reused);
  _relay_json_set_string (http, "remote", self->remote);
  _relay_json_set_string (http, "tls", self->tls_version);
  _relay_json_set_string (http, "cipher", self->cipher);
  json_object_set_int_member (http, "connect_attempts", self->connect_attempts);
  _relay_json_add_unknown (http, self->http_extras);
  json_object_set_object_member (object, "http", http);

  /* A header received twice is written once, its values joined as HTTP allows. */
  server = json_object_new ();
  for (guint i = 0; i + 1 < self->server_headers->len; i += 2)
    {
      const char *name = g_ptr_array_index (self->server_headers, i);
      const char *value = g_ptr_array_index (self->server_headers, i + 1);
      const char *previous = json_object_get_string_member_with_default (server, name, NULL);

      if (previous != NULL)
        {
          g_autofree char *joined = g_strconcat (previous, ", ", value, NULL);
          json_object_set_string_member (server, name, joined);
        }
      else
        json_object_set_string_member (server, name, value);
    }
  json_object_set_object_member (object, "server", server);

  _relay_json_set_string (object, "model_reported", self->model_reported);

  raw = json_array_sized_new (self->raw_events->len - 1);
  for (guint i = 0; i + 1 < self->raw_events->len; i++)
    json_array_add_string_element (raw, g_ptr_array_index (self->raw_events, i));
  json_object_set_array_member (object, "raw_events", raw);

  if (self->error_stage != RELAY_ERROR_STAGE_NONE)
    {
      JsonObject *error = json_object_new ();

      json_object_set_string_member (error, "stage", relay_error_stage_to_string (self->error_stage));
      _relay_json_set_string (error, "kind", self->error_kind);
      _relay_json_set_string (error, "message", self->error_message);
      _relay_json_add_unknown (error, self->error_extras);
      json_object_set_object_member (object, "error", error);
    }
  else
    json_object_set_null_member (object, "error");

  _relay_json_add_unknown (object, self->extras);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, object);

  return node;
}

static gboolean
read_marks (RelayTrace  *self,
            JsonObject  *marks,
            GError     **error)
{
  g_autoptr(GStrvBuilder) known = g_strv_builder_new ();
  g_auto(GStrv) names = NULL;

  for (guint m = 0; m < RELAY_N_MARKS; m++)
    {
      const char *name = relay_mark_to_string (m);
      gint64 value;

      /* A mark left out is a mark not observed, as null is. */
      if (!_relay_json_get_int (marks, "marks_us.", name, -MAX_FILE_TIME_US, MAX_FILE_TIME_US,
                                RELAY_TIME_NONE, &value, error))
        return FALSE;

      self->marks[m] = value;
      g_strv_builder_add (known, name);
    }

  names = g_strv_builder_end (known);
  self->marks_extras = _relay_json_collect_unknown (marks, (const char * const *) names);

  return TRUE;
}

static gboolean
read_chunks (RelayTrace  *self,
             JsonArray   *chunks,
             GError     **error)
{
  guint n = json_array_get_length (chunks);

  g_array_set_size (self->chunks, 0);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (chunks, i);
      JsonArray *tuple;
      JsonNode *t, *kind, *bytes, *chars;
      RelayChunkKind k;
      gint64 vt, vb, vc;

      if (!JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (json_node_get_array (node)) != 4)
        {
          g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                       "chunks[%u] is not a list of 4 items", i);
          return FALSE;
        }

      tuple = json_node_get_array (node);
      t = json_array_get_element (tuple, 0);
      kind = json_array_get_element (tuple, 1);
      bytes = json_array_get_element (tuple, 2);
      chars = json_array_get_element (tuple, 3);

      if (!_relay_json_is_int (t) || !_relay_json_is_int (bytes) || !_relay_json_is_int (chars))
        {
          g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                       "chunks[%u] has a time, bytes or characters that is not a number", i);
          return FALSE;
        }

      vt = json_node_get_int (t);
      vb = json_node_get_int (bytes);
      vc = json_node_get_int (chars);

      if (vt < -MAX_FILE_TIME_US || vt > MAX_FILE_TIME_US ||
          vb < 0 || vb > G_MAXUINT32 || vc < 0 || vc > G_MAXUINT32)
        {
          g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                       "chunks[%u] has a number out of range", i);
          return FALSE;
        }

      if (!JSON_NODE_HOLDS_VALUE (kind) ||
          json_node_get_value_type (kind) != G_TYPE_STRING ||
          !relay_chunk_kind_from_string (json_node_get_string (kind), &k))
        {
          g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                       "chunks[%u] has an unknown kind", i);
          return FALSE;
        }

      relay_trace_add_chunk (self, vt, k, (guint32) vb, (guint32) vc);
    }

  return TRUE;
}

static gboolean
read_usage (RelayTrace  *self,
            JsonObject  *usage,
            GError     **error)
{
  RelayUsage u = RELAY_USAGE_INIT;

  if (!_relay_json_get_int (usage, "usage.", "prompt_tokens", 0, G_MAXINT64, -1,
                            &u.prompt_tokens, error) ||
      !_relay_json_get_int (usage, "usage.", "cached_prompt_tokens", 0, G_MAXINT64, -1,
                            &u.cached_prompt_tokens, error) ||
      !_relay_json_get_int (usage, "usage.", "completion_tokens", 0, G_MAXINT64, -1,
                            &u.completion_tokens, error) ||
      !_relay_json_get_int (usage, "usage.", "reasoning_tokens", 0, G_MAXINT64, -1,
                            &u.reasoning_tokens, error) ||
      !_relay_json_get_bool (usage, "usage.", "estimated", &u.estimated, error))
    return FALSE;

  self->usage = u;
  self->usage_extras = _relay_json_collect_unknown (usage, usage_members);

  return TRUE;
}

static gboolean
read_http (RelayTrace  *self,
           JsonObject  *http,
           GError     **error)
{
  gint64 status;
  gint64 attempts;
  const char *version;
  const char *remote;
  const char *tls;
  const char *cipher;
  gboolean reused;

  if (!_relay_json_get_int (http, "http.", "status", 0, G_MAXUINT, 0, &status, error) ||
      !_relay_json_get_string (http, "http.", "version", &version, error) ||
      !_relay_json_get_bool (http, "http.", "reused", &reused, error) ||
      !_relay_json_get_string (http, "http.", "remote", &remote, error) ||
      !_relay_json_get_string (http, "http.", "tls", &tls, error) ||
      !_relay_json_get_string (http, "http.", "cipher", &cipher, error) ||
      !_relay_json_get_int (http, "http.", "connect_attempts", 0, G_MAXUINT, 0, &attempts, error))
    return FALSE;

  self->http_status = (guint) status;
  self->reused = reused;
  self->connect_attempts = (guint) attempts;
  _relay_str_set (&self->http_version, version);
  _relay_str_set (&self->remote, remote);
  _relay_str_set (&self->tls_version, tls);
  _relay_str_set (&self->cipher, cipher);
  self->http_extras = _relay_json_collect_unknown (http, http_members);

  return TRUE;
}

static gboolean
read_server (RelayTrace  *self,
             JsonObject  *server,
             GError     **error)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  json_object_iter_init_ordered (&iter, server);

  while (json_object_iter_next_ordered (&iter, &name, &node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        {
          g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                       "server.%s is not a string", name);
          return FALSE;
        }

      relay_trace_add_server_header (self, name, json_node_get_string (node));
    }

  return TRUE;
}

static gboolean
read_raw_events (RelayTrace  *self,
                 JsonArray   *raw,
                 GError     **error)
{
  guint n = json_array_get_length (raw);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (raw, i);

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        {
          g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                       "raw_events[%u] is not a string", i);
          return FALSE;
        }

      take_raw_event (self, g_strdup (json_node_get_string (node)));
    }

  return TRUE;
}

static gboolean
read_error (RelayTrace  *self,
            JsonObject  *err,
            GError     **error)
{
  const char *stage_name;
  const char *kind;
  const char *message;
  RelayErrorStage stage;

  if (!_relay_json_require_string (err, "error.", "stage", &stage_name, error) ||
      !_relay_json_get_string (err, "error.", "kind", &kind, error) ||
      !_relay_json_get_string (err, "error.", "message", &message, error))
    return FALSE;

  if (!relay_error_stage_from_string (stage_name, &stage))
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "error.stage “%s” is not a known stage", stage_name);
      return FALSE;
    }

  relay_trace_set_error (self, stage, kind, message);
  self->error_extras = _relay_json_collect_unknown (err, error_members);

  return TRUE;
}

RelayTrace *
relay_trace_new_from_json (JsonNode  *node,
                           GError   **error)
{
  g_autoptr(RelayTrace) self = NULL;
  g_autoptr(GDateTime) wall_start = NULL;
  JsonObject *object;
  JsonObject *marks;
  JsonArray *chunks;
  JsonObject *usage;
  JsonObject *http;
  JsonObject *server;
  JsonArray *raw;
  JsonObject *err;
  const char *model;
  gint64 run;
  gint64 seq;

  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                           "not an object");
      return NULL;
    }

  object = json_node_get_object (node);

  if (!_relay_json_get_int (object, "", "run", 0, G_MAXUINT, 0, &run, error) ||
      !_relay_json_get_int (object, "", "seq", 0, G_MAXUINT, 0, &seq, error) ||
      !_relay_json_get_time (object, "", "wall_start", &wall_start, error) ||
      !_relay_json_get_object (object, "", "marks_us", &marks, error) ||
      !_relay_json_get_array (object, "", "chunks", &chunks, error) ||
      !_relay_json_get_object (object, "", "usage", &usage, error) ||
      !_relay_json_get_object (object, "", "http", &http, error) ||
      !_relay_json_get_object (object, "", "server", &server, error) ||
      !_relay_json_get_string (object, "", "model_reported", &model, error) ||
      !_relay_json_get_array (object, "", "raw_events", &raw, error) ||
      !_relay_json_get_object (object, "", "error", &err, error))
    return NULL;

  self = relay_trace_new ((guint) run, (guint) seq);
  relay_trace_set_wall_start (self, wall_start);
  relay_trace_set_model_reported (self, model);

  if (marks != NULL && !read_marks (self, marks, error))
    return NULL;
  if (chunks != NULL && !read_chunks (self, chunks, error))
    return NULL;
  if (usage != NULL && !read_usage (self, usage, error))
    return NULL;
  if (http != NULL && !read_http (self, http, error))
    return NULL;
  if (server != NULL && !read_server (self, server, error))
    return NULL;
  if (raw != NULL && !read_raw_events (self, raw, error))
    return NULL;
  if (err != NULL && !read_error (self, err, error))
    return NULL;

  self->extras = _relay_json_collect_unknown (object, trace_members);

  return g_steal_pointer (&self);
}
