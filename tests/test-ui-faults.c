/* test-ui-faults.c: the fault matrix through the app: endpoints that fail in every common
 * way run from the window's run action, and the waterfall, the details and the table each
 * show what went wrong while the window stays responsive.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "relay-application.h"
#include "relay-test-ui.h"
#include "relay-sim-resolver.h"
#include "relay-sim-server.h"
#include "relay-window.h"

#define RUN_TIMEOUT_S 90
#define KEY_ENV       "RELAYSCOPE_TEST_KEY"

static RelayApplication *app;
static RelaySimServer *server;
static char *tmpdir;

typedef struct
{
  const char *name;       /* the endpoint's name */
  const char *override;   /* X-Relayscope-Sim; NULL for a special URL */
  const char *stage;      /* expected error stage, NULL for success */
  const char *kind;
} Case;

static const Case cases[] = {
  { "healthy", "", NULL, NULL },
  { "http-401", "fault=http-401, fault_probability=1", "http", "unauthorized" },
  { "http-429", "fault=http-429, fault_probability=1", "http", "rate-limited" },
  { "http-500", "fault=http-500, fault_probability=1", "http", "server-error" },
  { "html-502", "fault=html-502, fault_probability=1", "http", "server-error" },
  { "reset", "fault=reset, fault_probability=1, fault_after=3", "stream", "reset" },
  { "malformed", "fault=malformed, fault_probability=1, fault_after=3", "parse", "malformed" },
  { "no-terminator", "fault=no-terminator, fault_probability=1", "stream", "no-terminator" },
  { "stall", "fault=stall, fault_probability=1, fault_after=3", "timeout", "timeout" },
  { "refused", NULL, "connect", "refused" },
  { "unknown-host", NULL, "dns", "unknown-host" },
};

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
flush_events (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* A heartbeat on the main loop: if the UI blocked, the gap between beats shows it. */
typedef struct
{
  gint64 last;
  gint64 longest_gap;
  guint  beats;
} Heartbeat;

static gboolean
heartbeat_cb (gpointer user_data)
{
  Heartbeat *heartbeat = user_data;
  gint64 now = g_get_monotonic_time ();

  if (heartbeat->last != 0)
    heartbeat->longest_gap = MAX (heartbeat->longest_gap, now - heartbeat->last);
  heartbeat->last = now;
  heartbeat->beats++;

  return G_SOURCE_CONTINUE;
}

static guint
free_port (void)
{
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  /* Free a moment ago: nothing listens there. */
  g_assert_true (g_socket_bind (socket, any, TRUE, NULL));
  bound = g_socket_get_local_address (socket, NULL);
  g_socket_close (socket, NULL);

  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

static RelayEndpoint *
case_endpoint (const Case *c)
{
  g_autofree char *root = relay_sim_server_dup_root_url (server, NULL);
  g_autofree char *url = NULL;
  const char *models[] = { "sim-model", NULL };
  RelayEndpoint *endpoint;

  if (g_str_equal (c->name, "refused"))
    url = g_strdup_printf ("http://127.0.0.1:%u/v1", free_port ());
  else if (g_str_equal (c->name, "unknown-host"))
    url = g_strdup ("http://nxdomain.relayscope.test:1/v1");
  else
    url = g_strconcat (root, "/v1", NULL);

  endpoint = relay_endpoint_new (c->name, url, RELAY_API_OPENAI_CHAT);
  relay_endpoint_set_models (endpoint, models);
  /* A real endpoint's path: the key comes from the environment. */
  relay_endpoint_set_key_env (endpoint, KEY_ENV);
  if (c->override != NULL && c->override[0] != '\0')
    {
      g_autofree char *header = g_strdup_printf ("X-Relayscope-Sim: %s", c->override);
      const char *headers[] = { header, NULL };

      relay_endpoint_set_headers (endpoint, headers);
    }

  return endpoint;
}

static RelayTrace *
find_trace (RelaySession *session,
            const char   *endpoint)
{
  GListModel *traces = relay_session_get_traces (session);

  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      RelayRun *run = relay_session_get_run (session, relay_trace_get_run (trace));

      if (run != NULL && g_str_equal (relay_run_get_endpoint (run), endpoint))
        return trace;  /* the session keeps it */
    }

  return NULL;
}

static const RelaySummaryRow *
find_row (RelayWindow *window,
          const char  *endpoint)
{
  GListModel *rows = relay_summary_table_get_model (relay_window_get_summary_table (window));

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(RelaySummaryItem) item = g_list_model_get_item (rows, i);

      if (g_str_equal (relay_summary_item_get_row (item)->endpoint, endpoint))
        return relay_summary_item_get_row (item);  /* the table keeps it */
    }

  return NULL;
}

