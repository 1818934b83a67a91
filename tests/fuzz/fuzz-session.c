/* fuzz-session.c: libFuzzer target for the session loader. Anything it accepts must save
 * and load again, and the reloaded session must save to the same text: a file the app
 * opened is never one it cannot reopen after saving.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdint.h>
#include <string.h>

#include "relay-session.h"

#include "fuzz-common.h"

static char *
to_text (RelaySession *session,
         gsize        *length)
{
  g_autoptr(JsonNode) root = relay_session_to_json (session);
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  g_assert_nonnull (root);
  json_generator_set_root (generator, root);
  return json_generator_to_data (generator, length);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(RelaySession) session = NULL;
  g_autoptr(RelaySession) reloaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *copy = g_memdup2 (data, size);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  gsize first_len;
  gsize second_len;

  session = relay_session_load_from_data (copy, size, &error);
  if (session == NULL)
    {
      g_assert_nonnull (error);
      g_assert_true (error->domain == RELAY_SESSION_ERROR);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      return 0;
    }
  g_assert_no_error (error);

  first = to_text (session, &first_len);
  reloaded = relay_session_load_from_data (first, first_len, &error);
  if (reloaded == NULL)
    {
      fprintf (stderr, "A loaded session did not reload after saving: %s\n%s\n", error->message, first);
      abort ();
    }

  second = to_text (reloaded, &second_len);
  g_assert_cmpstr (first, ==, second);

  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (session)), ==,
                    g_list_model_get_n_items (relay_session_get_traces (reloaded)));
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_runs (session)), ==,
                    g_list_model_get_n_items (relay_session_get_runs (reloaded)));
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_endpoints (session)), ==,
                    g_list_model_get_n_items (relay_session_get_endpoints (reloaded)));

  return 0;
}
