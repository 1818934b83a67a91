/* relay-cli.c: relayscope-cli's commands: probe, race and show, and the dispatch to the
 * others (compare, check, export, curl).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "relay-budget.h"
#include "relay-cli-private.h"
#include "relay-cli-experiment.h"
#include "relay-findings.h"
#include "relay-prober.h"
#include "relay-sim-demo.h"
#include "relay-summary.h"

#define DEMO_KEY "demo-key"

typedef struct
{
  GMainLoop    *loop;
  GError       *error;
  guint         started;
  guint         finished;
  guint         total;
  gboolean      progress;
} ProbeState;

void
_relay_cli_usage_error (const char *command,
                        const char *message)
{
  g_printerr ("relayscope-cli %s: %s\n", command, message);
  g_printerr (_("Try “relayscope-cli %s --help”.\n"), command);
}

#define usage_error _relay_cli_usage_error

char *
_relay_cli_key_func (RelayEndpoint *endpoint,
                     gpointer       user_data)
{
  const char *value;

  if (relay_endpoint_get_simulated (endpoint))
    return g_strdup (DEMO_KEY);

  value = g_getenv (relay_endpoint_get_effective_key_env (endpoint));
  if (value == NULL || value[0] == '\0')
    return NULL;

  return g_strdup (value);
}

static void
on_trace_added (RelayProber *prober,
                RelayTrace  *trace,
                ProbeState  *state)
{
  state->started++;
}

static void
on_trace_finished (RelayProber *prober,
                   RelayTrace  *trace,
                   ProbeState  *state)
{
  state->finished++;
  if (state->progress)
    {
      g_printerr ("\r%s %u/%u", _("Probing…"), state->finished, state->total);
      if (state->finished == state->total)
        g_printerr ("\r\033[K");
    }
}

static void
on_run_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  ProbeState *state = user_data;

  relay_prober_run_finish (RELAY_PROBER (object), result, &state->error);
  g_main_loop_quit (state->loop);
}

static gboolean
on_interrupt (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_CONTINUE;
}

static char *
host_of (const char *url)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return g_strdup (url);

  if (g_uri_get_port (uri) > 0)
    return g_strdup_printf ("%s:%d", g_uri_get_host (uri), g_uri_get_port (uri));
  return g_strdup (g_uri_get_host (uri));
}

static gboolean
check_url (const char  *url,
           GError     **error)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  const char *scheme;

  if (uri == NULL || (scheme = g_uri_get_scheme (uri)) == NULL ||
      (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0) ||
      g_uri_get_host (uri) == NULL || g_uri_get_host (uri)[0] == '\0')
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("“%s” is not an http:// or https:// base URL"), url);
      return FALSE;
    }

  return TRUE;
}

static int
write_session (RelaySession *session,
               const char   *path)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr(GError) error = NULL;

  if (!relay_session_save (session, file, NULL, &error))
    {
      g_printerr (_("Could not save the session: %s\n"), error->message);
      return -1;
    }

  return 0;
}

static int
report (RelaySession *session,
        RelayBudget  *budget,
        gboolean      json)
{
  g_autofree char *errors = relay_cli_format_errors (session);
  g_autoptr(GPtrArray) overruns = NULL;
  int status = RELAY_CLI_EXIT_OK;

  if (budget != NULL)
    overruns = relay_budget_check (budget, session);

  if (json)
    {
      g_autofree char *text = relay_cli_format_json (session);

      g_print ("%s\n", text);
    }
  else
    {
      g_autofree char *table = relay_cli_format_table (session);

      g_autoptr(GPtrArray) findings = relay_findings_analyze (session);

      g_print ("%s", table);
      if (errors != NULL)
        g_print ("\n%s\n%s", _("Failed probes:"), errors);
      if (findings->len > 0)
        {
          g_autofree char *text = relay_findings_format_text (findings);

          g_print ("\n%s", text);
        }
    }

  if (overruns != NULL && overruns->len > 0)
    {
      /* Overruns go to stderr with --json so that stdout stays valid JSON. */
      void (*print) (const char *, ...) = json ? g_printerr : g_print;

      print ("\n%s\n", _("Budget exceeded:"));
      for (guint i = 0; i < overruns->len; i++)
        print ("  %s\n", (const char *) g_ptr_array_index (overruns, i));
    }

  if (errors != NULL)
    status = RELAY_CLI_EXIT_PROBE_FAILED;
  else if (overruns != NULL && overruns->len > 0)
    status = RELAY_CLI_EXIT_BUDGET;

  return status;
}

