/* relay-compare.c: A/B comparison of two groups of traces, stage by stage: percentiles of
 * each side, bootstrap intervals of their differences, a Mann-Whitney U test and a verdict
 * a person can read.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "relay-compare.h"

struct _RelayComparison
{
  GObject            parent_instance;

  char              *label[2];
  RelaySession      *session[2];
  GPtrArray         *traces[2];
  guint              n_errors[2];

  guint              n_resamples;
  guint32            seed;
  double             level;
  double             alpha;
  guint              min_samples;

  gboolean           computed;
  RelayCompareStage  stages[RELAY_N_METRICS];
  GArray            *samples[2][RELAY_N_METRICS];   /* sorted, for CDFs */
};

G_DEFINE_FINAL_TYPE (RelayComparison, relay_comparison, G_TYPE_OBJECT)

static void
clear_results (RelayComparison *self)
{
  for (guint s = 0; s < 2; s++)
    for (guint m = 0; m < RELAY_N_METRICS; m++)
      g_clear_pointer (&self->samples[s][m], g_array_unref);
  memset (self->stages, 0, sizeof self->stages);
  self->computed = FALSE;
}

static void
relay_comparison_finalize (GObject *object)
{
  RelayComparison *self = (RelayComparison *)object;

  clear_results (self);
  for (guint s = 0; s < 2; s++)
    {
      g_clear_pointer (&self->label[s], g_free);
      g_clear_object (&self->session[s]);
      g_clear_pointer (&self->traces[s], g_ptr_array_unref);
    }

  G_OBJECT_CLASS (relay_comparison_parent_class)->finalize (object);
}

static void
relay_comparison_class_init (RelayComparisonClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = relay_comparison_finalize;
}

static void
relay_comparison_init (RelayComparison *self)
{
  self->n_resamples = 2000;
  self->seed = 1;
  self->level = 0.95;
  self->alpha = 0.05;
  self->min_samples = 10;
}

static gboolean
trace_counts (RelayTrace *trace)
{
  return relay_trace_is_finished (trace) &&
         relay_trace_get_error_stage (trace) != RELAY_ERROR_STAGE_CANCELLED;
}

GPtrArray *
relay_compare_select_traces (RelaySession  *session,
                             const char    *selector,
                             GError       **error)
{
  g_autoptr(GPtrArray) traces = NULL;
  GListModel *model;
  GListModel *runs;
  guint n_runs;
  g_autofree gboolean *wanted = NULL;
  gboolean any = FALSE;

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);

  model = relay_session_get_traces (session);
  runs = relay_session_get_runs (session);
  n_runs = g_list_model_get_n_items (runs);
  wanted = g_new0 (gboolean, MAX (n_runs, 1));

  if (selector == NULL || selector[0] == '\0')
    {
      for (guint r = 0; r < n_runs; r++)
        wanted[r] = TRUE;
      any = TRUE;
    }
  else if (selector[0] == '#')
    {
      guint64 index;

      if (g_ascii_string_to_unsigned (selector + 1, 10, 0, G_MAXUINT, &index, NULL) && index < n_runs)
        wanted[index] = any = TRUE;
    }
  else
    {
      for (guint r = 0; r < n_runs; r++)
        {
          RelayRun *run = relay_session_get_run (session, r);
          const char *endpoint = relay_run_get_endpoint (run);
          const char *model_name = relay_run_get_model (run);
          gsize len = endpoint ? strlen (endpoint) : 0;

          /* The endpoint name comes first; whatever follows its '/' is the model, so model
           * names with slashes ("org/model") still work. */
          if (g_strcmp0 (selector, endpoint) == 0 ||
              (endpoint != NULL && strncmp (selector, endpoint, len) == 0 && selector[len] == '/' &&
               g_strcmp0 (selector + len + 1, model_name) == 0))
            wanted[r] = any = TRUE;
        }
    }

  if (!any)
    {
      g_autoptr(GString) known = g_string_new (NULL);

      for (guint r = 0; r < n_runs; r++)
        {
          RelayRun *run = relay_session_get_run (session, r);

          g_string_append_printf (known, "%s#%u %s/%s", r ? ", " : "", r,
                                  relay_run_get_endpoint (run), relay_run_get_model (run));
        }
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("“%s” names no run of the session (it has: %s)"),
                   selector, known->len ? known->str : _("no runs"));
      return NULL;
    }

  traces = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (model, i);
      guint run = relay_trace_get_run (trace);

      if (run < n_runs && wanted[run] && trace_counts (trace))
        g_ptr_array_add (traces, g_steal_pointer (&trace));
    }

  return g_steal_pointer (&traces);
}

