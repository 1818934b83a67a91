/* relay-prober.c: runs probe plans with libsoup and reports traces as they progress.
 *
 * Each probe in flight has a thread of its own that does blocking I/O: the kernel wakes it
 * the moment bytes arrive, so a stamp is not delayed by a main loop walking hundreds of
 * other sources, nor by a busy UI. Probes build a private "shadow" RelayTrace; the caller's
 * public traces are updated from messages posted to its main context, in order. A
 * coordinator thread looks up keys, starts the lanes and enforces timeouts.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <libsoup/soup.h>
#include <string.h>

#include "relay-dialect.h"
#include "relay-prober.h"
#include "relay-sse-parser.h"

#define READ_BUFFER_SIZE   (64 * 1024)
#define ERROR_BODY_MAX     (64 * 1024)
#define POST_INTERVAL_US   (20 * 1000)
#define DONE_GRACE_MS      2000
#define MAX_LANES          1024
#define RAW_EVENTS_KEPT    32     /* as many as RelayTrace keeps */

struct _RelayProber
{
  GObject         parent_instance;

  RelayKeyFunc    key_func;
  gpointer        key_data;
  GDestroyNotify  key_destroy;
};

G_DEFINE_FINAL_TYPE (RelayProber, relay_prober, G_TYPE_OBJECT)

enum {
  TRACE_ADDED,
  TRACE_CHANGED,
  TRACE_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* What the worker needs of an endpoint, copied in the caller's thread. */
typedef struct
{
  RelayEndpoint *copy;       /* handed to the key function, owned by the worker */
  char          *name;
  char          *url;        /* the streaming request's URL */
  char          *models_url; /* for warm-up */
  char          *host;
  RelayApi       api;
  char         **headers;
  char          *ca_file;
  char          *proxy;
  char          *key;        /* looked up on the worker thread */
  char          *key_env;
  GTlsDatabase  *extra_ca;   /* worker only */
  char          *ca_error;   /* why the CA file could not be read, worker only */
  SoupSession   *warm;       /* worker only */
} EndpointSpec;

typedef struct
{
  EndpointSpec *endpoint;
  char         *model;
  guint         run_index;
  guint         seq;
  guint         index;
} Job;

typedef struct _RunData RunData;

typedef enum
{
  MSG_ADDED,
  MSG_PROGRESS,
  MSG_FINISHED,
  MSG_DONE,
} MsgType;

typedef struct
{
  MsgType     type;
  guint       job;
  gint64      marks[RELAY_N_MARKS];
  GArray     *chunks;       /* MSG_PROGRESS: chunks since the last message */
  GArray     *sent;         /* … and their senders' stamps (gint64, -1 unknown) */
  RelayTrace *shadow;       /* MSG_ADDED (for wall/mono start) and MSG_FINISHED */
} Msg;

struct _RunData
{
  gatomicrefcount  ref;

  /* caller's thread */
  RelayProber     *prober;
  RelaySession    *session;
  GTask           *task;
  GHashTable      *traces;       /* job index → RelayTrace */
  GMainContext    *caller_ctx;

  /* immutable once the worker runs */
  GPtrArray       *endpoints;    /* EndpointSpec */
  GPtrArray       *jobs;         /* Job */
  char            *prompt;
  char            *reasoning_effort;
  guint            max_tokens;
  guint            concurrency;
  double           rate;
  double           timeout;
  gsize            max_line;
  RelayConnection  connection;
  GCancellable    *cancellable;
  RelayKeyFunc     key_func;
  gpointer         key_data;

  /* worker threads; the fields below are guarded by lock */
  GThread         *thread;       /* the coordinator */
  GMutex           lock;
  GCond            cond;
  GPtrArray       *probes;       /* in flight */
  guint            next_job;
  guint            lanes_running;
  gint64           next_start_us;
  gboolean         cancelled;
  gulong           cancel_id;
  GPtrArray       *lane_cancellables;

