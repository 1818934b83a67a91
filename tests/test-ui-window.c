/* test-ui-window.c: the main window under a real display: it maps, its actions exist,
 * sessions load into the views, save then open round-trips, exports have the asked size.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>

#include "relay-application.h"
#include "relay-test-ui.h"
#include "relay-window.h"

static RelayApplication *app;
static char *tmpdir;

static gboolean
timeout_cb (gpointer user_data)
{
  gboolean *timed_out = user_data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

/* Spins the main loop until *flag or the timeout; FALSE on timeout. */
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

static void
flush_events (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static RelayWindow *
new_window (void)
{
  RelayWindow *window = relay_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (wait_for (is_mapped, window, 20));
  flush_events ();

  return window;
}

static void
close_window (RelayWindow *window)
{
  /* Tests check the content, not the unsaved-work prompt. */
  relay_session_set_modified (relay_window_get_session (window), FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
  flush_events ();
}

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "sessions", name, NULL);
}

/* A session of three endpoint × model pairs, built here so the test knows its truth. */
static RelaySession *
build_session (void)
{
  static const struct {
    const char *endpoint;
    const char *model;
    gint64      ttft_ms;
  } pairs[] = {
    { "relay-east", "model-a", 180 },
    { "relay-east", "model-b", 420 },
    { "relay-west", "model-a", 260 },
  };
  RelaySession *session = relay_session_new ();

  relay_session_set_title (session, "Window test");
  relay_session_set_notes (session, "Three pairs, two traces each");

  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      g_autoptr(RelayRun) run = relay_run_new (pairs[i].endpoint, pairs[i].model);
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
      guint index;

      if (relay_session_find_endpoint (session, pairs[i].endpoint) == NULL)
        {
          g_autoptr(RelayEndpoint) endpoint = relay_endpoint_new (pairs[i].endpoint,
                                                                  "https://relay.example.test/v1",
                                                                  RELAY_API_OPENAI_CHAT);

          relay_session_add_endpoint (session, endpoint);
        }

      relay_run_set_prompt (run, "Hello");
      relay_run_set_prompt_preset (run, "short");
      relay_run_set_max_tokens (run, 64);
      relay_run_set_repeat (run, 2);
      relay_run_set_concurrency (run, 1);
      relay_run_set_started (run, now);
      index = relay_session_add_run (session, run);

      for (guint seq = 0; seq < 2; seq++)
        {
          g_autoptr(RelayTrace) trace = relay_trace_new (index, seq);
          gint64 ttft = pairs[i].ttft_ms * 1000 + seq * 10000;

          relay_trace_set_wall_start (trace, now);
          relay_trace_set_mark (trace, RELAY_MARK_START, 0);
          relay_trace_set_mark (trace, RELAY_MARK_DNS_START, 100);
          relay_trace_set_mark (trace, RELAY_MARK_DNS_END, 5000);
          relay_trace_set_mark (trace, RELAY_MARK_CONNECT_START, 5000);
          relay_trace_set_mark (trace, RELAY_MARK_TCP_END, 6000);
          relay_trace_set_mark (trace, RELAY_MARK_TLS_START, 8000);
          relay_trace_set_mark (trace, RELAY_MARK_TLS_END, 12000);
          relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, 12000);
          relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, 12500);
          relay_trace_set_mark (trace, RELAY_MARK_RESPONSE_START, ttft - 40000);
          relay_trace_set_mark (trace, RELAY_MARK_FIRST_BYTE, ttft - 30000);
          relay_trace_set_mark (trace, RELAY_MARK_FIRST_EVENT, ttft - 20000);
          relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, ttft);
          relay_trace_set_mark (trace, RELAY_MARK_FIRST_CONTENT, ttft);
          for (guint c = 0; c < 20; c++)
            relay_trace_add_chunk (trace, ttft + c * 15000, RELAY_CHUNK_CONTENT, 60, 8);
          relay_trace_set_mark (trace, RELAY_MARK_LAST_TOKEN, ttft + 19 * 15000);
          relay_trace_set_mark (trace, RELAY_MARK_END, ttft + 19 * 15000 + 2000);
          relay_trace_set_http_status (trace, 200);
          relay_trace_set_http_version (trace, "HTTP/1.1");
          relay_session_add_trace (session, trace);
        }
    }

  return session;
}

