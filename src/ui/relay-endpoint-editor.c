/* relay-endpoint-editor.c: the window that adds or edits one endpoint.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <libsoup/soup.h>

#include "relay-endpoint-editor.h"
#include "relay-endpoint-store.h"

enum {
  KEY_SOURCE_ENV,
  KEY_SOURCE_KEYRING,
};

struct _RelayEndpointEditor
{
  AdwWindow        parent_instance;

  RelayEndpoint   *endpoint;
  GListModel      *existing;
  GCancellable    *cancellable;
  SoupSession     *soup;

  AdwComboRow     *api_row;
  AdwEntryRow     *ca_row;
  AdwEntryRow     *headers_row;
  AdwEntryRow     *key_env_row;
  AdwPasswordEntryRow *key_row;
  AdwComboRow     *key_source_row;
  GtkLabel        *key_status_label;
  GtkButton       *list_models_button;
  GtkFlowBox      *models_flow;
  AdwEntryRow     *models_row;
  GtkSpinner      *models_spinner;
  AdwEntryRow     *name_row;
  AdwEntryRow     *proxy_row;
  GtkButton       *save_button;
  AdwToastOverlay *toast_overlay;
  AdwEntryRow     *url_row;
  AdwWindowTitle  *window_title;
};

enum {
  SAVED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (RelayEndpointEditor, relay_endpoint_editor, ADW_TYPE_WINDOW)

static void
show_toast (RelayEndpointEditor *self,
            const char          *message)
{
  AdwToast *toast = adw_toast_new (message);

  adw_toast_set_timeout (toast, 6);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
show_key_status (RelayEndpointEditor *self,
                 const char          *message,
                 gboolean             problem)
{
  gtk_label_set_text (self->key_status_label, message);
  gtk_widget_set_visible (GTK_WIDGET (self->key_status_label), message != NULL);
  if (problem)
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->key_status_label), "warning");
      gtk_widget_remove_css_class (GTK_WIDGET (self->key_status_label), "dim-label");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->key_status_label), "warning");
      gtk_widget_add_css_class (GTK_WIDGET (self->key_status_label), "dim-label");
    }
}

static RelayApi
get_api (RelayEndpointEditor *self)
{
  return adw_combo_row_get_selected (self->api_row) == 1 ? RELAY_API_ANTHROPIC_MESSAGES
                                                          : RELAY_API_OPENAI_CHAT;
}

static gboolean
url_is_valid (const char *text)
{
  g_autoptr(GUri) uri = NULL;

  if (text == NULL || text[0] == '\0')
    return FALSE;

  uri = g_uri_parse (text, G_URI_FLAGS_NONE, NULL);
  return uri != NULL &&
         (g_strcmp0 (g_uri_get_scheme (uri), "http") == 0 ||
          g_strcmp0 (g_uri_get_scheme (uri), "https") == 0) &&
         g_uri_get_host (uri) != NULL && g_uri_get_host (uri)[0] != '\0';
}

static void
validate_cb (RelayEndpointEditor *self)
{
  const char *name = gtk_editable_get_text (GTK_EDITABLE (self->name_row));
  const char *url = gtk_editable_get_text (GTK_EDITABLE (self->url_row));
  g_autofree char *stripped = g_strstrip (g_strdup (name));
  gboolean name_ok = stripped[0] != '\0';
  gboolean url_ok = url_is_valid (url);

  if (name_ok && self->existing != NULL)
    {
      guint pos = relay_endpoint_store_find (self->existing, stripped);

      if (pos != G_MAXUINT &&
          (self->endpoint == NULL || g_strcmp0 (relay_endpoint_get_name (self->endpoint), stripped) != 0))
        name_ok = FALSE;
    }

  if (name_ok || name[0] == '\0')
    gtk_widget_remove_css_class (GTK_WIDGET (self->name_row), "error");
  else
    gtk_widget_add_css_class (GTK_WIDGET (self->name_row), "error");

  /* The scheme a new endpoint starts with is a hint, not a mistake yet. */
  if (url_ok || url[0] == '\0' || g_str_equal (url, "https://") || g_str_equal (url, "http://"))
    gtk_widget_remove_css_class (GTK_WIDGET (self->url_row), "error");
  else
    gtk_widget_add_css_class (GTK_WIDGET (self->url_row), "error");

  gtk_widget_set_sensitive (GTK_WIDGET (self->list_models_button), url_ok);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "editor.save", name_ok && url_ok);
}