/* Whether a label under widget shows text (the details view is built of rows of labels). */
static gboolean
shows_text (GtkWidget  *widget,
            const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
      g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return TRUE;

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_text (child, text))
      return TRUE;

  return FALSE;
}

static guint32
pixel_at (cairo_surface_t *surface,
          int              x,
          int              y)
{
  const guchar *data;

  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  return *(const guint32 *) (gconstpointer) (data + y * cairo_image_surface_get_stride (surface) + x * 4);
}

static gboolean
is_color (guint32                pixel,
          const RelayChartColor *color)
{
  int r = (pixel >> 16) & 0xff, g = (pixel >> 8) & 0xff, b = pixel & 0xff;

  return ABS (r - (int) lround (color->red * 255)) <= 2 &&
         ABS (g - (int) lround (color->green * 255)) <= 2 &&
         ABS (b - (int) lround (color->blue * 255)) <= 2;
}

/* The waterfall draws a failed trace with a cap in the error colour where it broke. */
static void
assert_error_cap (RelayWaterfallPainter *painter,
                  RelayTrace            *trace,
                  const char            *name)
{
  const double width = 1200;
  double height = relay_waterfall_painter_get_content_height (painter);
  double scroll = relay_waterfall_painter_get_scroll_offset (painter);
  double row_y, end_x;
  cairo_surface_t *surface;
  cairo_t *cr;
  gboolean found = FALSE;

  relay_waterfall_painter_set_scroll_offset (painter, 0);
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, ceil (height));
  cr = cairo_create (surface);
  relay_waterfall_painter_draw (painter, cr, width, height);
  cairo_destroy (cr);

  row_y = relay_waterfall_painter_get_trace_y (painter, trace);
  g_assert_cmpfloat (row_y, >=, 0);
  end_x = relay_waterfall_painter_time_to_x (painter, width,
                                             relay_trace_get_interval (trace, RELAY_MARK_START, RELAY_MARK_END) / 1000.0);

  /* The cap sits at the bar's end, a few pixels wide and taller than the bar. */
  for (int x = (int) floor (end_x) - 2; x <= (int) ceil (end_x) + 4 && !found; x++)
    for (int y = (int) row_y + 2; y < (int) row_y + 16 && !found; y++)
      if (x >= 0 && x < width && is_color (pixel_at (surface, x, y), &relay_waterfall_painter_get_style (painter)->error))
        found = TRUE;

  if (!found)
    g_error ("%s: no error cap near x %.1f on the row at y %.1f", name, end_x, row_y);

  cairo_surface_destroy (surface);
  relay_waterfall_painter_set_scroll_offset (painter, scroll);
}

