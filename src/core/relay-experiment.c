/* relay-experiment.c: guided experiments: their probe plans, the run that strings the plans
 * together, and the analyses that say in words what the traces show.
 *
 * An experiment is a list of steps, each one probe plan. Steps of different arms are
 * interleaved round by round, so that a change over time (the provider's load, the
 * client's network) touches every arm alike. Which runs each step produced is saved in the
 * session's "experiment" member; the analysis reads only that member and the traces, so a
 * reopened session is explained exactly as a fresh one.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "relay-experiment.h"
#include "relay-stats.h"

/* Queueing starts at the first level whose server-side TTFT p50 is KNEE_RATIO × that of the
 * lowest level and at least KNEE_MIN_MS more. */
#define KNEE_RATIO   1.5
#define KNEE_MIN_MS  50.0
#define CHART_WIDTH  40

static const char * const kind_names[RELAY_N_EXPERIMENTS] = {
  "cold-vs-warm", "prompt-length", "prompt-cache", "concurrency", "race", "models",
};

static const guint default_repeat[RELAY_N_EXPERIMENTS] = { 5, 2, 4, 2, 5, 3 };
static const guint default_lengths[] = { 100, 1000, 2000, 4000, 8000, 16000 };
static const guint default_levels[] = { 1, 2, 4, 8 };

/* Filler for generated prompts: plain sentences, so that tokenizers count them as they
 * count ordinary text (about four characters a token). */
static const char * const filler[] = {
  "Latency is the time between asking a question and seeing the first word of the answer.",
  "A relay forwards each request to an upstream model provider and streams the reply back.",
  "Every new connection pays for name resolution, a TCP handshake and a TLS handshake.",
  "The server reads the whole prompt before it can produce the first token of a reply.",
  "Long conversations make the prompt longer, and a longer prompt takes longer to read.",
  "A cache of recent prompt prefixes lets a provider skip work it has already done.",
  "Streaming shows the reply as it is written instead of after it is complete.",
  "Under heavy load a provider queues requests and the first token arrives later.",
  "Reasoning models think before they answer, and thinking takes time as well.",
  "Measure first, then change one thing at a time, then measure again.",
  "The median tells what usually happens and the tail tells what sometimes happens.",
  "A budget for each stage turns a vague feeling of slowness into a number to check.",
};

/* ---------------------------------------------------------------------------------------
 * Kinds.
 */

const char *
relay_experiment_kind_to_string (RelayExperimentKind kind)
{
  g_return_val_if_fail ((guint) kind < RELAY_N_EXPERIMENTS, NULL);

  return kind_names[kind];
}

gboolean
relay_experiment_kind_from_string (const char          *str,
                                   RelayExperimentKind *kind)
{
  g_return_val_if_fail (kind != NULL, FALSE);

  for (guint i = 0; str != NULL && i < RELAY_N_EXPERIMENTS; i++)
    {
      if (g_ascii_strcasecmp (str, kind_names[i]) == 0)
        {
          *kind = i;
          return TRUE;
        }
    }

  return FALSE;
}

const char *
relay_experiment_kind_get_title (RelayExperimentKind kind)
{
  switch (kind)
    {
    case RELAY_EXPERIMENT_COLD_WARM:
      return _("Cold vs warm connection");
    case RELAY_EXPERIMENT_PROMPT_LENGTH:
      return _("Prompt length sweep");
    case RELAY_EXPERIMENT_PROMPT_CACHE:
      return _("Prompt cache");
    case RELAY_EXPERIMENT_CONCURRENCY:
      return _("Concurrency sweep");
    case RELAY_EXPERIMENT_RACE:
      return _("Endpoint race");
    case RELAY_EXPERIMENT_MODELS:
      return _("Model variants and reasoning effort");
    case RELAY_N_EXPERIMENTS:
    default:
      g_return_val_if_reached (NULL);
    }
}

const char *
relay_experiment_kind_get_description (RelayExperimentKind kind)
{
  switch (kind)
    {
    case RELAY_EXPERIMENT_COLD_WARM:
      return _("Cold and kept-alive probes, interleaved: what DNS, TCP and TLS cost each "
               "request that does not reuse a connection.");
    case RELAY_EXPERIMENT_PROMPT_LENGTH:
      return _("TTFT against prompt length: the prefill cost in ms per 1,000 prompt tokens, "
               "fitted, with its confidence interval.");
    case RELAY_EXPERIMENT_PROMPT_CACHE:
      return _("A long identical prefix sent repeatedly against unique prompts: the TTFT "
               "the provider's prompt cache saves, and its cached-token count.");
    case RELAY_EXPERIMENT_CONCURRENCY:
      return _("1, 2, 4 … N concurrent streams: TTFT p50 and p95 and output throughput per "
               "level, and the level where queueing starts.");
    case RELAY_EXPERIMENT_RACE:
      return _("Several endpoints probed at the same instant, round after round: the fastest "
               "to connect and the fastest to the first token.");
    case RELAY_EXPERIMENT_MODELS:
      return _("The same prompt to several models and reasoning efforts: the TTFT and the "
               "time to first visible text each costs.");
    case RELAY_N_EXPERIMENTS:
    default:
      g_return_val_if_reached (NULL);
    }
}

/* ---------------------------------------------------------------------------------------
 * Numbers.
 */

static char *
fmt_ms (double ms)
{
  if (!isfinite (ms))
    return g_strdup ("–");
  if (fabs (ms) >= 1000)
    return g_strdup_printf (_("%.2f s"), ms / 1000);
  if (fabs (ms) >= 10)
    return g_strdup_printf (_("%.0f ms"), ms);
  return g_strdup_printf (_("%.1f ms"), ms);
}

static char *
fmt_percent (double share)
{
  if (!isfinite (share))
    return g_strdup ("–");
  return g_strdup_printf (_("%.0f %%"), 100 * share);
}

static char *
fmt_number (double value)
{
  if (!isfinite (value))
    return g_strdup ("–");
  return g_strdup_printf ("%.0f", value);
}

static GArray *
doubles_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (double));
}

static void
add_double (GArray *values,
            double  value)
{
  if (isfinite (value))
    g_array_append_val (values, value);
}

static double
percentile_of (GArray *values,
               double  q)
{
  if (values == NULL)
    return NAN;

  return relay_stats_percentile_of ((const double *) (gpointer) values->data, values->len, q);
}

static double
median_of (GArray *values)
{
  return percentile_of (values, 50);
}

static double
interval_ms (RelayTrace *trace,
             RelayMark   from,
             RelayMark   to)
{
  gint64 us = relay_trace_get_interval (trace, from, to);

  return us == RELAY_TIME_NONE ? NAN : us / 1000.0;
}

static double
ttft_ms (RelayTrace *trace)
{
  return interval_ms (trace, RELAY_MARK_START, RELAY_MARK_FIRST_TOKEN);
}

/* DNS + TCP + proxy + TLS of a new connection; NAN on a reused one. */
static double
connect_ms (RelayTrace *trace)
{
  static const RelayMark ends[] = { RELAY_MARK_TLS_END, RELAY_MARK_PROXY_END, RELAY_MARK_TCP_END };
  gint64 begin = relay_trace_get_mark (trace, RELAY_MARK_DNS_START);
  gint64 end = RELAY_TIME_NONE;

  if (relay_trace_get_reused (trace))
    return NAN;
  if (begin == RELAY_TIME_NONE)
    begin = relay_trace_get_mark (trace, RELAY_MARK_CONNECT_START);
  for (guint i = 0; i < G_N_ELEMENTS (ends) && end == RELAY_TIME_NONE; i++)
    end = relay_trace_get_mark (trace, ends[i]);

  if (begin == RELAY_TIME_NONE || end == RELAY_TIME_NONE || end < begin)
    return NAN;

  return (end - begin) / 1000.0;
}

/* TLS as the client pays it: its own set-up before the handshake, and the handshake. */
static double
tls_total_ms (RelayTrace *trace)
{
  RelayMark before = relay_trace_has_mark (trace, RELAY_MARK_PROXY_END) ? RELAY_MARK_PROXY_END
                                                                        : RELAY_MARK_TCP_END;

  return interval_ms (trace, before, RELAY_MARK_TLS_END);
}

/* Two-sided 95 % quantiles of Student's t by degrees of freedom. */
static double
t_975 (guint df)
{
  static const double table[] = {
    NAN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
  };

  if (df < G_N_ELEMENTS (table))
    return table[df];
  if (df <= 60)
    return 2.00;
  if (df <= 120)
    return 1.98;
  return 1.96;
}

typedef struct
{
  guint  n;
  double slope;       /* y per x */
  double intercept;
  double slope_lo;    /* 95 % confidence interval of the slope */
  double slope_hi;
  double r2;
  double x_min;
  double x_max;
} Fit;

/* Ordinary least squares of y = a + b x; FALSE with fewer than three points or one x. */
static gboolean
fit_line (GArray *xs,
          GArray *ys,
          Fit    *fit)
{
  double sx = 0, sy = 0, mx, my, sxx = 0, sxy = 0, syy = 0, ssr = 0, se;
  guint n = MIN (xs->len, ys->len);

  memset (fit, 0, sizeof *fit);
  fit->n = n;
  if (n < 3)
    return FALSE;

  fit->x_min = fit->x_max = g_array_index (xs, double, 0);
  for (guint i = 0; i < n; i++)
    {
      sx += g_array_index (xs, double, i);
      sy += g_array_index (ys, double, i);
      fit->x_min = MIN (fit->x_min, g_array_index (xs, double, i));
      fit->x_max = MAX (fit->x_max, g_array_index (xs, double, i));
    }
  mx = sx / n;
  my = sy / n;
  for (guint i = 0; i < n; i++)
    {
      double dx = g_array_index (xs, double, i) - mx;
      double dy = g_array_index (ys, double, i) - my;

      sxx += dx * dx;
      sxy += dx * dy;
      syy += dy * dy;
    }
  if (sxx <= 0)
    return FALSE;

  fit->slope = sxy / sxx;
  fit->intercept = my - fit->slope * mx;
  for (guint i = 0; i < n; i++)
    {
      double r = g_array_index (ys, double, i) - (fit->intercept + fit->slope * g_array_index (xs, double, i));

      ssr += r * r;
    }
  se = sqrt (ssr / (n - 2)) / sqrt (sxx);
  fit->slope_lo = fit->slope - t_975 (n - 2) * se;
  fit->slope_hi = fit->slope + t_975 (n - 2) * se;
  fit->r2 = syy > 0 ? 1 - ssr / syy : 1;

  return TRUE;
}

/* ---------------------------------------------------------------------------------------
 * Results.
 */

G_DEFINE_BOXED_TYPE (RelayExperimentResult, relay_experiment_result,
                     relay_experiment_result_ref, relay_experiment_result_unref)

static void
series_free (gpointer data)
{
  RelayExperimentSeries *series = data;

  g_free (series->name);
  g_free (series->unit);
  g_clear_pointer (&series->points, g_array_unref);
  g_free (series);
}

static void
row_free (gpointer data)
{
  g_strfreev (data);
}

static RelayExperimentResult *
result_new (RelayExperimentKind kind)
{
  RelayExperimentResult *result = g_new0 (RelayExperimentResult, 1);

  g_atomic_ref_count_init (&result->ref);
  result->kind = kind;
  result->title = g_strdup (relay_experiment_kind_get_title (kind));
  result->details = g_ptr_array_new_with_free_func (g_free);
  result->categories = g_ptr_array_new_with_free_func (g_free);
  result->series = g_ptr_array_new_with_free_func (series_free);
  result->rows = g_ptr_array_new_with_free_func (row_free);
  result->numbers = json_object_new ();
  result->chart = RELAY_EXPERIMENT_CHART_BARS;

  return result;
}

RelayExperimentResult *
relay_experiment_result_ref (RelayExperimentResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);

  g_atomic_ref_count_inc (&result->ref);
  return result;
}

void
relay_experiment_result_unref (RelayExperimentResult *result)
{
  g_return_if_fail (result != NULL);

  if (!g_atomic_ref_count_dec (&result->ref))
    return;

  g_free (result->title);
  g_free (result->headline);
  g_ptr_array_unref (result->details);
  g_free (result->x_label);
  g_free (result->y_label);
  g_ptr_array_unref (result->categories);
  g_ptr_array_unref (result->series);
  g_strfreev (result->columns);
  g_ptr_array_unref (result->rows);
  json_object_unref (result->numbers);
  g_free (result);
}

G_GNUC_PRINTF (2, 3)
static void
result_set_headline (RelayExperimentResult *result,
                     const char            *format,
                     ...)
{
  va_list args;

  va_start (args, format);
  g_free (result->headline);
  result->headline = g_strdup_vprintf (format, args);
  va_end (args);
}

G_GNUC_PRINTF (2, 3)
static void
result_add_detail (RelayExperimentResult *result,
                   const char            *format,
                   ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (result->details, g_strdup_vprintf (format, args));
  va_end (args);
}