static GPtrArray *
copy_traces (GPtrArray *traces)
{
  GPtrArray *copy = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; traces != NULL && i < traces->len; i++)
    {
      RelayTrace *trace = g_ptr_array_index (traces, i);

      g_return_val_if_fail (RELAY_IS_TRACE (trace), copy);
      if (trace_counts (trace))
        g_ptr_array_add (copy, g_object_ref (trace));
    }

  return copy;
}

RelayComparison *
relay_comparison_new (const char   *label_a,
                      RelaySession *session_a,
                      GPtrArray    *traces_a,
                      const char   *label_b,
                      RelaySession *session_b,
                      GPtrArray    *traces_b)
{
  RelayComparison *self;

  g_return_val_if_fail (!session_a || RELAY_IS_SESSION (session_a), NULL);
  g_return_val_if_fail (!session_b || RELAY_IS_SESSION (session_b), NULL);

  self = g_object_new (RELAY_TYPE_COMPARISON, NULL);
  self->label[0] = g_strdup (label_a ? label_a : "A");
  self->label[1] = g_strdup (label_b ? label_b : "B");
  self->session[0] = session_a ? g_object_ref (session_a) : NULL;
  self->session[1] = session_b ? g_object_ref (session_b) : NULL;
  self->traces[0] = copy_traces (traces_a);
  self->traces[1] = copy_traces (traces_b);

  for (guint s = 0; s < 2; s++)
    for (guint i = 0; i < self->traces[s]->len; i++)
      if (!relay_trace_is_ok (g_ptr_array_index (self->traces[s], i)))
        self->n_errors[s]++;

  return self;
}

RelayComparison *
relay_comparison_new_for_sessions (RelaySession *a,
                                   const char   *label_a,
                                   RelaySession *b,
                                   const char   *label_b)
{
  g_autoptr(GPtrArray) traces_a = NULL;
  g_autoptr(GPtrArray) traces_b = NULL;

  g_return_val_if_fail (RELAY_IS_SESSION (a), NULL);
  g_return_val_if_fail (RELAY_IS_SESSION (b), NULL);

  traces_a = relay_compare_select_traces (a, NULL, NULL);
  traces_b = relay_compare_select_traces (b, NULL, NULL);

  return relay_comparison_new (label_a ? label_a : relay_session_get_title (a), a, traces_a,
                               label_b ? label_b : relay_session_get_title (b), b, traces_b);
}

RelayComparison *
relay_comparison_new_for_selectors (RelaySession  *session,
                                    const char    *selector_a,
                                    const char    *selector_b,
                                    GError       **error)
{
  g_autoptr(GPtrArray) traces_a = NULL;
  g_autoptr(GPtrArray) traces_b = NULL;

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);

  if (!(traces_a = relay_compare_select_traces (session, selector_a, error)) ||
      !(traces_b = relay_compare_select_traces (session, selector_b, error)))
    return NULL;

  return relay_comparison_new (selector_a, session, traces_a, selector_b, session, traces_b);
}

const char *
relay_comparison_get_label (RelayComparison *self,
                            gboolean         b)
{
  g_return_val_if_fail (RELAY_IS_COMPARISON (self), NULL);
  return self->label[!!b];
}

guint
relay_comparison_get_n_traces (RelayComparison *self,
                               gboolean         b)
{
  g_return_val_if_fail (RELAY_IS_COMPARISON (self), 0);
  return self->traces[!!b]->len;
}

guint
relay_comparison_get_n_errors (RelayComparison *self,
                               gboolean         b)
{
  g_return_val_if_fail (RELAY_IS_COMPARISON (self), 0);
  return self->n_errors[!!b];
}

