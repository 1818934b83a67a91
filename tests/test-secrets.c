/* test-secrets.c: an API key never reaches an output. relayscope-cli runs with a sentinel
 * key, from the environment or as an explicit header, against probes that succeed and fail,
 * and every output is searched for it: standard output and error, session files, exports,
 * and sessions loaded and saved again through the core.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "relay-session.h"
#include "relay-sim-server.h"

#define SENTINEL "sk-relayscope-sentinel-0123456789abcdef"
/* A prefix is enough to recognise a key, and masked keys ("sk-relaysc…cdef") keep one. */
#define SENTINEL_PREFIX_LEN 12

static RelaySimServer *server;
static char *tmpdir;

typedef struct
{
  int   status;
  char *out;
  char *err;
} CliResult;

static void
cli_result_clear (CliResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

/* Fails when text (of len bytes, maybe binary) holds the key or its prefix. */
static void
assert_no_secret (const char *what,
                  const char *text,
                  gsize       len)
{
  if (text == NULL)
    return;

  if (memmem (text, len, SENTINEL, strlen (SENTINEL)) != NULL)
    g_error ("%s contains the API key", what);
  if (memmem (text, len, SENTINEL, SENTINEL_PREFIX_LEN) != NULL)
    g_error ("%s contains the start of the API key", what);
}

static void
communicate_done (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  CliResult *r = user_data;
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &r->out, &r->err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (G_SUBPROCESS (object)));
  r->status = g_subprocess_get_exit_status (G_SUBPROCESS (object));
}

/* Runs relayscope-cli with env_name set to env_value (NULL: no key in the environment).
 * The test's main context turns meanwhile, for servers that run on it. */
static void
run_cli (CliResult          *r,
         const char         *env_name,
         const char         *env_value,
         const char * const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  const char *cli = g_getenv ("RELAYSCOPE_CLI");
  gint64 deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  g_autofree char *joined = NULL;
  g_autoptr(GString) shown = NULL;

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (gpointer) cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  r->status = -1;
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_cwd (launcher, tmpdir);
  g_subprocess_launcher_unsetenv (launcher, "OPENAI_API_KEY");
  g_subprocess_launcher_unsetenv (launcher, "ANTHROPIC_API_KEY");
  g_subprocess_launcher_unsetenv (launcher, "OPENAI_BASE_URL");
  g_subprocess_launcher_unsetenv (launcher, "G_DEBUG");
  /* Debug logging on: a key in a debug message is a leak too. */
  g_subprocess_launcher_setenv (launcher, "G_MESSAGES_DEBUG", "all", TRUE);
  if (env_name != NULL)
    g_subprocess_launcher_setenv (launcher, env_name, env_value, TRUE);

  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (process, NULL, NULL, communicate_done, r);
  while (r->out == NULL && r->err == NULL)
    {
      g_main_context_iteration (NULL, TRUE);
      if (g_get_monotonic_time () > deadline)
        g_error ("relayscope-cli did not finish within 120 s");
    }

  /* The test's own log must not hold the key either: it is shown as <key>. */
  joined = g_strjoinv (" ", (char **) args);
  shown = g_string_new (NULL);
  g_string_append_printf (shown, "relayscope-cli %s: exit %d\nstdout:\n%s\nstderr:\n%s",
                          joined, r->status, r->out, r->err);
  g_string_replace (shown, SENTINEL, "<key>", 0);
  g_test_message ("%s", shown->str);
  assert_no_secret ("relayscope-cli's standard output", r->out, strlen (r->out));
  assert_no_secret ("relayscope-cli's standard error", r->err, strlen (r->err));
}

/* Every file the CLI wrote; returns how many there were. */
static guint
assert_no_secret_in_files (void)
{
  g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmpdir, name, NULL);
      g_autofree char *contents = NULL;
      gsize len;

      g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
      assert_no_secret (path, contents, len);
      n++;
    }

  return n;
}

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmpdir, name, NULL);
}

static char *
sim_url (const char *suffix)
{
  g_autofree char *root = relay_sim_server_dup_root_url (server, NULL);

  return g_strconcat (root, suffix, NULL);
}

/* show, and every text export of a saved session. */
static void
read_back (const char *session_file)
{
  g_autofree char *base = g_path_get_basename (session_file);
  g_autofree char *har = g_strconcat (base, ".har", NULL);
  g_autofree char *csv = g_strconcat (base, ".csv", NULL);
  g_autofree char *jsonl = g_strconcat (base, ".jsonl", NULL);
  g_autofree char *svg = g_strconcat (base, ".svg", NULL);
  CliResult r = { 0 };

  g_assert_true (g_file_test (session_file, G_FILE_TEST_IS_REGULAR));
  run_cli (&r, NULL, NULL, (const char *[]) { "show", session_file, NULL });
  cli_result_clear (&r);
  run_cli (&r, NULL, NULL, (const char *[]) { "show", "--json", session_file, NULL });
  cli_result_clear (&r);
  run_cli (&r, NULL, NULL, (const char *[]) { "export", session_file, "-o", har, NULL });
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  run_cli (&r, NULL, NULL, (const char *[]) { "export", session_file, "-o", csv, NULL });
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  run_cli (&r, NULL, NULL, (const char *[]) { "export", session_file, "-o", jsonl, NULL });
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  run_cli (&r, NULL, NULL, (const char *[]) { "export", session_file, "-o", svg, NULL });
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
  /* "Copy as cURL" reads the key from the environment variable, never spells it out. */
  run_cli (&r, NULL, NULL, (const char *[]) { "curl", session_file, NULL });
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);
}