static RelayExperimentSeries *
result_add_series (RelayExperimentResult *result,
                   const char            *name,
                   const char            *unit,
                   gboolean               line)
{
  RelayExperimentSeries *series = g_new0 (RelayExperimentSeries, 1);

  series->name = g_strdup (name);
  series->unit = g_strdup (unit);
  series->line = line;
  series->points = g_array_new (FALSE, FALSE, sizeof (RelayExperimentPoint));
  g_ptr_array_add (result->series, series);

  return series;
}

static void
series_add (RelayExperimentSeries *series,
            double                 x,
            double                 y,
            double                 lo,
            double                 hi)
{
  RelayExperimentPoint point = { x, y, lo, hi };

  if (isfinite (x) && isfinite (y))
    g_array_append_val (series->points, point);
}

static void
result_set_columns (RelayExperimentResult *result,
                    const char            *first,
                    ...)
{
  GPtrArray *columns = g_ptr_array_new ();
  const char *column;
  va_list args;

  va_start (args, first);
  for (column = first; column != NULL; column = va_arg (args, const char *))
    g_ptr_array_add (columns, g_strdup (column));
  va_end (args);
  g_ptr_array_add (columns, NULL);

  g_strfreev (result->columns);
  result->columns = (GStrv) g_ptr_array_free (columns, FALSE);
}

/* Takes the strings, which must be as many as the columns. */
G_GNUC_NULL_TERMINATED
static void
result_add_row (RelayExperimentResult *result,
                char                  *first,
                ...)
{
  GPtrArray *row = g_ptr_array_new ();
  char *cell;
  va_list args;

  va_start (args, first);
  for (cell = first; cell != NULL; cell = va_arg (args, char *))
    g_ptr_array_add (row, cell);
  va_end (args);

  g_assert (result->columns == NULL || row->len == g_strv_length (result->columns));
  g_ptr_array_add (row, NULL);
  g_ptr_array_add (result->rows, g_ptr_array_free (row, FALSE));
}

static void
result_number (RelayExperimentResult *result,
               const char            *name,
               double                 value)
{
  if (isfinite (value))
    json_object_set_double_member (result->numbers, name, round (value * 1000) / 1000);
  else
    json_object_set_null_member (result->numbers, name);
}

static const char * const chart_names[] = { "bars", "stacked-bars", "xy" };

static void
add_nullable_double (JsonBuilder *b,
                     const char  *name,
                     double       value)
{
  json_builder_set_member_name (b, name);
  if (isfinite (value))
    json_builder_add_double_value (b, round (value * 1000) / 1000);
  else
    json_builder_add_null_value (b);
}

static void
add_strings (JsonBuilder        *b,
             const char         *name,
             const char * const *strings,
             guint               n)
{
  if (name != NULL)
    json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; strings != NULL && i < n; i++)
    json_builder_add_string_value (b, strings[i]);
  json_builder_end_array (b);
}

JsonNode *
relay_experiment_result_to_json (RelayExperimentResult *result)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  JsonNode *numbers;

  g_return_val_if_fail (result != NULL, NULL);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, relay_experiment_kind_to_string (result->kind));
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, result->title);
  json_builder_set_member_name (b, "headline");
  json_builder_add_string_value (b, result->headline);
  add_strings (b, "details", (const char * const *) result->details->pdata, result->details->len);
  json_builder_set_member_name (b, "chart");
  json_builder_add_string_value (b, chart_names[result->chart]);
  json_builder_set_member_name (b, "x_label");
  json_builder_add_string_value (b, result->x_label ? result->x_label : "");
  json_builder_set_member_name (b, "y_label");
  json_builder_add_string_value (b, result->y_label ? result->y_label : "");
  add_strings (b, "categories", (const char * const *) result->categories->pdata, result->categories->len);

  json_builder_set_member_name (b, "series");
  json_builder_begin_array (b);
  for (guint i = 0; i < result->series->len; i++)
    {
      RelayExperimentSeries *series = g_ptr_array_index (result->series, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, series->name);
      json_builder_set_member_name (b, "unit");
      json_builder_add_string_value (b, series->unit);
      json_builder_set_member_name (b, "line");
      json_builder_add_boolean_value (b, series->line);
      json_builder_set_member_name (b, "fit");
      json_builder_add_boolean_value (b, series->fit);
      json_builder_set_member_name (b, "points");
      json_builder_begin_array (b);
      for (guint p = 0; p < series->points->len; p++)
        {
          RelayExperimentPoint *point = &g_array_index (series->points, RelayExperimentPoint, p);

          json_builder_begin_object (b);
          add_nullable_double (b, "x", point->x);
          add_nullable_double (b, "y", point->y);
          add_nullable_double (b, "lo", point->lo);
          add_nullable_double (b, "hi", point->hi);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  add_strings (b, "columns", (const char * const *) result->columns,
               result->columns ? g_strv_length (result->columns) : 0);
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint i = 0; i < result->rows->len; i++)
    {
      GStrv row = g_ptr_array_index (result->rows, i);

      add_strings (b, NULL, (const char * const *) row, g_strv_length (row));
    }
  json_builder_end_array (b);

  numbers = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (numbers, result->numbers);
  json_builder_set_member_name (b, "numbers");
  json_builder_add_value (b, numbers);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

static gboolean
invalid (GError     **error,
         const char  *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("The experiment’s result is malformed (%s)"), what);
  return FALSE;
}

static const char *
get_string (JsonObject *o,
            const char *name)
{
  JsonNode *node = json_object_get_member (o, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static double
get_double (JsonObject *o,
            const char *name)
{
  JsonNode *node = json_object_get_member (o, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      (json_node_get_value_type (node) != G_TYPE_DOUBLE && json_node_get_value_type (node) != G_TYPE_INT64))
    return NAN;
  return json_node_get_double (node);
}

static JsonArray *
get_array (JsonObject *o,
           const char *name)
{
  JsonNode *node = json_object_get_member (o, name);

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

static gboolean
read_strings (JsonArray  *array,
              GPtrArray  *out,
              GError    **error)
{
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        return invalid (error, "strings");
      g_ptr_array_add (out, g_strdup (json_node_get_string (node)));
    }

  return TRUE;
}

RelayExperimentResult *
relay_experiment_result_new_from_json (JsonNode  *node,
                                       GError   **error)
{
  g_autoptr(RelayExperimentResult) result = NULL;
  RelayExperimentKind kind;
  JsonObject *o;
  JsonArray *array;
  const char *chart;

  g_return_val_if_fail (node != NULL, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return invalid (error, "not an object"), NULL;

  o = json_node_get_object (node);
  if (!relay_experiment_kind_from_string (get_string (o, "kind"), &kind))
    return invalid (error, "kind"), NULL;

  result = result_new (kind);
  if (get_string (o, "title") != NULL)
    {
      g_free (result->title);
      result->title = g_strdup (get_string (o, "title"));
    }
  result->headline = g_strdup (get_string (o, "headline"));
  if (result->headline == NULL)
    return invalid (error, "headline"), NULL;
  result->x_label = g_strdup (get_string (o, "x_label"));
  result->y_label = g_strdup (get_string (o, "y_label"));

  chart = get_string (o, "chart");
  for (guint i = 0; chart != NULL && i < G_N_ELEMENTS (chart_names); i++)
    if (strcmp (chart, chart_names[i]) == 0)
      result->chart = i;

  if (!read_strings (get_array (o, "details"), result->details, error) ||
      !read_strings (get_array (o, "categories"), result->categories, error))
    return NULL;

  array = get_array (o, "series");
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *so;
      RelayExperimentSeries *series;
      JsonArray *points;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return invalid (error, "series"), NULL;
      so = json_node_get_object (element);
      series = result_add_series (result, get_string (so, "name"), get_string (so, "unit"),
                                  json_object_get_boolean_member_with_default (so, "line", FALSE));
      series->fit = json_object_get_boolean_member_with_default (so, "fit", FALSE);
      points = get_array (so, "points");
      for (guint p = 0; points != NULL && p < json_array_get_length (points); p++)
        {
          JsonNode *pn = json_array_get_element (points, p);
          JsonObject *po;
          RelayExperimentPoint point;

          if (!JSON_NODE_HOLDS_OBJECT (pn))
            return invalid (error, "points"), NULL;
          po = json_node_get_object (pn);
          point.x = get_double (po, "x");
          point.y = get_double (po, "y");
          point.lo = get_double (po, "lo");
          point.hi = get_double (po, "hi");
          g_array_append_val (series->points, point);
        }
    }

  {
    g_autoptr(GPtrArray) columns = g_ptr_array_new ();

    if (!read_strings (get_array (o, "columns"), columns, error))
      return NULL;
    if (columns->len > 0)
      {
        g_ptr_array_add (columns, NULL);
        result->columns = (GStrv) g_ptr_array_steal (columns, NULL);
      }
  }

  array = get_array (o, "rows");
  for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autoptr(GPtrArray) row = g_ptr_array_new_with_free_func (g_free);

      if (!JSON_NODE_HOLDS_ARRAY (element) ||
          !read_strings (json_node_get_array (element), row, error))
        return invalid (error, "rows"), NULL;
      if (result->columns == NULL || row->len != g_strv_length (result->columns))
        return invalid (error, "row length"), NULL;
      g_ptr_array_set_free_func (row, NULL);
      g_ptr_array_add (row, NULL);
      g_ptr_array_add (result->rows, g_ptr_array_free (g_steal_pointer (&row), FALSE));
    }

  if (json_object_has_member (o, "numbers") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "numbers")))
    {
      json_object_unref (result->numbers);
      result->numbers = json_object_ref (json_object_get_object_member (o, "numbers"));
    }

  return g_steal_pointer (&result);
}

/* ---------------------------------------------------------------------------------------
 * Text.
 */

static void
append_padded (GString    *out,
               const char *text,
               guint       width,
               gboolean    right)
{
  guint len = g_utf8_strlen (text, -1);

  if (right)
    for (guint i = len; i < width; i++)
      g_string_append_c (out, ' ');
  g_string_append (out, text);
  if (!right)
    for (guint i = len; i < width; i++)
      g_string_append_c (out, ' ');
}

static void
append_table (GString               *out,
              RelayExperimentResult *result)
{
  guint n_columns;
  g_autofree guint *widths = NULL;

  if (result->columns == NULL || result->rows->len == 0)
    return;

  n_columns = g_strv_length (result->columns);
  widths = g_new0 (guint, n_columns);
  for (guint c = 0; c < n_columns; c++)
    widths[c] = g_utf8_strlen (result->columns[c], -1);
  for (guint r = 0; r < result->rows->len; r++)
    {
      GStrv row = g_ptr_array_index (result->rows, r);

      for (guint c = 0; c < n_columns; c++)
        widths[c] = MAX (widths[c], g_utf8_strlen (row[c], -1));
    }

  g_string_append_c (out, '\n');
  for (guint r = 0; r <= result->rows->len; r++)
    {
      GStrv row = r == 0 ? result->columns : g_ptr_array_index (result->rows, r - 1);

      g_string_append (out, "  ");
      for (guint c = 0; c < n_columns; c++)
        {
          if (c > 0)
            g_string_append (out, "  ");
          append_padded (out, row[c], widths[c], c > 0);
        }
      g_string_append_c (out, '\n');
    }
}

static void
append_bar (GString    *out,
            double      value,
            double      max,
            const char *block)
{
  guint n = max > 0 && value > 0 ? (guint) round (CHART_WIDTH * value / max) : 0;

  for (guint i = 0; i < n; i++)
    g_string_append (out, block);
  for (guint i = n; i < CHART_WIDTH; i++)
    g_string_append_c (out, ' ');
}

static char *
format_value (double      value,
              const char *unit)
{
  if (g_strcmp0 (unit, "ms") == 0)
    return fmt_ms (value);
  if (unit != NULL && unit[0] != '\0')
    return g_strdup_printf ("%.0f %s", value, unit);
  return fmt_number (value);
}