  /* between them */
  GAsyncQueue     *queue;
  gint             drain_pending;
};

typedef struct
{
  RunData             *run;
  Job                 *job;
  SoupSession         *session;
  SoupMessage         *msg;
  GCancellable        *cancellable;
  GInputStream        *stream;
  RelaySseParser      *parser;
  RelayTrace          *shadow;
  gint64               deadline;   /* monotonic; 0 for none; guarded by run->lock */
  gint64               grace_deadline;
  GString             *error_body;
  GArray              *pending;
  GArray              *pending_sent;
  guint8              *buffer;
  GHashTable          *warm;       /* the lane's keep-alive sessions, by endpoint */
  gint64               t0;
  gint64               last_post;
  gint64               now;        /* stamp of the read being parsed */
  RelayUsage           usage;
  GTlsCertificateFlags tls_errors;
  guint                attempts;
  gint                 timed_out;   /* set by the coordinator */
  gboolean             eof;
  gboolean             saw_done;
  gboolean             saw_usage;
  gboolean             stop_reading;
} Probe;

/* Latency headers worth keeping (lower case); x-ratelimit-* and anthropic-ratelimit-* too. */
static const char * const latency_headers[] = {
  "server-timing", "openai-processing-ms", "x-envoy-upstream-service-time", "x-request-id",
  "request-id", "retry-after", "via", "cf-ray", "server", "openai-model", "x-cache",
  "age", "content-type", "content-encoding", "transfer-encoding",
};

static void
endpoint_spec_free (gpointer data)
{
  EndpointSpec *spec = data;

  g_clear_object (&spec->copy);
  g_free (spec->name);
  g_free (spec->url);
  g_free (spec->models_url);
  g_free (spec->host);
  g_strfreev (spec->headers);
  g_free (spec->ca_file);
  g_free (spec->proxy);
  if (spec->key != NULL)
    memset (spec->key, 0, strlen (spec->key));
  g_free (spec->key);
  g_free (spec->key_env);
  g_clear_object (&spec->extra_ca);
  g_free (spec->ca_error);
  g_clear_object (&spec->warm);
  g_free (spec);
}

static void
job_free (gpointer data)
{
  Job *job = data;

  g_free (job->model);
  g_free (job);
}

static RunData *
run_data_ref (RunData *run)
{
  g_atomic_ref_count_inc (&run->ref);
  return run;
}

static void
msg_free (Msg *msg)
{
  g_clear_pointer (&msg->chunks, g_array_unref);
  g_clear_pointer (&msg->sent, g_array_unref);
  g_clear_object (&msg->shadow);
  g_free (msg);
}

static void
run_data_unref (RunData *run)
{
  Msg *msg;

  if (!g_atomic_ref_count_dec (&run->ref))
    return;

  g_assert (run->probes == NULL || run->probes->len == 0);
  g_assert (run->thread == NULL);

  while ((msg = g_async_queue_try_pop (run->queue)) != NULL)
    msg_free (msg);

  g_clear_object (&run->prober);
  g_clear_object (&run->session);
  g_clear_pointer (&run->traces, g_hash_table_unref);
  g_clear_pointer (&run->caller_ctx, g_main_context_unref);
  g_clear_pointer (&run->jobs, g_ptr_array_unref);
  g_clear_pointer (&run->endpoints, g_ptr_array_unref);
  g_clear_pointer (&run->probes, g_ptr_array_unref);
  g_clear_pointer (&run->lane_cancellables, g_ptr_array_unref);
  g_free (run->prompt);
  g_free (run->reasoning_effort);
  g_clear_object (&run->cancellable);
  g_clear_pointer (&run->queue, g_async_queue_unref);
  g_mutex_clear (&run->lock);
  g_cond_clear (&run->cond);
  g_free (run);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RunData, run_data_unref)

/* ---------------------------------------------------------------------------------------
 * Caller's side: apply the worker's messages to the public traces, in order.
 */

static void
copy_marks (RelayTrace   *trace,
            const gint64 *marks)
{
  for (guint m = 0; m < RELAY_N_MARKS; m++)
    {
      if (relay_trace_get_mark (trace, m) != marks[m])
        relay_trace_set_mark (trace, m, marks[m]);
    }
}

static void
copy_final (RelayTrace *trace,
            RelayTrace *shadow)
{
  const RelayChunk *chunks;
  const char * const *pairs;
  const char * const *raw;
  guint n_chunks;
  guint have = relay_trace_get_n_chunks (trace);

  for (guint m = 0; m < RELAY_N_MARKS; m++)
    relay_trace_set_mark (trace, m, relay_trace_get_mark (shadow, m));

  chunks = relay_trace_get_chunks (shadow, &n_chunks);
  for (guint i = have; i < n_chunks; i++)
    relay_trace_add_chunk (trace, chunks[i].t_us, chunks[i].kind, chunks[i].bytes, chunks[i].chars);
  for (guint i = 0; i < n_chunks; i++)
    {
      gint64 sent = relay_trace_get_chunk_sent (shadow, i);

      if (sent >= 0)
        relay_trace_set_chunk_sent (trace, i, sent);
    }

  relay_trace_set_usage (trace, relay_trace_get_usage (shadow));
  relay_trace_set_http_status (trace, relay_trace_get_http_status (shadow));
  relay_trace_set_http_version (trace, relay_trace_get_http_version (shadow));
  relay_trace_set_reused (trace, relay_trace_get_reused (shadow));
  relay_trace_set_remote (trace, relay_trace_get_remote (shadow));
  relay_trace_set_tls_version (trace, relay_trace_get_tls_version (shadow));
  relay_trace_set_cipher (trace, relay_trace_get_cipher (shadow));
  relay_trace_set_connect_attempts (trace, relay_trace_get_connect_attempts (shadow));
  relay_trace_set_model_reported (trace, relay_trace_get_model_reported (shadow));

  pairs = relay_trace_get_server_headers (shadow);
  for (guint i = 0; pairs != NULL && pairs[i] != NULL && pairs[i + 1] != NULL; i += 2)
    relay_trace_add_server_header (trace, pairs[i], pairs[i + 1]);

  raw = relay_trace_get_raw_events (shadow);
  for (guint i = 0; raw != NULL && raw[i] != NULL; i++)
    relay_trace_add_raw_event (trace, NULL, raw[i]);

  relay_trace_set_error (trace,
                         relay_trace_get_error_stage (shadow),
                         relay_trace_get_error_kind (shadow),
                         relay_trace_get_error_message (shadow));
}

static void
apply_msg (RunData *run,
           Msg     *msg)
{
  RelayTrace *trace;

  switch (msg->type)
    {
    case MSG_ADDED:
      {
        Job *job = g_ptr_array_index (run->jobs, msg->job);
        g_autoptr(RelayTrace) created = relay_trace_new (job->run_index, job->seq);

        relay_trace_set_wall_start (created, relay_trace_get_wall_start (msg->shadow));
        relay_trace_set_mono_start (created, relay_trace_get_mono_start (msg->shadow));
        g_hash_table_insert (run->traces, GUINT_TO_POINTER (msg->job), g_object_ref (created));
        relay_session_add_trace (run->session, created);
        g_signal_emit (run->prober, signals[TRACE_ADDED], 0, created);
      }
      break;

    case MSG_PROGRESS:
      trace = g_hash_table_lookup (run->traces, GUINT_TO_POINTER (msg->job));
      g_assert (trace != NULL);
      copy_marks (trace, msg->marks);
      for (guint i = 0; msg->chunks != NULL && i < msg->chunks->len; i++)
        {
          const RelayChunk *c = &g_array_index (msg->chunks, RelayChunk, i);
          gint64 sent = g_array_index (msg->sent, gint64, i);

          relay_trace_add_chunk (trace, c->t_us, c->kind, c->bytes, c->chars);
          if (sent >= 0)
            relay_trace_set_chunk_sent (trace, relay_trace_get_n_chunks (trace) - 1, sent);
        }
      relay_trace_emit_changed (trace);
      g_signal_emit (run->prober, signals[TRACE_CHANGED], 0, trace);
      break;

    case MSG_FINISHED:
      trace = g_hash_table_lookup (run->traces, GUINT_TO_POINTER (msg->job));
      g_assert (trace != NULL);
      copy_final (trace, msg->shadow);
      relay_session_set_modified (run->session, TRUE);
      relay_trace_emit_changed (trace);
      g_signal_emit (run->prober, signals[TRACE_CHANGED], 0, trace);
      g_signal_emit (run->prober, signals[TRACE_FINISHED], 0, trace);
      break;

    case MSG_DONE:
      {
        g_autoptr(GTask) task = g_steal_pointer (&run->task);

        g_cancellable_disconnect (run->cancellable, run->cancel_id);
        run->cancel_id = 0;
        g_thread_join (g_steal_pointer (&run->thread));

        if (run->cancelled || g_cancellable_is_cancelled (run->cancellable))
          g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                   _("The probe run was stopped"));
        else
          g_task_return_boolean (task, TRUE);
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

static gboolean
drain_cb (gpointer user_data)
{
  RunData *run = user_data;
  Msg *msg;

  g_atomic_int_set (&run->drain_pending, 0);

  while ((msg = g_async_queue_try_pop (run->queue)) != NULL)
    {
      apply_msg (run, msg);
      msg_free (msg);
    }

  return G_SOURCE_REMOVE;
}

static void
post (RunData *run,
      Msg     *msg)
{
  g_async_queue_push (run->queue, msg);

  if (g_atomic_int_compare_and_exchange (&run->drain_pending, 0, 1))
    {
      g_autoptr(GSource) source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source, drain_cb, run_data_ref (run), (GDestroyNotify) run_data_unref);
      g_source_set_static_name (source, "[relayscope] prober results");
      g_source_attach (source, run->caller_ctx);
    }
}

static Msg *
msg_new (MsgType type,
         Probe  *probe)
{
  Msg *msg = g_new0 (Msg, 1);

  msg->type = type;
  if (probe != NULL)
    {
      msg->job = probe->job->index;
      for (guint m = 0; m < RELAY_N_MARKS; m++)
        msg->marks[m] = relay_trace_get_mark (probe->shadow, m);
    }

  return msg;
}

static void
probe_post_progress (Probe    *probe,
                     gboolean  force)
{
  Msg *msg;

  if (!force && probe->now - probe->last_post < POST_INTERVAL_US)
    return;

  msg = msg_new (MSG_PROGRESS, probe);
  if (probe->pending->len > 0)
    {
      msg->chunks = g_steal_pointer (&probe->pending);
      msg->sent = g_steal_pointer (&probe->pending_sent);
      probe->pending = g_array_sized_new (FALSE, FALSE, sizeof (RelayChunk), 64);
      probe->pending_sent = g_array_sized_new (FALSE, FALSE, sizeof (gint64), 64);
    }
  probe->last_post = probe->now;
  post (probe->run, msg);
}

/* ---------------------------------------------------------------------------------------
 * Worker's side: probes.
 */

static inline gint64
probe_since_start (Probe  *probe,
                   gint64  mono)
{
  return mono - probe->t0;
}

static void
probe_mark (Probe     *probe,
            RelayMark  mark,
            gint64     mono)
{
  relay_trace_set_mark (probe->shadow, mark, probe_since_start (probe, mono));
}

static void
probe_mark_once (Probe     *probe,
                 RelayMark  mark,
                 gint64     mono)
{
  if (!relay_trace_has_mark (probe->shadow, mark))
    probe_mark (probe, mark, mono);
}

static void
probe_free (Probe *probe)
{
  g_clear_object (&probe->stream);
  g_clear_object (&probe->msg);
  g_clear_object (&probe->session);
  g_clear_object (&probe->cancellable);
  g_clear_pointer (&probe->parser, relay_sse_parser_free);
  g_clear_object (&probe->shadow);
  if (probe->error_body != NULL)
    g_string_free (probe->error_body, TRUE);
  g_clear_pointer (&probe->pending, g_array_unref);
  g_clear_pointer (&probe->pending_sent, g_array_unref);
  g_free (probe->buffer);
  g_free (probe);
}

/* Some servers quote the key they refused ("Incorrect API key provided: sk-…"), whole or
 * masked: whatever comes from the server is cleaned of the key, and of any token that starts
 * like it, before it is kept anywhere. Returns a new string, or NULL when text is clean. */
static char *
redact_key (const char *text,
            const char *key)
{
  g_autoptr(GString) out = NULL;
  gsize key_len, prefix_len;
  const char *p;

  if (text == NULL || key == NULL || (key_len = strlen (key)) < 8)
    return NULL;
  prefix_len = MIN (key_len, 12);
  if (memmem (text, strlen (text), key, prefix_len) == NULL)
    return NULL;

  for (p = text; *p != '\0'; )
    {
      if (strncmp (p, key, prefix_len) == 0)
        {
          if (out == NULL)
            out = g_string_new_len (text, p - text);
          g_string_append (out, "[redacted]");
          if (strncmp (p, key, key_len) == 0)
            p += key_len;
          while (*p != '\0' && !g_ascii_isspace (*p) && strchr ("\"',;)}]<>", *p) == NULL)
            p++;
          continue;
        }
      if (out != NULL)
        g_string_append_c (out, *p);
      p++;
    }

  return out != NULL ? g_string_free (g_steal_pointer (&out), FALSE) : NULL;
}

static void
probe_fail (Probe           *probe,
            RelayErrorStage  stage,
            const char      *kind,
            const char      *message)
{
  /* The first failure explains; later ones are consequences of it. */
  if (relay_trace_get_error_stage (probe->shadow) != RELAY_ERROR_STAGE_NONE)
    return;

  {
    g_autofree char *clean = redact_key (message, probe->job->endpoint->key);

    relay_trace_set_error (probe->shadow, stage, kind, clean != NULL ? clean : message);
  }
}

static const char *
tls_version_name (GTlsProtocolVersion version)
{
  switch (version)
    {
    case G_TLS_PROTOCOL_VERSION_SSL_3_0: return "SSL 3.0";
    case G_TLS_PROTOCOL_VERSION_TLS_1_0: return "TLS 1.0";
    case G_TLS_PROTOCOL_VERSION_TLS_1_1: return "TLS 1.1";
    case G_TLS_PROTOCOL_VERSION_TLS_1_2: return "TLS 1.2";
    case G_TLS_PROTOCOL_VERSION_TLS_1_3: return "TLS 1.3";
    case G_TLS_PROTOCOL_VERSION_DTLS_1_0: return "DTLS 1.0";
    case G_TLS_PROTOCOL_VERSION_DTLS_1_2: return "DTLS 1.2";
    case G_TLS_PROTOCOL_VERSION_UNKNOWN:
    default:
      return NULL;
    }
}

/* Every problem of the certificate, most fundamental first; *kind names the first. */
static char *
describe_tls_errors (GTlsCertificateFlags   flags,
                     const char            *host,
                     const char           **kind)
{
  g_autoptr(GString) message = g_string_new (NULL);

  *kind = NULL;

  if (flags & G_TLS_CERTIFICATE_EXPIRED)
    {
      *kind = "expired-certificate";
      g_string_append_printf (message, _("The certificate of %s has expired: the server's "
                                         "operator must renew it (or this machine's clock is "
                                         "wrong). "), host);
    }
  if (flags & G_TLS_CERTIFICATE_NOT_ACTIVATED)
    {
      *kind = *kind ? *kind : "certificate-not-yet-valid";
      g_string_append_printf (message, _("The certificate of %s is not valid yet: check this "
                                         "machine's clock. "), host);
    }
  if (flags & G_TLS_CERTIFICATE_REVOKED)
    {
      *kind = *kind ? *kind : "revoked-certificate";
      g_string_append_printf (message, _("The certificate of %s has been revoked. "), host);
    }
  if (flags & G_TLS_CERTIFICATE_BAD_IDENTITY)
    {
      *kind = *kind ? *kind : "wrong-host-certificate";
      g_string_append_printf (message, _("The certificate presented by %s is for another host "
                                         "name: check the base URL's host. "), host);
    }
  if (flags & G_TLS_CERTIFICATE_INSECURE)
    {
      *kind = *kind ? *kind : "insecure-certificate";
      g_string_append_printf (message, _("The certificate of %s uses an insecure algorithm. "), host);
    }
  if (flags & G_TLS_CERTIFICATE_UNKNOWN_CA)
    {
      *kind = *kind ? *kind : "untrusted-certificate";
      g_string_append_printf (message, _("The certificate of %s is not signed by a trusted "
                                         "authority (self-signed or a private CA): if you trust "
                                         "it, pass its CA certificate with --ca-file or the "
                                         "endpoint's CA file. "), host);
    }
  if (*kind == NULL)
    {
      *kind = "bad-certificate";
      g_string_append_printf (message, _("The certificate of %s was rejected. "), host);
    }

  g_strchomp (message->str);
  return g_strdup (message->str);
}

/* An extra CA is trusted in addition to the system's, so verify against it only what the
 * system store could not. Returns the remaining errors. */
static GTlsCertificateFlags
verify_with_extra_ca (EndpointSpec         *endpoint,
                      GTlsCertificate      *certificate,
                      GTlsCertificateFlags  errors)
{
  g_autoptr(GSocketConnectable) identity = NULL;

  if (endpoint->extra_ca == NULL || !(errors & G_TLS_CERTIFICATE_UNKNOWN_CA))
    return errors;

  identity = g_network_address_new (endpoint->host, 0);
  return g_tls_database_verify_chain (endpoint->extra_ca, certificate,
                                      G_TLS_DATABASE_PURPOSE_AUTHENTICATE_SERVER,
                                      identity, NULL, G_TLS_DATABASE_VERIFY_NONE, NULL, NULL);
}

static gboolean
on_accept_certificate (SoupMessage          *msg,
                       GTlsCertificate      *certificate,
                       GTlsCertificateFlags  errors,
                       gpointer              user_data)
{
  Probe *probe = user_data;

  probe->tls_errors = verify_with_extra_ca (probe->job->endpoint, certificate, errors);
  return probe->tls_errors == 0;
}

static gboolean
on_warm_accept_certificate (SoupMessage          *msg,
                            GTlsCertificate      *certificate,
                            GTlsCertificateFlags  errors,
                            gpointer              user_data)
{
  return verify_with_extra_ca (user_data, certificate, errors) == 0;
}

static void
on_network_event (SoupMessage        *msg,
                  GSocketClientEvent  event,
                  GIOStream          *connection,
                  gpointer            user_data)
{
  Probe *probe = user_data;
  gint64 now = g_get_monotonic_time ();

  switch (event)
    {
    case G_SOCKET_CLIENT_RESOLVING:
      probe_mark_once (probe, RELAY_MARK_DNS_START, now);
      break;
    case G_SOCKET_CLIENT_RESOLVED:
      probe_mark (probe, RELAY_MARK_DNS_END, now);
      break;
    case G_SOCKET_CLIENT_CONNECTING:
      probe->attempts++;
      probe_mark_once (probe, RELAY_MARK_CONNECT_START, now);
      break;
    case G_SOCKET_CLIENT_CONNECTED:
      probe_mark (probe, RELAY_MARK_TCP_END, now);
      break;
    case G_SOCKET_CLIENT_PROXY_NEGOTIATING:
      probe_mark_once (probe, RELAY_MARK_PROXY_START, now);
      break;
    case G_SOCKET_CLIENT_PROXY_NEGOTIATED:
      probe_mark (probe, RELAY_MARK_PROXY_END, now);
      break;
    case G_SOCKET_CLIENT_TLS_HANDSHAKING:
      probe_mark_once (probe, RELAY_MARK_TLS_START, now);
      break;
    case G_SOCKET_CLIENT_TLS_HANDSHAKED:
      probe_mark (probe, RELAY_MARK_TLS_END, now);
      break;
    case G_SOCKET_CLIENT_COMPLETE:
    default:
      break;
    }

  probe->now = now;
  probe_post_progress (probe, FALSE);
}

static void
on_wrote_body (SoupMessage *msg,
               gpointer     user_data)
{
  Probe *probe = user_data;

  probe_mark (probe, RELAY_MARK_REQUEST_END, g_get_monotonic_time ());
}

static gboolean
is_latency_header (const char *lower)
{
  if (g_str_has_prefix (lower, "x-ratelimit-") || g_str_has_prefix (lower, "anthropic-ratelimit-"))
    return TRUE;

  for (guint i = 0; i < G_N_ELEMENTS (latency_headers); i++)
    if (strcmp (lower, latency_headers[i]) == 0)
      return TRUE;

  return FALSE;
}

static void
probe_record_response (Probe *probe)
{
  SoupMessageHeaders *headers = soup_message_get_response_headers (probe->msg);
  SoupMessageMetrics *metrics = soup_message_get_metrics (probe->msg);
  SoupMessageHeadersIter iter;
  GSocketAddress *remote;
  const char *name, *value;
  const char *tls;

  if (metrics != NULL)
    {
      guint64 dns_start = soup_message_metrics_get_dns_start (metrics);
      guint64 dns_end = soup_message_metrics_get_dns_end (metrics);
      guint64 request_start = soup_message_metrics_get_request_start (metrics);
      guint64 response_start = soup_message_metrics_get_response_start (metrics);

      /* libsoup reports resolution in its metrics even where no RESOLVING event reached us. */
      if (!relay_trace_has_mark (probe->shadow, RELAY_MARK_DNS_START) && dns_start > 0 && dns_end >= dns_start)
        {
          probe_mark (probe, RELAY_MARK_DNS_START, dns_start);
          probe_mark (probe, RELAY_MARK_DNS_END, dns_end);
        }
      if (request_start > 0)
        probe_mark (probe, RELAY_MARK_REQUEST_START, request_start);
      if (response_start > 0)
        probe_mark (probe, RELAY_MARK_RESPONSE_START, response_start);
    }

  if (!relay_trace_has_mark (probe->shadow, RELAY_MARK_RESPONSE_START))
    probe_mark (probe, RELAY_MARK_RESPONSE_START, g_get_monotonic_time ());

  relay_trace_set_http_status (probe->shadow, soup_message_get_status (probe->msg));
  switch (soup_message_get_http_version (probe->msg))
    {
    case SOUP_HTTP_1_0: relay_trace_set_http_version (probe->shadow, "HTTP/1.0"); break;
    case SOUP_HTTP_1_1: relay_trace_set_http_version (probe->shadow, "HTTP/1.1"); break;
    case SOUP_HTTP_2_0: relay_trace_set_http_version (probe->shadow, "HTTP/2"); break;
    default: break;
    }

  relay_trace_set_reused (probe->shadow, probe->attempts == 0);
  relay_trace_set_connect_attempts (probe->shadow, probe->attempts);

  remote = soup_message_get_remote_address (probe->msg);
  if (G_IS_INET_SOCKET_ADDRESS (remote))
    {
      GInetAddress *addr = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (remote));
      guint16 port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (remote));
      g_autofree char *ip = g_inet_address_to_string (addr);
      g_autofree char *str = NULL;

      if (g_inet_address_get_family (addr) == G_SOCKET_FAMILY_IPV6)
        str = g_strdup_printf ("[%s]:%u", ip, port);
      else
        str = g_strdup_printf ("%s:%u", ip, port);
      relay_trace_set_remote (probe->shadow, str);
    }

