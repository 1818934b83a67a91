/* relay-test-util.h: helpers shared by the engine's tests: run a plan against the
 * simulated relay and wait for it.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "relay-prober.h"
#include "relay-sim-server.h"

typedef struct
{
  gboolean  done;
  GError   *error;
  guint     added;
  guint     changed;
  guint     finished;
} RelayTestRun;

static inline void
relay_test_run_done (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  RelayTestRun *run = user_data;

  relay_prober_run_finish (RELAY_PROBER (object), result, &run->error);
  run->done = TRUE;
}

static inline void
relay_test_count_added (RelayProber *prober, RelayTrace *trace, RelayTestRun *run)
{
  run->added++;
}

static inline void
relay_test_count_changed (RelayProber *prober, RelayTrace *trace, RelayTestRun *run)
{
  run->changed++;
}

static inline void
relay_test_count_finished (RelayProber *prober, RelayTrace *trace, RelayTestRun *run)
{
  g_assert_true (relay_trace_is_finished (trace));
  run->finished++;
}

static inline char *
relay_test_key_func (RelayEndpoint *endpoint,
                     gpointer       user_data)
{
  return g_strdup ("test-key");
}

/* Runs plan into session, waits (failing after 60 s), returns the run's GError or NULL. */
static inline GError *
relay_test_run_plan (RelayProbePlan *plan,
                     RelaySession   *session,
                     GCancellable   *cancellable,
                     RelayTestRun   *out)
{
  g_autoptr(RelayProber) prober = relay_prober_new ();
  RelayTestRun run = { 0 };
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  relay_prober_set_key_func (prober, relay_test_key_func, NULL, NULL);
  g_signal_connect (prober, "trace-added", G_CALLBACK (relay_test_count_added), &run);
  g_signal_connect (prober, "trace-changed", G_CALLBACK (relay_test_count_changed), &run);
  g_signal_connect (prober, "trace-finished", G_CALLBACK (relay_test_count_finished), &run);
  relay_prober_run_async (prober, plan, session, cancellable, relay_test_run_done, &run);

  while (!run.done)
    {
      g_main_context_iteration (NULL, TRUE);
      if (g_get_monotonic_time () > deadline)
        g_error ("the probe run did not finish within 60 s");
    }

  g_assert_cmpuint (run.added, ==, run.finished);
  if (out != NULL)
    *out = run;
  return run.error;
}

static inline RelaySimServer *
relay_test_start_sim (const char *profile_name,
                      gboolean    tls,
                      void      (*tweak) (RelaySimProfile *profile))
{
  RelaySimProfile profile = { 0 };
  g_autoptr(GError) error = NULL;
  RelaySimServer *server;

  g_assert_true (relay_sim_profile_init_named (&profile, profile_name));
  profile.seed = 42;
  if (tweak != NULL)
    tweak (&profile);
  server = relay_sim_server_new (&profile);
  relay_sim_profile_clear (&profile);
  relay_sim_server_start (server, 0, tls, &error);
  g_assert_no_error (error);

  return server;
}

static inline char *
relay_test_ca_file (void)
{
  return g_test_build_filename (G_TEST_DIST, "tls", "cert.pem", NULL);
}

/* An endpoint for the simulated relay; host replaces 127.0.0.1 when not NULL. */
static inline RelayEndpoint *
relay_test_endpoint (RelaySimServer *server,
                     const char     *host,
                     RelayApi        api,
                     const char     *override)
{
  g_autofree char *root = relay_sim_server_dup_root_url (server, host);
  g_autofree char *base = api == RELAY_API_OPENAI_CHAT ? g_strconcat (root, "/v1", NULL) : g_strdup (root);
  g_autofree char *ca = relay_test_ca_file ();
  RelayEndpoint *endpoint = relay_endpoint_new (override ? override : "sim", base, api);
  const char *models[] = { "sim-model", NULL };

  relay_endpoint_set_models (endpoint, models);
  if (g_str_has_prefix (root, "https:"))
    relay_endpoint_set_ca_file (endpoint, ca);
  if (override != NULL)
    {
      g_autofree char *header = g_strdup_printf ("X-Relayscope-Sim: %s", override);
      const char *headers[] = { header, NULL };

      relay_endpoint_set_headers (endpoint, headers);
    }

  return endpoint;
}

static inline RelayTrace *
relay_test_get_trace (RelaySession *session,
                      guint         i)
{
  GListModel *traces = relay_session_get_traces (session);

  g_assert_cmpuint (i, <, g_list_model_get_n_items (traces));
  return g_list_model_get_item (traces, i);
}

static inline double
relay_test_ms (RelayTrace *trace,
               RelayMark   from,
               RelayMark   to)
{
  gint64 d = relay_trace_get_interval (trace, from, to);

  g_assert_cmpint (d, !=, RELAY_TIME_NONE);
  return d / 1000.0;
}