/* A horizontal bar per category (bars) or per x (the line series of an XY chart). */
static void
append_chart (GString               *out,
              RelayExperimentResult *result)
{
  const char *block = g_get_charset (NULL) ? "█" : "#";
  guint label_width = 0;

  for (guint s = 0; s < result->series->len; s++)
    {
      RelayExperimentSeries *series = g_ptr_array_index (result->series, s);
      double max = 0;

      /* Point clouds and fits do not read as bars. */
      if (result->chart == RELAY_EXPERIMENT_CHART_XY &&
          (!series->line || series->fit || series->points->len < 2))
        continue;

      for (guint p = 0; p < series->points->len; p++)
        max = MAX (max, g_array_index (series->points, RelayExperimentPoint, p).y);
      if (max <= 0)
        continue;

      label_width = 0;
      for (guint p = 0; p < series->points->len; p++)
        {
          RelayExperimentPoint *point = &g_array_index (series->points, RelayExperimentPoint, p);
          guint index = (guint) point->x;
          g_autofree char *label = NULL;

          if (result->chart != RELAY_EXPERIMENT_CHART_XY && index < result->categories->len)
            label = g_strdup (g_ptr_array_index (result->categories, index));
          else
            label = g_strdup_printf ("%g", point->x);
          label_width = MAX (label_width, g_utf8_strlen (label, -1));
        }

      g_string_append_printf (out, "\n  %s%s%s\n", series->name,
                              result->chart == RELAY_EXPERIMENT_CHART_XY && result->x_label ? _(" by ") : "",
                              result->chart == RELAY_EXPERIMENT_CHART_XY && result->x_label ? result->x_label : "");
      for (guint p = 0; p < series->points->len; p++)
        {
          RelayExperimentPoint *point = &g_array_index (series->points, RelayExperimentPoint, p);
          guint index = (guint) point->x;
          g_autofree char *label = NULL;
          g_autofree char *value = format_value (point->y, series->unit);

          if (result->chart != RELAY_EXPERIMENT_CHART_XY && index < result->categories->len)
            label = g_strdup (g_ptr_array_index (result->categories, index));
          else
            label = g_strdup_printf ("%g", point->x);

          g_string_append (out, "  ");
          append_padded (out, label, label_width, FALSE);
          g_string_append (out, "  ");
          append_bar (out, point->y, max, block);
          g_string_append_printf (out, " %s\n", value);
        }
    }
}

char *
relay_experiment_result_format_text (RelayExperimentResult *result)
{
  GString *out;

  g_return_val_if_fail (result != NULL, NULL);

  out = g_string_new (NULL);
  g_string_append_printf (out, "%s\n\n", result->title);
  g_string_append_printf (out, "%s\n", result->headline);
  for (guint i = 0; i < result->details->len; i++)
    g_string_append_printf (out, "%s\n", (const char *) g_ptr_array_index (result->details, i));
  append_table (out, result);
  append_chart (out, result);

  return g_string_free (out, FALSE);
}

/* ---------------------------------------------------------------------------------------
 * The saved experiment: what each step was and which runs it made.
 */

typedef struct
{
  char   *label;
  char   *arm;
  double  x;
  GArray *runs;   /* guint */
} Step;

static void
step_free (gpointer data)
{
  Step *step = data;

  g_free (step->label);
  g_free (step->arm);
  g_clear_pointer (&step->runs, g_array_unref);
  g_free (step);
}

static Step *
step_new (const char *label,
          const char *arm,
          double      x)
{
  Step *step = g_new0 (Step, 1);

  step->label = g_strdup (label);
  step->arm = g_strdup (arm);
  step->x = x;
  step->runs = g_array_new (FALSE, FALSE, sizeof (guint));

  return step;
}

typedef struct
{
  RelayExperimentKind  kind;
  RelaySession        *session;
  JsonObject          *params;
  GPtrArray           *steps;      /* Step */
  GHashTable          *run_step;   /* run index → Step */
} Saved;

static void
saved_clear (Saved *saved)
{
  g_clear_pointer (&saved->params, json_object_unref);
  g_clear_pointer (&saved->steps, g_ptr_array_unref);
  g_clear_pointer (&saved->run_step, g_hash_table_unref);
}

static gboolean
saved_load (RelaySession  *session,
            Saved         *saved,
            GError       **error)
{
  JsonNode *node = relay_session_get_extra (session, RELAY_EXPERIMENT_MEMBER);
  JsonObject *o;
  JsonArray *steps;

  memset (saved, 0, sizeof *saved);
  saved->session = session;

  if (node == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("This session holds no experiment"));
      return FALSE;
    }

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return invalid (error, "not an object");
  o = json_node_get_object (node);
  if (!relay_experiment_kind_from_string (get_string (o, "name"), &saved->kind))
    return invalid (error, "name");

  if (json_object_has_member (o, "params") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "params")))
    saved->params = json_object_ref (json_object_get_object_member (o, "params"));
  else
    saved->params = json_object_new ();

  saved->steps = g_ptr_array_new_with_free_func (step_free);
  saved->run_step = g_hash_table_new (NULL, NULL);
  steps = get_array (o, "steps");
  if (steps == NULL)
    return invalid (error, "steps");

  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonNode *element = json_array_get_element (steps, i);
      JsonObject *so;
      JsonArray *runs;
      Step *step;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        return invalid (error, "step");
      so = json_node_get_object (element);
      step = step_new (get_string (so, "label"), get_string (so, "arm"), get_double (so, "x"));
      g_ptr_array_add (saved->steps, step);
      if (step->arm == NULL)
        return invalid (error, "arm");

      runs = get_array (so, "runs");
      for (guint r = 0; runs != NULL && r < json_array_get_length (runs); r++)
        {
          JsonNode *rn = json_array_get_element (runs, r);
          guint run;

          if (!JSON_NODE_HOLDS_VALUE (rn) || json_node_get_value_type (rn) != G_TYPE_INT64 ||
              json_node_get_int (rn) < 0)
            return invalid (error, "runs");
          run = (guint) json_node_get_int (rn);
          g_array_append_val (step->runs, run);
          g_hash_table_insert (saved->run_step, GUINT_TO_POINTER (run), step);
        }
    }

  return TRUE;
}

/* Traces of the saved steps whose arm is arm (NULL: any), finished and not cancelled, in
 * session order. */
static GPtrArray *
saved_traces (Saved      *saved,
              const char *arm)
{
  GListModel *traces = relay_session_get_traces (saved->session);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      Step *step = g_hash_table_lookup (saved->run_step, GUINT_TO_POINTER (relay_trace_get_run (trace)));

      if (step == NULL || (arm != NULL && g_strcmp0 (step->arm, arm) != 0))
        continue;
      if (!relay_trace_is_finished (trace) ||
          relay_trace_get_error_stage (trace) == RELAY_ERROR_STAGE_CANCELLED)
        continue;
      g_ptr_array_add (out, g_steal_pointer (&trace));
    }

  return out;
}

static Step *
saved_step_of (Saved      *saved,
               RelayTrace *trace)
{
  return g_hash_table_lookup (saved->run_step, GUINT_TO_POINTER (relay_trace_get_run (trace)));
}

static RelayRun *
run_of (Saved      *saved,
        RelayTrace *trace)
{
  GListModel *runs = relay_session_get_runs (saved->session);
  guint index = relay_trace_get_run (trace);

  RelayRun *run;

  if (index >= g_list_model_get_n_items (runs))
    return NULL;

  /* The session keeps the run alive: hand out a borrowed pointer. */
  run = g_list_model_get_item (runs, index);
  g_object_unref (run);

  return run;
}

typedef double (*TraceMetric) (RelayTrace *trace);

static GArray *
collect (GPtrArray   *traces,
         TraceMetric  metric)
{
  GArray *values = doubles_new ();

  for (guint i = 0; i < traces->len; i++)
    add_double (values, metric (g_ptr_array_index (traces, i)));

  return values;
}

static double
metric_p (GPtrArray   *traces,
          TraceMetric  metric,
          double       q)
{
  g_autoptr(GArray) values = collect (traces, metric);

  return percentile_of (values, q);
}

static guint
count_errors (GPtrArray *traces)
{
  guint n = 0;

  for (guint i = 0; i < traces->len; i++)
    n += !relay_trace_is_ok (g_ptr_array_index (traces, i));

  return n;
}

static double m_dns (RelayTrace *t) { return interval_ms (t, RELAY_MARK_DNS_START, RELAY_MARK_DNS_END); }
static double m_tcp (RelayTrace *t) { return interval_ms (t, RELAY_MARK_CONNECT_START, RELAY_MARK_TCP_END); }
static double m_tls_setup (RelayTrace *t) { return relay_trace_has_mark (t, RELAY_MARK_TLS_START) ? tls_total_ms (t) - interval_ms (t, RELAY_MARK_TLS_START, RELAY_MARK_TLS_END) : NAN; }
static double m_tls_handshake (RelayTrace *t) { return interval_ms (t, RELAY_MARK_TLS_START, RELAY_MARK_TLS_END); }
static double m_tls (RelayTrace *t) { return tls_total_ms (t); }
static double m_wait (RelayTrace *t) { return interval_ms (t, RELAY_MARK_REQUEST_END, RELAY_MARK_RESPONSE_START); }
static double m_request (RelayTrace *t) { return interval_ms (t, RELAY_MARK_REQUEST_START, RELAY_MARK_RESPONSE_START); }
static double m_after_headers (RelayTrace *t) { return interval_ms (t, RELAY_MARK_RESPONSE_START, RELAY_MARK_FIRST_TOKEN); }
static double m_server (RelayTrace *t) { return interval_ms (t, RELAY_MARK_REQUEST_END, RELAY_MARK_FIRST_TOKEN); }
static double m_ttfo (RelayTrace *t) { return interval_ms (t, RELAY_MARK_START, RELAY_MARK_FIRST_CONTENT); }
static double m_reasoning (RelayTrace *t) { return interval_ms (t, RELAY_MARK_FIRST_TOKEN, RELAY_MARK_FIRST_CONTENT); }
static double m_connect_or_zero (RelayTrace *t) { double c = connect_ms (t); return isfinite (c) ? c : (relay_trace_has_mark (t, RELAY_MARK_REQUEST_START) ? 0 : NAN); }
static double m_rate (RelayTrace *t) { double r = relay_trace_get_output_tokens_per_second (t); return r > 0 ? r : NAN; }
static double m_prompt_tokens (RelayTrace *t) { gint64 v = relay_trace_get_usage (t)->prompt_tokens; return v >= 0 ? (double) v : NAN; }
static double m_cached_tokens (RelayTrace *t) { gint64 v = relay_trace_get_usage (t)->cached_prompt_tokens; return v >= 0 ? (double) v : NAN; }
static double m_reasoning_tokens (RelayTrace *t) { gint64 v = relay_trace_get_usage (t)->reasoning_tokens; return v >= 0 ? (double) v : NAN; }

static void
set_not_enough (RelayExperimentResult *result,
                const char            *what)
{
  result_set_headline (result, _("Not enough data for an answer: %s"), what);
}

/* ---------------------------------------------------------------------------------------
 * Analyses.
 */

static void
analyze_cold_warm (Saved                 *saved,
                   RelayExperimentResult *result)
{
  g_autoptr(GPtrArray) cold = saved_traces (saved, "cold");
  g_autoptr(GPtrArray) warm = saved_traces (saved, "warm");
  g_autofree char *cold_text = NULL;
  g_autofree char *warm_text = NULL;
  g_autofree char *saving_text = NULL;
  g_autofree char *share_text = NULL;
  g_autofree char *connect_text = NULL;
  g_autofree char *dns_text = NULL;
  g_autofree char *tcp_text = NULL;
  g_autofree char *tls_text = NULL;
  GPtrArray *arms[] = { cold, warm };
  const char *arm_names[] = { _("Cold"), _("Warm") };
  RelayExperimentSeries *s_connect, *s_request, *s_first;
  double cold_p50 = metric_p (cold, ttft_ms, 50);
  double warm_p50 = metric_p (warm, ttft_ms, 50);
  double connect_p50 = metric_p (cold, connect_ms, 50);
  double saving = cold_p50 - warm_p50;
  guint reused = 0;

  for (guint i = 0; i < warm->len; i++)
    reused += relay_trace_get_reused (g_ptr_array_index (warm, i));

  result->chart = RELAY_EXPERIMENT_CHART_STACKED_BARS;
  result->y_label = g_strdup (_("ms to first token (p50)"));
  g_ptr_array_add (result->categories, g_strdup (arm_names[0]));
  g_ptr_array_add (result->categories, g_strdup (arm_names[1]));
  s_connect = result_add_series (result, _("Connect (DNS, TCP, TLS)"), "ms", FALSE);
  s_request = result_add_series (result, _("Send and wait"), "ms", FALSE);
  s_first = result_add_series (result, _("Headers to first token"), "ms", FALSE);
  result_set_columns (result, _("Connection"), _("Probes"), _("Errors"), _("DNS"), _("TCP"),
                      _("TLS"), _("Wait"), _("TTFT p50"), _("TTFT p95"), NULL);

  for (guint a = 0; a < G_N_ELEMENTS (arms); a++)
    {
      series_add (s_connect, a, metric_p (arms[a], m_connect_or_zero, 50), NAN, NAN);
      series_add (s_request, a, metric_p (arms[a], m_request, 50), NAN, NAN);
      series_add (s_first, a, metric_p (arms[a], m_after_headers, 50), NAN, NAN);
      result_add_row (result, g_strdup (arm_names[a]),
                      g_strdup_printf ("%u", arms[a]->len),
                      g_strdup_printf ("%u", count_errors (arms[a])),
                      fmt_ms (metric_p (arms[a], m_dns, 50)),
                      fmt_ms (metric_p (arms[a], m_tcp, 50)),
                      fmt_ms (metric_p (arms[a], m_tls, 50)),
                      fmt_ms (metric_p (arms[a], m_wait, 50)),
                      fmt_ms (metric_p (arms[a], ttft_ms, 50)),
                      fmt_ms (metric_p (arms[a], ttft_ms, 95)),
                      NULL);
    }

  result_number (result, "ttft_cold_p50_ms", cold_p50);
  result_number (result, "ttft_warm_p50_ms", warm_p50);
  result_number (result, "saving_ms", saving);
  result_number (result, "saving_share", saving / cold_p50);
  result_number (result, "connect_p50_ms", connect_p50);
  result_number (result, "dns_p50_ms", metric_p (cold, m_dns, 50));
  result_number (result, "tcp_p50_ms", metric_p (cold, m_tcp, 50));
  result_number (result, "tls_p50_ms", metric_p (cold, m_tls, 50));
  result_number (result, "warm_reused", reused);
  result_number (result, "warm_probes", warm->len);

  if (!isfinite (cold_p50) || !isfinite (warm_p50))
    {
      set_not_enough (result, _("no successful cold and warm probes to compare."));
      return;
    }

  cold_text = fmt_ms (cold_p50);
  warm_text = fmt_ms (warm_p50);
  saving_text = fmt_ms (saving);
  share_text = fmt_percent (saving / cold_p50);
  connect_text = fmt_ms (connect_p50);

  if (saving > 0)
    result_set_headline (result, _("Reusing the connection saves %s per request: TTFT p50 was %s "
                                   "on a new connection and %s on a kept-alive one (%s less)."),
                         saving_text, cold_text, warm_text, share_text);
  else
    result_set_headline (result, _("Reusing the connection saved no time here: TTFT p50 was %s on "
                                   "a new connection and %s on a kept-alive one."),
                         cold_text, warm_text);

  dns_text = fmt_ms (metric_p (cold, m_dns, 50));
  tcp_text = fmt_ms (metric_p (cold, m_tcp, 50));
  tls_text = fmt_ms (metric_p (cold, m_tls, 50));
  if (isfinite (connect_p50))
    {
      g_autofree char *setup_text = fmt_ms (metric_p (cold, m_tls_setup, 50));
      g_autofree char *handshake_text = fmt_ms (metric_p (cold, m_tls_handshake, 50));

      if (relay_trace_has_mark (g_ptr_array_index (cold, 0), RELAY_MARK_TLS_START))
        result_add_detail (result, _("Each new connection took %s: DNS %s, TCP %s and TLS %s (%s of "
                                     "client-side set-up and a %s handshake)."),
                           connect_text, dns_text, tcp_text, tls_text, setup_text, handshake_text);
      else
        result_add_detail (result, _("Each new connection took %s: DNS %s and TCP %s (no TLS)."),
                           connect_text, dns_text, tcp_text);
    }
  result_add_detail (result, _("%u cold and %u warm probes ran interleaved; %u of the warm probes "
                               "reused the connection."),
                     cold->len, warm->len, reused);
  if (warm->len > 0 && reused < warm->len)
    result_add_detail (result, _("Some warm probes had to open a new connection: the endpoint "
                                 "does not keep connections alive reliably."));
}

