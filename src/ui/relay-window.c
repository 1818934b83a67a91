/* relay-window.c: the main window: endpoints, the probe composer and a session's views.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "relay-budget-editor.h"
#include "relay-budget-view.h"
#include "relay-compare-window.h"
#include "relay-endpoint-editor.h"
#include "relay-endpoint-store.h"
#include "relay-experiment-dialog.h"
#include "relay-findings-view.h"
#include "relay-export.h"
#include "relay-har.h"
#include "relay-prober.h"
#include "relay-report.h"
#include "relay-window.h"

#define SESSION_SUFFIX ".relayscope"
#define SESSION_MIME_TYPE "application/x-relayscope-session"
#define AUTOSAVE_INTERVAL_S 30
#define DEFAULT_EXPORT_WIDTH  1600
#define DEFAULT_EXPORT_HEIGHT 900

typedef void (*ContinueFunc) (RelayWindow *self,
                              gpointer     data);

struct _RelayWindow
{
  AdwApplicationWindow  parent_instance;

  GSettings            *settings;
  RelaySession         *session;
  GFile                *file;
  GListStore           *stream_selection;

  RelayProber          *prober;
  RelayExperiment      *experiment;
  guint                 experiment_step;
  guint                 experiment_n_steps;
  GCancellable         *run_cancellable;
  guint                 n_planned;
  guint                 n_finished;
  guint                 n_failed;
  guint                 refresh_id;

  /* Unsaved work is copied here (never to the user's file) so a crash loses nothing. */
  GFile                *autosave_file;
  char                 *restored_origin;  /* the user's file a restored session came from */
  guint                 autosave_id;
  guint                 autosave_pending : 1;
  guint                 close_after_run : 1;
  guint                 closing_confirmed : 1;
  guint                 views_dirty : 1;

  /* Template children, in alphabetical order. */
  GtkToggleButton      *align_start_button;
  RelayBudgetView      *budget_view;
  RelayComposer        *composer;
  GtkListView          *endpoints_list;
  RelayFindingsView    *findings_view;
  AdwLeaflet           *leaflet;
  GtkStack             *main_stack;
  GtkProgressBar       *progress_bar;
  GtkLabel             *progress_label;
  GMenu                *recent_submenu;
  GtkStack             *run_stack;
  GtkStack             *sidebar_stack;
  GtkDropDown          *sort_dropdown;
  GtkToggleButton      *stream_cumulative_button;
  GtkToggleButton      *stream_distribution_button;
  GtkToggleButton      *stream_gaps_button;
  GtkLabel             *stream_scope_label;
  RelayStreamView      *stream_view;
  RelaySummaryTable    *summary_table;
  AdwViewSwitcherBar   *switcher_bar;
  AdwViewSwitcherTitle *switcher_title;
  AdwToastOverlay      *toast_overlay;
  RelayTraceDetails    *trace_details;
  AdwViewStack         *view_stack;
  GtkStack             *waterfall_stack;
  GtkWidget            *waterfall_toolbar;
  RelayWaterfallView   *waterfall_view;
};

enum {
  PROP_0,
  PROP_RUNNING,
  PROP_SESSION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (RelayWindow, relay_window, ADW_TYPE_APPLICATION_WINDOW)

static void set_session (RelayWindow  *self,
                         RelaySession *session,
                         GFile        *file);
static void apply_budget (RelayWindow  *self);
static void remove_autosave       (RelayWindow  *self);
static void mark_autosave_pending (RelayWindow  *self);

static RelayApplication *
get_app (RelayWindow *self)
{
  return RELAY_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
}

static GListModel *
get_endpoints (RelayWindow *self)
{
  RelayApplication *app = get_app (self);

  return app != NULL ? G_LIST_MODEL (relay_application_get_endpoints (app)) : NULL;
}

static void
toast (RelayWindow *self,
       const char  *message)
{
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
}

static void
show_error_dialog (RelayWindow *self,
                   const char  *heading,
                   const char  *message)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, message);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
save_endpoints (RelayWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (get_app (self) != NULL && !relay_application_save_endpoints (get_app (self), &error))
    {
      g_autofree char *message = g_strdup_printf (_("Cannot save the endpoints: %s"), error->message);

      toast (self, message);
    }
}

/* ---- Title, pages and action states ---- */

static char *
dup_display_title (RelayWindow *self)
{
  const char *title = self->session != NULL ? relay_session_get_title (self->session) : NULL;

  if (title != NULL && title[0] != '\0')
    return g_strdup (title);

  if (self->file != NULL)
    {
      g_autofree char *basename = g_file_get_basename (self->file);

      if (g_str_has_suffix (basename, SESSION_SUFFIX))
        basename[strlen (basename) - strlen (SESSION_SUFFIX)] = '\0';
      return g_steal_pointer (&basename);
    }

  return g_strdup (_("Untitled Session"));
}

static void
update_title (RelayWindow *self)
{
  g_autofree char *title = dup_display_title (self);
  g_autofree char *full = NULL;
  g_autofree char *subtitle = NULL;
  gboolean modified = self->session != NULL && relay_session_get_modified (self->session);

  full = modified ? g_strdup_printf ("• %s", title) : g_strdup (title);
  adw_view_switcher_title_set_title (self->switcher_title, full);

  if (self->file != NULL)
    {
      g_autoptr(GFile) parent = g_file_get_parent (self->file);
      g_autofree char *path = parent != NULL ? g_file_get_path (parent) : NULL;
      const char *home = g_get_home_dir ();

      if (path != NULL && home != NULL && g_str_has_prefix (path, home))
        subtitle = g_strconcat ("~", path + strlen (home), NULL);
      else
        subtitle = g_steal_pointer (&path);
    }
  else if (modified)
    subtitle = g_strdup (_("Not saved"));

  adw_view_switcher_title_set_subtitle (self->switcher_title, subtitle != NULL ? subtitle : "");

  /* Translators: the window title, "SESSION — Relayscope" */
  {
    g_autofree char *window_title = g_strdup_printf (_("%s — Relayscope"), full);

    gtk_window_set_title (GTK_WINDOW (self), window_title);
  }
}

static gboolean
session_has_traces (RelayWindow *self)
{
  return self->session != NULL &&
         g_list_model_get_n_items (relay_session_get_traces (self->session)) > 0;
}

/* The bottom switcher stands in for the title's when the window is narrow; the welcome
 * page has no views to switch between. */
static void
update_switcher_bar (RelayWindow *self)
{
  gboolean welcome = g_strcmp0 (gtk_stack_get_visible_child_name (self->main_stack), "welcome") == 0;

  adw_view_switcher_bar_set_reveal (self->switcher_bar,
                                    !welcome && adw_view_switcher_title_get_title_visible (self->switcher_title));
}

static void
update_pages (RelayWindow *self)
{
  GListModel *endpoints = get_endpoints (self);
  guint n_endpoints = endpoints != NULL ? g_list_model_get_n_items (endpoints) : 0;
  gboolean welcome = n_endpoints == 0 && !session_has_traces (self) &&
                     self->run_cancellable == NULL;

  gtk_stack_set_visible_child_name (self->main_stack, welcome ? "welcome" : "session");
  adw_view_switcher_title_set_view_switcher_enabled (self->switcher_title, !welcome);
  update_switcher_bar (self);
  gtk_stack_set_visible_child_name (self->sidebar_stack, n_endpoints > 0 ? "list" : "empty");
  /* An empty session says what to do rather than showing a bare axis. */
  gtk_stack_set_visible_child_name (self->waterfall_stack,
                                    session_has_traces (self) || self->run_cancellable != NULL ? "chart" : "empty");
  gtk_widget_set_sensitive (self->waterfall_toolbar, session_has_traces (self));
}

static void
update_actions (RelayWindow *self)
{
  gboolean running = self->run_cancellable != NULL;
  gboolean has_traces = session_has_traces (self);
  GListModel *endpoints = get_endpoints (self);
  gboolean has_endpoints = endpoints != NULL && g_list_model_get_n_items (endpoints) > 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "probe.run", !running && has_endpoints);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "probe.stop", running);
  /* Nothing measured is nothing to save or draw. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save", has_traces);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-as", has_traces);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export", has_traces);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.copy-picture", has_traces);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.open", !running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.open-recent", !running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-session", !running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.demo", !running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.experiment", !running && has_endpoints);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-data", has_traces);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.copy-curl", has_traces);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.import-har", !running);
  gtk_stack_set_visible_child_name (self->run_stack, running ? "stop" : "run");
}

static gboolean
stream_shows_selection (RelayWindow *self)
{
  /* The distribution compares endpoints, so it always takes every trace. */
  return relay_waterfall_view_get_selected (self->waterfall_view) != NULL &&
         !gtk_toggle_button_get_active (self->stream_distribution_button);
}

static void
update_stream_scope_label (RelayWindow *self)
{
  RelayTrace *selected = relay_waterfall_view_get_selected (self->waterfall_view);
  g_autofree char *text = NULL;

  if (stream_shows_selection (self))
    {
      RelayRun *run = relay_session_get_run (self->session, relay_trace_get_run (selected));

      text = g_strdup_printf (_("Showing %s · %s #%u — click empty space in the waterfall to show every trace"),
                              run != NULL ? relay_run_get_endpoint (run) : "",
                              run != NULL ? relay_run_get_model (run) : "",
                              relay_trace_get_seq (selected));
    }
  else
    {
      guint n = session_has_traces (self) ? g_list_model_get_n_items (relay_session_get_traces (self->session)) : 0;

      if (n == 0)
        text = g_strdup (_("No traces yet"));
      else
        text = g_strdup_printf (ngettext ("Showing the only trace", "Showing all %u traces", n), n);
    }

  gtk_label_set_text (self->stream_scope_label, text);
}

static void
update_stream_scope (RelayWindow *self)
{
  if (stream_shows_selection (self))
    {
      g_list_store_remove_all (self->stream_selection);
      g_list_store_append (self->stream_selection, relay_waterfall_view_get_selected (self->waterfall_view));
      relay_stream_view_set_traces (self->stream_view, G_LIST_MODEL (self->stream_selection), self->session);
    }
  else
    relay_stream_view_set_traces (self->stream_view,
                                  self->session != NULL ? relay_session_get_traces (self->session) : NULL,
                                  self->session);

  update_stream_scope_label (self);
}