static void
api_changed_cb (RelayEndpointEditor *self)
{
  const char *env = gtk_editable_get_text (GTK_EDITABLE (self->key_env_row));

  /* Follow the dialect's usual variable unless the user typed their own. */
  if (env[0] == '\0' || g_str_equal (env, "OPENAI_API_KEY") || g_str_equal (env, "ANTHROPIC_API_KEY"))
    gtk_editable_set_text (GTK_EDITABLE (self->key_env_row),
                           get_api (self) == RELAY_API_ANTHROPIC_MESSAGES ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
}

static void
key_lookup_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(RelayEndpointEditor) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = relay_key_lookup_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  if (relay_key_error_is_no_keyring (error))
    show_key_status (self, _("No keyring is running, so keys cannot be stored here. Put the key in an environment variable instead and name the variable above."), TRUE);
  else if (error != NULL)
    show_key_status (self, error->message, TRUE);
  else if (key != NULL)
    show_key_status (self, _("A key for this endpoint is stored in the keyring. Type a new one to replace it."), FALSE);
  else
    show_key_status (self, _("No key is stored for this endpoint yet."), FALSE);

  /* Only whether a key exists matters here; forget it at once. */
  if (key != NULL)
    memset (key, 0, strlen (key));
}

static void
key_source_changed_cb (RelayEndpointEditor *self)
{
  gboolean keyring = adw_combo_row_get_selected (self->key_source_row) == KEY_SOURCE_KEYRING;

  gtk_widget_set_visible (GTK_WIDGET (self->key_env_row), !keyring);
  gtk_widget_set_visible (GTK_WIDGET (self->key_row), keyring);
  show_key_status (self, NULL, FALSE);

  if (keyring)
    {
      const char *name = gtk_editable_get_text (GTK_EDITABLE (self->name_row));

      if (name[0] != '\0')
        relay_key_lookup_async (name, self->cancellable, key_lookup_cb, g_object_ref (self));
    }
  else
    {
      const char *var = gtk_editable_get_text (GTK_EDITABLE (self->key_env_row));

      if (self->endpoint != NULL && relay_endpoint_get_simulated (self->endpoint))
        show_key_status (self, _("Simulated relays need no key."), FALSE);
      else if (var[0] != '\0' && g_getenv (var) == NULL)
        {
          g_autofree char *message = g_strdup_printf (_("“%s” is not set in Relayscope’s environment."), var);

          show_key_status (self, message, TRUE);
        }
    }
}

static char *
get_key_for_listing (RelayEndpointEditor *self)
{
  const char *var = gtk_editable_get_text (GTK_EDITABLE (self->key_env_row));
  const char *value;

  if (adw_combo_row_get_selected (self->key_source_row) == KEY_SOURCE_KEYRING)
    {
      const char *typed = gtk_editable_get_text (GTK_EDITABLE (self->key_row));

      return typed[0] != '\0' ? g_strdup (typed) : NULL;
    }

  value = var[0] != '\0' ? g_getenv (var) : NULL;
  return value != NULL && value[0] != '\0' ? g_strdup (value) : NULL;
}

static gboolean
model_in_entry (const char *entry,
                const char *model)
{
  g_auto(GStrv) parts = g_strsplit (entry, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    if (g_str_equal (g_strstrip (parts[i]), model))
      return TRUE;

  return FALSE;
}

static void
model_clicked_cb (GtkButton           *button,
                  RelayEndpointEditor *self)
{
  const char *model = gtk_button_get_label (button);
  const char *entry = gtk_editable_get_text (GTK_EDITABLE (self->models_row));
  g_autofree char *text = NULL;

  if (model_in_entry (entry, model))
    return;

  text = entry[0] != '\0' ? g_strdup_printf ("%s, %s", entry, model) : g_strdup (model);
  gtk_editable_set_text (GTK_EDITABLE (self->models_row), text);
}

static void
models_loaded_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(RelayEndpointEditor) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  SoupMessage *msg;
  JsonNode *root;
  JsonArray *data = NULL;
  GtkWidget *child;
  guint n = 0;

  bytes = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  gtk_spinner_stop (self->models_spinner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->list_models_button), TRUE);

  if (bytes == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Cannot list models: %s"), error->message);

      show_toast (self, message);
      return;
    }

  msg = soup_session_get_async_result_message (SOUP_SESSION (object), result);
  if (msg != NULL && !SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (msg)))
    {
      g_autofree char *message = g_strdup_printf (_("Cannot list models: the endpoint answered %u %s"),
                                                  soup_message_get_status (msg),
                                                  soup_message_get_reason_phrase (msg));

      show_toast (self, message);
      return;
    }

  if (json_parser_load_from_data (parser, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL) &&
      (root = json_parser_get_root (parser)) != NULL &&
      JSON_NODE_HOLDS_OBJECT (root) &&
      json_object_has_member (json_node_get_object (root), "data") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (json_node_get_object (root), "data")))
    data = json_object_get_array_member (json_node_get_object (root), "data");

  if (data == NULL)
    {
      show_toast (self, _("Cannot list models: the answer is not a model list"));
      return;
    }

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->models_flow))))
    gtk_flow_box_remove (self->models_flow, child);

  for (guint i = 0; i < json_array_get_length (data) && n < 60; i++)
    {
      JsonNode *node = json_array_get_element (data, i);
      const char *id;
      GtkWidget *button;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      id = json_object_get_string_member_with_default (json_node_get_object (node), "id", NULL);
      if (id == NULL)
        continue;

      button = gtk_button_new_with_label (id);
      gtk_widget_set_tooltip_text (button, _("Add this model"));
      gtk_widget_add_css_class (button, "pill");
      gtk_widget_add_css_class (button, "small");
      g_signal_connect (button, "clicked", G_CALLBACK (model_clicked_cb), self);
      gtk_flow_box_append (self->models_flow, button);
      n++;
    }

  gtk_widget_set_visible (GTK_WIDGET (self->models_flow), n > 0);
  if (n == 0)
    show_toast (self, _("The endpoint lists no models"));
}