void
relay_comparison_set_resamples (RelayComparison *self,
                                guint            n_resamples)
{
  g_return_if_fail (RELAY_IS_COMPARISON (self));
  self->n_resamples = n_resamples;
  clear_results (self);
}

void
relay_comparison_set_seed (RelayComparison *self,
                           guint32          seed)
{
  g_return_if_fail (RELAY_IS_COMPARISON (self));
  self->seed = seed;
  clear_results (self);
}

void
relay_comparison_set_level (RelayComparison *self,
                            double           level)
{
  g_return_if_fail (RELAY_IS_COMPARISON (self));
  g_return_if_fail (level > 0 && level < 1);
  self->level = level;
  clear_results (self);
}

void
relay_comparison_set_alpha (RelayComparison *self,
                            double           alpha)
{
  g_return_if_fail (RELAY_IS_COMPARISON (self));
  g_return_if_fail (alpha > 0 && alpha < 1);
  self->alpha = alpha;
  clear_results (self);
}

void
relay_comparison_set_min_samples (RelayComparison *self,
                                  guint            min_samples)
{
  g_return_if_fail (RELAY_IS_COMPARISON (self));
  self->min_samples = min_samples;
  clear_results (self);
}

guint
relay_comparison_get_min_samples (RelayComparison *self)
{
  g_return_val_if_fail (RELAY_IS_COMPARISON (self), 0);
  return self->min_samples;
}

/* Appends the gaps of a stream, each tagged with the stream's cluster index. */
static void
append_gaps (RelayTrace *trace,
             guint       cluster,
             GArray     *values,
             GArray     *clusters)
{
  guint n;
  const RelayChunk *chunks = relay_trace_get_chunks (trace, &n);

  for (guint i = 1; i < n; i++)
    {
      double gap = (chunks[i].t_us - chunks[i - 1].t_us) / 1000.0;

      g_array_append_val (values, gap);
      g_array_append_val (clusters, cluster);
    }
}

static gboolean
interval_excludes_zero (const RelayStatsInterval *interval)
{
  return isfinite (interval->lo) && isfinite (interval->hi) && (interval->lo > 0 || interval->hi < 0);
}

static void
compute_stage (RelayComparison *self,
               RelayMetric      metric)
{
  RelayCompareStage *stage = &self->stages[metric];
  GArray *values[2];
  GArray *clusters[2];
  GArray *per_trace[2];

  stage->metric = metric;

  for (guint s = 0; s < 2; s++)
    {
      values[s] = g_array_new (FALSE, FALSE, sizeof (double));
      clusters[s] = g_array_new (FALSE, FALSE, sizeof (guint));
      per_trace[s] = g_array_new (FALSE, FALSE, sizeof (double));

      for (guint i = 0; i < self->traces[s]->len; i++)
        {
          RelayTrace *trace = g_ptr_array_index (self->traces[s], i);
          double v;

          if (!relay_trace_is_ok (trace))
            continue;

          v = relay_trace_get_metric (trace, metric);
          if (!isfinite (v))
            continue;

          g_array_append_val (per_trace[s], v);
          if (metric == RELAY_METRIC_ITL)
            append_gaps (trace, per_trace[s]->len - 1, values[s], clusters[s]);
          else
            g_array_append_val (values[s], v);
        }
    }

  stage->traces_a = per_trace[0]->len;
  stage->traces_b = per_trace[1]->len;
  stage->few_samples = stage->traces_a < self->min_samples || stage->traces_b < self->min_samples;

  /* Different streams for p50 and p95 and for each stage, all derived from the one seed. */
  for (guint k = 0; k < 2; k++)
    relay_stats_bootstrap_percentile_diff ((double *) (gpointer) values[0]->data,
                                           metric == RELAY_METRIC_ITL ? (guint *) (gpointer) clusters[0]->data : NULL,
                                           values[0]->len, per_trace[0]->len,
                                           (double *) (gpointer) values[1]->data,
                                           metric == RELAY_METRIC_ITL ? (guint *) (gpointer) clusters[1]->data : NULL,
                                           values[1]->len, per_trace[1]->len,
                                           k == 0 ? 50 : 95,
                                           self->n_resamples, self->level,
                                           self->seed + 2 * metric + k,
                                           k == 0 ? &stage->diff_p50 : &stage->diff_p95);

  relay_stats_mann_whitney ((double *) (gpointer) per_trace[0]->data, per_trace[0]->len,
                            (double *) (gpointer) per_trace[1]->data, per_trace[1]->len,
                            &stage->test);

  stage->significant_p50 = isfinite (stage->test.p_value) && stage->test.p_value < self->alpha &&
                           interval_excludes_zero (&stage->diff_p50);
  stage->significant_p95 = isfinite (stage->test.p_value) && stage->test.p_value < self->alpha &&
                           interval_excludes_zero (&stage->diff_p95);

  for (guint s = 0; s < 2; s++)
    {
      relay_stats_compute ((double *) (gpointer) values[s]->data, values[s]->len,
                           s == 0 ? &stage->a : &stage->b);
      /* relay_stats_compute() moved the finite values to the front and sorted them. */
      g_array_set_size (values[s], s == 0 ? stage->a.n : stage->b.n);
      self->samples[s][metric] = g_steal_pointer (&values[s]);
      g_array_unref (clusters[s]);
      g_array_unref (per_trace[s]);
    }
}