/* ---- Session ---- */

static void
session_modified_cb (RelayWindow *self)
{
  update_title (self);
  mark_autosave_pending (self);
}

static void
session_traces_changed_cb (RelayWindow *self)
{
  update_pages (self);
  update_actions (self);
  mark_autosave_pending (self);
}

static void
set_session (RelayWindow  *self,
             RelaySession *session,
             GFile        *file)
{
  g_assert (RELAY_IS_SESSION (session));

  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->session, session_modified_cb, self);
      g_signal_handlers_disconnect_by_func (relay_session_get_traces (self->session),
                                            session_traces_changed_cb, self);
    }

  /* Whoever replaces the session saved or discarded the old one: its copy can go. */
  if (self->session != NULL && self->session != session)
    remove_autosave (self);
  g_clear_pointer (&self->restored_origin, g_free);

  g_set_object (&self->session, session);
  g_set_object (&self->file, file);

  g_signal_connect_swapped (session, "notify::modified", G_CALLBACK (session_modified_cb), self);
  g_signal_connect_swapped (relay_session_get_traces (session), "items-changed",
                            G_CALLBACK (session_traces_changed_cb), self);

  relay_waterfall_view_set_session (self->waterfall_view, session);
  relay_trace_details_set_trace (self->trace_details, NULL, session);
  relay_summary_table_set_session (self->summary_table, session);
  relay_findings_view_set_session (self->findings_view, session);
  apply_budget (self);
  update_stream_scope (self);

  update_title (self);
  update_pages (self);
  update_actions (self);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

static void
add_recent (RelayWindow *self,
            GFile       *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  g_autofree char *path = g_file_get_path (file);
  GtkRecentData data = {
    .display_name = NULL,
    .description = NULL,
    .mime_type = (char *) SESSION_MIME_TYPE,
    .app_name = (char *) "Relayscope",
    .app_exec = (char *) "relayscope %u",
    .groups = NULL,
    .is_private = FALSE,
  };

  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);

  if (self->settings != NULL && path != NULL)
    g_settings_set_string (self->settings, "last-session", path);
}

static void
update_recent_menu (RelayWindow *self)
{
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  guint added = 0;

  g_menu_remove_all (self->recent_submenu);

  for (GList *l = items; l != NULL && added < 10; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      const char *uri = gtk_recent_info_get_uri (info);
      g_autoptr(GMenuItem) item = NULL;

      if (!g_str_has_suffix (uri, SESSION_SUFFIX) || !gtk_recent_info_exists (info))
        continue;

      item = g_menu_item_new (gtk_recent_info_get_display_name (info), NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-recent", g_variant_new_string (uri));
      g_menu_append_item (self->recent_submenu, item);
      added++;
    }

  if (added == 0)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (_("No Recent Sessions"), "win.no-recent");

      g_menu_append_item (self->recent_submenu, item);
    }

  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

gboolean
relay_window_load_file (RelayWindow  *self,
                        GFile        *file,
                        GError      **error)
{
  g_autoptr(RelaySession) session = NULL;

  g_return_val_if_fail (RELAY_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (!(session = relay_session_load (file, NULL, error)))
    return FALSE;

  set_session (self, session, file);
  add_recent (self, file);

  return TRUE;
}

void
relay_window_open_file (RelayWindow *self,
                        GFile       *file)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (RELAY_IS_WINDOW (self));

  if (!relay_window_load_file (self, file, &error))
    {
      g_autofree char *name = g_file_get_basename (file);
      g_autofree char *heading = g_strdup_printf (_("Cannot Open “%s”"), name);
      const char *hint = "";

      if (g_error_matches (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_VERSION))
        hint = _("It was saved by a newer version of Relayscope. ");
      else if (g_error_matches (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_FORMAT))
        hint = _("It is not a Relayscope session. ");
      else if (g_error_matches (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE))
        hint = _("The file is damaged or incomplete. ");

      {
        g_autofree char *message = g_strdup_printf (_("%s%s\n\nThe file was left untouched."), hint, error->message);

        show_error_dialog (self, heading, message);
      }
    }
}

gboolean
relay_window_save_to_file (RelayWindow  *self,
                           GFile        *file,
                           GError      **error)
{
  g_return_val_if_fail (RELAY_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (!relay_session_save (self->session, file, NULL, error))
    return FALSE;

  relay_session_set_modified (self->session, FALSE);
  g_set_object (&self->file, file);
  g_clear_pointer (&self->restored_origin, g_free);
  remove_autosave (self);
  add_recent (self, file);
  update_title (self);

  return TRUE;
}

/* ---- Autosave ---- */

static gboolean
session_is_dirty (RelayWindow *self)
{
  return self->session != NULL && relay_session_get_modified (self->session) && session_has_traces (self);
}

static void
remove_autosave (RelayWindow *self)
{
  g_autoptr(GFile) origin = NULL;

  self->autosave_pending = FALSE;
  if (self->autosave_file == NULL)
    return;

  g_file_delete (self->autosave_file, NULL, NULL);
  origin = relay_window_dup_autosave_origin_file (self->autosave_file);
  g_file_delete (origin, NULL, NULL);
}

gboolean
relay_window_autosave (RelayWindow  *self,
                       GError      **error)
{
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GFile) origin = NULL;
  g_autofree char *dir_path = NULL;
  const char *origin_uri = NULL;
  g_autofree char *owned_uri = NULL;

  g_return_val_if_fail (RELAY_IS_WINDOW (self), FALSE);

  if (self->autosave_file == NULL || !session_is_dirty (self))
    return TRUE;

  /* Private: a session holds the prompts, which may be confidential. */
  dir = g_file_get_parent (self->autosave_file);
  dir_path = g_file_get_path (dir);
  if (g_mkdir_with_parents (dir_path, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("Cannot create the folder “%s”: %s"), dir_path, g_strerror (saved_errno));
      return FALSE;
    }

  /* relay_session_save is atomic, and it marks the session saved: it is not, the user's
   * copy still lacks this work, so the flag goes back up. */
  if (!relay_session_save (self->session, self->autosave_file, NULL, error))
    {
      relay_session_set_modified (self->session, TRUE);
      return FALSE;
    }
  relay_session_set_modified (self->session, TRUE);
  self->autosave_pending = FALSE;

  /* Where the work belongs, so a restored session can be saved back there on purpose. */
  if (self->file != NULL)
    origin_uri = owned_uri = g_file_get_uri (self->file);
  else if (self->restored_origin != NULL)
    origin_uri = self->restored_origin;

  origin = relay_window_dup_autosave_origin_file (self->autosave_file);
  if (origin_uri != NULL)
    g_file_replace_contents (origin, origin_uri, strlen (origin_uri), NULL, FALSE,
                             G_FILE_CREATE_PRIVATE | G_FILE_CREATE_REPLACE_DESTINATION,
                             NULL, NULL, NULL);
  else
    g_file_delete (origin, NULL, NULL);

  return TRUE;
}

static void
autosave_or_warn (RelayWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (!relay_window_autosave (self, &error))
    g_warning ("Cannot autosave the session: %s", error->message);
}

static gboolean
autosave_timeout_cb (gpointer user_data)
{
  RelayWindow *self = user_data;

  if (self->autosave_pending)
    autosave_or_warn (self);

  return G_SOURCE_CONTINUE;
}

static void
mark_autosave_pending (RelayWindow *self)
{
  if (session_is_dirty (self))
    self->autosave_pending = TRUE;
}

GFile *
relay_window_get_autosave_file (RelayWindow *self)
{
  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  return self->autosave_file;
}

GFile *
relay_window_get_autosave_dir (void)
{
  return g_file_new_build_filename (g_get_user_data_dir (), "relayscope", "autosave", NULL);
}

GFile *
relay_window_dup_autosave_origin_file (GFile *autosave)
{
  g_autofree char *path = g_file_get_path (autosave);
  g_autofree char *origin = g_strconcat (path, ".origin", NULL);

  return g_file_new_for_path (origin);
}

gboolean
relay_window_restore_autosave (RelayWindow   *self,
                               GFile         *autosave,
                               RelaySession  *loaded,
                               GError       **error)
{
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(GFile) origin = NULL;
  g_autofree char *origin_uri = NULL;

  g_return_val_if_fail (RELAY_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (autosave), FALSE);
  g_return_val_if_fail (loaded == NULL || RELAY_IS_SESSION (loaded), FALSE);

  if (loaded != NULL)
    session = g_object_ref (loaded);
  else if (!(session = relay_session_load (autosave, NULL, error)))
    return FALSE;

  origin = relay_window_dup_autosave_origin_file (autosave);
  g_file_load_contents (origin, NULL, &origin_uri, NULL, NULL, NULL);

  /* Restored work is unsaved work: no file of its own (the user's file stays as the user
   * left it), modified, and copied to this window's autosave before the old copy goes. */
  set_session (self, session, NULL);
  g_free (self->restored_origin);
  self->restored_origin = g_steal_pointer (&origin_uri);
  relay_session_set_modified (session, TRUE);
  update_title (self);

  if (!g_file_equal (autosave, self->autosave_file))
    {
      if (!relay_window_autosave (self, error))
        return FALSE;
      g_file_delete (autosave, NULL, NULL);
      g_file_delete (origin, NULL, NULL);
    }

  return TRUE;
}

/* ---- Asking before unsaved work is lost ---- */

typedef struct
{
  RelayWindow  *self;
  ContinueFunc  func;
  gpointer      data;
  GDestroyNotify destroy;
} Continuation;

static void
continuation_free (Continuation *c)
{
  if (c->destroy != NULL && c->data != NULL)
    c->destroy (c->data);
  g_object_unref (c->self);
  g_free (c);
}

static void save_as_then (RelayWindow  *self,
                          Continuation *then);

static void
discard_response_cb (AdwMessageDialog *dialog,
                     const char       *response,
                     gpointer          user_data)
{
  Continuation *c = user_data;

  if (g_str_equal (response, "discard"))
    {
      remove_autosave (c->self);
      c->func (c->self, c->data);
      continuation_free (c);
    }
  else if (g_str_equal (response, "save"))
    {
      if (c->self->file != NULL)
        {
          g_autoptr(GError) error = NULL;

          if (relay_window_save_to_file (c->self, c->self->file, &error))
            c->func (c->self, c->data);
          else
            show_error_dialog (c->self, _("Cannot Save the Session"), error->message);
          continuation_free (c);
        }
      else
        save_as_then (c->self, c);
    }
  else
    continuation_free (c);
}

/* Runs func now, or after the user agreed to lose (or saved) unsaved work. */
static void
maybe_discard_then (RelayWindow    *self,
                    ContinueFunc    func,
                    gpointer        data,
                    GDestroyNotify  destroy)
{
  Continuation *c;
  GtkWidget *dialog;
  g_autofree char *title = NULL;
  g_autofree char *body = NULL;

  if (self->session == NULL || !relay_session_get_modified (self->session) || !session_has_traces (self))
    {
      func (self, data);
      if (destroy != NULL && data != NULL)
        destroy (data);
      return;
    }

  c = g_new0 (Continuation, 1);
  c->self = g_object_ref (self);
  c->func = func;
  c->data = data;
  c->destroy = destroy;

  title = dup_display_title (self);
  body = g_strdup_printf (_("“%s” has probes that are not saved. If you go on, they are lost."), title);
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Save the Session?"), body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "discard", _("_Discard"),
                                    "save", _("_Save"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (discard_response_cb), c);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- File choosers ---- */

static GtkFileFilter *
session_filter (void)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Relayscope Sessions"));
  gtk_file_filter_add_pattern (filter, "*" SESSION_SUFFIX);
  gtk_file_filter_add_mime_type (filter, SESSION_MIME_TYPE);

  return filter;
}

static void
save_as_response_cb (GtkNativeDialog *native,
                     int              response,
                     gpointer         user_data)
{
  Continuation *c = user_data;
  RelayWindow *self = c->self;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) chosen = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = g_file_get_path (chosen);
      g_autoptr(GFile) file = NULL;
      g_autoptr(GError) error = NULL;

      if (path != NULL && !g_str_has_suffix (path, SESSION_SUFFIX))
        {
          g_autofree char *with_suffix = g_strconcat (path, SESSION_SUFFIX, NULL);

          file = g_file_new_for_path (with_suffix);
        }
      else
        file = g_object_ref (chosen);

      if (relay_window_save_to_file (self, file, &error))
        {
          toast (self, _("Session saved"));
          if (c->func != NULL)
            c->func (self, c->data);
        }
      else
        show_error_dialog (self, _("Cannot Save the Session"), error->message);
    }

  gtk_native_dialog_destroy (native);
  g_object_unref (native);
  continuation_free (c);
}

