/* relay-endpoint-store.c: the user's endpoints on disk, keys in the keyring.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n.h>
#include <libsecret/secret.h>

#include "relay-endpoint-store.h"

#define ENDPOINTS_FORMAT "relayscope-endpoints"

static const SecretSchema *
get_key_schema (void)
{
  static const SecretSchema schema = {
    "io.github.relayscope.Relayscope.Key", SECRET_SCHEMA_NONE,
    {
      { "endpoint", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    }
  };

  return &schema;
}

char *
relay_endpoint_store_get_path (void)
{
  return g_build_filename (g_get_user_config_dir (), "relayscope", "endpoints.json", NULL);
}

guint
relay_endpoint_store_find (GListModel *endpoints,
                           const char *name)
{
  guint n = g_list_model_get_n_items (endpoints);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RelayEndpoint) endpoint = g_list_model_get_item (endpoints, i);

      if (g_strcmp0 (relay_endpoint_get_name (endpoint), name) == 0)
        return i;
    }

  return G_MAXUINT;
}

RelayEndpoint *
relay_endpoint_store_copy (RelayEndpoint *endpoint)
{
  g_autoptr(JsonNode) node = relay_endpoint_to_json (endpoint);
  g_autoptr(GError) error = NULL;
  RelayEndpoint *copy = relay_endpoint_new_from_json (node, &error);

  if (copy == NULL)
    {
      /* Cannot happen for an endpoint's own JSON; keep going with the basics. */
      g_warning ("Cannot copy endpoint: %s", error->message);
      copy = relay_endpoint_new (relay_endpoint_get_name (endpoint),
                                 relay_endpoint_get_base_url (endpoint),
                                 relay_endpoint_get_api (endpoint));
    }

  /* Simulated is not part of the file form on purpose; carry it over by hand. */
  relay_endpoint_set_simulated (copy, relay_endpoint_get_simulated (endpoint));
  relay_endpoint_set_ca_file (copy, relay_endpoint_get_ca_file (endpoint));

  return copy;
}

gboolean
relay_endpoint_store_load (GListStore  *store,
                           GError     **error)
{
  g_autofree char *path = relay_endpoint_store_get_path ();
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GPtrArray) loaded = g_ptr_array_new_with_free_func (g_object_unref);
  JsonObject *root;
  JsonArray *array;

  g_return_val_if_fail (G_IS_LIST_STORE (store), FALSE);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_list_store_remove_all (store);
      return TRUE;
    }

  if (!json_parser_load_from_file (parser, path, error))
    return FALSE;

  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)) ||
      !(root = json_node_get_object (json_parser_get_root (parser))) ||
      g_strcmp0 (json_object_get_string_member_with_default (root, "format", ""), ENDPOINTS_FORMAT) != 0 ||
      !json_object_has_member (root, "endpoints") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (root, "endpoints")))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("“%s” is not a Relayscope endpoints file"), path);
      return FALSE;
    }

  array = json_object_get_array_member (root, "endpoints");
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      RelayEndpoint *endpoint = relay_endpoint_new_from_json (json_array_get_element (array, i), error);

      if (endpoint == NULL)
        return FALSE;

      g_ptr_array_add (loaded, endpoint);
    }

  g_list_store_splice (store, 0, g_list_model_get_n_items (G_LIST_MODEL (store)),
                       loaded->pdata, loaded->len);

  return TRUE;
}

gboolean
relay_endpoint_store_save (GListModel  *endpoints,
                           GError     **error)
{
  g_autofree char *path = relay_endpoint_store_get_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *data = NULL;
  guint n;

  g_return_val_if_fail (G_IS_LIST_MODEL (endpoints), FALSE);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "format");
  json_builder_add_string_value (builder, ENDPOINTS_FORMAT);
  json_builder_set_member_name (builder, "version");
  json_builder_add_int_value (builder, 1);
  json_builder_set_member_name (builder, "endpoints");
  json_builder_begin_array (builder);

  n = g_list_model_get_n_items (endpoints);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RelayEndpoint) endpoint = g_list_model_get_item (endpoints, i);

      if (relay_endpoint_get_simulated (endpoint))
        continue;

      json_builder_add_value (builder, relay_endpoint_to_json (endpoint));
    }

  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  data = json_generator_to_data (generator, NULL);

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Cannot create “%s”: %s"), dir, g_strerror (errsv));
      return FALSE;
    }

  return g_file_set_contents_full (path, data, -1,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                   0600, error);
}

