/* relay-application.c: the application: its actions, the user's endpoints, demo relays.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "relay-application.h"
#include "relay-endpoint-store.h"
#include "relay-window.h"

struct _RelayApplication
{
  AdwApplication  parent_instance;

  GListStore     *endpoints;
  RelaySimDemo   *demo;
  gboolean        start_demo;
};

G_DEFINE_FINAL_TYPE (RelayApplication, relay_application, ADW_TYPE_APPLICATION)

static RelayWindow *
create_window (RelayApplication *self)
{
  RelayWindow *window = relay_window_new (self);

  return window;
}

static void
relay_application_activate (GApplication *app)
{
  RelayApplication *self = RELAY_APPLICATION (app);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (create_window (self));

  gtk_window_present (window);

  if (self->start_demo)
    {
      self->start_demo = FALSE;
      relay_window_start_demo (RELAY_WINDOW (window), 3, 2);
    }
}

static void
relay_application_open (GApplication  *app,
                        GFile        **files,
                        int            n_files,
                        const char    *hint)
{
  RelayApplication *self = RELAY_APPLICATION (app);

  for (int i = 0; i < n_files; i++)
    {
      RelayWindow *window = create_window (self);

      gtk_window_present (GTK_WINDOW (window));
      relay_window_open_file (window, files[i]);
    }
}

static int
relay_application_handle_local_options (GApplication *app,
                                        GVariantDict *options)
{
  RelayApplication *self = RELAY_APPLICATION (app);

  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("%s %s\n", PACKAGE_NAME, PACKAGE_VERSION);
      return 0;
    }

  if (g_variant_dict_contains (options, "demo"))
    self->start_demo = TRUE;

  return G_APPLICATION_CLASS (relay_application_parent_class)->handle_local_options (app, options);
}

static void
relay_application_startup (GApplication *app)
{
  RelayApplication *self = RELAY_APPLICATION (app);
  g_autoptr(GError) error = NULL;
  static const struct {
    const char *action;
    const char *accels[3];
  } accels[] = {
    { "app.quit", { "<Control>q", NULL } },
    { "app.new-window", { "<Control>n", NULL } },
    { "app.shortcuts", { "<Control>question", NULL } },
    { "win.open", { "<Control>o", NULL } },
    { "win.save", { "<Control>s", NULL } },
    { "win.save-as", { "<Control><Shift>s", NULL } },
    { "win.new-session", { "<Control>t", NULL } },
    { "win.add-endpoint", { "<Control><Shift>n", NULL } },
    { "win.export::waterfall-png", { "<Control>e", NULL } },
    { "probe.run", { "<Control>r", "F5", NULL } },
    { "probe.stop", { "Escape", NULL } },
    { "chart.zoom-in", { "<Control>plus", "<Control>equal", NULL } },
    { "chart.zoom-out", { "<Control>minus", NULL } },
    { "chart.zoom-reset", { "<Control>0", NULL } },
    { "window.close", { "<Control>w", NULL } },
  };

  G_APPLICATION_CLASS (relay_application_parent_class)->startup (app);

  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[i].action, accels[i].accels);

  gtk_window_set_default_icon_name (APP_ID);

  if (!relay_endpoint_store_load (self->endpoints, &error))
    g_warning ("Cannot read the saved endpoints: %s", error->message);
}

static void
quit_action (GSimpleAction *action,
             GVariant      *param,
             gpointer       user_data)
{
  GtkApplication *app = user_data;
  GList *windows = g_list_copy (gtk_application_get_windows (app));

  /* Closing through close-request gives each window its chance to ask about unsaved work. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);

  g_list_free (windows);
}

static void
new_window_action (GSimpleAction *action,
                   GVariant      *param,
                   gpointer       user_data)
{
  gtk_window_present (GTK_WINDOW (create_window (RELAY_APPLICATION (user_data))));
}

static void
shortcuts_action (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  if (window != NULL)
    gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL);
}

static void
about_action (GSimpleAction *action,
              GVariant      *param,
              gpointer       user_data)
{
  static const char *developers[] = { "The Relayscope authors", NULL };
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (user_data));
  GtkWidget *about;

  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", window,
                        "application-icon", APP_ID,
                        "application-name", _("Relayscope"),
                        "developer-name", _("The Relayscope authors"),
                        "version", PACKAGE_VERSION,
                        "comments", _("See why an AI API call is slow: a waterfall of every latency stage, from the name lookup to the last streamed token."),
                        "website", "https://github.com/relayscope/relayscope",
                        "issue-url", "https://github.com/relayscope/relayscope/issues",
                        "license-type", GTK_LICENSE_GPL_3_0,
                        "developers", developers,
                        /* Translators: your name(s), one a line */
                        "translator-credits", _("translator-credits"),
                        "copyright", "© 2026 The Relayscope authors",
                        NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static void
