/* relay-cli-export.c: relayscope-cli check (a saved session against a budget), export (HAR,
 * CSV, JSON lines, the PDF report, PNG and SVG charts) and curl (a probe's request).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "relay-budget.h"
#include "relay-chart-export.h"
#include "relay-cli-private.h"
#include "relay-compare.h"
#include "relay-export.h"
#include "relay-har.h"
#include "relay-report.h"

static RelayBudget *
load_budget (const char *command,
             const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr(GError) error = NULL;
  RelayBudget *budget = relay_budget_load (file, &error);

  if (budget == NULL)
    _relay_cli_usage_error (command, error->message);

  return budget;
}

/* Exactly one session file among the remaining arguments. */
static RelaySession *
load_single (const char  *command,
             char       **files)
{
  if (files == NULL || files[0] == NULL || files[1] != NULL)
    {
      _relay_cli_usage_error (command, _("give exactly one session file"));
      return NULL;
    }

  return _relay_cli_load_session (command, files[0]);
}

int
_relay_cli_check (int    argc,
                  char **argv)
{
  g_auto(GStrv) files = NULL;
  g_autofree char *budget_file = NULL;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "budget", 0, 0, G_OPTION_ARG_FILENAME, &budget_file, N_("The budget (default: the 880 ms first-character budget)"), "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the result as JSON"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("FILE.relayscope") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE.relayscope — check a saved session against a latency budget"));
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(RelayBudget) budget = NULL;
  g_autoptr(GPtrArray) overruns = NULL;
  g_autofree char *errors = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
    _("Checks every endpoint × model of a saved session against a latency budget and prints\n"
      "each overrun, so a CI job can fail on it.\n\n"
      "Exit status: 0 within budget, 1 no overrun but some probes failed, 2 usage error or\n"
      "unreadable session or budget file, 3 a budget was exceeded."));

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      _relay_cli_usage_error ("check", error->message);
      return RELAY_CLI_EXIT_USAGE;
    }

  if (!(session = load_single ("check", files)))
    return RELAY_CLI_EXIT_USAGE;

  budget = budget_file ? load_budget ("check", budget_file) : relay_budget_new_default ();
  if (budget == NULL)
    return RELAY_CLI_EXIT_USAGE;

  overruns = relay_budget_check_overruns (budget, session);
  errors = relay_cli_format_errors (session);

  if (json)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;
      guint failed = 0;
      GListModel *traces = relay_session_get_traces (session);

      for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
        {
          g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
          RelayErrorStage stage = relay_trace_get_error_stage (trace);

          failed += stage != RELAY_ERROR_STAGE_NONE && stage != RELAY_ERROR_STAGE_CANCELLED;
        }

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "within_budget");
      json_builder_add_boolean_value (builder, overruns->len == 0);
      json_builder_set_member_name (builder, "percentile");
      json_builder_add_double_value (builder, relay_budget_get_percentile (budget));
      json_builder_set_member_name (builder, "failed_probes");
      json_builder_add_int_value (builder, failed);
      json_builder_set_member_name (builder, "overruns");
      json_builder_begin_array (builder);
      for (guint i = 0; i < overruns->len; i++)
        {
          const RelayBudgetOverrun *o = g_ptr_array_index (overruns, i);
          g_autofree char *message = relay_budget_overrun_format (o);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "endpoint");
          json_builder_add_string_value (builder, o->endpoint);
          json_builder_set_member_name (builder, "model");
          json_builder_add_string_value (builder, o->model);
          json_builder_set_member_name (builder, "stage");
          json_builder_add_string_value (builder, relay_budget_item_to_string (o->item));
          json_builder_set_member_name (builder, "percentile");
          json_builder_add_double_value (builder, o->percentile);
          json_builder_set_member_name (builder, "value");
          json_builder_add_double_value (builder, round (o->value * 1000) / 1000);
          json_builder_set_member_name (builder, "limit");
          json_builder_add_double_value (builder, o->limit);
          json_builder_set_member_name (builder, "samples");
          json_builder_add_int_value (builder, o->n);
          json_builder_set_member_name (builder, "message");
          json_builder_add_string_value (builder, message);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      json_builder_end_object (builder);

      root = json_builder_get_root (builder);
      json_generator_set_root (generator, root);
      json_generator_set_pretty (generator, TRUE);
      text = json_generator_to_data (generator, NULL);
      g_print ("%s\n", text);
    }
  else if (overruns->len > 0)
    {
      g_print ("%s\n", _("Budget exceeded:"));
      for (guint i = 0; i < overruns->len; i++)
        {
          g_autofree char *message = relay_budget_overrun_format (g_ptr_array_index (overruns, i));
          g_print ("  %s\n", message);
        }
    }
  else
    g_print (_("Within budget (checked at p%g).\n"), relay_budget_get_percentile (budget));

  if (errors != NULL && !json)
    g_print ("\n%s\n%s", _("Failed probes:"), errors);

  if (overruns->len > 0)
    return RELAY_CLI_EXIT_BUDGET;
  if (errors != NULL)
    return RELAY_CLI_EXIT_PROBE_FAILED;
  return RELAY_CLI_EXIT_OK;
}