static gint64
prompt_tokens_or (RelayTrace *trace,
                  double      requested)
{
  gint64 v = relay_trace_get_usage (trace)->prompt_tokens;

  return v >= 0 ? v : (gint64) requested;
}

static void
analyze_prompt_length (Saved                 *saved,
                       RelayExperimentResult *result)
{
  g_autoptr(GPtrArray) traces = saved_traces (saved, "length");
  g_autoptr(GArray) xs = doubles_new ();
  g_autoptr(GArray) ys = doubles_new ();
  g_autoptr(GArray) lengths = doubles_new ();
  RelayExperimentSeries *s_points, *s_p50, *s_fit;
  Fit fit;

  result->chart = RELAY_EXPERIMENT_CHART_XY;
  result->x_label = g_strdup (_("prompt tokens"));
  result->y_label = g_strdup (_("TTFT (ms)"));
  s_points = result_add_series (result, _("TTFT"), "ms", FALSE);
  s_p50 = result_add_series (result, _("TTFT p50"), "ms", TRUE);
  s_fit = result_add_series (result, _("Fitted line"), "ms", TRUE);
  s_fit->fit = TRUE;
  result_set_columns (result, _("Prompt tokens"), _("Probes"), _("Errors"), _("Wait p50"),
                      _("TTFT p50"), _("TTFT p95"), NULL);

  for (guint i = 0; i < traces->len; i++)
    {
      RelayTrace *trace = g_ptr_array_index (traces, i);
      Step *step = saved_step_of (saved, trace);
      double y = ttft_ms (trace);
      double x = prompt_tokens_or (trace, step->x);

      if (!isfinite (y) || !relay_trace_is_ok (trace))
        continue;
      g_array_append_val (xs, x);
      g_array_append_val (ys, y);
      series_add (s_points, x, y, NAN, NAN);
    }

  /* The requested lengths, in order. */
  for (guint i = 0; i < saved->steps->len; i++)
    {
      Step *step = g_ptr_array_index (saved->steps, i);
      gboolean seen = FALSE;

      for (guint j = 0; j < lengths->len; j++)
        seen |= g_array_index (lengths, double, j) == step->x;
      if (!seen)
        add_double (lengths, step->x);
    }
  for (guint i = 0; i + 1 < lengths->len; i++)
    for (guint j = i + 1; j < lengths->len; j++)
      if (g_array_index (lengths, double, j) < g_array_index (lengths, double, i))
        {
          double t = g_array_index (lengths, double, i);

          g_array_index (lengths, double, i) = g_array_index (lengths, double, j);
          g_array_index (lengths, double, j) = t;
        }

  for (guint i = 0; i < lengths->len; i++)
    {
      double length = g_array_index (lengths, double, i);
      g_autoptr(GPtrArray) at = g_ptr_array_new ();
      g_autoptr(GArray) measured = doubles_new ();
      double p50;

      for (guint t = 0; t < traces->len; t++)
        {
          RelayTrace *trace = g_ptr_array_index (traces, t);

          if (saved_step_of (saved, trace)->x == length)
            {
              g_ptr_array_add (at, trace);
              add_double (measured, prompt_tokens_or (trace, length));
            }
        }
      p50 = metric_p (at, ttft_ms, 50);
      series_add (s_p50, isfinite (median_of (measured)) ? median_of (measured) : length, p50,
                  metric_p (at, ttft_ms, 25), metric_p (at, ttft_ms, 75));
      result_add_row (result, fmt_number (isfinite (median_of (measured)) ? median_of (measured) : length),
                      g_strdup_printf ("%u", at->len),
                      g_strdup_printf ("%u", count_errors (at)),
                      fmt_ms (metric_p (at, m_wait, 50)),
                      fmt_ms (p50),
                      fmt_ms (metric_p (at, ttft_ms, 95)),
                      NULL);
    }

  if (!fit_line (xs, ys, &fit))
    {
      set_not_enough (result, _("a fit needs at least three successful probes at two or more "
                                "prompt lengths."));
      return;
    }

  series_add (s_fit, fit.x_min, fit.intercept + fit.slope * fit.x_min, NAN, NAN);
  series_add (s_fit, fit.x_max, fit.intercept + fit.slope * fit.x_max, NAN, NAN);
  result_number (result, "prefill_ms_per_1k_tokens", fit.slope * 1000);
  result_number (result, "prefill_ci_low", fit.slope_lo * 1000);
  result_number (result, "prefill_ci_high", fit.slope_hi * 1000);
  result_number (result, "intercept_ms", fit.intercept);
  result_number (result, "r2", fit.r2);
  result_number (result, "probes", fit.n);

  {
    g_autofree char *per_k = fmt_ms (fit.slope * 1000);
    g_autofree char *lo = fmt_ms (fit.slope_lo * 1000);
    g_autofree char *hi = fmt_ms (fit.slope_hi * 1000);
    g_autofree char *span = fmt_ms (fit.slope * (fit.x_max - fit.x_min));
    g_autofree char *fixed = fmt_ms (fit.intercept);

    if (fit.slope_lo > 0)
      result_set_headline (result, _("Prefill costs %s per 1,000 prompt tokens (95 %% CI %s to %s): "
                                     "a %.0f-token prompt waits about %s longer for its first token "
                                     "than a %.0f-token one."),
                           per_k, lo, hi, fit.x_max, span, fit.x_min);
    else
      result_set_headline (result, _("Prompt length made no measurable difference to TTFT: %s per "
                                     "1,000 tokens, with a 95 %% CI of %s to %s that includes "
                                     "zero."),
                           per_k, lo, hi);
    result_add_detail (result, _("Fitted over %u probes: TTFT ≈ %s + %s × (prompt tokens / 1,000), "
                                 "R² = %.2f. The fixed part is the network, the gateway and the "
                                 "first token’s own generation."),
                       fit.n, fixed, per_k, fit.r2);
    result_add_detail (result, _("Every prompt began differently, so that no prompt cache could "
                                 "shorten the prefill."));
  }
}

static void
analyze_prompt_cache (Saved                 *saved,
                      RelayExperimentResult *result)
{
  g_autoptr(GPtrArray) unique = saved_traces (saved, "unique");
  g_autoptr(GPtrArray) prime = saved_traces (saved, "prime");
  g_autoptr(GPtrArray) repeated = saved_traces (saved, "repeated");
  GPtrArray *arms[] = { unique, prime, repeated };
  const char *arm_names[] = { _("Unique prompts"), _("First with the prefix"), _("Repeated prefix") };
  RelayExperimentSeries *s_ttft;
  double unique_p50 = metric_p (unique, ttft_ms, 50);
  double repeated_p50 = metric_p (repeated, ttft_ms, 50);
  double prime_p50 = metric_p (prime, ttft_ms, 50);
  double cached_p50 = metric_p (repeated, m_cached_tokens, 50);
  double prompt_p50 = metric_p (repeated, m_prompt_tokens, 50);
  double saving = unique_p50 - repeated_p50;
  guint hits = 0;
  guint reported = 0;
  g_autofree char *unique_text = fmt_ms (unique_p50);
  g_autofree char *repeated_text = fmt_ms (repeated_p50);
  g_autofree char *saving_text = fmt_ms (saving);
  g_autofree char *share_text = fmt_percent (saving / unique_p50);
  double prefix = get_double (saved->params, "prefix_tokens");

  for (guint i = 0; i < repeated->len; i++)
    {
      gint64 cached = relay_trace_get_usage (g_ptr_array_index (repeated, i))->cached_prompt_tokens;

      hits += cached > 0;
      reported += cached >= 0;
    }

  result->chart = RELAY_EXPERIMENT_CHART_BARS;
  result->y_label = g_strdup (_("TTFT (ms)"));
  s_ttft = result_add_series (result, _("TTFT p50"), "ms", FALSE);
  result_set_columns (result, _("Prompts"), _("Probes"), _("Errors"), _("Prompt tokens"),
                      _("Cached tokens"), _("TTFT p50"), _("TTFT p95"), NULL);
  for (guint a = 0; a < G_N_ELEMENTS (arms); a++)
    {
      g_ptr_array_add (result->categories, g_strdup (arm_names[a]));
      series_add (s_ttft, a, metric_p (arms[a], ttft_ms, 50),
                  metric_p (arms[a], ttft_ms, 25), metric_p (arms[a], ttft_ms, 75));
      result_add_row (result, g_strdup (arm_names[a]),
                      g_strdup_printf ("%u", arms[a]->len),
                      g_strdup_printf ("%u", count_errors (arms[a])),
                      fmt_number (metric_p (arms[a], m_prompt_tokens, 50)),
                      fmt_number (metric_p (arms[a], m_cached_tokens, 50)),
                      fmt_ms (metric_p (arms[a], ttft_ms, 50)),
                      fmt_ms (metric_p (arms[a], ttft_ms, 95)),
                      NULL);
    }

  result_number (result, "ttft_unique_p50_ms", unique_p50);
  result_number (result, "ttft_repeated_p50_ms", repeated_p50);
  result_number (result, "ttft_first_ms", prime_p50);
  result_number (result, "saving_ms", saving);
  result_number (result, "saving_share", saving / unique_p50);
  result_number (result, "cached_tokens_p50", cached_p50);
  result_number (result, "prompt_tokens_p50", prompt_p50);
  result_number (result, "hits", hits);
  result_number (result, "repeated", repeated->len);

  if (!isfinite (unique_p50) || !isfinite (repeated_p50))
    {
      set_not_enough (result, _("no successful unique and repeated probes to compare."));
      return;
    }

  if (!isfinite (prompt_p50))
    prompt_p50 = prefix;

  if (hits > 0 && saving > 0)
    result_set_headline (result, _("The prompt cache saved %s (%s) of TTFT: p50 %s with a repeated "
                                   "%.0f-token prefix against %s with unique prompts. %u of %u "
                                   "repeated requests hit, with %.0f tokens cached."),
                         saving_text, share_text, repeated_text, prompt_p50, unique_text,
                         hits, repeated->len, cached_p50);
  else if (hits > 0)
    result_set_headline (result, _("The provider reported cache hits (%.0f tokens cached in %u of %u "
                                   "repeated requests), but TTFT did not improve: p50 %s repeated "
                                   "against %s unique."),
                         cached_p50, hits, repeated->len, repeated_text, unique_text);
  else if (reported > 0)
    result_set_headline (result, _("No cache hits: the provider reported no cached tokens for a "
                                   "repeated %.0f-token prefix, and TTFT p50 was %s repeated against "
                                   "%s unique."),
                         prompt_p50, repeated_text, unique_text);
  else
    {
      g_autofree char *diff_text = fmt_ms (fabs (saving));

      if (saving > 0)
        result_set_headline (result, _("The provider does not report cached tokens. TTFT p50 was %s "
                                       "with a repeated prefix against %s with unique prompts: %s "
                                       "faster."),
                             repeated_text, unique_text, diff_text);
      else
        result_set_headline (result, _("The provider does not report cached tokens, and a repeated "
                                       "prefix was not faster: TTFT p50 %s against %s with unique "
                                       "prompts."),
                             repeated_text, unique_text);
    }

  if (isfinite (prime_p50))
    {
      g_autofree char *prime_text = fmt_ms (prime_p50);

      result_add_detail (result, _("The first request with the prefix, which filled the cache, took "
                                   "%s to its first token."),
                         prime_text);
    }
  result_add_detail (result, _("Unique prompts began differently and had the same length; the "
                               "repeated ones shared their first %.0f tokens and differed only "
                               "in the question at the end."),
                     isfinite (prefix) ? prefix : prompt_p50);
}

