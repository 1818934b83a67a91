/* relay-application.c: the application: its actions, the user's endpoints, demo relays.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
  gboolean        autosaves_checked;
};

G_DEFINE_FINAL_TYPE (RelayApplication, relay_application, ADW_TYPE_APPLICATION)

static RelayWindow *
create_window (RelayApplication *self)
{
  RelayWindow *window = relay_window_new (self);

  return window;
}

/* ---- Restoring work a crash left behind ---- */

/* An autosave is PID-WINDOWID.relayscope; it is an orphan when that process is gone. */
static gboolean
is_orphan (const char *name)
{
  char *end = NULL;
  long pid = strtol (name, &end, 10);

  if (end == name || *end != '-' || pid <= 0 || pid > G_MAXINT)
    return TRUE;
  if (pid == getpid ())
    return FALSE;

  return kill ((pid_t) pid, 0) != 0 && errno == ESRCH;
}

GPtrArray *
relay_application_find_orphan_autosaves (void)
{
  g_autoptr(GFile) dir = relay_window_get_autosave_dir ();
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_object_unref);
  GFileInfo *info;
  GFile *child;

  children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                        G_FILE_QUERY_INFO_NONE, NULL, NULL);
  while (children != NULL &&
         g_file_enumerator_iterate (children, &info, &child, NULL, NULL) &&
         info != NULL)
    {
      const char *name = g_file_info_get_name (info);

      if (g_str_has_suffix (name, ".relayscope") && is_orphan (name))
        g_ptr_array_add (found, g_object_ref (child));
    }

  return g_steal_pointer (&found);
}

typedef struct
{
  RelayApplication *self;
  RelayWindow      *parent;
  GPtrArray        *pending;   /* of GFile, the autosaves still to offer */
  RelaySession     *session;   /* the one being offered, when it could be read */
} RestoreOffer;

static void
restore_offer_free (RestoreOffer *offer)
{
  g_clear_object (&offer->self);
  g_clear_object (&offer->parent);
  g_clear_pointer (&offer->pending, g_ptr_array_unref);
  g_clear_object (&offer->session);
  g_free (offer);
}

static void offer_next (RestoreOffer *offer);

static void
delete_autosave (GFile *autosave)
{
  g_autoptr(GFile) origin = relay_window_dup_autosave_origin_file (autosave);

  g_file_delete (autosave, NULL, NULL);
  g_file_delete (origin, NULL, NULL);
}

static void
restore_response_cb (AdwMessageDialog *dialog,
                     const char       *response,
                     RestoreOffer     *offer)
{
  g_autoptr(GFile) autosave = g_object_ref (g_ptr_array_index (offer->pending, 0));

  g_ptr_array_remove_index (offer->pending, 0);

  if (g_str_equal (response, "discard"))
    delete_autosave (autosave);
  else if (g_str_equal (response, "restore"))
    {
      RelayWindow *target = offer->parent;
      g_autoptr(GError) error = NULL;

      /* An empty window takes the work; one with its own probes keeps them. */
      if (target == NULL ||
          relay_window_get_running (target) ||
          relay_window_get_file (target) != NULL ||
          g_list_model_get_n_items (relay_session_get_traces (relay_window_get_session (target))) > 0)
        {
          target = relay_window_new (offer->self);
          gtk_window_present (GTK_WINDOW (target));
        }

      if (!relay_window_restore_autosave (target, autosave, offer->session, &error))
        {
          GtkWidget *failed = adw_message_dialog_new (GTK_WINDOW (target), _("Cannot Restore the Probes"),
                                                      error->message);

          adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (failed), "close", _("_Close"));
          gtk_window_present (GTK_WINDOW (failed));
        }
    }

  g_clear_object (&offer->session);
  offer_next (offer);
}

