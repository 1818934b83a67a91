/* relay-experiment.h: guided experiments: which probe plans to run, in which order, and the
 * analysis that turns the resulting session into a plain-language answer with its chart.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "relay-probe-plan.h"
#include "relay-prober.h"
#include "relay-session.h"

G_BEGIN_DECLS

typedef enum
{
  RELAY_EXPERIMENT_COLD_WARM,      /* "cold-vs-warm": cold and kept-alive probes interleaved */
  RELAY_EXPERIMENT_PROMPT_LENGTH,  /* "prompt-length": TTFT against prompt tokens, fitted */
  RELAY_EXPERIMENT_PROMPT_CACHE,   /* "prompt-cache": a repeated long prefix against unique ones */
  RELAY_EXPERIMENT_CONCURRENCY,    /* "concurrency": 1, 2, 4 … N streams at once */
  RELAY_EXPERIMENT_RACE,           /* "race": several endpoints at the same instant */
  RELAY_EXPERIMENT_MODELS,         /* "models": several models and reasoning efforts */
  RELAY_N_EXPERIMENTS
} RelayExperimentKind;

/* The name in files and on the command line ("cold-vs-warm", …). */
const char  *relay_experiment_kind_to_string        (RelayExperimentKind  kind);
gboolean     relay_experiment_kind_from_string      (const char          *str,
                                                     RelayExperimentKind *kind);
/* Translated title ("Cold vs warm connection") and a sentence on what it answers. */
const char  *relay_experiment_kind_get_title        (RelayExperimentKind  kind);
const char  *relay_experiment_kind_get_description  (RelayExperimentKind  kind);

/* ---------------------------------------------------------------------------------------
 * The result: a headline, details, a table and chart data. Read-only once made.
 */

typedef enum
{
  RELAY_EXPERIMENT_CHART_BARS,          /* categories side by side (x = category index) */
  RELAY_EXPERIMENT_CHART_STACKED_BARS,  /* the series stack up within each category */
  RELAY_EXPERIMENT_CHART_XY,            /* numeric x: points, or lines where series->line */
} RelayExperimentChart;

typedef struct
{
  double  x;       /* a number, or the category index */
  double  y;
  double  lo;      /* spread around y (e.g. p25…p75, or a confidence interval); NAN if none */
  double  hi;
} RelayExperimentPoint;

typedef struct
{
  char    *name;    /* legend: "TTFT p50" */
  char    *unit;    /* "ms", "tokens/s" */
  gboolean line;    /* XY: join the points with a line (a fit, a per-level curve) */
  gboolean fit;     /* a line fitted to the measurements, not measurements themselves */
  GArray  *points;  /* RelayExperimentPoint */
} RelayExperimentSeries;

typedef struct
{
  /* private */
  gatomicrefcount        ref;

  /* public, read-only */
  RelayExperimentKind    kind;
  char                  *title;
  char                  *headline;     /* the answer, one or two sentences with numbers */
  GPtrArray             *details;      /* char *: further sentences */
  RelayExperimentChart   chart;
  char                  *x_label;
  char                  *y_label;
  GPtrArray             *categories;   /* char *: x labels of the bar charts */
  GPtrArray             *series;       /* RelayExperimentSeries */
  GStrv                  columns;      /* the table's heading */
  GPtrArray             *rows;         /* GStrv: the table's rows, as text */
  JsonObject            *numbers;      /* key figures by name, for scripts ("saving_ms": 53) */
} RelayExperimentResult;

#define RELAY_TYPE_EXPERIMENT_RESULT (relay_experiment_result_get_type())

GType                   relay_experiment_result_get_type   (void) G_GNUC_CONST;
RelayExperimentResult  *relay_experiment_result_ref        (RelayExperimentResult *result);
void                    relay_experiment_result_unref      (RelayExperimentResult *result);
JsonNode               *relay_experiment_result_to_json    (RelayExperimentResult *result);
RelayExperimentResult  *relay_experiment_result_new_from_json (JsonNode           *node,
                                                            GError               **error);
/* Headline, details, table and a text chart, as the CLI prints them. */
char                   *relay_experiment_result_format_text (RelayExperimentResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RelayExperimentResult, relay_experiment_result_unref)

/* The session member an experiment is saved under: its name, parameters, the runs each step
 * produced, and the result (RELAY_EXPERIMENT_MEMBER, an object). */
#define RELAY_EXPERIMENT_MEMBER "experiment"

/* Analyses the experiment saved in session (after a run, or in a reopened file). Errors:
 * G_IO_ERROR_NOT_FOUND when the session holds no experiment, G_IO_ERROR_INVALID_DATA when
 * the member is malformed. The traces decide: a partial run gives a partial answer. */
