/* relay-run.c: one run of a probe plan for an endpoint × model, its request spec, and its
 * entry in the session file.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "relay-json-private.h"
#include "relay-run.h"

struct _RelayRun
{
  GObject          parent_instance;

  char            *endpoint;
  char            *model;
  char            *prompt;
  char            *prompt_preset;
  char            *reasoning_effort;
  GDateTime       *started;
  JsonObject      *extras;
  JsonObject      *request_extras;
  guint            max_tokens;
  guint            repeat;
  guint            concurrency;
  RelayConnection  connection;
};

G_DEFINE_FINAL_TYPE (RelayRun, relay_run, G_TYPE_OBJECT)

static const char * const run_members[] = { "endpoint", "model", "request", "started", NULL };
static const char * const request_members[] = {
  "prompt", "prompt_preset", "max_tokens", "reasoning_effort", "connection", "repeat",
  "concurrency", NULL
};

static void
relay_run_finalize (GObject *object)
{
  RelayRun *self = (RelayRun *)object;

  g_clear_pointer (&self->endpoint, g_free);
  g_clear_pointer (&self->model, g_free);
  g_clear_pointer (&self->prompt, g_free);
  g_clear_pointer (&self->prompt_preset, g_free);
  g_clear_pointer (&self->reasoning_effort, g_free);
  g_clear_pointer (&self->started, g_date_time_unref);
  g_clear_pointer (&self->extras, json_object_unref);
  g_clear_pointer (&self->request_extras, json_object_unref);

  G_OBJECT_CLASS (relay_run_parent_class)->finalize (object);
}

static void
relay_run_class_init (RelayRunClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = relay_run_finalize;
}

static void
relay_run_init (RelayRun *self)
{
  self->max_tokens = 128;
  self->repeat = 1;
  self->concurrency = 1;
  self->connection = RELAY_CONNECTION_COLD;
}

RelayRun *
relay_run_new (const char *endpoint,
               const char *model)
{
  RelayRun *self = g_object_new (RELAY_TYPE_RUN, NULL);

  self->endpoint = g_strdup (endpoint);
  self->model = g_strdup (model);

  return self;
}

const char *
relay_run_get_endpoint (RelayRun *self)
{
  g_return_val_if_fail (RELAY_IS_RUN (self), NULL);

  return self->endpoint;
}

const char *
relay_run_get_model (RelayRun *self)
{
  g_return_val_if_fail (RELAY_IS_RUN (self), NULL);

  return self->model;
}

#define DEFINE_STRING_FIELD(field)                                         \
  const char *                                                             \
  relay_run_get_##field (RelayRun *self)                                   \
  {                                                                        \
    g_return_val_if_fail (RELAY_IS_RUN (self), NULL);                      \
    return self->field;                                                    \
  }                                                                        \
                                                                           \
  void                                                                     \
  relay_run_set_##field (RelayRun   *self,                                 \
                         const char *value)                                \
  {                                                                        \
    g_return_if_fail (RELAY_IS_RUN (self));                                \
    _relay_str_set (&self->field, value);                                  \
  }

#define DEFINE_UINT_FIELD(field)                                           \
  guint                                                                    \
  relay_run_get_##field (RelayRun *self)                                   \
  {                                                                        \
    g_return_val_if_fail (RELAY_IS_RUN (self), 0);                         \
    return self->field;                                                    \
  }                                                                        \
                                                                           \
  void                                                                     \
  relay_run_set_##field (RelayRun *self,                                   \
                         guint     value)                                  \
  {                                                                        \
    g_return_if_fail (RELAY_IS_RUN (self));                                \
    self->field = value;                                                   \
  }

DEFINE_STRING_FIELD (prompt)
DEFINE_STRING_FIELD (prompt_preset)
DEFINE_STRING_FIELD (reasoning_effort)
DEFINE_UINT_FIELD (max_tokens)
DEFINE_UINT_FIELD (repeat)
DEFINE_UINT_FIELD (concurrency)

RelayConnection
relay_run_get_connection (RelayRun *self)
{
  g_return_val_if_fail (RELAY_IS_RUN (self), RELAY_CONNECTION_COLD);

  return self->connection;
}

void
relay_run_set_connection (RelayRun        *self,
                          RelayConnection  connection)
{
  g_return_if_fail (RELAY_IS_RUN (self));
  g_return_if_fail (connection == RELAY_CONNECTION_COLD || connection == RELAY_CONNECTION_WARM);

  self->connection = connection;
}

GDateTime *
relay_run_get_started (RelayRun *self)
{
  g_return_val_if_fail (RELAY_IS_RUN (self), NULL);

  return self->started;
}

void
relay_run_set_started (RelayRun  *self,
                       GDateTime *started)
{
  g_return_if_fail (RELAY_IS_RUN (self));

  if (started != NULL)
    g_date_time_ref (started);
  g_clear_pointer (&self->started, g_date_time_unref);
  self->started = started;
}

JsonNode *
relay_run_to_json (RelayRun *self)
{
  g_autoptr(JsonObject) object = NULL;
  JsonObject *request;
  JsonNode *node;

  g_return_val_if_fail (RELAY_IS_RUN (self), NULL);

  object = json_object_new ();
  _relay_json_set_string (object, "endpoint", self->endpoint);
  _relay_json_set_string (object, "model", self->model);

  request = json_object_new ();
  _relay_json_set_string (request, "prompt", self->prompt);
  _relay_json_set_string (request, "prompt_preset", self->prompt_preset);
  json_object_set_int_member (request, "max_tokens", self->max_tokens);
  _relay_json_set_string (request, "reasoning_effort", self->reasoning_effort);
  json_object_set_string_member (request, "connection",
                                 relay_connection_to_string (self->connection));
  json_object_set_int_member (request, "repeat", self->repeat);
  json_object_set_int_member (request, "concurrency", self->concurrency);
  _relay_json_add_unknown (request, self->request_extras);
  json_object_set_object_member (object, "request", request);

  _relay_json_set_time (object, "started", self->started);
  _relay_json_add_unknown (object, self->extras);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, object);

  return node;
}

RelayRun *
relay_run_new_from_json (JsonNode  *node,
                         GError   **error)
{
  g_autoptr(RelayRun) self = NULL;
  g_autoptr(GDateTime) started = NULL;
  JsonObject *object;
  JsonObject *request;
  const char *endpoint;
  const char *model;

  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                           "not an object");
      return NULL;
    }

  object = json_node_get_object (node);

  if (!_relay_json_require_string (object, "", "endpoint", &endpoint, error) ||
      !_relay_json_require_string (object, "", "model", &model, error) ||
      !_relay_json_get_object (object, "", "request", &request, error) ||
      !_relay_json_get_time (object, "", "started", &started, error))
    return NULL;

  self = relay_run_new (endpoint, model);
  relay_run_set_started (self, started);

  if (request != NULL)
    {
      const char *prompt;
      const char *preset;
      const char *effort;
      const char *connection_name;
      gint64 max_tokens;
      gint64 repeat;
      gint64 concurrency;
      RelayConnection connection = RELAY_CONNECTION_COLD;

      if (!_relay_json_get_string (request, "request.", "prompt", &prompt, error) ||
          !_relay_json_get_string (request, "request.", "prompt_preset", &preset, error) ||
          !_relay_json_get_int (request, "request.", "max_tokens", 0, G_MAXUINT, 128,
                                &max_tokens, error) ||
          !_relay_json_get_string (request, "request.", "reasoning_effort", &effort, error) ||
          !_relay_json_get_string (request, "request.", "connection", &connection_name, error) ||
          !_relay_json_get_int (request, "request.", "repeat", 0, G_MAXUINT, 1, &repeat, error) ||
          !_relay_json_get_int (request, "request.", "concurrency", 0, G_MAXUINT, 1,
                                &concurrency, error))
        return NULL;

      if (connection_name != NULL && !relay_connection_from_string (connection_name, &connection))
        {
          g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                       "request.connection “%s” is not cold or warm", connection_name);
          return NULL;
        }

      relay_run_set_prompt (self, prompt);
      relay_run_set_prompt_preset (self, preset);
      relay_run_set_max_tokens (self, (guint) max_tokens);
      relay_run_set_reasoning_effort (self, effort);
      relay_run_set_connection (self, connection);
      relay_run_set_repeat (self, (guint) repeat);
      relay_run_set_concurrency (self, (guint) concurrency);
      self->request_extras = _relay_json_collect_unknown (request, request_members);
    }

  self->extras = _relay_json_collect_unknown (object, run_members);

  return g_steal_pointer (&self);
}