static void
save_as_then (RelayWindow  *self,
              Continuation *then)
{
  GtkFileChooserNative *native;
  g_autoptr(GtkFileFilter) filter = session_filter ();
  g_autofree char *title = dup_display_title (self);
  g_autofree char *name = g_strconcat (title, SESSION_SUFFIX, NULL);

  if (then == NULL)
    {
      then = g_new0 (Continuation, 1);
      then->self = g_object_ref (self);
    }

  native = gtk_file_chooser_native_new (_("Save Session"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  if (self->file != NULL)
    gtk_file_chooser_set_file (GTK_FILE_CHOOSER (native), self->file, NULL);
  else if (self->restored_origin != NULL)
    {
      /* Offered, never taken for granted: the user decides whether to replace it. */
      g_autoptr(GFile) origin = g_file_new_for_uri (self->restored_origin);

      gtk_file_chooser_set_file (GTK_FILE_CHOOSER (native), origin, NULL);
    }
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (save_as_response_cb), then);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  RelayWindow *self = RELAY_WINDOW (widget);
  g_autoptr(GError) error = NULL;

  if (self->file == NULL)
    {
      save_as_then (self, NULL);
      return;
    }

  if (relay_window_save_to_file (self, self->file, &error))
    toast (self, _("Session saved"));
  else
    show_error_dialog (self, _("Cannot Save the Session"), error->message);
}

static void
save_as_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  save_as_then (RELAY_WINDOW (widget), NULL);
}

static void
open_response_cb (GtkNativeDialog *native,
                  int              response,
                  RelayWindow     *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));

      relay_window_open_file (self, file);
    }

  gtk_native_dialog_destroy (native);
  g_object_unref (native);
  g_object_unref (self);
}

static void
show_open_dialog (RelayWindow *self,
                  gpointer     data)
{
  GtkFileChooserNative *native;
  g_autoptr(GtkFileFilter) filter = session_filter ();

  native = gtk_file_chooser_native_new (_("Open Session"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (open_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  maybe_discard_then (RELAY_WINDOW (widget), show_open_dialog, NULL, NULL);
}

static void
open_uri_now (RelayWindow *self,
              gpointer     data)
{
  g_autoptr(GFile) file = g_file_new_for_uri (data);

  relay_window_open_file (self, file);
}

static void
open_recent_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  maybe_discard_then (RELAY_WINDOW (widget), open_uri_now,
                      g_variant_dup_string (param, NULL), g_free);
}

static void
new_session_now (RelayWindow *self,
                 gpointer     data)
{
  g_autoptr(RelaySession) session = relay_session_new ();

  set_session (self, session, NULL);
}

static void
new_session_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  maybe_discard_then (RELAY_WINDOW (widget), new_session_now, NULL, NULL);
}

/* ---- Session title and notes ---- */

static void
properties_response_cb (AdwMessageDialog *dialog,
                        const char       *response,
                        RelayWindow      *self)
{
  GtkEditable *title_entry = g_object_get_data (G_OBJECT (dialog), "title-entry");
  GtkTextView *notes_view = g_object_get_data (G_OBJECT (dialog), "notes-view");
  GtkTextBuffer *buffer;
  GtkTextIter begin, end;
  g_autofree char *notes = NULL;

  if (!g_str_equal (response, "apply"))
    return;

  buffer = gtk_text_view_get_buffer (notes_view);
  gtk_text_buffer_get_bounds (buffer, &begin, &end);
  notes = gtk_text_buffer_get_text (buffer, &begin, &end, FALSE);

  if (g_strcmp0 (relay_session_get_title (self->session), gtk_editable_get_text (title_entry)) != 0 ||
      g_strcmp0 (relay_session_get_notes (self->session), notes) != 0)
    {
      relay_session_set_title (self->session, gtk_editable_get_text (title_entry));
      relay_session_set_notes (self->session, notes);
      relay_session_set_modified (self->session, TRUE);
    }

  update_title (self);
}

static void
session_properties_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *param)
{
  RelayWindow *self = RELAY_WINDOW (widget);
  GtkWidget *dialog;
  GtkWidget *box;
  GtkWidget *entry;
  GtkWidget *label;
  GtkWidget *scroller;
  GtkWidget *notes;
  const char *text;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Session Title and Notes"),
                                   _("Saved with the session and shown on exported pictures"));

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);

  entry = gtk_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _("Title"));
  text = relay_session_get_title (self->session);
  gtk_editable_set_text (GTK_EDITABLE (entry), text != NULL ? text : "");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Title"), -1);
  gtk_box_append (GTK_BOX (box), entry);

  label = gtk_label_new_with_mnemonic (_("_Notes"));
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_margin_top (label, 6);
  gtk_widget_add_css_class (label, "heading");
  gtk_box_append (GTK_BOX (box), label);

  notes = gtk_text_view_new ();
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (notes), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (notes), 6);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (notes), 6);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (notes), 6);
  text = relay_session_get_notes (self->session);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (notes)), text != NULL ? text : "", -1);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), notes);

  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroller), 120);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), notes);
  gtk_widget_add_css_class (scroller, "card");
  gtk_box_append (GTK_BOX (box), scroller);

  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), box);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "apply", _("_Apply"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "apply", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "apply");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data (G_OBJECT (dialog), "title-entry", entry);
  g_object_set_data (G_OBJECT (dialog), "notes-view", notes);
  g_signal_connect (dialog, "response", G_CALLBACK (properties_response_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- Running probes ---- */

static gboolean
refresh_views_cb (gpointer user_data)
{
  RelayWindow *self = user_data;
  RelayTrace *shown;

  if (!self->views_dirty)
    return G_SOURCE_CONTINUE;

  self->views_dirty = FALSE;
  relay_stream_view_invalidate (self->stream_view);
  update_stream_scope_label (self);
  shown = relay_trace_details_get_trace (self->trace_details);
  if (shown != NULL && gtk_widget_get_mapped (GTK_WIDGET (self->trace_details)))
    relay_trace_details_refresh (self->trace_details);

  return G_SOURCE_CONTINUE;
}

static void
update_progress (RelayWindow *self)
{
  g_autofree char *text = NULL;

  if (self->run_cancellable == NULL)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->progress_label), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), FALSE);
      return;
    }

  if (self->experiment != NULL && self->experiment_n_steps > 0)
    /* Translators: progress of an experiment, "Step 2 of 5: 4 concurrent streams" */
    text = g_strdup_printf (_("Step %u of %u: %s"), self->experiment_step + 1, self->experiment_n_steps,
                            relay_experiment_get_step_label (self->experiment, self->experiment_step));
  else
    /* Translators: progress of a run, "12 of 24 probes" */
    text = g_strdup_printf (ngettext ("%u of %u probe", "%u of %u probes", self->n_planned),
                            self->n_finished, self->n_planned);
  gtk_label_set_text (self->progress_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->progress_label), TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), TRUE);
  gtk_progress_bar_set_fraction (self->progress_bar,
                                 self->n_planned > 0 ? (double) self->n_finished / self->n_planned : 0);
}

static void
trace_added_cb (RelayProber *prober,
                RelayTrace  *trace,
                RelayWindow *self)
{
  self->views_dirty = TRUE;
}

