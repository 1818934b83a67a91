/* relay-sim-resolver.h: a GResolver that answers *.relayscope.test with loopback after a
 * chosen delay and hands every other name to the resolver it replaced.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Installs the fake resolver as the default (once per process; later calls are no-ops). */
void relay_sim_resolver_install   (void);
/* Delay for a host under .relayscope.test (NULL: the default for all of them). */
void relay_sim_resolver_set_delay (const char *host,
                                   guint       delay_ms);
/* How many lookups went to the resolver the fake one replaced (for tests). */
guint relay_sim_resolver_get_n_forwarded (void);

G_END_DECLS
