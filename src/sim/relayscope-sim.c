/* relayscope-sim.c: runs one simulated relay from the command line and prints its URL.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib-unix.h>
#include <stdio.h>
#include <stdlib.h>

#include "relay-sim-server.h"

static gboolean
quit_cb (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

static int
usage_error (GOptionContext *context,
             const char     *message)
{
  g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

  g_printerr ("relayscope-sim: %s\n\n%s", message, help);
  return 2;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySimServer) server = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autofree char *profile_name = NULL;
  g_autofree char *config = NULL;
  g_autofree char *host = NULL;
  g_autofree char *root = NULL;
  RelaySimProfile profile;
  gboolean tls = FALSE;
  gboolean list = FALSE;
  int port = 0;
  GOptionEntry entries[] = {
    { "port", 'p', 0, G_OPTION_ARG_INT, &port, "Port to listen on (0 picks a free one)", "N" },
    { "tls", 0, 0, G_OPTION_ARG_NONE, &tls, "Serve HTTPS with the built-in test certificate",
      NULL },
    { "profile", 0, 0, G_OPTION_ARG_STRING, &profile_name, "Named profile (default: fast)",
      "NAME" },
    { "config", 0, 0, G_OPTION_ARG_FILENAME, &config, "Profile as a JSON file", "FILE" },
    { "host", 0, 0, G_OPTION_ARG_STRING, &host,
      "Address to listen on (default: 127.0.0.1 and ::1)", "ADDR" },
    { "list-profiles", 0, 0, G_OPTION_ARG_NONE, &list, "List the named profiles and exit",
      NULL },
    { NULL }
  };

  context = g_option_context_new ("- a simulated LLM relay for Relayscope");
  g_option_context_set_summary (context,
                                "Serves OpenAI /v1/chat/completions and /v1/models and "
                                "Anthropic /v1/messages streams\nwith delays and faults set by "
                                "a profile. Prints its base URL on the first line.\nA request "
                                "may override the profile with the header\n"
                                "  X-Relayscope-Sim: ttft_ms=300, fault=http-500");
  g_option_context_add_main_entries (context, entries, NULL);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, error->message);

  if (argc > 1)
    return usage_error (context, "unexpected arguments");

  if (list)
    {
      const char * const *names = relay_sim_profile_list_names ();

      for (guint i = 0; names[i] != NULL; i++)
        g_print ("%s\n", names[i]);
      return 0;
    }

  if (port < 0 || port > G_MAXUINT16)
    return usage_error (context, "--port must be between 0 and 65535");

  if (host != NULL && !g_hostname_is_ip_address (host))
    return usage_error (context, "--host must be an IP address");

  if (profile_name != NULL && config != NULL)
    return usage_error (context, "--profile and --config exclude each other");

  if (config != NULL)
    {
      g_autofree char *json = NULL;

      if (!g_file_get_contents (config, &json, NULL, &error) ||
          !relay_sim_profile_init_from_json (&profile, json, &error))
        {
          g_autofree char *message = g_strdup_printf ("%s: %s", config, error->message);

          return usage_error (context, message);
        }
    }
  else if (!relay_sim_profile_init_named (&profile, profile_name ? profile_name : "fast"))
    {
      g_autofree char *message = g_strdup_printf ("unknown profile “%s” (see --list-profiles)",
                                                  profile_name);

      return usage_error (context, message);
    }

  server = relay_sim_server_new (&profile);
  relay_sim_profile_clear (&profile);

  if (!relay_sim_server_start_on (server, host, port, tls, &error))
    {
      g_printerr ("relayscope-sim: %s\n", error->message);
      return 1;
    }

  root = relay_sim_server_dup_root_url (server, NULL);
  g_print ("%s\n", root);
  fflush (stdout);
  g_printerr ("relayscope-sim: serving; OpenAI clients use %s/v1, Anthropic clients use %s\n",
              root, root);

  loop = g_main_loop_new (NULL, FALSE);
  g_unix_signal_add (SIGINT, quit_cb, loop);
  g_unix_signal_add (SIGTERM, quit_cb, loop);
  g_main_loop_run (loop);

  relay_sim_server_stop (server);

  return 0;
}