static void
trace_changed_cb (RelayProber *prober,
                  RelayTrace  *trace,
                  RelayWindow *self)
{
  /* The waterfall follows the frame clock; the rest catches up on the refresh timer. */
  self->views_dirty = TRUE;
}

static void
trace_finished_cb (RelayProber *prober,
                   RelayTrace  *trace,
                   RelayWindow *self)
{
  self->n_finished++;
  if (!relay_trace_is_ok (trace) && relay_trace_get_error_stage (trace) != RELAY_ERROR_STAGE_CANCELLED)
    self->n_failed++;
  self->views_dirty = TRUE;
  mark_autosave_pending (self);
  relay_waterfall_painter_invalidate (relay_waterfall_view_get_painter (self->waterfall_view));
  relay_summary_table_refresh (self->summary_table);
  update_progress (self);
}

/* Tears a run down (plain or experiment); FALSE when the window closed with it. */
static gboolean
end_run (RelayWindow *self)
{
  g_signal_handlers_disconnect_by_data (self->prober, self);
  if (self->experiment != NULL)
    g_signal_handlers_disconnect_by_data (self->experiment, self);
  g_clear_object (&self->experiment);
  g_clear_object (&self->run_cancellable);
  g_clear_object (&self->prober);
  g_clear_handle_id (&self->refresh_id, g_source_remove);

  relay_waterfall_view_set_live (self->waterfall_view, FALSE);
  self->views_dirty = TRUE;
  refresh_views_cb (self);
  relay_summary_table_refresh (self->summary_table);
  update_stream_scope (self);
  update_progress (self);
  update_actions (self);
  update_pages (self);

  relay_findings_view_refresh (self->findings_view);
  relay_budget_view_refresh (self->budget_view);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);

  if (self->close_after_run)
    {
      gtk_window_destroy (GTK_WINDOW (self));
      return FALSE;
    }

  /* A finished run is the work most worth keeping. */
  autosave_or_warn (self);

  return TRUE;
}

static void
run_finished_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(RelayWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean ok = relay_prober_run_finish (RELAY_PROBER (object), result, &error);
  g_autofree char *message = NULL;

  if (!end_run (self))
    return;

  if (!ok && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    message = g_strdup (_("Probes stopped"));
  else if (!ok)
    message = g_strdup_printf (_("The run failed: %s"), error->message);
  else if (self->n_failed > 0)
    message = g_strdup_printf (ngettext ("%u probe finished, %u failed", "%u probes finished, %u failed", self->n_finished),
                               self->n_finished, self->n_failed);
  else
    message = g_strdup_printf (ngettext ("%u probe finished", "%u probes finished", self->n_finished),
                               self->n_finished);

  toast (self, message);
}

static guint
count_planned (RelayProbePlan *plan)
{
  GPtrArray *endpoints = relay_probe_plan_get_endpoints (plan);
  guint n = 0;

  for (guint i = 0; i < endpoints->len; i++)
    {
      const char * const *models = relay_endpoint_get_models (g_ptr_array_index (endpoints, i));
      guint n_models = models != NULL ? g_strv_length ((char **) models) : 0;

      n += MAX (n_models, 1) * relay_probe_plan_get_repeat (plan);
    }

  return n;
}

/* Sets up the prober and the live views for n_planned probes. */
static void
begin_run (RelayWindow *self,
           guint        n_planned)
{
  self->n_planned = n_planned;
  self->n_finished = 0;
  self->n_failed = 0;
  self->run_cancellable = g_cancellable_new ();
  self->prober = relay_prober_new ();
  relay_prober_set_key_func (self->prober, relay_endpoint_store_key_func, NULL, NULL);
  g_signal_connect (self->prober, "trace-added", G_CALLBACK (trace_added_cb), self);
  g_signal_connect (self->prober, "trace-changed", G_CALLBACK (trace_changed_cb), self);
  g_signal_connect (self->prober, "trace-finished", G_CALLBACK (trace_finished_cb), self);

  /* Chunks arrive far faster than anyone reads: refresh the secondary views 10 times a second. */
  self->refresh_id = g_timeout_add (100, refresh_views_cb, self);
  relay_waterfall_view_set_live (self->waterfall_view, TRUE);
  relay_waterfall_view_zoom_reset (self->waterfall_view);
}

/* Shows a run that has begun. */
static void
show_run_started (RelayWindow *self)
{
  update_progress (self);
  update_actions (self);
  update_pages (self);
  adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_FORWARD);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

gboolean
relay_window_run (RelayWindow *self)
{
  g_autoptr(RelayProbePlan) plan = NULL;

  g_return_val_if_fail (RELAY_IS_WINDOW (self), FALSE);

  if (self->run_cancellable != NULL)
    return FALSE;

  if (!(plan = relay_composer_build_plan (self->composer)))
    {
      toast (self, _("Choose at least one endpoint and model to probe"));
      return FALSE;
    }

  begin_run (self, count_planned (plan));
  relay_prober_run_async (self->prober, plan, self->session, self->run_cancellable,
                          run_finished_cb, g_object_ref (self));
  show_run_started (self);

  return TRUE;
}

/* ---- Experiments ---- */

static void
experiment_step_started_cb (RelayExperiment *experiment,
                            guint            step,
                            guint            n_steps,
                            RelayWindow     *self)
{
  self->experiment_step = step;
  self->experiment_n_steps = n_steps;
  update_progress (self);
}

static void
experiment_finished_cb (GObject      *object,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(RelayWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(RelayExperimentResult) answer = NULL;

  answer = relay_experiment_run_finish (RELAY_EXPERIMENT (object), result, &error);

  if (!end_run (self))
    return;

  /* The answer (or the partial one of a stopped run) sits on the Findings page. */
  adw_view_stack_set_visible_child_name (self->view_stack, "findings");

  if (answer == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    toast (self, _("Experiment stopped"));
  else if (answer == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("The experiment failed: %s"), error->message);

      toast (self, message);
    }
  else
    toast (self, _("Experiment finished"));
}

gboolean
relay_window_run_experiment (RelayWindow     *self,
                             RelayExperiment *experiment)
{
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (RELAY_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (RELAY_IS_EXPERIMENT (experiment), FALSE);

  if (self->run_cancellable != NULL)
    return FALSE;

  if (!relay_experiment_prepare (experiment, &error))
    {
      show_error_dialog (self, _("Cannot Run the Experiment"), error->message);
      return FALSE;
    }

  if (self->session != NULL && relay_session_get_title (self->session) == NULL && !session_has_traces (self))
    {
      /* Translators: a new session's title; %s is the experiment ("Cold vs warm connection") */
      g_autofree char *title = g_strdup_printf (_("Experiment: %s"),
                                                relay_experiment_kind_get_title (relay_experiment_get_kind (experiment)));

      relay_session_set_title (self->session, title);
      update_title (self);
    }

  begin_run (self, relay_experiment_get_n_probes (experiment));
  self->experiment = g_object_ref (experiment);
  self->experiment_step = 0;
  self->experiment_n_steps = relay_experiment_get_n_steps (experiment);
  g_signal_connect (experiment, "step-started", G_CALLBACK (experiment_step_started_cb), self);
  adw_view_stack_set_visible_child_name (self->view_stack, "waterfall");
  relay_experiment_run_async (experiment, self->prober, self->session, self->run_cancellable,
                              experiment_finished_cb, g_object_ref (self));
  show_run_started (self);

  return TRUE;
}

static void
experiment_dialog_run_cb (RelayExperimentDialog *dialog,
                          RelayExperiment       *experiment,
                          RelayWindow           *self)
{
  relay_window_run_experiment (self, experiment);
}

RelayExperimentDialog *
relay_window_show_experiment_dialog (RelayWindow         *self,
                                     RelayExperimentKind  kind)
{
  RelayExperimentDialog *dialog;
  g_autoptr(RelayProbePlan) plan = NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) selected = NULL;

  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  /* The composer's targets come first in the dialog. */
  if ((plan = relay_composer_build_plan (self->composer)))
    {
      GPtrArray *endpoints = relay_probe_plan_get_endpoints (plan);

      for (guint i = 0; i < endpoints->len; i++)
        g_strv_builder_add (builder, relay_endpoint_get_name (g_ptr_array_index (endpoints, i)));
    }
  selected = g_strv_builder_end (builder);

  dialog = relay_experiment_dialog_new (GTK_WINDOW (self), get_endpoints (self),
                                        (const char * const *) selected, kind);
  g_signal_connect_object (dialog, "run", G_CALLBACK (experiment_dialog_run_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));

  return dialog;
}

static void
experiment_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  RelayExperimentKind kind = RELAY_EXPERIMENT_COLD_WARM;

  relay_experiment_kind_from_string (g_variant_get_string (param, NULL), &kind);
  relay_window_show_experiment_dialog (RELAY_WINDOW (widget), kind);
}

static void
findings_trace_activated_cb (RelayWindow *self,
                             RelayTrace  *trace)
{
  relay_waterfall_view_set_selected (self->waterfall_view, trace);
  relay_trace_details_set_trace (self->trace_details, trace, self->session);
  adw_view_stack_set_visible_child_name (self->view_stack, "details");
}

void
relay_window_stop (RelayWindow *self)
{
  g_return_if_fail (RELAY_IS_WINDOW (self));

  if (self->run_cancellable != NULL)
    g_cancellable_cancel (self->run_cancellable);
}

static void
run_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *param)
{
  relay_window_run (RELAY_WINDOW (widget));
}

static void
stop_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  relay_window_stop (RELAY_WINDOW (widget));
}

gboolean
relay_window_start_demo (RelayWindow *self,
                         guint        repeat,
                         guint        concurrency)
{
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (RELAY_IS_WINDOW (self), FALSE);

  if (!relay_application_add_demo_endpoints (get_app (self), &error))
    {
      show_error_dialog (self, _("Cannot Start the Demo Relays"), error->message);
      return FALSE;
    }

  if (self->session != NULL && relay_session_get_title (self->session) == NULL && !session_has_traces (self))
    relay_session_set_title (self->session, _("Demo: simulated relays"));

  relay_composer_set_repeat (self->composer, repeat);
  relay_composer_set_concurrency (self->composer, concurrency);
  adw_view_stack_set_visible_child_name (self->view_stack, "waterfall");
  update_title (self);

  return relay_window_run (self);
}