static void
fetch_models (RelayEndpointEditor *self,
              const char          *key)
{
  const char *base = gtk_editable_get_text (GTK_EDITABLE (self->url_row));
  const char *ca_file = gtk_editable_get_text (GTK_EDITABLE (self->ca_row));
  g_autofree char *trimmed = g_strdup (base);
  g_autofree char *url = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  SoupMessageHeaders *headers;
  gsize len;

  len = strlen (trimmed);
  while (len > 0 && trimmed[len - 1] == '/')
    trimmed[--len] = '\0';

  /* OpenAI-style base URLs already end in /v1; Anthropic's is the host root. */
  if (get_api (self) == RELAY_API_ANTHROPIC_MESSAGES)
    url = g_strconcat (trimmed, "/v1/models", NULL);
  else
    url = g_strconcat (trimmed, "/models", NULL);

  msg = soup_message_new (SOUP_METHOD_GET, url);
  if (msg == NULL)
    {
      show_toast (self, _("Cannot list models: the base URL is not valid"));
      return;
    }

  headers = soup_message_get_request_headers (msg);
  if (key != NULL)
    {
      if (get_api (self) == RELAY_API_ANTHROPIC_MESSAGES)
        {
          soup_message_headers_replace (headers, "x-api-key", key);
          soup_message_headers_replace (headers, "anthropic-version", "2023-06-01");
        }
      else
        {
          g_autofree char *bearer = g_strconcat ("Bearer ", key, NULL);

          soup_message_headers_replace (headers, "Authorization", bearer);
        }
    }

  g_clear_object (&self->soup);
  self->soup = soup_session_new_with_options ("timeout", 20, NULL);
  if (ca_file[0] != '\0')
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GTlsDatabase) database = g_tls_file_database_new (ca_file, &error);

      if (database == NULL)
        {
          g_autofree char *message = g_strdup_printf (_("Cannot read the CA file: %s"), error->message);

          show_toast (self, message);
          return;
        }
      soup_session_set_tls_database (self->soup, database);
    }

  gtk_spinner_start (self->models_spinner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->list_models_button), FALSE);
  soup_session_send_and_read_async (self->soup, msg, G_PRIORITY_DEFAULT, self->cancellable,
                                    models_loaded_cb, g_object_ref (self));
}

static void
list_models_key_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(RelayEndpointEditor) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = relay_key_lookup_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  fetch_models (self, key);
}

static void
list_models_clicked_cb (RelayEndpointEditor *self)
{
  g_autofree char *key = get_key_for_listing (self);
  const char *name = gtk_editable_get_text (GTK_EDITABLE (self->name_row));

  if (key == NULL &&
      adw_combo_row_get_selected (self->key_source_row) == KEY_SOURCE_KEYRING &&
      name[0] != '\0')
    {
      relay_key_lookup_async (name, self->cancellable, list_models_key_cb, g_object_ref (self));
      return;
    }

  fetch_models (self, key);
}

