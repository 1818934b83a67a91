/* relay-composer.h: the probe composer: targets, prompt, max tokens, reasoning effort,
 * repeat, concurrency, connection and timeout, turned into a RelayProbePlan.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "relay-probe-plan.h"

G_BEGIN_DECLS

#define RELAY_TYPE_COMPOSER (relay_composer_get_type())

G_DECLARE_FINAL_TYPE (RelayComposer, relay_composer, RELAY, COMPOSER, GtkWidget)

GtkWidget      *relay_composer_new            (void);
/* endpoints: a GListModel of RelayEndpoint, the possible targets. */
void            relay_composer_set_endpoints  (RelayComposer *self,
                                               GListModel    *endpoints);
/* A plan for the chosen endpoints × models (copies of the endpoints); NULL when nothing
 * is chosen. */
RelayProbePlan *relay_composer_build_plan     (RelayComposer *self);
guint           relay_composer_get_n_targets  (RelayComposer *self);
void            relay_composer_set_repeat     (RelayComposer *self,
                                               guint          repeat);
void            relay_composer_set_concurrency (RelayComposer *self,
                                               guint          concurrency);
/* Seconds a probe may take, start to end, before it fails as a timeout. */
void            relay_composer_set_timeout    (RelayComposer *self,
                                               guint          seconds);
guint           relay_composer_get_timeout    (RelayComposer *self);

G_END_DECLS
