/* relay-endpoint-store.h: the user's endpoints (kept in the config dir, never with a secret),
 * API keys in the keyring, and the import of endpoints from the environment.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "relay-endpoint.h"

G_BEGIN_DECLS

/* $XDG_CONFIG_HOME/relayscope/endpoints.json */
char      *relay_endpoint_store_get_path         (void);
/* Replaces store's items with the saved endpoints. A missing file is not an error. */
gboolean   relay_endpoint_store_load             (GListStore     *store,
                                                  GError        **error);
/* Writes every endpoint but the simulated ones (their ports change each start). Atomic. */
gboolean   relay_endpoint_store_save             (GListModel     *endpoints,
                                                  GError        **error);
/* Adds endpoints for OPENAI_BASE_URL / OPENAI_API_KEY and ANTHROPIC_BASE_URL /
 * ANTHROPIC_API_KEY when set. Only the variables' names are kept, never a key. Endpoints
 * whose name is already in store are skipped. Returns how many were added. */
guint      relay_endpoint_store_import_environment (GListStore   *store);
/* The position of the endpoint named name, or G_MAXUINT. */
guint      relay_endpoint_store_find             (GListModel     *endpoints,
                                                  const char     *name);
/* A deep copy (through the JSON form). */
RelayEndpoint *relay_endpoint_store_copy         (RelayEndpoint  *endpoint);

/* Keyring (libsecret), keyed by the endpoint's name. */
void       relay_key_store_async                 (const char          *endpoint_name,
                                                  const char          *key,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
gboolean   relay_key_store_finish                (GAsyncResult        *result,
                                                  GError             **error);
void       relay_key_lookup_async                (const char          *endpoint_name,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
char      *relay_key_lookup_finish               (GAsyncResult        *result,
                                                  GError             **error);
/* TRUE when error says no keyring service is running (no Secret Service on the bus). */
gboolean   relay_key_error_is_no_keyring         (const GError        *error);

/* A RelayKeyFunc for the prober. It runs on the prober's own thread, so the synchronous
 * keyring lookup there blocks no UI. */
char      *relay_endpoint_store_key_func         (RelayEndpoint       *endpoint,
                                                  gpointer             user_data);

G_END_DECLS