static void
test_window_maps (void)
{
  RelayWindow *window = new_window ();
  static const char *window_actions[] = {
    "win.open", "win.save", "win.save-as", "win.new-session", "win.export", "win.copy-picture",
    "win.add-endpoint", "win.import-environment", "win.demo", "probe.run", "probe.stop",
    "chart.zoom-in", "chart.zoom-out", "chart.zoom-reset",
  };
  static const char *app_actions[] = { "quit", "about", "shortcuts", "new-window" };
  g_auto(GStrv) accels = NULL;

  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (window)));
  g_assert_nonnull (relay_window_get_session (window));
  g_assert_false (relay_window_get_running (window));

  for (guint i = 0; i < G_N_ELEMENTS (window_actions); i++)
    {
      gboolean found = FALSE;
      GType owner;
      const char *name;
      const GVariantType *param;
      const char *property;

      for (guint j = 0;
           gtk_widget_class_query_action (GTK_WIDGET_GET_CLASS (window), j, &owner, &name, &param, &property);
           j++)
        if (g_str_equal (name, window_actions[i]))
          found = TRUE;

      g_assert_true (found);
    }

  for (guint i = 0; i < G_N_ELEMENTS (app_actions); i++)
    g_assert_nonnull (g_action_map_lookup_action (G_ACTION_MAP (app), app_actions[i]));

  accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.save");
  g_assert_cmpstr (accels[0], ==, "<Control>s");

  close_window (window);
}

static void
test_window_load_fixture (void)
{
  RelayWindow *window = new_window ();
  g_autofree char *path = data_path ("valid.relayscope");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GListModel *rows;
  g_autoptr(RelaySummaryItem) item = NULL;

  g_assert_true (relay_window_load_file (window, file, &error));
  g_assert_no_error (error);
  flush_events ();

  /* The fixture holds one run of relay-a × model-small with two traces. */
  rows = relay_summary_table_get_model (relay_window_get_summary_table (window));
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 1);
  item = g_list_model_get_item (rows, 0);
  g_assert_cmpstr (relay_summary_item_get_row (item)->endpoint, ==, "relay-a");
  g_assert_cmpstr (relay_summary_item_get_row (item)->model, ==, "model-small");
  g_assert_cmpuint (relay_summary_item_get_row (item)->n, ==, 2);

  g_assert_cmpuint (g_list_model_get_n_items (relay_waterfall_painter_get_traces (
                      relay_waterfall_view_get_painter (relay_window_get_waterfall_view (window)))), ==, 2);

  close_window (window);
}

