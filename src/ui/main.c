/* main.c: starts the Relayscope desktop app.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>

#include <glib/gi18n.h>

#include "relay-application.h"

/* Running uninstalled, RELAYSCOPE_LOCALEDIR (set by `meson devenv`) names the catalogs built in
 * the build tree; installed, they are under LOCALEDIR. */
static const char *
locale_dir (void)
{
  const char *dir = g_getenv ("RELAYSCOPE_LOCALEDIR");

  return dir != NULL && dir[0] != '\0' ? dir : LOCALEDIR;
}

/* Running from the build tree: use the schema compiled there when none is installed. */
static void
use_uninstalled_schema (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);

  if (schema == NULL &&
      g_file_test (RELAYSCOPE_SCHEMA_DIR "/gschemas.compiled", G_FILE_TEST_EXISTS))
    g_setenv ("GSETTINGS_SCHEMA_DIR", RELAYSCOPE_SCHEMA_DIR, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(RelayApplication) app = NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  use_uninstalled_schema ();

  app = relay_application_new ();

  /* Without a session bus there is no one to be unique with; run on our own. */
  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL)
    g_application_set_flags (G_APPLICATION (app),
                             g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);

  return g_application_run (G_APPLICATION (app), argc, argv);
}