/* probe, and race (a probe whose endpoints are sent each round's request at the same
 * instant, ranked afterwards). */
static int
cmd_probe (int       argc,
           char    **argv,
           gboolean  race)
{
  const char *command = race ? "race" : "probe";
  g_autofree char *prometheus = NULL;
  g_autofree char *from = NULL;
  g_autofree char *stage_name = NULL;
  RelayMetric race_metric = RELAY_METRIC_TTFT;
  g_autofree char *api_name = NULL;
  g_auto(GStrv) models = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *connection_name = NULL;
  g_autofree char *key_env = NULL;
  g_autofree char *ca_file = NULL;
  g_autofree char *budget_file = NULL;
  g_autofree char *output = NULL;
  g_autofree char *reasoning_effort = NULL;
  g_autofree char *name = NULL;
  g_auto(GStrv) headers = NULL;
  g_auto(GStrv) urls = NULL;
  int max_tokens = 128;
  int repeat = -1;
  int concurrency = -1;
  double rate = 0;
  double timeout = 60;
  gboolean json = FALSE;
  gboolean demo = FALSE;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
    { "api", 0, 0, G_OPTION_ARG_STRING, &api_name, N_("API dialect: openai-chat (default) or anthropic-messages"), "API" },
    { "model", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &models, N_("Model to probe (repeat for several)"), "MODEL" },
    { "prompt", 'p', 0, G_OPTION_ARG_STRING, &prompt, N_("The prompt to send"), "TEXT" },
    { "max-tokens", 0, 0, G_OPTION_ARG_INT, &max_tokens, N_("Maximum output tokens (default 128)"), "N" },
    { "reasoning-effort", 0, 0, G_OPTION_ARG_STRING, &reasoning_effort, N_("low, medium or high, where the API has one"), "EFFORT" },
    { "repeat", 'n', 0, G_OPTION_ARG_INT, &repeat, N_("Probes per endpoint and model (default 1, demo 5)"), "N" },
    { "concurrency", 'c', 0, G_OPTION_ARG_INT, &concurrency, N_("Probes in flight at once (default 1, demo 4)"), "C" },
    { "rate", 0, 0, G_OPTION_ARG_DOUBLE, &rate, N_("Probes started per second at most (default: no limit)"), "R" },
    { "connection", 0, 0, G_OPTION_ARG_STRING, &connection_name, N_("cold (new connection each probe, default) or warm (keep-alive)"), "MODE" },
    { "key-env", 0, 0, G_OPTION_ARG_STRING, &key_env, N_("Environment variable holding the API key"), "VAR" },
    { "header", 'H', 0, G_OPTION_ARG_STRING_ARRAY, &headers, N_("Extra request header (repeatable)"), "“NAME: VALUE”" },
    { "ca-file", 0, 0, G_OPTION_ARG_FILENAME, &ca_file, N_("Also trust the CA certificates in this PEM file"), "PEM" },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout, N_("Seconds a probe may take (default 60, 0 for none)"), "S" },
    { "budget", 0, 0, G_OPTION_ARG_FILENAME, &budget_file, N_("Latency budget to check (exit status 3 when exceeded)"), "FILE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Save the session to this file"), "FILE.relayscope" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &name, N_("Endpoint name (default: the host)"), "NAME" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the summary as JSON"), NULL },
    { "demo", 0, 0, G_OPTION_ARG_NONE, &demo, N_("Probe simulated relays started in-process"), NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, N_("No progress on stderr"), NULL },
    { "prometheus", 0, 0, G_OPTION_ARG_FILENAME, &prometheus, N_("Also write the figures in Prometheus text format to this file"), "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &urls, NULL, N_("URL…") },
    { NULL }
  };
  GOptionEntry race_entries[] = {
    { "stage", 0, 0, G_OPTION_ARG_STRING, &stage_name, N_("Rank by this stage (default ttft)"), "STAGE" },
    { "from", 0, 0, G_OPTION_ARG_FILENAME, &from, N_("Rank the race saved in this session instead of probing"), "FILE.relayscope" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (race ? _("URL URL… — send the same request to several endpoints at once, repeatedly, and rank them")
                                                                 : _("[URL…] — probe endpoints and print their latency"));
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySimDemo) sim_demo = NULL;
  g_autoptr(RelayProbePlan) plan = relay_probe_plan_new ();
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayProber) prober = relay_prober_new ();
  g_autoptr(RelayBudget) budget = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *title = NULL;
  RelayApi api = RELAY_API_OPENAI_CHAT;
  RelayConnection connection = RELAY_CONNECTION_COLD;
  ProbeState state = { 0 };
  guint sigint, sigterm;
  int status;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (race)
    {
      g_option_context_add_main_entries (context, race_entries, GETTEXT_PACKAGE);
      g_option_context_set_summary (context,
        _("A race: each round sends the same request to every endpoint (and model) at the same\n"
          "instant — a probe with --concurrency equal to the number of entrants — and --repeat\n"
          "rounds (default 5) follow. Entrants are ranked by their median, with the per-round\n"
          "difference to the fastest and its 95% interval, so noise shared by a round cancels.\n"
          "Takes the options of “probe”.\n\n"
          "Exit status: 0 all probes succeeded within budget, 1 a probe failed, 2 usage error,\n"
          "3 a budget was exceeded."));
    }
  else
    g_option_context_set_summary (context,
      _("Sends streaming chat requests and measures every stage, from DNS to the last token.\n"
        "URL is the base URL as SDKs take it: …/v1 for openai-chat, the host root for\n"
        "anthropic-messages. Without a URL, OPENAI_BASE_URL (or ANTHROPIC_BASE_URL with\n"
        "--api anthropic-messages) is used.\n\n"
        "Exit status: 0 all probes succeeded within budget, 1 a probe failed, 2 usage error,\n"
        "3 a budget was exceeded."));

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      usage_error (command, error->message);
      return RELAY_CLI_EXIT_USAGE;
    }

  if (stage_name != NULL && !_relay_cli_parse_metric (stage_name, &race_metric))
    {
      usage_error (command, _("--stage must be one of dns, tcp, tls, wait, ttft, itl, tokens_per_s, total"));
      return RELAY_CLI_EXIT_USAGE;
    }

  if (from != NULL)
    {
      g_autoptr(RelaySession) saved = NULL;

      if (urls != NULL && urls[0] != NULL)
        {
          usage_error (command, _("--from ranks a saved race; give no URL with it"));
          return RELAY_CLI_EXIT_USAGE;
        }
      if (!(saved = _relay_cli_load_session (command, from)))
        return RELAY_CLI_EXIT_USAGE;
      return _relay_cli_print_race (saved, race_metric, json) ? RELAY_CLI_EXIT_OK : RELAY_CLI_EXIT_USAGE;
    }

  if (api_name != NULL && !relay_api_from_string (api_name, &api))
    {
      usage_error (command, _("--api must be openai-chat or anthropic-messages"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if (connection_name != NULL && !relay_connection_from_string (connection_name, &connection))
    {
      usage_error (command, _("--connection must be cold or warm"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if (reasoning_effort != NULL &&
      !g_strv_contains ((const char * const[]) { "low", "medium", "high", NULL }, reasoning_effort))
    {
      usage_error (command, _("--reasoning-effort must be low, medium or high"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if (max_tokens < 1 || concurrency == 0 || concurrency < -1 || (repeat != -1 && repeat < 1) || rate < 0 || timeout < 0)
    {
      usage_error (command, _("--max-tokens, --repeat and --concurrency must be at least 1; "
                              "--rate and --timeout must not be negative"));
      return RELAY_CLI_EXIT_USAGE;
    }
  for (guint i = 0; headers != NULL && headers[i] != NULL; i++)
    {
      if (strchr (headers[i], ':') == NULL)
        {
          g_autofree char *message = g_strdup_printf (_("--header “%s” must look like “Name: value”"), headers[i]);
          usage_error (command, message);
          return RELAY_CLI_EXIT_USAGE;
        }
    }

  if (budget_file != NULL)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (budget_file);

      budget = relay_budget_load (file, &error);
      if (budget == NULL)
        {
          usage_error (command, error->message);
          return RELAY_CLI_EXIT_USAGE;
        }
    }

  if (demo)
    {
      if (urls != NULL && urls[0] != NULL)
        {
          usage_error (command, _("--demo probes the simulated relays; give no URL with it"));
          return RELAY_CLI_EXIT_USAGE;
        }

      sim_demo = relay_sim_demo_start (&error);
      if (sim_demo == NULL)
        {
          g_printerr (_("Could not start the simulated relays: %s\n"), error->message);
          return RELAY_CLI_EXIT_PROBE_FAILED;
        }

      for (guint i = 0; i < relay_sim_demo_get_n_relays (sim_demo); i++)
        {
          const RelaySimDemoRelay *relay = relay_sim_demo_get_relay (sim_demo, i);
          g_autoptr(RelayEndpoint) endpoint = NULL;
          RelayApi relay_api = RELAY_API_OPENAI_CHAT;
          const char *relay_models[] = { relay->model, NULL };

          relay_api_from_string (relay->api, &relay_api);
          endpoint = relay_endpoint_new (relay->name, relay->base_url, relay_api);
          relay_endpoint_set_models (endpoint, relay_models);
          relay_endpoint_set_ca_file (endpoint, relay_sim_demo_get_ca_file (sim_demo));
          relay_endpoint_set_simulated (endpoint, TRUE);
          relay_probe_plan_add_endpoint (plan, endpoint);
        }

      title = g_strdup (_("Demo: simulated relays"));
      if (repeat == -1)
        repeat = 5;
      /* The relays are raced: each round probes all of them at the same instant. */
      if (concurrency == -1)
        concurrency = (int) relay_sim_demo_get_n_relays (sim_demo);
    }
  else
    {
      const char *env_url = g_getenv (api == RELAY_API_ANTHROPIC_MESSAGES ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL");

      if ((urls == NULL || urls[0] == NULL) && env_url != NULL && env_url[0] != '\0')
        {
          g_strfreev (urls);
          urls = g_new0 (char *, 2);
          urls[0] = g_strdup (env_url);
        }

      if (urls == NULL || urls[0] == NULL)
        {
          usage_error (command, _("no URL given: pass a base URL (e.g. https://api.example.com/v1), "
                                  "set OPENAI_BASE_URL, or try --demo"));
          return RELAY_CLI_EXIT_USAGE;
        }

      for (guint i = 0; urls[i] != NULL; i++)
        {
          g_autoptr(RelayEndpoint) endpoint = NULL;
          g_autofree char *endpoint_name = NULL;
          const char *default_models[] = { "gpt-4o-mini", NULL };

          if (!check_url (urls[i], &error))
            {
              usage_error (command, error->message);
              return RELAY_CLI_EXIT_USAGE;
            }

          if (name != NULL && urls[1] == NULL)
            endpoint_name = g_strdup (name);
          else if (name != NULL)
            endpoint_name = g_strdup_printf ("%s %u", name, i + 1);
          else
            endpoint_name = host_of (urls[i]);

          endpoint = relay_endpoint_new (endpoint_name, urls[i], api);
          if (api == RELAY_API_ANTHROPIC_MESSAGES)
            default_models[0] = "claude-3-5-haiku-latest";
          relay_endpoint_set_models (endpoint, models != NULL ? (const char * const *) models : default_models);
          if (key_env != NULL)
            relay_endpoint_set_key_env (endpoint, key_env);
          if (headers != NULL)
            relay_endpoint_set_headers (endpoint, (const char * const *) headers);
          relay_probe_plan_add_endpoint (plan, endpoint);
        }

      title = g_strdup_printf (_("Probe of %s"), urls[0]);
    }

  if (race)
    {
      GPtrArray *endpoints = relay_probe_plan_get_endpoints (plan);
      guint entrants = 0;

      for (guint i = 0; i < endpoints->len; i++)
        {
          const char * const *m = relay_endpoint_get_models (g_ptr_array_index (endpoints, i));
          entrants += MAX (1, m ? g_strv_length ((char **) m) : 1);
        }

      if (entrants < 2)
        {
          usage_error (command, _("a race needs two or more entrants: give several URLs or models"));
          return RELAY_CLI_EXIT_USAGE;
        }
      /* Every entrant of a round in flight at once: that is what makes it a race. */
      if (concurrency == -1)
        concurrency = (int) entrants;
      if (repeat == -1)
        repeat = 5;
    }

  if (repeat == -1)
    repeat = 1;
  if (concurrency == -1)
    concurrency = 1;

  if (prompt != NULL)
    {
      relay_probe_plan_set_prompt (plan, prompt);
      relay_probe_plan_set_prompt_preset (plan, "custom");
    }
  relay_probe_plan_set_max_tokens (plan, max_tokens);
  relay_probe_plan_set_reasoning_effort (plan, reasoning_effort);
  relay_probe_plan_set_repeat (plan, repeat);
  relay_probe_plan_set_concurrency (plan, concurrency);
  relay_probe_plan_set_rate (plan, rate);
  relay_probe_plan_set_connection (plan, connection);
  relay_probe_plan_set_timeout (plan, timeout);
  if (ca_file != NULL)
    {
      if (!g_file_test (ca_file, G_FILE_TEST_IS_REGULAR))
        {
          g_autofree char *message = g_strdup_printf (_("--ca-file %s: no such file"), ca_file);
          usage_error (command, message);
          return RELAY_CLI_EXIT_USAGE;
        }
      relay_probe_plan_set_ca_file (plan, ca_file);
    }

  relay_session_set_title (session, title);

  relay_prober_set_key_func (prober, _relay_cli_key_func, NULL, NULL);

  loop = g_main_loop_new (NULL, FALSE);
  state.loop = loop;
  state.progress = !quiet && isatty (STDERR_FILENO);
  state.total = 0;
  {
    GPtrArray *endpoints = relay_probe_plan_get_endpoints (plan);

    for (guint i = 0; i < endpoints->len; i++)
      {
        const char * const *m = relay_endpoint_get_models (g_ptr_array_index (endpoints, i));
        state.total += MAX (1, m ? g_strv_length ((char **) m) : 1) * repeat;
      }
  }

  g_signal_connect (prober, "trace-added", G_CALLBACK (on_trace_added), &state);
  g_signal_connect (prober, "trace-finished", G_CALLBACK (on_trace_finished), &state);

  sigint = g_unix_signal_add (SIGINT, on_interrupt, cancellable);
  sigterm = g_unix_signal_add (SIGTERM, on_interrupt, cancellable);

  relay_prober_run_async (prober, plan, session, cancellable, on_run_done, &state);
  g_main_loop_run (loop);

  g_source_remove (sigint);
  g_source_remove (sigterm);

  if (state.error != NULL && !g_error_matches (state.error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_printerr (_("The probe run failed: %s\n"), state.error->message);
  else if (state.error != NULL)
    g_printerr (_("Stopped; reporting the probes that ran.\n"));

  if (race && json)
    {
      /* One JSON document on stdout: the ranking; the table's figures are in the session. */
      g_autoptr(GPtrArray) overruns = budget ? relay_budget_check (budget, session) : NULL;
      g_autofree char *errors = relay_cli_format_errors (session);

      _relay_cli_print_race (session, race_metric, TRUE);
      for (guint i = 0; overruns != NULL && i < overruns->len; i++)
        g_printerr ("%s\n", (const char *) g_ptr_array_index (overruns, i));
      status = errors != NULL ? RELAY_CLI_EXIT_PROBE_FAILED
             : overruns != NULL && overruns->len > 0 ? RELAY_CLI_EXIT_BUDGET
             : RELAY_CLI_EXIT_OK;
    }
  else
    {
      status = report (session, budget, json);
      if (race)
        {
          g_print ("\n");
          _relay_cli_print_race (session, race_metric, FALSE);
        }
    }

  if (output != NULL && write_session (session, output) < 0)
    status = RELAY_CLI_EXIT_PROBE_FAILED;
  if (prometheus != NULL && !_relay_cli_write_prometheus (session, prometheus))
    status = RELAY_CLI_EXIT_PROBE_FAILED;

  g_clear_error (&state.error);
  (void) now;

  return status;
}

static int
cmd_show (int    argc,
          char **argv)
{
  g_autofree char *budget_file = NULL;
  g_auto(GStrv) files = NULL;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the summary as JSON"), NULL },
    { "budget", 0, 0, G_OPTION_ARG_FILENAME, &budget_file, N_("Latency budget to check (exit status 3 when exceeded)"), "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("FILE.relayscope") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE.relayscope — print a saved session's summary"));
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(RelayBudget) budget = NULL;
  g_autoptr(GFile) file = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      usage_error ("show", error->message);
      return RELAY_CLI_EXIT_USAGE;
    }

  if (files == NULL || files[0] == NULL || files[1] != NULL)
    {
      usage_error ("show", _("give exactly one session file"));
      return RELAY_CLI_EXIT_USAGE;
    }

  if (budget_file != NULL)
    {
      g_autoptr(GFile) bfile = g_file_new_for_commandline_arg (budget_file);

      budget = relay_budget_load (bfile, &error);
      if (budget == NULL)
        {
          usage_error ("show", error->message);
          return RELAY_CLI_EXIT_USAGE;
        }
    }

  file = g_file_new_for_commandline_arg (files[0]);
  session = relay_session_load (file, NULL, &error);
  if (session == NULL)
    {
      g_printerr (_("Cannot open %s: %s\n"), files[0], error->message);
      return RELAY_CLI_EXIT_USAGE;
    }

  if (!json)
    {
      g_autofree char *created = NULL;
      GDateTime *dt = relay_session_get_created (session);

      if (dt != NULL)
        created = g_date_time_format (dt, "%Y-%m-%d %H:%M:%S");
      g_print ("%s\n", relay_session_get_title (session) ? relay_session_get_title (session) : files[0]);
      if (created != NULL)
        g_print (_("Created %s, %u traces\n"), created, g_list_model_get_n_items (relay_session_get_traces (session)));
      if (relay_session_get_notes (session) != NULL && relay_session_get_notes (session)[0] != '\0')
        g_print ("%s\n", relay_session_get_notes (session));
      g_print ("\n");
    }

  return report (session, budget, json);
}

static void
print_usage (void)
{
  g_print ("%s",
           _("Usage:\n"
             "  relayscope-cli probe [URL…] [OPTION…]   probe endpoints and print their latency\n"
             "  relayscope-cli probe --demo             probe simulated relays (no setup needed)\n"
             "  relayscope-cli race URL URL… [OPTION…]  race endpoints round by round and rank them\n"
             "  relayscope-cli show FILE.relayscope     print a saved session's summary\n"
             "  relayscope-cli compare A B              compare two sessions stage by stage\n"
             "  relayscope-cli compare S --a X --b Y    compare two endpoints or runs of a session\n"
             "  relayscope-cli check S --budget FILE    check a session against a latency budget\n"
             "  relayscope-cli export S --format F -o OUT  HAR, CSV, JSON lines, PDF, PNG or SVG\n"
             "  relayscope-cli curl S --trace N         print a probe's request as a curl command\n"
             "  relayscope-cli experiment NAME URL…     run a guided experiment and explain it\n"
             "\n"
             "“relayscope-cli COMMAND --help” lists a command's options.\n"));
}

int
relay_cli_run (int    argc,
               char **argv)
{
  const char *command;

  if (argc < 2)
    {
      print_usage ();
      return RELAY_CLI_EXIT_USAGE;
    }

  command = argv[1];

  if (strcmp (command, "probe") == 0)
    return cmd_probe (argc - 1, argv + 1, FALSE);
  if (strcmp (command, "race") == 0)
    return cmd_probe (argc - 1, argv + 1, TRUE);
  if (strcmp (command, "show") == 0)
    return cmd_show (argc - 1, argv + 1);
  if (strcmp (command, "compare") == 0)
    return _relay_cli_compare (argc - 1, argv + 1);
  if (strcmp (command, "check") == 0)
    return _relay_cli_check (argc - 1, argv + 1);
  if (strcmp (command, "export") == 0)
    return _relay_cli_export (argc - 1, argv + 1);
  if (strcmp (command, "curl") == 0)
    return _relay_cli_curl (argc - 1, argv + 1);
  if (strcmp (command, "experiment") == 0)
    return relay_cli_experiment (argc - 1, argv + 1);
  if (strcmp (command, "--help") == 0 || strcmp (command, "-h") == 0 || strcmp (command, "help") == 0)
    {
      print_usage ();
      return RELAY_CLI_EXIT_OK;
    }
  if (strcmp (command, "--version") == 0)
    {
      g_print ("relayscope-cli %s\n", PACKAGE_VERSION);
      return RELAY_CLI_EXIT_OK;
    }

  g_printerr (_("relayscope-cli: unknown command “%s”\n"), command);
  print_usage ();
  return RELAY_CLI_EXIT_USAGE;
}
