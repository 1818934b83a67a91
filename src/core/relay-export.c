/* relay-export.c: CSV and JSON lines of a session's traces, and the request a trace sent,
 * rebuilt from its run's request spec, as headers, body and a curl command.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "relay-dialect.h"
#include "relay-export.h"
#include "relay-stats.h"
#include "relay-summary.h"

static RelayRun *
trace_run (RelaySession *session,
           RelayTrace   *trace)
{
  return relay_session_get_run (session, relay_trace_get_run (trace));
}

/* ---- CSV -------------------------------------------------------------------------------- */

static void
csv_field (GString    *row,
           const char *value)
{
  if (row->len > 0 && row->str[row->len - 1] != '\n')
    g_string_append_c (row, ',');

  if (value == NULL)
    return;

  /* RFC 4180: quote a field holding a comma, a quote or a line break; double the quotes. */
  if (strpbrk (value, ",\"\r\n") != NULL)
    {
      g_string_append_c (row, '"');
      for (const char *p = value; *p; p++)
        {
          if (*p == '"')
            g_string_append_c (row, '"');
          g_string_append_c (row, *p);
        }
      g_string_append_c (row, '"');
    }
  else
    g_string_append (row, value);
}

static void
csv_number (GString *row,
            double   value,
            int      decimals)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char format[8];

  if (!isfinite (value))
    {
      csv_field (row, "");
      return;
    }

  /* g_ascii_formatd: a decimal point whatever the locale, or the columns would split. */
  g_snprintf (format, sizeof format, "%%.%df", decimals);
  csv_field (row, g_ascii_formatd (buf, sizeof buf, format, value));
}

static void
csv_int (GString *row,
         gint64   value)
{
  char buf[32];

  g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, value);
  csv_field (row, buf);
}

static void
csv_end_row (GString *out)
{
  g_string_append (out, "\r\n");
}

static double
interval_ms (RelayTrace *trace,
             RelayMark   from,
             RelayMark   to)
{
  gint64 d = relay_trace_get_interval (trace, from, to);

  return d == RELAY_TIME_NONE ? NAN : d / 1000.0;
}

static void
gap_stats (RelayTrace *trace,
           RelayStats *stats)
{
  g_autoptr(GArray) gaps = g_array_new (FALSE, FALSE, sizeof (double));
  guint n;
  const RelayChunk *chunks = relay_trace_get_chunks (trace, &n);

  for (guint i = 1; i < n; i++)
    {
      double gap = (chunks[i].t_us - chunks[i - 1].t_us) / 1000.0;
      g_array_append_val (gaps, gap);
    }
  relay_stats_compute ((double *) (gpointer) gaps->data, gaps->len, stats);
}

static const char * const csv_tail[] = {
  "ttft_ms", "ttfo_ms", "itl_p50_ms", "itl_p95_ms", "chunks", "output_chars", "output_tokens",
  "tokens_estimated", "tokens_per_s", "prompt_tokens", "cached_prompt_tokens",
  "completion_tokens", "reasoning_tokens", "http_status", "http_version", "reused", "remote",
  "tls_version", "cipher", "connect_attempts", "model_reported", "error_stage", "error_kind",
  "error_message",
};