static void
ensure_computed (RelayComparison *self)
{
  if (self->computed)
    return;

  for (guint m = 0; m < RELAY_N_METRICS; m++)
    compute_stage (self, m);
  self->computed = TRUE;
}

const RelayCompareStage *
relay_comparison_get_stage (RelayComparison *self,
                            RelayMetric      metric)
{
  g_return_val_if_fail (RELAY_IS_COMPARISON (self), NULL);
  g_return_val_if_fail ((guint) metric < RELAY_N_METRICS, NULL);

  ensure_computed (self);
  return &self->stages[metric];
}

const double *
relay_comparison_get_cdf (RelayComparison *self,
                          RelayMetric      metric,
                          gboolean         b,
                          guint           *n)
{
  GArray *values;

  g_return_val_if_fail (RELAY_IS_COMPARISON (self), NULL);
  g_return_val_if_fail ((guint) metric < RELAY_N_METRICS, NULL);
  g_return_val_if_fail (n != NULL, NULL);

  ensure_computed (self);
  values = self->samples[!!b][metric];
  *n = values ? values->len : 0;

  return *n > 0 ? (const double *) (gpointer) values->data : NULL;
}

const char *
relay_compare_metric_label (RelayMetric metric)
{
  switch (metric)
    {
    case RELAY_METRIC_DNS: return _("DNS");
    case RELAY_METRIC_TCP: return _("TCP");
    case RELAY_METRIC_TLS: return _("TLS");
    case RELAY_METRIC_WAIT: return _("wait");
    case RELAY_METRIC_TTFT: return _("TTFT");
    case RELAY_METRIC_ITL: return _("ITL");
    case RELAY_METRIC_TOKENS_PER_SECOND: return _("output rate");
    case RELAY_METRIC_TOTAL: return _("total time");
    case RELAY_N_METRICS:
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
relay_compare_metric_higher_is_better (RelayMetric metric)
{
  return metric == RELAY_METRIC_TOKENS_PER_SECOND;
}

/* Figures in sentences: whole numbers from 10 up, one decimal below. */
static char *
format_amount (double value)
{
  if (fabs (value) >= 9.95)
    return g_strdup_printf ("%.0f", value);
  return g_strdup_printf ("%.1f", value);
}

static char *
format_p (double p)
{
  if (p < 0.001)
    return g_strdup ("p < 0.001");
  return g_strdup_printf ("p = %.3f", p);
}

char *
relay_comparison_dup_verdict (RelayComparison *self,
                              RelayMetric      metric,
                              double           percentile)
{
  const RelayCompareStage *stage;
  const RelayStatsInterval *diff;
  const char *unit;
  const char *name;
  gboolean higher_better;
  gboolean significant;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *p = NULL;
  int pct;

  g_return_val_if_fail (RELAY_IS_COMPARISON (self), NULL);
  g_return_val_if_fail ((guint) metric < RELAY_N_METRICS, NULL);
  g_return_val_if_fail (percentile == 50 || percentile == 95, NULL);

  stage = relay_comparison_get_stage (self, metric);
  diff = percentile == 50 ? &stage->diff_p50 : &stage->diff_p95;
  significant = percentile == 50 ? stage->significant_p50 : stage->significant_p95;
  higher_better = relay_compare_metric_higher_is_better (metric);
  unit = higher_better ? _("tokens/s") : _("ms");
  name = relay_compare_metric_label (metric);
  pct = (int) percentile;

  if (stage->traces_a == 0 || stage->traces_b == 0)
    {
      g_string_append_printf (out, _("No %s to compare (A has %u values, B has %u)."),
                              name, stage->traces_a, stage->traces_b);
      return g_string_free (g_steal_pointer (&out), FALSE);
    }

  p = format_p (stage->test.p_value);

  if (diff->estimate == 0)
    g_string_append_printf (out, _("B's %s p%d is the same as A's"), name, pct);
  else
    {
      /* Say it in the direction that reads naturally: a positive amount "faster" or "slower",
       * with the interval turned the same way. */
      gboolean better = higher_better ? diff->estimate > 0 : diff->estimate < 0;
      double sign = (better != higher_better) ? -1 : 1;
      g_autofree char *amount = format_amount (sign * diff->estimate);
      double lo = sign > 0 ? diff->lo : -diff->hi;
      double hi = sign > 0 ? diff->hi : -diff->lo;

      g_string_append_printf (out, better ? _("B's %s p%d is %s %s faster") : _("B's %s p%d is %s %s slower"),
                              name, pct, amount, unit);

      if (isfinite (lo) && isfinite (hi))
        {
          g_autofree char *lo_text = format_amount (lo);
          g_autofree char *hi_text = format_amount (hi);

          /* "−10 to 20" reads better than "−10–20" once a bound is negative. */
          g_string_append_printf (out, lo < 0 ? _(" (%.0f%% CI %s to %s %s)") : _(" (%.0f%% CI %s–%s %s)"),
                                  diff->level * 100, lo_text, hi_text, unit);
        }
    }

  if (significant)
    g_string_append_printf (out, _(", significant (%s)."), p);
  else
    g_string_append_printf (out, _(", no significant difference (%s)."), p);

  if (stage->few_samples)
    g_string_append_printf (out, _(" Too few samples to be sure: A has %u, B has %u, at least %u a side are needed."),
                            stage->traces_a, stage->traces_b, self->min_samples);

  return g_string_free (g_steal_pointer (&out), FALSE);
}

static char *
format_cell (double value)
{
  if (!isfinite (value))
    return g_strdup ("-");
  if (fabs (value) >= 1000)
    return g_strdup_printf ("%.0f", value);
  return g_strdup_printf ("%.1f", value);
}

static char *
format_diff_cell (const RelayStatsInterval *diff)
{
  g_autofree char *estimate = format_cell (diff->estimate);
  g_autofree char *lo = format_cell (diff->lo);
  g_autofree char *hi = format_cell (diff->hi);

  if (!isfinite (diff->estimate))
    return g_strdup ("-");
  if (!isfinite (diff->lo))
    return g_strdup_printf ("%+.1f", diff->estimate);
  return g_strdup_printf ("%s%s [%s, %s]", diff->estimate > 0 ? "+" : "", estimate, lo, hi);
}

static void
pad (GString    *out,
     const char *text,
     guint       width,
     gboolean    right)
{
  glong len = g_utf8_strlen (text, -1);

  if (right)
    for (glong i = len; i < (glong) width; i++)
      g_string_append_c (out, ' ');
  g_string_append (out, text);
  if (!right)
    for (glong i = len; i < (glong) width; i++)
      g_string_append_c (out, ' ');
}

char *
relay_comparison_format_text (RelayComparison *self,
                              RelayMetric      metric)
{
  enum { N_COLS = 10 };
  const char *titles[N_COLS] = { "stage", "n A", "n B", "A p50", "B p50", "B−A p50 [95% CI]",
                                 "A p95", "B p95", "B−A p95 [95% CI]", "p" };
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  guint widths[N_COLS] = { 0 };
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (RELAY_IS_COMPARISON (self), NULL);
  g_return_val_if_fail ((guint) metric <= RELAY_N_METRICS, NULL);

  ensure_computed (self);

  for (guint s = 0; s < 2; s++)
    g_string_append_printf (out, _("%s: %s (%u probes, %u failed)\n"), s ? "B" : "A",
                            self->label[s], self->traces[s]->len, self->n_errors[s]);
  g_string_append_c (out, '\n');

  for (guint c = 0; c < N_COLS; c++)
    g_ptr_array_add (cells, g_strdup (titles[c]));

  for (guint m = 0; m < RELAY_N_METRICS; m++)
    {
      const RelayCompareStage *stage = &self->stages[m];

      if (metric != RELAY_N_METRICS && m != metric)
        continue;

      g_ptr_array_add (cells, g_strdup_printf ("%s %s", relay_metric_to_string (m),
                                               relay_compare_metric_higher_is_better (m) ? "tok/s" : "ms"));
      g_ptr_array_add (cells, g_strdup_printf ("%u", stage->traces_a));
      g_ptr_array_add (cells, g_strdup_printf ("%u", stage->traces_b));
      g_ptr_array_add (cells, format_cell (stage->a.p50));
      g_ptr_array_add (cells, format_cell (stage->b.p50));
      g_ptr_array_add (cells, format_diff_cell (&stage->diff_p50));
      g_ptr_array_add (cells, format_cell (stage->a.p95));
      g_ptr_array_add (cells, format_cell (stage->b.p95));
      g_ptr_array_add (cells, format_diff_cell (&stage->diff_p95));
      g_ptr_array_add (cells, isfinite (stage->test.p_value) ? g_strdup_printf ("%.3f", stage->test.p_value)
                                                             : g_strdup ("-"));
    }

  for (guint i = 0; i < cells->len; i++)
    widths[i % N_COLS] = MAX (widths[i % N_COLS], (guint) g_utf8_strlen (g_ptr_array_index (cells, i), -1));

  for (guint i = 0; i < cells->len; i++)
    {
      guint c = i % N_COLS;

      pad (out, g_ptr_array_index (cells, i), widths[c], c > 0);
      g_string_append (out, c + 1 < N_COLS ? "  " : "\n");
    }

  g_string_append_c (out, '\n');
  for (guint m = 0; m < RELAY_N_METRICS; m++)
    {
      const RelayCompareStage *stage = &self->stages[m];

      if (metric != RELAY_N_METRICS && m != metric)
        continue;
      if (stage->traces_a == 0 && stage->traces_b == 0)
        continue;

      for (guint k = 0; k < 2; k++)
        {
          g_autofree char *verdict = relay_comparison_dup_verdict (self, m, k == 0 ? 50 : 95);

          g_string_append_printf (out, "%s\n", verdict);
          if (stage->traces_a == 0 || stage->traces_b == 0)
            break;
        }
    }

  return g_string_free (out, FALSE);
}

static void
add_number (JsonBuilder *builder,
            const char  *name,
            double       value)
{
  json_builder_set_member_name (builder, name);
  if (isfinite (value))
    json_builder_add_double_value (builder, round (value * 1000) / 1000);
  else
    json_builder_add_null_value (builder);
}

static void
add_stats (JsonBuilder      *builder,
           const char       *name,
           const RelayStats *stats)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "n");
  json_builder_add_int_value (builder, stats->n);
  add_number (builder, "p50", stats->p50);
  add_number (builder, "p95", stats->p95);
  add_number (builder, "mean", stats->mean);
  add_number (builder, "min", stats->min);
  add_number (builder, "max", stats->max);
  json_builder_end_object (builder);
}

