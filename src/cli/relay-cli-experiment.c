/* relay-cli-experiment.c: "relayscope-cli experiment NAME": runs a guided experiment, prints
 * its plain-language result, a text chart and the findings, and saves the session.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "relay-cli.h"
#include "relay-cli-experiment.h"
#include "relay-cli-private.h"
#include "relay-experiment.h"
#include "relay-findings.h"
#include "relay-prober.h"
#include "relay-sim-demo.h"


typedef struct
{
  GMainLoop             *loop;
  RelayExperimentResult *result;
  GError                *error;
  guint                  finished;
  guint                  total;
  gboolean               progress;
} RunState;

static void
usage_error (const char *message)
{
  g_printerr ("relayscope-cli experiment: %s\n", message);
  g_printerr ("%s\n", _("Try “relayscope-cli experiment --help”."));
}

static void
print_list (void)
{
  g_print ("%s\n", _("Usage:\n"
                     "  relayscope-cli experiment NAME URL… [OPTION…]   run an experiment\n"
                     "  relayscope-cli experiment NAME --demo           run it against simulated relays\n"
                     "  relayscope-cli experiment show FILE.relayscope  explain a saved experiment\n"
                     "\n"
                     "Experiments:"));
  for (guint i = 0; i < RELAY_N_EXPERIMENTS; i++)
    {
      g_print ("  %-14s %s\n", relay_experiment_kind_to_string (i), relay_experiment_kind_get_title (i));
      g_print ("  %-14s %s\n", "", relay_experiment_kind_get_description (i));
    }
  g_print ("\n%s\n", _("“relayscope-cli experiment NAME --help” lists the options."));
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
check_url (const char *url)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  const char *scheme;

  return uri != NULL && (scheme = g_uri_get_scheme (uri)) != NULL &&
         (g_ascii_strcasecmp (scheme, "http") == 0 || g_ascii_strcasecmp (scheme, "https") == 0) &&
         g_uri_get_host (uri) != NULL && g_uri_get_host (uri)[0] != '\0';
}

/* "100,1000,2000" → numbers; FALSE on anything else. */
static gboolean
parse_list (const char  *text,
            GArray     **out)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *part = g_strstrip (parts[i]);
      guint64 value;
      guint number;

      if (!g_ascii_string_to_unsigned (part, 10, 1, G_MAXUINT, &value, NULL))
        return FALSE;
      number = (guint) value;
      g_array_append_val (values, number);
    }

  if (values->len == 0)
    return FALSE;

  *out = g_steal_pointer (&values);
  return TRUE;
}

static void
on_trace_finished (RelayProber *prober,
                   RelayTrace  *trace,
                   RunState    *state)
{
  state->finished++;
  if (state->progress)
    {
      g_printerr ("\r%s %u/%u", _("Probing…"), state->finished, state->total);
      if (state->finished >= state->total)
        g_printerr ("\r\033[K");
    }
}

static void
on_done (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  RunState *state = user_data;

  state->result = relay_experiment_run_finish (RELAY_EXPERIMENT (object), result, &state->error);
  g_main_loop_quit (state->loop);
}

static gboolean
on_interrupt (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_CONTINUE;
}

/* Prints the result and the findings; returns the exit status for the probes. */
static int
report (RelaySession          *session,
        RelayExperimentResult *result,
        gboolean               json)
{
  g_autoptr(GPtrArray) findings = relay_findings_analyze (session);
  g_autofree char *errors = relay_cli_format_errors (session);

  if (json)
    {
      g_autoptr(JsonBuilder) b = json_builder_new ();
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "experiment");
      if (result != NULL)
        json_builder_add_value (b, relay_experiment_result_to_json (result));
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "findings");
      json_builder_add_value (b, relay_findings_to_json (findings));
      json_builder_set_member_name (b, "traces");
      json_builder_add_int_value (b, g_list_model_get_n_items (relay_session_get_traces (session)));
      json_builder_end_object (b);

      root = json_builder_get_root (b);
      json_generator_set_root (generator, root);
      json_generator_set_pretty (generator, TRUE);
      text = json_generator_to_data (generator, NULL);
      g_print ("%s\n", text);
    }
  else
    {
      g_autofree char *findings_text = relay_findings_format_text (findings);

      if (result != NULL)
        {
          g_autofree char *text = relay_experiment_result_format_text (result);

          g_print ("%s", text);
        }
      if (errors != NULL)
        g_print ("\n%s\n%s", _("Failed probes:"), errors);
      g_print ("\n%s", findings_text);
    }

  return errors != NULL ? RELAY_CLI_EXIT_PROBE_FAILED : RELAY_CLI_EXIT_OK;
}

