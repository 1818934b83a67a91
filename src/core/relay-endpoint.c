/* relay-endpoint.c: an API endpoint to probe, and its entry in the session file (which
 * never holds a secret).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "relay-endpoint.h"
#include "relay-json-private.h"

struct _RelayEndpoint
{
  GObject     parent_instance;

  char       *name;
  char       *base_url;
  char      **models;
  char       *key_env;
  char      **headers;
  char       *ca_file;
  char       *proxy;
  JsonObject *extras;
  RelayApi    api;
  guint       key_in_keyring : 1;
  guint       simulated : 1;
};

G_DEFINE_FINAL_TYPE (RelayEndpoint, relay_endpoint, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_BASE_URL,
  PROP_API,
  PROP_MODELS,
  PROP_KEY_ENV,
  PROP_KEY_IN_KEYRING,
  PROP_HEADERS,
  PROP_CA_FILE,
  PROP_PROXY,
  PROP_SIMULATED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char * const endpoint_members[] = {
  "name", "base_url", "api", "models", "key_env", "key_in_keyring", "headers", "ca_file",
  "proxy", "simulated", NULL
};

static void
relay_endpoint_finalize (GObject *object)
{
  RelayEndpoint *self = (RelayEndpoint *)object;

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->base_url, g_free);
  g_clear_pointer (&self->models, g_strfreev);
  g_clear_pointer (&self->key_env, g_free);
  g_clear_pointer (&self->headers, g_strfreev);
  g_clear_pointer (&self->ca_file, g_free);
  g_clear_pointer (&self->proxy, g_free);
  g_clear_pointer (&self->extras, json_object_unref);

  G_OBJECT_CLASS (relay_endpoint_parent_class)->finalize (object);
}

static void
relay_endpoint_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  RelayEndpoint *self = RELAY_ENDPOINT (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;

    case PROP_BASE_URL:
      g_value_set_string (value, self->base_url);
      break;

    case PROP_API:
      g_value_set_uint (value, self->api);
      break;

    case PROP_MODELS:
      g_value_set_boxed (value, self->models);
      break;

    case PROP_KEY_ENV:
      g_value_set_string (value, self->key_env);
      break;

    case PROP_KEY_IN_KEYRING:
      g_value_set_boolean (value, self->key_in_keyring);
      break;

    case PROP_HEADERS:
      g_value_set_boxed (value, self->headers);
      break;

    case PROP_CA_FILE:
      g_value_set_string (value, self->ca_file);
      break;

    case PROP_PROXY:
      g_value_set_string (value, self->proxy);
      break;

    case PROP_SIMULATED:
      g_value_set_boolean (value, self->simulated);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_endpoint_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  RelayEndpoint *self = RELAY_ENDPOINT (object);

  switch (prop_id)
    {
    case PROP_NAME:
      relay_endpoint_set_name (self, g_value_get_string (value));
      break;

    case PROP_BASE_URL:
      relay_endpoint_set_base_url (self, g_value_get_string (value));
      break;

    case PROP_API:
      relay_endpoint_set_api (self, g_value_get_uint (value));
      break;

    case PROP_MODELS:
      relay_endpoint_set_models (self, g_value_get_boxed (value));
      break;

    case PROP_KEY_ENV:
      relay_endpoint_set_key_env (self, g_value_get_string (value));
      break;

    case PROP_KEY_IN_KEYRING:
      relay_endpoint_set_key_in_keyring (self, g_value_get_boolean (value));
      break;

    case PROP_HEADERS:
      relay_endpoint_set_headers (self, g_value_get_boxed (value));
      break;

    case PROP_CA_FILE:
      relay_endpoint_set_ca_file (self, g_value_get_string (value));
      break;

    case PROP_PROXY:
      relay_endpoint_set_proxy (self, g_value_get_string (value));
      break;

    case PROP_SIMULATED:
      relay_endpoint_set_simulated (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_endpoint_class_init (RelayEndpointClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = relay_endpoint_finalize;
  object_class->get_property = relay_endpoint_get_property;
  object_class->set_property = relay_endpoint_set_property;

  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_BASE_URL] =
    g_param_spec_string ("base-url", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /* A RelayApi value; the enum has no registered GType in the core. */
  properties[PROP_API] =
    g_param_spec_uint ("api", NULL, NULL,
                       RELAY_API_OPENAI_CHAT, RELAY_API_ANTHROPIC_MESSAGES, RELAY_API_OPENAI_CHAT,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_MODELS] =
    g_param_spec_boxed ("models", NULL, NULL,
                        G_TYPE_STRV,
                        (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_KEY_ENV] =
    g_param_spec_string ("key-env", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_KEY_IN_KEYRING] =
    g_param_spec_boolean ("key-in-keyring", NULL, NULL,
                          FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_HEADERS] =
    g_param_spec_boxed ("headers", NULL, NULL,
                        G_TYPE_STRV,
                        (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_CA_FILE] =
    g_param_spec_string ("ca-file", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_PROXY] =
    g_param_spec_string ("proxy", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_SIMULATED] =
    g_param_spec_boolean ("simulated", NULL, NULL,
                          FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
relay_endpoint_init (RelayEndpoint *self)
{
  self->models = g_new0 (char *, 1);
  self->headers = g_new0 (char *, 1);
}

RelayEndpoint *
relay_endpoint_new (const char *name,
                    const char *base_url,
                    RelayApi    api)
{
  return g_object_new (RELAY_TYPE_ENDPOINT,
                       "name", name,
                       "base-url", base_url,
                       "api", (guint) api,
                       NULL);
}

#define DEFINE_STRING_PROPERTY(field, PROP)                                \
  const char *                                                             \
  relay_endpoint_get_##field (RelayEndpoint *self)                         \
  {                                                                        \
    g_return_val_if_fail (RELAY_IS_ENDPOINT (self), NULL);                 \
    return self->field;                                                    \
  }                                                                        \
                                                                           \
  void                                                                     \
  relay_endpoint_set_##field (RelayEndpoint *self,                         \
                              const char    *value)                        \
  {                                                                        \
    g_return_if_fail (RELAY_IS_ENDPOINT (self));                           \
    if (_relay_str_set (&self->field, value))                              \
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP]);        \
  }