char *
relay_export_csv (RelaySession *session)
{
  GString *out;
  GListModel *traces;

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);

  out = g_string_new (NULL);
  traces = relay_session_get_traces (session);

  csv_field (out, "endpoint");
  csv_field (out, "model");
  csv_field (out, "run");
  csv_field (out, "seq");
  csv_field (out, "wall_start");
  for (guint m = 0; m < RELAY_N_MARKS; m++)
    {
      g_autofree char *name = g_strdup_printf ("mark_%s_ms", relay_mark_to_string (m));
      csv_field (out, name);
    }
  for (guint s = 0; s < RELAY_N_STAGES; s++)
    {
      g_autofree char *name = g_strdup_printf ("stage_%s_ms", relay_stage_to_string (s));
      csv_field (out, name);
    }
  for (guint i = 0; i < G_N_ELEMENTS (csv_tail); i++)
    csv_field (out, csv_tail[i]);
  csv_end_row (out);

  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      RelayRun *run = trace_run (session, trace);
      const RelayUsage *usage = relay_trace_get_usage (trace);
      g_autofree char *wall = NULL;
      RelayStats gaps;
      gboolean estimated = FALSE;
      gint64 tokens;
      double rate;

      if (relay_trace_get_wall_start (trace) != NULL)
        wall = g_date_time_format_iso8601 (relay_trace_get_wall_start (trace));

      csv_field (out, run ? relay_run_get_endpoint (run) : NULL);
      csv_field (out, run ? relay_run_get_model (run) : NULL);
      csv_int (out, relay_trace_get_run (trace));
      csv_int (out, relay_trace_get_seq (trace));
      csv_field (out, wall);

      for (guint m = 0; m < RELAY_N_MARKS; m++)
        {
          gint64 t = relay_trace_get_mark (trace, m);
          csv_number (out, t == RELAY_TIME_NONE ? NAN : t / 1000.0, 3);
        }
      for (guint s = 0; s < RELAY_N_STAGES; s++)
        {
          gint64 d = relay_trace_get_stage_duration (trace, s);
          csv_number (out, d == RELAY_TIME_NONE ? NAN : d / 1000.0, 3);
        }

      gap_stats (trace, &gaps);
      tokens = relay_trace_get_output_tokens (trace, &estimated);
      rate = relay_trace_get_output_tokens_per_second (trace);

      csv_number (out, interval_ms (trace, RELAY_MARK_START, RELAY_MARK_FIRST_TOKEN), 3);
      csv_number (out, interval_ms (trace, RELAY_MARK_START, RELAY_MARK_FIRST_CONTENT), 3);
      csv_number (out, gaps.p50, 3);
      csv_number (out, gaps.p95, 3);
      csv_int (out, relay_trace_get_n_chunks (trace));
      csv_int (out, (gint64) relay_trace_get_output_chars (trace));
      csv_int (out, tokens);
      csv_field (out, estimated ? "true" : "false");
      csv_number (out, rate < 0 ? NAN : rate, 2);
      csv_number (out, usage->prompt_tokens < 0 ? NAN : usage->prompt_tokens, 0);
      csv_number (out, usage->cached_prompt_tokens < 0 ? NAN : usage->cached_prompt_tokens, 0);
      csv_number (out, usage->completion_tokens < 0 ? NAN : usage->completion_tokens, 0);
      csv_number (out, usage->reasoning_tokens < 0 ? NAN : usage->reasoning_tokens, 0);
      csv_int (out, relay_trace_get_http_status (trace));
      csv_field (out, relay_trace_get_http_version (trace));
      csv_field (out, relay_trace_get_reused (trace) ? "true" : "false");
      csv_field (out, relay_trace_get_remote (trace));
      csv_field (out, relay_trace_get_tls_version (trace));
      csv_field (out, relay_trace_get_cipher (trace));
      csv_int (out, relay_trace_get_connect_attempts (trace));
      csv_field (out, relay_trace_get_model_reported (trace));
      if (relay_trace_get_error_stage (trace) != RELAY_ERROR_STAGE_NONE)
        {
          csv_field (out, relay_error_stage_to_string (relay_trace_get_error_stage (trace)));
          csv_field (out, relay_trace_get_error_kind (trace));
          csv_field (out, relay_trace_get_error_message (trace));
        }
      else
        {
          csv_field (out, NULL);
          csv_field (out, NULL);
          csv_field (out, NULL);
        }
      csv_end_row (out);
    }

  return g_string_free (out, FALSE);
}

/* ---- JSON lines ------------------------------------------------------------------------- */

static void
set_ms (JsonObject *object,
        const char *name,
        double      value)
{
  if (isfinite (value))
    json_object_set_double_member (object, name, round (value * 1000) / 1000);
  else
    json_object_set_null_member (object, name);
}

