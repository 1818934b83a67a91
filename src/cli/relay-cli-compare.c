/* relay-cli-compare.c: relayscope-cli compare (A/B of two sessions or two selections of
 * one), the race ranking, and the helpers the commands share.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "relay-cli-private.h"
#include "relay-compare.h"
#include "relay-prometheus.h"
#include "relay-race.h"

RelaySession *
_relay_cli_load_session (const char *command,
                         const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr(GError) error = NULL;
  RelaySession *session;

  session = relay_session_load (file, NULL, &error);
  if (session == NULL)
    g_printerr (_("relayscope-cli %s: cannot open %s: %s\n"), command, path, error->message);

  return session;
}

gboolean
_relay_cli_parse_metric (const char  *name,
                         RelayMetric *metric)
{
  static const struct { const char *alias; RelayMetric metric; } aliases[] = {
    { "tps", RELAY_METRIC_TOKENS_PER_SECOND },
    { "tokens/s", RELAY_METRIC_TOKENS_PER_SECOND },
    { "ttfb", RELAY_METRIC_WAIT },
  };

  for (guint m = 0; m < RELAY_N_METRICS; m++)
    if (g_ascii_strcasecmp (name, relay_metric_to_string (m)) == 0)
      {
        *metric = m;
        return TRUE;
      }

  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (g_ascii_strcasecmp (name, aliases[i].alias) == 0)
      {
        *metric = aliases[i].metric;
        return TRUE;
      }

  return FALSE;
}

static void
print_json (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);
  g_print ("%s\n", text);
}

gboolean
_relay_cli_print_race (RelaySession *session,
                       RelayMetric   metric,
                       gboolean      json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) ranking = relay_race_rank (session, metric, 1, &error);

  if (ranking == NULL)
    {
      g_printerr ("relayscope-cli race: %s\n", error->message);
      return FALSE;
    }

  if (json)
    {
      g_autoptr(JsonNode) node = relay_race_to_json (ranking, metric);
      print_json (node);
    }
  else
    {
      g_autofree char *text = relay_race_format (ranking, metric);
      g_print ("%s", text);
    }

  return TRUE;
}

gboolean
_relay_cli_write_prometheus (RelaySession *session,
                             const char   *path)
{
  g_autofree char *text = relay_prometheus_format (session);
  g_autoptr(GError) error = NULL;

  /* g_file_set_contents() writes a temporary file and renames it: a collector reading the
   * file never sees half of it. */
  if (!g_file_set_contents (path, text, -1, &error))
    {
      g_printerr (_("Could not write the Prometheus file: %s\n"), error->message);
      return FALSE;
    }

  return TRUE;
}

static char *
side_label (const char   *path,
            RelaySession *session)
{
  g_autofree char *base = g_path_get_basename (path);
  const char *title = relay_session_get_title (session);

  if (title != NULL && title[0] != '\0')
    return g_strdup_printf ("%s “%s”", base, title);
  return g_steal_pointer (&base);
}

int
_relay_cli_compare (int    argc,
                    char **argv)
{
  g_auto(GStrv) files = NULL;
  g_autofree char *sel_a = NULL;
  g_autofree char *sel_b = NULL;
  g_autofree char *stage_name = NULL;
  gboolean json = FALSE;
  int resamples = 2000;
  int min_samples = 10;
  int seed = 1;
  GOptionEntry entries[] = {
    { "a", 0, 0, G_OPTION_ARG_STRING, &sel_a, N_("Side A within one session: ENDPOINT, ENDPOINT/MODEL or #RUN"), "SELECTOR" },
    { "b", 0, 0, G_OPTION_ARG_STRING, &sel_b, N_("Side B within one session"), "SELECTOR" },
    { "stage", 0, 0, G_OPTION_ARG_STRING, &stage_name, N_("Only this stage: dns, tcp, tls, wait, ttft, itl, tokens_per_s, total"), "STAGE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the comparison as JSON, with the samples for CDFs"), NULL },
    { "resamples", 0, 0, G_OPTION_ARG_INT, &resamples, N_("Bootstrap resamples (default 2000)"), "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &seed, N_("Seed of the bootstrap's random numbers (default 1)"), "N" },
    { "min-samples", 0, 0, G_OPTION_ARG_INT, &min_samples, N_("Warn below this many probes a side (default 10)"), "N" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("A.relayscope [B.relayscope]") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("A.relayscope B.relayscope | S.relayscope --a X --b Y — compare stage by stage"));
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySession) a = NULL;
  g_autoptr(RelaySession) b = NULL;
  g_autoptr(RelayComparison) comparison = NULL;
  RelayMetric metric = RELAY_N_METRICS;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
    _("Compares two sessions (before and after a change), or two endpoints, models or runs of\n"
      "one session, stage by stage: p50 and p95 of each side, the difference B − A with a\n"
      "bootstrap 95% confidence interval, a Mann-Whitney U p-value and a verdict in words.\n"
      "A selector is ENDPOINT, ENDPOINT/MODEL, or #N for the session's run N (from 0).\n\n"
      "Exit status: 0 compared, 2 usage error or unreadable file."));

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      _relay_cli_usage_error ("compare", error->message);
      return RELAY_CLI_EXIT_USAGE;
    }

  if (stage_name != NULL && !_relay_cli_parse_metric (stage_name, &metric))
    {
      _relay_cli_usage_error ("compare", _("--stage must be one of dns, tcp, tls, wait, ttft, itl, tokens_per_s, total"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if (resamples < 0 || min_samples < 0 || seed < 0)
    {
      _relay_cli_usage_error ("compare", _("--resamples, --seed and --min-samples must not be negative"));
      return RELAY_CLI_EXIT_USAGE;
    }

  if (files != NULL && files[0] != NULL && files[1] != NULL && files[2] == NULL && sel_a == NULL && sel_b == NULL)
    {
      g_autofree char *label_a = NULL;
      g_autofree char *label_b = NULL;

      if (!(a = _relay_cli_load_session ("compare", files[0])) ||
          !(b = _relay_cli_load_session ("compare", files[1])))
        return RELAY_CLI_EXIT_USAGE;

      label_a = side_label (files[0], a);
      label_b = side_label (files[1], b);
      comparison = relay_comparison_new_for_sessions (a, label_a, b, label_b);
    }
  else if (files != NULL && files[0] != NULL && files[1] == NULL && sel_a != NULL && sel_b != NULL)
    {
      if (!(a = _relay_cli_load_session ("compare", files[0])))
        return RELAY_CLI_EXIT_USAGE;

      comparison = relay_comparison_new_for_selectors (a, sel_a, sel_b, &error);
      if (comparison == NULL)
        {
          _relay_cli_usage_error ("compare", error->message);
          return RELAY_CLI_EXIT_USAGE;
        }
    }
  else
    {
      _relay_cli_usage_error ("compare", _("give two session files, or one with --a and --b"));
      return RELAY_CLI_EXIT_USAGE;
    }

  relay_comparison_set_resamples (comparison, resamples);
  relay_comparison_set_seed (comparison, seed);
  relay_comparison_set_min_samples (comparison, min_samples);

  if (json)
    {
      g_autoptr(JsonNode) node = relay_comparison_to_json (comparison, metric, TRUE);
      print_json (node);
    }
  else
    {
      g_autofree char *text = relay_comparison_format_text (comparison, metric);
      g_print ("%s", text);
    }

  return RELAY_CLI_EXIT_OK;
}
