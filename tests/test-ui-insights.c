/* test-ui-insights.c: the app's findings, guided experiments, budgets, A/B comparison and
 * data exports, driven through the window against the in-process simulated relays.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "relay-application.h"
#include "relay-test-ui.h"
#include "relay-budget-editor.h"
#include "relay-compare-window.h"
#include "relay-findings.h"
#include "relay-har.h"
#include "relay-window.h"

#define RUN_TIMEOUT_S 120

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

static RelayWindow *
new_window (void)
{
  RelayWindow *window = relay_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (wait_for (is_mapped, window, 20));

  return window;
}

static void
wait_idle (RelayWindow *window)
{
  if (!wait_for (is_idle, window, RUN_TIMEOUT_S))
    g_error ("The run did not finish within %d s", RUN_TIMEOUT_S);
}

static const RelayFinding *
find_finding (GPtrArray  *findings,
              const char *id)
{
  for (guint i = 0; findings != NULL && i < findings->len; i++)
    {
      const RelayFinding *finding = g_ptr_array_index (findings, i);

      if (g_str_equal (finding->id, id))
        return finding;
    }

  return NULL;
}

static char *
read_file (const char *path,
           gsize      *length)
{
  char *data = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &data, length, &error));
  g_assert_no_error (error);

  return data;
}

/* The demo run: the buffering relay's finding is listed with links that select its traces;
 * a tight budget marks overruns; the exports come out readable. */