static void
demo_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  relay_window_start_demo (RELAY_WINDOW (widget), 3, 2);
}

/* ---- Endpoints ---- */

static void
editor_saved_cb (RelayEndpointEditor *editor,
                 RelayEndpoint       *endpoint,
                 const char          *old_name,
                 RelayWindow         *self)
{
  GListStore *store = relay_application_get_endpoints (get_app (self));
  guint pos = old_name != NULL ? relay_endpoint_store_find (G_LIST_MODEL (store), old_name) : G_MAXUINT;

  if (pos != G_MAXUINT)
    g_list_store_splice (store, pos, 1, (gpointer *) &endpoint, 1);
  else
    g_list_store_append (store, endpoint);

  save_endpoints (self);
}

static void
open_editor (RelayWindow   *self,
             RelayEndpoint *endpoint)
{
  RelayEndpointEditor *editor;

  editor = relay_endpoint_editor_new (GTK_WINDOW (self), endpoint, get_endpoints (self));
  g_signal_connect_object (editor, "saved", G_CALLBACK (editor_saved_cb), self, 0);
  gtk_window_present (GTK_WINDOW (editor));
}

static void
add_endpoint_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  open_editor (RELAY_WINDOW (widget), NULL);
}

static void
edit_endpoint_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  RelayWindow *self = RELAY_WINDOW (widget);
  GListModel *endpoints = get_endpoints (self);
  guint pos = relay_endpoint_store_find (endpoints, g_variant_get_string (param, NULL));
  g_autoptr(RelayEndpoint) endpoint = NULL;

  if (pos == G_MAXUINT)
    return;

  endpoint = g_list_model_get_item (endpoints, pos);
  open_editor (self, endpoint);
}

static void
remove_endpoint_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  RelayWindow *self = RELAY_WINDOW (widget);
  GListStore *store = relay_application_get_endpoints (get_app (self));
  const char *name = g_variant_get_string (param, NULL);
  guint pos = relay_endpoint_store_find (G_LIST_MODEL (store), name);
  g_autofree char *message = NULL;

  if (pos == G_MAXUINT)
    return;

  g_list_store_remove (store, pos);
  save_endpoints (self);

  message = g_strdup_printf (_("Removed “%s”"), name);
  toast (self, message);
}

static void
move_endpoint (RelayWindow *self,
               const char  *name,
               int          delta)
{
  GListStore *store = relay_application_get_endpoints (get_app (self));
  guint pos = relay_endpoint_store_find (G_LIST_MODEL (store), name);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (store));
  g_autoptr(RelayEndpoint) endpoint = NULL;

  if (pos == G_MAXUINT || (delta < 0 && pos == 0) || (delta > 0 && pos + 1 >= n))
    return;

  endpoint = g_list_model_get_item (G_LIST_MODEL (store), pos);
  g_list_store_remove (store, pos);
  g_list_store_insert (store, pos + delta, endpoint);
  save_endpoints (self);
}

static void
move_endpoint_up_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *param)
{
  move_endpoint (RELAY_WINDOW (widget), g_variant_get_string (param, NULL), -1);
}

static void
move_endpoint_down_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *param)
{
  move_endpoint (RELAY_WINDOW (widget), g_variant_get_string (param, NULL), 1);
}

static void
import_environment_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *param)
{
  RelayWindow *self = RELAY_WINDOW (widget);
  guint added = relay_endpoint_store_import_environment (relay_application_get_endpoints (get_app (self)));
  g_autofree char *message = NULL;

  if (added == 0)
    {
      toast (self, _("Nothing new to import: set OPENAI_BASE_URL/OPENAI_API_KEY or ANTHROPIC_BASE_URL/ANTHROPIC_API_KEY before starting Relayscope"));
      return;
    }

  save_endpoints (self);
  message = g_strdup_printf (ngettext ("Imported %u endpoint; its key stays in the environment",
                                       "Imported %u endpoints; their keys stay in the environment", added),
                             added);
  toast (self, message);
}

static void
endpoint_setup_cb (GtkSignalListItemFactory *factory,
                   GtkListItem              *item,
                   RelayWindow              *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 9);
  GtkWidget *icon = gtk_image_new ();
  GtkWidget *labels = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *name = gtk_label_new (NULL);
  GtkWidget *detail = gtk_label_new (NULL);
  GtkWidget *tag = gtk_label_new (_("Simulated"));
  GtkWidget *menu = gtk_menu_button_new ();

  gtk_widget_add_css_class (box, "endpoint-row");

  gtk_widget_set_valign (icon, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (box), icon);

  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (detail), 0);
  gtk_label_set_ellipsize (GTK_LABEL (detail), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (detail, "caption");
  gtk_widget_add_css_class (detail, "dim-label");
  gtk_widget_set_hexpand (labels, TRUE);
  gtk_widget_set_valign (labels, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (labels), name);
  gtk_box_append (GTK_BOX (labels), detail);
  gtk_box_append (GTK_BOX (box), labels);

  gtk_widget_add_css_class (tag, "simulated-tag");
  gtk_widget_set_valign (tag, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (tag, _("An in-process simulated relay of demo mode: no network, no account"));
  gtk_box_append (GTK_BOX (box), tag);

  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (menu), "view-more-symbolic");
  gtk_widget_set_tooltip_text (menu, _("Endpoint Actions"));
  gtk_widget_add_css_class (menu, "flat");
  gtk_widget_set_valign (menu, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (box), menu);

  g_object_set_data (G_OBJECT (box), "icon", icon);
  g_object_set_data (G_OBJECT (box), "name", name);
  g_object_set_data (G_OBJECT (box), "detail", detail);
  g_object_set_data (G_OBJECT (box), "tag", tag);
  g_object_set_data (G_OBJECT (box), "menu", menu);
  gtk_list_item_set_child (item, box);
}

static GMenuModel *
endpoint_menu (const char *name)
{
  static const struct {
    const char *label;
    const char *action;
  } entries[] = {
    { N_("_Edit…"), "win.edit-endpoint" },
    { N_("Move _Up"), "win.move-endpoint-up" },
    { N_("Move _Down"), "win.move-endpoint-down" },
    { N_("_Remove"), "win.remove-endpoint" },
  };
  GMenu *menu = g_menu_new ();
  GMenu *section = g_menu_new ();

  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      g_autoptr(GMenuItem) item = g_menu_item_new (_(entries[i].label), NULL);

      g_menu_item_set_action_and_target_value (item, entries[i].action, g_variant_new_string (name));
      g_menu_append_item (i == G_N_ELEMENTS (entries) - 1 ? section : menu, item);
    }

  g_menu_append_section (menu, NULL, G_MENU_MODEL (section));
  g_object_unref (section);

  return G_MENU_MODEL (menu);
}

static void
endpoint_bind_cb (GtkSignalListItemFactory *factory,
                  GtkListItem              *item,
                  RelayWindow              *self)
{
  RelayEndpoint *endpoint = gtk_list_item_get_item (item);
  GtkWidget *box = gtk_list_item_get_child (item);
  const char * const *models = relay_endpoint_get_models (endpoint);
  g_autofree char *models_text = models != NULL && models[0] != NULL ? g_strjoinv (", ", (char **) models) : NULL;
  g_autofree char *detail = NULL;
  g_autofree char *a11y = NULL;
  g_autoptr(GMenuModel) menu = endpoint_menu (relay_endpoint_get_name (endpoint));
  gboolean simulated = relay_endpoint_get_simulated (endpoint);
  const char *name;

  gtk_image_set_from_icon_name (g_object_get_data (G_OBJECT (box), "icon"),
                                simulated ? "applications-science-symbolic" : "network-server-symbolic");
  name = relay_endpoint_get_name (endpoint);
  /* The tag already says "Simulated"; the demo relays' names need not say it twice. */
  if (simulated && g_str_has_prefix (name, "Simulated: "))
    name += strlen ("Simulated: ");
  gtk_label_set_text (g_object_get_data (G_OBJECT (box), "name"), name);

  detail = models_text != NULL ? g_strdup (models_text) : g_strdup (relay_endpoint_get_base_url (endpoint));
  gtk_label_set_text (g_object_get_data (G_OBJECT (box), "detail"), detail);
  gtk_widget_set_tooltip_text (box, relay_endpoint_get_base_url (endpoint));
  gtk_widget_set_visible (g_object_get_data (G_OBJECT (box), "tag"), simulated);
  gtk_menu_button_set_menu_model (g_object_get_data (G_OBJECT (box), "menu"), menu);

  a11y = g_strdup_printf (_("Actions for %s"), relay_endpoint_get_name (endpoint));
  gtk_accessible_update_property (GTK_ACCESSIBLE (g_object_get_data (G_OBJECT (box), "menu")),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, a11y,
                                  -1);
}

static void
endpoint_activated_cb (GtkListView *list,
                       guint        position,
                       RelayWindow *self)
{
  g_autoptr(RelayEndpoint) endpoint = g_list_model_get_item (get_endpoints (self), position);

  if (endpoint != NULL)
    open_editor (self, endpoint);
}

static void
endpoints_changed_cb (RelayWindow *self)
{
  update_pages (self);
  update_actions (self);
}

/* ---- Charts ---- */

static void
back_clicked_cb (RelayWindow *self)
{
  adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
}

static void
align_toggled_cb (RelayWindow *self)
{
  relay_waterfall_painter_set_align (relay_waterfall_view_get_painter (self->waterfall_view),
                                     gtk_toggle_button_get_active (self->align_start_button)
                                       ? RELAY_WATERFALL_ALIGN_START
                                       : RELAY_WATERFALL_ALIGN_WALL_CLOCK);
  relay_waterfall_view_zoom_reset (self->waterfall_view);
}