static void
test_window_table_rows (void)
{
  RelayWindow *window = new_window ();
  g_autoptr(RelaySession) session = build_session ();
  g_autofree char *path = g_build_filename (tmpdir, "built.relayscope", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GListModel *rows;

  g_assert_true (relay_session_save (session, file, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (relay_window_load_file (window, file, &error));
  g_assert_no_error (error);
  flush_events ();

  rows = relay_summary_table_get_model (relay_window_get_summary_table (window));
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 3);

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(RelaySummaryItem) item = g_list_model_get_item (rows, i);
      const RelaySummaryRow *row = relay_summary_item_get_row (item);
      double expected = (i == 0 ? 180 : i == 1 ? 420 : 260) + 5.0;   /* median of x and x + 10 */

      g_assert_cmpuint (row->n, ==, 2);
      g_assert_cmpuint (row->errors, ==, 0);
      g_assert_cmpfloat_with_epsilon (row->stats[RELAY_METRIC_TTFT].p50, expected, 0.01);
    }

  g_assert_cmpstr (relay_session_get_title (relay_window_get_session (window)), ==, "Window test");

  close_window (window);
}

/* Up/Down (bound to waterfall.select-row) walk the traces, skipping group headers; Enter
 * (waterfall.activate-selected) opens the selected trace's details; the stream view shows
 * the selected trace alone. */
static void
test_window_keyboard (void)
{
  RelayWindow *window = new_window ();
  g_autoptr(RelaySession) session = build_session ();
  g_autofree char *path = g_build_filename (tmpdir, "keyboard.relayscope", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  RelayWaterfallView *view = relay_window_get_waterfall_view (window);
  RelayWaterfallPainter *painter = relay_waterfall_view_get_painter (view);
  RelayStreamPainter *stream = relay_stream_view_get_painter (relay_window_get_stream_view (window));
  GListModel *traces;
  RelayTrace *first, *second, *third;

  g_assert_true (relay_session_save (session, file, NULL, &error));
  g_assert_true (relay_window_load_file (window, file, &error));
  g_assert_no_error (error);
  flush_events ();

  traces = relay_session_get_traces (relay_window_get_session (window));
  g_assert_null (relay_waterfall_view_get_selected (view));
  gtk_widget_grab_focus (GTK_WIDGET (view));
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (view)));

  /* Rows: header, trace, trace, header, trace, … */
  g_assert_null (relay_waterfall_painter_get_row_trace (painter, 0));
  first = relay_waterfall_painter_get_row_trace (painter, 1);
  second = relay_waterfall_painter_get_row_trace (painter, 2);
  g_assert_null (relay_waterfall_painter_get_row_trace (painter, 3));
  third = relay_waterfall_painter_get_row_trace (painter, 4);
  g_assert_nonnull (first);
  g_assert_nonnull (second);
  g_assert_nonnull (third);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "waterfall.select-row", "i", 1));
  g_assert_true (relay_waterfall_view_get_selected (view) == first);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "waterfall.select-row", "i", 1));
  g_assert_true (relay_waterfall_view_get_selected (view) == second);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "waterfall.select-row", "i", 1));
  g_assert_true (relay_waterfall_view_get_selected (view) == third);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "waterfall.select-row", "i", -1));
  g_assert_true (relay_waterfall_view_get_selected (view) == second);

  /* The stream view follows the selection. */
  g_assert_cmpuint (g_list_model_get_n_items (relay_stream_painter_get_traces (stream)), ==, 1);

  /* End, then Down: stays on the last trace. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "waterfall.select-row", "i", G_MAXINT));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "waterfall.select-row", "i", 1));
  g_assert_true (relay_waterfall_view_get_selected (view) ==
                 relay_waterfall_painter_get_row_trace (painter, relay_waterfall_painter_get_n_rows (painter) - 1));

  /* Home, then Enter: the first trace's details are shown. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "waterfall.select-row", "i", G_MININT));
  g_assert_true (relay_waterfall_view_get_selected (view) == first);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "waterfall.activate-selected", NULL));
  flush_events ();
  g_assert_true (relay_trace_details_get_trace (relay_window_get_trace_details (window)) == first);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (relay_window_get_trace_details (window))));

  /* No selection: the stream view shows every trace again. */
  relay_waterfall_view_set_selected (view, NULL);
  g_assert_cmpuint (g_list_model_get_n_items (relay_stream_painter_get_traces (stream)), ==,
                    g_list_model_get_n_items (traces));

  close_window (window);
}

static GtkColumnView *
find_column_view (GtkWidget *widget)
{
  if (GTK_IS_COLUMN_VIEW (widget))
    return GTK_COLUMN_VIEW (widget);

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkColumnView *found = find_column_view (child);

      if (found != NULL)
        return found;
    }

  return NULL;
}

/* A metric's column shows "p50 / p95" and sorts by the median; errors come early. */
static void
test_window_table_sort (void)
{
  RelayWindow *window = new_window ();
  g_autoptr(RelaySession) session = build_session ();
  g_autofree char *path = g_build_filename (tmpdir, "sort.relayscope", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GtkColumnView *view;
  GListModel *columns;
  GListModel *rows;
  GtkColumnViewColumn *ttft = NULL;
  const char *titles[4] = { NULL };
  static const double expected[] = { 185, 265, 425 };   /* medians of x and x + 10 */

  g_assert_true (relay_session_save (session, file, NULL, &error));
  g_assert_true (relay_window_load_file (window, file, &error));
  g_assert_no_error (error);
  flush_events ();

  view = find_column_view (GTK_WIDGET (relay_window_get_summary_table (window)));
  g_assert_nonnull (view);
  columns = gtk_column_view_get_columns (view);

  /* The figures users compare first are among the first columns. */
  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      titles[i] = gtk_column_view_column_get_title (column);
    }
  g_assert_cmpstr (titles[0], ==, "Endpoint");
  g_assert_cmpstr (titles[3], ==, "Errors");

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (g_strcmp0 (gtk_column_view_column_get_title (column), "TTFT") == 0)
        ttft = column;
    }
  g_assert_nonnull (ttft);
  g_assert_cmpuint (g_list_model_get_n_items (columns), <=, 12);

  gtk_column_view_sort_by_column (view, ttft, GTK_SORT_ASCENDING);
  rows = G_LIST_MODEL (gtk_column_view_get_model (view));
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(RelaySummaryItem) item = g_list_model_get_item (rows, i);

      g_assert_cmpfloat_with_epsilon (relay_summary_item_get_row (item)->stats[RELAY_METRIC_TTFT].p50,
                                      expected[i], 0.01);
    }

  gtk_column_view_sort_by_column (view, ttft, GTK_SORT_DESCENDING);
  {
    g_autoptr(RelaySummaryItem) item = g_list_model_get_item (rows, 0);

    g_assert_cmpfloat_with_epsilon (relay_summary_item_get_row (item)->stats[RELAY_METRIC_TTFT].p50, 425, 0.01);
  }

  close_window (window);
}