typedef struct
{
  guint      level;
  GPtrArray *traces;     /* RelayTrace, borrowed */
  double     tokens;     /* output tokens of all waves */
  double     seconds;    /* summed wave durations */
} Level;

static gint64
abs_start (RelayTrace *trace)
{
  GDateTime *wall;

  if (relay_trace_get_mono_start (trace) != 0)
    return relay_trace_get_mono_start (trace);
  wall = relay_trace_get_wall_start (trace);
  if (wall == NULL)
    return RELAY_TIME_NONE;
  return g_date_time_to_unix (wall) * G_USEC_PER_SEC + g_date_time_get_microsecond (wall);
}

static void
analyze_concurrency (Saved                 *saved,
                     RelayExperimentResult *result)
{
  g_autoptr(GPtrArray) traces = saved_traces (saved, "level");
  g_autoptr(GArray) levels = g_array_new (FALSE, TRUE, sizeof (Level));
  RelayExperimentSeries *s_p50, *s_p95, *s_rate;
  Level *base = NULL;
  Level *knee = NULL;
  Level *last_ok = NULL;

  /* Levels in the order of their first step; waves are steps. */
  for (guint i = 0; i < saved->steps->len; i++)
    {
      Step *step = g_ptr_array_index (saved->steps, i);
      g_autoptr(GPtrArray) wave = g_ptr_array_new ();
      gint64 first = G_MAXINT64, last = G_MININT64;
      double tokens = 0;
      Level *level = NULL;

      for (guint l = 0; l < levels->len; l++)
        if (g_array_index (levels, Level, l).level == (guint) step->x)
          level = &g_array_index (levels, Level, l);
      if (level == NULL)
        {
          Level fresh = { (guint) step->x, g_ptr_array_new (), 0, 0 };

          g_array_append_val (levels, fresh);
          level = &g_array_index (levels, Level, levels->len - 1);
        }

      for (guint t = 0; t < traces->len; t++)
        {
          RelayTrace *trace = g_ptr_array_index (traces, t);
          gint64 start;

          if (saved_step_of (saved, trace) != step)
            continue;
          g_ptr_array_add (wave, trace);
          g_ptr_array_add (level->traces, trace);
          start = abs_start (trace);
          if (start == RELAY_TIME_NONE || !relay_trace_has_mark (trace, RELAY_MARK_END))
            continue;
          first = MIN (first, start);
          last = MAX (last, start + relay_trace_get_mark (trace, RELAY_MARK_END));
          if (relay_trace_is_ok (trace))
            tokens += relay_trace_get_output_tokens (trace, NULL);
        }
      if (last > first)
        {
          level->tokens += tokens;
          level->seconds += (last - first) / (double) G_USEC_PER_SEC;
        }
    }

  /* Sorted by level. */
  for (guint i = 0; i + 1 < levels->len; i++)
    for (guint j = i + 1; j < levels->len; j++)
      if (g_array_index (levels, Level, j).level < g_array_index (levels, Level, i).level)
        {
          Level t = g_array_index (levels, Level, i);

          g_array_index (levels, Level, i) = g_array_index (levels, Level, j);
          g_array_index (levels, Level, j) = t;
        }

  result->chart = RELAY_EXPERIMENT_CHART_XY;
  result->x_label = g_strdup (_("concurrent streams"));
  result->y_label = g_strdup (_("TTFT (ms)"));
  s_p50 = result_add_series (result, _("TTFT p50"), "ms", TRUE);
  s_p95 = result_add_series (result, _("TTFT p95"), "ms", TRUE);
  s_rate = result_add_series (result, _("Output throughput"), _("tokens/s"), TRUE);
  result_set_columns (result, _("Streams"), _("Probes"), _("Errors"), _("TTFT p50"), _("TTFT p95"),
                      _("Server p50"), _("Tokens/s (all)"), _("Tokens/s (each)"), NULL);

  for (guint i = 0; i < levels->len; i++)
    {
      Level *level = &g_array_index (levels, Level, i);
      double rate = level->seconds > 0 ? level->tokens / level->seconds : NAN;
      double server = metric_p (level->traces, m_server, 50);

      series_add (s_p50, level->level, metric_p (level->traces, ttft_ms, 50), NAN, NAN);
      series_add (s_p95, level->level, metric_p (level->traces, ttft_ms, 95), NAN, NAN);
      series_add (s_rate, level->level, rate, NAN, NAN);
      result_add_row (result, g_strdup_printf ("%u", level->level),
                      g_strdup_printf ("%u", level->traces->len),
                      g_strdup_printf ("%u", count_errors (level->traces)),
                      fmt_ms (metric_p (level->traces, ttft_ms, 50)),
                      fmt_ms (metric_p (level->traces, ttft_ms, 95)),
                      fmt_ms (server),
                      fmt_number (rate),
                      fmt_number (metric_p (level->traces, m_rate, 50)),
                      NULL);

      if (!isfinite (server))
        continue;
      if (base == NULL)
        {
          base = level;
          last_ok = level;
          continue;
        }
      if (knee == NULL)
        {
          double base_server = metric_p (base->traces, m_server, 50);

          if (server >= KNEE_RATIO * base_server && server - base_server >= KNEE_MIN_MS)
            knee = level;
          else
            last_ok = level;
        }
    }

  if (base == NULL || levels->len < 2)
    {
      set_not_enough (result, _("at least two concurrency levels with successful probes are "
                                "needed."));
      goto out;
    }

  {
    Level *top = &g_array_index (levels, Level, levels->len - 1);
    double base_rate = base->seconds > 0 ? base->tokens / base->seconds : NAN;
    double top_rate = top->seconds > 0 ? top->tokens / top->seconds : NAN;
    g_autofree char *base_text = fmt_ms (metric_p (base->traces, ttft_ms, 50));
    g_autofree char *top_text = fmt_ms (metric_p (top->traces, ttft_ms, 50));

    result_number (result, "knee", knee != NULL ? knee->level : NAN);
    result_number (result, "last_level_without_queueing", last_ok->level);
    result_number (result, "ttft_p50_lowest_ms", metric_p (base->traces, ttft_ms, 50));
    result_number (result, "ttft_p50_highest_ms", metric_p (top->traces, ttft_ms, 50));
    result_number (result, "throughput_lowest", base_rate);
    result_number (result, "throughput_highest", top_rate);

    if (knee != NULL)
      {
        g_autofree char *knee_text = fmt_ms (metric_p (knee->traces, ttft_ms, 50));

        if (knee != top)
          result_set_headline (result, _("Queueing starts at %u concurrent streams: TTFT p50 rose "
                                         "from %s with %u to %s with %u (and %s with %u); output "
                                         "throughput went from %.0f to %.0f tokens/s."),
                               knee->level, base_text, base->level, knee_text, knee->level,
                               top_text, top->level, base_rate, top_rate);
        else
          result_set_headline (result, _("Queueing starts at %u concurrent streams: TTFT p50 rose "
                                         "from %s with %u to %s with %u; output throughput went "
                                         "from %.0f to %.0f tokens/s."),
                               knee->level, base_text, base->level, knee_text, knee->level,
                               base_rate, top_rate);
        result_add_detail (result, _("Keep concurrency at or below %u for this endpoint, and watch "
                                     "TTFT p95 as load grows."),
                           last_ok->level);
      }
    else
      {
        g_autofree char *lo_text = fmt_ms (MIN (metric_p (base->traces, ttft_ms, 50), metric_p (top->traces, ttft_ms, 50)));
        g_autofree char *hi_text = fmt_ms (MAX (metric_p (base->traces, ttft_ms, 50), metric_p (top->traces, ttft_ms, 50)));

        result_set_headline (result, _("No queueing up to %u concurrent streams: TTFT p50 stayed "
                                       "between %s and %s while output throughput went from %.0f "
                                       "to %.0f tokens/s."),
                             top->level, lo_text, hi_text, base_rate, top_rate);
      }
    result_add_detail (result, _("Each level ran waves of that many streams started together, each "
                                 "on a new connection so that every request paid the same "
                                 "handshakes. Queueing is judged on the server’s part of TTFT "
                                 "(request sent to first token): it has to grow by half and by "
                                 "%.0f ms."),
                       KNEE_MIN_MS);
  }

out:
  for (guint i = 0; i < levels->len; i++)
    g_ptr_array_unref (g_array_index (levels, Level, i).traces);
}

typedef struct
{
  char      *key;
  char      *endpoint;
  char      *model;
  char      *effort;
  GPtrArray *traces;    /* RelayTrace, borrowed */
  guint      wins;
  guint      connect_wins;
} Entrant;

static void
entrant_free (gpointer data)
{
  Entrant *e = data;

  g_free (e->key);
  g_free (e->endpoint);
  g_free (e->model);
  g_free (e->effort);
  g_ptr_array_unref (e->traces);
  g_free (e);
}

static Entrant *
entrant_ensure (GPtrArray  *entrants,
                const char *endpoint,
                const char *model,
                const char *effort)
{
  g_autofree char *key = g_strdup_printf ("%s\x1f%s\x1f%s", endpoint, model ? model : "", effort ? effort : "");
  Entrant *e;

  for (guint i = 0; i < entrants->len; i++)
    {
      e = g_ptr_array_index (entrants, i);
      if (strcmp (e->key, key) == 0)
        return e;
    }

  e = g_new0 (Entrant, 1);
  e->key = g_steal_pointer (&key);
  e->endpoint = g_strdup (endpoint);
  e->model = g_strdup (model);
  e->effort = g_strdup (effort);
  e->traces = g_ptr_array_new ();
  g_ptr_array_add (entrants, e);

  return e;
}

static int
compare_entrants_ttft (gconstpointer a,
                       gconstpointer b)
{
  Entrant *x = *(Entrant **) a;
  Entrant *y = *(Entrant **) b;
  double tx = metric_p (x->traces, ttft_ms, 50);
  double ty = metric_p (y->traces, ttft_ms, 50);

  if (!isfinite (tx))
    return isfinite (ty) ? 1 : 0;
  if (!isfinite (ty))
    return -1;
  return (tx > ty) - (tx < ty);
}

static char *
entrant_label (Entrant   *e,
               GPtrArray *entrants)
{
  gboolean same_endpoint = FALSE;

  for (guint i = 0; i < entrants->len; i++)
    {
      Entrant *other = g_ptr_array_index (entrants, i);

      same_endpoint |= other != e && g_strcmp0 (other->endpoint, e->endpoint) == 0;
    }

  if (same_endpoint && e->model != NULL)
    return g_strdup_printf ("%s · %s", e->endpoint, e->model);
  return g_strdup (e->endpoint);
}