static int
cmd_show (int    argc,
          char **argv)
{
  g_auto(GStrv) files = NULL;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the result and findings as JSON"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("FILE.relayscope") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE.relayscope — explain a saved experiment"));
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(RelayExperimentResult) result = NULL;
  g_autoptr(GFile) file = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      usage_error (error->message);
      return RELAY_CLI_EXIT_USAGE;
    }
  if (files == NULL || files[0] == NULL || files[1] != NULL)
    {
      usage_error (_("give exactly one session file"));
      return RELAY_CLI_EXIT_USAGE;
    }

  file = g_file_new_for_commandline_arg (files[0]);
  session = relay_session_load (file, NULL, &error);
  if (session == NULL)
    {
      g_printerr (_("Cannot open %s: %s\n"), files[0], error->message);
      return RELAY_CLI_EXIT_USAGE;
    }

  result = relay_experiment_analyze (session, &error);
  if (result == NULL)
    {
      g_printerr ("%s: %s\n", files[0], error->message);
      return RELAY_CLI_EXIT_USAGE;
    }

  return report (session, result, json);
}

/* Demo mode: the simulated relays that show each experiment's effect, with per-request
 * overrides where no relay shows it by itself (saved in the endpoint, in plain sight). */
static gboolean
add_demo_endpoints (RelayExperiment     *experiment,
                    RelayExperimentKind  kind,
                    RelaySimDemo        *demo,
                    const char * const  *models)
{
  for (guint i = 0; i < relay_sim_demo_get_n_relays (demo); i++)
    {
      const RelaySimDemoRelay *relay = relay_sim_demo_get_relay (demo, i);
      g_autoptr(RelayEndpoint) endpoint = NULL;
      const char *relay_models[] = { relay->model, NULL };
      const char *profile = NULL;
      const char *header = NULL;
      RelayApi api = RELAY_API_OPENAI_CHAT;

      switch (kind)
        {
        case RELAY_EXPERIMENT_COLD_WARM:
        case RELAY_EXPERIMENT_PROMPT_LENGTH:
        case RELAY_EXPERIMENT_PROMPT_CACHE:
          /* Slow DNS, visible prefill and a prompt cache. */
          profile = "congested";
          header = "X-Relayscope-Sim: stall_probability=0";
          break;
        case RELAY_EXPERIMENT_CONCURRENCY:
          profile = "fast";
          header = "X-Relayscope-Sim: queue_ms_per_active=60";
          break;
        case RELAY_EXPERIMENT_MODELS:
          profile = "reasoning";
          header = "X-Relayscope-Sim: model=, model_ttft_ms=sim-small-1:60|sim-large-1:320, "
                   "effort_reasoning_tokens=low:8|medium:32|high:96";
          break;
        case RELAY_EXPERIMENT_RACE:
        case RELAY_N_EXPERIMENTS:
        default:
          break;
        }

      if (profile != NULL && g_strcmp0 (relay->profile, profile) != 0)
        continue;

      relay_api_from_string (relay->api, &api);
      endpoint = relay_endpoint_new (relay->name, relay->base_url, api);
      relay_endpoint_set_models (endpoint, models != NULL ? models : relay_models);
      relay_endpoint_set_ca_file (endpoint, relay_sim_demo_get_ca_file (demo));
      relay_endpoint_set_simulated (endpoint, TRUE);
      if (header != NULL)
        {
          const char *headers[] = { header, NULL };

          relay_endpoint_set_headers (endpoint, headers);
        }
      relay_experiment_add_endpoint (experiment, endpoint);
    }

  return relay_experiment_get_endpoints (experiment)->len > 0;
}