static void
sort_changed_cb (RelayWindow *self)
{
  relay_waterfall_painter_set_sort (relay_waterfall_view_get_painter (self->waterfall_view),
                                    gtk_drop_down_get_selected (self->sort_dropdown) == 1
                                      ? RELAY_WATERFALL_SORT_TTFT
                                      : RELAY_WATERFALL_SORT_START);
}

static void
stream_mode_toggled_cb (RelayWindow *self)
{
  RelayStreamMode mode = RELAY_STREAM_MODE_GAPS;

  if (gtk_toggle_button_get_active (self->stream_cumulative_button))
    mode = RELAY_STREAM_MODE_CUMULATIVE;
  else if (gtk_toggle_button_get_active (self->stream_distribution_button))
    mode = RELAY_STREAM_MODE_DISTRIBUTION;

  relay_stream_view_set_mode (self->stream_view, mode);
  update_stream_scope (self);
}

static void
waterfall_trace_activated_cb (RelayWindow *self,
                              RelayTrace  *trace)
{
  relay_trace_details_set_trace (self->trace_details, trace, self->session);
  adw_view_stack_set_visible_child_name (self->view_stack, "details");
}

/* The stream view follows the waterfall's selection, by mouse or keyboard. */
static void
waterfall_selected_cb (RelayWindow *self)
{
  update_stream_scope (self);
}

static void
waterfall_released_cb (RelayWindow     *self,
                       int              n_press,
                       double           x,
                       double           y,
                       GtkGestureClick *gesture)
{
  RelayWaterfallHit hit;

  /* A click on empty space clears the selection: the stream view shows every trace again. */
  if (!relay_waterfall_painter_hit_test (relay_waterfall_view_get_painter (self->waterfall_view),
                                         gtk_widget_get_width (GTK_WIDGET (self->waterfall_view)),
                                         x, y, &hit) ||
      hit.trace == NULL)
    relay_waterfall_view_set_selected (self->waterfall_view, NULL);
}

static void
zoom_in_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  relay_waterfall_view_zoom_in (RELAY_WINDOW (widget)->waterfall_view);
}

static void
zoom_out_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  relay_waterfall_view_zoom_out (RELAY_WINDOW (widget)->waterfall_view);
}

static void
zoom_reset_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  relay_waterfall_view_zoom_reset (RELAY_WINDOW (widget)->waterfall_view);
}

static void
show_view_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  adw_view_stack_set_visible_child_name (RELAY_WINDOW (widget)->view_stack,
                                         g_variant_get_string (param, NULL));
}

/* ---- Export ---- */

gboolean
relay_window_export_chart (RelayWindow       *self,
                           const char        *chart,
                           RelayChartFormat   format,
                           const char        *path,
                           double             width,
                           double             height,
                           GError           **error)
{
  g_autofree char *title = NULL;
  gboolean ok;

  g_return_val_if_fail (RELAY_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  title = dup_display_title (self);

  if (g_strcmp0 (chart, "stream") == 0)
    {
      RelayStreamPainter *painter = relay_stream_view_get_painter (self->stream_view);
      g_autofree char *old_title = g_strdup (relay_stream_painter_get_title (painter));

      relay_stream_painter_set_title (painter, title);
      ok = relay_chart_export_stream (painter, format, path, width, height > 0 ? height : DEFAULT_EXPORT_HEIGHT, error);
      relay_stream_painter_set_title (painter, old_title);
    }
  else
    {
      RelayWaterfallPainter *painter = relay_waterfall_view_get_painter (self->waterfall_view);
      g_autofree char *old_title = g_strdup (relay_waterfall_painter_get_title (painter));

      relay_waterfall_painter_set_title (painter, title);
      ok = relay_chart_export_waterfall (painter, format, path, width, height, error);
      relay_waterfall_painter_set_title (painter, old_title);
    }

  return ok;
}

typedef struct
{
  char             *chart;
  RelayChartFormat  format;
  int               width;
  int               height;
} ExportRequest;

static void
export_request_free (ExportRequest *request)
{
  g_free (request->chart);
  g_free (request);
}

static void
export_file_response_cb (GtkNativeDialog *native,
                         int              response,
                         RelayWindow     *self)
{
  ExportRequest *request = g_object_get_data (G_OBJECT (native), "request");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = g_file_get_path (file);
      g_autoptr(GError) error = NULL;
      const char *suffix = request->format == RELAY_CHART_FORMAT_SVG ? ".svg" : ".png";

      if (path != NULL && !g_str_has_suffix (path, suffix))
        {
          char *with_suffix = g_strconcat (path, suffix, NULL);

          g_free (path);
          path = with_suffix;
        }

      if (path == NULL)
        show_error_dialog (self, _("Cannot Export the Picture"), _("Choose a local file"));
      else if (!relay_window_export_chart (self, request->chart, request->format, path,
                                           request->width, request->height, &error))
        show_error_dialog (self, _("Cannot Export the Picture"), error->message);
      else
        {
          g_autofree char *basename = g_path_get_basename (path);
          g_autofree char *message = g_strdup_printf (_("Exported “%s”"), basename);

          toast (self, message);
        }
    }

  gtk_native_dialog_destroy (native);
  g_object_unref (native);
  g_object_unref (self);
}

