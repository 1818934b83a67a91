/* relay-sim-demo.h: a few simulated relays in-process for demo mode.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  char *name;        /* "Simulated: fast", … */
  char *profile;     /* "fast", "congested", "buffering", "reasoning" */
  char *base_url;    /* https://fast.relayscope.test:PORT/v1 (openai-chat) */
  char *api;         /* "openai-chat" or "anthropic-messages" */
  char *model;       /* model name to request */
} RelaySimDemoRelay;

typedef struct _RelaySimDemo RelaySimDemo;

/* Starts the demo relays over TLS with *.relayscope.test names (the fake resolver is
 * installed, so DNS, TCP and TLS segments all show). */
RelaySimDemo            *relay_sim_demo_start       (GError       **error);
void                     relay_sim_demo_free        (RelaySimDemo  *demo);
guint                    relay_sim_demo_get_n_relays (RelaySimDemo *demo);
const RelaySimDemoRelay *relay_sim_demo_get_relay   (RelaySimDemo  *demo,
                                                     guint          i);
/* Absolute path of a PEM file holding the demo's CA certificate (written once, temp dir). */
const char              *relay_sim_demo_get_ca_file (RelaySimDemo  *demo);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RelaySimDemo, relay_sim_demo_free)

G_END_DECLS