  if ((tls = tls_version_name (soup_message_get_tls_protocol_version (probe->msg))) != NULL)
    relay_trace_set_tls_version (probe->shadow, tls);
  relay_trace_set_cipher (probe->shadow, soup_message_get_tls_ciphersuite_name (probe->msg));

  soup_message_headers_iter_init (&iter, headers);
  while (soup_message_headers_iter_next (&iter, &name, &value))
    {
      g_autofree char *lower = g_ascii_strdown (name, -1);

      if (is_latency_header (lower))
        {
          g_autofree char *clean = redact_key (value, probe->job->endpoint->key);

          relay_trace_add_server_header (probe->shadow, lower, clean != NULL ? clean : value);
        }
    }
}

/* Hands the trace to the caller and forgets the probe. Runs on the probe's lane. */
static void
probe_finish (Probe *probe)
{
  RunData *run = probe->run;
  Msg *msg;

  if (!relay_trace_has_mark (probe->shadow, RELAY_MARK_END))
    probe_mark (probe, RELAY_MARK_END, g_get_monotonic_time ());

  if (probe->saw_usage)
    {
      relay_trace_set_usage (probe->shadow, &probe->usage);
    }
  else
    {
      RelayUsage usage = RELAY_USAGE_INIT;

      usage.estimated = TRUE;
      relay_trace_set_usage (probe->shadow, &usage);
    }

  /* Closing a body that was not read to its end would read the rest first: a stalled
   * stream would hang here. A cancelled close drops the connection instead. */
  if (probe->stream != NULL)
    {
      if (!probe->eof)
        g_cancellable_cancel (probe->cancellable);
      g_input_stream_close (probe->stream, probe->cancellable, NULL);
    }

  msg = msg_new (MSG_FINISHED, probe);
  msg->shadow = g_object_ref (probe->shadow);
  post (run, msg);

  g_mutex_lock (&run->lock);
  g_ptr_array_remove (run->probes, probe);
  g_mutex_unlock (&run->lock);

  probe_free (probe);
}