static void
ca_chosen_cb (GtkNativeDialog     *dialog,
              int                  response,
              RelayEndpointEditor *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);

      if (path != NULL)
        gtk_editable_set_text (GTK_EDITABLE (self->ca_row), path);
    }

  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (self);
}

static void
choose_ca_clicked_cb (RelayEndpointEditor *self)
{
  GtkFileChooserNative *native;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  native = gtk_file_chooser_native_new (_("Choose a CA Certificate"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Choose"), _("_Cancel"));
  gtk_file_filter_set_name (filter, _("PEM Certificates"));
  gtk_file_filter_add_pattern (filter, "*.pem");
  gtk_file_filter_add_pattern (filter, "*.crt");
  gtk_file_filter_add_mime_type (filter, "application/x-x509-ca-cert");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (ca_chosen_cb), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static char **
split_list (const char *text,
            const char *separator)
{
  g_auto(GStrv) parts = g_strsplit (text, separator, -1);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_strstrip (parts[i]);
      if (parts[i][0] != '\0')
        g_strv_builder_add (builder, parts[i]);
    }

  return g_strv_builder_end (builder);
}

static RelayEndpoint *
build_endpoint (RelayEndpointEditor *self)
{
  g_autofree char *name = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->name_row))));
  g_autofree char *url = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->url_row))));
  g_auto(GStrv) models = split_list (gtk_editable_get_text (GTK_EDITABLE (self->models_row)), ",");
  g_auto(GStrv) headers = split_list (gtk_editable_get_text (GTK_EDITABLE (self->headers_row)), ";");
  const char *env = gtk_editable_get_text (GTK_EDITABLE (self->key_env_row));
  const char *ca = gtk_editable_get_text (GTK_EDITABLE (self->ca_row));
  const char *proxy = gtk_editable_get_text (GTK_EDITABLE (self->proxy_row));
  RelayEndpoint *endpoint;

  /* Start from the old endpoint so members this editor does not show are kept. */
  if (self->endpoint != NULL)
    {
      endpoint = relay_endpoint_store_copy (self->endpoint);
      relay_endpoint_set_name (endpoint, name);
      relay_endpoint_set_base_url (endpoint, url);
      relay_endpoint_set_api (endpoint, get_api (self));
    }
  else
    endpoint = relay_endpoint_new (name, url, get_api (self));

  relay_endpoint_set_models (endpoint, (const char * const *) models);
  relay_endpoint_set_headers (endpoint, (const char * const *) headers);
  relay_endpoint_set_key_in_keyring (endpoint,
                                     adw_combo_row_get_selected (self->key_source_row) == KEY_SOURCE_KEYRING);
  relay_endpoint_set_key_env (endpoint, env[0] != '\0' ? env : NULL);
  relay_endpoint_set_ca_file (endpoint, ca[0] != '\0' ? ca : NULL);
  relay_endpoint_set_proxy (endpoint, proxy[0] != '\0' ? proxy : NULL);

  return endpoint;
}

static void
finish_save (RelayEndpointEditor *self)
{
  g_autoptr(RelayEndpoint) endpoint = build_endpoint (self);

  g_signal_emit (self, signals[SAVED], 0, endpoint,
                 self->endpoint != NULL ? relay_endpoint_get_name (self->endpoint) : NULL);
  gtk_window_destroy (GTK_WINDOW (self));
}

static void
key_stored_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(RelayEndpointEditor) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!relay_key_store_finish (result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;

      gtk_widget_set_sensitive (GTK_WIDGET (self->save_button), TRUE);

      if (relay_key_error_is_no_keyring (error))
        {
          /* Offer the other route right away rather than a dead end. */
          adw_combo_row_set_selected (self->key_source_row, KEY_SOURCE_ENV);
          show_key_status (self, _("No keyring is running, so the key cannot be stored. Export it in an environment variable before starting Relayscope, and name the variable here."), TRUE);
        }
      else
        {
          g_autofree char *message = g_strdup_printf (_("Cannot store the key: %s"), error->message);

          show_key_status (self, message, TRUE);
        }
      return;
    }

  gtk_editable_set_text (GTK_EDITABLE (self->key_row), "");
  finish_save (self);
}

static void
save_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  RelayEndpointEditor *self = RELAY_ENDPOINT_EDITOR (widget);
  const char *key = gtk_editable_get_text (GTK_EDITABLE (self->key_row));

  if (adw_combo_row_get_selected (self->key_source_row) == KEY_SOURCE_KEYRING && key[0] != '\0')
    {
      g_autofree char *name = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->name_row))));

      gtk_widget_set_sensitive (GTK_WIDGET (self->save_button), FALSE);
      relay_key_store_async (name, key, self->cancellable, key_stored_cb, g_object_ref (self));
      return;
    }

  finish_save (self);
}

