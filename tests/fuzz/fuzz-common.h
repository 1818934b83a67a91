/* fuzz-common.h: what every fuzz target shares: GLib criticals count as crashes, and they
 * must reach libFuzzer as an abort (g_error's SIGTRAP is not caught). Warnings do not: the
 * core warns on purpose about some inputs (a credential header it will not save).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
fuzz_log_handler (const char     *log_domain,
                  GLogLevelFlags  log_level,
                  const char     *message,
                  gpointer        user_data)
{
  if ((log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL)) == 0)
    return;

  fprintf (stderr, "%s: %s\n", log_domain ? log_domain : "**", message);
  abort ();
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_log_set_default_handler (fuzz_log_handler, NULL);
  /* Also when a library sets a handler of its own for its log domain. */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL);
  return 0;
}
