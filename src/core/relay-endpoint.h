/* relay-endpoint.h: an API endpoint to probe: base URL, dialect, models, key reference.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "relay-types.h"

G_BEGIN_DECLS

#define RELAY_TYPE_ENDPOINT (relay_endpoint_get_type())

G_DECLARE_FINAL_TYPE (RelayEndpoint, relay_endpoint, RELAY, ENDPOINT, GObject)

RelayEndpoint      *relay_endpoint_new            (const char     *name,
                                                   const char     *base_url,
                                                   RelayApi        api);
const char         *relay_endpoint_get_name       (RelayEndpoint  *self);
void                relay_endpoint_set_name       (RelayEndpoint  *self,
                                                   const char     *name);
/* The base URL as SDKs take it: ".../v1" for openai-chat, the host root for anthropic. */
const char         *relay_endpoint_get_base_url   (RelayEndpoint  *self);
void                relay_endpoint_set_base_url   (RelayEndpoint  *self,
                                                   const char     *base_url);
RelayApi            relay_endpoint_get_api        (RelayEndpoint  *self);
void                relay_endpoint_set_api        (RelayEndpoint  *self,
                                                   RelayApi        api);
const char * const *relay_endpoint_get_models     (RelayEndpoint  *self);
void                relay_endpoint_set_models     (RelayEndpoint  *self,
                                                   const char * const *models);
/* Name of the environment variable that holds the key ("OPENAI_API_KEY" by default for
 * openai-chat, "ANTHROPIC_API_KEY" for anthropic-messages). NULL for the default. */
const char         *relay_endpoint_get_key_env    (RelayEndpoint  *self);
void                relay_endpoint_set_key_env    (RelayEndpoint  *self,
                                                   const char     *key_env);
/* TRUE when the key is kept in the keyring (looked up by endpoint name) instead. */
gboolean            relay_endpoint_get_key_in_keyring (RelayEndpoint *self);
void                relay_endpoint_set_key_in_keyring (RelayEndpoint *self,
                                                   gboolean        in_keyring);
/* Extra request headers as "Name: value" strings. */
const char * const *relay_endpoint_get_headers    (RelayEndpoint  *self);
void                relay_endpoint_set_headers    (RelayEndpoint  *self,
                                                   const char * const *headers);
const char         *relay_endpoint_get_ca_file    (RelayEndpoint  *self);
void                relay_endpoint_set_ca_file    (RelayEndpoint  *self,
                                                   const char     *ca_file);
/* A proxy URI for this endpoint only; NULL uses the system's settings. */
const char         *relay_endpoint_get_proxy      (RelayEndpoint  *self);
void                relay_endpoint_set_proxy      (RelayEndpoint  *self,
                                                   const char     *proxy);
/* TRUE for the in-process simulated relays of demo mode. */
gboolean            relay_endpoint_get_simulated  (RelayEndpoint  *self);
void                relay_endpoint_set_simulated  (RelayEndpoint  *self,
                                                   gboolean        simulated);

/* The environment variable actually used: key_env or the dialect's default. */
const char         *relay_endpoint_get_effective_key_env (RelayEndpoint *self);
/* The full URL of the streaming request (base URL + dialect path). */
char               *relay_endpoint_dup_request_url (RelayEndpoint *self);

/* TRUE for a header ("Name" or "Name: value") that may carry a credential: its name says
 * auth, key, token, secret, cookie or password. Such headers never reach a file. */
gboolean            relay_header_is_secret        (const char     *header);

/* Serialisation; never contains a secret. Unknown members are kept. */
JsonNode           *relay_endpoint_to_json        (RelayEndpoint  *self);
RelayEndpoint      *relay_endpoint_new_from_json  (JsonNode       *node,
                                                   GError        **error);

G_END_DECLS