static void
analyze_race (Saved                 *saved,
              RelayExperimentResult *result)
{
  g_autoptr(GPtrArray) traces = saved_traces (saved, "round");
  g_autoptr(GPtrArray) entrants = g_ptr_array_new_with_free_func (entrant_free);
  RelayExperimentSeries *s_connect, *s_ttft;
  guint rounds = 0;
  Entrant *best, *worst, *fastest_connect = NULL;

  for (guint t = 0; t < traces->len; t++)
    {
      RelayTrace *trace = g_ptr_array_index (traces, t);
      RelayRun *run = run_of (saved, trace);

      if (run != NULL)
        g_ptr_array_add (entrant_ensure (entrants, relay_run_get_endpoint (run),
                                         relay_run_get_model (run), NULL)->traces, trace);
    }

  /* Wins per round: the fastest successful probe of the round. */
  for (guint s = 0; s < saved->steps->len; s++)
    {
      Step *step = g_ptr_array_index (saved->steps, s);
      Entrant *win = NULL, *connect_win = NULL;
      double best_ttft = INFINITY, best_connect = INFINITY;

      for (guint e = 0; e < entrants->len; e++)
        {
          Entrant *entrant = g_ptr_array_index (entrants, e);

          for (guint t = 0; t < entrant->traces->len; t++)
            {
              RelayTrace *trace = g_ptr_array_index (entrant->traces, t);
              double v, c;

              if (saved_step_of (saved, trace) != step || !relay_trace_is_ok (trace))
                continue;
              v = ttft_ms (trace);
              c = connect_ms (trace);
              if (isfinite (v) && v < best_ttft)
                {
                  best_ttft = v;
                  win = entrant;
                }
              if (isfinite (c) && c < best_connect)
                {
                  best_connect = c;
                  connect_win = entrant;
                }
            }
        }
      if (win != NULL)
        {
          win->wins++;
          rounds++;
        }
      if (connect_win != NULL)
        connect_win->connect_wins++;
    }

  g_ptr_array_sort (entrants, compare_entrants_ttft);

  result->chart = RELAY_EXPERIMENT_CHART_BARS;
  result->y_label = g_strdup (_("ms (p50)"));
  s_connect = result_add_series (result, _("Connect p50"), "ms", FALSE);
  s_ttft = result_add_series (result, _("TTFT p50"), "ms", FALSE);
  result_set_columns (result, _("Endpoint"), _("Model"), _("Rounds"), _("Errors"), _("Connect p50"),
                      _("TTFT p50"), _("TTFT p95"), _("First to token"), NULL);

  for (guint i = 0; i < entrants->len; i++)
    {
      Entrant *e = g_ptr_array_index (entrants, i);
      double connect = metric_p (e->traces, connect_ms, 50);

      g_ptr_array_add (result->categories, entrant_label (e, entrants));
      series_add (s_connect, i, connect, metric_p (e->traces, connect_ms, 25), metric_p (e->traces, connect_ms, 75));
      series_add (s_ttft, i, metric_p (e->traces, ttft_ms, 50), metric_p (e->traces, ttft_ms, 25),
                  metric_p (e->traces, ttft_ms, 75));
      result_add_row (result, g_strdup (e->endpoint), g_strdup (e->model ? e->model : ""),
                      g_strdup_printf ("%u", e->traces->len),
                      g_strdup_printf ("%u", count_errors (e->traces)),
                      fmt_ms (connect),
                      fmt_ms (metric_p (e->traces, ttft_ms, 50)),
                      fmt_ms (metric_p (e->traces, ttft_ms, 95)),
                      g_strdup_printf ("%u", e->wins),
                      NULL);
      if (isfinite (connect) &&
          (fastest_connect == NULL || connect < metric_p (fastest_connect->traces, connect_ms, 50)))
        fastest_connect = e;
    }

  if (entrants->len < 2 || rounds == 0)
    {
      set_not_enough (result, _("a race needs two or more endpoints with successful probes."));
      return;
    }

  best = g_ptr_array_index (entrants, 0);
  worst = g_ptr_array_index (entrants, entrants->len - 1);
  {
    g_autofree char *best_label = entrant_label (best, entrants);
    g_autofree char *worst_label = entrant_label (worst, entrants);
    g_autofree char *best_text = fmt_ms (metric_p (best->traces, ttft_ms, 50));
    g_autofree char *worst_text = fmt_ms (metric_p (worst->traces, ttft_ms, 50));

    result_set_headline (result, _("%s was the fastest to the first token: TTFT p50 %s, first in %u "
                                   "of %u rounds, against %s for %s, the slowest."),
                         best_label, best_text, best->wins, rounds, worst_text, worst_label);
    result_number (result, "rounds", rounds);
    result_number (result, "fastest_ttft_p50_ms", metric_p (best->traces, ttft_ms, 50));
    result_number (result, "slowest_ttft_p50_ms", metric_p (worst->traces, ttft_ms, 50));
    result_number (result, "fastest_wins", best->wins);
    json_object_set_string_member (result->numbers, "fastest", best_label);
  }

  if (fastest_connect != NULL)
    {
      g_autofree char *label = entrant_label (fastest_connect, entrants);
      g_autofree char *text = fmt_ms (metric_p (fastest_connect->traces, connect_ms, 50));

      result_add_detail (result, _("Fastest to connect: %s (%s for DNS, TCP and TLS, p50)."),
                         label, text);
      json_object_set_string_member (result->numbers, "fastest_to_connect", label);
    }
  result_add_detail (result, _("Every round probed all endpoints at the same instant on new "
                               "connections, so that they met the same network conditions."));
}

static void
analyze_models (Saved                 *saved,
                RelayExperimentResult *result)
{
  g_autoptr(GPtrArray) traces = saved_traces (saved, NULL);
  g_autoptr(GPtrArray) entrants = g_ptr_array_new_with_free_func (entrant_free);
  RelayExperimentSeries *s_ttft, *s_ttfo;
  g_autoptr(GPtrArray) models = g_ptr_array_new ();
  g_autoptr(GPtrArray) efforts = g_ptr_array_new ();
  Entrant *fastest = NULL, *slowest = NULL;

  for (guint t = 0; t < traces->len; t++)
    {
      RelayTrace *trace = g_ptr_array_index (traces, t);
      RelayRun *run = run_of (saved, trace);
      Step *step = saved_step_of (saved, trace);
      const char *effort = g_strcmp0 (step->arm, "default") == 0 ? NULL : step->arm;
      Entrant *e;

      if (run == NULL)
        continue;
      e = entrant_ensure (entrants, relay_run_get_endpoint (run), relay_run_get_model (run), effort);
      g_ptr_array_add (e->traces, trace);
      if (!g_ptr_array_find_with_equal_func (models, e->model, g_str_equal, NULL))
        g_ptr_array_add (models, e->model);
      if (effort != NULL && !g_ptr_array_find_with_equal_func (efforts, e->effort, g_str_equal, NULL))
        g_ptr_array_add (efforts, e->effort);
    }

  result->chart = RELAY_EXPERIMENT_CHART_BARS;
  result->y_label = g_strdup (_("ms (p50)"));
  s_ttft = result_add_series (result, _("TTFT p50"), "ms", FALSE);
  s_ttfo = result_add_series (result, _("First visible text p50"), "ms", FALSE);
  result_set_columns (result, _("Model"), _("Effort"), _("Probes"), _("Errors"), _("TTFT p50"),
                      _("Visible p50"), _("Reasoning p50"), _("Reasoning tokens"), _("Tokens/s"), NULL);

  for (guint i = 0; i < entrants->len; i++)
    {
      Entrant *e = g_ptr_array_index (entrants, i);
      double ttfo = metric_p (e->traces, m_ttfo, 50);

      g_ptr_array_add (result->categories,
                       e->effort != NULL ? g_strdup_printf ("%s · %s", e->model, e->effort) : g_strdup (e->model));
      series_add (s_ttft, i, metric_p (e->traces, ttft_ms, 50), metric_p (e->traces, ttft_ms, 25),
                  metric_p (e->traces, ttft_ms, 75));
      series_add (s_ttfo, i, ttfo, metric_p (e->traces, m_ttfo, 25), metric_p (e->traces, m_ttfo, 75));
      result_add_row (result, g_strdup (e->model), g_strdup (e->effort ? e->effort : "–"),
                      g_strdup_printf ("%u", e->traces->len),
                      g_strdup_printf ("%u", count_errors (e->traces)),
                      fmt_ms (metric_p (e->traces, ttft_ms, 50)),
                      fmt_ms (ttfo),
                      fmt_ms (metric_p (e->traces, m_reasoning, 50)),
                      fmt_number (metric_p (e->traces, m_reasoning_tokens, 50)),
                      fmt_number (metric_p (e->traces, m_rate, 50)),
                      NULL);
      if (isfinite (ttfo) && (fastest == NULL || ttfo < metric_p (fastest->traces, m_ttfo, 50)))
        fastest = e;
      if (isfinite (ttfo) && (slowest == NULL || ttfo > metric_p (slowest->traces, m_ttfo, 50)))
        slowest = e;
    }

  if (fastest == NULL)
    {
      set_not_enough (result, _("no probe reached its first visible text."));
      return;
    }

  {
    g_autofree char *fast_label = fastest->effort ? g_strdup_printf (_("%s at %s effort"), fastest->model, fastest->effort)
                                                  : g_strdup (fastest->model);
    g_autofree char *slow_label = slowest->effort ? g_strdup_printf (_("%s at %s effort"), slowest->model, slowest->effort)
                                                  : g_strdup (slowest->model);
    double fast_v = metric_p (fastest->traces, m_ttfo, 50);
    double slow_v = metric_p (slowest->traces, m_ttfo, 50);
    g_autofree char *fast_text = fmt_ms (fast_v);
    g_autofree char *slow_text = fmt_ms (slow_v);
    g_autofree char *ttft_text = fmt_ms (metric_p (fastest->traces, ttft_ms, 50));

    result_number (result, "fastest_ttfo_p50_ms", fast_v);
    result_number (result, "slowest_ttfo_p50_ms", slow_v);
    json_object_set_string_member (result->numbers, "fastest", fast_label);
    json_object_set_string_member (result->numbers, "slowest", slow_label);

    if (fastest == slowest)
      result_set_headline (result, _("%s: TTFT p50 %s, first visible text after %s."),
                           fast_label, ttft_text, fast_text);
    else
      result_set_headline (result, _("%s reached the first visible text fastest: p50 %s, against %s "
                                     "for %s (%.1f× as long)."),
                           fast_label, fast_text, slow_text, slow_label, slow_v / fast_v);
  }

  /* What effort costs, model by model: the highest against the lowest asked for. */
  if (efforts->len >= 2)
    {
      static const char * const order[] = { "minimal", "low", "medium", "high" };

      for (guint m = 0; m < models->len; m++)
        {
          Entrant *low = NULL, *high = NULL;
          int low_rank = G_MAXINT, high_rank = -1;

          for (guint i = 0; i < entrants->len; i++)
            {
              Entrant *e = g_ptr_array_index (entrants, i);
              int rank = -1;

              if (g_strcmp0 (e->model, g_ptr_array_index (models, m)) != 0 || e->effort == NULL)
                continue;
              for (guint r = 0; r < G_N_ELEMENTS (order); r++)
                if (g_strcmp0 (order[r], e->effort) == 0)
                  rank = r;
              if (rank < 0)
                continue;
              if (rank < low_rank)
                {
                  low = e;
                  low_rank = rank;
                }
              if (rank > high_rank)
                {
                  high = e;
                  high_rank = rank;
                }
            }

          if (low != NULL && high != NULL && low != high)
            {
              double lv = metric_p (low->traces, m_ttfo, 50);
              double hv = metric_p (high->traces, m_ttfo, 50);
              g_autofree char *diff = fmt_ms (hv - lv);
              g_autofree char *lt = fmt_ms (lv);
              g_autofree char *ht = fmt_ms (hv);
              g_autofree char *high_tokens = fmt_number (metric_p (high->traces, m_reasoning_tokens, 50));
              g_autofree char *low_tokens = fmt_number (metric_p (low->traces, m_reasoning_tokens, 50));

              if (isfinite (metric_p (high->traces, m_reasoning_tokens, 50)))
                result_add_detail (result, _("%s: at %s effort the first visible text came %s later "
                                             "than at %s (%s against %s), with %s reasoning tokens "
                                             "against %s."),
                                   low->model, high->effort, diff, low->effort, ht, lt,
                                   high_tokens, low_tokens);
              else
                result_add_detail (result, _("%s: at %s effort the first visible text came %s later "
                                             "than at %s (%s against %s)."),
                                   low->model, high->effort, diff, low->effort, ht, lt);
            }
        }
    }

  result_add_detail (result, _("TTFT counts the first generated text, reasoning included; the "
                               "first visible text is what a user sees first."));
}

RelayExperimentResult *
relay_experiment_analyze (RelaySession  *session,
                          GError       **error)
{
  RelayExperimentResult *result;
  Saved saved;

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);

  if (!saved_load (session, &saved, error))
    {
      saved_clear (&saved);
      return NULL;
    }

  result = result_new (saved.kind);
  switch (saved.kind)
    {
    case RELAY_EXPERIMENT_COLD_WARM:
      analyze_cold_warm (&saved, result);
      break;
    case RELAY_EXPERIMENT_PROMPT_LENGTH:
      analyze_prompt_length (&saved, result);
      break;
    case RELAY_EXPERIMENT_PROMPT_CACHE:
      analyze_prompt_cache (&saved, result);
      break;
    case RELAY_EXPERIMENT_CONCURRENCY:
      analyze_concurrency (&saved, result);
      break;
    case RELAY_EXPERIMENT_RACE:
      analyze_race (&saved, result);
      break;
    case RELAY_EXPERIMENT_MODELS:
      analyze_models (&saved, result);
      break;
    case RELAY_N_EXPERIMENTS:
    default:
      g_assert_not_reached ();
    }

  if (result->headline == NULL)
    result_set_headline (result, "%s", _("No answer."));

  saved_clear (&saved);
  return result;
}

