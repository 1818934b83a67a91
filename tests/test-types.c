/* test-types.c: the names of the core's enumerations round-trip and unknown names are
 * rejected.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "relay-types.h"

static void
test_marks (void)
{
  RelayMark mark;

  for (guint i = 0; i < RELAY_N_MARKS; i++)
    {
      const char *name = relay_mark_to_string (i);

      g_assert_nonnull (name);
      g_assert_true (relay_mark_from_string (name, &mark));
      g_assert_cmpuint (mark, ==, i);
    }

  /* Names used by the file format must never change. */
  g_assert_cmpstr (relay_mark_to_string (RELAY_MARK_START), ==, "start");
  g_assert_cmpstr (relay_mark_to_string (RELAY_MARK_TCP_END), ==, "tcp_end");
  g_assert_cmpstr (relay_mark_to_string (RELAY_MARK_FIRST_TOKEN), ==, "first_token");
  g_assert_cmpstr (relay_mark_to_string (RELAY_MARK_END), ==, "end");

  mark = RELAY_MARK_DNS_END;
  g_assert_false (relay_mark_from_string ("first-token", &mark));
  g_assert_false (relay_mark_from_string ("START", &mark));
  g_assert_false (relay_mark_from_string ("", &mark));
  g_assert_false (relay_mark_from_string (NULL, &mark));
  g_assert_cmpuint (mark, ==, RELAY_MARK_DNS_END);
}

static void
test_stages (void)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < RELAY_N_STAGES; i++)
    {
      const char *name = relay_stage_to_string (i);

      g_assert_nonnull (name);
      g_assert_false (g_hash_table_contains (seen, name));
      g_hash_table_add (seen, (gpointer) name);
    }

  g_assert_cmpstr (relay_stage_to_string (RELAY_STAGE_TLS_SETUP), ==, "tls_setup");
  g_assert_cmpstr (relay_stage_to_string (RELAY_STAGE_OTHER), ==, "other");
}

static void
test_apis (void)
{
  RelayApi api;
  RelayConnection connection;

  g_assert_true (relay_api_from_string ("openai-chat", &api));
  g_assert_cmpint (api, ==, RELAY_API_OPENAI_CHAT);
  g_assert_true (relay_api_from_string ("anthropic-messages", &api));
  g_assert_cmpint (api, ==, RELAY_API_ANTHROPIC_MESSAGES);
  g_assert_cmpstr (relay_api_to_string (RELAY_API_OPENAI_CHAT), ==, "openai-chat");
  g_assert_cmpstr (relay_api_to_string (RELAY_API_ANTHROPIC_MESSAGES), ==, "anthropic-messages");
  g_assert_false (relay_api_from_string ("openai-responses", &api));
  g_assert_false (relay_api_from_string ("openai_chat", &api));

  g_assert_true (relay_connection_from_string ("warm", &connection));
  g_assert_cmpint (connection, ==, RELAY_CONNECTION_WARM);
  g_assert_true (relay_connection_from_string ("cold", &connection));
  g_assert_cmpint (connection, ==, RELAY_CONNECTION_COLD);
  g_assert_cmpstr (relay_connection_to_string (RELAY_CONNECTION_WARM), ==, "warm");
  g_assert_false (relay_connection_from_string ("hot", &connection));
}

static void
test_chunk_kinds (void)
{
  RelayChunkKind kind;

  for (guint i = RELAY_CHUNK_CONTENT; i <= RELAY_CHUNK_TOOL; i++)
    {
      g_assert_true (relay_chunk_kind_from_string (relay_chunk_kind_to_string (i), &kind));
      g_assert_cmpuint (kind, ==, i);
    }

  g_assert_cmpstr (relay_chunk_kind_to_string (RELAY_CHUNK_REASONING), ==, "reasoning");
  g_assert_false (relay_chunk_kind_from_string ("thinking", &kind));
}

static void
test_error_stages (void)
{
  RelayErrorStage stage;

  for (guint i = RELAY_ERROR_STAGE_NONE; i <= RELAY_ERROR_STAGE_CANCELLED; i++)
    {
      g_assert_true (relay_error_stage_from_string (relay_error_stage_to_string (i), &stage));
      g_assert_cmpuint (stage, ==, i);
    }

  g_assert_cmpstr (relay_error_stage_to_string (RELAY_ERROR_STAGE_TIMEOUT), ==, "timeout");
  g_assert_false (relay_error_stage_from_string ("network", &stage));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/types/marks", test_marks);
  g_test_add_func ("/types/stages", test_stages);
  g_test_add_func ("/types/apis", test_apis);
  g_test_add_func ("/types/chunk-kinds", test_chunk_kinds);
  g_test_add_func ("/types/error-stages", test_error_stages);

  return g_test_run ();
}