typedef enum
{
  FORMAT_HAR,
  FORMAT_CSV,
  FORMAT_JSONL,
  FORMAT_PDF,
  FORMAT_PNG,
  FORMAT_SVG,
  N_FORMATS
} ExportFormat;

static const char * const format_names[N_FORMATS] = { "har", "csv", "jsonl", "pdf", "png", "svg" };

static gboolean
format_from_name (const char   *name,
                  ExportFormat *format)
{
  for (guint f = 0; f < N_FORMATS; f++)
    if (g_ascii_strcasecmp (name, format_names[f]) == 0)
      {
        *format = f;
        return TRUE;
      }
  if (g_ascii_strcasecmp (name, "ndjson") == 0)
    {
      *format = FORMAT_JSONL;
      return TRUE;
    }
  return FALSE;
}

static gboolean
format_from_path (const char   *path,
                  ExportFormat *format)
{
  const char *dot = strrchr (path, '.');

  return dot != NULL && strchr (dot, '/') == NULL && format_from_name (dot + 1, format);
}

static int
write_text (const char *output,
            const char *text)
{
  g_autoptr(GError) error = NULL;

  if (output == NULL || strcmp (output, "-") == 0)
    {
      fputs (text, stdout);
      return RELAY_CLI_EXIT_OK;
    }

  if (!g_file_set_contents (output, text, -1, &error))
    {
      g_printerr (_("relayscope-cli export: could not write %s: %s\n"), output, error->message);
      return RELAY_CLI_EXIT_PROBE_FAILED;
    }

  return RELAY_CLI_EXIT_OK;
}

