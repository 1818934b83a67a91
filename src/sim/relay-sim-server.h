/* relay-sim-server.h: the simulated relay, an OpenAI- and Anthropic-style streaming server
 * on a thread of its own, with delays and faults set by a profile.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "relay-sim-profile.h"

G_BEGIN_DECLS

#define RELAY_TYPE_SIM_SERVER (relay_sim_server_get_type())

G_DECLARE_FINAL_TYPE (RelaySimServer, relay_sim_server, RELAY, SIM_SERVER, GObject)

RelaySimServer *relay_sim_server_new          (const RelaySimProfile *profile);
/* Listens on 127.0.0.1 (port 0 picks a free one), over TLS when tls is TRUE (the test
 * certificate is built in), and serves on a thread with its own GMainContext. */
gboolean        relay_sim_server_start        (RelaySimServer  *self,
                                               guint            port,
                                               gboolean         tls,
                                               GError         **error);
void            relay_sim_server_stop         (RelaySimServer  *self);
guint           relay_sim_server_get_port     (RelaySimServer  *self);
/* "http://127.0.0.1:PORT" or "https://…"; host replaces 127.0.0.1 when not NULL. */
char           *relay_sim_server_dup_root_url (RelaySimServer  *self,
                                               const char      *host);
guint           relay_sim_server_get_n_requests (RelaySimServer *self);

/* As start, on one address ("127.0.0.1", "::1", "0.0.0.0"…; NULL: 127.0.0.1 and, when it
 * can, ::1 on the same port). */
gboolean        relay_sim_server_start_on     (RelaySimServer  *self,
                                               const char      *address,
                                               guint            port,
                                               gboolean         tls,
                                               GError         **error);
/* Requests still being answered (a stream in progress, a delay not yet elapsed). */
guint           relay_sim_server_get_n_active (RelaySimServer  *self);
/* The built-in test certificate (PEM), which is also its own CA. */
GBytes         *relay_sim_server_get_certificate_pem (void);

G_END_DECLS