static void
offer_next (RestoreOffer *offer)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autofree char *when = NULL;
  g_autofree char *body = NULL;
  GtkWidget *dialog;
  GFile *autosave;

  if (offer->pending->len == 0)
    {
      restore_offer_free (offer);
      return;
    }

  autosave = g_ptr_array_index (offer->pending, 0);
  info = g_file_query_info (autosave, G_FILE_ATTRIBUTE_TIME_MODIFIED, G_FILE_QUERY_INFO_NONE, NULL, NULL);
  if (info != NULL)
    {
      g_autoptr(GDateTime) modified = g_file_info_get_modification_date_time (info);

      if (modified != NULL)
        {
          g_autoptr(GDateTime) local = g_date_time_to_local (modified);

          /* Translators: when an unsaved copy was written, as strftime() formats it */
          when = g_date_time_format (local, _("%Y-%m-%d %H:%M"));
        }
    }

  offer->session = relay_session_load (autosave, NULL, &error);
  if (offer->session != NULL)
    {
      guint n = g_list_model_get_n_items (relay_session_get_traces (offer->session));
      const char *title = relay_session_get_title (offer->session);

      if (title != NULL && title[0] != '\0')
        /* Translators: %s is a session's title, %u a number of probes, the last %s a time */
        body = g_strdup_printf (ngettext ("Relayscope did not close properly. “%s” had %u probe that was not saved; a copy was kept at %s.",
                                          "Relayscope did not close properly. “%s” had %u probes that were not saved; a copy was kept at %s.", n),
                                title, n, when != NULL ? when : "?");
      else
        body = g_strdup_printf (ngettext ("Relayscope did not close properly. %u probe was not saved; a copy was kept at %s.",
                                          "Relayscope did not close properly. %u probes were not saved; a copy was kept at %s.", n),
                                n, when != NULL ? when : "?");
    }
  else
    {
      g_autofree char *path = g_file_get_path (autosave);

      body = g_strdup_printf (_("Relayscope did not close properly and left a copy of unsaved probes, but it cannot be read: %s\n\nIt is kept at %s."),
                              error->message, path);
    }

  dialog = adw_message_dialog_new (offer->parent != NULL ? GTK_WINDOW (offer->parent) : NULL,
                                   _("Restore Unsaved Probes?"), body);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "discard", _("_Discard"));
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard", ADW_RESPONSE_DESTRUCTIVE);
  if (offer->session != NULL)
    {
      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "restore", _("_Restore"));
      adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "restore", ADW_RESPONSE_SUGGESTED);
      adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "restore");
      adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "later");
    }
  else
    {
      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "later", _("_Keep It"));
      adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "later");
      adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "later");
    }
  g_signal_connect (dialog, "response", G_CALLBACK (restore_response_cb), offer);
  gtk_window_present (GTK_WINDOW (dialog));
}

gboolean
relay_application_offer_restore (RelayApplication *self,
                                 RelayWindow      *parent)
{
  g_autoptr(GPtrArray) orphans = NULL;
  RestoreOffer *offer;

  g_return_val_if_fail (RELAY_IS_APPLICATION (self), FALSE);
  g_return_val_if_fail (parent == NULL || RELAY_IS_WINDOW (parent), FALSE);

  orphans = relay_application_find_orphan_autosaves ();
  if (orphans->len == 0)
    return FALSE;

  offer = g_new0 (RestoreOffer, 1);
  offer->self = g_object_ref (self);
  offer->parent = parent != NULL ? g_object_ref (parent) : NULL;
  offer->pending = g_steal_pointer (&orphans);
  offer_next (offer);

  return TRUE;
}

static void
check_autosaves_once (RelayApplication *self,
                      RelayWindow      *parent)
{
  if (self->autosaves_checked)
    return;

  self->autosaves_checked = TRUE;
  relay_application_offer_restore (self, parent);
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

  check_autosaves_once (self, RELAY_WINDOW (window));
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
      check_autosaves_once (self, window);
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
    /* Application accelerators, so they work wherever the focus is (a details row, the table). */
    { "win.show-view::waterfall", { "<Alt>1", NULL } },
    { "win.show-view::stream", { "<Alt>2", NULL } },
    { "win.show-view::table", { "<Alt>3", NULL } },
    { "win.show-view::details", { "<Alt>4", NULL } },
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
