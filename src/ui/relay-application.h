/* relay-application.h: the application: its actions, the user's endpoints, demo relays.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "relay-sim-demo.h"

G_BEGIN_DECLS

#define RELAY_TYPE_APPLICATION (relay_application_get_type())

G_DECLARE_FINAL_TYPE (RelayApplication, relay_application, RELAY, APPLICATION, AdwApplication)

typedef struct _RelayWindow RelayWindow;

RelayApplication *relay_application_new            (void);
/* The user's endpoints (RelayEndpoint), shared by every window. */
GListStore       *relay_application_get_endpoints  (RelayApplication  *self);
/* Writes the endpoints to the config dir (simulated ones are left out). */
gboolean          relay_application_save_endpoints (RelayApplication  *self,
                                                    GError           **error);
/* The in-process demo relays, started on first use and kept for the process's life. */
RelaySimDemo     *relay_application_ensure_demo    (RelayApplication  *self,
                                                    GError           **error);
/* Adds the demo relays to the endpoints (marked simulated, trusting the demo CA). */
gboolean          relay_application_add_demo_endpoints (RelayApplication *self,
                                                    GError           **error);

/* Autosaves left by a process that is gone (a crash): GFiles, oldest order not kept. */
GPtrArray        *relay_application_find_orphan_autosaves (void);
/* Offers each orphan autosave back (AdwMessageDialog: Restore / Discard) over parent; the
 * first start of the app does it by itself. FALSE when there is nothing to offer. */
gboolean          relay_application_offer_restore (RelayApplication *self,
                                                   RelayWindow      *parent);

G_END_DECLS