static gboolean
import_one (GListStore *store,
            const char *name,
            const char *url_var,
            const char *key_var,
            const char *default_url,
            RelayApi    api)
{
  const char *url = g_getenv (url_var);
  const char *key = g_getenv (key_var);
  g_autoptr(RelayEndpoint) endpoint = NULL;
  const char *models[2] = { NULL, NULL };

  /* Only the presence of the key is checked; its value is never read into the app. */
  if ((url == NULL || url[0] == '\0') && (key == NULL || key[0] == '\0'))
    return FALSE;

  if (relay_endpoint_store_find (G_LIST_MODEL (store), name) != G_MAXUINT)
    return FALSE;

  endpoint = relay_endpoint_new (name, url != NULL && url[0] != '\0' ? url : default_url, api);
  relay_endpoint_set_key_env (endpoint, key_var);
  models[0] = api == RELAY_API_OPENAI_CHAT ? "gpt-4o-mini" : "claude-3-5-haiku-latest";
  relay_endpoint_set_models (endpoint, models);
  g_list_store_append (store, endpoint);

  return TRUE;
}

guint
relay_endpoint_store_import_environment (GListStore *store)
{
  guint added = 0;

  g_return_val_if_fail (G_IS_LIST_STORE (store), 0);

  added += import_one (store, "OpenAI (environment)", "OPENAI_BASE_URL", "OPENAI_API_KEY",
                       "https://api.openai.com/v1", RELAY_API_OPENAI_CHAT);
  added += import_one (store, "Anthropic (environment)", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY",
                       "https://api.anthropic.com", RELAY_API_ANTHROPIC_MESSAGES);

  return added;
}

static void
key_store_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!secret_password_store_finish (result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
relay_key_store_async (const char          *endpoint_name,
                       const char          *key,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *label = NULL;

  g_return_if_fail (endpoint_name != NULL);
  g_return_if_fail (key != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, relay_key_store_async);

  /* Translators: the label of the API key in the keyring */
  label = g_strdup_printf (_("Relayscope API key for “%s”"), endpoint_name);
  secret_password_store (get_key_schema (), SECRET_COLLECTION_DEFAULT, label, key,
                         cancellable, key_store_cb, g_steal_pointer (&task),
                         "endpoint", endpoint_name,
                         NULL);
}

gboolean
relay_key_store_finish (GAsyncResult  *result,
                        GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
key_lookup_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  char *key = secret_password_lookup_finish (result, &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, key, (GDestroyNotify) secret_password_free);
}

void
relay_key_lookup_async (const char          *endpoint_name,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (endpoint_name != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, relay_key_lookup_async);
  secret_password_lookup (get_key_schema (), cancellable, key_lookup_cb, g_steal_pointer (&task),
                          "endpoint", endpoint_name,
                          NULL);
}

char *
relay_key_lookup_finish (GAsyncResult  *result,
                         GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
relay_key_error_is_no_keyring (const GError *error)
{
  if (error == NULL)
    return FALSE;

  if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND) ||
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_EXEC_FAILED))
    return TRUE;

  /* Without a session bus GDBus only says so in words. */
  return error->message != NULL &&
         (strstr (error->message, "Cannot autolaunch D-Bus") != NULL ||
          strstr (error->message, "DBUS_SESSION_BUS_ADDRESS") != NULL);
}

char *
relay_endpoint_store_key_func (RelayEndpoint *endpoint,
                               gpointer       user_data)
{
  const char *value;

  if (relay_endpoint_get_simulated (endpoint))
    return g_strdup ("demo-key");

  if (relay_endpoint_get_key_in_keyring (endpoint))
    {
      g_autoptr(GError) error = NULL;
      char *key;

      key = secret_password_lookup_sync (get_key_schema (), NULL, &error,
                                         "endpoint", relay_endpoint_get_name (endpoint),
                                         NULL);
      if (key != NULL)
        {
          char *copy = g_strdup (key);

          secret_password_free (key);
          return copy;
        }

      if (error != NULL)
        g_debug ("No key in the keyring for %s: %s",
                 relay_endpoint_get_name (endpoint), error->message);
      return NULL;
    }

  value = g_getenv (relay_endpoint_get_effective_key_env (endpoint));

  return value != NULL && value[0] != '\0' ? g_strdup (value) : NULL;
}