/* ---------------------------------------------------------------------------------------
 * The experiment object: settings, steps and the run.
 */

typedef struct
{
  RelayProbePlan *plan;
  Step           *step;     /* label, arm, x; runs filled in as it runs */
} PlannedStep;

struct _RelayExperiment
{
  GObject              parent_instance;

  RelayExperimentKind  kind;
  GPtrArray           *endpoints;
  char                *prompt;
  char                *ca_file;
  char                *reasoning_effort;
  guint                max_tokens;
  double               timeout;
  guint                repeat;
  GArray              *lengths;
  guint                prefix_tokens;
  GArray              *levels;
  GStrv                efforts;

  GPtrArray           *steps;    /* PlannedStep, NULL until prepared */
  gboolean             running;
};

G_DEFINE_FINAL_TYPE (RelayExperiment, relay_experiment, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_KIND,
  N_PROPS
};

enum {
  STEP_STARTED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
planned_step_free (gpointer data)
{
  PlannedStep *planned = data;

  g_clear_object (&planned->plan);
  step_free (planned->step);
  g_free (planned);
}

static void
relay_experiment_finalize (GObject *object)
{
  RelayExperiment *self = (RelayExperiment *)object;

  g_clear_pointer (&self->endpoints, g_ptr_array_unref);
  g_clear_pointer (&self->prompt, g_free);
  g_clear_pointer (&self->ca_file, g_free);
  g_clear_pointer (&self->reasoning_effort, g_free);
  g_clear_pointer (&self->lengths, g_array_unref);
  g_clear_pointer (&self->levels, g_array_unref);
  g_clear_pointer (&self->efforts, g_strfreev);
  g_clear_pointer (&self->steps, g_ptr_array_unref);

  G_OBJECT_CLASS (relay_experiment_parent_class)->finalize (object);
}

static void
relay_experiment_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  RelayExperiment *self = RELAY_EXPERIMENT (object);

