/* relay-race.c: ranks the entrants of a race by their median, with per-round paired
 * differences against the fastest.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "relay-compare.h"
#include "relay-race.h"

#define RACE_RESAMPLES 2000
#define RACE_LEVEL     0.95

typedef struct
{
  RelayRaceEntry  entry;
  GHashTable     *values;   /* seq → double* (the metric of that round) */
} Entrant;

static void
entry_free (gpointer data)
{
  RelayRaceEntry *entry = data;

  g_free (entry->endpoint);
  g_free (entry->model);
  g_free (entry);
}

static gboolean
better (RelayMetric metric,
        double      x,
        double      y)
{
  return relay_compare_metric_higher_is_better (metric) ? x > y : x < y;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

static RelayMetric sort_metric;

static int
compare_entrants (gconstpointer a,
                  gconstpointer b)
{
  const Entrant *x = *(Entrant * const *) a;
  const Entrant *y = *(Entrant * const *) b;
  gboolean fx = isfinite (x->entry.median);
  gboolean fy = isfinite (y->entry.median);

  if (fx != fy)
    return fx ? -1 : 1;
  if (!fx || x->entry.median == y->entry.median)
    return (x->entry.run > y->entry.run) - (x->entry.run < y->entry.run);
  return better (sort_metric, x->entry.median, y->entry.median) ? -1 : 1;
}

static double
median_of_table (GHashTable *values)
{
  g_autoptr(GArray) array = g_array_new (FALSE, FALSE, sizeof (double));
  GHashTableIter iter;
  gpointer value;
  RelayStats stats;

  g_hash_table_iter_init (&iter, values);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_array_append_val (array, *(double *) value);

  relay_stats_compute ((double *) (gpointer) array->data, array->len, &stats);
  return stats.p50;
}

GPtrArray *
relay_race_rank (RelaySession  *session,
                 RelayMetric    metric,
                 guint32        seed,
                 GError       **error)
{
  GListModel *runs;
  GListModel *traces;
  guint n_runs;
  gint chosen = -1;
  g_autoptr(GPtrArray) entrants = NULL;
  g_autoptr(GHashTable) by_run = NULL;
  g_autoptr(GHashTable) seqs = NULL;
  GPtrArray *result;
  Entrant *leader;

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);
  g_return_val_if_fail ((guint) metric < RELAY_N_METRICS, NULL);

  runs = relay_session_get_runs (session);
  traces = relay_session_get_traces (session);
  n_runs = g_list_model_get_n_items (runs);

  /* The last run that started together with another one picks the race. */
  for (gint r = (gint) n_runs - 1; r >= 0 && chosen < 0; r--)
    {
      GDateTime *started = relay_run_get_started (relay_session_get_run (session, r));

      if (started == NULL)
        continue;
      for (guint q = 0; q < n_runs; q++)
        {
          GDateTime *other = relay_run_get_started (relay_session_get_run (session, q));

          if ((gint) q != r && other != NULL && g_date_time_equal (started, other))
            {
              chosen = r;
              break;
            }
        }
    }

  if (chosen < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("The session holds no race: a race needs two or more runs that started "
                     "together (probe several endpoints with --concurrency equal to their number)"));
      return NULL;
    }

  entrants = g_ptr_array_new ();
  by_run = g_hash_table_new (NULL, NULL);
  seqs = g_hash_table_new (NULL, NULL);

  {
    GDateTime *started = relay_run_get_started (relay_session_get_run (session, chosen));

    for (guint r = 0; r < n_runs; r++)
      {
        RelayRun *run = relay_session_get_run (session, r);
        GDateTime *other = relay_run_get_started (run);
        Entrant *entrant;

        if (other == NULL || !g_date_time_equal (started, other))
          continue;

        entrant = g_new0 (Entrant, 1);
        entrant->entry.endpoint = g_strdup (relay_run_get_endpoint (run));
        entrant->entry.model = g_strdup (relay_run_get_model (run));
        entrant->entry.run = r;
        entrant->entry.median = NAN;
        entrant->entry.paired.estimate = entrant->entry.paired.lo = entrant->entry.paired.hi = NAN;
        entrant->entry.test.p_value = NAN;
        entrant->values = g_hash_table_new_full (NULL, NULL, NULL, g_free);
        g_ptr_array_add (entrants, entrant);
        g_hash_table_insert (by_run, GUINT_TO_POINTER (r + 1), entrant);
      }
  }

  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      Entrant *entrant = g_hash_table_lookup (by_run, GUINT_TO_POINTER (relay_trace_get_run (trace) + 1));
      double v;

      if (entrant == NULL || !relay_trace_is_finished (trace) ||
          relay_trace_get_error_stage (trace) == RELAY_ERROR_STAGE_CANCELLED)
        continue;

      if (!relay_trace_is_ok (trace))
        {
          entrant->entry.errors++;
          continue;
        }

      v = relay_trace_get_metric (trace, metric);
      if (!isfinite (v))
        continue;

      g_hash_table_insert (entrant->values, GUINT_TO_POINTER (relay_trace_get_seq (trace)),
                           g_memdup2 (&v, sizeof v));
      g_hash_table_add (seqs, GUINT_TO_POINTER (relay_trace_get_seq (trace)));
    }

  for (guint e = 0; e < entrants->len; e++)
    {
      Entrant *entrant = g_ptr_array_index (entrants, e);

      entrant->entry.rounds = g_hash_table_size (entrant->values);
      entrant->entry.median = median_of_table (entrant->values);
    }

  sort_metric = metric;
  g_ptr_array_sort (entrants, compare_entrants);

  /* Wins: rounds where at least two entrants have a value and this one is the best. */
  {
    GHashTableIter iter;
    gpointer key;

    g_hash_table_iter_init (&iter, seqs);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      {
        Entrant *best = NULL;
        double best_value = NAN;
        guint present = 0;

        for (guint e = 0; e < entrants->len; e++)
          {
            Entrant *entrant = g_ptr_array_index (entrants, e);
            double *v = g_hash_table_lookup (entrant->values, key);

            if (v == NULL)
              continue;
            present++;
            if (best == NULL || better (metric, *v, best_value))
              {
                best = entrant;
                best_value = *v;
              }
          }

        if (present >= 2)
          best->entry.wins++;
      }
  }

  leader = entrants->len > 0 ? g_ptr_array_index (entrants, 0) : NULL;
  for (guint e = 0; e < entrants->len; e++)
    {
      Entrant *entrant = g_ptr_array_index (entrants, e);
      g_autoptr(GArray) diffs = g_array_new (FALSE, FALSE, sizeof (double));
      GHashTableIter iter;
      gpointer key, value;

      g_hash_table_iter_init (&iter, entrant->values);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          double *lv = g_hash_table_lookup (leader->values, key);
          double d;

          if (lv == NULL)
            continue;
          d = *(double *) value - *lv;
          g_array_append_val (diffs, d);
        }

      entrant->entry.pairs = diffs->len;
      /* Hash order is not stable: sort so the bootstrap sees the same input every time. */
      g_array_sort (diffs, compare_doubles);
      relay_stats_bootstrap_median ((double *) (gpointer) diffs->data, diffs->len,
                                    entrant == leader ? 0 : RACE_RESAMPLES, RACE_LEVEL,
                                    seed + e, &entrant->entry.paired);
      if (entrant != leader)
        relay_stats_wilcoxon_signed_rank ((double *) (gpointer) diffs->data, diffs->len, &entrant->entry.test);
    }

  result = g_ptr_array_new_with_free_func (entry_free);
  for (guint e = 0; e < entrants->len; e++)
    {
      Entrant *entrant = g_ptr_array_index (entrants, e);

      g_ptr_array_add (result, g_memdup2 (&entrant->entry, sizeof entrant->entry));
      g_hash_table_unref (entrant->values);
      g_free (entrant);
    }

  return result;
}