static void
probe_fail_interrupted (Probe *probe)
{
  RelayTrace *t = probe->shadow;
  double secs = probe->run->timeout;
  g_autofree char *message = NULL;

  if (!g_atomic_int_get (&probe->timed_out))
    {
      probe_fail (probe, RELAY_ERROR_STAGE_CANCELLED, "cancelled", _("The probe was stopped."));
      return;
    }

  if (!relay_trace_has_mark (t, RELAY_MARK_RESPONSE_START))
    {
      if (relay_trace_has_mark (t, RELAY_MARK_TLS_START) && !relay_trace_has_mark (t, RELAY_MARK_TLS_END))
        message = g_strdup_printf (_("The TLS handshake did not complete within %g s: the server "
                                     "may not speak TLS on this port (try http://), or something "
                                     "on the way stalls the handshake."), secs);
      else if (relay_trace_has_mark (t, RELAY_MARK_CONNECT_START) && !relay_trace_has_mark (t, RELAY_MARK_TCP_END))
        message = g_strdup_printf (_("The TCP connection was not established within %g s: "
                                     "a firewall may drop the packets."), secs);
      else if (relay_trace_has_mark (t, RELAY_MARK_DNS_START) && !relay_trace_has_mark (t, RELAY_MARK_DNS_END))
        message = g_strdup_printf (_("The host name was not resolved within %g s."), secs);
      else
        message = g_strdup_printf (_("No response headers arrived within %g s: the server "
                                     "or its upstream is queueing or stalled."), secs);
    }
  else if (!relay_trace_has_mark (t, RELAY_MARK_FIRST_TOKEN))
    message = g_strdup_printf (_("Response headers arrived but no token followed within %g s."), secs);
  else
    message = g_strdup_printf (_("The stream did not finish within %g s (%u chunks received): "
                                 "it stalled or is throttled."), secs, relay_trace_get_n_chunks (t));

  probe_fail (probe, RELAY_ERROR_STAGE_TIMEOUT, "timeout", message);
}


static gboolean
probe_interrupted (Probe *probe)
{
  return g_atomic_int_get (&probe->timed_out) || g_cancellable_is_cancelled (probe->cancellable);
}


static gboolean
on_sse_event (const char *event_type,
              const char *data,
              gsize       data_len,
              const char *last_event_id,
              gpointer    user_data)
{
  Probe *probe = user_data;
  RelayApi api = probe->job->endpoint->api;
  RelayDialectEvent event = { 0 };
  g_autoptr(GError) error = NULL;
  gint64 t = probe_since_start (probe, probe->now);

  if (!relay_trace_has_mark (probe->shadow, RELAY_MARK_FIRST_EVENT))
    relay_trace_set_mark (probe->shadow, RELAY_MARK_FIRST_EVENT, t);

  /* The trace keeps only the first events; do not clean what it would drop. */
  if (relay_sse_parser_get_n_events (probe->parser) <= RAW_EVENTS_KEPT)
    {
      g_autofree char *clean = redact_key (data, probe->job->endpoint->key);

      relay_trace_add_raw_event (probe->shadow,
                                 strcmp (event_type, "message") == 0 ? NULL : event_type,
                                 clean != NULL ? clean : data);
    }

  if (!relay_dialect_parse_event (api, event_type, data, data_len, &event, &error))
    {
      g_autofree char *message =
        g_strdup_printf (_("Event %u of the stream could not be read: %s"),
                         (guint) MIN (relay_sse_parser_get_n_events (probe->parser), G_MAXUINT),
                         error->message);
      probe_fail (probe, RELAY_ERROR_STAGE_PARSE, "malformed", message);
      probe->stop_reading = TRUE;
      return FALSE;
    }

  if (event.has_text)
    {
      RelayChunk chunk = { t, (guint32) data_len, event.chars, event.kind };

      relay_trace_add_chunk (probe->shadow, t, event.kind, chunk.bytes, chunk.chars);
      if (event.sent_us >= 0)
        relay_trace_set_chunk_sent (probe->shadow, relay_trace_get_n_chunks (probe->shadow) - 1, event.sent_us);
      g_array_append_val (probe->pending, chunk);
      g_array_append_val (probe->pending_sent, event.sent_us);

      if (!relay_trace_has_mark (probe->shadow, RELAY_MARK_FIRST_TOKEN))
        relay_trace_set_mark (probe->shadow, RELAY_MARK_FIRST_TOKEN, t);
      if (event.kind == RELAY_CHUNK_CONTENT &&
          !relay_trace_has_mark (probe->shadow, RELAY_MARK_FIRST_CONTENT))
        relay_trace_set_mark (probe->shadow, RELAY_MARK_FIRST_CONTENT, t);
      relay_trace_set_mark (probe->shadow, RELAY_MARK_LAST_TOKEN, t);
    }

  if (event.model != NULL && relay_trace_get_model_reported (probe->shadow) == NULL)
    relay_trace_set_model_reported (probe->shadow, event.model);

  if (event.has_usage)
    {
      probe->saw_usage = TRUE;
      if (event.usage.prompt_tokens >= 0)
        probe->usage.prompt_tokens = event.usage.prompt_tokens;
      if (event.usage.cached_prompt_tokens >= 0)
        probe->usage.cached_prompt_tokens = event.usage.cached_prompt_tokens;
      if (event.usage.completion_tokens >= 0)
        probe->usage.completion_tokens = event.usage.completion_tokens;
      if (event.usage.reasoning_tokens >= 0)
        probe->usage.reasoning_tokens = event.usage.reasoning_tokens;
    }

  if (event.is_error)
    {
      g_autofree char *message =
        g_strdup_printf (_("The server sent an error in the middle of the stream%s%s%s: %s"),
                         event.error_type ? " (" : "",
                         event.error_type ? event.error_type : "",
                         event.error_type ? ")" : "",
                         event.error_message ? event.error_message : _("no message"));
      probe_fail (probe, RELAY_ERROR_STAGE_STREAM, "error-event", message);
      probe->stop_reading = TRUE;
    }

  if (event.done)
    {
      probe->saw_done = TRUE;
      relay_trace_set_mark (probe->shadow, RELAY_MARK_END, t);
    }

  relay_dialect_event_clear (&event);

  return !probe->stop_reading;
}


static void
probe_end_of_stream (Probe *probe)
{
  RelayApi api = probe->job->endpoint->api;
  gboolean pending_event = relay_sse_parser_finish (probe->parser);

  if (!probe->saw_done && relay_trace_get_error_stage (probe->shadow) == RELAY_ERROR_STAGE_NONE)
    {
      g_autofree char *message = NULL;

      if (relay_sse_parser_get_n_events (probe->parser) == 0 && !pending_event)
        message = g_strdup (_("The response ended without any event: the server did not "
                              "stream. Check that the endpoint supports streaming."));
      else if (api == RELAY_API_ANTHROPIC_MESSAGES)
        message = g_strdup_printf (_("The stream ended after %u chunks without message_stop: "
                                     "the relay cut the response short."),
                                   relay_trace_get_n_chunks (probe->shadow));
      else
        message = g_strdup_printf (_("The stream ended after %u chunks without [DONE]: the "
                                     "relay cut the response short."),
                                   relay_trace_get_n_chunks (probe->shadow));
      probe_fail (probe, RELAY_ERROR_STAGE_STREAM, "no-terminator", message);
    }
}