static void
test_window_save_open (void)
{
  RelayWindow *window = new_window ();
  RelayWindow *second;
  g_autoptr(RelaySession) session = build_session ();
  g_autofree char *first_path = g_build_filename (tmpdir, "first.relayscope", NULL);
  g_autofree char *second_path = g_build_filename (tmpdir, "second.relayscope", NULL);
  g_autoptr(GFile) first_file = g_file_new_for_path (first_path);
  g_autoptr(GFile) second_file = g_file_new_for_path (second_path);
  g_autofree char *first_data = NULL;
  g_autofree char *second_data = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (relay_session_save (session, first_file, NULL, &error));
  g_assert_true (relay_window_load_file (window, first_file, &error));
  g_assert_no_error (error);

  /* Save from the window, open that in another window, save again: same bytes. */
  g_assert_true (relay_window_save_to_file (window, second_file, &error));
  g_assert_no_error (error);
  g_assert_false (relay_session_get_modified (relay_window_get_session (window)));
  g_assert_true (g_file_equal (relay_window_get_file (window), second_file));

  second = new_window ();
  g_assert_true (relay_window_load_file (second, second_file, &error));
  g_assert_no_error (error);
  g_assert_true (relay_window_save_to_file (second, first_file, &error));
  g_assert_no_error (error);

  g_assert_true (g_file_get_contents (first_path, &first_data, NULL, NULL));
  g_assert_true (g_file_get_contents (second_path, &second_data, NULL, NULL));
  g_assert_cmpstr (first_data, ==, second_data);

  g_assert_cmpuint (g_list_model_get_n_items (relay_summary_table_get_model (relay_window_get_summary_table (second))), ==, 3);

  close_window (second);
  close_window (window);
}

static void
test_window_bad_file (void)
{
  RelayWindow *window = new_window ();
  RelaySession *before = relay_window_get_session (window);
  g_autofree char *source = data_path ("newer-version.relayscope");
  g_autofree char *path = g_build_filename (tmpdir, "newer.relayscope", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *original = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (source, &original, &len, NULL));
  g_assert_true (g_file_set_contents (path, original, len, NULL));

  g_assert_false (relay_window_load_file (window, file, &error));
  g_assert_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_VERSION);
  g_assert_true (relay_window_get_session (window) == before);

  /* Never written on failure. */
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, original);

  close_window (window);
}

static void
check_png_size (const char *path,
                int         width,
                int         height)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) texture = gdk_texture_new_from_filename (path, &error);

  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, width);
  g_assert_cmpint (gdk_texture_get_height (texture), ==, height);
}

static void
check_svg_size (const char *path,
                int         width,
                int         height)
{
  g_autofree char *data = NULL;
  g_autofree char *width_attr = g_strdup_printf ("width=\"%d", width);
  g_autofree char *height_attr = g_strdup_printf ("height=\"%d", height);
  char *svg;

  g_assert_true (g_file_get_contents (path, &data, NULL, NULL));
  svg = strstr (data, "<svg");
  g_assert_nonnull (svg);
  /* The root element carries the size. */
  *strchr (svg, '>') = '\0';
  g_assert_nonnull (strstr (svg, width_attr));
  g_assert_nonnull (strstr (svg, height_attr));
}

