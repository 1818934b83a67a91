/* relay-session.h: a comparison session: endpoints, runs and traces, loaded and saved as
 * the *.relayscope file (DESIGN.md §3).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "relay-endpoint.h"
#include "relay-run.h"
#include "relay-trace.h"

G_BEGIN_DECLS

#define RELAY_SESSION_FORMAT  "relayscope-session"
#define RELAY_SESSION_VERSION 1

#define RELAY_SESSION_ERROR (relay_session_error_quark())

typedef enum
{
  RELAY_SESSION_ERROR_PARSE,      /* not JSON, truncated, or malformed members */
  RELAY_SESSION_ERROR_FORMAT,     /* JSON, but not a Relayscope session */
  RELAY_SESSION_ERROR_VERSION,    /* written by a newer Relayscope */
} RelaySessionError;

GQuark relay_session_error_quark (void);

#define RELAY_TYPE_SESSION (relay_session_get_type())

G_DECLARE_FINAL_TYPE (RelaySession, relay_session, RELAY, SESSION, GObject)

RelaySession  *relay_session_new              (void);
const char    *relay_session_get_title        (RelaySession   *self);
void           relay_session_set_title        (RelaySession   *self,
                                               const char     *title);
const char    *relay_session_get_notes        (RelaySession   *self);
void           relay_session_set_notes        (RelaySession   *self,
                                               const char     *notes);
GDateTime     *relay_session_get_created      (RelaySession   *self);

/* A GListModel of RelayEndpoint. */
GListModel    *relay_session_get_endpoints    (RelaySession   *self);
void           relay_session_add_endpoint     (RelaySession   *self,
                                               RelayEndpoint  *endpoint);
RelayEndpoint *relay_session_find_endpoint    (RelaySession   *self,
                                               const char     *name);
/* A GListModel of RelayRun; a run's index in it is the trace's "run". */
GListModel    *relay_session_get_runs         (RelaySession   *self);
guint          relay_session_add_run          (RelaySession   *self,
                                               RelayRun       *run);
RelayRun      *relay_session_get_run          (RelaySession   *self,
                                               guint           index);
/* A GListModel of RelayTrace, in the order they started. */
GListModel    *relay_session_get_traces       (RelaySession   *self);
void           relay_session_add_trace        (RelaySession   *self,
                                               RelayTrace     *trace);

/* Top-level members the session itself does not define (an experiment's definition and
 * result, members from newer versions): kept on load and written back. get returns NULL when
 * absent (the node stays owned by the session); set copies value, NULL removes the member.
 * The session's own members ("title", "traces", …) cannot be set this way. */
JsonNode      *relay_session_get_extra        (RelaySession   *self,
                                               const char     *name);
void           relay_session_set_extra        (RelaySession   *self,
                                               const char     *name,
                                               JsonNode       *value);

/* TRUE when changed since the last load or save ("notify::modified"). */
gboolean       relay_session_get_modified     (RelaySession   *self);
void           relay_session_set_modified     (RelaySession   *self,
                                               gboolean        modified);

JsonNode      *relay_session_to_json          (RelaySession   *self);
RelaySession  *relay_session_new_from_json    (JsonNode       *node,
                                               GError        **error);

RelaySession  *relay_session_load             (GFile          *file,
                                               GCancellable   *cancellable,
                                               GError        **error);
RelaySession  *relay_session_load_from_data   (const char     *data,
                                               gssize          length,
                                               GError        **error);
/* Atomic: writes a temporary file beside the target, fsyncs, renames. */
gboolean       relay_session_save             (RelaySession   *self,
                                               GFile          *file,
                                               GCancellable   *cancellable,
                                               GError        **error);

G_END_DECLS
