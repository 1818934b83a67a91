/* test-ui-demo.c: demo mode end to end: the simulated relays start in-process, a small
 * plan runs, and the waterfall, stream view and table hold what it measured.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "relay-application.h"
#include "relay-test-ui.h"
#include "relay-window.h"

#define RUN_TIMEOUT_S 60

static RelayApplication *app;
static char *tmpdir;

static gboolean
timeout_cb (gpointer user_data)
{
  gboolean *timed_out = user_data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
wait_for (gboolean (*check) (gpointer),
          gpointer  data,
          guint     seconds)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add_seconds (seconds, timeout_cb, &timed_out);

  while (!check (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);

  if (!timed_out)
    g_source_remove (id);

  return !timed_out;
}

static gboolean
is_mapped (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (data));
}

static gboolean
is_idle (gpointer data)
{
  return !relay_window_get_running (RELAY_WINDOW (data));
}

static void
test_demo_run (void)
{
  RelayWindow *window = relay_window_new (app);
  GListStore *endpoints = relay_application_get_endpoints (app);
  RelaySimDemo *demo;
  RelayWaterfallPainter *waterfall;
  RelayStreamPainter *stream;
  GListModel *traces;
  GListModel *rows;
  guint n_relays;
  guint n_traces;
  guint n_ok = 0;
  guint n_chunks = 0;
  g_autofree char *description = NULL;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (wait_for (is_mapped, window, 20));

  /* No endpoint configured: the demo is what a newcomer gets. */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (endpoints)), ==, 0);

  g_assert_true (relay_window_start_demo (window, 2, 2));
  g_assert_true (relay_window_get_running (window));

  demo = relay_application_ensure_demo (app, NULL);
  g_assert_nonnull (demo);
  n_relays = relay_sim_demo_get_n_relays (demo);
  g_assert_cmpuint (n_relays, ==, 4);

  /* Every demo endpoint is marked simulated and trusts the demo CA. */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (endpoints)), ==, n_relays);
  for (guint i = 0; i < n_relays; i++)
    {
      g_autoptr(RelayEndpoint) endpoint = g_list_model_get_item (G_LIST_MODEL (endpoints), i);

      g_assert_true (relay_endpoint_get_simulated (endpoint));
      g_assert_cmpstr (relay_endpoint_get_ca_file (endpoint), ==, relay_sim_demo_get_ca_file (demo));
    }

  if (!wait_for (is_idle, window, RUN_TIMEOUT_S))
    g_error ("The demo run did not finish within %d s", RUN_TIMEOUT_S);

  /* The waterfall holds every trace of the run. */
  waterfall = relay_waterfall_view_get_painter (relay_window_get_waterfall_view (window));
  traces = relay_waterfall_painter_get_traces (waterfall);
  n_traces = g_list_model_get_n_items (traces);
  g_assert_cmpuint (n_traces, ==, n_relays * 2);
  g_assert_true (relay_waterfall_painter_get_n_rows (waterfall) >= n_traces);

  for (guint i = 0; i < n_traces; i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);

      g_assert_true (relay_trace_is_finished (trace));
      if (relay_trace_is_ok (trace))
        n_ok++;
    }
  g_assert_cmpuint (n_ok, ==, n_traces);

  /* The stream view shows chunks. */
  stream = relay_stream_view_get_painter (relay_window_get_stream_view (window));
  traces = relay_stream_painter_get_traces (stream);
  g_assert_nonnull (traces);
  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);

      n_chunks += relay_trace_get_n_chunks (trace);
    }
  g_assert_cmpuint (n_chunks, >, 0);

  description = relay_stream_view_describe (relay_window_get_stream_view (window));
  g_assert_nonnull (strstr (description, "chunks"));

  /* One table row per demo relay (each serves one model). */
  rows = relay_summary_table_get_model (relay_window_get_summary_table (window));
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, n_relays);
  for (guint i = 0; i < n_relays; i++)
    {
      g_autoptr(RelaySummaryItem) item = g_list_model_get_item (rows, i);
      const RelaySummaryRow *row = relay_summary_item_get_row (item);

      g_assert_cmpuint (row->n, ==, 2);
      g_assert_cmpuint (row->errors, ==, 0);
      g_assert_cmpfloat (row->stats[RELAY_METRIC_TTFT].p50, >, 0);
    }

  /* Demo endpoints are never written to the user's endpoints file. */
  g_assert_true (relay_application_save_endpoints (app, NULL));
  {
    g_autofree char *path = g_build_filename (g_get_user_config_dir (), "relayscope", "endpoints.json", NULL);
    g_autofree char *data = NULL;

    g_assert_true (g_file_get_contents (path, &data, NULL, NULL));
    g_assert_null (strstr (data, "relayscope.test"));
  }

  relay_session_set_modified (relay_window_get_session (window), FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  if ((tmpdir = relay_test_ui_prepare ("demo")) == NULL)
    return 0;

  gtk_test_init (&argc, &argv, NULL);
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR);

  app = relay_test_ui_app_new ();

  g_test_add_func ("/ui/demo/run", test_demo_run);

  status = g_test_run ();

  g_clear_object (&app);
  remove_tree (tmpdir);
  g_free (tmpdir);

  return status;
}