/* The read loop: a stamp, a copy into the parser, the events' bookkeeping. */
static void probe_read_stream_loop (Probe *probe);

static void
probe_read_stream (Probe *probe)
{
  GPollFD cancel_fd;

  /* Every blocking read polls the cancellable's fd, which GLib makes and closes again on
   * each call unless someone holds it: hold it for the whole stream. */
  if (g_cancellable_make_pollfd (probe->cancellable, &cancel_fd))
    {
      probe_read_stream_loop (probe);
      g_cancellable_release_fd (probe->cancellable);
    }
  else
    {
      probe_read_stream_loop (probe);
    }
}

static void
probe_read_stream_loop (Probe *probe)
{
  g_autoptr(GError) parse_error = NULL;

  probe->buffer = g_malloc (READ_BUFFER_SIZE);
  probe->parser = relay_sse_parser_new (probe->run->max_line, on_sse_event, probe);

  for (;;)
    {
      g_autoptr(GError) error = NULL;
      gssize n;

      n = g_input_stream_read (probe->stream, probe->buffer, READ_BUFFER_SIZE,
                               probe->cancellable, &error);
      probe->now = g_get_monotonic_time ();

      if (n < 0)
        {
          if (probe->saw_done)
            {
              /* The stream had already ended properly; a late close is not the probe's fault. */
            }
          else if (probe_interrupted (probe))
            {
              probe_fail_interrupted (probe);
            }
          else
            {
              g_autofree char *message =
                g_strdup_printf (_("The connection broke after %u chunks: %s. The server or a "
                                   "proxy on the way reset the stream."),
                                 relay_trace_get_n_chunks (probe->shadow), error->message);
              probe_fail (probe, RELAY_ERROR_STAGE_STREAM, "reset", message);
            }
          return;
        }

      if (n == 0)
        {
          probe->eof = TRUE;
          probe_end_of_stream (probe);
          return;
        }

      if (!relay_trace_has_mark (probe->shadow, RELAY_MARK_FIRST_BYTE))
        probe_mark (probe, RELAY_MARK_FIRST_BYTE, probe->now);

      if (!probe->saw_done &&
          !relay_sse_parser_feed (probe->parser, (const char *) probe->buffer, n, &parse_error))
        {
          if (parse_error != NULL)
            probe_fail (probe, RELAY_ERROR_STAGE_PARSE, "line-too-long", parse_error->message);
          probe->stop_reading = TRUE;
        }

      probe_post_progress (probe, FALSE);

      if (probe->stop_reading)
        return;

      /* The body should end right after the terminator; do not wait long if it does not. */
      if (probe->saw_done && probe->grace_deadline == 0)
        {
          g_mutex_lock (&probe->run->lock);
          probe->grace_deadline = probe->now + DONE_GRACE_MS * 1000;
          g_cond_broadcast (&probe->run->cond);
          g_mutex_unlock (&probe->run->lock);
        }
    }
}

static char *
describe_http_error (Probe *probe,
                     guint  status)
{
  EndpointSpec *endpoint = probe->job->endpoint;
  SoupMessageHeaders *headers = soup_message_get_response_headers (probe->msg);
  const char *retry_after = soup_message_headers_get_one (headers, "retry-after");
  const char *location = soup_message_headers_get_one (headers, "location");
  const char *content_type = soup_message_headers_get_content_type (headers, NULL);
  g_autofree char *server_said = NULL;
  g_autofree char *what = NULL;

  if (probe->error_body != NULL && probe->error_body->len > 0)
    server_said = relay_dialect_parse_error_body (endpoint->api, probe->error_body->str,
                                                  probe->error_body->len);

  switch (status)
    {
    case 401:
      if (endpoint->key == NULL || endpoint->key[0] == '\0')
        what = g_strdup_printf (_("HTTP 401: no API key was sent. Set the environment variable "
                                  "%s (or the endpoint's key source) and try again."),
                                endpoint->key_env);
      else
        what = g_strdup_printf (_("HTTP 401: the API key from %s was refused. Check that it is "
                                  "valid for this endpoint."), endpoint->key_env);
      break;
    case 403:
      what = g_strdup (_("HTTP 403: access denied. The key may lack access to this model, or "
                         "the relay blocks this client or region."));
      break;
    case 404:
      what = g_strdup_printf (_("HTTP 404: not found at %s. Check the base URL (it usually ends "
                                "in /v1 for OpenAI-compatible APIs) and the model name."),
                              endpoint->url);
      break;
    case 408:
      what = g_strdup (_("HTTP 408: the server timed out waiting for the request."));
      break;
    case 413:
      what = g_strdup (_("HTTP 413: the request is too large for this server."));
      break;
    case 429:
      if (retry_after != NULL)
        what = g_strdup_printf (_("HTTP 429: rate limited; the server asks to retry after %s s. "
                                  "Lower the rate or concurrency."), retry_after);
      else
        what = g_strdup (_("HTTP 429: rate limited. Lower the rate or concurrency."));
      break;
    case 500:
      what = g_strdup (_("HTTP 500: the server failed while handling the request."));
      break;
    case 502:
      what = g_strdup (_("HTTP 502: a gateway or proxy got a bad answer from its upstream."));
      break;
    case 503:
      what = g_strdup (_("HTTP 503: the service is unavailable or overloaded; try again later."));
      break;
    case 504:
      what = g_strdup (_("HTTP 504: a gateway timed out waiting for its upstream."));
      break;
    default:
      if (SOUP_STATUS_IS_REDIRECTION (status) && location != NULL)
        what = g_strdup_printf (_("HTTP %u: the endpoint redirects to %s. Use that address as "
                                  "the base URL (a redirect would turn the POST into a GET)."),
                                status, location);
      else
        what = g_strdup_printf (_("HTTP %u %s."), status,
                                soup_status_get_phrase (status) ? soup_status_get_phrase (status) : "");
      break;
    }

  if (server_said != NULL)
    {
      if (content_type != NULL && g_str_has_prefix (content_type, "text/html"))
        return g_strdup_printf (_("%s The server answered with an HTML page (%s), as a proxy "
                                  "or gateway does."), what, server_said);
      return g_strdup_printf (_("%s The server said: %s"), what, server_said);
    }

  return g_steal_pointer (&what);
}


static void
probe_read_error_body (Probe *probe)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  char buffer[8192];
  const char *kind;
  guint status;
  gssize n;

  probe->error_body = g_string_new (NULL);
  while (probe->error_body->len < ERROR_BODY_MAX &&
         (n = g_input_stream_read (probe->stream, buffer, sizeof buffer, probe->cancellable, &error)) > 0)
    g_string_append_len (probe->error_body, buffer, n);

  if (error == NULL && probe->error_body->len < ERROR_BODY_MAX)
    probe->eof = TRUE;

  if (error != NULL && probe_interrupted (probe))
    {
      probe_fail_interrupted (probe);
      return;
    }

  status = soup_message_get_status (probe->msg);
  message = describe_http_error (probe, status);

  switch (status)
    {
    case 401: kind = "unauthorized"; break;
    case 403: kind = "forbidden"; break;
    case 404: kind = "not-found"; break;
    case 429: kind = "rate-limited"; break;
    default:
      if (SOUP_STATUS_IS_REDIRECTION (status))
        kind = "redirect";
      else if (SOUP_STATUS_IS_SERVER_ERROR (status))
        kind = "server-error";
      else
        kind = "client-error";
      break;
    }

  probe_fail (probe, RELAY_ERROR_STAGE_HTTP, kind, message);
}

