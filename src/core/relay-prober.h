/* relay-prober.h: runs a probe plan on threads of its own and reports traces as they progress.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "relay-probe-plan.h"
#include "relay-session.h"

G_BEGIN_DECLS

#define RELAY_TYPE_PROBER (relay_prober_get_type())

G_DECLARE_FINAL_TYPE (RelayProber, relay_prober, RELAY, PROBER, GObject)

RelayProber *relay_prober_new         (void);

/* Looks up an API key; the default reads the environment variable the endpoint names. */
typedef char *(*RelayKeyFunc) (RelayEndpoint *endpoint,
                               gpointer       user_data);
void         relay_prober_set_key_func (RelayProber   *self,
                                        RelayKeyFunc   func,
                                        gpointer       user_data,
                                        GDestroyNotify destroy);

/* Adds the plan's endpoints and runs to session, then a trace per probe as it starts.
 * Signals ("trace-added", "trace-changed", "trace-finished") are emitted in the thread-default
 * main context of the caller; each probe in flight does its HTTP work on a thread of its own
 * (so concurrency is the number of those threads), so that stamps are not delayed by the
 * caller's main loop nor by other probes. Cancelling finishes every trace as "cancelled". */
void         relay_prober_run_async   (RelayProber         *self,
                                       RelayProbePlan      *plan,
                                       RelaySession        *session,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data);
/* TRUE when every probe ran (failed probes are traces with an error, not a GError).
 * FALSE with G_IO_ERROR_CANCELLED when cancelled. */
gboolean     relay_prober_run_finish  (RelayProber         *self,
                                       GAsyncResult        *result,
                                       GError             **error);

G_END_DECLS