int
_relay_cli_export (int    argc,
                   char **argv)
{
  g_auto(GStrv) files = NULL;
  g_autofree char *format_name = NULL;
  g_autofree char *output = NULL;
  g_autofree char *chart = NULL;
  g_autofree char *budget_file = NULL;
  g_autofree char *compare_file = NULL;
  double width = 0;
  double height = 0;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, N_("har, csv, jsonl, pdf, png or svg (default: from the output's extension)"), "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Write here (“-” or none: standard output, for har, csv and jsonl)"), "OUT" },
    { "chart", 0, 0, G_OPTION_ARG_STRING, &chart, N_("For png and svg: waterfall (default), stream (chunk gaps), cdf (gap distribution) or cumulative"), "CHART" },
    { "width", 0, 0, G_OPTION_ARG_DOUBLE, &width, N_("Chart width in pixels (png) or points (svg); default 1200"), "W" },
    { "height", 0, 0, G_OPTION_ARG_DOUBLE, &height, N_("Chart height; default: every row of the waterfall, 600 for stream charts"), "H" },
    { "budget", 0, 0, G_OPTION_ARG_FILENAME, &budget_file, N_("For pdf: add this budget and its overruns to the report"), "FILE" },
    { "compare", 0, 0, G_OPTION_ARG_FILENAME, &compare_file, N_("For pdf: add an A/B comparison against this session (this one is A)"), "B.relayscope" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("FILE.relayscope") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE.relayscope — export a session as HAR, CSV, JSON lines, a PDF report or a chart"));
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySession) session = NULL;
  ExportFormat format = N_FORMATS;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
    _("Exports a saved session: HAR 1.2 (one entry per probe, keys redacted), CSV (one row\n"
      "per probe), JSON lines, a PDF report (title, notes, the table, budget overruns, the\n"
      "waterfall and stream charts), or the waterfall or a stream chart as PNG or SVG.\n\n"
      "Exit status: 0 written, 1 the output could not be written, 2 usage error or unreadable\n"
      "session file."));

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      _relay_cli_usage_error ("export", error->message);
      return RELAY_CLI_EXIT_USAGE;
    }

  if (format_name != NULL && !format_from_name (format_name, &format))
    {
      _relay_cli_usage_error ("export", _("--format must be har, csv, jsonl, pdf, png or svg"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if (format_name == NULL && (output == NULL || !format_from_path (output, &format)))
    {
      _relay_cli_usage_error ("export", _("give --format, or an output file ending in .har, .csv, .jsonl, .pdf, .png or .svg"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if ((format == FORMAT_PDF || format == FORMAT_PNG || format == FORMAT_SVG) &&
      (output == NULL || strcmp (output, "-") == 0))
    {
      _relay_cli_usage_error ("export", _("pdf, png and svg need an output file (-o FILE)"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if (chart != NULL && !g_strv_contains ((const char * const[]) { "waterfall", "stream", "cdf", "cumulative", NULL }, chart))
    {
      _relay_cli_usage_error ("export", _("--chart must be waterfall, stream, cdf or cumulative"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if (width < 0 || height < 0 || width > 20000 || height > 20000)
    {
      _relay_cli_usage_error ("export", _("--width and --height must be between 0 and 20000"));
      return RELAY_CLI_EXIT_USAGE;
    }

  if (!(session = load_single ("export", files)))
    return RELAY_CLI_EXIT_USAGE;

  switch (format)
    {
    case FORMAT_HAR:
      {
        g_autofree char *text = relay_har_to_data (session, NULL);
        g_autofree char *line = g_strconcat (text, "\n", NULL);
        return write_text (output, line);
      }

    case FORMAT_CSV:
      {
        g_autofree char *text = relay_export_csv (session);
        return write_text (output, text);
      }

    case FORMAT_JSONL:
      {
        g_autofree char *text = relay_export_jsonl (session);
        return write_text (output, text);
      }

    case FORMAT_PDF:
      {
        g_autoptr(RelayBudget) budget = NULL;
        g_autoptr(RelaySession) other = NULL;
        g_autoptr(RelayComparison) comparison = NULL;

        if (budget_file != NULL && !(budget = load_budget ("export", budget_file)))
          return RELAY_CLI_EXIT_USAGE;
        if (compare_file != NULL)
          {
            if (!(other = _relay_cli_load_session ("export", compare_file)))
              return RELAY_CLI_EXIT_USAGE;
            comparison = relay_comparison_new_for_sessions (session, files[0], other, compare_file);
          }

        if (!relay_report_export_pdf (session, budget, comparison, output, &error))
          {
            g_printerr (_("relayscope-cli export: %s\n"), error->message);
            return RELAY_CLI_EXIT_PROBE_FAILED;
          }
        return RELAY_CLI_EXIT_OK;
      }

    case FORMAT_PNG:
    case FORMAT_SVG:
      {
        RelayChartFormat chart_format = format == FORMAT_PNG ? RELAY_CHART_FORMAT_PNG : RELAY_CHART_FORMAT_SVG;
        g_autofree char *title = g_strdup (relay_session_get_title (session) ? relay_session_get_title (session) : files[0]);
        gboolean ok;

        if (chart == NULL || strcmp (chart, "waterfall") == 0)
          {
            g_autoptr(RelayWaterfallPainter) painter = relay_waterfall_painter_new ();

            relay_waterfall_painter_set_traces (painter, relay_session_get_traces (session), session);
            relay_waterfall_painter_set_group_by_endpoint (painter, TRUE);
            relay_waterfall_painter_set_title (painter, title);
            ok = relay_chart_export_waterfall (painter, chart_format, output, width > 0 ? width : 1200,
                                               height > 0 ? height : 0, &error);
          }
        else
          {
            g_autoptr(RelayStreamPainter) painter = relay_stream_painter_new ();
            RelayStreamMode mode = strcmp (chart, "cdf") == 0 ? RELAY_STREAM_MODE_DISTRIBUTION
                                 : strcmp (chart, "cumulative") == 0 ? RELAY_STREAM_MODE_CUMULATIVE
                                 : RELAY_STREAM_MODE_GAPS;

            relay_stream_painter_set_traces (painter, relay_session_get_traces (session), session);
            relay_stream_painter_set_mode (painter, mode);
            relay_stream_painter_set_title (painter, title);
            ok = relay_chart_export_stream (painter, chart_format, output, width > 0 ? width : 1200,
                                            height > 0 ? height : 600, &error);
          }

        if (!ok)
          {
            g_printerr (_("relayscope-cli export: %s\n"), error->message);
            return RELAY_CLI_EXIT_PROBE_FAILED;
          }
        return RELAY_CLI_EXIT_OK;
      }

    case N_FORMATS:
    default:
      g_assert_not_reached ();
    }
}

int
_relay_cli_curl (int    argc,
                 char **argv)
{
  g_auto(GStrv) files = NULL;
  int index = 0;
  GOptionEntry entries[] = {
    { "trace", 't', 0, G_OPTION_ARG_INT, &index, N_("The probe: its position among the file's traces, from 0 (default 0)"), "N" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("FILE.relayscope") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE.relayscope — print a probe's request as a curl command"));
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  g_autofree char *command = NULL;
  GListModel *traces;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
    _("Prints the request a probe sent as a curl command, rebuilt from the session's request\n"
      "spec. The key is read from the endpoint's environment variable (\"$OPENAI_API_KEY\"),\n"
      "never written.\n\n"
      "Exit status: 0 printed, 2 usage error, unreadable session or no such trace."));

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      _relay_cli_usage_error ("curl", error->message);
      return RELAY_CLI_EXIT_USAGE;
    }

  if (!(session = load_single ("curl", files)))
    return RELAY_CLI_EXIT_USAGE;

  traces = relay_session_get_traces (session);
  if (index < 0 || (guint) index >= g_list_model_get_n_items (traces))
    {
      g_autofree char *message = g_strdup_printf (_("--trace %d: the session has %u traces (0 to %d)"),
                                                  index, g_list_model_get_n_items (traces),
                                                  (int) g_list_model_get_n_items (traces) - 1);
      _relay_cli_usage_error ("curl", message);
      return RELAY_CLI_EXIT_USAGE;
    }

  trace = g_list_model_get_item (traces, index);
  command = relay_export_curl_command (session, trace, &error);
  if (command == NULL)
    {
      _relay_cli_usage_error ("curl", error->message);
      return RELAY_CLI_EXIT_USAGE;
    }

  g_print ("%s", command);
  return RELAY_CLI_EXIT_OK;
}
