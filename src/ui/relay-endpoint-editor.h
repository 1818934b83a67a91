/* relay-endpoint-editor.h: the window that adds or edits one endpoint.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "relay-endpoint.h"

G_BEGIN_DECLS

#define RELAY_TYPE_ENDPOINT_EDITOR (relay_endpoint_editor_get_type())

G_DECLARE_FINAL_TYPE (RelayEndpointEditor, relay_endpoint_editor, RELAY, ENDPOINT_EDITOR, AdwWindow)

/* endpoint: the one to edit, or NULL to add one. existing: every endpoint, to keep names
 * unique. On Save it emits "saved" (RelayEndpoint *edited, const char *old_name or NULL). */
RelayEndpointEditor *relay_endpoint_editor_new (GtkWindow     *parent,
                                                RelayEndpoint *endpoint,
                                                GListModel    *existing);

G_END_DECLS