static void
test_fault_matrix (void)
{
  RelayWindow *window = relay_window_new (app);
  GListStore *endpoints = relay_application_get_endpoints (app);
  RelayComposer *composer;
  RelayWaterfallView *view;
  RelayWaterfallPainter *painter;
  RelaySession *session;
  Heartbeat heartbeat = { 0 };
  gint64 started;
  guint heartbeat_id;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (wait_for (is_mapped, window, 20));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(RelayEndpoint) endpoint = case_endpoint (&cases[i]);

      g_list_store_append (endpoints, endpoint);
    }

  /* Let the new rows settle, so the heartbeat measures the run and not the first layout. */
  {
    gint64 until = g_get_monotonic_time () + 300 * 1000;

    while (g_get_monotonic_time () < until)
      g_main_context_iteration (NULL, FALSE);
    flush_events ();
  }

  composer = relay_window_get_composer (window);
  g_assert_cmpuint (relay_composer_get_n_targets (composer), ==, G_N_ELEMENTS (cases));
  relay_composer_set_repeat (composer, 1);
  relay_composer_set_concurrency (composer, 4);
  relay_composer_set_timeout (composer, 1);

  /* Through the window's own action, as the Run button does it. */
  heartbeat_id = g_timeout_add (50, heartbeat_cb, &heartbeat);
  started = g_get_monotonic_time ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "probe.run", NULL));
  g_assert_true (relay_window_get_running (window));

  if (!wait_for (is_idle, window, RUN_TIMEOUT_S))
    g_error ("The fault run did not finish within %d s", RUN_TIMEOUT_S);
  g_source_remove (heartbeat_id);
  flush_events ();

  /* The stall waits out its 1 s timeout; the rest fail fast. Nothing hangs the run. */
  g_test_message ("run took %.0f ms; %u heartbeats, longest gap %.0f ms",
                  (g_get_monotonic_time () - started) / 1000.0, heartbeat.beats,
                  heartbeat.longest_gap / 1000.0);
  g_assert_cmpint (g_get_monotonic_time () - started, >=, 900 * 1000);
  /* The main loop kept turning while probes failed: beats came, none very late. */
  g_assert_cmpuint (heartbeat.beats, >=, 5);
  g_assert_cmpint (heartbeat.longest_gap, <, 1000 * 1000);

  session = relay_window_get_session (window);
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (session)), ==, G_N_ELEMENTS (cases));

  view = relay_window_get_waterfall_view (window);
  painter = relay_waterfall_view_get_painter (view);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *c = &cases[i];
      RelayTrace *trace = find_trace (session, c->name);
      const RelaySummaryRow *row = find_row (window, c->name);
      RelayWaterfallHit hit;
      g_autofree char *tooltip = NULL;
      double y;

      g_test_message ("%s: %s/%s: %s", c->name,
                      relay_error_stage_to_string (relay_trace_get_error_stage (trace)),
                      relay_trace_get_error_kind (trace),
                      relay_trace_get_error_message (trace));

      g_assert_nonnull (trace);
      g_assert_true (relay_trace_is_finished (trace));

      /* The table counts it. */
      g_assert_nonnull (row);
      g_assert_cmpuint (row->n, ==, 1);
      g_assert_cmpuint (row->errors, ==, c->stage != NULL ? 1 : 0);

      /* The waterfall's hit test finds it on its row; its tooltip names the error. */
      y = relay_waterfall_painter_get_trace_y (painter, trace);
      g_assert_cmpfloat (y, >=, 0);
      relay_waterfall_painter_set_scroll_offset (painter, 0);
      y = relay_waterfall_painter_get_trace_y (painter, trace);
      g_assert_true (relay_waterfall_painter_hit_test (painter, 1200, 10, y + relay_waterfall_painter_get_row_height (painter) / 2, &hit));
      g_assert_true (hit.trace == trace);
      tooltip = relay_waterfall_view_describe_trace (view, trace);

      if (c->stage == NULL)
        {
          g_assert_true (relay_trace_is_ok (trace));
          g_assert_null (strstr (tooltip, "Error"));
          continue;
        }

      g_assert_false (relay_trace_is_ok (trace));
      g_assert_cmpstr (relay_error_stage_to_string (relay_trace_get_error_stage (trace)), ==, c->stage);
      g_assert_cmpstr (relay_trace_get_error_kind (trace), ==, c->kind);
      g_assert_nonnull (relay_trace_get_error_message (trace));
      g_assert_nonnull (strstr (tooltip, "Error"));
      g_assert_nonnull (strstr (tooltip, c->stage));

      assert_error_cap (painter, trace, c->name);

      /* Selected and opened from the keyboard, its details show the message. */
      relay_waterfall_view_set_selected (view, trace);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "waterfall.activate-selected", NULL));
      flush_events ();
      g_assert_true (relay_trace_details_get_trace (relay_window_get_trace_details (window)) == trace);
      if (!shows_text (GTK_WIDGET (relay_window_get_trace_details (window)), relay_trace_get_error_message (trace)))
        g_error ("%s: the details do not show “%s”", c->name, relay_trace_get_error_message (trace));
      g_assert_true (shows_text (GTK_WIDGET (relay_window_get_trace_details (window)), c->kind));
    }

  /* A finished run with unsaved probes is copied aside at once. */
  g_assert_true (g_file_query_exists (relay_window_get_autosave_file (window), NULL));

  relay_session_set_modified (session, FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
  flush_events ();
}

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
  p->seed = 42;
}

int
main (int   argc,
      char *argv[])
{
  RelaySimProfile profile = { 0 };
  g_autoptr(GError) error = NULL;
  int status;

  if ((tmpdir = relay_test_ui_prepare ("faults")) == NULL)
    return 0;
  g_setenv (KEY_ENV, "test-key", TRUE);
  /* The heartbeat checks that probing never blocks the main loop. Under Xvfb GTK would
   * render with software GL, whose frames on a loaded two-core machine take long enough
   * to drown that signal; the cairo renderer draws the same widgets without it. */
  g_setenv ("GSK_RENDERER", "cairo", FALSE);

  gtk_test_init (&argc, &argv, NULL);
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR);

  /* nxdomain.relayscope.test fails to resolve, as an unknown host does. */
  relay_sim_resolver_install ();

  g_assert_true (relay_sim_profile_init_named (&profile, "fast"));
  quick_profile (&profile);
  server = relay_sim_server_new (&profile);
  relay_sim_profile_clear (&profile);
  g_assert_true (relay_sim_server_start (server, 0, FALSE, &error));
  g_assert_no_error (error);

  app = relay_test_ui_app_new ();

  g_test_add_func ("/ui/faults/matrix", test_fault_matrix);

  status = g_test_run ();

  g_clear_object (&app);
  relay_sim_server_stop (server);
  g_clear_object (&server);
  remove_tree (tmpdir);
  g_free (tmpdir);

  return status;
}
