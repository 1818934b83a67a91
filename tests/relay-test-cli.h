/* relay-test-cli.h: run relayscope-cli as a subprocess, as scripts do, and keep what it said.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

typedef struct
{
  int   status;
  char *out;
  char *err;
} CliResult;

static inline void
cli_result_clear (CliResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

/* Runs the CLI with the arguments up to NULL, a dummy OPENAI_API_KEY and no inherited base
 * URL; fills result with the exit status and both outputs. */
static inline void
run_cli (CliResult  *result,
         const char *first,
         ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  const char *cli = g_getenv ("RELAYSCOPE_CLI");
  va_list ap;

  g_assert_nonnull (cli);
  g_ptr_array_add (args, (gpointer) cli);
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (args, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (args, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_setenv (launcher, "OPENAI_API_KEY", "test-key", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "OPENAI_BASE_URL");
  g_subprocess_launcher_unsetenv (launcher, "G_DEBUG");
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) args->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (process, NULL, NULL, &result->out, &result->err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (process));
  result->status = g_subprocess_get_exit_status (process);
  g_test_message ("exit %d\nstdout:\n%s\nstderr:\n%s", result->status, result->out, result->err);
}