static void
test_demo_findings_budget_exports (void)
{
  RelayWindow *window = new_window ();
  RelayFindingsView *view = relay_window_get_findings_view (window);
  RelayWaterfallPainter *painter = relay_waterfall_view_get_painter (relay_window_get_waterfall_view (window));
  RelaySession *session;
  GListModel *traces;
  const RelayFinding *buffering;
  g_autoptr(RelayTrace) evidence = NULL;
  g_autoptr(RelayBudget) tight = NULL;
  g_autoptr(RelayBudget) stored = NULL;
  g_autoptr(RelaySession) imported = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *har = g_build_filename (tmpdir, "demo.har", NULL);
  g_autofree char *csv = g_build_filename (tmpdir, "demo.csv", NULL);
  g_autofree char *jsonl = g_build_filename (tmpdir, "demo.jsonl", NULL);
  g_autofree char *pdf = g_build_filename (tmpdir, "demo.pdf", NULL);
  g_autofree char *csv_data = NULL;
  g_autofree char *pdf_data = NULL;
  g_autofree char *curl = NULL;
  g_autoptr(GFile) har_file = NULL;
  g_auto(GStrv) lines = NULL;
  guint n_traces;
  guint n_marked = 0;
  guint n_lines = 0;
  gsize pdf_length = 0;

  /* Before any probe the page says findings come later. */
  g_assert_nonnull (strstr (relay_findings_view_get_status (view), "once probes have finished"));
  g_assert_true (relay_window_start_demo (window, 3, 2));
  wait_idle (window);

  session = relay_window_get_session (window);
  traces = relay_session_get_traces (session);
  n_traces = g_list_model_get_n_items (traces);
  g_assert_cmpuint (n_traces, >, 0);

  /* The view ran the rules when the run finished: the buffering relay is named. */
  buffering = find_finding (relay_findings_view_get_findings (view), RELAY_FINDING_BUFFERING_PROXY);
  g_assert_nonnull (buffering);
  g_assert_nonnull (strstr (buffering->endpoint, "buffering"));
  g_assert_cmpuint (buffering->traces->len, >, 0);
  g_assert_nonnull (strstr (relay_findings_view_get_status (view), "problem"));

  /* A link to the evidence selects that trace in the waterfall and shows its details. */
  evidence = g_list_model_get_item (traces, g_array_index (buffering->traces, guint, 0));
  g_signal_emit_by_name (view, "trace-activated", evidence);
  g_assert_true (relay_waterfall_view_get_selected (relay_window_get_waterfall_view (window)) == evidence);
  g_assert_true (relay_trace_details_get_trace (relay_window_get_trace_details (window)) == evidence);

  /* The default 880 ms budget: the fast relay fits, so not every row is marked. */
  for (guint i = 0; i < n_traces; i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);

      if (relay_waterfall_painter_trace_over_budget (painter, trace))
        n_marked++;
    }
  g_assert_cmpuint (n_marked, <, n_traces);

  /* A budget nothing can meet marks every row, every table row's TTFT and the Budget page;
   * it is kept in the session. */
  tight = relay_budget_preset_new (RELAY_BUDGET_PRESET_STRICT);
  relay_budget_set_limit (tight, RELAY_BUDGET_TTFT, 1);
  relay_window_set_budget (window, tight, FALSE);
  for (guint i = 0; i < n_traces; i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);

      if (relay_trace_is_ok (trace))
        g_assert_true (relay_waterfall_painter_trace_over_budget (painter, trace));
    }
  {
    GListModel *rows = relay_summary_table_get_model (relay_window_get_summary_table (window));

    g_assert_cmpuint (g_list_model_get_n_items (rows), >, 0);
    for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
      {
        g_autoptr(RelaySummaryItem) item = g_list_model_get_item (rows, i);
        const RelaySummaryRow *row = relay_summary_item_get_row (item);

        g_assert_true (relay_summary_table_is_over_budget (relay_window_get_summary_table (window),
                                                           row->endpoint, row->model, RELAY_METRIC_TTFT));
      }
  }
  g_assert_cmpuint (relay_budget_view_get_n_overruns (relay_window_get_budget_view (window)), >=,
                    g_list_model_get_n_items (relay_summary_table_get_model (relay_window_get_summary_table (window))));
  g_assert_nonnull (relay_session_get_extra (session, "budget"));
  stored = relay_window_dup_budget (window);
  g_assert_cmpfloat (relay_budget_get_limit (stored, RELAY_BUDGET_TTFT), ==, 1);

  /* The budget travels with the saved session. */
  {
    g_autofree char *path = g_build_filename (tmpdir, "demo.relayscope", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (path);
    RelayWindow *reopened;
    g_autoptr(RelayBudget) loaded = NULL;

    g_assert_true (relay_window_save_to_file (window, file, &error));
    g_assert_no_error (error);
    reopened = new_window ();
    g_assert_true (relay_window_load_file (reopened, file, &error));
    g_assert_no_error (error);
    loaded = relay_window_dup_budget (reopened);
    g_assert_cmpfloat (relay_budget_get_limit (loaded, RELAY_BUDGET_TTFT), ==, 1);
    g_assert_cmpuint (relay_budget_view_get_n_overruns (relay_window_get_budget_view (reopened)), >, 0);
    gtk_window_destroy (GTK_WINDOW (reopened));
  }

  /* Exports: HAR reads back with every trace, CSV has a row per trace, the report is a PDF. */
  g_assert_true (relay_window_export_data (window, "har", har, &error));
  g_assert_no_error (error);
  har_file = g_file_new_for_path (har);
  imported = relay_har_load (har_file, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (imported);
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (imported)), ==, n_traces);

  g_assert_true (relay_window_export_data (window, "csv", csv, &error));
  g_assert_no_error (error);
  csv_data = read_file (csv, NULL);
  lines = g_strsplit (csv_data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      n_lines++;
  g_assert_cmpuint (n_lines, ==, n_traces + 1);

  g_assert_true (relay_window_export_data (window, "jsonl", jsonl, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (jsonl, G_FILE_TEST_IS_REGULAR));

  g_assert_true (relay_window_export_data (window, "pdf", pdf, &error));
  g_assert_no_error (error);
  pdf_data = read_file (pdf, &pdf_length);
  g_assert_cmpuint (pdf_length, >, 1000);
  g_assert_true (memcmp (pdf_data, "%PDF", 4) == 0);

  g_assert_false (relay_window_export_data (window, "xls", csv, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* Copy as cURL: the selected trace's request, with no key in it. */
  curl = relay_window_dup_curl_command (window, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (curl, "curl"));
  g_assert_nonnull (strstr (curl, "$"));

  /* Import HAR: the file shows as the window's (unsaved) session. */
  g_assert_true (relay_window_import_har (window, har_file, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (relay_window_get_session (window))), ==, n_traces);
  g_assert_null (relay_window_get_file (window));

  relay_session_set_modified (relay_window_get_session (window), FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Cold vs warm from the experiment dialog, on the fast demo relay, with a small repeat. */
static void
test_experiment_cold_warm (void)
{
  RelayWindow *window = new_window ();
  RelayExperimentDialog *dialog;
  g_autoptr(RelayExperiment) experiment = NULL;
  g_autoptr(GError) error = NULL;
  RelayExperimentResult *result;

  /* The demo endpoints are there from the first test. */
  dialog = relay_window_show_experiment_dialog (window, RELAY_EXPERIMENT_COLD_WARM);
  g_assert_nonnull (dialog);
  experiment = relay_experiment_dialog_build (dialog, &error);
  g_assert_no_error (error);
  g_assert_nonnull (experiment);
  g_assert_cmpint (relay_experiment_get_kind (experiment), ==, RELAY_EXPERIMENT_COLD_WARM);
  g_assert_cmpuint (relay_experiment_get_endpoints (experiment)->len, ==, 1);
  gtk_window_destroy (GTK_WINDOW (dialog));

  relay_experiment_set_repeat (experiment, 2);
  g_assert_true (relay_window_run_experiment (window, experiment));
  g_assert_true (relay_window_get_running (window));
  /* A second one cannot start while this one runs. */
  g_assert_false (relay_window_run_experiment (window, experiment));
  wait_idle (window);

  result = relay_findings_view_get_result (relay_window_get_findings_view (window));
  g_assert_nonnull (result);
  g_assert_cmpint (result->kind, ==, RELAY_EXPERIMENT_COLD_WARM);
  g_assert_nonnull (result->headline);
  g_assert_cmpuint (strlen (result->headline), >, 10);
  g_assert_nonnull (relay_session_get_extra (relay_window_get_session (window), RELAY_EXPERIMENT_MEMBER));
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (relay_window_get_session (window))), >=, 4);

  /* Saved and reopened, the session shows the experiment's answer again. */
  {
    g_autofree char *path = g_build_filename (tmpdir, "cold-warm.relayscope", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (path);
    RelayWindow *reopened;
    RelayExperimentResult *again;

    g_assert_true (relay_window_save_to_file (window, file, &error));
    g_assert_no_error (error);
    reopened = new_window ();
    g_assert_true (relay_window_load_file (reopened, file, &error));
    g_assert_no_error (error);
    again = relay_findings_view_get_result (relay_window_get_findings_view (reopened));
    g_assert_nonnull (again);
    g_assert_cmpstr (again->headline, ==, result->headline);
    gtk_window_destroy (GTK_WINDOW (reopened));
  }

  /* The race needs two endpoints or more: the dialog's default (all of them) gives them. */
  dialog = relay_window_show_experiment_dialog (window, RELAY_EXPERIMENT_RACE);
  g_assert_nonnull (dialog);
  g_clear_object (&experiment);
  experiment = relay_experiment_dialog_build (dialog, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (relay_experiment_get_endpoints (experiment)->len, >=, 2);
  gtk_window_destroy (GTK_WINDOW (dialog));

  relay_session_set_modified (relay_window_get_session (window), FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Only the healthy relay: no problem is found, and the page says how many probes look
 * healthy. */
static void
test_fast_only_healthy (void)
{
  RelayWindow *window;
  GListStore *endpoints = relay_application_get_endpoints (app);
  GPtrArray *findings;
  const char *status;

  for (guint i = g_list_model_get_n_items (G_LIST_MODEL (endpoints)); i > 0; i--)
    {
      g_autoptr(RelayEndpoint) endpoint = g_list_model_get_item (G_LIST_MODEL (endpoints), i - 1);

      if (strstr (relay_endpoint_get_name (endpoint), "fast") == NULL)
        g_list_store_remove (endpoints, i - 1);
    }
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (endpoints)), ==, 1);

  window = new_window ();
  relay_composer_set_repeat (relay_window_get_composer (window), 3);
  relay_composer_set_concurrency (relay_window_get_composer (window), 1);
  g_assert_true (relay_window_run (window));
  wait_idle (window);

  findings = relay_findings_view_get_findings (relay_window_get_findings_view (window));
  g_assert_nonnull (findings);
  for (guint i = 0; i < findings->len; i++)
    {
      const RelayFinding *finding = g_ptr_array_index (findings, i);

      if (finding->severity == RELAY_FINDING_PROBLEM)
        g_error ("The fast relay raised “%s”: %s", finding->id, finding->summary);
    }
  status = relay_findings_view_get_status (relay_window_get_findings_view (window));
  g_assert_nonnull (status);
  g_assert_true (g_str_has_prefix (status, "No problems found"));

  relay_session_set_modified (relay_window_get_session (window), FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
}

static RelayTrace *
make_trace (guint  run,
            guint  seq,
            double ttft_ms)
{
  RelayTrace *trace = relay_trace_new (run, seq);
  gint64 ttft = (gint64) (ttft_ms * 1000);
  RelayUsage usage = RELAY_USAGE_INIT;

  relay_trace_set_mark (trace, RELAY_MARK_CONNECT_START, 100);
  relay_trace_set_mark (trace, RELAY_MARK_TCP_END, 1100);
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, 1200);
  relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, 1300);
  relay_trace_set_mark (trace, RELAY_MARK_RESPONSE_START, ttft / 2);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_BYTE, ttft / 2 + 100);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_EVENT, ttft / 2 + 200);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, ttft);
  relay_trace_set_mark (trace, RELAY_MARK_FIRST_CONTENT, ttft);
  relay_trace_set_mark (trace, RELAY_MARK_LAST_TOKEN, ttft + 40000);
  relay_trace_set_mark (trace, RELAY_MARK_END, ttft + 40500);
  for (guint i = 0; i < 5; i++)
    relay_trace_add_chunk (trace, ttft + i * 10000, RELAY_CHUNK_CONTENT, 60, 16);
  usage.completion_tokens = 20;
  relay_trace_set_usage (trace, &usage);
  relay_trace_set_http_status (trace, 200);

  return trace;
}

static RelaySession *
make_session (const char *endpoint,
              double      ttft0)
{
  RelaySession *session = relay_session_new ();
  g_autoptr(RelayEndpoint) ep = relay_endpoint_new (endpoint, "https://relay.relayscope.test/v1", RELAY_API_OPENAI_CHAT);
  g_autoptr(RelayRun) run = relay_run_new (endpoint, "m");
  guint index;

  relay_session_add_endpoint (session, ep);
  index = relay_session_add_run (session, run);
  for (guint i = 0; i < 20; i++)
    {
      g_autoptr(RelayTrace) trace = make_trace (index, i + 1, ttft0 + i * 5);

      relay_session_add_trace (session, trace);
    }

  return session;
}

/* Two sessions built in code: B's first token is 120 ms sooner, with no overlap. */
static void
test_compare_sessions (void)
{
  g_autoptr(RelaySession) a = make_session ("relay-a", 500);
  g_autoptr(RelaySession) b = make_session ("relay-b", 380);
  RelayCompareWindow *compare = relay_compare_window_new (NULL, NULL);
  RelayComparison *comparison;
  const RelayCompareStage *stage;
  const char *verdict;

  g_assert_null (relay_compare_window_get_comparison (compare));
  relay_compare_window_set_side (compare, FALSE, a, "before", NULL);
  relay_compare_window_set_side (compare, TRUE, b, "after", NULL);
  gtk_window_present (GTK_WINDOW (compare));

  comparison = relay_compare_window_get_comparison (compare);
  g_assert_nonnull (comparison);
  g_assert_cmpuint (relay_comparison_get_n_traces (comparison, FALSE), ==, 20);
  stage = relay_comparison_get_stage (comparison, RELAY_METRIC_TTFT);
  g_assert_cmpfloat_with_epsilon (stage->diff_p50.estimate, -120, 0.5);
  g_assert_true (stage->significant_p50);

  verdict = relay_compare_window_get_verdict (compare);
  g_assert_nonnull (verdict);
  g_assert_nonnull (strstr (verdict, "TTFT"));
  g_assert_nonnull (strstr (verdict, "faster"));
  g_assert_nonnull (strstr (verdict, "120"));

  /* A selection that names nothing says so instead of comparing. */
  relay_compare_window_set_side (compare, TRUE, b, "after", "#5");
  g_assert_nonnull (relay_compare_window_get_verdict (compare));

  gtk_window_destroy (GTK_WINDOW (compare));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  if ((tmpdir = relay_test_ui_prepare ("insights")) == NULL)
    return 0;
  /* The tests read the app's English wording. */
  g_setenv ("LANGUAGE", "C", TRUE);

  gtk_test_init (&argc, &argv, NULL);
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR);

  app = relay_test_ui_app_new ();

  g_test_add_func ("/ui/insights/demo-findings-budget-exports", test_demo_findings_budget_exports);
  g_test_add_func ("/ui/insights/experiment-cold-warm", test_experiment_cold_warm);
  g_test_add_func ("/ui/insights/compare-sessions", test_compare_sessions);
  g_test_add_func ("/ui/insights/fast-only-healthy", test_fast_only_healthy);

  status = g_test_run ();

  g_clear_object (&app);
  remove_tree (tmpdir);
  g_free (tmpdir);

  return status;
}