static void
test_window_export (void)
{
  RelayWindow *window = new_window ();
  g_autoptr(RelaySession) session = build_session ();
  g_autofree char *session_path = g_build_filename (tmpdir, "export.relayscope", NULL);
  g_autofree char *png = g_build_filename (tmpdir, "waterfall.png", NULL);
  g_autofree char *svg = g_build_filename (tmpdir, "waterfall.svg", NULL);
  g_autofree char *stream_png = g_build_filename (tmpdir, "stream.png", NULL);
  g_autofree char *stream_svg = g_build_filename (tmpdir, "stream.svg", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (session_path);
  g_autoptr(GError) error = NULL;

  g_assert_true (relay_session_save (session, file, NULL, &error));
  g_assert_true (relay_window_load_file (window, file, &error));
  g_assert_no_error (error);
  flush_events ();

  g_assert_true (relay_window_export_chart (window, "waterfall", RELAY_CHART_FORMAT_PNG, png, 1600, 900, &error));
  g_assert_no_error (error);
  check_png_size (png, 1600, 900);

  g_assert_true (relay_window_export_chart (window, "waterfall", RELAY_CHART_FORMAT_SVG, svg, 1200, 700, &error));
  g_assert_no_error (error);
  check_svg_size (svg, 1200, 700);

  g_assert_true (relay_window_export_chart (window, "stream", RELAY_CHART_FORMAT_PNG, stream_png, 800, 500, &error));
  g_assert_no_error (error);
  check_png_size (stream_png, 800, 500);

  g_assert_true (relay_window_export_chart (window, "stream", RELAY_CHART_FORMAT_SVG, stream_svg, 1600, 900, &error));
  g_assert_no_error (error);
  check_svg_size (stream_svg, 1600, 900);

  /* The widget keeps its own (screen) style after an export in the document style. */
  g_assert_null (relay_waterfall_painter_get_title (relay_waterfall_view_get_painter (relay_window_get_waterfall_view (window))));

  close_window (window);
}

/* ---- Autosave ---- */

static AdwMessageDialog *
find_message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return ADW_MESSAGE_DIALOG (window);
    }

  return NULL;
}

static gboolean
has_message_dialog (gpointer data)
{
  return find_message_dialog () != NULL;
}

/* A pid no process has: a child that has already exited and been reaped. */
static GPid
dead_pid (void)
{
  const char *argv[] = { "true", NULL };
  g_autoptr(GError) error = NULL;
  GPid pid = 0;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                                NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);

  return pid;
}

/* An autosave as a crashed process would have left it. */
static GFile *
plant_orphan_autosave (RelaySession *session)
{
  g_autoptr(GFile) dir = relay_window_get_autosave_dir ();
  g_autofree char *name = g_strdup_printf ("%d-1.relayscope", (int) dead_pid ());
  GFile *file = g_file_get_child (dir, name);
  g_autoptr(GError) error = NULL;

  g_file_make_directory_with_parents (dir, NULL, NULL);
  g_assert_true (relay_session_save (session, file, NULL, &error));
  g_assert_no_error (error);

  return file;
}

static gboolean
contains_file (GPtrArray *files,
               GFile     *file)
{
  for (guint i = 0; i < files->len; i++)
    if (g_file_equal (g_ptr_array_index (files, i), file))
      return TRUE;

  return FALSE;
}

/* Unsaved work is copied to the autosave dir, never over the user's file; saving removes
 * the copy. */
