/* test-session.c: the session file round-trips byte for byte and keeps what it does not
 * know, bad files give the right error and stay untouched, saving is atomic, and no
 * credential ever reaches the file.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gprintf.h>
#include <glib/gstdio.h>

#include "relay-session-private.h"
#include "relay-session.h"

typedef struct
{
  char *dir;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("relayscope-session-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
remove_tree (const char *path)
{
  GDir *dir;
  const char *name;

  g_chmod (path, 0755);

  if ((dir = g_dir_open (path, 0, NULL)))
    {
      while ((name = g_dir_read_name (dir)))
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            remove_tree (child);
          else
            g_unlink (child);
        }
      g_dir_close (dir);
    }

  g_rmdir (path);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  _relay_session_set_fail_after_bytes (G_MAXSIZE);
  remove_tree (fixture->dir);
  g_free (fixture->dir);
}

static char *
read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);

  return contents;
}

static guint
count_entries (const char *path)
{
  g_autoptr(GError) error = NULL;
  GDir *dir = g_dir_open (path, 0, &error);
  guint n = 0;

  g_assert_no_error (error);
  while (g_dir_read_name (dir))
    n++;
  g_dir_close (dir);

  return n;
}

static RelaySession *
build_session (void)
{
  RelaySession *session = relay_session_new ();
  g_autoptr(RelayEndpoint) endpoint = NULL;
  g_autoptr(RelayRun) run = NULL;
  g_autoptr(GTimeZone) tz = g_time_zone_new_utc ();
  g_autoptr(GDateTime) started = g_date_time_new (tz, 2026, 1, 2, 3, 4, 5);
  static const char * const models[] = { "m-1", "m-2", NULL };
  static const char * const headers[] = { "X-Trace: on", NULL };

  relay_session_set_title (session, "Built in code");
  relay_session_set_notes (session, "Ünïcode notes\nand a newline");

  endpoint = relay_endpoint_new ("local", "http://127.0.0.1:8080/v1", RELAY_API_OPENAI_CHAT);
  relay_endpoint_set_models (endpoint, models);
  relay_endpoint_set_headers (endpoint, headers);
  relay_session_add_endpoint (session, endpoint);

  run = relay_run_new ("local", "m-1");
  relay_run_set_prompt (run, "Say \"hi\"");
  relay_run_set_started (run, started);
  relay_run_set_reasoning_effort (run, "low");
  relay_session_add_run (session, run);

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(RelayTrace) trace = relay_trace_new (0, i);
      g_autoptr(GDateTime) wall = g_date_time_add_seconds (started, i * 1.25);

      relay_trace_set_wall_start (trace, wall);
      relay_trace_set_mark (trace, RELAY_MARK_REQUEST_START, 100 + i);
      relay_trace_set_mark (trace, RELAY_MARK_REQUEST_END, 200 + i);
      relay_trace_set_mark (trace, RELAY_MARK_FIRST_TOKEN, 50000 + i);
      relay_trace_set_mark (trace, RELAY_MARK_END, 90000 + i);
      for (guint c = 0; c < 50; c++)
        relay_trace_add_chunk (trace, 50000 + c * 800, c % 3, 40 + c, 4 + c % 5);
      relay_trace_add_server_header (trace, "x-request-id", "abc");
      if (i == 2)
        relay_trace_set_error (trace, RELAY_ERROR_STAGE_STREAM, "reset", "The relay closed the stream");
      relay_session_add_trace (session, trace);
    }

  return session;
}

static void
save_ok (RelaySession *session,
         const char   *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  g_assert_true (relay_session_save (session, file, NULL, &error));
  g_assert_no_error (error);
}

static RelaySession *
load_ok (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  RelaySession *session = relay_session_load (file, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (session);

  return session;
}

static void
test_round_trip (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(RelaySession) session = build_session ();
  g_autoptr(RelaySession) loaded = NULL;
  g_autofree char *a = g_build_filename (fixture->dir, "a.relayscope", NULL);
  g_autofree char *b = g_build_filename (fixture->dir, "b.relayscope", NULL);
  g_autofree char *bytes_a = NULL;
  g_autofree char *bytes_b = NULL;
  g_autoptr(RelayTrace) trace = NULL;
  RelayRun *run;

  g_assert_true (relay_session_get_modified (session));
  save_ok (session, a);
  g_assert_false (relay_session_get_modified (session));

  loaded = load_ok (a);
  g_assert_false (relay_session_get_modified (loaded));
  save_ok (loaded, b);

  bytes_a = read_file (a);
  bytes_b = read_file (b);
  g_assert_cmpstr (bytes_a, ==, bytes_b);

  /* Compact: one line, chunks as small arrays. */
  g_assert_true (g_str_has_suffix (bytes_a, "}\n"));
  g_assert_true (strchr (bytes_a, '\n') == bytes_a + strlen (bytes_a) - 1);
  g_assert_nonnull (strstr (bytes_a, "[50800,\"reasoning\",41,5]"));

  g_assert_cmpstr (relay_session_get_title (loaded), ==, "Built in code");
  g_assert_cmpstr (relay_session_get_notes (loaded), ==, "Ünïcode notes\nand a newline");
  g_assert_cmpint (g_date_time_to_unix (relay_session_get_created (loaded)), ==,
                   g_date_time_to_unix (relay_session_get_created (session)));
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (loaded)), ==, 3);
  run = relay_session_get_run (loaded, 0);
  g_assert_nonnull (run);
  g_assert_null (relay_session_get_run (loaded, 1));
  g_assert_cmpstr (relay_run_get_prompt (run), ==, "Say \"hi\"");
  g_assert_cmpstr (relay_run_get_reasoning_effort (run), ==, "low");
  g_assert_cmpuint (relay_run_get_max_tokens (run), ==, 128);
  g_assert_nonnull (relay_session_find_endpoint (loaded, "local"));
  g_assert_null (relay_session_find_endpoint (loaded, "remote"));
  trace = g_list_model_get_item (relay_session_get_traces (loaded), 2);
  g_assert_cmpuint (relay_trace_get_n_chunks (trace), ==, 50);
  g_assert_cmpint (relay_trace_get_error_stage (trace), ==, RELAY_ERROR_STAGE_STREAM);
  g_assert_cmpint (relay_trace_get_mark (trace, RELAY_MARK_END), ==, 90002);

  /* A setter marks the session modified again. */
  relay_session_set_title (loaded, "Renamed");
  g_assert_true (relay_session_get_modified (loaded));
}