static void
probe_fail_send (Probe  *probe,
                 GError *error)
{
  EndpointSpec *endpoint = probe->job->endpoint;
  RelayTrace *t = probe->shadow;
  g_autofree char *message = NULL;

  if (probe_interrupted (probe))
    {
      probe_fail_interrupted (probe);
      return;
    }

  if (probe->tls_errors != 0)
    {
      const char *kind;

      message = describe_tls_errors (probe->tls_errors, endpoint->host, &kind);
      probe_fail (probe, RELAY_ERROR_STAGE_TLS, kind, message);
      return;
    }

  if (error->domain == G_RESOLVER_ERROR)
    {
      message = g_strdup_printf (_("Could not resolve the host name %s: %s. Check the base URL "
                                   "and the network's DNS."), endpoint->host, error->message);
      probe_fail (probe, RELAY_ERROR_STAGE_DNS, "unknown-host", message);
      return;
    }

  if (error->domain == G_TLS_ERROR)
    {
      if (g_error_matches (error, G_TLS_ERROR, G_TLS_ERROR_NOT_TLS))
        message = g_strdup_printf (_("%s did not answer in TLS: the server may speak plain "
                                     "HTTP (use http:// in the base URL)."), endpoint->host);
      else
        message = g_strdup_printf (_("The TLS handshake with %s failed: %s"), endpoint->host,
                                   error->message);
      probe_fail (probe, RELAY_ERROR_STAGE_TLS, "handshake", message);
      return;
    }

  if (error->domain == G_IO_ERROR)
    {
      switch (error->code)
        {
        case G_IO_ERROR_CONNECTION_REFUSED:
          message = g_strdup_printf (_("%s refused the connection: nothing listens on that port. "
                                       "Check the port in the base URL and that the server runs."),
                                     endpoint->host);
          probe_fail (probe, RELAY_ERROR_STAGE_CONNECT, "refused", message);
          return;
        case G_IO_ERROR_NETWORK_UNREACHABLE:
        case G_IO_ERROR_HOST_UNREACHABLE:
          message = g_strdup_printf (_("%s is unreachable from this machine: %s"),
                                     endpoint->host, error->message);
          probe_fail (probe, RELAY_ERROR_STAGE_CONNECT, "unreachable", message);
          return;
        case G_IO_ERROR_TIMED_OUT:
          message = g_strdup_printf (_("Connecting to %s timed out: %s"), endpoint->host,
                                     error->message);
          probe_fail (probe, RELAY_ERROR_STAGE_CONNECT, "timeout", message);
          return;
        case G_IO_ERROR_PROXY_FAILED:
        case G_IO_ERROR_PROXY_AUTH_FAILED:
        case G_IO_ERROR_PROXY_NEED_AUTH:
        case G_IO_ERROR_PROXY_NOT_ALLOWED:
          message = g_strdup_printf (_("The proxy refused or failed the connection to %s: %s. "
                                       "Check the proxy settings."), endpoint->host, error->message);
          probe_fail (probe, RELAY_ERROR_STAGE_CONNECT, "proxy", message);
          return;
        default:
          break;
        }
    }

  if (relay_trace_has_mark (t, RELAY_MARK_TLS_START) && !relay_trace_has_mark (t, RELAY_MARK_TLS_END))
    {
      message = g_strdup_printf (_("The TLS handshake with %s failed: %s"), endpoint->host,
                                 error->message);
      probe_fail (probe, RELAY_ERROR_STAGE_TLS, "handshake", message);
    }
  else if (!relay_trace_has_mark (t, RELAY_MARK_TCP_END) && relay_trace_get_reused (t) == FALSE &&
           probe->attempts > 0)
    {
      message = g_strdup_printf (_("Could not connect to %s: %s"), endpoint->host, error->message);
      probe_fail (probe, RELAY_ERROR_STAGE_CONNECT, "connect", message);
    }
  else
    {
      message = g_strdup_printf (_("The server closed the connection before answering: %s"),
                                 error->message);
      probe_fail (probe, RELAY_ERROR_STAGE_HTTP, "no-response", message);
    }
}


static void
add_header_cb (const char *name,
               const char *value,
               gpointer    user_data)
{
  soup_message_headers_replace (user_data, name, value);
}


static GProxyResolver *
proxy_resolver_for (EndpointSpec *endpoint)
{
  const char *scheme_env[] = { "https_proxy", "HTTPS_PROXY", NULL };
  const char *plain_env[] = { "http_proxy", "HTTP_PROXY", NULL };
  const char **names = g_str_has_prefix (endpoint->url, "https:") ? scheme_env : plain_env;
  const char *no_proxy = g_getenv ("no_proxy");
  const char *proxy = NULL;

  if (endpoint->proxy != NULL && endpoint->proxy[0] != '\0')
    return g_simple_proxy_resolver_new (endpoint->proxy, NULL);

  if (no_proxy == NULL)
    no_proxy = g_getenv ("NO_PROXY");
  if (no_proxy != NULL)
    {
      g_auto(GStrv) hosts = g_strsplit (no_proxy, ",", -1);

      for (guint i = 0; hosts[i] != NULL; i++)
        {
          const char *h = g_strstrip (hosts[i]);

          if (h[0] == '.')
            h++;
          if (strcmp (h, "*") == 0 ||
              (h[0] != '\0' && (g_ascii_strcasecmp (endpoint->host, h) == 0 ||
                                (g_str_has_suffix (endpoint->host, h) &&
                                 endpoint->host[strlen (endpoint->host) - strlen (h) - 1] == '.'))))
            return NULL;
        }
    }

  for (guint i = 0; names[i] != NULL && proxy == NULL; i++)
    {
      proxy = g_getenv (names[i]);
      if (proxy != NULL && proxy[0] == '\0')
        proxy = NULL;
    }

  if (proxy != NULL)
    return g_simple_proxy_resolver_new (proxy, NULL);

  /* Otherwise the session's default, GIO's system resolver. */
  return NULL;
}


static SoupSession *
session_new (RunData      *run,
             EndpointSpec *endpoint)
{
  g_autoptr(GProxyResolver) resolver = proxy_resolver_for (endpoint);
  SoupSession *session;

  session = soup_session_new_with_options ("user-agent", "Relayscope/" PACKAGE_VERSION,
                                           "max-conns", MAX (run->concurrency * 2, 10),
                                           "max-conns-per-host", MAX (run->concurrency, 2),
                                           "timeout", 0,
                                           "idle-timeout", 0,
                                           NULL);
  if (resolver != NULL)
    soup_session_set_proxy_resolver (session, resolver);

  return session;
}


/* Registers a cancellable that the run's cancellation must reach (a lane's warm-up). */
static void
run_track_cancellable (RunData      *run,
                       GCancellable *cancellable,
                       gboolean      track)
{
  g_mutex_lock (&run->lock);
  if (track)
    {
      g_ptr_array_add (run->lane_cancellables, g_object_ref (cancellable));
      if (run->cancelled)
        g_cancellable_cancel (cancellable);
    }
  else
    {
      g_ptr_array_remove (run->lane_cancellables, cancellable);
    }
  g_mutex_unlock (&run->lock);
}

/* A lane's keep-alive session for an endpoint, opened by a cheap request the first time so
 * that the probes find a connection in the pool. */
static SoupSession *
lane_warm_session (RunData      *run,
                   EndpointSpec *endpoint,
                   GHashTable   *warm)
{
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GCancellable) cancellable = NULL;
  g_autoptr(GBytes) bytes = NULL;
  SoupSession *session;

  if ((session = g_hash_table_lookup (warm, endpoint)) != NULL)
    return g_object_ref (session);

  session = session_new (run, endpoint);
  g_hash_table_insert (warm, endpoint, session);

  if (!(msg = soup_message_new (SOUP_METHOD_GET, endpoint->models_url)))
    return g_object_ref (session);

  relay_dialect_add_headers (endpoint->api, endpoint->key, add_header_cb,
                             soup_message_get_request_headers (msg));
  g_signal_connect (msg, "accept-certificate", G_CALLBACK (on_warm_accept_certificate), endpoint);

  /* Whatever the answer, the connection is then open and pooled. */
  cancellable = g_cancellable_new ();
  run_track_cancellable (run, cancellable, TRUE);
  bytes = soup_session_send_and_read (session, msg, cancellable, NULL);
  run_track_cancellable (run, cancellable, FALSE);

  return g_object_ref (session);
}