static void
export_size_response_cb (AdwMessageDialog *dialog,
                         const char       *response,
                         RelayWindow      *self)
{
  ExportRequest *request;
  GtkFileChooserNative *native;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;
  GtkSpinButton *width_spin = g_object_get_data (G_OBJECT (dialog), "width");
  GtkSpinButton *height_spin = g_object_get_data (G_OBJECT (dialog), "height");
  GtkCheckButton *fit_check = g_object_get_data (G_OBJECT (dialog), "fit");

  if (!g_str_equal (response, "export"))
    return;

  request = g_new0 (ExportRequest, 1);
  request->chart = g_strdup (g_object_get_data (G_OBJECT (dialog), "chart"));
  request->format = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (dialog), "format"));
  request->width = gtk_spin_button_get_value_as_int (width_spin);
  request->height = gtk_check_button_get_active (fit_check) ? 0 : gtk_spin_button_get_value_as_int (height_spin);

  title = dup_display_title (self);
  name = g_strdup_printf ("%s — %s.%s", title,
                          g_str_equal (request->chart, "stream") ? _("stream") : _("waterfall"),
                          request->format == RELAY_CHART_FORMAT_SVG ? "svg" : "png");

  if (request->format == RELAY_CHART_FORMAT_SVG)
    {
      gtk_file_filter_set_name (filter, _("SVG Pictures"));
      gtk_file_filter_add_pattern (filter, "*.svg");
    }
  else
    {
      gtk_file_filter_set_name (filter, _("PNG Pictures"));
      gtk_file_filter_add_pattern (filter, "*.png");
    }

  native = gtk_file_chooser_native_new (_("Export Picture"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_object_set_data_full (G_OBJECT (native), "request", request, (GDestroyNotify) export_request_free);
  g_signal_connect (native, "response", G_CALLBACK (export_file_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static GtkWidget *
size_spin (double value)
{
  GtkWidget *spin = gtk_spin_button_new_with_range (200, 8000, 10);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), TRUE);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);

  return spin;
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *param)
{
  RelayWindow *self = RELAY_WINDOW (widget);
  const char *target = g_variant_get_string (param, NULL);
  gboolean stream = g_str_has_prefix (target, "stream");
  RelayChartFormat format = g_str_has_suffix (target, "svg") ? RELAY_CHART_FORMAT_SVG : RELAY_CHART_FORMAT_PNG;
  GtkWidget *dialog;
  GtkWidget *grid;
  GtkWidget *label;
  GtkWidget *width_spin = size_spin (DEFAULT_EXPORT_WIDTH);
  GtkWidget *height_spin = size_spin (DEFAULT_EXPORT_HEIGHT);
  GtkWidget *fit;

  dialog = adw_message_dialog_new (GTK_WINDOW (self),
                                   stream ? _("Export the Stream Chart") : _("Export the Waterfall"),
                                   _("In the light document style, with title, legend and axis labels"));

  grid = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_widget_set_halign (grid, GTK_ALIGN_CENTER);

  label = gtk_label_new_with_mnemonic (_("_Width"));
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), width_spin);
  gtk_grid_attach (GTK_GRID (grid), label, 0, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), width_spin, 1, 0, 1, 1);

  label = gtk_label_new_with_mnemonic (_("_Height"));
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), height_spin);
  gtk_grid_attach (GTK_GRID (grid), label, 0, 1, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), height_spin, 1, 1, 1, 1);

  fit = gtk_check_button_new_with_mnemonic (_("Tall enough for _every row"));
  gtk_widget_set_visible (fit, !stream);
  g_object_bind_property (fit, "active", height_spin, "sensitive", G_BINDING_INVERT_BOOLEAN | G_BINDING_SYNC_CREATE);
  gtk_grid_attach (GTK_GRID (grid), fit, 0, 2, 2, 1);

  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), grid);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "export", format == RELAY_CHART_FORMAT_SVG ? _("_Export SVG…") : _("_Export PNG…"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "export", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "export");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");

  g_object_set_data_full (G_OBJECT (dialog), "chart", g_strdup (stream ? "stream" : "waterfall"), g_free);
  g_object_set_data (G_OBJECT (dialog), "format", GUINT_TO_POINTER (format));
  g_object_set_data (G_OBJECT (dialog), "width", width_spin);
  g_object_set_data (G_OBJECT (dialog), "height", height_spin);
  g_object_set_data (G_OBJECT (dialog), "fit", fit);
  g_signal_connect (dialog, "response", G_CALLBACK (export_size_response_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
copy_picture_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  RelayWindow *self = RELAY_WINDOW (widget);
  const char *chart = g_variant_get_string (param, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *tmpdir = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  /* The export path draws the document style; a PNG in a private temp dir is the simplest
   * way to reuse it, and GdkTexture reads it back. */
  if (!(tmpdir = g_dir_make_tmp ("relayscope-copy-XXXXXX", &error)))
    goto failed;

  path = g_build_filename (tmpdir, "picture.png", NULL);
  if (!relay_window_export_chart (self, chart, RELAY_CHART_FORMAT_PNG, path,
                                  DEFAULT_EXPORT_WIDTH, DEFAULT_EXPORT_HEIGHT, &error))
    goto failed;

  texture = gdk_texture_new_from_filename (path, &error);
  g_unlink (path);
  g_rmdir (tmpdir);
  if (texture == NULL)
    goto failed;

  gdk_clipboard_set_texture (gtk_widget_get_clipboard (widget), texture);
  toast (self, _("Picture copied"));
  return;

failed:
  if (path != NULL)
    g_unlink (path);
  if (tmpdir != NULL)
    g_rmdir (tmpdir);
  show_error_dialog (self, _("Cannot Copy the Picture"), error->message);
}

/* ---- Window ---- */

static void
save_window_state (RelayWindow *self)
{
  int width, height;

  if (self->settings == NULL)
    return;

  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  g_settings_delay (self->settings);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (GTK_WINDOW (self)));
  if (!gtk_window_is_maximized (GTK_WINDOW (self)))
    {
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
    }
  g_settings_apply (self->settings);
}

static void
close_confirmed (RelayWindow *self,
                 gpointer     data)
{
  self->closing_confirmed = TRUE;
  gtk_window_close (GTK_WINDOW (self));
}

static gboolean
relay_window_close_request (GtkWindow *window)
{
  RelayWindow *self = RELAY_WINDOW (window);

  if (!self->closing_confirmed &&
      self->session != NULL && relay_session_get_modified (self->session) && session_has_traces (self))
    {
      maybe_discard_then (self, close_confirmed, NULL, NULL);
      return TRUE;
    }

  save_window_state (self);
  remove_autosave (self);

  /* Probes finish as "cancelled"; the window goes once the prober has let go of it. */
  if (self->run_cancellable != NULL)
    {
      self->close_after_run = TRUE;
      g_cancellable_cancel (self->run_cancellable);
      gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
      return TRUE;
    }

  return GTK_WINDOW_CLASS (relay_window_parent_class)->close_request (window);
}

/* "application" is not a construct property: the window meets its endpoints once it is set. */
static void
application_changed_cb (RelayWindow *self)
{
  GListModel *endpoints = get_endpoints (self);

  if (self->autosave_file == NULL &&
      gtk_application_window_get_id (GTK_APPLICATION_WINDOW (self)) != 0)
    {
      g_autoptr(GFile) dir = relay_window_get_autosave_dir ();
      /* The process id keeps two running instances apart and tells a crashed one's copy
       * from a live one's. */
      g_autofree char *name = g_strdup_printf ("%d-%u" SESSION_SUFFIX, (int) getpid (),
                                               gtk_application_window_get_id (GTK_APPLICATION_WINDOW (self)));

      self->autosave_file = g_file_get_child (dir, name);
    }

  if (endpoints != NULL)
    {
      g_autoptr(GtkSingleSelection) selection = gtk_single_selection_new (g_object_ref (endpoints));

      gtk_single_selection_set_autoselect (selection, FALSE);
      gtk_single_selection_set_can_unselect (selection, TRUE);
      gtk_single_selection_set_selected (selection, GTK_INVALID_LIST_POSITION);
      gtk_list_view_set_model (self->endpoints_list, GTK_SELECTION_MODEL (selection));
      relay_composer_set_endpoints (self->composer, endpoints);
      g_signal_connect_object (endpoints, "items-changed", G_CALLBACK (endpoints_changed_cb),
                               self, G_CONNECT_SWAPPED);
    }

  update_pages (self);
  update_actions (self);
}

/* ---- Budget, data exports, HAR import, cURL ---- */

#define BUDGET_MEMBER "budget"

RelayBudget *
relay_window_dup_budget (RelayWindow *self)
{
  JsonNode *node;

  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  /* The session's own budget first, then the user's default, then the 880 ms one. */
  if (self->session != NULL &&
      (node = relay_session_get_extra (self->session, BUDGET_MEMBER)) != NULL)
    {
      g_autofree char *data = json_to_string (node, FALSE);
      g_autoptr(GError) error = NULL;
      RelayBudget *budget = relay_budget_new_from_data (data, -1, &error);

      if (budget != NULL)
        return budget;
      g_debug ("Ignoring the session's budget: %s", error->message);
    }

  if (self->settings != NULL)
    {
      g_autofree char *data = g_settings_get_string (self->settings, "default-budget");

      if (data != NULL && data[0] != '\0')
        {
          RelayBudget *budget = relay_budget_new_from_data (data, -1, NULL);

          if (budget != NULL)
            return budget;
        }
    }

  return relay_budget_new_default ();
}

static void
apply_budget (RelayWindow *self)
{
  g_autoptr(RelayBudget) budget = relay_window_dup_budget (self);

  relay_waterfall_painter_set_budget (relay_waterfall_view_get_painter (self->waterfall_view), budget);
  relay_summary_table_set_budget (self->summary_table, budget);
  relay_budget_view_set_session (self->budget_view, self->session, budget);
}

void
relay_window_set_budget (RelayWindow *self,
                         RelayBudget *budget,
                         gboolean     as_default)
{
  g_autofree char *data = NULL;
  g_autoptr(JsonNode) node = NULL;

  g_return_if_fail (RELAY_IS_WINDOW (self));
  g_return_if_fail (RELAY_IS_BUDGET (budget));

  data = relay_budget_to_data (budget);
  node = json_from_string (data, NULL);
  if (self->session != NULL && node != NULL)
    relay_session_set_extra (self->session, BUDGET_MEMBER, node);
  if (as_default && self->settings != NULL)
    g_settings_set_string (self->settings, "default-budget", data);

  apply_budget (self);
}

static void
budget_editor_apply_cb (RelayBudgetEditor *editor,
                        RelayBudget       *budget,
                        gboolean           as_default,
                        RelayWindow       *self)
{
  relay_window_set_budget (self, budget, as_default);
  toast (self, _("Budget applied to this session"));
}

static void
edit_budget_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  RelayWindow *self = RELAY_WINDOW (widget);
  g_autoptr(RelayBudget) budget = relay_window_dup_budget (self);
  RelayBudgetEditor *editor = relay_budget_editor_new (GTK_WINDOW (self), budget);

  g_signal_connect_object (editor, "apply", G_CALLBACK (budget_editor_apply_cb), self, 0);
  gtk_window_present (GTK_WINDOW (editor));
}

gboolean
relay_window_export_data (RelayWindow  *self,
                          const char   *format,
                          const char   *path,
                          GError      **error)
{
  g_autofree char *data = NULL;
  gsize length = 0;

  g_return_val_if_fail (RELAY_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (format != NULL && path != NULL, FALSE);

  if (g_str_equal (format, "pdf"))
    {
      g_autoptr(RelayBudget) budget = relay_window_dup_budget (self);

      return relay_report_export_pdf (self->session, budget, NULL, path, error);
    }
  else if (g_str_equal (format, "har"))
    data = relay_har_to_data (self->session, &length);
  else if (g_str_equal (format, "csv"))
    data = relay_export_csv (self->session);
  else if (g_str_equal (format, "jsonl"))
    data = relay_export_jsonl (self->session);
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Unknown export format “%s”"), format);
      return FALSE;
    }

  if (data == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Nothing to export"));
      return FALSE;
    }
  if (length == 0)
    length = strlen (data);

  return g_file_set_contents_full (path, data, length, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
}

static void
export_data_response_cb (GtkNativeDialog *native,
                         int              response,
                         RelayWindow     *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = g_file_get_path (file);
      const char *format = g_object_get_data (G_OBJECT (native), "format");
      g_autoptr(GError) error = NULL;

      if (path == NULL)
        show_error_dialog (self, _("Cannot Export"), _("Choose a local file"));
      else if (!relay_window_export_data (self, format, path, &error))
        show_error_dialog (self, _("Cannot Export"), error->message);
      else
        {
          g_autofree char *name = g_file_get_basename (file);
          g_autofree char *message = g_strdup_printf (_("Exported to %s"), name);

          toast (self, message);
        }
    }

  gtk_native_dialog_destroy (native);
  g_object_unref (native);
  g_object_unref (self);
}