static void
test_unknown_members_survive (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "data", "sessions", "valid.relayscope", NULL);
  g_autofree char *first = g_build_filename (fixture->dir, "first.relayscope", NULL);
  g_autofree char *second = g_build_filename (fixture->dir, "second.relayscope", NULL);
  g_autofree char *bytes_first = NULL;
  g_autofree char *bytes_second = NULL;
  g_autoptr(RelaySession) session = load_ok (source);
  g_autoptr(RelaySession) again = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(RelayTrace) failed = NULL;
  JsonObject *object;
  JsonObject *trace;
  JsonObject *endpoint;
  JsonObject *run;
  RelayEndpoint *relay_b;

  g_assert_cmpstr (relay_session_get_title (session), ==, "Relay comparison");
  g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_endpoints (session)), ==, 2);
  relay_b = relay_session_find_endpoint (session, "relay-b");
  g_assert_nonnull (relay_b);
  g_assert_cmpint (relay_endpoint_get_api (relay_b), ==, RELAY_API_ANTHROPIC_MESSAGES);
  g_assert_true (relay_endpoint_get_key_in_keyring (relay_b));
  g_assert_cmpstr (relay_endpoint_get_proxy (relay_b), ==, "http://127.0.0.1:3128");
  failed = g_list_model_get_item (relay_session_get_traces (session), 1);
  g_assert_cmpint (relay_trace_get_error_stage (failed), ==, RELAY_ERROR_STAGE_CONNECT);
  g_assert_false (relay_trace_has_mark (failed, RELAY_MARK_TCP_END));

  save_ok (session, first);
  again = load_ok (first);
  save_ok (again, second);

  bytes_first = read_file (first);
  bytes_second = read_file (second);
  g_assert_cmpstr (bytes_first, ==, bytes_second);

  root = json_from_string (bytes_first, NULL);
  object = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (object, "budget"),
                                               "ttft_ms"), ==, 800);
  trace = json_array_get_object_element (json_object_get_array_member (object, "traces"), 0);
  g_assert_cmpstr (json_object_get_string_member (trace, "sampled_by"), ==, "relayscope 9.0");
  endpoint = json_array_get_object_element (json_object_get_array_member (object, "endpoints"), 0);
  g_assert_cmpstr (json_object_get_string_member (endpoint, "region"), ==, "eu-west");
  run = json_array_get_object_element (json_object_get_array_member (object, "runs"), 0);
  g_assert_cmpstr (json_object_get_string_member (run, "label"), ==, "baseline");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (run, "request"),
                                               "temperature"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (object, "created"), ==,
                   "2026-02-01T09:30:00.250000+08:00");
}

