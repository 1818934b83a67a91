/* relay-probe-plan.h: what to probe: endpoints × models × request spec × repeat.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "relay-endpoint.h"
#include "relay-types.h"

G_BEGIN_DECLS

#define RELAY_TYPE_PROBE_PLAN (relay_probe_plan_get_type())

G_DECLARE_FINAL_TYPE (RelayProbePlan, relay_probe_plan, RELAY, PROBE_PLAN, GObject)

RelayProbePlan  *relay_probe_plan_new                  (void);
/* Every model of the endpoint is probed (or "default" when it lists none). */
void             relay_probe_plan_add_endpoint         (RelayProbePlan  *self,
                                                        RelayEndpoint   *endpoint);
GPtrArray       *relay_probe_plan_get_endpoints        (RelayProbePlan  *self);
const char      *relay_probe_plan_get_prompt           (RelayProbePlan  *self);
void             relay_probe_plan_set_prompt           (RelayProbePlan  *self,
                                                        const char      *prompt);
const char      *relay_probe_plan_get_prompt_preset    (RelayProbePlan  *self);
void             relay_probe_plan_set_prompt_preset    (RelayProbePlan  *self,
                                                        const char      *preset);
guint            relay_probe_plan_get_max_tokens       (RelayProbePlan  *self);
void             relay_probe_plan_set_max_tokens       (RelayProbePlan  *self,
                                                        guint            max_tokens);
const char      *relay_probe_plan_get_reasoning_effort (RelayProbePlan  *self);
void             relay_probe_plan_set_reasoning_effort (RelayProbePlan  *self,
                                                        const char      *effort);
guint            relay_probe_plan_get_repeat           (RelayProbePlan  *self);
void             relay_probe_plan_set_repeat           (RelayProbePlan  *self,
                                                        guint            repeat);
/* Probes in flight at once, over the whole plan (>= 1). */
guint            relay_probe_plan_get_concurrency      (RelayProbePlan  *self);
void             relay_probe_plan_set_concurrency      (RelayProbePlan  *self,
                                                        guint            concurrency);
/* Probes started per second (token bucket); 0 for no limit. */
double           relay_probe_plan_get_rate             (RelayProbePlan  *self);
void             relay_probe_plan_set_rate             (RelayProbePlan  *self,
                                                        double           rate);
RelayConnection  relay_probe_plan_get_connection       (RelayProbePlan  *self);
void             relay_probe_plan_set_connection       (RelayProbePlan  *self,
                                                        RelayConnection  connection);
/* Per-probe timeout in seconds (whole probe, start → end); 0 for none. */
double           relay_probe_plan_get_timeout          (RelayProbePlan  *self);
void             relay_probe_plan_set_timeout          (RelayProbePlan  *self,
                                                        double           timeout);
/* Longest SSE line accepted, bytes. */
gsize            relay_probe_plan_get_max_line         (RelayProbePlan  *self);
void             relay_probe_plan_set_max_line         (RelayProbePlan  *self,
                                                        gsize            max_line);
/* Extra CA file trusted for every endpoint (in addition to the endpoint's own). */
const char      *relay_probe_plan_get_ca_file          (RelayProbePlan  *self);
void             relay_probe_plan_set_ca_file          (RelayProbePlan  *self,
                                                        const char      *ca_file);

G_END_DECLS
