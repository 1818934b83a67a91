/* relay-compare.h: A/B comparison of two groups of traces (two sessions, or two endpoints,
 * models or runs of one session), stage by stage, with intervals, a test and a verdict.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "relay-session.h"
#include "relay-stats.h"
#include "relay-summary.h"

G_BEGIN_DECLS

/* One stage (a RelayMetric) compared. Differences are B − A. Figures are in ms, or in
 * tokens/s for RELAY_METRIC_TOKENS_PER_SECOND. ITL pools the gaps of every stream, as the
 * summary table does; its interval resamples whole streams (gaps of one stream are not
 * independent) and its test compares each stream's median gap. */
typedef struct
{
  RelayMetric        metric;
  guint              traces_a;      /* traces that gave a value */
  guint              traces_b;
  RelayStats         a;             /* of the samples (gaps for ITL) */
  RelayStats         b;
  RelayStatsInterval diff_p50;      /* p50 of B − p50 of A, bootstrap interval */
  RelayStatsInterval diff_p95;
  RelayMannWhitney   test;          /* on one value per trace */
  gboolean           few_samples;   /* a side has fewer traces than the minimum */
  gboolean           significant_p50;  /* p < alpha and the interval excludes 0 */
  gboolean           significant_p95;
} RelayCompareStage;

#define RELAY_TYPE_COMPARISON (relay_comparison_get_type())

G_DECLARE_FINAL_TYPE (RelayComparison, relay_comparison, RELAY, COMPARISON, GObject)

/* The traces of session that a selector names, in session order, finished and not
 * cancelled (failed ones included: they count as errors). Selectors: NULL or "" (every
 * trace), "ENDPOINT", "ENDPOINT/MODEL" (a model name may contain '/'), or "#N" (run N, from
 * 0). Errors are G_IO_ERROR_NOT_FOUND with a message that lists what there is. */
GPtrArray         *relay_compare_select_traces      (RelaySession     *session,
                                                     const char       *selector,
                                                     GError          **error);

/* Traces are arrays of RelayTrace (referenced); session names their endpoints. */
RelayComparison   *relay_comparison_new             (const char       *label_a,
                                                     RelaySession     *session_a,
                                                     GPtrArray        *traces_a,
                                                     const char       *label_b,
                                                     RelaySession     *session_b,
                                                     GPtrArray        *traces_b);
/* Every trace of a against every trace of b. */
RelayComparison   *relay_comparison_new_for_sessions (RelaySession    *a,
                                                     const char       *label_a,
                                                     RelaySession     *b,
                                                     const char       *label_b);
/* Two selections of one session. */
RelayComparison   *relay_comparison_new_for_selectors (RelaySession   *session,
                                                     const char       *selector_a,
                                                     const char       *selector_b,
                                                     GError          **error);

const char        *relay_comparison_get_label       (RelayComparison  *self,
                                                     gboolean          b);
/* Traces of a side, and how many of them failed. */
guint              relay_comparison_get_n_traces    (RelayComparison  *self,
                                                     gboolean          b);
guint              relay_comparison_get_n_errors    (RelayComparison  *self,
                                                     gboolean          b);

/* Settings; changing one discards computed results. Defaults: 2000 resamples, seed 1,
 * level 0.95, alpha 0.05, at least 10 traces a side. */
void               relay_comparison_set_resamples   (RelayComparison  *self,
                                                     guint             n_resamples);
void               relay_comparison_set_seed        (RelayComparison  *self,
                                                     guint32           seed);
void               relay_comparison_set_level       (RelayComparison  *self,
                                                     double            level);
void               relay_comparison_set_alpha       (RelayComparison  *self,
                                                     double            alpha);
void               relay_comparison_set_min_samples (RelayComparison  *self,
                                                     guint             min_samples);
guint              relay_comparison_get_min_samples (RelayComparison  *self);

/* Computed on first use. */
const RelayCompareStage *relay_comparison_get_stage (RelayComparison  *self,
                                                     RelayMetric       metric);
/* The sorted samples of a side, for overlaid CDFs (gaps for ITL); NULL with *n = 0 when
 * there are none. Valid until a setting changes or the comparison is finalised. */
const double      *relay_comparison_get_cdf         (RelayComparison  *self,
                                                     RelayMetric       metric,
                                                     gboolean          b,
                                                     guint            *n);

/* One sentence, e.g. "B's TTFT p50 is 120 ms faster (95% CI 90–150 ms), significant
 * (p = 0.003)." percentile is 50 or 95. A warning follows when samples are too few. */
char              *relay_comparison_dup_verdict     (RelayComparison  *self,
                                                     RelayMetric       metric,
                                                     double            percentile);
/* Human name of a metric in sentences ("TTFT", "wait", "output rate"). */
const char        *relay_compare_metric_label       (RelayMetric       metric);
/* TRUE for metrics where more is better (tokens/s). */
gboolean           relay_compare_metric_higher_is_better (RelayMetric  metric);

/* The comparison as a plain-text table followed by verdicts; metric RELAY_N_METRICS for
 * every stage, or one stage. */
char              *relay_comparison_format_text     (RelayComparison  *self,
                                                     RelayMetric       metric);
/* The comparison as JSON (stages, intervals, tests, verdicts, CDF samples when with_cdf). */
JsonNode          *relay_comparison_to_json         (RelayComparison  *self,
                                                     RelayMetric       metric,
                                                     gboolean          with_cdf);

G_END_DECLS