static void
test_bad_files (void)
{
  static const struct {
    const char *name;
    int         code;
    const char *message;
  } cases[] = {
    { "not-json.relayscope", RELAY_SESSION_ERROR_PARSE, "not-json.relayscope:1:" },
    { "truncated.relayscope", RELAY_SESSION_ERROR_PARSE, "truncated.relayscope:" },
    { "empty.relayscope", RELAY_SESSION_ERROR_PARSE, "empty" },
    { "other-format.relayscope", RELAY_SESSION_ERROR_FORMAT, "this is not a Relayscope session" },
    { "no-format.relayscope", RELAY_SESSION_ERROR_FORMAT, "this is not a Relayscope session" },
    { "newer-version.relayscope", RELAY_SESSION_ERROR_VERSION,
      "written by a newer Relayscope (format version 2); update Relayscope to open it" },
    { "bad-trace.relayscope", RELAY_SESSION_ERROR_PARSE,
      "trace 1: marks_us.first_token is not a number" },
    { "dangling-run.relayscope", RELAY_SESSION_ERROR_PARSE, "trace 0: run 3 does not exist" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "sessions", cases[i].name, NULL);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GError) error = NULL;
      g_autoptr(RelaySession) session = NULL;
      g_autofree char *before = read_file (path);
      g_autofree char *after = NULL;
      GStatBuf st_before, st_after;

      g_assert_cmpint (g_stat (path, &st_before), ==, 0);

      session = relay_session_load (file, NULL, &error);
      g_assert_null (session);
      g_assert_error (error, RELAY_SESSION_ERROR, cases[i].code);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("%s: got “%s”, want “%s”", cases[i].name, error->message, cases[i].message);

      after = read_file (path);
      g_assert_cmpstr (before, ==, after);
      g_assert_cmpint (g_stat (path, &st_after), ==, 0);
      g_assert_cmpint (st_before.st_mtime, ==, st_after.st_mtime);
      g_assert_cmpint (st_before.st_size, ==, st_after.st_size);
    }
}