static void
test_key_from_environment (void)
{
  g_autofree char *url = sim_url ("/v1");
  g_autofree char *file = tmp_path ("env-ok.relayscope");
  CliResult r = { 0 };

  /* The simulated relay answers 401 without a key: success shows the key was sent. */
  run_cli (&r, "OPENAI_API_KEY", SENTINEL,
           (const char *[]) { "probe", url, "-m", "sim-model", "-n", "2", "-o", file,
                              "--prometheus", "env-ok.prom", NULL });
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);

  run_cli (&r, "OPENAI_API_KEY", SENTINEL,
           (const char *[]) { "probe", url, "-m", "sim-model", "--json", NULL });
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);

  read_back (file);
  g_assert_cmpuint (assert_no_secret_in_files (), ==, 6);
}

static void
test_key_from_environment_rejected (void)
{
  g_autofree char *url = sim_url ("/v1");
  g_autofree char *file = tmp_path ("env-401.relayscope");
  CliResult r = { 0 };

  run_cli (&r, "OPENAI_API_KEY", SENTINEL,
           (const char *[]) { "probe", url, "-m", "sim-model", "-o", file, "--json",
                              "-H", "X-Relayscope-Sim: fault=http-401, fault_probability=1", NULL });
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.out, "401"));
  cli_result_clear (&r);

  read_back (file);
  assert_no_secret_in_files ();
}

static void
test_key_as_header (void)
{
  g_autofree char *url = sim_url ("/v1");
  g_autofree char *ok = tmp_path ("header-ok.relayscope");
  g_autofree char *rejected = tmp_path ("header-401.relayscope");
  g_autofree char *other = tmp_path ("header-other.relayscope");
  CliResult r = { 0 };

  /* No key in the environment: the header is the only way the relay gets one. */
  run_cli (&r, NULL, NULL,
           (const char *[]) { "probe", url, "-m", "sim-model", "-o", ok, "--json",
                              "-H", "Authorization: Bearer " SENTINEL, NULL });
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);

  run_cli (&r, NULL, NULL,
           (const char *[]) { "probe", url, "-m", "sim-model", "-o", rejected,
                              "-H", "Authorization: Bearer " SENTINEL,
                              "-H", "X-Relayscope-Sim: fault=http-401, fault_probability=1", NULL });
  g_assert_cmpint (r.status, ==, 1);
  cli_result_clear (&r);

  /* Keys under other names: Azure's api-key, Google's x-goog-api-key, a cookie. */
  run_cli (&r, "OPENAI_API_KEY", SENTINEL,
           (const char *[]) { "probe", url, "-m", "sim-model", "-o", other,
                              "-H", "api-key: " SENTINEL, "-H", "X-Goog-Api-Key: " SENTINEL,
                              "-H", "Cookie: session=" SENTINEL, NULL });
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);

  read_back (ok);
  read_back (rejected);
  read_back (other);
  assert_no_secret_in_files ();
}

static void
test_anthropic_key (void)
{
  g_autofree char *url = sim_url ("");
  g_autofree char *env = tmp_path ("anthropic-env.relayscope");
  g_autofree char *header = tmp_path ("anthropic-header.relayscope");
  CliResult r = { 0 };

  run_cli (&r, "ANTHROPIC_API_KEY", SENTINEL,
           (const char *[]) { "probe", url, "--api", "anthropic-messages", "-m", "sim-model",
                              "-o", env, NULL });
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);

  run_cli (&r, NULL, NULL,
           (const char *[]) { "probe", url, "--api", "anthropic-messages", "-m", "sim-model",
                              "-o", header, "--json", "-H", "x-api-key: " SENTINEL,
                              "-H", "X-Relayscope-Sim: fault=http-401, fault_probability=1", NULL });
  g_assert_cmpint (r.status, ==, 1);
  cli_result_clear (&r);

  read_back (env);
  read_back (header);
  assert_no_secret_in_files ();
}