RelayExperimentResult  *relay_experiment_analyze           (RelaySession          *session,
                                                            GError               **error);

/* ---------------------------------------------------------------------------------------
 * An experiment to run.
 */

#define RELAY_TYPE_EXPERIMENT (relay_experiment_get_type())

G_DECLARE_FINAL_TYPE (RelayExperiment, relay_experiment, RELAY, EXPERIMENT, GObject)

RelayExperiment     *relay_experiment_new                (RelayExperimentKind   kind);
RelayExperimentKind  relay_experiment_get_kind           (RelayExperiment      *self);

/* The endpoint(s). The race wants two or more; every other experiment exactly one. Each is
 * probed with all of its models: the models experiment compares them, the others want one. */
void                 relay_experiment_add_endpoint       (RelayExperiment      *self,
                                                          RelayEndpoint        *endpoint);
GPtrArray           *relay_experiment_get_endpoints      (RelayExperiment      *self);

/* The request. The prompt is used where the experiment does not make its own (cold-vs-warm,
 * concurrency, race, models). Defaults: the plan's prompt, 16 output tokens (64 for the
 * concurrency sweep, whose throughput needs a stream), a 60 s timeout. */
void                 relay_experiment_set_prompt         (RelayExperiment      *self,
                                                          const char           *prompt);
void                 relay_experiment_set_max_tokens     (RelayExperiment      *self,
                                                          guint                 max_tokens);
void                 relay_experiment_set_timeout        (RelayExperiment      *self,
                                                          double                timeout);
void                 relay_experiment_set_ca_file        (RelayExperiment      *self,
                                                          const char           *ca_file);
/* Reasoning effort for every probe (the models experiment uses set_efforts instead). */
void                 relay_experiment_set_reasoning_effort (RelayExperiment    *self,
                                                          const char           *effort);
/* Rounds: each step is repeated this many times, the rounds interleaved so that drift
 * over time touches every arm alike. 0 for the default (cold-vs-warm 5, prompt-length 2,
 * prompt-cache 4, concurrency 2, race 5, models 3). */
void                 relay_experiment_set_repeat         (RelayExperiment      *self,
                                                          guint                 repeat);
guint                relay_experiment_get_repeat         (RelayExperiment      *self);
/* prompt-length: prompt sizes in tokens (default 100, 1000, 2000, 4000, 8000, 16000). */
void                 relay_experiment_set_prompt_lengths (RelayExperiment      *self,
                                                          const guint          *tokens,
                                                          guint                 n_tokens);
/* prompt-cache: length of the shared prefix in tokens (default 2048). */
void                 relay_experiment_set_prefix_tokens  (RelayExperiment      *self,
                                                          guint                 tokens);
/* concurrency: the levels (default 1, 2, 4, 8). */
void                 relay_experiment_set_concurrency_levels (RelayExperiment  *self,
                                                          const guint          *levels,
                                                          guint                 n_levels);
/* models: reasoning efforts to compare ("low", "medium", "high"); NULL or empty for none. */
void                 relay_experiment_set_efforts        (RelayExperiment      *self,
                                                          const char * const   *efforts);

/* Checks the settings and builds the steps (plans). FALSE with G_IO_ERROR_INVALID_ARGUMENT
 * and a message a person can act on. run_async calls it when it has not been called. */
gboolean             relay_experiment_prepare            (RelayExperiment      *self,
                                                          GError              **error);
/* The steps in the order they run (after prepare): each is one probe plan. */
guint                relay_experiment_get_n_steps        (RelayExperiment      *self);
RelayProbePlan      *relay_experiment_get_step_plan      (RelayExperiment      *self,
                                                          guint                 step);
const char          *relay_experiment_get_step_label     (RelayExperiment      *self,
                                                          guint                 step);
/* Probes in all steps together (for progress). */
guint                relay_experiment_get_n_probes       (RelayExperiment      *self);

/* Runs the steps one after another with prober (whose key function and signals the caller
 * sets up: "trace-added" etc. report every probe, live) into session, then saves the
 * experiment and its result in the session (RELAY_EXPERIMENT_MEMBER) and analyses it.
 * "step-started" (guint step, guint n_steps) is emitted before each step. On error or
 * cancellation the steps that ran are saved, so that the session can still be analysed. */
void                 relay_experiment_run_async          (RelayExperiment      *self,
                                                          RelayProber          *prober,
                                                          RelaySession         *session,
                                                          GCancellable         *cancellable,
                                                          GAsyncReadyCallback   callback,
                                                          gpointer              user_data);
RelayExperimentResult *relay_experiment_run_finish       (RelayExperiment      *self,
                                                          GAsyncResult         *result,
                                                          GError              **error);

G_END_DECLS
