/* test-cli.c: relayscope-cli as scripts use it: output, session files and exit statuses.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "relay-sim-server.h"
#include "relay-test-cli.h"

static RelaySimServer *server;
static char *tmpdir;


static char *
base_url (const char *suffix)
{
  g_autofree char *root = relay_sim_server_dup_root_url (server, NULL);

  return g_strconcat (root, suffix, NULL);
}

static void
test_usage_errors (void)
{
  CliResult r = { 0 };

  run_cli (&r, NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);

  run_cli (&r, "frobnicate", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "unknown command"));
  cli_result_clear (&r);

  run_cli (&r, "probe", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "OPENAI_BASE_URL"));
  cli_result_clear (&r);

  run_cli (&r, "probe", "--api", "smoke-signals", "http://127.0.0.1:1/v1", NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);

  run_cli (&r, "probe", "ftp://example/v1", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "not an http"));
  cli_result_clear (&r);

  run_cli (&r, "probe", "--repeat", "0", "http://127.0.0.1:1/v1", NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);

  run_cli (&r, "show", NULL);
  g_assert_cmpint (r.status, ==, 2);
  cli_result_clear (&r);
}

static void
test_probe_ok_and_show (void)
{
  g_autofree char *url = base_url ("/v1");
  g_autofree char *path = g_build_filename (tmpdir, "ok.relayscope", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  CliResult r = { 0 };
  JsonObject *root;
  JsonArray *rows;

  run_cli (&r, "probe", url, "--model", "sim-a", "--repeat", "3", "-o", path, "--quiet", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "TTFT ms"));
  g_assert_nonnull (strstr (r.out, "sim-a"));
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  cli_result_clear (&r);

  run_cli (&r, "show", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "sim-a"));
  cli_result_clear (&r);

  run_cli (&r, "show", path, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  json_parser_load_from_data (parser, r.out, -1, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  rows = json_object_get_array_member (root, "rows");
  g_assert_cmpuint (json_array_get_length (rows), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (rows, 0), "n"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (rows, 0), "errors"), ==, 0);
  cli_result_clear (&r);
}

static void
test_probe_failure (void)
{
  g_autofree char *url = base_url ("/v1");
  CliResult r = { 0 };

  run_cli (&r, "probe", url, "--quiet", "-H", "X-Relayscope-Sim: fault=http-500, fault_probability=1", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.out, "Failed probes"));
  g_assert_nonnull (strstr (r.out, "HTTP 500"));
  cli_result_clear (&r);
}

static void
test_budget (void)
{
  g_autofree char *url = base_url ("/v1");
  g_autofree char *tight = g_build_filename (tmpdir, "tight.json", NULL);
  g_autofree char *loose = g_build_filename (tmpdir, "loose.json", NULL);
  g_autofree char *broken = g_build_filename (tmpdir, "broken.json", NULL);
  CliResult r = { 0 };

  /* The relay waits 30 ms before its headers: a 5 ms wait budget must fail, 5 s must pass. */
  g_assert_true (g_file_set_contents (tight, "{\"percentile\": \"p50\", \"limits_ms\": {\"wait\": 5}}", -1, NULL));
  g_assert_true (g_file_set_contents (loose, "{\"percentile\": 95, \"limits_ms\": {\"wait\": 5000, \"ttft\": 10000}}", -1, NULL));
  g_assert_true (g_file_set_contents (broken, "{\"limits_ms\": {\"wiat\": 5}}", -1, NULL));

  run_cli (&r, "probe", url, "--quiet", "--budget", tight, "-H", "X-Relayscope-Sim: headers_delay_ms=30", NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.out, "wait p50"));
  cli_result_clear (&r);

  run_cli (&r, "probe", url, "--quiet", "--budget", loose, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);

  run_cli (&r, "probe", url, "--quiet", "--budget", broken, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "wiat"));
  cli_result_clear (&r);
}

static void
test_show_bad_files (void)
{
  g_autofree char *corrupt = g_build_filename (tmpdir, "corrupt.relayscope", NULL);
  g_autofree char *future = g_build_filename (tmpdir, "future.relayscope", NULL);
  g_autofree char *missing = g_build_filename (tmpdir, "missing.relayscope", NULL);
  g_autofree char *after = NULL;
  const char *corrupt_text = "{\"format\": \"relayscope-session\", \"version\": 1, \"traces\": [";
  CliResult r = { 0 };

  g_assert_true (g_file_set_contents (corrupt, corrupt_text, -1, NULL));
  g_assert_true (g_file_set_contents (future, "{\"format\": \"relayscope-session\", \"version\": 99}", -1, NULL));

  run_cli (&r, "show", corrupt, NULL);
  g_assert_cmpint (r.status, !=, 0);
  g_assert_nonnull (strstr (r.err, "corrupt.relayscope"));
  cli_result_clear (&r);
  /* Never rewritten. */
  g_assert_true (g_file_get_contents (corrupt, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, corrupt_text);

  run_cli (&r, "show", future, NULL);
  g_assert_cmpint (r.status, !=, 0);
  g_assert_nonnull (strstr (r.err, "newer"));
  cli_result_clear (&r);

  run_cli (&r, "show", missing, NULL);
  g_assert_cmpint (r.status, !=, 0);
  cli_result_clear (&r);
}

static void
test_demo (void)
{
  CliResult r = { 0 };

  run_cli (&r, "probe", "--demo", "--repeat", "2", "--quiet", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Simulated: fast"));
  g_assert_nonnull (strstr (r.out, "Simulated: congested"));
  g_assert_nonnull (strstr (r.out, "Simulated: buffering"));
  g_assert_nonnull (strstr (r.out, "Simulated: reasoning"));
  cli_result_clear (&r);
}

int
main (int    argc,
      char **argv)
{
  RelaySimProfile profile = { 0 };
  g_autoptr(GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  g_assert_true (relay_sim_profile_init_named (&profile, "fast"));
  profile.tokens = 8;
  profile.itl_ms = 2;
  profile.headers_delay_ms = 2;
  profile.ttft_ms = 5;
  server = relay_sim_server_new (&profile);
  relay_sim_profile_clear (&profile);
  g_assert_true (relay_sim_server_start (server, 0, FALSE, &error));
  tmpdir = g_dir_make_tmp ("relayscope-cli-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/cli/usage-errors", test_usage_errors);
  g_test_add_func ("/cli/probe-ok-and-show", test_probe_ok_and_show);
  g_test_add_func ("/cli/probe-failure", test_probe_failure);
  g_test_add_func ("/cli/budget", test_budget);
  g_test_add_func ("/cli/show-bad-files", test_show_bad_files);
  g_test_add_func ("/cli/demo", test_demo);

  status = g_test_run ();

  g_clear_object (&server);
  {
    g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
    const char *name;

    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *p = g_build_filename (tmpdir, name, NULL);
        g_unlink (p);
      }
    g_rmdir (tmpdir);
  }
  g_free (tmpdir);

  return status;
}
