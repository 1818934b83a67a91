/* relay-run.h: one run of a probe plan for an endpoint × model, and its request spec.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "relay-types.h"

G_BEGIN_DECLS

#define RELAY_TYPE_RUN (relay_run_get_type())

G_DECLARE_FINAL_TYPE (RelayRun, relay_run, RELAY, RUN, GObject)

RelayRun        *relay_run_new                   (const char      *endpoint,
                                                  const char      *model);
const char      *relay_run_get_endpoint          (RelayRun        *self);
const char      *relay_run_get_model             (RelayRun        *self);
/* Request spec. */
const char      *relay_run_get_prompt            (RelayRun        *self);
void             relay_run_set_prompt            (RelayRun        *self,
                                                  const char      *prompt);
/* A label for the prompt ("short", "long-context", "cached-prefix", or "custom"). */
const char      *relay_run_get_prompt_preset     (RelayRun        *self);
void             relay_run_set_prompt_preset     (RelayRun        *self,
                                                  const char      *preset);
guint            relay_run_get_max_tokens        (RelayRun        *self);
void             relay_run_set_max_tokens        (RelayRun        *self,
                                                  guint            max_tokens);
/* "low", "medium", "high" or NULL (not sent). */
const char      *relay_run_get_reasoning_effort  (RelayRun        *self);
void             relay_run_set_reasoning_effort  (RelayRun        *self,
                                                  const char      *effort);
RelayConnection  relay_run_get_connection        (RelayRun        *self);
void             relay_run_set_connection        (RelayRun        *self,
                                                  RelayConnection  connection);
guint            relay_run_get_repeat            (RelayRun        *self);
void             relay_run_set_repeat            (RelayRun        *self,
                                                  guint            repeat);
guint            relay_run_get_concurrency       (RelayRun        *self);
void             relay_run_set_concurrency       (RelayRun        *self,
                                                  guint            concurrency);
GDateTime       *relay_run_get_started           (RelayRun        *self);
void             relay_run_set_started           (RelayRun        *self,
                                                  GDateTime       *started);

JsonNode        *relay_run_to_json               (RelayRun        *self);
RelayRun        *relay_run_new_from_json         (JsonNode        *node,
                                                  GError         **error);

G_END_DECLS
