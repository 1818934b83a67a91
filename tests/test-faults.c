/* test-faults.c: every fault gives a trace with the right stage, kind and an actionable
 * message, and the prober neither crashes nor hangs.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <libsoup/soup.h>

#include "relay-sim-resolver.h"
#include "relay-test-util.h"

static RelaySimServer *http_server;
static RelaySimServer *tls_server;

static void
quick_profile (RelaySimProfile *p)
{
  p->headers_delay_ms = 2;
  p->prefill_us_per_token = 0;
  p->ttft_ms = 5;
  p->itl_ms = 2;
  p->itl_jitter_ms = 0;
  p->stall_probability = 0;
  p->tokens = 10;
  p->fault = RELAY_SIM_FAULT_NONE;
  p->fault_probability = 0;
}

typedef struct
{
  const char      *name;
  const char      *override;      /* X-Relayscope-Sim, NULL for none */
  RelayApi         api;
  RelayErrorStage  stage;
  const char      *kind;
  const char      *needle;        /* a word the message must contain */
  guint            status;        /* expected HTTP status, 0 for none */
} Fault;

static const Fault faults[] = {
  { "http-401", "fault=http-401, fault_probability=1", RELAY_API_OPENAI_CHAT, RELAY_ERROR_STAGE_HTTP, "unauthorized", "refused", 401 },
  { "http-403", "fault=http-403, fault_probability=1", RELAY_API_OPENAI_CHAT, RELAY_ERROR_STAGE_HTTP, "forbidden", "403", 403 },
  { "http-404", "fault=http-404, fault_probability=1", RELAY_API_OPENAI_CHAT, RELAY_ERROR_STAGE_HTTP, "not-found", "model", 404 },
  { "http-429", "fault=http-429, fault_probability=1", RELAY_API_OPENAI_CHAT, RELAY_ERROR_STAGE_HTTP, "rate-limited", "retry after 2", 429 },
  { "http-500", "fault=http-500, fault_probability=1", RELAY_API_OPENAI_CHAT, RELAY_ERROR_STAGE_HTTP, "server-error", "The server said", 500 },
  { "http-503-anthropic", "fault=http-503, fault_probability=1", RELAY_API_ANTHROPIC_MESSAGES, RELAY_ERROR_STAGE_HTTP, "server-error", "unavailable", 503 },
  { "html-502", "fault=html-502, fault_probability=1", RELAY_API_OPENAI_CHAT, RELAY_ERROR_STAGE_HTTP, "server-error", "HTML", 502 },
  { "reset", "fault=reset, fault_probability=1, fault_after=3", RELAY_API_OPENAI_CHAT, RELAY_ERROR_STAGE_STREAM, "reset", "after 3 chunks", 200 },
  { "malformed", "fault=malformed, fault_probability=1, fault_after=3", RELAY_API_OPENAI_CHAT, RELAY_ERROR_STAGE_PARSE, "malformed", "could not be read", 200 },
  { "no-terminator", "fault=no-terminator, fault_probability=1", RELAY_API_OPENAI_CHAT, RELAY_ERROR_STAGE_STREAM, "no-terminator", "[DONE]", 200 },
  { "no-terminator-anthropic", "fault=no-terminator, fault_probability=1", RELAY_API_ANTHROPIC_MESSAGES, RELAY_ERROR_STAGE_STREAM, "no-terminator", "message_stop", 200 },
  { "error-event", "fault=error-event, fault_probability=1, fault_after=2", RELAY_API_OPENAI_CHAT, RELAY_ERROR_STAGE_STREAM, "error-event", "error", 200 },
  { "error-event-anthropic", "fault=error-event, fault_probability=1, fault_after=2", RELAY_API_ANTHROPIC_MESSAGES, RELAY_ERROR_STAGE_STREAM, "error-event", "error", 200 },
};

static RelayTrace *
probe_once (RelayEndpoint *endpoint,
            double         timeout,
            gsize          max_line)
{
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(GError) error = NULL;

  relay_probe_plan_add_endpoint (plan, endpoint);
  relay_probe_plan_set_timeout (plan, timeout);
  if (max_line > 0)
    relay_probe_plan_set_max_line (plan, max_line);
  error = relay_test_run_plan (plan, session, NULL, NULL);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (session)), ==, 1);

  return relay_test_get_trace (session, 0);
}

