/* relay-test-ui.h: what every GUI test sets up first: a display check, a private home for
 * settings, endpoints, recents and autosaves, and the application.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib/gstdio.h>

#include "relay-application.h"

static inline void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

/* Returns a new temporary directory that the test owns, or NULL (after printing a TAP skip)
 * when there is no display. Call before gtk_test_init, before anything caches settings:
 * no test touches the user's settings, endpoints or recent files. */
static inline char *
relay_test_ui_prepare (const char *name)
{
  g_autofree char *template = g_strdup_printf ("relayscope-ui-%s-XXXXXX", name);
  g_autofree char *config = NULL;
  char *tmpdir;

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_print ("1..0 # SKIP no display (run under Xvfb)\n");
      return NULL;
    }

  tmpdir = g_dir_make_tmp (template, NULL);
  g_assert_nonnull (tmpdir);
  config = g_build_filename (tmpdir, "config", NULL);

  g_setenv ("GSETTINGS_SCHEMA_DIR", RELAYSCOPE_SCHEMA_DIR, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_setenv ("XDG_DATA_HOME", tmpdir, TRUE);
  g_setenv ("GTK_A11Y", "none", TRUE);

  return tmpdir;
}

static inline RelayApplication *
relay_test_ui_app_new (void)
{
  RelayApplication *app = relay_application_new ();

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  return app;
}
