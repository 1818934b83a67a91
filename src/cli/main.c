/* main.c: relayscope-cli's entry point.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "relay-cli.h"

/* Running uninstalled, RELAYSCOPE_LOCALEDIR (set by `meson devenv`) names the catalogs built in
 * the build tree; installed, they are under LOCALEDIR. */
static const char *
locale_dir (void)
{
  const char *dir = g_getenv ("RELAYSCOPE_LOCALEDIR");

  return dir != NULL && dir[0] != '\0' ? dir : LOCALEDIR;
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  return relay_cli_run (argc, argv);
}