static void
test_bad_data (void)
{
  static const struct {
    const char *json;
    int         code;
  } cases[] = {
    { "[1,2,3]", RELAY_SESSION_ERROR_FORMAT },
    { "\"relayscope-session\"", RELAY_SESSION_ERROR_FORMAT },
    { "{\"format\":1}", RELAY_SESSION_ERROR_FORMAT },
    { "{\"format\":\"relayscope-session\"}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",\"version\":\"1\"}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",\"version\":0}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",\"version\":1.5}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",\"version\":99}", RELAY_SESSION_ERROR_VERSION },
    { "{\"format\":\"relayscope-session\",\"version\":1,\"traces\":{}}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",\"version\":1,\"traces\":[1]}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",\"version\":1,\"endpoints\":[{}]}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",\"version\":1,\"endpoints\":[{\"name\":\"a\",\"base_url\":\"b\",\"api\":\"grpc\"}]}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",\"version\":1,\"endpoints\":[{\"name\":\"a\",\"base_url\":\"b\",\"api\":\"openai-chat\",\"headers\":[1]}]}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",\"version\":1,\"runs\":[{\"endpoint\":\"a\"}]}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",\"version\":1,\"runs\":[{\"endpoint\":\"a\",\"model\":\"m\",\"request\":{\"connection\":\"tepid\"}}]}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",\"version\":1,\"created\":\"noon\"}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",\"version\":1,\"title\":[]}", RELAY_SESSION_ERROR_PARSE },
    { "{\"format\":\"relayscope-session\",", RELAY_SESSION_ERROR_PARSE },
    { "\xff\xfe{", RELAY_SESSION_ERROR_PARSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RelaySession) session = relay_session_load_from_data (cases[i].json, -1, &error);
      g_autofree char *escaped = g_strescape (cases[i].json, NULL);

      g_test_message ("%s", escaped);
      g_assert_null (session);
      g_assert_error (error, RELAY_SESSION_ERROR, cases[i].code);
    }

  /* A minimal session is fine. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(RelaySession) session =
      relay_session_load_from_data ("{\"format\":\"relayscope-session\",\"version\":1}", -1, &error);

    g_assert_no_error (error);
    g_assert_nonnull (session);
    g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (session)), ==, 0);
  }
}

static void
test_deep_nesting (void)
{
  /* json-glib recurses per level; this must be refused before it can overflow the stack. */
  gsize depth = 200000;
  g_autofree char *json = g_malloc (depth * 2 + 64);
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySession) session = NULL;
  char *p = json;

  p += g_sprintf (p, "{\"format\":\"relayscope-session\",\"version\":1,\"x\":");
  memset (p, '[', depth);
  memset (p + depth, ']', depth);
  strcpy (p + 2 * depth, "}");

  session = relay_session_load_from_data (json, -1, &error);
  g_assert_null (session);
  g_assert_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE);

  /* Brackets inside strings do not count. */
  g_clear_error (&error);
  g_free (g_steal_pointer (&json));
  json = g_strdup_printf ("{\"format\":\"relayscope-session\",\"version\":1,\"notes\":\"%s\"}",
                          "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                          "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                          "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"");
  g_clear_object (&session);
  session = relay_session_load_from_data (json, -1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (session);
}

static void
test_missing_file (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fixture->dir, "nothing-here.relayscope", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(RelaySession) session = relay_session_load (file, NULL, &error);

  g_assert_null (session);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

/* Written in place: g_file_set_contents() would need a longer temporary name itself. */
static void
write_old_file (const char *path)
{
  FILE *fp = fopen (path, "w");

  g_assert_nonnull (fp);
  g_assert_cmpint (fputs ("old contents\n", fp), >=, 0);
  g_assert_cmpint (fclose (fp), ==, 0);
}

static void
assert_old_file (const char *path)
{
  g_autofree char *contents = read_file (path);

  g_assert_cmpstr (contents, ==, "old contents\n");
}

static void
test_interrupted_save (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(RelaySession) session = build_session ();
  g_autofree char *path = g_build_filename (fixture->dir, "kept.relayscope", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  static const gsize fail_points[] = { 0, 1, 100, 4000 };

  write_old_file (path);

  for (guint i = 0; i < G_N_ELEMENTS (fail_points); i++)
    {
      g_autoptr(GError) error = NULL;

      _relay_session_set_fail_after_bytes (fail_points[i]);
      g_assert_false (relay_session_save (session, file, NULL, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
      g_assert_nonnull (strstr (error->message, path));

      assert_old_file (path);
      /* No temporary file left behind: the directory holds the old file only. */
      g_assert_cmpuint (count_entries (fixture->dir), ==, 1);
      g_assert_true (relay_session_get_modified (session));
    }

  /* With the fault gone the same save goes through and replaces the file. */
  _relay_session_set_fail_after_bytes (G_MAXSIZE);
  save_ok (session, path);
  g_assert_false (relay_session_get_modified (session));
  g_assert_cmpuint (count_entries (fixture->dir), ==, 1);
  {
    g_autoptr(RelaySession) loaded = load_ok (path);

    g_assert_cmpstr (relay_session_get_title (loaded), ==, "Built in code");
  }
}

static void
test_temp_file_impossible (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(RelaySession) session = build_session ();
  g_autoptr(GError) error = NULL;
  /* A name the file system accepts whose ".name.XXXXXX" temporary is too long: the save
   * cannot even start, as in a read-only directory, even for root. */
  g_autofree char *name = g_strnfill (250, 'n');
  g_autofree char *path = g_build_filename (fixture->dir, name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  write_old_file (path);

  g_assert_false (relay_session_save (session, file, NULL, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, path));
  assert_old_file (path);
  g_assert_cmpuint (count_entries (fixture->dir), ==, 1);
  g_assert_true (relay_session_get_modified (session));
}

static void
test_missing_directory (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(RelaySession) session = build_session ();
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (fixture->dir, "no-such-dir", "x.relayscope", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  g_assert_false (relay_session_save (session, file, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "x.relayscope"));
}

static void
test_read_only_directory (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(RelaySession) session = build_session ();
  g_autoptr(GError) error = NULL;
  g_autofree char *sub = g_build_filename (fixture->dir, "ro", NULL);
  g_autofree char *path = g_build_filename (sub, "x.relayscope", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  if (geteuid () == 0)
    {
      g_test_skip ("root writes into read-only directories; covered by the injected faults");
      return;
    }

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  write_old_file (path);
  g_assert_cmpint (g_chmod (sub, 0555), ==, 0);

  g_assert_false (relay_session_save (session, file, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  assert_old_file (path);
  g_assert_cmpuint (count_entries (sub), ==, 1);
}

static void
test_keeps_permissions (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(RelaySession) session = build_session ();
  g_autofree char *path = g_build_filename (fixture->dir, "private.relayscope", NULL);
  GStatBuf st;

  write_old_file (path);
  g_assert_cmpint (g_chmod (path, 0600), ==, 0);
  save_ok (session, path);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
}

static void
test_no_secrets (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayEndpoint) endpoint = relay_endpoint_new ("secretive", "https://127.0.0.1/v1",
                                                          RELAY_API_OPENAI_CHAT);
  g_autofree char *path = g_build_filename (fixture->dir, "secrets.relayscope", NULL);
  g_autofree char *contents = NULL;
  static const char * const headers[] = {
    "Authorization: Bearer test-key-one",
    "X-Keep: yes",
    "x-API-key: test-key-two",
    "  authorization  :Bearer test-key-three",
    NULL
  };

  relay_endpoint_set_headers (endpoint, headers);
  relay_session_add_endpoint (session, endpoint);

  /* The endpoint still sends them; only the file never sees them. */
  g_assert_cmpuint (g_strv_length ((char **) relay_endpoint_get_headers (endpoint)), ==, 4);

  g_test_expect_message ("Relayscope-Core", G_LOG_LEVEL_WARNING, "*credential*secretive*");
  g_test_expect_message ("Relayscope-Core", G_LOG_LEVEL_WARNING, "*credential*secretive*");
  g_test_expect_message ("Relayscope-Core", G_LOG_LEVEL_WARNING, "*credential*secretive*");
  save_ok (session, path);
  g_test_assert_expected_messages ();

  contents = read_file (path);
  g_assert_null (strstr (contents, "test-key"));
  g_assert_null (g_strstr_len (contents, -1, "uthorization"));
  g_assert_null (strstr (contents, "API-key"));
  g_assert_nonnull (strstr (contents, "X-Keep: yes"));
}

static void
test_endpoint_helpers (void)
{
  g_autoptr(RelayEndpoint) openai = relay_endpoint_new ("o", "http://127.0.0.1:9/v1/", RELAY_API_OPENAI_CHAT);
  g_autoptr(RelayEndpoint) anthropic = relay_endpoint_new ("a", "http://127.0.0.1:9", RELAY_API_ANTHROPIC_MESSAGES);
  g_autofree char *url_o = relay_endpoint_dup_request_url (openai);
  g_autofree char *url_a = relay_endpoint_dup_request_url (anthropic);
  g_autofree char *base = NULL;

  g_assert_cmpstr (url_o, ==, "http://127.0.0.1:9/v1/chat/completions");
  g_assert_cmpstr (url_a, ==, "http://127.0.0.1:9/v1/messages");
  g_assert_cmpstr (relay_endpoint_get_effective_key_env (openai), ==, "OPENAI_API_KEY");
  g_assert_cmpstr (relay_endpoint_get_effective_key_env (anthropic), ==, "ANTHROPIC_API_KEY");
  relay_endpoint_set_key_env (anthropic, "MY_KEY");
  g_assert_cmpstr (relay_endpoint_get_effective_key_env (anthropic), ==, "MY_KEY");

  g_object_get (openai, "base-url", &base, NULL);
  g_assert_cmpstr (base, ==, "http://127.0.0.1:9/v1/");
  g_object_set (openai, "simulated", TRUE, NULL);
  g_assert_true (relay_endpoint_get_simulated (openai));
}

static void
on_notify (GObject    *object,
           GParamSpec *pspec,
           guint      *count)
{
  (*count)++;
}

static void
test_modified (void)
{
  g_autoptr(RelaySession) session = relay_session_new ();
  g_autoptr(RelayRun) run = relay_run_new ("e", "m");
  g_autoptr(RelayTrace) trace = relay_trace_new (0, 0);
  guint notified = 0;

  g_assert_false (relay_session_get_modified (session));
  g_assert_nonnull (relay_session_get_created (session));
  g_signal_connect (session, "notify::modified", G_CALLBACK (on_notify), &notified);

  g_assert_cmpuint (relay_session_add_run (session, run), ==, 0);
  g_assert_true (relay_session_get_modified (session));
  g_assert_cmpuint (notified, ==, 1);

  relay_session_set_modified (session, FALSE);
  g_assert_cmpuint (notified, ==, 2);
  relay_session_add_trace (session, trace);
  g_assert_true (relay_session_get_modified (session));
  g_assert_cmpuint (notified, ==, 3);

  relay_session_set_modified (session, FALSE);
  relay_session_set_notes (session, "n");
  g_assert_true (relay_session_get_modified (session));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/session/round-trip", Fixture, NULL, fixture_set_up, test_round_trip, fixture_tear_down);
  g_test_add ("/session/unknown-members", Fixture, NULL, fixture_set_up, test_unknown_members_survive, fixture_tear_down);
  g_test_add_func ("/session/bad-files", test_bad_files);
  g_test_add_func ("/session/bad-data", test_bad_data);
  g_test_add_func ("/session/deep-nesting", test_deep_nesting);
  g_test_add ("/session/missing-file", Fixture, NULL, fixture_set_up, test_missing_file, fixture_tear_down);
  g_test_add ("/session/save/interrupted", Fixture, NULL, fixture_set_up, test_interrupted_save, fixture_tear_down);
  g_test_add ("/session/save/temp-file-impossible", Fixture, NULL, fixture_set_up, test_temp_file_impossible, fixture_tear_down);
  g_test_add ("/session/save/missing-directory", Fixture, NULL, fixture_set_up, test_missing_directory, fixture_tear_down);
  g_test_add ("/session/save/read-only-directory", Fixture, NULL, fixture_set_up, test_read_only_directory, fixture_tear_down);
  g_test_add ("/session/save/keeps-permissions", Fixture, NULL, fixture_set_up, test_keeps_permissions, fixture_tear_down);
  g_test_add ("/session/save/no-secrets", Fixture, NULL, fixture_set_up, test_no_secrets, fixture_tear_down);
  g_test_add_func ("/session/endpoint-helpers", test_endpoint_helpers);
  g_test_add_func ("/session/modified", test_modified);

  return g_test_run ();
}