DEFINE_STRING_PROPERTY (name, PROP_NAME)
DEFINE_STRING_PROPERTY (base_url, PROP_BASE_URL)
DEFINE_STRING_PROPERTY (key_env, PROP_KEY_ENV)
DEFINE_STRING_PROPERTY (ca_file, PROP_CA_FILE)
DEFINE_STRING_PROPERTY (proxy, PROP_PROXY)

RelayApi
relay_endpoint_get_api (RelayEndpoint *self)
{
  g_return_val_if_fail (RELAY_IS_ENDPOINT (self), RELAY_API_OPENAI_CHAT);

  return self->api;
}

void
relay_endpoint_set_api (RelayEndpoint *self,
                        RelayApi       api)
{
  g_return_if_fail (RELAY_IS_ENDPOINT (self));
  g_return_if_fail (api == RELAY_API_OPENAI_CHAT || api == RELAY_API_ANTHROPIC_MESSAGES);

  if (self->api != api)
    {
      self->api = api;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_API]);
    }
}

static gboolean
set_strv (char               ***field,
          const char * const   *value)
{
  if (g_strv_equal ((const char * const *) *field, value ? value : (const char * const []) { NULL }))
    return FALSE;

  g_strfreev (*field);
  *field = value ? g_strdupv ((char **) value) : g_new0 (char *, 1);

  return TRUE;
}

const char * const *
relay_endpoint_get_models (RelayEndpoint *self)
{
  g_return_val_if_fail (RELAY_IS_ENDPOINT (self), NULL);

  return (const char * const *) self->models;
}

void
relay_endpoint_set_models (RelayEndpoint      *self,
                           const char * const *models)
{
  g_return_if_fail (RELAY_IS_ENDPOINT (self));

  if (set_strv (&self->models, models))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODELS]);
}

const char * const *
relay_endpoint_get_headers (RelayEndpoint *self)
{
  g_return_val_if_fail (RELAY_IS_ENDPOINT (self), NULL);

  return (const char * const *) self->headers;
}

void
relay_endpoint_set_headers (RelayEndpoint      *self,
                            const char * const *headers)
{
  g_return_if_fail (RELAY_IS_ENDPOINT (self));

  if (set_strv (&self->headers, headers))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HEADERS]);
}

gboolean
relay_endpoint_get_key_in_keyring (RelayEndpoint *self)
{
  g_return_val_if_fail (RELAY_IS_ENDPOINT (self), FALSE);

  return self->key_in_keyring;
}

void
relay_endpoint_set_key_in_keyring (RelayEndpoint *self,
                                   gboolean       in_keyring)
{
  g_return_if_fail (RELAY_IS_ENDPOINT (self));

  in_keyring = !!in_keyring;

  if (self->key_in_keyring != in_keyring)
    {
      self->key_in_keyring = in_keyring;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_KEY_IN_KEYRING]);
    }
}

gboolean
relay_endpoint_get_simulated (RelayEndpoint *self)
{
  g_return_val_if_fail (RELAY_IS_ENDPOINT (self), FALSE);

  return self->simulated;
}

void
relay_endpoint_set_simulated (RelayEndpoint *self,
                              gboolean       simulated)
{
  g_return_if_fail (RELAY_IS_ENDPOINT (self));

  simulated = !!simulated;

  if (self->simulated != simulated)
    {
      self->simulated = simulated;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SIMULATED]);
    }
}

const char *
relay_endpoint_get_effective_key_env (RelayEndpoint *self)
{
  g_return_val_if_fail (RELAY_IS_ENDPOINT (self), NULL);

  if (self->key_env != NULL && self->key_env[0] != '\0')
    return self->key_env;

  return self->api == RELAY_API_ANTHROPIC_MESSAGES ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
}