static void
test_window_autosave (void)
{
  RelayWindow *window = new_window ();
  g_autoptr(RelaySession) session = build_session ();
  g_autofree char *path = g_build_filename (tmpdir, "users-file.relayscope", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) orphans = NULL;
  GFile *autosave;

  g_assert_true (relay_session_save (session, file, NULL, &error));
  g_assert_true (g_file_get_contents (path, &before, NULL, NULL));
  g_assert_true (relay_window_load_file (window, file, &error));
  g_assert_no_error (error);

  autosave = relay_window_get_autosave_file (window);
  g_assert_nonnull (autosave);
  g_assert_false (g_file_equal (autosave, file));

  /* Nothing unsaved: nothing written. */
  g_assert_true (relay_window_autosave (window, &error));
  g_assert_false (g_file_query_exists (autosave, NULL));

  /* Unsaved work: a copy that loads back with every trace; the user's file is untouched
   * and the session still counts as unsaved. */
  relay_session_set_notes (relay_window_get_session (window), "Changed after opening");
  relay_session_set_modified (relay_window_get_session (window), TRUE);
  g_assert_true (relay_window_autosave (window, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_query_exists (autosave, NULL));
  g_assert_true (relay_session_get_modified (relay_window_get_session (window)));
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
  {
    g_autoptr(RelaySession) copy = relay_session_load (autosave, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (copy)), ==, 6);
    g_assert_cmpstr (relay_session_get_notes (copy), ==, "Changed after opening");
  }

  /* A live process's copy is nobody's orphan. */
  orphans = relay_application_find_orphan_autosaves ();
  g_assert_false (contains_file (orphans, autosave));

  /* Saved: the copy goes. */
  g_assert_true (relay_window_save_to_file (window, file, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_query_exists (autosave, NULL));

  close_window (window);
}

/* The app starts, finds what a crashed process left, and the user restores it. */
static void
test_window_autosave_restore (void)
{
  g_autoptr(RelaySession) session = build_session ();
  g_autoptr(GFile) orphan = NULL;
  g_autoptr(GPtrArray) orphans = NULL;
  GListModel *traces;
  AdwMessageDialog *dialog;
  RelayWindow *window;

  relay_session_set_modified (session, TRUE);
  orphan = plant_orphan_autosave (session);
  orphans = relay_application_find_orphan_autosaves ();
  g_assert_true (contains_file (orphans, orphan));

  /* Start the app: it presents a window and asks. */
  g_application_activate (G_APPLICATION (app));
  window = RELAY_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_nonnull (window);
  g_assert_true (wait_for (has_message_dialog, NULL, 10));
  dialog = find_message_dialog ();
  g_assert_true (adw_message_dialog_has_response (dialog, "restore"));
  g_assert_true (adw_message_dialog_has_response (dialog, "discard"));
  adw_message_dialog_response (dialog, "restore");
  flush_events ();

  /* The window holds the crashed session's traces, as unsaved work with no file. */
  traces = relay_session_get_traces (relay_window_get_session (window));
  g_assert_cmpuint (g_list_model_get_n_items (traces), ==, 6);
  g_assert_cmpstr (relay_session_get_title (relay_window_get_session (window)), ==, "Window test");
  g_assert_true (relay_session_get_modified (relay_window_get_session (window)));
  g_assert_null (relay_window_get_file (window));
  g_assert_cmpuint (g_list_model_get_n_items (relay_waterfall_painter_get_traces (
                      relay_waterfall_view_get_painter (relay_window_get_waterfall_view (window)))), ==, 6);
  g_assert_cmpuint (g_list_model_get_n_items (relay_summary_table_get_model (relay_window_get_summary_table (window))), ==, 3);

  /* The copy moved to this window's own autosave: safe from a second crash. */
  g_assert_false (g_file_query_exists (orphan, NULL));
  g_assert_true (g_file_query_exists (relay_window_get_autosave_file (window), NULL));

  close_window (window);
}

/* Discard removes what a crash left; the window keeps its own (empty) session. */
static void
test_window_autosave_discard (void)
{
  RelayWindow *window = new_window ();
  g_autoptr(RelaySession) session = build_session ();
  g_autoptr(GFile) orphan = NULL;
  AdwMessageDialog *dialog;

  orphan = plant_orphan_autosave (session);

  g_assert_true (relay_application_offer_restore (app, window));
  g_assert_true (wait_for (has_message_dialog, NULL, 10));
  dialog = find_message_dialog ();
  adw_message_dialog_response (dialog, "discard");
  flush_events ();

  g_assert_false (g_file_query_exists (orphan, NULL));
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (relay_window_get_session (window))), ==, 0);

  /* Nothing left to offer. */
  g_assert_false (relay_application_offer_restore (app, window));

  close_window (window);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  if ((tmpdir = relay_test_ui_prepare ("window")) == NULL)
    return 0;

  gtk_test_init (&argc, &argv, NULL);
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR);

  app = relay_test_ui_app_new ();

  g_test_add_func ("/ui/window/maps", test_window_maps);
  g_test_add_func ("/ui/window/load-fixture", test_window_load_fixture);
  g_test_add_func ("/ui/window/table-rows", test_window_table_rows);
  g_test_add_func ("/ui/window/keyboard", test_window_keyboard);
  g_test_add_func ("/ui/window/table-sort", test_window_table_sort);
  g_test_add_func ("/ui/window/save-open", test_window_save_open);
  g_test_add_func ("/ui/window/bad-file", test_window_bad_file);
  g_test_add_func ("/ui/window/export", test_window_export);
  g_test_add_func ("/ui/window/autosave", test_window_autosave);
  g_test_add_func ("/ui/window/autosave-restore", test_window_autosave_restore);
  g_test_add_func ("/ui/window/autosave-discard", test_window_autosave_discard);

  status = g_test_run ();

  g_clear_object (&app);
  remove_tree (tmpdir);
  g_free (tmpdir);

  return status;
}