static char *
format_ms (double value)
{
  if (!isfinite (value))
    return g_strdup ("-");
  if (fabs (value) >= 1000)
    return g_strdup_printf ("%.0f", value);
  return g_strdup_printf ("%.1f", value);
}

/* Figures in sentences: whole numbers from 10 up, one decimal below. */
static char *
format_amount (double value)
{
  if (fabs (value) >= 9.95)
    return g_strdup_printf ("%.0f", value);
  return g_strdup_printf ("%.1f", value);
}

char *
relay_race_format (GPtrArray   *entries,
                   RelayMetric  metric)
{
  enum { N_COLS = 9 };
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *median_title = NULL;
  guint widths[N_COLS] = { 0 };
  const char *unit = relay_compare_metric_higher_is_better (metric) ? "tok/s" : "ms";
  GString *out = g_string_new (NULL);
  const RelayRaceEntry *leader;

  g_return_val_if_fail (entries != NULL, NULL);

  median_title = g_strdup_printf ("median %s %s", relay_metric_to_string (metric), unit);
  {
    const char *titles[N_COLS] = { "rank", "endpoint", "model", "rounds", "err", median_title, "wins",
                                   "vs fastest [95% CI]", "p" };
    for (guint c = 0; c < N_COLS; c++)
      g_ptr_array_add (cells, g_strdup (titles[c]));
  }

  for (guint e = 0; e < entries->len; e++)
    {
      const RelayRaceEntry *entry = g_ptr_array_index (entries, e);

      g_ptr_array_add (cells, g_strdup_printf ("%u", e + 1));
      g_ptr_array_add (cells, g_strdup (entry->endpoint));
      g_ptr_array_add (cells, g_strdup (entry->model));
      g_ptr_array_add (cells, g_strdup_printf ("%u", entry->rounds));
      g_ptr_array_add (cells, g_strdup_printf ("%u", entry->errors));
      g_ptr_array_add (cells, format_ms (entry->median));
      g_ptr_array_add (cells, g_strdup_printf ("%u", entry->wins));
      if (e == 0 || !isfinite (entry->paired.estimate))
        g_ptr_array_add (cells, g_strdup ("-"));
      else
        {
          g_autofree char *estimate = format_ms (entry->paired.estimate);
          g_autofree char *lo = format_ms (entry->paired.lo);
          g_autofree char *hi = format_ms (entry->paired.hi);

          g_ptr_array_add (cells, g_strdup_printf ("%s%s [%s, %s]", entry->paired.estimate > 0 ? "+" : "",
                                                   estimate, lo, hi));
        }
      g_ptr_array_add (cells, e > 0 && isfinite (entry->test.p_value) ? g_strdup_printf ("%.3f", entry->test.p_value)
                                                                     : g_strdup ("-"));
    }

  for (guint i = 0; i < cells->len; i++)
    widths[i % N_COLS] = MAX (widths[i % N_COLS], (guint) g_utf8_strlen (g_ptr_array_index (cells, i), -1));

  for (guint i = 0; i < cells->len; i++)
    {
      guint c = i % N_COLS;
      const char *text = g_ptr_array_index (cells, i);
      glong len = g_utf8_strlen (text, -1);
      gboolean right = c != 1 && c != 2;

      if (right)
        for (glong k = len; k < (glong) widths[c]; k++)
          g_string_append_c (out, ' ');
      g_string_append (out, text);
      if (!right && c + 1 < N_COLS)
        for (glong k = len; k < (glong) widths[c]; k++)
          g_string_append_c (out, ' ');
      g_string_append (out, c + 1 < N_COLS ? "  " : "\n");
    }

  if (entries->len == 0)
    return g_string_free (out, FALSE);

  leader = g_ptr_array_index (entries, 0);
  if (!isfinite (leader->median))
    {
      g_string_append_printf (out, _("No entrant has a %s value: nobody finished.\n"),
                              relay_compare_metric_label (metric));
      return g_string_free (out, FALSE);
    }

  {
    g_autofree char *median = format_amount (leader->median);

    g_string_append_printf (out, _("\nFastest: %s %s (median %s %s %s, fastest in %u rounds).\n"),
                            leader->endpoint, leader->model, relay_compare_metric_label (metric),
                            median, relay_compare_metric_higher_is_better (metric) ? _("tokens/s") : _("ms"),
                            leader->wins);
  }

  for (guint e = 1; e < entries->len; e++)
    {
      const RelayRaceEntry *entry = g_ptr_array_index (entries, e);
      gboolean higher = relay_compare_metric_higher_is_better (metric);
      double sign = higher ? -1 : 1;
      g_autofree char *amount = NULL;
      g_autofree char *lo = NULL;
      g_autofree char *hi = NULL;

      if (!isfinite (entry->paired.estimate))
        continue;

      /* The difference is entrant − leader; say it as a positive "slower" where it is. */
      amount = format_amount (sign * entry->paired.estimate);
      lo = format_amount (sign > 0 ? entry->paired.lo : -entry->paired.hi);
      hi = format_amount (sign > 0 ? entry->paired.hi : -entry->paired.lo);
      g_string_append_printf (out, _("%s %s is %s %s slower per round"), entry->endpoint, entry->model, amount,
                              higher ? _("tokens/s") : _("ms"));
      if (isfinite (entry->paired.lo) && isfinite (entry->paired.hi))
        g_string_append_printf (out, (sign > 0 ? entry->paired.lo : -entry->paired.hi) < 0 ? _(" (95%% CI %s to %s, %u rounds") : _(" (95%% CI %s–%s, %u rounds"),
                                lo, hi, entry->pairs);
      else
        g_string_append_printf (out, _(" (%u rounds"), entry->pairs);
      if (isfinite (entry->test.p_value))
        g_string_append_printf (out, entry->test.p_value < 0.001 ? ", p < 0.001).\n" : ", p = %.3f).\n",
                                entry->test.p_value);
      else
        g_string_append (out, ").\n");
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

JsonNode *
relay_race_to_json (GPtrArray   *entries,
                    RelayMetric  metric)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (entries != NULL, NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "metric");
  json_builder_add_string_value (builder, relay_metric_to_string (metric));
  json_builder_set_member_name (builder, "ranking");
  json_builder_begin_array (builder);
  for (guint e = 0; e < entries->len; e++)
    {
      const RelayRaceEntry *entry = g_ptr_array_index (entries, e);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "rank");
      json_builder_add_int_value (builder, e + 1);
      json_builder_set_member_name (builder, "endpoint");
      json_builder_add_string_value (builder, entry->endpoint);
      json_builder_set_member_name (builder, "model");
      json_builder_add_string_value (builder, entry->model);
      json_builder_set_member_name (builder, "run");
      json_builder_add_int_value (builder, entry->run);
      json_builder_set_member_name (builder, "rounds");
      json_builder_add_int_value (builder, entry->rounds);
      json_builder_set_member_name (builder, "errors");
      json_builder_add_int_value (builder, entry->errors);
      json_builder_set_member_name (builder, "wins");
      json_builder_add_int_value (builder, entry->wins);
      add_number (builder, "median", entry->median);
      json_builder_set_member_name (builder, "paired");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "rounds");
      json_builder_add_int_value (builder, entry->pairs);
      add_number (builder, "median_difference", entry->paired.estimate);
      add_number (builder, "lo", entry->paired.lo);
      add_number (builder, "hi", entry->paired.hi);
      add_number (builder, "p", e > 0 ? entry->test.p_value : NAN);
      json_builder_end_object (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}