static void
assert_failure (RelayTrace      *trace,
                RelayErrorStage  stage,
                const char      *kind,
                const char      *needle)
{
  const char *message = relay_trace_get_error_message (trace);

  g_test_message ("%s/%s: %s", relay_error_stage_to_string (relay_trace_get_error_stage (trace)),
                  relay_trace_get_error_kind (trace), message);
  g_assert_cmpstr (relay_error_stage_to_string (relay_trace_get_error_stage (trace)), ==,
                   relay_error_stage_to_string (stage));
  g_assert_cmpstr (relay_trace_get_error_kind (trace), ==, kind);
  g_assert_nonnull (message);
  g_assert_nonnull (strstr (message, needle));
  g_assert_true (relay_trace_is_finished (trace));
}

static void
test_fault (gconstpointer data)
{
  const Fault *fault = data;
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (http_server, NULL, fault->api, fault->override);
  g_autoptr(RelayTrace) trace = probe_once (endpoint, 20, 0);

  assert_failure (trace, fault->stage, fault->kind, fault->needle);
  if (fault->status != 0)
    g_assert_cmpuint (relay_trace_get_http_status (trace), ==, fault->status);
}

static void
test_refused (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(RelayEndpoint) endpoint = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  g_autofree char *url = NULL;
  guint port;

  /* A port that was free a moment ago: nothing listens there. */
  g_assert_true (g_socket_bind (socket, any, TRUE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_socket_close (socket, NULL);

  url = g_strdup_printf ("http://127.0.0.1:%u/v1", port);
  endpoint = relay_endpoint_new ("refused", url, RELAY_API_OPENAI_CHAT);
  trace = probe_once (endpoint, 10, 0);
  assert_failure (trace, RELAY_ERROR_STAGE_CONNECT, "refused", "refused the connection");
}

static void
test_unknown_host (void)
{
  g_autoptr(RelayEndpoint) endpoint = relay_endpoint_new ("nx", "http://nxdomain.relayscope.test:1/v1", RELAY_API_OPENAI_CHAT);
  g_autoptr(RelayTrace) trace = NULL;

  relay_sim_resolver_install ();
  trace = probe_once (endpoint, 10, 0);
  assert_failure (trace, RELAY_ERROR_STAGE_DNS, "unknown-host", "nxdomain.relayscope.test");
}

static void
test_untrusted_certificate (void)
{
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (tls_server, "localhost", RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(RelayTrace) trace = NULL;

  /* Without the test CA the self-signed certificate is not trusted. */
  relay_endpoint_set_ca_file (endpoint, NULL);
  trace = probe_once (endpoint, 10, 0);
  assert_failure (trace, RELAY_ERROR_STAGE_TLS, "untrusted-certificate", "--ca-file");
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_TLS_START));
}

static void
test_trusted_with_ca_file (void)
{
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (tls_server, "localhost", RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(RelayTrace) trace = NULL;
  g_autofree char *ca = relay_test_ca_file ();

  /* The same endpoint with the test CA works: the untrusted case is about the CA only. */
  relay_endpoint_set_ca_file (endpoint, ca);
  trace = probe_once (endpoint, 10, 0);
  g_assert_cmpstr (relay_trace_get_error_message (trace), ==, NULL);
  g_assert_true (relay_trace_is_ok (trace));
}

static void
test_plain_http_to_tls (void)
{
  g_autoptr(RelayEndpoint) endpoint = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  g_autofree char *url = g_strdup_printf ("https://127.0.0.1:%u/v1", relay_sim_server_get_port (http_server));

  /* A plain HTTP server never answers a ClientHello: the handshake stalls until the
   * timeout, and the message must point at the likely cause. */
  endpoint = relay_endpoint_new ("not-tls", url, RELAY_API_OPENAI_CHAT);
  trace = probe_once (endpoint, 1, 0);
  assert_failure (trace, RELAY_ERROR_STAGE_TIMEOUT, "timeout", "may not speak TLS");
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_TLS_START));
  g_assert_false (relay_trace_has_mark (trace, RELAY_MARK_TLS_END));
}

static void
test_stall_timeout (void)
{
  g_autoptr(RelayEndpoint) endpoint =
    relay_test_endpoint (http_server, NULL, RELAY_API_OPENAI_CHAT, "fault=stall, fault_probability=1, fault_after=3");
  g_autoptr(RelayTrace) trace = NULL;
  gint64 total;

  trace = probe_once (endpoint, 1.0, 0);
  assert_failure (trace, RELAY_ERROR_STAGE_TIMEOUT, "timeout", "3 chunks");
  g_assert_cmpuint (relay_trace_get_n_chunks (trace), ==, 3);
  total = relay_trace_get_interval (trace, RELAY_MARK_START, RELAY_MARK_END);
  g_assert_cmpint (total, >=, 1000 * 1000 - 2000);
  g_assert_cmpint (total, <, 5 * 1000 * 1000);
}