char *
relay_endpoint_dup_request_url (RelayEndpoint *self)
{
  const char *path;
  gsize len;

  g_return_val_if_fail (RELAY_IS_ENDPOINT (self), NULL);

  if (self->base_url == NULL)
    return NULL;

  /* The paths are fixed by the vendors' APIs; kept here so an endpoint does not depend on
   * the dialect code. */
  path = self->api == RELAY_API_ANTHROPIC_MESSAGES ? "/v1/messages" : "/chat/completions";

  len = strlen (self->base_url);
  while (len > 0 && self->base_url[len - 1] == '/')
    len--;

  return g_strdup_printf ("%.*s%s", (int) len, self->base_url, path);
}

/* Headers that carry a key must never reach a file, whatever the user typed. APIs name
 * them in many ways (Authorization, x-api-key, Azure's api-key, Google's x-goog-api-key,
 * a relay's X-Auth-Token, a cookie), so any name that says it holds one counts: leaving a
 * harmless header out of the file costs far less than writing a key into it. */
gboolean
relay_header_is_secret (const char *header)
{
  static const char * const words[] = { "auth", "key", "token", "secret", "cookie", "password" };
  const char *colon = strchr (header, ':');
  g_autofree char *name = g_ascii_strdown (header, colon ? (gssize) (colon - header) : -1);

  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (strstr (name, words[i]) != NULL)
      return TRUE;

  return FALSE;
}

JsonNode *
relay_endpoint_to_json (RelayEndpoint *self)
{
  g_autoptr(JsonObject) object = NULL;
  JsonArray *headers;
  JsonNode *node;

  g_return_val_if_fail (RELAY_IS_ENDPOINT (self), NULL);

  object = json_object_new ();
  _relay_json_set_string (object, "name", self->name);
  _relay_json_set_string (object, "base_url", self->base_url);
  json_object_set_string_member (object, "api", relay_api_to_string (self->api));
  _relay_json_set_strv (object, "models", (const char * const *) self->models);
  _relay_json_set_string (object, "key_env", self->key_env);
  json_object_set_boolean_member (object, "key_in_keyring", self->key_in_keyring);

  headers = json_array_new ();
  for (guint i = 0; self->headers[i] != NULL; i++)
    {
      if (relay_header_is_secret (self->headers[i]))
        {
          g_warning ("Not saving a credential header of endpoint “%s”",
                     self->name ? self->name : "");
          continue;
        }

      json_array_add_string_element (headers, self->headers[i]);
    }
  json_object_set_array_member (object, "headers", headers);

  _relay_json_set_string (object, "ca_file", self->ca_file);
  _relay_json_set_string (object, "proxy", self->proxy);
  json_object_set_boolean_member (object, "simulated", self->simulated);
  _relay_json_add_unknown (object, self->extras);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, object);

  return node;
}

RelayEndpoint *
relay_endpoint_new_from_json (JsonNode  *node,
                              GError   **error)
{
  g_autoptr(RelayEndpoint) self = NULL;
  g_auto(GStrv) models = NULL;
  g_auto(GStrv) headers = NULL;
  JsonObject *object;
  const char *name;
  const char *base_url;
  const char *api_name;
  const char *key_env;
  const char *ca_file;
  const char *proxy;
  gboolean key_in_keyring;
  gboolean simulated;
  RelayApi api;

  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                           "not an object");
      return NULL;
    }

  object = json_node_get_object (node);

  if (!_relay_json_require_string (object, "", "name", &name, error) ||
      !_relay_json_require_string (object, "", "base_url", &base_url, error) ||
      !_relay_json_require_string (object, "", "api", &api_name, error) ||
      !_relay_json_get_strv (object, "", "models", &models, error) ||
      !_relay_json_get_string (object, "", "key_env", &key_env, error) ||
      !_relay_json_get_bool (object, "", "key_in_keyring", &key_in_keyring, error) ||
      !_relay_json_get_strv (object, "", "headers", &headers, error) ||
      !_relay_json_get_string (object, "", "ca_file", &ca_file, error) ||
      !_relay_json_get_string (object, "", "proxy", &proxy, error) ||
      !_relay_json_get_bool (object, "", "simulated", &simulated, error))
    return NULL;

  if (!relay_api_from_string (api_name, &api))
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "api “%s” is not a known API", api_name);
      return NULL;
    }

  self = relay_endpoint_new (name, base_url, api);
  relay_endpoint_set_models (self, (const char * const *) models);
  relay_endpoint_set_key_env (self, key_env);
  relay_endpoint_set_key_in_keyring (self, key_in_keyring);
  relay_endpoint_set_headers (self, (const char * const *) headers);
  relay_endpoint_set_ca_file (self, ca_file);
  relay_endpoint_set_proxy (self, proxy);
  relay_endpoint_set_simulated (self, simulated);
  self->extras = _relay_json_collect_unknown (object, endpoint_members);

  return g_steal_pointer (&self);
}
