/* relay-types.c: names of the core's enumerations, as written in files and the CLI.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "relay-types.h"

static const char * const api_names[] = { "openai-chat", "anthropic-messages" };
static const char * const connection_names[] = { "cold", "warm" };
static const char * const mark_names[RELAY_N_MARKS] = {
  "start", "dns_start", "dns_end", "connect_start", "tcp_end", "proxy_start", "proxy_end",
  "tls_start", "tls_end", "request_start", "request_end", "response_start", "first_byte",
  "first_event", "first_token", "first_content", "last_token", "end",
};
static const char * const stage_names[RELAY_N_STAGES] = {
  "blocked", "dns", "tcp", "proxy", "tls_setup", "tls", "send", "wait", "first_event",
  "first_token", "reasoning", "stream", "tail", "other",
};
static const char * const chunk_kind_names[] = { "content", "reasoning", "tool" };
static const char * const error_stage_names[] = {
  "none", "dns", "connect", "tls", "http", "stream", "parse", "timeout", "cancelled",
};

static gboolean
lookup (const char * const *names,
        guint               n_names,
        const char         *str,
        guint              *value)
{
  if (str == NULL)
    return FALSE;

  for (guint i = 0; i < n_names; i++)
    {
      if (strcmp (names[i], str) == 0)
        {
          *value = i;
          return TRUE;
        }
    }

  return FALSE;
}

#define DEFINE_NAMES(prefix, Type, names)                                  \
  const char *                                                             \
  prefix##_to_string (Type value)                                          \
  {                                                                        \
    g_return_val_if_fail ((guint) value < G_N_ELEMENTS (names), NULL);     \
    return names[value];                                                   \
  }                                                                        \
                                                                           \
  gboolean                                                                 \
  prefix##_from_string (const char *str,                                   \
                        Type       *value)                                 \
  {                                                                        \
    guint v;                                                               \
                                                                           \
    if (!lookup (names, G_N_ELEMENTS (names), str, &v))                    \
      return FALSE;                                                        \
    *value = (Type) v;                                                     \
    return TRUE;                                                           \
  }

DEFINE_NAMES (relay_api, RelayApi, api_names)
DEFINE_NAMES (relay_connection, RelayConnection, connection_names)
DEFINE_NAMES (relay_mark, RelayMark, mark_names)
DEFINE_NAMES (relay_chunk_kind, RelayChunkKind, chunk_kind_names)
DEFINE_NAMES (relay_error_stage, RelayErrorStage, error_stage_names)

const char *
relay_stage_to_string (RelayStage stage)
{
  g_return_val_if_fail ((guint) stage < RELAY_N_STAGES, NULL);
  return stage_names[stage];
}