static void
test_slow_headers_timeout (void)
{
  g_autoptr(RelayEndpoint) endpoint =
    relay_test_endpoint (http_server, NULL, RELAY_API_OPENAI_CHAT, "headers_delay_ms=3000");
  g_autoptr(RelayTrace) trace = probe_once (endpoint, 0.5, 0);

  assert_failure (trace, RELAY_ERROR_STAGE_TIMEOUT, "timeout", "No response headers");
  g_assert_false (relay_trace_has_mark (trace, RELAY_MARK_RESPONSE_START));
}

static void
test_huge_line (void)
{
  g_autoptr(RelayEndpoint) endpoint =
    relay_test_endpoint (http_server, NULL, RELAY_API_OPENAI_CHAT,
                         "fault=huge-line, fault_probability=1, fault_after=2, fault_bytes=3000000");
  g_autoptr(RelayTrace) trace = probe_once (endpoint, 20, 1024 * 1024);

  assert_failure (trace, RELAY_ERROR_STAGE_PARSE, "line-too-long", "1");
  g_assert_cmpuint (relay_trace_get_n_chunks (trace), ==, 2);
}

static void
test_bad_ca_file (void)
{
  g_autoptr(RelayEndpoint) endpoint = relay_test_endpoint (tls_server, "localhost", RELAY_API_OPENAI_CHAT, NULL);
  g_autoptr(RelayTrace) trace = NULL;

  relay_endpoint_set_ca_file (endpoint, "/nonexistent/ca.pem");
  trace = probe_once (endpoint, 5, 0);
  assert_failure (trace, RELAY_ERROR_STAGE_TLS, "ca-file", "/nonexistent/ca.pem");
}

static void
test_bad_url (void)
{
  g_autoptr(RelayEndpoint) endpoint = relay_endpoint_new ("bad", "http://[::1/v1", RELAY_API_OPENAI_CHAT);
  g_autoptr(RelayTrace) trace = probe_once (endpoint, 5, 0);

  g_assert_cmpint (relay_trace_get_error_stage (trace), !=, RELAY_ERROR_STAGE_NONE);
  g_assert_nonnull (relay_trace_get_error_message (trace));
}

/* A small server on the test's own main context (relay_test_run_plan turns it while it
 * waits), for answers the simulated relay does not give. */
static SoupServer *
start_soup_server (GTlsCertificate    *certificate,
                   SoupServerCallback  callback,
                   gpointer            user_data,
                   guint              *port)
{
  SoupServer *server = soup_server_new ("tls-certificate", certificate, NULL);
  g_autoptr(GError) error = NULL;
  GSList *uris;

  soup_server_add_handler (server, NULL, callback, user_data, NULL);
  soup_server_listen_local (server, 0,
                            SOUP_SERVER_LISTEN_IPV4_ONLY |
                            (certificate != NULL ? SOUP_SERVER_LISTEN_HTTPS : 0),
                            &error);
  g_assert_no_error (error);

  uris = soup_server_get_uris (server);
  g_assert_nonnull (uris);
  *port = g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  return server;
}

static const char sse_stream[] =
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n"
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" there\"}}]}\n\n"
  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
  "data: [DONE]\n\n";

static void
never_called (SoupServer        *server,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  soup_server_message_set_status (msg, 500, NULL);
}

static void
test_expired_certificate (void)
{
  g_autofree char *cert_file = g_test_build_filename (G_TEST_DIST, "tls", "expired-cert.pem", NULL);
  g_autofree char *key_file = g_test_build_filename (G_TEST_DIST, "tls", "expired-key.pem", NULL);
  g_autofree char *ca = relay_test_ca_file ();
  g_autoptr(GTlsCertificate) certificate = NULL;
  g_autoptr(SoupServer) server = NULL;
  g_autoptr(RelayEndpoint) endpoint = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  guint port;

  /* Signed by the test CA, which the endpoint trusts: expiry is the only fault. */
  certificate = g_tls_certificate_new_from_files (cert_file, key_file, &error);
  g_assert_no_error (error);
  server = start_soup_server (certificate, never_called, NULL, &port);
  url = g_strdup_printf ("https://localhost:%u/v1", port);
  endpoint = relay_endpoint_new ("expired", url, RELAY_API_OPENAI_CHAT);
  relay_endpoint_set_ca_file (endpoint, ca);
  trace = probe_once (endpoint, 10, 0);
  assert_failure (trace, RELAY_ERROR_STAGE_TLS, "expired-certificate", "expired");
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_TLS_START));
  g_assert_false (relay_trace_has_mark (trace, RELAY_MARK_RESPONSE_START));
}