relay_application_dispose (GObject *object)
{
  RelayApplication *self = (RelayApplication *)object;

  g_clear_object (&self->endpoints);
  g_clear_pointer (&self->demo, relay_sim_demo_free);

  G_OBJECT_CLASS (relay_application_parent_class)->dispose (object);
}

static void
relay_application_class_init (RelayApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = relay_application_dispose;

  app_class->activate = relay_application_activate;
  app_class->open = relay_application_open;
  app_class->startup = relay_application_startup;
  app_class->handle_local_options = relay_application_handle_local_options;
}

static void
relay_application_init (RelayApplication *self)
{
  static const GActionEntry actions[] = {
    { "quit", quit_action },
    { "about", about_action },
    { "shortcuts", shortcuts_action },
    { "new-window", new_window_action },
  };
  static const GOptionEntry options[] = {
    { "demo", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Start the simulated demo relays and probe them"), NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Show the version"), NULL },
    { NULL }
  };

  self->endpoints = g_list_store_new (RELAY_TYPE_ENDPOINT);

  g_action_map_add_action_entries (G_ACTION_MAP (self), actions, G_N_ELEMENTS (actions), self);
  g_application_add_main_option_entries (G_APPLICATION (self), options);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[FILE.relayscope…]"));
}

RelayApplication *
relay_application_new (void)
{
  return g_object_new (RELAY_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/io/github/relayscope/Relayscope",
                       NULL);
}

GListStore *
relay_application_get_endpoints (RelayApplication *self)
{
  g_return_val_if_fail (RELAY_IS_APPLICATION (self), NULL);

  return self->endpoints;
}

gboolean
relay_application_save_endpoints (RelayApplication  *self,
                                  GError           **error)
{
  g_return_val_if_fail (RELAY_IS_APPLICATION (self), FALSE);

  return relay_endpoint_store_save (G_LIST_MODEL (self->endpoints), error);
}

RelaySimDemo *
relay_application_ensure_demo (RelayApplication  *self,
                               GError           **error)
{
  g_return_val_if_fail (RELAY_IS_APPLICATION (self), NULL);

  if (self->demo == NULL)
    self->demo = relay_sim_demo_start (error);

  return self->demo;
}

gboolean
relay_application_add_demo_endpoints (RelayApplication  *self,
                                      GError           **error)
{
  RelaySimDemo *demo;
  guint n;

  g_return_val_if_fail (RELAY_IS_APPLICATION (self), FALSE);

  if (!(demo = relay_application_ensure_demo (self, error)))
    return FALSE;

  n = relay_sim_demo_get_n_relays (demo);
  for (guint i = 0; i < n; i++)
    {
      const RelaySimDemoRelay *relay = relay_sim_demo_get_relay (demo, i);
      const char *models[] = { relay->model, NULL };
      g_autoptr(RelayEndpoint) endpoint = NULL;
      RelayApi api = RELAY_API_OPENAI_CHAT;
      guint pos;

      relay_api_from_string (relay->api, &api);
      endpoint = relay_endpoint_new (relay->name, relay->base_url, api);
      relay_endpoint_set_models (endpoint, models);
      relay_endpoint_set_simulated (endpoint, TRUE);
      relay_endpoint_set_ca_file (endpoint, relay_sim_demo_get_ca_file (demo));

      pos = relay_endpoint_store_find (G_LIST_MODEL (self->endpoints), relay->name);
      if (pos != G_MAXUINT)
        g_list_store_splice (self->endpoints, pos, 1, (gpointer *) &endpoint, 1);
      else
        g_list_store_append (self->endpoints, endpoint);
    }

  return TRUE;
}