int
relay_cli_experiment (int    argc,
                      char **argv)
{
  g_autofree char *api_name = NULL;
  g_auto(GStrv) models = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *key_env = NULL;
  g_autofree char *ca_file = NULL;
  g_autofree char *output = NULL;
  g_autofree char *reasoning_effort = NULL;
  g_autofree char *name = NULL;
  g_autofree char *lengths_text = NULL;
  g_autofree char *levels_text = NULL;
  g_autofree char *efforts_text = NULL;
  g_auto(GStrv) headers = NULL;
  g_auto(GStrv) urls = NULL;
  int max_tokens = 0;
  int repeat = 0;
  int prefix_tokens = 0;
  double timeout = 60;
  gboolean json = FALSE;
  gboolean demo = FALSE;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
    { "api", 0, 0, G_OPTION_ARG_STRING, &api_name, N_("API dialect: openai-chat (default) or anthropic-messages"), "API" },
    { "model", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &models, N_("Model to probe (repeat to compare several with “models”)"), "MODEL" },
    { "prompt", 'p', 0, G_OPTION_ARG_STRING, &prompt, N_("The prompt, where the experiment does not make its own"), "TEXT" },
    { "max-tokens", 0, 0, G_OPTION_ARG_INT, &max_tokens, N_("Maximum output tokens (default 16; 64 for concurrency)"), "N" },
    { "reasoning-effort", 0, 0, G_OPTION_ARG_STRING, &reasoning_effort, N_("low, medium or high, for every probe"), "EFFORT" },
    { "repeat", 'n', 0, G_OPTION_ARG_INT, &repeat, N_("Rounds of each step (default: the experiment’s own)"), "N" },
    { "key-env", 0, 0, G_OPTION_ARG_STRING, &key_env, N_("Environment variable holding the API key"), "VAR" },
    { "header", 'H', 0, G_OPTION_ARG_STRING_ARRAY, &headers, N_("Extra request header (repeatable)"), "“NAME: VALUE”" },
    { "ca-file", 0, 0, G_OPTION_ARG_FILENAME, &ca_file, N_("Also trust the CA certificates in this PEM file"), "PEM" },
    { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout, N_("Seconds a probe may take (default 60, 0 for none)"), "S" },
    { "lengths", 0, 0, G_OPTION_ARG_STRING, &lengths_text, N_("prompt-length: prompt sizes in tokens (default 100,1000,2000,4000,8000,16000)"), "N,N,…" },
    { "prefix-tokens", 0, 0, G_OPTION_ARG_INT, &prefix_tokens, N_("prompt-cache: tokens in the repeated prefix (default 2048)"), "N" },
    { "levels", 0, 0, G_OPTION_ARG_STRING, &levels_text, N_("concurrency: levels (default 1,2,4,8)"), "N,N,…" },
    { "efforts", 0, 0, G_OPTION_ARG_STRING, &efforts_text, N_("models: reasoning efforts to compare (e.g. low,medium,high)"), "E,E,…" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Save the session, with the experiment, to this file"), "FILE.relayscope" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &name, N_("Endpoint name (default: the host)"), "NAME" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the result and findings as JSON"), NULL },
    { "demo", 0, 0, G_OPTION_ARG_NONE, &demo, N_("Run against simulated relays started in-process"), NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, N_("No progress on stderr"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &urls, NULL, N_("URL…") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySimDemo) sim_demo = NULL;
  g_autoptr(RelayExperiment) experiment = NULL;
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayProber) prober = relay_prober_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GArray) lengths = NULL;
  g_autoptr(GArray) levels = NULL;
  g_auto(GStrv) efforts = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *parameter = NULL;
  RelayExperimentKind kind;
  RelayApi api = RELAY_API_OPENAI_CHAT;
  RunState state = { 0 };
  guint sigint, sigterm;
  int option_argc;
  char **option_argv;
  int status;

  if (argc < 2)
    {
      print_list ();
      return RELAY_CLI_EXIT_USAGE;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "list") == 0)
    {
      print_list ();
      return RELAY_CLI_EXIT_OK;
    }
  if (strcmp (argv[1], "show") == 0)
    return cmd_show (argc - 1, argv + 1);
  if (!relay_experiment_kind_from_string (argv[1], &kind))
    {
      g_autofree char *message = g_strdup_printf (_("unknown experiment “%s”"), argv[1]);

      usage_error (message);
      return RELAY_CLI_EXIT_USAGE;
    }

  parameter = g_strdup_printf (_("%s [URL…] — %s"), relay_experiment_kind_to_string (kind),
                               relay_experiment_kind_get_title (kind));
  context = g_option_context_new (parameter);
  summary = g_strdup_printf ("%s\n\n%s", relay_experiment_kind_get_description (kind),
                             _("URL is the base URL as SDKs take it (…/v1 for openai-chat, the host root "
                               "for anthropic-messages); the race takes two or more. The result is "
                               "followed by the findings of every probe. Exit status: 0 all probes "
                               "succeeded, 1 a probe failed, 2 usage error."));
  g_option_context_set_summary (context, summary);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);

  /* argv[1] is the experiment's name: parse the rest as its options, with argv[0] before. */
  argv[1] = argv[0];
  option_argc = argc - 1;
  option_argv = argv + 1;
  if (!g_option_context_parse (context, &option_argc, &option_argv, &error))
    {
      usage_error (error->message);
      return RELAY_CLI_EXIT_USAGE;
    }

  if (api_name != NULL && !relay_api_from_string (api_name, &api))
    {
      usage_error (_("--api must be openai-chat or anthropic-messages"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if (reasoning_effort != NULL &&
      !g_strv_contains ((const char * const[]) { "low", "medium", "high", NULL }, reasoning_effort))
    {
      usage_error (_("--reasoning-effort must be low, medium or high"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if (max_tokens < 0 || repeat < 0 || prefix_tokens < 0 || timeout < 0)
    {
      usage_error (_("--max-tokens, --repeat, --prefix-tokens and --timeout must not be negative"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if ((lengths_text != NULL && kind != RELAY_EXPERIMENT_PROMPT_LENGTH) ||
      (prefix_tokens > 0 && kind != RELAY_EXPERIMENT_PROMPT_CACHE) ||
      (levels_text != NULL && kind != RELAY_EXPERIMENT_CONCURRENCY) ||
      (efforts_text != NULL && kind != RELAY_EXPERIMENT_MODELS))
    {
      usage_error (_("--lengths is for prompt-length, --prefix-tokens for prompt-cache, --levels for "
                     "concurrency and --efforts for models"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if (lengths_text != NULL && !parse_list (lengths_text, &lengths))
    {
      usage_error (_("--lengths must be numbers separated by commas, e.g. 100,1000,4000"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if (levels_text != NULL && !parse_list (levels_text, &levels))
    {
      usage_error (_("--levels must be numbers separated by commas, e.g. 1,2,4,8"));
      return RELAY_CLI_EXIT_USAGE;
    }
  if (efforts_text != NULL)
    {
      efforts = g_strsplit (efforts_text, ",", -1);
      for (guint i = 0; efforts[i] != NULL; i++)
        {
          g_strstrip (efforts[i]);
          if (!g_strv_contains ((const char * const[]) { "minimal", "low", "medium", "high", NULL }, efforts[i]))
            {
              usage_error (_("--efforts must name minimal, low, medium or high, separated by commas"));
              return RELAY_CLI_EXIT_USAGE;
            }
        }
    }
  for (guint i = 0; headers != NULL && headers[i] != NULL; i++)
    {
      if (strchr (headers[i], ':') == NULL)
        {
          g_autofree char *message = g_strdup_printf (_("--header “%s” must look like “Name: value”"), headers[i]);

          usage_error (message);
          return RELAY_CLI_EXIT_USAGE;
        }
    }
  if (ca_file != NULL && !g_file_test (ca_file, G_FILE_TEST_IS_REGULAR))
    {
      g_autofree char *message = g_strdup_printf (_("--ca-file %s: no such file"), ca_file);

      usage_error (message);
      return RELAY_CLI_EXIT_USAGE;
    }

  experiment = relay_experiment_new (kind);

  if (demo)
    {
      const char *demo_models[] = { "sim-small-1", "sim-large-1", NULL };
      static const char * const demo_efforts[] = { "low", "high", NULL };
      static const guint demo_lengths[] = { 100, 1000, 2000, 4000 };

      if (urls != NULL && urls[0] != NULL)
        {
          usage_error (_("--demo runs against the simulated relays; give no URL with it"));
          return RELAY_CLI_EXIT_USAGE;
        }

      sim_demo = relay_sim_demo_start (&error);
      if (sim_demo == NULL)
        {
          g_printerr (_("Could not start the simulated relays: %s\n"), error->message);
          return RELAY_CLI_EXIT_PROBE_FAILED;
        }

      add_demo_endpoints (experiment, kind, sim_demo,
                          kind == RELAY_EXPERIMENT_MODELS
                            ? (models != NULL ? (const char * const *) models : demo_models)
                            : NULL);
      if (kind == RELAY_EXPERIMENT_MODELS && efforts == NULL)
        relay_experiment_set_efforts (experiment, demo_efforts);
      if (kind == RELAY_EXPERIMENT_MODELS && repeat == 0)
        repeat = 2;
      if (kind == RELAY_EXPERIMENT_PROMPT_LENGTH && lengths == NULL)
        relay_experiment_set_prompt_lengths (experiment, demo_lengths, G_N_ELEMENTS (demo_lengths));
    }
  else
    {
      const char *env_url = g_getenv (api == RELAY_API_ANTHROPIC_MESSAGES ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL");
      const char *default_models[] = { api == RELAY_API_ANTHROPIC_MESSAGES ? "claude-3-5-haiku-latest" : "gpt-4o-mini", NULL };

      if ((urls == NULL || urls[0] == NULL) && env_url != NULL && env_url[0] != '\0')
        {
          g_strfreev (urls);
          urls = g_new0 (char *, 2);
          urls[0] = g_strdup (env_url);
        }
      if (urls == NULL || urls[0] == NULL)
        {
          usage_error (_("no URL given: pass a base URL (e.g. https://api.example.com/v1), set "
                         "OPENAI_BASE_URL, or try --demo"));
          return RELAY_CLI_EXIT_USAGE;
        }

      for (guint i = 0; urls[i] != NULL; i++)
        {
          g_autoptr(RelayEndpoint) endpoint = NULL;
          g_autofree char *endpoint_name = NULL;

          if (!check_url (urls[i]))
            {
              g_autofree char *message = g_strdup_printf (_("“%s” is not an http:// or https:// base URL"), urls[i]);

              usage_error (message);
              return RELAY_CLI_EXIT_USAGE;
            }

          if (name != NULL && urls[1] == NULL)
            endpoint_name = g_strdup (name);
          else if (name != NULL)
            endpoint_name = g_strdup_printf ("%s %u", name, i + 1);
          else
            endpoint_name = host_of (urls[i]);

          endpoint = relay_endpoint_new (endpoint_name, urls[i], api);
          relay_endpoint_set_models (endpoint, models != NULL ? (const char * const *) models : default_models);
          if (key_env != NULL)
            relay_endpoint_set_key_env (endpoint, key_env);
          if (headers != NULL)
            relay_endpoint_set_headers (endpoint, (const char * const *) headers);
          relay_experiment_add_endpoint (experiment, endpoint);
        }
    }

  if (prompt != NULL)
    relay_experiment_set_prompt (experiment, prompt);
  if (max_tokens > 0)
    relay_experiment_set_max_tokens (experiment, max_tokens);
  relay_experiment_set_timeout (experiment, timeout);
  relay_experiment_set_ca_file (experiment, ca_file);
  relay_experiment_set_reasoning_effort (experiment, reasoning_effort);
  relay_experiment_set_repeat (experiment, repeat);
  if (lengths != NULL)
    relay_experiment_set_prompt_lengths (experiment, (const guint *) (gpointer) lengths->data, lengths->len);
  if (prefix_tokens > 0)
    relay_experiment_set_prefix_tokens (experiment, prefix_tokens);
  if (levels != NULL)
    relay_experiment_set_concurrency_levels (experiment, (const guint *) (gpointer) levels->data, levels->len);
  if (efforts != NULL)
    relay_experiment_set_efforts (experiment, (const char * const *) efforts);

  if (!relay_experiment_prepare (experiment, &error))
    {
      usage_error (error->message);
      return RELAY_CLI_EXIT_USAGE;
    }

  {
    g_autofree char *title = g_strdup_printf (_("Experiment: %s"), relay_experiment_kind_get_title (kind));

    relay_session_set_title (session, title);
  }

  relay_prober_set_key_func (prober, _relay_cli_key_func, NULL, NULL);

  loop = g_main_loop_new (NULL, FALSE);
  state.loop = loop;
  state.total = relay_experiment_get_n_probes (experiment);
  state.progress = !quiet && isatty (STDERR_FILENO);
  g_signal_connect (prober, "trace-finished", G_CALLBACK (on_trace_finished), &state);

  sigint = g_unix_signal_add (SIGINT, on_interrupt, cancellable);
  sigterm = g_unix_signal_add (SIGTERM, on_interrupt, cancellable);

  relay_experiment_run_async (experiment, prober, session, cancellable, on_done, &state);
  g_main_loop_run (loop);

  g_source_remove (sigint);
  g_source_remove (sigterm);

  if (state.error != NULL)
    {
      if (g_error_matches (state.error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_printerr ("%s\n", _("Stopped; explaining the probes that ran."));
      else
        g_printerr (_("The experiment failed: %s\n"), state.error->message);
      /* The steps that ran were saved: explain them. */
      state.result = relay_experiment_analyze (session, NULL);
    }

  status = report (session, state.result, json);
  if (state.error != NULL)
    status = RELAY_CLI_EXIT_PROBE_FAILED;

  if (output != NULL)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (output);

      g_clear_error (&error);
      if (!relay_session_save (session, file, NULL, &error))
        {
          g_printerr (_("Could not save the session: %s\n"), error->message);
          status = RELAY_CLI_EXIT_PROBE_FAILED;
        }
    }

  g_clear_pointer (&state.result, relay_experiment_result_unref);
  g_clear_error (&state.error);

  return status;
}