  switch (prop_id)
    {
    case PROP_KIND:
      g_value_set_uint (value, self->kind);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_experiment_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  RelayExperiment *self = RELAY_EXPERIMENT (object);

  switch (prop_id)
    {
    case PROP_KIND:
      self->kind = g_value_get_uint (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_experiment_class_init (RelayExperimentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = relay_experiment_finalize;
  object_class->get_property = relay_experiment_get_property;
  object_class->set_property = relay_experiment_set_property;

  properties[PROP_KIND] =
    g_param_spec_uint ("kind", NULL, NULL,
                       0, RELAY_N_EXPERIMENTS - 1, 0,
                       (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_EXPLICIT_NOTIFY |
                        G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * RelayExperiment::step-started:
   * @step: the step's index
   * @n_steps: how many steps there are
   */
  signals[STEP_STARTED] =
    g_signal_new ("step-started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
}

static void
relay_experiment_init (RelayExperiment *self)
{
  self->endpoints = g_ptr_array_new_with_free_func (g_object_unref);
  self->timeout = 60;
  self->prefix_tokens = 2048;
  self->lengths = g_array_new (FALSE, FALSE, sizeof (guint));
  g_array_append_vals (self->lengths, default_lengths, G_N_ELEMENTS (default_lengths));
  self->levels = g_array_new (FALSE, FALSE, sizeof (guint));
  g_array_append_vals (self->levels, default_levels, G_N_ELEMENTS (default_levels));
}

RelayExperiment *
relay_experiment_new (RelayExperimentKind kind)
{
  g_return_val_if_fail ((guint) kind < RELAY_N_EXPERIMENTS, NULL);

  return g_object_new (RELAY_TYPE_EXPERIMENT, "kind", (guint) kind, NULL);
}

RelayExperimentKind
relay_experiment_get_kind (RelayExperiment *self)
{
  g_return_val_if_fail (RELAY_IS_EXPERIMENT (self), 0);

  return self->kind;
}

/* Settings change the steps: they are rebuilt on the next prepare. */
static void
invalidate (RelayExperiment *self)
{
  g_return_if_fail (!self->running);

  g_clear_pointer (&self->steps, g_ptr_array_unref);
}

void
relay_experiment_add_endpoint (RelayExperiment *self,
                               RelayEndpoint   *endpoint)
{
  g_return_if_fail (RELAY_IS_EXPERIMENT (self));
  g_return_if_fail (RELAY_IS_ENDPOINT (endpoint));

  invalidate (self);
  g_ptr_array_add (self->endpoints, g_object_ref (endpoint));
}

GPtrArray *
relay_experiment_get_endpoints (RelayExperiment *self)
{
  g_return_val_if_fail (RELAY_IS_EXPERIMENT (self), NULL);

  return self->endpoints;
}

void
relay_experiment_set_prompt (RelayExperiment *self,
                             const char      *prompt)
{
  g_return_if_fail (RELAY_IS_EXPERIMENT (self));

  invalidate (self);
  g_free (self->prompt);
  self->prompt = g_strdup (prompt);
}

void
relay_experiment_set_max_tokens (RelayExperiment *self,
                                 guint            max_tokens)
{
  g_return_if_fail (RELAY_IS_EXPERIMENT (self));

  invalidate (self);
  self->max_tokens = max_tokens;
}

void
relay_experiment_set_timeout (RelayExperiment *self,
                              double           timeout)
{
  g_return_if_fail (RELAY_IS_EXPERIMENT (self));

  invalidate (self);
  self->timeout = timeout;
}

void
relay_experiment_set_ca_file (RelayExperiment *self,
                              const char      *ca_file)
{
  g_return_if_fail (RELAY_IS_EXPERIMENT (self));

  invalidate (self);
  g_free (self->ca_file);
  self->ca_file = g_strdup (ca_file);
}

void
relay_experiment_set_reasoning_effort (RelayExperiment *self,
                                       const char      *effort)
{
  g_return_if_fail (RELAY_IS_EXPERIMENT (self));

  invalidate (self);
  g_free (self->reasoning_effort);
  self->reasoning_effort = g_strdup (effort);
}

void
relay_experiment_set_repeat (RelayExperiment *self,
                             guint            repeat)
{
  g_return_if_fail (RELAY_IS_EXPERIMENT (self));

  invalidate (self);
  self->repeat = repeat;
}

guint
relay_experiment_get_repeat (RelayExperiment *self)
{
  g_return_val_if_fail (RELAY_IS_EXPERIMENT (self), 0);

  return self->repeat > 0 ? self->repeat : default_repeat[self->kind];
}

void
relay_experiment_set_prompt_lengths (RelayExperiment *self,
                                     const guint     *tokens,
                                     guint            n_tokens)
{
  g_return_if_fail (RELAY_IS_EXPERIMENT (self));
  g_return_if_fail (tokens != NULL || n_tokens == 0);

  invalidate (self);
  g_array_set_size (self->lengths, 0);
  g_array_append_vals (self->lengths, tokens, n_tokens);
}

void
relay_experiment_set_prefix_tokens (RelayExperiment *self,
                                    guint            tokens)
{
  g_return_if_fail (RELAY_IS_EXPERIMENT (self));

  invalidate (self);
  self->prefix_tokens = tokens;
}

void
relay_experiment_set_concurrency_levels (RelayExperiment *self,
                                         const guint     *levels,
                                         guint            n_levels)
{
  g_return_if_fail (RELAY_IS_EXPERIMENT (self));
  g_return_if_fail (levels != NULL || n_levels == 0);

  invalidate (self);
  g_array_set_size (self->levels, 0);
  g_array_append_vals (self->levels, levels, n_levels);
}

void
relay_experiment_set_efforts (RelayExperiment    *self,
                              const char * const *efforts)
{
  g_return_if_fail (RELAY_IS_EXPERIMENT (self));

  invalidate (self);
  g_strfreev (self->efforts);
  self->efforts = efforts != NULL && efforts[0] != NULL ? g_strdupv ((char **) efforts) : NULL;
}

static char *
make_nonce (void)
{
  return g_strdup_printf ("%08x%08x", g_random_int (), g_random_int ());
}

/* A prompt of about tokens tokens (four characters each): a line that makes it unique
 * (nonce, or none), filler sentences, then the question. */
static char *
make_prompt (const char *nonce,
             guint       tokens,
             const char *question)
{
  GString *prompt = g_string_new (NULL);
  gsize target = (gsize) tokens * 4;
  gsize tail = strlen (question) + 1;
  gsize nonce_len;

  if (nonce != NULL)
    g_string_append_printf (prompt, "Request %s. ", nonce);
  nonce_len = prompt->len;
  for (guint i = 0; prompt->len + tail < target; i++)
    {
      g_string_append (prompt, filler[i % G_N_ELEMENTS (filler)]);
      g_string_append_c (prompt, ' ');
    }
  /* The last sentence may overshoot: cut it, keeping the line that makes the prompt unique. */
  if (prompt->len + tail > target)
    g_string_truncate (prompt, MAX (target > tail ? target - tail : 0, nonce_len));
  g_string_append (prompt, question);

  return g_string_free (prompt, FALSE);
}

static RelayProbePlan *
plan_new (RelayExperiment *self,
          RelayConnection  connection,
          const char      *prompt,
          const char      *preset)
{
  RelayProbePlan *plan = relay_probe_plan_new ();
  guint max_tokens = self->max_tokens;

  if (max_tokens == 0)
    max_tokens = self->kind == RELAY_EXPERIMENT_CONCURRENCY ? 64 : 16;

  for (guint i = 0; i < self->endpoints->len; i++)
    relay_probe_plan_add_endpoint (plan, g_ptr_array_index (self->endpoints, i));
  if (prompt != NULL)
    {
      relay_probe_plan_set_prompt (plan, prompt);
      relay_probe_plan_set_prompt_preset (plan, preset);
    }
  relay_probe_plan_set_max_tokens (plan, max_tokens);
  relay_probe_plan_set_reasoning_effort (plan, self->reasoning_effort);
  relay_probe_plan_set_timeout (plan, self->timeout);
  relay_probe_plan_set_ca_file (plan, self->ca_file);
  relay_probe_plan_set_connection (plan, connection);
  relay_probe_plan_set_repeat (plan, 1);
  relay_probe_plan_set_concurrency (plan, 1);

  return plan;
}

static void
add_step (RelayExperiment *self,
          RelayProbePlan  *plan,
          const char      *label,
          const char      *arm,
          double           x)
{
  PlannedStep *planned = g_new0 (PlannedStep, 1);

  planned->plan = plan;
  planned->step = step_new (label, arm, x);
  g_ptr_array_add (self->steps, planned);
}

static guint
n_runs_per_plan (RelayExperiment *self)
{
  guint n = 0;

  for (guint i = 0; i < self->endpoints->len; i++)
    {
      const char * const *models = relay_endpoint_get_models (g_ptr_array_index (self->endpoints, i));

      n += models != NULL && models[0] != NULL ? g_strv_length ((char **) models) : 1;
    }

  return n;
}

static gboolean
fail (GError     **error,
      const char  *message)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, message);
  return FALSE;
}

gboolean
relay_experiment_prepare (RelayExperiment  *self,
                          GError          **error)
{
  guint repeat;

  g_return_val_if_fail (RELAY_IS_EXPERIMENT (self), FALSE);

  if (self->steps != NULL)
    return TRUE;

  repeat = relay_experiment_get_repeat (self);

  if (self->kind == RELAY_EXPERIMENT_RACE && self->endpoints->len < 2)
    return fail (error, _("A race needs two or more endpoints (base URLs)."));
  if (self->kind != RELAY_EXPERIMENT_RACE && self->endpoints->len != 1)
    return fail (error, _("This experiment probes exactly one endpoint; the race compares several."));
  if (self->kind != RELAY_EXPERIMENT_MODELS && self->kind != RELAY_EXPERIMENT_RACE &&
      n_runs_per_plan (self) != 1)
    return fail (error, _("This experiment probes one model; the models experiment compares several."));
  if (self->kind == RELAY_EXPERIMENT_PROMPT_LENGTH && self->lengths->len < 2)
    return fail (error, _("A prompt length sweep needs two or more lengths."));
  if (self->kind == RELAY_EXPERIMENT_CONCURRENCY && self->levels->len < 2)
    return fail (error, _("A concurrency sweep needs two or more levels."));
  for (guint i = 0; i < self->lengths->len; i++)
    if (g_array_index (self->lengths, guint, i) < 16 || g_array_index (self->lengths, guint, i) > 1000000)
      return fail (error, _("Prompt lengths must be between 16 and 1,000,000 tokens."));
  for (guint i = 0; i < self->levels->len; i++)
    if (g_array_index (self->levels, guint, i) < 1 || g_array_index (self->levels, guint, i) > 256)
      return fail (error, _("Concurrency levels must be between 1 and 256."));
  if (self->kind == RELAY_EXPERIMENT_PROMPT_CACHE && (self->prefix_tokens < 64 || self->prefix_tokens > 1000000))
    return fail (error, _("The cached prefix must be between 64 and 1,000,000 tokens."));

  self->steps = g_ptr_array_new_with_free_func (planned_step_free);

  switch (self->kind)
    {
    case RELAY_EXPERIMENT_COLD_WARM:
      for (guint r = 0; r < repeat; r++)
        {
          add_step (self, plan_new (self, RELAY_CONNECTION_COLD, self->prompt, "custom"),
                    _("cold"), "cold", r);
          add_step (self, plan_new (self, RELAY_CONNECTION_WARM, self->prompt, "custom"),
                    _("warm"), "warm", r);
        }
      break;

    case RELAY_EXPERIMENT_PROMPT_LENGTH:
      for (guint r = 0; r < repeat; r++)
        for (guint i = 0; i < self->lengths->len; i++)
          {
            /* Alternate the order so that no length always runs first. */
            guint index = r % 2 == 0 ? i : self->lengths->len - 1 - i;
            guint tokens = g_array_index (self->lengths, guint, index);
            g_autofree char *nonce = make_nonce ();
            g_autofree char *prompt = make_prompt (nonce, tokens, "Reply with one short sentence.");
            g_autofree char *label = g_strdup_printf (_("%u tokens"), tokens);

            add_step (self, plan_new (self, RELAY_CONNECTION_WARM, prompt, "long-context"),
                      label, "length", tokens);
          }
      break;

    case RELAY_EXPERIMENT_PROMPT_CACHE:
      {
        g_autofree char *shared = make_nonce ();
        g_autofree char *prefix = make_prompt (shared, self->prefix_tokens, "");
        g_autofree char *first = g_strconcat (prefix, " Question 0: reply with one word.", NULL);

        add_step (self, plan_new (self, RELAY_CONNECTION_WARM, first, "cached-prefix"),
                  _("first with the prefix"), "prime", 0);
        for (guint r = 0; r < repeat; r++)
          {
            g_autofree char *nonce = make_nonce ();
            g_autofree char *question = g_strdup_printf ("Question %u: reply with one word.", r + 1);
            g_autofree char *unique = make_prompt (nonce, self->prefix_tokens, question);
            g_autofree char *repeated = g_strconcat (prefix, " ", question, NULL);

            add_step (self, plan_new (self, RELAY_CONNECTION_WARM, unique, "custom"),
                      _("unique prompt"), "unique", r);
            add_step (self, plan_new (self, RELAY_CONNECTION_WARM, repeated, "cached-prefix"),
                      _("repeated prefix"), "repeated", r);
          }
      }
      break;

    case RELAY_EXPERIMENT_CONCURRENCY:
      for (guint r = 0; r < repeat; r++)
        for (guint i = 0; i < self->levels->len; i++)
          {
            guint level = g_array_index (self->levels, guint, i);
            RelayProbePlan *plan = plan_new (self, RELAY_CONNECTION_COLD, self->prompt, "custom");
            g_autofree char *label = g_strdup_printf (_("%u streams"), level);

            /* One wave: level streams started together. */
            relay_probe_plan_set_concurrency (plan, level);
            relay_probe_plan_set_repeat (plan, level);
            add_step (self, plan, label, "level", level);
          }
      break;

    case RELAY_EXPERIMENT_RACE:
      for (guint r = 0; r < repeat; r++)
        {
          RelayProbePlan *plan = plan_new (self, RELAY_CONNECTION_COLD, self->prompt, "custom");
          g_autofree char *label = g_strdup_printf (_("round %u"), r + 1);

          /* Every entrant at the same instant. */
          relay_probe_plan_set_concurrency (plan, n_runs_per_plan (self));
          add_step (self, plan, label, "round", r);
        }
      break;

    case RELAY_EXPERIMENT_MODELS:
      for (guint r = 0; r < repeat; r++)
        {
          guint n_efforts = self->efforts != NULL ? g_strv_length (self->efforts) : 1;

          for (guint e = 0; e < n_efforts; e++)
            {
              const char *effort = self->efforts != NULL ? self->efforts[e] : NULL;
              RelayProbePlan *plan = plan_new (self, RELAY_CONNECTION_WARM, self->prompt, "custom");
              g_autofree char *label = effort ? g_strdup_printf (_("%s effort"), effort) : g_strdup (_("default effort"));

              if (effort != NULL)
                relay_probe_plan_set_reasoning_effort (plan, effort);
              add_step (self, plan, label, effort ? effort : "default", r);
            }
        }
      break;

    case RELAY_N_EXPERIMENTS:
    default:
      g_assert_not_reached ();
    }

  return TRUE;
}

guint
relay_experiment_get_n_steps (RelayExperiment *self)
{
  g_return_val_if_fail (RELAY_IS_EXPERIMENT (self), 0);

  return self->steps != NULL ? self->steps->len : 0;
}

RelayProbePlan *
relay_experiment_get_step_plan (RelayExperiment *self,
                                guint            step)
{
  g_return_val_if_fail (RELAY_IS_EXPERIMENT (self), NULL);
  g_return_val_if_fail (self->steps != NULL && step < self->steps->len, NULL);

  return ((PlannedStep *) g_ptr_array_index (self->steps, step))->plan;
}

const char *
relay_experiment_get_step_label (RelayExperiment *self,
                                 guint            step)
{
  g_return_val_if_fail (RELAY_IS_EXPERIMENT (self), NULL);
  g_return_val_if_fail (self->steps != NULL && step < self->steps->len, NULL);

  return ((PlannedStep *) g_ptr_array_index (self->steps, step))->step->label;
}

guint
relay_experiment_get_n_probes (RelayExperiment *self)
{
  guint n = 0;

  g_return_val_if_fail (RELAY_IS_EXPERIMENT (self), 0);

  for (guint i = 0; self->steps != NULL && i < self->steps->len; i++)
    {
      RelayProbePlan *plan = ((PlannedStep *) g_ptr_array_index (self->steps, i))->plan;

      n += relay_probe_plan_get_repeat (plan) * n_runs_per_plan (self);
    }

  return n;
}

/* The session member: what ran, step by step, and the parameters. */
static JsonNode *
build_member (RelayExperiment *self,
              guint            n_done)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, relay_experiment_kind_to_string (self->kind));
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, 1);

  json_builder_set_member_name (b, "params");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "repeat");
  json_builder_add_int_value (b, relay_experiment_get_repeat (self));
  if (self->kind == RELAY_EXPERIMENT_PROMPT_LENGTH)
    {
      json_builder_set_member_name (b, "lengths");
      json_builder_begin_array (b);
      for (guint i = 0; i < self->lengths->len; i++)
        json_builder_add_int_value (b, g_array_index (self->lengths, guint, i));
      json_builder_end_array (b);
    }
  if (self->kind == RELAY_EXPERIMENT_PROMPT_CACHE)
    {
      json_builder_set_member_name (b, "prefix_tokens");
      json_builder_add_int_value (b, self->prefix_tokens);
    }
  if (self->kind == RELAY_EXPERIMENT_CONCURRENCY)
    {
      json_builder_set_member_name (b, "levels");
      json_builder_begin_array (b);
      for (guint i = 0; i < self->levels->len; i++)
        json_builder_add_int_value (b, g_array_index (self->levels, guint, i));
      json_builder_end_array (b);
    }
  if (self->kind == RELAY_EXPERIMENT_MODELS && self->efforts != NULL)
    add_strings (b, "efforts", (const char * const *) self->efforts, g_strv_length (self->efforts));
  json_builder_end_object (b);

  json_builder_set_member_name (b, "steps");
  json_builder_begin_array (b);
  for (guint i = 0; i < n_done; i++)
    {
      Step *step = ((PlannedStep *) g_ptr_array_index (self->steps, i))->step;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "label");
      json_builder_add_string_value (b, step->label);
      json_builder_set_member_name (b, "arm");
      json_builder_add_string_value (b, step->arm);
      json_builder_set_member_name (b, "x");
      json_builder_add_double_value (b, step->x);
      json_builder_set_member_name (b, "runs");
      json_builder_begin_array (b);
      for (guint r = 0; r < step->runs->len; r++)
        json_builder_add_int_value (b, g_array_index (step->runs, guint, r));
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

/* Saves the steps that ran and, when it can, the result; returns the result or NULL. */
static RelayExperimentResult *
save_and_analyze (RelayExperiment *self,
                  RelaySession    *session,
                  guint            n_done,
                  GError         **error)
{
  g_autoptr(JsonNode) member = build_member (self, n_done);
  RelayExperimentResult *result;

  relay_session_set_extra (session, RELAY_EXPERIMENT_MEMBER, member);
  result = relay_experiment_analyze (session, error);
  if (result != NULL)
    {
      json_object_set_member (json_node_get_object (member), "result",
                              relay_experiment_result_to_json (result));
      relay_session_set_extra (session, RELAY_EXPERIMENT_MEMBER, member);
    }

  return result;
}

typedef struct
{
  RelayProber  *prober;
  RelaySession *session;
  guint         step;
  guint         runs_before;
} RunState;

static void
run_state_free (gpointer data)
{
  RunState *state = data;

  g_clear_object (&state->prober);
  g_clear_object (&state->session);
  g_free (state);
}

static void run_next (GTask *task);

static void
on_step_done (GObject      *object,
              GAsyncResult *res,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RelayExperiment *self = g_task_get_source_object (task);
  RunState *state = g_task_get_task_data (task);
  PlannedStep *planned = g_ptr_array_index (self->steps, state->step);
  guint runs_after = g_list_model_get_n_items (relay_session_get_runs (state->session));
  g_autoptr(GError) error = NULL;

  relay_prober_run_finish (RELAY_PROBER (object), res, &error);

  g_array_set_size (planned->step->runs, 0);
  for (guint r = state->runs_before; r < runs_after; r++)
    g_array_append_val (planned->step->runs, r);
  state->step++;

  if (error != NULL)
    {
      g_autoptr(RelayExperimentResult) partial = NULL;

      self->running = FALSE;
      partial = save_and_analyze (self, state->session, state->step, NULL);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  run_next (g_steal_pointer (&task));
}

static void
run_next (GTask *task)
{
  RelayExperiment *self = g_task_get_source_object (task);
  RunState *state = g_task_get_task_data (task);
  PlannedStep *planned;

  if (state->step >= self->steps->len)
    {
      g_autoptr(GError) error = NULL;
      RelayExperimentResult *result;

      self->running = FALSE;
      result = save_and_analyze (self, state->session, state->step, &error);
      if (result == NULL)
        g_task_return_error (task, g_steal_pointer (&error));
      else
        g_task_return_pointer (task, result, (GDestroyNotify) relay_experiment_result_unref);
      g_object_unref (task);
      return;
    }

  if (g_task_return_error_if_cancelled (task))
    {
      g_autoptr(RelayExperimentResult) partial = NULL;

      self->running = FALSE;
      partial = save_and_analyze (self, state->session, state->step, NULL);
      g_object_unref (task);
      return;
    }

  planned = g_ptr_array_index (self->steps, state->step);
  state->runs_before = g_list_model_get_n_items (relay_session_get_runs (state->session));
  g_signal_emit (self, signals[STEP_STARTED], 0, state->step, self->steps->len);
  relay_prober_run_async (state->prober, planned->plan, state->session,
                          g_task_get_cancellable (task), on_step_done, task);
}

void
relay_experiment_run_async (RelayExperiment     *self,
                            RelayProber         *prober,
                            RelaySession        *session,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  RunState *state;

  g_return_if_fail (RELAY_IS_EXPERIMENT (self));
  g_return_if_fail (RELAY_IS_PROBER (prober));
  g_return_if_fail (RELAY_IS_SESSION (session));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, relay_experiment_run_async);

  if (self->running)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING,
                               _("The experiment is already running"));
      return;
    }

  if (!relay_experiment_prepare (self, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  for (guint i = 0; i < self->steps->len; i++)
    g_array_set_size (((PlannedStep *) g_ptr_array_index (self->steps, i))->step->runs, 0);

  if (relay_session_get_title (session) == NULL)
    {
      RelayEndpoint *endpoint = g_ptr_array_index (self->endpoints, 0);
      g_autofree char *title = NULL;

      if (self->endpoints->len > 1)
        title = g_strdup_printf (_("%s: %u endpoints"), relay_experiment_kind_get_title (self->kind),
                                 self->endpoints->len);
      else
        title = g_strdup_printf ("%s: %s", relay_experiment_kind_get_title (self->kind),
                                 relay_endpoint_get_name (endpoint));
      relay_session_set_title (session, title);
    }

  state = g_new0 (RunState, 1);
  state->prober = g_object_ref (prober);
  state->session = g_object_ref (session);
  g_task_set_task_data (task, state, run_state_free);

  self->running = TRUE;
  run_next (g_steal_pointer (&task));
}

RelayExperimentResult *
relay_experiment_run_finish (RelayExperiment  *self,
                             GAsyncResult     *result,
                             GError          **error)
{
  g_return_val_if_fail (RELAY_IS_EXPERIMENT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