static gboolean
hold_connection (GSocketService    *service,
                 GSocketConnection *connection,
                 GObject           *source_object,
                 gpointer           user_data)
{
  GPtrArray *held = user_data;

  /* Accept, then neither read nor write: the ClientHello is never answered. */
  g_ptr_array_add (held, g_object_ref (connection));
  return TRUE;
}

static void
test_handshake_never_completes (void)
{
  g_autoptr(GSocketService) service = g_socket_service_new ();
  g_autoptr(GPtrArray) held = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(RelayEndpoint) endpoint = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;

  g_socket_listener_add_address (G_SOCKET_LISTENER (service), any, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &bound, &error);
  g_assert_no_error (error);
  g_signal_connect (service, "incoming", G_CALLBACK (hold_connection), held);
  g_socket_service_start (service);

  url = g_strdup_printf ("https://localhost:%u/v1",
                         g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  endpoint = relay_endpoint_new ("silent-tls", url, RELAY_API_OPENAI_CHAT);
  trace = probe_once (endpoint, 1, 0);

  g_assert_cmpuint (held->len, >=, 1);
  assert_failure (trace, RELAY_ERROR_STAGE_TIMEOUT, "timeout", "handshake");
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_TCP_END));
  g_assert_true (relay_trace_has_mark (trace, RELAY_MARK_TLS_START));
  g_assert_false (relay_trace_has_mark (trace, RELAY_MARK_TLS_END));

  g_socket_service_stop (service);
  g_socket_listener_close (G_SOCKET_LISTENER (service));
}

/* The peak resident set in KiB (VmHWM), after resetting it where the kernel allows. */
static guint64
peak_rss_kib (gboolean reset)
{
  g_autofree char *status = NULL;
  const char *line;

  if (reset)
    {
      /* "5" resets the peak to the current size (Linux 4.0); without it the check is
       * against the process's earlier peak, which is only weaker. */
      FILE *f = fopen ("/proc/self/clear_refs", "w");

      if (f != NULL)
        {
          fputs ("5", f);
          fclose (f);
        }
    }

  g_assert_true (g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  line = strstr (status, "VmHWM:");
  g_assert_nonnull (line);

  return g_ascii_strtoull (line + strlen ("VmHWM:"), NULL, 10);
}

static void
test_huge_line_default_cap (void)
{
  g_autoptr(RelayEndpoint) endpoint =
    relay_test_endpoint (http_server, NULL, RELAY_API_OPENAI_CHAT,
                         "fault=huge-line, fault_probability=1, fault_after=2, fault_bytes=50000000");
  g_autoptr(RelayTrace) trace = NULL;
  guint64 before, after;

  /* One 50 MB line against the default 16 MiB cap: the probe stops at the cap and says so,
   * and memory grows by about the cap, not by the line. */
  before = peak_rss_kib (TRUE);
  trace = probe_once (endpoint, 60, 0);
  after = peak_rss_kib (FALSE);

  g_test_message ("peak RSS %" G_GUINT64_FORMAT " → %" G_GUINT64_FORMAT " KiB", before, after);
  assert_failure (trace, RELAY_ERROR_STAGE_PARSE, "line-too-long", "16 MiB");
  g_assert_cmpuint (relay_trace_get_n_chunks (trace), ==, 2);
#ifdef __SANITIZE_ADDRESS__
  /* ASan keeps freed blocks in quarantine on purpose: resident size says nothing there. */
  g_test_message ("ASan build: the memory bound is not checked");
#else
  g_assert_cmpuint (after, <, before + 40 * 1024);
#endif
}

static GBytes *
gzip_bytes (const char *text)
{
  g_autoptr(GZlibCompressor) compressor = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, -1);
  g_autoptr(GOutputStream) memory = g_memory_output_stream_new_resizable ();
  g_autoptr(GOutputStream) out = g_converter_output_stream_new (memory, G_CONVERTER (compressor));
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all (out, text, strlen (text), NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_close (out, NULL, &error);
  g_assert_no_error (error);

  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (memory));
}

/* A relay that compresses the stream whatever the client asked for. */
static void
gzip_handler (SoupServer        *server,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  g_autoptr(GBytes) body = gzip_bytes (sse_stream);
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

  soup_message_headers_replace (headers, "Content-Encoding", "gzip");
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "text/event-stream", SOUP_MEMORY_COPY,
                                    g_bytes_get_data (body, NULL), g_bytes_get_size (body));
}