static void
test_key_in_custom_variable (void)
{
  g_autofree char *url = sim_url ("/v1");
  g_autofree char *file = tmp_path ("key-env.relayscope");
  CliResult r = { 0 };

  /* --key-env names the variable; the session keeps the name, never the value. */
  run_cli (&r, "RELAYSCOPE_TEST_RELAY_KEY", SENTINEL,
           (const char *[]) { "probe", url, "-m", "sim-model", "--key-env",
                              "RELAYSCOPE_TEST_RELAY_KEY", "-o", file, NULL });
  g_assert_cmpint (r.status, ==, 0);
  cli_result_clear (&r);

  read_back (file);
  assert_no_secret_in_files ();
}

typedef struct
{
  guint n_with_key;   /* requests that carried the sentinel */
} Echo;

/* A careless relay: its 401 repeats the key it was given, in the body and a header (real
 * ones echo at least a masked key). What it says must not carry the key into outputs. */
static void
echo_handler (SoupServer        *soup,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  Echo *echo = user_data;
  SoupMessageHeaders *request = soup_server_message_get_request_headers (msg);
  const char *auth = soup_message_headers_get_one (request, "Authorization");
  g_autofree char *body = NULL;

  if (auth != NULL && strstr (auth, SENTINEL) != NULL)
    echo->n_with_key++;

  body = g_strdup_printf ("{\"error\":{\"message\":\"Incorrect API key provided: %s. You can "
                          "find your API key at https://relay.example/keys.\","
                          "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}",
                          auth != NULL && g_str_has_prefix (auth, "Bearer ") ? auth + 7 : "none");
  soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                "x-request-id", auth != NULL ? auth : "none");
  soup_server_message_set_status (msg, 401, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body, strlen (body));
}

static void
test_key_echoed_by_server (void)
{
  g_autoptr(SoupServer) soup = soup_server_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *file = tmp_path ("echoed.relayscope");
  Echo echo = { 0 };
  CliResult r = { 0 };
  GSList *uris;

  soup_server_add_handler (soup, NULL, echo_handler, &echo, NULL);
  soup_server_listen_local (soup, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (soup);
  url = g_strdup_printf ("http://127.0.0.1:%d/v1", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  run_cli (&r, "OPENAI_API_KEY", SENTINEL,
           (const char *[]) { "probe", url, "-m", "sim-model", "-o", file, NULL });
  g_assert_cmpint (r.status, ==, 1);
  cli_result_clear (&r);
  g_assert_cmpuint (echo.n_with_key, ==, 1);

  read_back (file);
  assert_no_secret_in_files ();
}

/* Every saved session, loaded and saved again through the core, still holds no key. */
static void
test_load_and_save (void)
{
  g_autoptr(GDir) dir = g_dir_open (tmpdir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".relayscope"))
      g_ptr_array_add (names, g_strdup (name));

  /* The tests above each checked that their sessions were written. */
  g_assert_cmpuint (names->len, >, 0);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = tmp_path (names->pdata[i]);
      g_autofree char *copy_name = g_strconcat ("resaved-", (char *) names->pdata[i], NULL);
      g_autofree char *copy_path = tmp_path (copy_name);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GFile) copy = g_file_new_for_path (copy_path);
      g_autoptr(RelaySession) session = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *json = NULL;

      session = relay_session_load (file, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (g_list_model_get_n_items (relay_session_get_traces (session)), >, 0);

      node = relay_session_to_json (session);
      json = json_to_string (node, TRUE);
      assert_no_secret (copy_name, json, strlen (json));

      relay_session_save (session, copy, NULL, &error);
      g_assert_no_error (error);
    }

  assert_no_secret_in_files ();
}

static void
quick_profile (RelaySimProfile *p)
{
  p->headers_delay_ms = 1;
  p->prefill_us_per_token = 0;
  p->ttft_ms = 2;
  p->itl_ms = 1;
  p->itl_jitter_ms = 0;
  p->stall_probability = 0;
  p->tokens = 5;
  p->fault = RELAY_SIM_FAULT_NONE;
  p->fault_probability = 0;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      g_unlink (child);
    }
  g_rmdir (path);
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
  profile.seed = 7;
  quick_profile (&profile);
  server = relay_sim_server_new (&profile);
  relay_sim_profile_clear (&profile);
  relay_sim_server_start (server, 0, FALSE, &error);
  g_assert_no_error (error);

  tmpdir = g_dir_make_tmp ("relayscope-secrets-XXXXXX", &error);
  g_assert_no_error (error);

  /* In order: the last one reloads every session the others saved. */
  g_test_add_func ("/secrets/key-from-environment", test_key_from_environment);
  g_test_add_func ("/secrets/key-from-environment-rejected", test_key_from_environment_rejected);
  g_test_add_func ("/secrets/key-as-header", test_key_as_header);
  g_test_add_func ("/secrets/anthropic-key", test_anthropic_key);
  g_test_add_func ("/secrets/key-in-custom-variable", test_key_in_custom_variable);
  g_test_add_func ("/secrets/key-echoed-by-server", test_key_echoed_by_server);
  g_test_add_func ("/secrets/load-and-save", test_load_and_save);

  status = g_test_run ();

  remove_tree (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
  g_clear_object (&server);

  return status;
}