char *
relay_export_jsonl (RelaySession *session)
{
  GString *out;
  GListModel *traces;
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);

  out = g_string_new (NULL);
  traces = relay_session_get_traces (session);
  json_generator_set_pretty (generator, FALSE);

  for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
      g_autoptr(JsonNode) node = relay_trace_to_json (trace);
      g_autoptr(JsonObject) line = json_object_new ();
      JsonObject *object = json_node_get_object (node);
      RelayRun *run = trace_run (session, trace);
      JsonObject *stages = json_object_new ();
      JsonObject *itl = json_object_new ();
      g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
      g_autofree char *text = NULL;
      g_autoptr(GList) members = NULL;
      RelayStats gaps;

      /* Names first, so a line reads well; then the file's trace members. */
      if (run != NULL)
        {
          json_object_set_string_member (line, "endpoint", relay_run_get_endpoint (run));
          json_object_set_string_member (line, "model", relay_run_get_model (run));
        }
      else
        {
          json_object_set_null_member (line, "endpoint");
          json_object_set_null_member (line, "model");
        }

      members = json_object_get_members (object);
      for (GList *l = members; l != NULL; l = l->next)
        json_object_set_member (line, l->data, json_node_copy (json_object_get_member (object, l->data)));

      set_ms (line, "ttft_ms", interval_ms (trace, RELAY_MARK_START, RELAY_MARK_FIRST_TOKEN));
      set_ms (line, "ttfo_ms", interval_ms (trace, RELAY_MARK_START, RELAY_MARK_FIRST_CONTENT));
      for (guint s = 0; s < RELAY_N_STAGES; s++)
        {
          gint64 d = relay_trace_get_stage_duration (trace, s);

          if (d != RELAY_TIME_NONE)
            set_ms (stages, relay_stage_to_string (s), d / 1000.0);
        }
      json_object_set_object_member (line, "stages_ms", stages);
      gap_stats (trace, &gaps);
      set_ms (itl, "p50", gaps.p50);
      set_ms (itl, "p95", gaps.p95);
      set_ms (itl, "max", gaps.max);
      json_object_set_object_member (line, "itl_ms", itl);
      {
        double rate = relay_trace_get_output_tokens_per_second (trace);
        set_ms (line, "tokens_per_s", rate < 0 ? NAN : rate);
      }

      json_node_set_object (root, line);
      json_generator_set_root (generator, root);
      text = json_generator_to_data (generator, NULL);
      g_string_append (out, text);
      g_string_append_c (out, '\n');
    }

  return g_string_free (out, FALSE);
}

/* ---- the request ------------------------------------------------------------------------ */

static RelayEndpoint *
trace_endpoint (RelaySession  *session,
                RelayTrace    *trace,
                GError       **error)
{
  RelayRun *run = trace_run (session, trace);
  RelayEndpoint *endpoint;

  if (run == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("Trace %u names run %u, which the session does not have"),
                   relay_trace_get_seq (trace), relay_trace_get_run (trace));
      return NULL;
    }

  endpoint = relay_session_find_endpoint (session, relay_run_get_endpoint (run));
  if (endpoint == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("The session does not describe endpoint “%s”"), relay_run_get_endpoint (run));
      return NULL;
    }

  return endpoint;
}

char *
relay_export_request_body (RelaySession  *session,
                           RelayTrace    *trace,
                           GError       **error)
{
  RelayRun *run;
  RelayEndpoint *endpoint;
  RelayRequestSpec spec = { 0 };

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);
  g_return_val_if_fail (RELAY_IS_TRACE (trace), NULL);

  if (!(endpoint = trace_endpoint (session, trace, error)))
    return NULL;

  run = trace_run (session, trace);
  if (relay_run_get_prompt (run) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("The session does not record the prompt of %s %s"),
                   relay_run_get_endpoint (run), relay_run_get_model (run));
      return NULL;
    }

  spec.model = relay_run_get_model (run);
  spec.prompt = relay_run_get_prompt (run);
  spec.max_tokens = relay_run_get_max_tokens (run);
  spec.reasoning_effort = relay_run_get_reasoning_effort (run);

  return relay_dialect_build_request_body (relay_endpoint_get_api (endpoint), &spec);
}

char *
relay_export_request_url (RelaySession  *session,
                          RelayTrace    *trace,
                          GError       **error)
{
  RelayEndpoint *endpoint;

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);
  g_return_val_if_fail (RELAY_IS_TRACE (trace), NULL);

  if (!(endpoint = trace_endpoint (session, trace, error)))
    return NULL;

  return relay_endpoint_dup_request_url (endpoint);
}

static void
replace_header (GPtrArray  *pairs,
                const char *name,
                const char *value)
{
  for (guint i = 0; i + 1 < pairs->len; i += 2)
    {
      if (g_ascii_strcasecmp (g_ptr_array_index (pairs, i), name) == 0)
        {
          g_free (g_ptr_array_index (pairs, i + 1));
          g_ptr_array_index (pairs, i + 1) = g_strdup (value);
          return;
        }
    }

  g_ptr_array_add (pairs, g_strdup (name));
  g_ptr_array_add (pairs, g_strdup (value));
}