static void
add_interval (JsonBuilder              *builder,
              const char               *name,
              const RelayStatsInterval *interval)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_object (builder);
  add_number (builder, "estimate", interval->estimate);
  add_number (builder, "lo", interval->lo);
  add_number (builder, "hi", interval->hi);
  json_builder_end_object (builder);
}

static void
add_samples (JsonBuilder  *builder,
             const char   *name,
             const double *values,
             guint         n)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_double_value (builder, round (values[i] * 1000) / 1000);
  json_builder_end_array (builder);
}

JsonNode *
relay_comparison_to_json (RelayComparison *self,
                          RelayMetric      metric,
                          gboolean         with_cdf)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (RELAY_IS_COMPARISON (self), NULL);
  g_return_val_if_fail ((guint) metric <= RELAY_N_METRICS, NULL);

  ensure_computed (self);

  json_builder_begin_object (builder);
  for (guint s = 0; s < 2; s++)
    {
      json_builder_set_member_name (builder, s ? "b" : "a");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "label");
      json_builder_add_string_value (builder, self->label[s]);
      json_builder_set_member_name (builder, "probes");
      json_builder_add_int_value (builder, self->traces[s]->len);
      json_builder_set_member_name (builder, "errors");
      json_builder_add_int_value (builder, self->n_errors[s]);
      json_builder_end_object (builder);
    }
  json_builder_set_member_name (builder, "level");
  json_builder_add_double_value (builder, self->level);
  json_builder_set_member_name (builder, "alpha");
  json_builder_add_double_value (builder, self->alpha);
  json_builder_set_member_name (builder, "resamples");
  json_builder_add_int_value (builder, self->n_resamples);
  json_builder_set_member_name (builder, "seed");
  json_builder_add_int_value (builder, self->seed);
  json_builder_set_member_name (builder, "min_samples");
  json_builder_add_int_value (builder, self->min_samples);

  json_builder_set_member_name (builder, "stages");
  json_builder_begin_array (builder);
  for (guint m = 0; m < RELAY_N_METRICS; m++)
    {
      const RelayCompareStage *stage = &self->stages[m];
      g_autofree char *verdict_p50 = NULL;
      g_autofree char *verdict_p95 = NULL;

      if (metric != RELAY_N_METRICS && m != metric)
        continue;

      verdict_p50 = relay_comparison_dup_verdict (self, m, 50);
      verdict_p95 = relay_comparison_dup_verdict (self, m, 95);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "stage");
      json_builder_add_string_value (builder, relay_metric_to_string (m));
      json_builder_set_member_name (builder, "unit");
      json_builder_add_string_value (builder, relay_compare_metric_higher_is_better (m) ? "tokens/s" : "ms");
      json_builder_set_member_name (builder, "traces_a");
      json_builder_add_int_value (builder, stage->traces_a);
      json_builder_set_member_name (builder, "traces_b");
      json_builder_add_int_value (builder, stage->traces_b);
      add_stats (builder, "a", &stage->a);
      add_stats (builder, "b", &stage->b);
      add_interval (builder, "diff_p50", &stage->diff_p50);
      add_interval (builder, "diff_p95", &stage->diff_p95);
      json_builder_set_member_name (builder, "mann_whitney");
      json_builder_begin_object (builder);
      add_number (builder, "u_a", stage->test.u_a);
      add_number (builder, "z", stage->test.z);
      json_builder_set_member_name (builder, "p");
      if (isfinite (stage->test.p_value))
        json_builder_add_double_value (builder, stage->test.p_value);
      else
        json_builder_add_null_value (builder);
      json_builder_end_object (builder);
      json_builder_set_member_name (builder, "significant_p50");
      json_builder_add_boolean_value (builder, stage->significant_p50);
      json_builder_set_member_name (builder, "significant_p95");
      json_builder_add_boolean_value (builder, stage->significant_p95);
      json_builder_set_member_name (builder, "few_samples");
      json_builder_add_boolean_value (builder, stage->few_samples);
      json_builder_set_member_name (builder, "verdict_p50");
      json_builder_add_string_value (builder, verdict_p50);
      json_builder_set_member_name (builder, "verdict_p95");
      json_builder_add_string_value (builder, verdict_p95);
      if (with_cdf)
        {
          add_samples (builder, "cdf_a", (double *) (gpointer) self->samples[0][m]->data, self->samples[0][m]->len);
          add_samples (builder, "cdf_b", (double *) (gpointer) self->samples[1][m]->data, self->samples[1][m]->len);
        }
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}