static void
test_gzip_stream (void)
{
  g_autoptr(SoupServer) server = NULL;
  g_autoptr(RelayEndpoint) endpoint = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  g_autofree char *url = NULL;
  guint port;

  /* Compression batches tokens and hides their timing: the probe must say the relay
   * compressed the stream, not report smooth or broken streaming. */
  server = start_soup_server (NULL, gzip_handler, NULL, &port);
  url = g_strdup_printf ("http://127.0.0.1:%u/v1", port);
  endpoint = relay_endpoint_new ("gzip", url, RELAY_API_OPENAI_CHAT);
  trace = probe_once (endpoint, 10, 0);

  assert_failure (trace, RELAY_ERROR_STAGE_STREAM, "compressed", "Content-Encoding");
  g_assert_cmpuint (relay_trace_get_http_status (trace), ==, 200);
}

typedef struct
{
  char  *target;     /* where /v1 redirects to */
  guint  n_followed; /* requests that reached the target */
} Redirect;

static void
redirect_handler (SoupServer        *server,
                  SoupServerMessage *msg,
                  const char        *path,
                  GHashTable        *query,
                  gpointer           user_data)
{
  Redirect *redirect = user_data;

  if (g_str_has_prefix (path, "/v1/"))
    {
      soup_server_message_set_redirect (msg, 307, redirect->target);
      return;
    }

  /* The target streams normally: a prober that followed silently would see success. */
  redirect->n_followed++;
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "text/event-stream", SOUP_MEMORY_STATIC,
                                    sse_stream, strlen (sse_stream));
}

static void
test_redirect (void)
{
  Redirect redirect = { 0 };
  g_autoptr(SoupServer) server = NULL;
  g_autoptr(RelayEndpoint) endpoint = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  g_autofree char *url = NULL;
  guint port;

  server = start_soup_server (NULL, redirect_handler, &redirect, &port);
  redirect.target = g_strdup_printf ("http://127.0.0.1:%u/moved/chat/completions", port);
  url = g_strdup_printf ("http://127.0.0.1:%u/v1", port);
  endpoint = relay_endpoint_new ("redirect", url, RELAY_API_OPENAI_CHAT);
  trace = probe_once (endpoint, 10, 0);

  /* A relay's base URL that redirects is a wrong base URL: say where it points. */
  assert_failure (trace, RELAY_ERROR_STAGE_HTTP, "redirect", redirect.target);
  g_assert_cmpuint (relay_trace_get_http_status (trace), ==, 307);
  g_assert_cmpuint (redirect.n_followed, ==, 0);

  g_free (redirect.target);
}

int
main (int    argc,
      char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);

  http_server = relay_test_start_sim ("fast", FALSE, quick_profile);
  tls_server = relay_test_start_sim ("fast", TRUE, quick_profile);

  for (guint i = 0; i < G_N_ELEMENTS (faults); i++)
    {
      g_autofree char *path = g_strdup_printf ("/faults/%s", faults[i].name);
      g_test_add_data_func (path, &faults[i], test_fault);
    }
  g_test_add_func ("/faults/refused", test_refused);
  g_test_add_func ("/faults/unknown-host", test_unknown_host);
  g_test_add_func ("/faults/untrusted-certificate", test_untrusted_certificate);
  g_test_add_func ("/faults/trusted-with-ca-file", test_trusted_with_ca_file);
  g_test_add_func ("/faults/https-to-plain-http", test_plain_http_to_tls);
  g_test_add_func ("/faults/stall-timeout", test_stall_timeout);
  g_test_add_func ("/faults/slow-headers-timeout", test_slow_headers_timeout);
  g_test_add_func ("/faults/huge-line", test_huge_line);
  g_test_add_func ("/faults/bad-ca-file", test_bad_ca_file);
  g_test_add_func ("/faults/bad-url", test_bad_url);
  g_test_add_func ("/faults/expired-certificate", test_expired_certificate);
  g_test_add_func ("/faults/handshake-never-completes", test_handshake_never_completes);
  g_test_add_func ("/faults/huge-line-default-cap", test_huge_line_default_cap);
  g_test_add_func ("/faults/gzip-stream", test_gzip_stream);
  g_test_add_func ("/faults/redirect", test_redirect);

  status = g_test_run ();

  g_clear_object (&http_server);
  g_clear_object (&tls_server);

  return status;
}
