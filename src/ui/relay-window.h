/* relay-window.h: the main window: endpoints, the probe composer and a session's views.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "relay-application.h"
#include "relay-chart-export.h"
#include "relay-budget.h"
#include "relay-budget-view.h"
#include "relay-composer.h"
#include "relay-experiment-dialog.h"
#include "relay-findings-view.h"
#include "relay-session.h"
#include "relay-stream-view.h"
#include "relay-summary-table.h"
#include "relay-trace-details.h"
#include "relay-waterfall-view.h"

G_BEGIN_DECLS

#define RELAY_TYPE_WINDOW (relay_window_get_type())

G_DECLARE_FINAL_TYPE (RelayWindow, relay_window, RELAY, WINDOW, AdwApplicationWindow)

RelayWindow        *relay_window_new               (RelayApplication *application);

RelaySession       *relay_window_get_session       (RelayWindow      *self);
GFile              *relay_window_get_file          (RelayWindow      *self);
/* Property "running": TRUE while probes run. */
gboolean            relay_window_get_running       (RelayWindow      *self);

/* Loads a session; on failure the window keeps its session and error says why. */
gboolean            relay_window_load_file         (RelayWindow      *self,
                                                    GFile            *file,
                                                    GError          **error);
/* Like load_file, but reports a failure in a dialog. */
void                relay_window_open_file         (RelayWindow      *self,
                                                    GFile            *file);
gboolean            relay_window_save_to_file      (RelayWindow      *self,
                                                    GFile            *file,
                                                    GError          **error);

/* Autosave: while a session has unsaved probes, a copy goes to
 * g_get_user_data_dir()/relayscope/autosave/PID-WINDOWID.relayscope after every run and
 * every 30 s, never to the user's file; it is removed once the session is saved or
 * discarded, or the window closes. A copy left by a crashed process is offered back. */
gboolean            relay_window_autosave          (RelayWindow      *self,
                                                    GError          **error);
/* Where this window autosaves (NULL before it belongs to the application). */
GFile              *relay_window_get_autosave_file (RelayWindow      *self);
GFile              *relay_window_get_autosave_dir  (void);
/* The sidecar beside an autosave that names the user's file the work came from. */
GFile              *relay_window_dup_autosave_origin_file (GFile     *autosave);
/* Takes an autosave (loaded unless loaded is given) as unsaved work (no file, modified)
 * and moves it to this window's own autosave. */
gboolean            relay_window_restore_autosave  (RelayWindow      *self,
                                                    GFile            *autosave,
                                                    RelaySession     *loaded,
                                                    GError          **error);

/* Starts the plan the composer describes. FALSE (with a toast) when nothing to probe. */
gboolean            relay_window_run               (RelayWindow      *self);
void                relay_window_stop              (RelayWindow      *self);
/* Adds the demo relays as endpoints and runs them. */
gboolean            relay_window_start_demo        (RelayWindow      *self,
                                                    guint             repeat,
                                                    guint             concurrency);

/* Runs a guided experiment with the window's prober: the waterfall fills live, the
 * progress names the step, and the answer lands on the Findings page. */
gboolean            relay_window_run_experiment    (RelayWindow      *self,
                                                    RelayExperiment  *experiment);
/* Opens the experiment dialog for the composer's endpoints (not referenced). */
RelayExperimentDialog *relay_window_show_experiment_dialog (RelayWindow *self,
                                                    RelayExperimentKind kind);
RelayFindingsView  *relay_window_get_findings_view (RelayWindow      *self);
RelayBudgetView    *relay_window_get_budget_view   (RelayWindow      *self);

/* The session's latency budget (its "budget" member), else the default from GSettings,
 * else the 880 ms one. set stores it in the session (and as the default when asked) and
 * marks overruns in the waterfall, the table and the Budget page. */
RelayBudget        *relay_window_dup_budget        (RelayWindow      *self);
void                relay_window_set_budget        (RelayWindow      *self,
                                                    RelayBudget      *budget,
                                                    gboolean          as_default);

/* format: "har", "csv", "jsonl" or "pdf" (the report, with the budget). */
gboolean            relay_window_export_data       (RelayWindow      *self,
                                                    const char       *format,
                                                    const char       *path,
                                                    GError          **error);
/* Shows a HAR file recorded elsewhere as an unsaved session. */
gboolean            relay_window_import_har        (RelayWindow      *self,
                                                    GFile            *file,
                                                    GError          **error);
/* The selected trace's request as a curl command (the key as an environment variable). */
char               *relay_window_dup_curl_command  (RelayWindow      *self,
                                                    GError          **error);

/* chart: "waterfall" or "stream". Height ≤ 0 fits the waterfall's rows. */
gboolean            relay_window_export_chart      (RelayWindow      *self,
                                                    const char       *chart,
                                                    RelayChartFormat  format,
                                                    const char       *path,
                                                    double            width,
                                                    double            height,
                                                    GError          **error);

RelayComposer      *relay_window_get_composer      (RelayWindow      *self);
RelayWaterfallView *relay_window_get_waterfall_view (RelayWindow     *self);
RelayStreamView    *relay_window_get_stream_view   (RelayWindow      *self);
RelaySummaryTable  *relay_window_get_summary_table (RelayWindow      *self);
RelayTraceDetails  *relay_window_get_trace_details (RelayWindow      *self);

G_END_DECLS
