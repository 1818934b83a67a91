/* relay-prometheus.c: writes a session's per endpoint × model figures in the Prometheus
 * text exposition format (version 0.0.4): HELP and TYPE lines, summaries, counters.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "relay-prometheus.h"
#include "relay-summary.h"

typedef struct
{
  RelayMetric  metric;
  const char  *name;
  const char  *help;
  double       scale;     /* from the summary's unit (ms) to the metric's (seconds) */
} Summary;

static const Summary summaries[] = {
  { RELAY_METRIC_TTFT, "relayscope_ttft_seconds", "Time to first token: probe start to the first generated text.", 1e-3 },
  { RELAY_METRIC_DNS, "relayscope_dns_seconds", "DNS resolution, probes on new connections.", 1e-3 },
  { RELAY_METRIC_TCP, "relayscope_tcp_seconds", "TCP handshake.", 1e-3 },
  { RELAY_METRIC_TLS, "relayscope_tls_seconds", "TLS handshake.", 1e-3 },
  { RELAY_METRIC_WAIT, "relayscope_wait_seconds", "Request sent to response headers (gateway, queue and prefill).", 1e-3 },
  { RELAY_METRIC_ITL, "relayscope_itl_seconds", "Gaps between streamed chunks, pooled over the probes.", 1e-3 },
  { RELAY_METRIC_TOTAL, "relayscope_total_seconds", "Probe start to the end of the stream.", 1e-3 },
  { RELAY_METRIC_TOKENS_PER_SECOND, "relayscope_output_tokens_per_second", "Output tokens per second, first to last token.", 1 },
};

static const RelayErrorStage error_stages[] = {
  RELAY_ERROR_STAGE_DNS, RELAY_ERROR_STAGE_CONNECT, RELAY_ERROR_STAGE_TLS, RELAY_ERROR_STAGE_HTTP,
  RELAY_ERROR_STAGE_STREAM, RELAY_ERROR_STAGE_PARSE, RELAY_ERROR_STAGE_TIMEOUT,
};

char *
relay_prometheus_escape_label (const char *value)
{
  GString *out = g_string_new (NULL);

  for (const char *p = value ? value : ""; *p; p++)
    {
      switch (*p)
        {
        case '\\': g_string_append (out, "\\\\"); break;
        case '"': g_string_append (out, "\\\""); break;
        case '\n': g_string_append (out, "\\n"); break;
        default: g_string_append_c (out, *p); break;
        }
    }

  return g_string_free (out, FALSE);
}

/* Values as Go's ParseFloat reads them: a decimal point whatever the locale, NaN spelled so. */
static void
append_value (GString *out,
              double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (value))
    g_string_append (out, "NaN");
  else if (isinf (value))
    g_string_append (out, value > 0 ? "+Inf" : "-Inf");
  else
    g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.9g", value));
}

static void
append_header (GString    *out,
               const char *name,
               const char *help,
               const char *type)
{
  g_string_append_printf (out, "# HELP %s ", name);
  /* HELP text escapes only backslash and line feed. */
  for (const char *p = help; *p; p++)
    {
      if (*p == '\\')
        g_string_append (out, "\\\\");
      else if (*p == '\n')
        g_string_append (out, "\\n");
      else
        g_string_append_c (out, *p);
    }
  g_string_append_printf (out, "\n# TYPE %s %s\n", name, type);
}

typedef struct
{
  char  *labels;        /* endpoint="…",model="…" escaped */
  guint  probes;
  guint  errors[G_N_ELEMENTS (error_stages)];
} Counts;

static void
counts_clear (Counts *counts)
{
  g_free (counts->labels);
}

char *
relay_prometheus_format (RelaySession *session)
{
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GArray) counts = NULL;
  GListModel *traces;
  GString *out;

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);

  rows = relay_summarize (session);
  counts = g_array_new (FALSE, TRUE, sizeof (Counts));
  g_array_set_clear_func (counts, (GDestroyNotify) counts_clear);
  out = g_string_new (NULL);

  for (guint r = 0; r < rows->len; r++)
    {
      const RelaySummaryRow *row = g_ptr_array_index (rows, r);
      g_autofree char *endpoint = relay_prometheus_escape_label (row->endpoint);
      g_autofree char *model = relay_prometheus_escape_label (row->model);
      Counts c = { 0 };

      c.labels = g_strdup_printf ("endpoint=\"%s\",model=\"%s\"", endpoint, model);
      c.probes = row->n;
      g_array_append_val (counts, c);
    }

  /* Errors by stage: the summary only counts them. */
  traces = relay_session_get_traces (session);
  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      RelayRun *run = relay_session_get_run (session, relay_trace_get_run (trace));
      RelayErrorStage stage = relay_trace_get_error_stage (trace);

      if (run == NULL || stage == RELAY_ERROR_STAGE_NONE || stage == RELAY_ERROR_STAGE_CANCELLED)
        continue;

      for (guint r = 0; r < rows->len; r++)
        {
          const RelaySummaryRow *row = g_ptr_array_index (rows, r);

          if (g_strcmp0 (row->endpoint, relay_run_get_endpoint (run)) != 0 ||
              g_strcmp0 (row->model, relay_run_get_model (run)) != 0)
            continue;

          for (guint s = 0; s < G_N_ELEMENTS (error_stages); s++)
            if (error_stages[s] == stage)
              g_array_index (counts, Counts, r).errors[s]++;
          break;
        }
    }

  for (guint k = 0; k < G_N_ELEMENTS (summaries); k++)
    {
      const Summary *summary = &summaries[k];

      append_header (out, summary->name, summary->help, "summary");
      for (guint r = 0; r < rows->len; r++)
        {
          const RelaySummaryRow *row = g_ptr_array_index (rows, r);
          const RelayStats *stats = &row->stats[summary->metric];
          const char *labels = g_array_index (counts, Counts, r).labels;
          const struct { const char *q; double v; } quantiles[] = {
            { "0.5", stats->p50 }, { "0.9", stats->p90 }, { "0.95", stats->p95 }, { "0.99", stats->p99 },
          };

          for (guint q = 0; q < G_N_ELEMENTS (quantiles); q++)
            {
              g_string_append_printf (out, "%s{%s,quantile=\"%s\"} ", summary->name, labels, quantiles[q].q);
              append_value (out, stats->n > 0 ? quantiles[q].v * summary->scale : NAN);
              g_string_append_c (out, '\n');
            }
          g_string_append_printf (out, "%s_sum{%s} ", summary->name, labels);
          append_value (out, stats->n > 0 ? stats->mean * stats->n * summary->scale : 0);
          g_string_append_c (out, '\n');
          g_string_append_printf (out, "%s_count{%s} %u\n", summary->name, labels, stats->n);
        }
    }

  append_header (out, "relayscope_probes_total", "Probes run (cancelled ones left out).", "counter");
  for (guint r = 0; r < counts->len; r++)
    {
      const Counts *c = &g_array_index (counts, Counts, r);
      g_string_append_printf (out, "relayscope_probes_total{%s} %u\n", c->labels, c->probes);
    }

  append_header (out, "relayscope_probe_errors_total", "Failed probes by the stage that failed.", "counter");
  for (guint r = 0; r < counts->len; r++)
    {
      const Counts *c = &g_array_index (counts, Counts, r);

      for (guint s = 0; s < G_N_ELEMENTS (error_stages); s++)
        g_string_append_printf (out, "relayscope_probe_errors_total{%s,stage=\"%s\"} %u\n",
                                c->labels, relay_error_stage_to_string (error_stages[s]), c->errors[s]);
    }

  return g_string_free (out, FALSE);
}