static void
export_data_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  RelayWindow *self = RELAY_WINDOW (widget);
  const char *format = g_variant_get_string (param, NULL);
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *title = dup_display_title (self);
  g_autofree char *name = NULL;
  GtkFileChooserNative *native;
  const char *extension;

  if (g_str_equal (format, "har"))
    {
      gtk_file_filter_set_name (filter, _("HTTP Archives (HAR)"));
      extension = "har";
    }
  else if (g_str_equal (format, "csv"))
    {
      gtk_file_filter_set_name (filter, _("CSV Tables"));
      extension = "csv";
    }
  else if (g_str_equal (format, "jsonl"))
    {
      gtk_file_filter_set_name (filter, _("JSON Lines"));
      extension = "jsonl";
    }
  else
    {
      gtk_file_filter_set_name (filter, _("PDF Reports"));
      extension = "pdf";
      format = "pdf";
    }
  {
    g_autofree char *pattern = g_strdup_printf ("*.%s", extension);

    gtk_file_filter_add_pattern (filter, pattern);
  }

  name = g_strdup_printf ("%s.%s", title, extension);
  native = gtk_file_chooser_native_new (_("Export"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_object_set_data_full (G_OBJECT (native), "format", g_strdup (format), g_free);
  g_signal_connect (native, "response", G_CALLBACK (export_data_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

gboolean
relay_window_import_har (RelayWindow  *self,
                         GFile        *file,
                         GError      **error)
{
  g_autoptr(RelaySession) session = NULL;

  g_return_val_if_fail (RELAY_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (!(session = relay_har_load (file, NULL, error)))
    return FALSE;

  if (relay_session_get_title (session) == NULL)
    {
      g_autofree char *name = g_file_get_basename (file);

      relay_session_set_title (session, name);
    }

  /* Not a session file: saving asks where. */
  set_session (self, session, NULL);
  adw_view_stack_set_visible_child_name (self->view_stack, "waterfall");

  return TRUE;
}

static void
import_har_response_cb (GtkNativeDialog *native,
                        int              response,
                        RelayWindow     *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autoptr(GError) error = NULL;

      if (!relay_window_import_har (self, file, &error))
        show_error_dialog (self, _("Cannot Import the HAR File"), error->message);
    }

  gtk_native_dialog_destroy (native);
  g_object_unref (native);
  g_object_unref (self);
}

static void
show_import_har_dialog (RelayWindow *self,
                        gpointer     data)
{
  GtkFileChooserNative *native;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("HTTP Archives (HAR)"));
  gtk_file_filter_add_pattern (filter, "*.har");
  native = gtk_file_chooser_native_new (_("Import HAR"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Import"), _("_Cancel"));
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (import_har_response_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
import_har_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *param)
{
  maybe_discard_then (RELAY_WINDOW (widget), show_import_har_dialog, NULL, NULL);
}

char *
relay_window_dup_curl_command (RelayWindow  *self,
                               GError      **error)
{
  RelayTrace *trace;

  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  trace = relay_waterfall_view_get_selected (self->waterfall_view);
  if (trace == NULL)
    trace = relay_trace_details_get_trace (self->trace_details);
  if (trace == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("Select a trace in the waterfall first"));
      return NULL;
    }

  return relay_export_curl_command (self->session, trace, error);
}

static void
copy_curl_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  RelayWindow *self = RELAY_WINDOW (widget);
  g_autoptr(GError) error = NULL;
  g_autofree char *command = relay_window_dup_curl_command (self, &error);

  if (command == NULL)
    {
      toast (self, error->message);
      return;
    }

  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), command);
  toast (self, _("Copied as cURL; the key is read from an environment variable"));
}

static void
compare_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  RelayWindow *self = RELAY_WINDOW (widget);
  RelayCompareWindow *compare = relay_compare_window_new (GTK_WINDOW (self), self->session);

  gtk_window_present (GTK_WINDOW (compare));
}

static void
relay_window_dispose (GObject *object)
{
  RelayWindow *self = (RelayWindow *)object;

  if (self->run_cancellable != NULL)
    g_cancellable_cancel (self->run_cancellable);
  if (self->prober != NULL)
    g_signal_handlers_disconnect_by_data (self->prober, self);
  if (self->experiment != NULL)
    g_signal_handlers_disconnect_by_data (self->experiment, self);
  g_clear_object (&self->experiment);
  g_clear_handle_id (&self->refresh_id, g_source_remove);
  g_clear_handle_id (&self->autosave_id, g_source_remove);

  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->session, session_modified_cb, self);
      g_signal_handlers_disconnect_by_func (relay_session_get_traces (self->session),
                                            session_traces_changed_cb, self);
    }

  gtk_widget_dispose_template (GTK_WIDGET (self), RELAY_TYPE_WINDOW);

  g_clear_object (&self->prober);
  g_clear_object (&self->run_cancellable);
  g_clear_object (&self->session);
  g_clear_object (&self->file);
  g_clear_object (&self->autosave_file);
  g_clear_pointer (&self->restored_origin, g_free);
  g_clear_object (&self->stream_selection);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (relay_window_parent_class)->dispose (object);
}

static void
relay_window_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  RelayWindow *self = RELAY_WINDOW (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      g_value_set_boolean (value, relay_window_get_running (self));
      break;

    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_window_class_init (RelayWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = relay_window_dispose;
  object_class->get_property = relay_window_get_property;

  window_class->close_request = relay_window_close_request;

  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL,
                          FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL,
                         RELAY_TYPE_SESSION,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (RELAY_TYPE_COMPOSER);
  g_type_ensure (RELAY_TYPE_BUDGET_VIEW);
  g_type_ensure (RELAY_TYPE_FINDINGS_VIEW);
  g_type_ensure (RELAY_TYPE_STREAM_VIEW);
  g_type_ensure (RELAY_TYPE_SUMMARY_TABLE);
  g_type_ensure (RELAY_TYPE_TRACE_DETAILS);
  g_type_ensure (RELAY_TYPE_WATERFALL_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/relayscope/Relayscope/ui/relay-window.ui");
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, align_start_button);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, budget_view);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, composer);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, endpoints_list);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, findings_view);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, progress_label);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, recent_submenu);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, run_stack);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, sidebar_stack);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, sort_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, stream_cumulative_button);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, stream_distribution_button);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, stream_gaps_button);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, stream_scope_label);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, stream_view);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, summary_table);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, switcher_bar);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, switcher_title);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, trace_details);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, waterfall_stack);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, waterfall_toolbar);
  gtk_widget_class_bind_template_child (widget_class, RelayWindow, waterfall_view);
  gtk_widget_class_bind_template_callback (widget_class, align_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, back_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, findings_trace_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, sort_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, stream_mode_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, update_switcher_bar);
  gtk_widget_class_bind_template_callback (widget_class, waterfall_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, waterfall_trace_activated_cb);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "win.new-session", NULL, new_session_action);
  gtk_widget_class_install_action (widget_class, "win.session-properties", NULL, session_properties_action);
  gtk_widget_class_install_action (widget_class, "win.add-endpoint", NULL, add_endpoint_action);
  gtk_widget_class_install_action (widget_class, "win.edit-endpoint", "s", edit_endpoint_action);
  gtk_widget_class_install_action (widget_class, "win.remove-endpoint", "s", remove_endpoint_action);
  gtk_widget_class_install_action (widget_class, "win.move-endpoint-up", "s", move_endpoint_up_action);
  gtk_widget_class_install_action (widget_class, "win.move-endpoint-down", "s", move_endpoint_down_action);
  gtk_widget_class_install_action (widget_class, "win.import-environment", NULL, import_environment_action);
  gtk_widget_class_install_action (widget_class, "win.demo", NULL, demo_action);
  gtk_widget_class_install_action (widget_class, "win.experiment", "s", experiment_action);
  gtk_widget_class_install_action (widget_class, "win.edit-budget", NULL, edit_budget_action);
  gtk_widget_class_install_action (widget_class, "win.export-data", "s", export_data_action);
  gtk_widget_class_install_action (widget_class, "win.import-har", NULL, import_har_action);
  gtk_widget_class_install_action (widget_class, "win.copy-curl", NULL, copy_curl_action);
  gtk_widget_class_install_action (widget_class, "win.compare", NULL, compare_action);
  gtk_widget_class_install_action (widget_class, "win.export", "s", export_action);
  gtk_widget_class_install_action (widget_class, "win.copy-picture", "s", copy_picture_action);
  gtk_widget_class_install_action (widget_class, "win.show-view", "s", show_view_action);
  gtk_widget_class_install_action (widget_class, "probe.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "probe.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "chart.zoom-in", NULL, zoom_in_action);
  gtk_widget_class_install_action (widget_class, "chart.zoom-out", NULL, zoom_out_action);
  gtk_widget_class_install_action (widget_class, "chart.zoom-reset", NULL, zoom_reset_action);

}

static void
relay_window_init (RelayWindow *self)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GtkListItemFactory) factory = NULL;
  g_autoptr(RelaySession) session = relay_session_new ();
  GtkGesture *click;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->stream_selection = g_list_store_new (RELAY_TYPE_TRACE);

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema != NULL)
    {
      self->settings = g_settings_new (APP_ID);
      gtk_window_set_default_size (GTK_WINDOW (self),
                                   g_settings_get_int (self->settings, "window-width"),
                                   g_settings_get_int (self->settings, "window-height"));
      if (g_settings_get_boolean (self->settings, "window-maximized"))
        gtk_window_maximize (GTK_WINDOW (self));
    }

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (endpoint_setup_cb), self);
  g_signal_connect (factory, "bind", G_CALLBACK (endpoint_bind_cb), self);
  gtk_list_view_set_factory (self->endpoints_list, factory);
  g_signal_connect (self->endpoints_list, "activate", G_CALLBACK (endpoint_activated_cb), self);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->endpoints_list),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Endpoints"),
                                  -1);

  click = gtk_gesture_click_new ();
  g_signal_connect_object (click, "released", G_CALLBACK (waterfall_released_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self->waterfall_view), GTK_EVENT_CONTROLLER (click));

  g_signal_connect_object (gtk_recent_manager_get_default (), "changed",
                           G_CALLBACK (update_recent_menu), self, G_CONNECT_SWAPPED);
  update_recent_menu (self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.no-recent", FALSE);

  g_signal_connect (self, "notify::application", G_CALLBACK (application_changed_cb), NULL);

  set_session (self, session, NULL);

  self->autosave_id = g_timeout_add_seconds (AUTOSAVE_INTERVAL_S, autosave_timeout_cb, self);
}

RelayWindow *
relay_window_new (RelayApplication *application)
{
  return g_object_new (RELAY_TYPE_WINDOW,
                       "application", application,
                       NULL);
}

RelaySession *
relay_window_get_session (RelayWindow *self)
{
  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  return self->session;
}

GFile *
relay_window_get_file (RelayWindow *self)
{
  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  return self->file;
}

gboolean
relay_window_get_running (RelayWindow *self)
{
  g_return_val_if_fail (RELAY_IS_WINDOW (self), FALSE);

  return self->run_cancellable != NULL;
}

RelayComposer *
relay_window_get_composer (RelayWindow *self)
{
  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  return self->composer;
}

RelayWaterfallView *
relay_window_get_waterfall_view (RelayWindow *self)
{
  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  return self->waterfall_view;
}

RelayStreamView *
relay_window_get_stream_view (RelayWindow *self)
{
  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  return self->stream_view;
}

RelaySummaryTable *
relay_window_get_summary_table (RelayWindow *self)
{
  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  return self->summary_table;
}

RelayTraceDetails *
relay_window_get_trace_details (RelayWindow *self)
{
  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  return self->trace_details;
}

RelayFindingsView *
relay_window_get_findings_view (RelayWindow *self)
{
  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  return self->findings_view;
}

RelayBudgetView *
relay_window_get_budget_view (RelayWindow *self)
{
  g_return_val_if_fail (RELAY_IS_WINDOW (self), NULL);

  return self->budget_view;
}
