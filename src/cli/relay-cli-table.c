/* relay-cli-table.c: the CLI's summary table, its JSON form and its error report.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "relay-cli.h"
#include "relay-findings.h"
#include "relay-summary.h"

typedef struct
{
  const char  *title;
  RelayMetric  metric;
} Column;

static const Column metric_columns[] = {
  { "DNS ms", RELAY_METRIC_DNS },
  { "TCP ms", RELAY_METRIC_TCP },
  { "TLS ms", RELAY_METRIC_TLS },
  { "wait ms", RELAY_METRIC_WAIT },
  { "TTFT ms", RELAY_METRIC_TTFT },
  { "ITL ms", RELAY_METRIC_ITL },
  { "tok/s", RELAY_METRIC_TOKENS_PER_SECOND },
  { "total ms", RELAY_METRIC_TOTAL },
};

static char *
format_value (double value)
{
  if (!isfinite (value))
    return g_strdup ("-");
  if (fabs (value) >= 1000)
    return g_strdup_printf ("%.0f", value);
  return g_strdup_printf ("%.1f", value);
}

static char *
format_pair (const RelayStats *stats)
{
  g_autofree char *p50 = NULL;
  g_autofree char *p95 = NULL;

  if (stats->n == 0)
    return g_strdup ("-");

  p50 = format_value (stats->p50);
  p95 = format_value (stats->p95);
  return g_strdup_printf ("%s / %s", p50, p95);
}

static void
append_padded (GString    *out,
               const char *text,
               guint       width,
               gboolean    right)
{
  glong len = g_utf8_strlen (text, -1);
  guint pad = len < (glong) width ? width - (guint) len : 0;

  if (right)
    for (guint i = 0; i < pad; i++)
      g_string_append_c (out, ' ');
  g_string_append (out, text);
  if (!right)
    for (guint i = 0; i < pad; i++)
      g_string_append_c (out, ' ');
}

char *
relay_cli_format_table (RelaySession *session)
{
  g_autoptr(GPtrArray) rows = relay_summarize (session);
  g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func (g_free);
  enum { N_FIXED = 4, N_COLS = N_FIXED + G_N_ELEMENTS (metric_columns) };
  const char *fixed[N_FIXED] = { "endpoint", "model", "n", "err" };
  guint widths[N_COLS] = { 0 };
  gboolean estimated = FALSE;
  GString *out = g_string_new (NULL);

  for (guint c = 0; c < N_COLS; c++)
    {
      const char *title = c < N_FIXED ? fixed[c] : metric_columns[c - N_FIXED].title;

      g_ptr_array_add (cells, g_strdup (title));
    }

  for (guint r = 0; r < rows->len; r++)
    {
      const RelaySummaryRow *row = g_ptr_array_index (rows, r);

      g_ptr_array_add (cells, g_strdup (row->endpoint));
      g_ptr_array_add (cells, g_strdup (row->model));
      g_ptr_array_add (cells, g_strdup_printf ("%u", row->n));
      g_ptr_array_add (cells, g_strdup_printf ("%u", row->errors));
      for (guint m = 0; m < G_N_ELEMENTS (metric_columns); m++)
        g_ptr_array_add (cells, format_pair (&row->stats[metric_columns[m].metric]));
      estimated |= row->tokens_estimated;
    }

  for (guint i = 0; i < cells->len; i++)
    widths[i % N_COLS] = MAX (widths[i % N_COLS], (guint) g_utf8_strlen (g_ptr_array_index (cells, i), -1));

  for (guint i = 0; i < cells->len; i++)
    {
      guint c = i % N_COLS;

      append_padded (out, g_ptr_array_index (cells, i), widths[c], c >= 2);
      if (c + 1 < N_COLS)
        g_string_append (out, "  ");
      else
        g_string_append_c (out, '\n');

      if (i == N_COLS - 1)
        {
          guint total = 0;

          for (guint k = 0; k < N_COLS; k++)
            total += widths[k] + (k + 1 < N_COLS ? 2 : 0);
          for (guint k = 0; k < total; k++)
            g_string_append_c (out, '-');
          g_string_append_c (out, '\n');
        }
    }

  if (rows->len == 0)
    g_string_append (out, "(no probes)\n");

  g_string_append (out, "Each cell: p50 / p95. ITL pools the gaps between chunks of all streams.");
  if (estimated)
    g_string_append (out, " tok/s estimated from text (~4 characters a token) where the server reported no usage.");
  g_string_append_c (out, '\n');

  return g_string_free (out, FALSE);
}

static void
add_stats_member (JsonBuilder      *builder,
                  const char       *name,
                  const RelayStats *stats)
{
  const struct { const char *name; double value; } fields[] = {
    { "p50", stats->p50 }, { "p90", stats->p90 }, { "p95", stats->p95 }, { "p99", stats->p99 },
    { "mean", stats->mean }, { "min", stats->min }, { "max", stats->max },
  };

  json_builder_set_member_name (builder, name);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "n");
  json_builder_add_int_value (builder, stats->n);
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      json_builder_set_member_name (builder, fields[i].name);
      if (isfinite (fields[i].value))
        json_builder_add_double_value (builder, round (fields[i].value * 1000) / 1000);
      else
        json_builder_add_null_value (builder);
    }
  json_builder_end_object (builder);
}

static RelayRun *
trace_run (RelaySession *session,
           RelayTrace   *trace)
{
  return relay_session_get_run (session, relay_trace_get_run (trace));
}

char *
relay_cli_format_json (RelaySession *session)
{
  g_autoptr(GPtrArray) rows = relay_summarize (session);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  GListModel *traces = relay_session_get_traces (session);
  guint n_traces = g_list_model_get_n_items (traces);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "title");
  json_builder_add_string_value (builder, relay_session_get_title (session));

  json_builder_set_member_name (builder, "rows");
  json_builder_begin_array (builder);
  for (guint r = 0; r < rows->len; r++)
    {
      const RelaySummaryRow *row = g_ptr_array_index (rows, r);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "endpoint");
      json_builder_add_string_value (builder, row->endpoint);
      json_builder_set_member_name (builder, "model");
      json_builder_add_string_value (builder, row->model);
      json_builder_set_member_name (builder, "n");
      json_builder_add_int_value (builder, row->n);
      json_builder_set_member_name (builder, "errors");
      json_builder_add_int_value (builder, row->errors);
      json_builder_set_member_name (builder, "tokens_estimated");
      json_builder_add_boolean_value (builder, row->tokens_estimated);
      json_builder_set_member_name (builder, "metrics");
      json_builder_begin_object (builder);
      for (guint m = 0; m < RELAY_N_METRICS; m++)
        add_stats_member (builder, relay_metric_to_string (m), &row->stats[m]);
      json_builder_end_object (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "errors");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n_traces; i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      RelayRun *run;

      if (relay_trace_get_error_stage (trace) == RELAY_ERROR_STAGE_NONE)
        continue;

      run = trace_run (session, trace);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "endpoint");
      json_builder_add_string_value (builder, run ? relay_run_get_endpoint (run) : NULL);
      json_builder_set_member_name (builder, "model");
      json_builder_add_string_value (builder, run ? relay_run_get_model (run) : NULL);
      json_builder_set_member_name (builder, "seq");
      json_builder_add_int_value (builder, relay_trace_get_seq (trace));
      json_builder_set_member_name (builder, "stage");
      json_builder_add_string_value (builder, relay_error_stage_to_string (relay_trace_get_error_stage (trace)));
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, relay_trace_get_error_kind (trace));
      json_builder_set_member_name (builder, "message");
      json_builder_add_string_value (builder, relay_trace_get_error_message (trace));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  {
    g_autoptr(GPtrArray) findings = relay_findings_analyze (session);

    json_builder_set_member_name (builder, "findings");
    json_builder_add_value (builder, relay_findings_to_json (findings));
  }
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  return json_generator_to_data (generator, NULL);
}

char *
relay_cli_format_errors (RelaySession *session)
{
  GListModel *traces = relay_session_get_traces (session);
  guint n_traces = g_list_model_get_n_items (traces);
  GString *out = NULL;

  for (guint i = 0; i < n_traces; i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      RelayErrorStage stage = relay_trace_get_error_stage (trace);
      RelayRun *run;

      if (stage == RELAY_ERROR_STAGE_NONE)
        continue;

      if (out == NULL)
        out = g_string_new (NULL);

      run = trace_run (session, trace);
      g_string_append_printf (out, "%s %s #%u: %s error (%s): %s\n",
                              run ? relay_run_get_endpoint (run) : "?",
                              run ? relay_run_get_model (run) : "?",
                              relay_trace_get_seq (trace),
                              relay_error_stage_to_string (stage),
                              relay_trace_get_error_kind (trace) ? relay_trace_get_error_kind (trace) : "-",
                              relay_trace_get_error_message (trace) ? relay_trace_get_error_message (trace) : "");
    }

  return out ? g_string_free (out, FALSE) : NULL;
}
