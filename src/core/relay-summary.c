/* relay-summary.c: per endpoint × model figures of a session, as the comparison table and
 * the CLI show them.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "relay-summary.h"

static const char * const metric_names[RELAY_N_METRICS] = {
  "dns", "tcp", "tls", "wait", "ttft", "itl", "tokens_per_s", "total",
};

const char *
relay_metric_to_string (RelayMetric metric)
{
  g_return_val_if_fail ((guint) metric < RELAY_N_METRICS, NULL);

  return metric_names[metric];
}

static double
interval_ms (RelayTrace *trace,
             RelayMark   from,
             RelayMark   to)
{
  gint64 us = relay_trace_get_interval (trace, from, to);

  if (us == RELAY_TIME_NONE)
    return NAN;

  return us / 1000.0;
}

/* Appends the gaps between consecutive chunks, in ms. */
static void
append_chunk_gaps (RelayTrace *trace,
                   GArray     *gaps)
{
  const RelayChunk *chunks;
  guint n;

  chunks = relay_trace_get_chunks (trace, &n);

  for (guint i = 1; i < n; i++)
    {
      double gap = (chunks[i].t_us - chunks[i - 1].t_us) / 1000.0;

      g_array_append_val (gaps, gap);
    }
}

double
relay_trace_get_metric (RelayTrace  *trace,
                        RelayMetric  metric)
{
  g_return_val_if_fail (RELAY_IS_TRACE (trace), NAN);

  switch (metric)
    {
    case RELAY_METRIC_DNS:
      return interval_ms (trace, RELAY_MARK_DNS_START, RELAY_MARK_DNS_END);

    case RELAY_METRIC_TCP:
      return interval_ms (trace, RELAY_MARK_CONNECT_START, RELAY_MARK_TCP_END);

    case RELAY_METRIC_TLS:
      return interval_ms (trace, RELAY_MARK_TLS_START, RELAY_MARK_TLS_END);

    case RELAY_METRIC_WAIT:
      return interval_ms (trace, RELAY_MARK_REQUEST_END, RELAY_MARK_RESPONSE_START);

    case RELAY_METRIC_TTFT:
      return interval_ms (trace, RELAY_MARK_START, RELAY_MARK_FIRST_TOKEN);

    case RELAY_METRIC_TOTAL:
      return interval_ms (trace, RELAY_MARK_START, RELAY_MARK_END);

    case RELAY_METRIC_TOKENS_PER_SECOND:
      {
        double rate = relay_trace_get_output_tokens_per_second (trace);

        return rate < 0 ? NAN : rate;
      }

    case RELAY_METRIC_ITL:
      {
        g_autoptr(GArray) gaps = g_array_new (FALSE, FALSE, sizeof (double));
        RelayStats stats;

        append_chunk_gaps (trace, gaps);
        relay_stats_compute ((double *) (gpointer) gaps->data, gaps->len, &stats);

        return stats.p50;
      }

    case RELAY_N_METRICS:
    default:
      g_return_val_if_reached (NAN);
    }
}

static void
row_free (gpointer data)
{
  RelaySummaryRow *row = data;

  g_free (row->endpoint);
  g_free (row->model);
  g_free (row);
}

typedef struct
{
  RelaySummaryRow *row;
  GArray          *values[RELAY_N_METRICS];
} Group;

static void
group_clear (Group *group)
{
  for (guint m = 0; m < RELAY_N_METRICS; m++)
    g_clear_pointer (&group->values[m], g_array_unref);
}

/* A cancelled probe says nothing about the endpoint: the user stopped it. It is left out
 * of both n and errors. Failed probes count in n and errors but not in the figures, which
 * describe the probes that worked. Rows come in the order their endpoint × model first
 * appears among the traces. */
GPtrArray *
relay_summarize (RelaySession *session)
{
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GArray) groups = NULL;
  GListModel *traces;
  guint n_traces;

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);

  rows = g_ptr_array_new_with_free_func (row_free);
  groups = g_array_new (FALSE, TRUE, sizeof (Group));
  g_array_set_clear_func (groups, (GDestroyNotify) group_clear);

  traces = relay_session_get_traces (session);
  n_traces = g_list_model_get_n_items (traces);

  for (guint i = 0; i < n_traces; i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      RelayErrorStage error_stage = relay_trace_get_error_stage (trace);
      RelayRun *run = relay_session_get_run (session, relay_trace_get_run (trace));
      const char *endpoint;
      const char *model;
      Group *group = NULL;
      gboolean estimated = FALSE;

      if (run == NULL)
        continue;

      endpoint = relay_run_get_endpoint (run);
      model = relay_run_get_model (run);

      for (guint g = 0; g < groups->len; g++)
        {
          Group *candidate = &g_array_index (groups, Group, g);

          if (g_strcmp0 (candidate->row->endpoint, endpoint) == 0 &&
              g_strcmp0 (candidate->row->model, model) == 0)
            {
              group = candidate;
              break;
            }
        }

      if (group == NULL)
        {
          Group new_group = { 0 };

          new_group.row = g_new0 (RelaySummaryRow, 1);
          new_group.row->endpoint = g_strdup (endpoint);
          new_group.row->model = g_strdup (model);
          for (guint m = 0; m < RELAY_N_METRICS; m++)
            new_group.values[m] = g_array_new (FALSE, FALSE, sizeof (double));

          g_ptr_array_add (rows, new_group.row);
          g_array_append_val (groups, new_group);
          group = &g_array_index (groups, Group, groups->len - 1);
        }

      /* The row still appears where the probe did, so rows keep their order while
       * probes are live; a cancelled probe just adds nothing to it. */
      if (error_stage == RELAY_ERROR_STAGE_CANCELLED)
        continue;

      group->row->n++;

      if (error_stage != RELAY_ERROR_STAGE_NONE)
        {
          group->row->errors++;
          continue;
        }

      for (guint m = 0; m < RELAY_N_METRICS; m++)
        {
          double value;

          /* ITL pools every gap of the group, so a stall in one probe shows in the p95
           * instead of hiding in that probe's median. */
          if (m == RELAY_METRIC_ITL)
            {
              append_chunk_gaps (trace, group->values[m]);
              continue;
            }

          value = relay_trace_get_metric (trace, m);
          if (isnan (value))
            continue;

          g_array_append_val (group->values[m], value);

          /* Say so when a rate in the row rests on guessed token counts. */
          if (m == RELAY_METRIC_TOKENS_PER_SECOND)
            {
              relay_trace_get_output_tokens (trace, &estimated);
              if (estimated)
                group->row->tokens_estimated = TRUE;
            }
        }
    }

  for (guint g = 0; g < groups->len; g++)
    {
      Group *group = &g_array_index (groups, Group, g);

      for (guint m = 0; m < RELAY_N_METRICS; m++)
        relay_stats_compute ((double *) (gpointer) group->values[m]->data,
                             group->values[m]->len,
                             &group->row->stats[m]);
    }

  return g_steal_pointer (&rows);
}