static void
lane_run_probe (RunData    *run,
                Job        *job,
                GHashTable *warm)
{
  EndpointSpec *endpoint = job->endpoint;
  RelayRequestSpec spec = {
    .model = job->model,
    .prompt = run->prompt,
    .max_tokens = run->max_tokens,
    .reasoning_effort = run->reasoning_effort,
  };
  g_autoptr(GDateTime) wall = NULL;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GError) error = NULL;
  SoupMessageHeaders *headers;
  const char *encoding;
  Probe *probe;
  Msg *msg;
  char *json;

  probe = g_new0 (Probe, 1);
  probe->run = run;
  probe->job = job;
  probe->cancellable = g_cancellable_new ();
  probe->shadow = relay_trace_new (job->run_index, job->seq);
  probe->pending = g_array_sized_new (FALSE, FALSE, sizeof (RelayChunk), 64);
  probe->pending_sent = g_array_sized_new (FALSE, FALSE, sizeof (gint64), 64);
  probe->usage = (RelayUsage) RELAY_USAGE_INIT;

  if (run->connection == RELAY_CONNECTION_WARM)
    probe->session = lane_warm_session (run, endpoint, warm);
  else
    probe->session = session_new (run, endpoint);

  probe->msg = soup_message_new (SOUP_METHOD_POST, endpoint->url);
  if (probe->msg != NULL)
    {
      soup_message_add_flags (probe->msg, SOUP_MESSAGE_COLLECT_METRICS | SOUP_MESSAGE_NO_REDIRECT);
      if (run->connection == RELAY_CONNECTION_WARM)
        soup_message_add_flags (probe->msg, SOUP_MESSAGE_IDEMPOTENT);

      headers = soup_message_get_request_headers (probe->msg);
      soup_message_headers_replace (headers, "Accept", "text/event-stream");
      soup_message_headers_replace (headers, "Accept-Encoding", "identity");
      relay_dialect_add_headers (endpoint->api, endpoint->key, add_header_cb, headers);
      for (guint i = 0; endpoint->headers != NULL && endpoint->headers[i] != NULL; i++)
        {
          const char *colon = strchr (endpoint->headers[i], ':');
          g_autofree char *name = NULL;

          if (colon == NULL)
            continue;
          name = g_strstrip (g_strndup (endpoint->headers[i], colon - endpoint->headers[i]));
          soup_message_headers_replace (headers, name, g_strchug ((char *) colon + 1));
        }

      json = relay_dialect_build_request_body (endpoint->api, &spec);
      body = g_bytes_new_take (json, strlen (json));
      soup_message_set_request_body_from_bytes (probe->msg, "application/json", body);

      g_signal_connect (probe->msg, "network-event", G_CALLBACK (on_network_event), probe);
      g_signal_connect (probe->msg, "wrote-body", G_CALLBACK (on_wrote_body), probe);
      g_signal_connect (probe->msg, "accept-certificate", G_CALLBACK (on_accept_certificate), probe);
    }

  wall = g_date_time_new_now_local ();
  probe->t0 = g_get_monotonic_time ();
  probe->last_post = probe->t0;
  relay_trace_set_wall_start (probe->shadow, wall);
  relay_trace_set_mono_start (probe->shadow, probe->t0);

  g_mutex_lock (&run->lock);
  if (run->timeout > 0)
    probe->deadline = probe->t0 + (gint64) (run->timeout * G_USEC_PER_SEC);
  g_ptr_array_add (run->probes, probe);
  if (run->cancelled)
    g_cancellable_cancel (probe->cancellable);
  g_cond_broadcast (&run->cond);
  g_mutex_unlock (&run->lock);

  msg = msg_new (MSG_ADDED, probe);
  msg->shadow = g_object_ref (probe->shadow);
  post (run, msg);

  if (probe->msg == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("“%s” is not a valid URL."), endpoint->url);

      probe_fail (probe, RELAY_ERROR_STAGE_CONNECT, "bad-url", message);
      probe_finish (probe);
      return;
    }

  if (endpoint->ca_error != NULL)
    {
      probe_fail (probe, RELAY_ERROR_STAGE_TLS, "ca-file", endpoint->ca_error);
      probe_finish (probe);
      return;
    }

  probe->stream = soup_session_send (probe->session, probe->msg, probe->cancellable, &error);
  if (probe->stream == NULL)
    {
      probe_fail_send (probe, error);
      probe_finish (probe);
      return;
    }

  probe->now = g_get_monotonic_time ();
  probe_record_response (probe);
  probe_post_progress (probe, TRUE);

  if (!SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (probe->msg)))
    {
      probe_read_error_body (probe);
      probe_finish (probe);
      return;
    }

  /* Decoding would need buffering that blurs every chunk's time; name it instead. */
  encoding = soup_message_headers_get_one (soup_message_get_response_headers (probe->msg),
                                           "Content-Encoding");
  if (encoding != NULL && g_ascii_strcasecmp (encoding, "identity") != 0)
    {
      g_autofree char *message =
        g_strdup_printf (_("The server compressed the event stream (Content-Encoding: %s) "
                           "although the probe asked for none. A proxy or relay on the way "
                           "compresses text/event-stream, which also delays chunks: turn "
                           "compression off for streaming responses."), encoding);
      probe_fail (probe, RELAY_ERROR_STAGE_STREAM, "compressed", message);
      probe_finish (probe);
      return;
    }

  probe_read_stream (probe);
  probe_finish (probe);
}

/* A lane runs one probe at a time, taking jobs in order while the rate allows. */
static gpointer
lane_thread (gpointer data)
{
  RunData *run = data;
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GHashTable) warm = g_hash_table_new_full (NULL, NULL, NULL, g_object_unref);
  GHashTableIter iter;
  gpointer session;

  /* libsoup binds a session to the thread-default context it was made in. */
  g_main_context_push_thread_default (context);

  for (;;)
    {
      Job *job = NULL;

      g_mutex_lock (&run->lock);
      while (!run->cancelled && run->next_job < run->jobs->len)
        {
          gint64 now = g_get_monotonic_time ();

          if (run->rate <= 0 || now >= run->next_start_us)
            {
              job = g_ptr_array_index (run->jobs, run->next_job++);
              if (run->rate > 0)
                run->next_start_us = MAX (now, run->next_start_us) + (gint64) (G_USEC_PER_SEC / run->rate);
              break;
            }
          g_cond_wait_until (&run->cond, &run->lock, run->next_start_us);
        }
      g_mutex_unlock (&run->lock);

      if (job == NULL)
        break;

      lane_run_probe (run, job, warm);
    }

  g_hash_table_iter_init (&iter, warm);
  while (g_hash_table_iter_next (&iter, NULL, &session))
    soup_session_abort (session);
  g_hash_table_remove_all (warm);
  while (g_main_context_iteration (context, FALSE))
    ;
  g_main_context_pop_thread_default (context);

  g_mutex_lock (&run->lock);
  run->lanes_running--;
  g_cond_broadcast (&run->cond);
  g_mutex_unlock (&run->lock);

  return NULL;
}

static void
on_run_cancelled (GCancellable *cancellable,
                  gpointer      user_data)
{
  RunData *run = user_data;

  g_mutex_lock (&run->lock);
  run->cancelled = TRUE;
  for (guint i = 0; i < run->probes->len; i++)
    g_cancellable_cancel (((Probe *) g_ptr_array_index (run->probes, i))->cancellable);
  for (guint i = 0; i < run->lane_cancellables->len; i++)
    g_cancellable_cancel (g_ptr_array_index (run->lane_cancellables, i));
  g_cond_broadcast (&run->cond);
  g_mutex_unlock (&run->lock);
}

static void
run_prepare_endpoints (RunData *run)
{
  for (guint i = 0; i < run->endpoints->len; i++)
    {
      EndpointSpec *endpoint = g_ptr_array_index (run->endpoints, i);

      if (run->key_func != NULL)
        endpoint->key = run->key_func (endpoint->copy, run->key_data);
      else if (g_getenv (endpoint->key_env) != NULL)
        endpoint->key = g_strdup (g_getenv (endpoint->key_env));

      if (endpoint->ca_file != NULL)
        {
          g_autoptr(GError) error = NULL;

          endpoint->extra_ca = g_tls_file_database_new (endpoint->ca_file, &error);
          if (endpoint->extra_ca == NULL)
            {
              g_autofree char *why = g_strdup (error->message);

              g_strchomp (why);
              if (g_str_has_suffix (why, "."))
                why[strlen (why) - 1] = '\0';
              endpoint->ca_error = g_strdup_printf (_("Cannot read the CA file %s (%s). Give a PEM "
                                                      "file of CA certificates."),
                                                    endpoint->ca_file, why);
            }
        }
    }
}

/* Starts the lanes, then watches deadlines until every lane is done. */
static gpointer
coordinator_thread (gpointer data)
{
  RunData *run = data;
  g_autoptr(GPtrArray) lanes = g_ptr_array_new ();
  guint n_lanes;

  run_prepare_endpoints (run);

  n_lanes = MIN (MIN (run->concurrency, run->jobs->len), MAX_LANES);

  g_mutex_lock (&run->lock);
  run->lanes_running = n_lanes;
  g_mutex_unlock (&run->lock);

  for (guint i = 0; i < n_lanes; i++)
    {
      g_autoptr(GError) error = NULL;
      GThread *lane = g_thread_try_new ("relayscope-lane", lane_thread, run, &error);

      if (lane == NULL)
        {
          g_warning ("Cannot start a probe thread: %s", error->message);
          g_mutex_lock (&run->lock);
          run->lanes_running--;
          g_mutex_unlock (&run->lock);
          continue;
        }
      g_ptr_array_add (lanes, lane);
    }

  g_mutex_lock (&run->lock);
  while (run->lanes_running > 0)
    {
      gint64 now = g_get_monotonic_time ();
      gint64 next = now + G_USEC_PER_SEC;

      for (guint i = 0; i < run->probes->len; i++)
        {
          Probe *probe = g_ptr_array_index (run->probes, i);

          if (probe->deadline > 0 && now >= probe->deadline)
            {
              probe->deadline = 0;
              g_atomic_int_set (&probe->timed_out, TRUE);
              g_cancellable_cancel (probe->cancellable);
            }
          else if (probe->deadline > 0)
            next = MIN (next, probe->deadline);

          if (probe->grace_deadline > 0 && probe->grace_deadline != G_MAXINT64)
            {
              if (now >= probe->grace_deadline)
                {
                  probe->grace_deadline = G_MAXINT64;
                  g_cancellable_cancel (probe->cancellable);
                }
              else
                next = MIN (next, probe->grace_deadline);
            }
        }

      g_cond_wait_until (&run->cond, &run->lock, next);
    }
  g_mutex_unlock (&run->lock);

  for (guint i = 0; i < lanes->len; i++)
    g_thread_join (g_ptr_array_index (lanes, i));

  for (guint i = 0; i < run->endpoints->len; i++)
    g_clear_object (&((EndpointSpec *) g_ptr_array_index (run->endpoints, i))->copy);

  post (run, msg_new (MSG_DONE, NULL));
  run_data_unref (run);

  return NULL;
}

/* ---------------------------------------------------------------------------------------
 * Public API.
 */

static void
relay_prober_finalize (GObject *object)
{
  RelayProber *self = (RelayProber *)object;

  if (self->key_destroy != NULL)
    self->key_destroy (self->key_data);

  G_OBJECT_CLASS (relay_prober_parent_class)->finalize (object);
}

