/* relay-probe-plan.c: what to probe: endpoints × models × request spec × repeat, with the
 * concurrency, rate and timeout the prober honours.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "relay-json-private.h"
#include "relay-probe-plan.h"

struct _RelayProbePlan
{
  GObject          parent_instance;

  GPtrArray       *endpoints;
  char            *prompt;
  char            *prompt_preset;
  char            *reasoning_effort;
  char            *ca_file;
  double           rate;
  double           timeout;
  gsize            max_line;
  guint            max_tokens;
  guint            repeat;
  guint            concurrency;
  RelayConnection  connection;
};

G_DEFINE_FINAL_TYPE (RelayProbePlan, relay_probe_plan, G_TYPE_OBJECT)

static void
relay_probe_plan_finalize (GObject *object)
{
  RelayProbePlan *self = (RelayProbePlan *)object;

  g_clear_pointer (&self->endpoints, g_ptr_array_unref);
  g_clear_pointer (&self->prompt, g_free);
  g_clear_pointer (&self->prompt_preset, g_free);
  g_clear_pointer (&self->reasoning_effort, g_free);
  g_clear_pointer (&self->ca_file, g_free);

  G_OBJECT_CLASS (relay_probe_plan_parent_class)->finalize (object);
}

static void
relay_probe_plan_class_init (RelayProbePlanClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = relay_probe_plan_finalize;
}

static void
relay_probe_plan_init (RelayProbePlan *self)
{
  self->endpoints = g_ptr_array_new_with_free_func (g_object_unref);
  self->prompt = g_strdup ("Reply with a short paragraph about latency.");
  self->prompt_preset = g_strdup ("short");
  self->max_tokens = 128;
  self->repeat = 1;
  self->concurrency = 1;
  self->rate = 0;
  self->connection = RELAY_CONNECTION_COLD;
  self->timeout = 60;
  /* Far above any real SSE line, low enough that a runaway stream cannot eat the memory. */
  self->max_line = 16 * 1024 * 1024;
}

RelayProbePlan *
relay_probe_plan_new (void)
{
  return g_object_new (RELAY_TYPE_PROBE_PLAN, NULL);
}

void
relay_probe_plan_add_endpoint (RelayProbePlan *self,
                               RelayEndpoint  *endpoint)
{
  g_return_if_fail (RELAY_IS_PROBE_PLAN (self));
  g_return_if_fail (RELAY_IS_ENDPOINT (endpoint));

  g_ptr_array_add (self->endpoints, g_object_ref (endpoint));
}

GPtrArray *
relay_probe_plan_get_endpoints (RelayProbePlan *self)
{
  g_return_val_if_fail (RELAY_IS_PROBE_PLAN (self), NULL);

  return self->endpoints;
}

#define DEFINE_FIELD(field, Type, fallback, check)                         \
  Type                                                                     \
  relay_probe_plan_get_##field (RelayProbePlan *self)                      \
  {                                                                        \
    g_return_val_if_fail (RELAY_IS_PROBE_PLAN (self), fallback);           \
    return self->field;                                                    \
  }                                                                        \
                                                                           \
  void                                                                     \
  relay_probe_plan_set_##field (RelayProbePlan *self,                      \
                                Type            field)                     \
  {                                                                        \
    g_return_if_fail (RELAY_IS_PROBE_PLAN (self));                         \
    g_return_if_fail (check);                                              \
    self->field = field;                                                   \
  }

#define DEFINE_STRING_FIELD(field)                                         \
  const char *                                                             \
  relay_probe_plan_get_##field (RelayProbePlan *self)                      \
  {                                                                        \
    g_return_val_if_fail (RELAY_IS_PROBE_PLAN (self), NULL);               \
    return self->field;                                                    \
  }                                                                        \
                                                                           \
  void                                                                     \
  relay_probe_plan_set_##field (RelayProbePlan *self,                      \
                                const char     *value)                     \
  {                                                                        \
    g_return_if_fail (RELAY_IS_PROBE_PLAN (self));                         \
    _relay_str_set (&self->field, value);                                  \
  }

DEFINE_STRING_FIELD (prompt)
DEFINE_STRING_FIELD (prompt_preset)
DEFINE_STRING_FIELD (reasoning_effort)
DEFINE_STRING_FIELD (ca_file)
DEFINE_FIELD (max_tokens, guint, 0, TRUE)
DEFINE_FIELD (repeat, guint, 0, TRUE)
DEFINE_FIELD (concurrency, guint, 1, concurrency >= 1)
DEFINE_FIELD (rate, double, 0, rate >= 0)
DEFINE_FIELD (connection, RelayConnection, RELAY_CONNECTION_COLD,
              connection == RELAY_CONNECTION_COLD || connection == RELAY_CONNECTION_WARM)
DEFINE_FIELD (timeout, double, 0, timeout >= 0)
DEFINE_FIELD (max_line, gsize, 0, max_line > 0)