static void
relay_endpoint_editor_dispose (GObject *object)
{
  RelayEndpointEditor *self = (RelayEndpointEditor *)object;

  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), RELAY_TYPE_ENDPOINT_EDITOR);

  g_clear_object (&self->soup);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->endpoint);
  g_clear_object (&self->existing);

  G_OBJECT_CLASS (relay_endpoint_editor_parent_class)->dispose (object);
}

static void
relay_endpoint_editor_class_init (RelayEndpointEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = relay_endpoint_editor_dispose;

  signals[SAVED] =
    g_signal_new ("saved",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, RELAY_TYPE_ENDPOINT, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/relayscope/Relayscope/ui/relay-endpoint-editor.ui");
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, api_row);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, ca_row);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, headers_row);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, key_env_row);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, key_row);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, key_source_row);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, key_status_label);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, list_models_button);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, models_flow);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, models_row);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, models_spinner);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, name_row);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, proxy_row);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, save_button);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, url_row);
  gtk_widget_class_bind_template_child (widget_class, RelayEndpointEditor, window_title);
  gtk_widget_class_bind_template_callback (widget_class, api_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, choose_ca_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, key_source_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, list_models_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, validate_cb);

  gtk_widget_class_install_action (widget_class, "editor.save", NULL, save_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
relay_endpoint_editor_init (RelayEndpointEditor *self)
{
  self->cancellable = g_cancellable_new ();

  gtk_widget_init_template (GTK_WIDGET (self));

  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list_models_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("List the endpoint’s models"),
                                  -1);
}

RelayEndpointEditor *
relay_endpoint_editor_new (GtkWindow     *parent,
                           RelayEndpoint *endpoint,
                           GListModel    *existing)
{
  RelayEndpointEditor *self;

  g_return_val_if_fail (!endpoint || RELAY_IS_ENDPOINT (endpoint), NULL);

  self = g_object_new (RELAY_TYPE_ENDPOINT_EDITOR,
                       "transient-for", parent,
                       NULL);
  g_set_object (&self->endpoint, endpoint);
  g_set_object (&self->existing, existing);

  if (endpoint != NULL)
    {
      const char * const *models = relay_endpoint_get_models (endpoint);
      const char * const *headers = relay_endpoint_get_headers (endpoint);
      g_autofree char *models_text = models != NULL ? g_strjoinv (", ", (char **) models) : NULL;
      g_autofree char *headers_text = headers != NULL ? g_strjoinv ("; ", (char **) headers) : NULL;

      adw_window_title_set_title (self->window_title, _("Edit Endpoint"));
      adw_window_title_set_subtitle (self->window_title, relay_endpoint_get_name (endpoint));
      gtk_editable_set_text (GTK_EDITABLE (self->name_row), relay_endpoint_get_name (endpoint));
      gtk_editable_set_text (GTK_EDITABLE (self->url_row), relay_endpoint_get_base_url (endpoint));
      adw_combo_row_set_selected (self->api_row,
                                  relay_endpoint_get_api (endpoint) == RELAY_API_ANTHROPIC_MESSAGES ? 1 : 0);
      gtk_editable_set_text (GTK_EDITABLE (self->models_row), models_text != NULL ? models_text : "");
      gtk_editable_set_text (GTK_EDITABLE (self->headers_row), headers_text != NULL ? headers_text : "");
      gtk_editable_set_text (GTK_EDITABLE (self->key_env_row), relay_endpoint_get_effective_key_env (endpoint));
      if (relay_endpoint_get_ca_file (endpoint) != NULL)
        gtk_editable_set_text (GTK_EDITABLE (self->ca_row), relay_endpoint_get_ca_file (endpoint));
      if (relay_endpoint_get_proxy (endpoint) != NULL)
        gtk_editable_set_text (GTK_EDITABLE (self->proxy_row), relay_endpoint_get_proxy (endpoint));
      adw_combo_row_set_selected (self->key_source_row,
                                  relay_endpoint_get_key_in_keyring (endpoint) ? KEY_SOURCE_KEYRING : KEY_SOURCE_ENV);
    }
  else
    {
      adw_window_title_set_title (self->window_title, _("Add Endpoint"));
      gtk_editable_set_text (GTK_EDITABLE (self->url_row), "https://");
      api_changed_cb (self);
    }

  key_source_changed_cb (self);
  validate_cb (self);

  return self;
}