static void
add_dialect_header (const char *name,
                    const char *value,
                    gpointer    user_data)
{
  replace_header (user_data, name, value);
}

GStrv
relay_export_request_headers (RelaySession  *session,
                              RelayTrace    *trace,
                              const char    *key_value,
                              GError       **error)
{
  RelayEndpoint *endpoint;
  g_autoptr(GPtrArray) pairs = NULL;
  const char * const *extra;

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);
  g_return_val_if_fail (RELAY_IS_TRACE (trace), NULL);
  g_return_val_if_fail (key_value != NULL, NULL);

  if (!(endpoint = trace_endpoint (session, trace, error)))
    return NULL;

  pairs = g_ptr_array_new_with_free_func (g_free);

  /* The prober's order: its own headers, the dialect's, then the endpoint's extra ones,
   * which replace a header of the same name. */
  replace_header (pairs, "Accept", "text/event-stream");
  replace_header (pairs, "Accept-Encoding", "identity");
  relay_dialect_add_headers (relay_endpoint_get_api (endpoint), key_value, add_dialect_header, pairs);
  extra = relay_endpoint_get_headers (endpoint);
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    {
      const char *colon = strchr (extra[i], ':');
      g_autofree char *name = NULL;
      g_autofree char *value = NULL;

      if (colon == NULL)
        continue;
      name = g_strstrip (g_strndup (extra[i], colon - extra[i]));
      value = g_strstrip (g_strdup (colon + 1));
      if (relay_header_is_secret (name))
        {
          /* Whatever the user typed there is a credential: keep only its shape. */
          if (g_ascii_strncasecmp (value, "Bearer ", 7) == 0 && strncmp (key_value, "Bearer ", 7) != 0)
            {
              g_autofree char *bearer = g_strconcat ("Bearer ", key_value, NULL);
              replace_header (pairs, name, bearer);
            }
          else
            replace_header (pairs, name, key_value);
          continue;
        }
      replace_header (pairs, name, value);
    }
  replace_header (pairs, "Content-Type", "application/json");

  g_ptr_array_add (pairs, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&pairs), FALSE);
}

static void
append_single_quoted (GString    *out,
                      const char *text)
{
  g_autofree char *quoted = g_shell_quote (text);

  g_string_append (out, quoted);
}

static gboolean
is_variable_name (const char *name)
{
  if (name == NULL || !(g_ascii_isalpha (name[0]) || name[0] == '_'))
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!(g_ascii_isalnum (*p) || *p == '_'))
      return FALSE;
  return TRUE;
}

char *
relay_export_curl_command (RelaySession  *session,
                           RelayTrace    *trace,
                           GError       **error)
{
  RelayEndpoint *endpoint;
  g_autofree char *url = NULL;
  g_autofree char *body = NULL;
  g_autofree char *reference = NULL;
  g_auto(GStrv) headers = NULL;
  const char *var;
  GString *out;

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);
  g_return_val_if_fail (RELAY_IS_TRACE (trace), NULL);

  if (!(endpoint = trace_endpoint (session, trace, error)) ||
      !(body = relay_export_request_body (session, trace, error)))
    return NULL;

  /* A name that is not a plain variable would be expanded as something else by the shell. */
  var = relay_endpoint_get_effective_key_env (endpoint);
  if (!is_variable_name (var))
    var = relay_dialect_get_default_key_env (relay_endpoint_get_api (endpoint));
  reference = g_strconcat ("$", var, NULL);

  url = relay_endpoint_dup_request_url (endpoint);
  headers = relay_export_request_headers (session, trace, reference, error);
  if (headers == NULL)
    return NULL;

  out = g_string_new ("curl -N -sS -X POST ");
  append_single_quoted (out, url);

  for (guint i = 0; headers[i] != NULL && headers[i + 1] != NULL; i += 2)
    {
      g_autofree char *line = g_strdup_printf ("%s: %s", headers[i], headers[i + 1]);

      g_string_append (out, " \\\n  -H ");
      if (relay_header_is_secret (headers[i]))
        {
          /* Double quotes so the shell expands the variable; the rest of the line is a fixed
           * header name and the reference, which need no escaping. */
          g_string_append_printf (out, "\"%s\"", line);
        }
      else
        append_single_quoted (out, line);
    }

  g_string_append (out, " \\\n  --data-raw ");
  append_single_quoted (out, body);
  g_string_append_c (out, '\n');

  return g_string_free (out, FALSE);
}