static void
relay_prober_class_init (RelayProberClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = relay_prober_finalize;

  /**
   * RelayProber::trace-added:
   * A probe started; its trace is already in the session.
   */
  signals[TRACE_ADDED] =
    g_signal_new ("trace-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, RELAY_TYPE_TRACE);
  /**
   * RelayProber::trace-changed:
   * New marks or chunks arrived (at most every 20 ms per trace while streaming).
   */
  signals[TRACE_CHANGED] =
    g_signal_new ("trace-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, RELAY_TYPE_TRACE);
  /**
   * RelayProber::trace-finished:
   * The probe ended, successfully or with an error.
   */
  signals[TRACE_FINISHED] =
    g_signal_new ("trace-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, RELAY_TYPE_TRACE);
}

static void
relay_prober_init (RelayProber *self)
{
}

RelayProber *
relay_prober_new (void)
{
  return g_object_new (RELAY_TYPE_PROBER, NULL);
}

/**
 * relay_prober_set_key_func:
 *
 * Sets how API keys are found. The function is called once per endpoint and run, on the
 * prober's own thread (so it may block, e.g. on a keyring), with a private copy of the
 * endpoint. It returns a newly allocated key, or %NULL to send none.
 */
void
relay_prober_set_key_func (RelayProber    *self,
                           RelayKeyFunc    func,
                           gpointer        user_data,
                           GDestroyNotify  destroy)
{
  g_return_if_fail (RELAY_IS_PROBER (self));

  if (self->key_destroy != NULL)
    self->key_destroy (self->key_data);

  self->key_func = func;
  self->key_data = user_data;
  self->key_destroy = destroy;
}

static EndpointSpec *
endpoint_spec_new (RelayEndpoint *endpoint,
                   const char    *plan_ca_file)
{
  EndpointSpec *spec = g_new0 (EndpointSpec, 1);
  g_autoptr(JsonNode) node = relay_endpoint_to_json (endpoint);
  g_autoptr(GUri) uri = NULL;
  g_autofree char *base = g_strdup (relay_endpoint_get_base_url (endpoint));
  const char *ca_file = relay_endpoint_get_ca_file (endpoint);

  spec->copy = relay_endpoint_new_from_json (node, NULL);
  spec->name = g_strdup (relay_endpoint_get_name (endpoint));
  spec->api = relay_endpoint_get_api (endpoint);
  spec->url = relay_endpoint_dup_request_url (endpoint);
  spec->headers = g_strdupv ((char **) relay_endpoint_get_headers (endpoint));
  spec->proxy = g_strdup (relay_endpoint_get_proxy (endpoint));
  spec->key_env = g_strdup (relay_endpoint_get_effective_key_env (endpoint));

  if (ca_file == NULL || ca_file[0] == '\0')
    ca_file = plan_ca_file;
  if (ca_file != NULL && ca_file[0] != '\0')
    spec->ca_file = g_canonicalize_filename (ca_file, NULL);

  while (base != NULL && g_str_has_suffix (base, "/"))
    base[strlen (base) - 1] = '\0';
  if (spec->api == RELAY_API_ANTHROPIC_MESSAGES)
    spec->models_url = g_strconcat (base, "/v1/models", NULL);
  else
    spec->models_url = g_strconcat (base, "/models", NULL);

  uri = g_uri_parse (spec->url, G_URI_FLAGS_NONE, NULL);
  spec->host = g_strdup (uri != NULL && g_uri_get_host (uri) != NULL ? g_uri_get_host (uri) : spec->url);

  return spec;
}

static RelayEndpoint *
session_ensure_endpoint (RelaySession  *session,
                         RelayEndpoint *endpoint)
{
  RelayEndpoint *existing = relay_session_find_endpoint (session, relay_endpoint_get_name (endpoint));

  if (existing != NULL)
    return existing;

  relay_session_add_endpoint (session, endpoint);
  return endpoint;
}

void
relay_prober_run_async (RelayProber         *self,
                        RelayProbePlan      *plan,
                        RelaySession        *session,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  GPtrArray *endpoints;
  g_autoptr(GPtrArray) run_indices = NULL;
  g_autoptr(GPtrArray) run_models = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autoptr(GError) error = NULL;
  RunData *run;
  guint repeat;

  g_return_if_fail (RELAY_IS_PROBER (self));
  g_return_if_fail (RELAY_IS_PROBE_PLAN (plan));
  g_return_if_fail (RELAY_IS_SESSION (session));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  run = g_new0 (RunData, 1);
  g_atomic_ref_count_init (&run->ref);
  run->prober = g_object_ref (self);
  run->session = g_object_ref (session);
  run->task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (run->task, relay_prober_run_async);
  run->traces = g_hash_table_new_full (NULL, NULL, NULL, g_object_unref);
  run->caller_ctx = g_main_context_ref_thread_default ();
  run->endpoints = g_ptr_array_new_with_free_func (endpoint_spec_free);
  run->jobs = g_ptr_array_new_with_free_func (job_free);
  run->prompt = g_strdup (relay_probe_plan_get_prompt (plan));
  run->reasoning_effort = g_strdup (relay_probe_plan_get_reasoning_effort (plan));
  run->max_tokens = relay_probe_plan_get_max_tokens (plan);
  run->concurrency = MAX (1, relay_probe_plan_get_concurrency (plan));
  run->rate = relay_probe_plan_get_rate (plan);
  run->timeout = relay_probe_plan_get_timeout (plan);
  run->max_line = relay_probe_plan_get_max_line (plan);
  run->connection = relay_probe_plan_get_connection (plan);
  run->cancellable = cancellable ? g_object_ref (cancellable) : g_cancellable_new ();
  run->key_func = self->key_func;
  run->key_data = self->key_data;
  g_mutex_init (&run->lock);
  g_cond_init (&run->cond);
  run->probes = g_ptr_array_new ();
  run->lane_cancellables = g_ptr_array_new_with_free_func (g_object_unref);
  run->queue = g_async_queue_new ();

  /* One run per endpoint × model; jobs interleave the runs so that every endpoint is sampled
   * over the same stretch of time. */
  run_indices = g_ptr_array_new ();
  run_models = g_ptr_array_new ();
  endpoints = relay_probe_plan_get_endpoints (plan);
  for (guint i = 0; i < endpoints->len; i++)
    {
      RelayEndpoint *endpoint = session_ensure_endpoint (session, g_ptr_array_index (endpoints, i));
      const char * const *models = relay_endpoint_get_models (endpoint);
      static const char * const default_models[] = { "default", NULL };
      EndpointSpec *spec = endpoint_spec_new (endpoint, relay_probe_plan_get_ca_file (plan));

      g_ptr_array_add (run->endpoints, spec);

      if (models == NULL || models[0] == NULL)
        models = default_models;

      for (guint m = 0; models[m] != NULL; m++)
        {
          g_autoptr(RelayRun) r = relay_run_new (relay_endpoint_get_name (endpoint), models[m]);

          relay_run_set_prompt (r, run->prompt);
          relay_run_set_prompt_preset (r, relay_probe_plan_get_prompt_preset (plan));
          relay_run_set_max_tokens (r, run->max_tokens);
          relay_run_set_reasoning_effort (r, run->reasoning_effort);
          relay_run_set_connection (r, run->connection);
          relay_run_set_repeat (r, relay_probe_plan_get_repeat (plan));
          relay_run_set_concurrency (r, run->concurrency);
          relay_run_set_started (r, now);

          g_ptr_array_add (run_indices, GUINT_TO_POINTER (relay_session_add_run (session, r)));
          g_ptr_array_add (run_models, spec);
          g_ptr_array_add (run_models, (gpointer) models[m]);
        }
    }

  repeat = MAX (1, relay_probe_plan_get_repeat (plan));
  for (guint r = 0; r < repeat; r++)
    for (guint i = 0; i < run_indices->len; i++)
      {
        Job *job = g_new0 (Job, 1);

        job->endpoint = g_ptr_array_index (run_models, 2 * i);
        job->model = g_strdup (g_ptr_array_index (run_models, 2 * i + 1));
        job->run_index = GPOINTER_TO_UINT (g_ptr_array_index (run_indices, i));
        job->seq = r + 1;
        job->index = run->jobs->len;
        g_ptr_array_add (run->jobs, job);
      }

  /* The handler runs in whichever thread cancels; it only flags and cancels under the lock. */
  run->cancel_id = g_cancellable_connect (run->cancellable, G_CALLBACK (on_run_cancelled), run, NULL);

  run->thread = g_thread_try_new ("relayscope-prober", coordinator_thread, run_data_ref (run), &error);
  if (run->thread == NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&run->task);

      g_cancellable_disconnect (run->cancellable, run->cancel_id);

      run_data_unref (run);
      g_task_return_error (task, g_steal_pointer (&error));
      run_data_unref (run);
      return;
    }

  /* The caller's reference: dropped when the task completes (MSG_DONE). */
  g_task_set_task_data (run->task, run, (GDestroyNotify) run_data_unref);
}

gboolean
relay_prober_run_finish (RelayProber   *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (RELAY_IS_PROBER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
