/* relay-experiment-dialog.h: chooses a guided experiment, its endpoint(s) and parameters,
 * with sensible defaults, and hands the window a ready RelayExperiment to run.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "relay-experiment.h"

G_BEGIN_DECLS

#define RELAY_TYPE_EXPERIMENT_DIALOG (relay_experiment_dialog_get_type())

G_DECLARE_FINAL_TYPE (RelayExperimentDialog, relay_experiment_dialog, RELAY, EXPERIMENT_DIALOG, AdwWindow)

/* endpoints: a GListModel of RelayEndpoint to choose from; selected (may be NULL) the
 * endpoint names to preselect. Signal "run" (RelayExperiment *) when the user starts it. */
RelayExperimentDialog *relay_experiment_dialog_new       (GtkWindow           *parent,
                                                          GListModel          *endpoints,
                                                          const char * const  *selected,
                                                          RelayExperimentKind  kind);
void                   relay_experiment_dialog_set_kind  (RelayExperimentDialog *self,
                                                          RelayExperimentKind    kind);
/* The experiment the dialog's settings describe, prepared; NULL with an error a person can
 * act on (no endpoint, a malformed list of levels, …). */
RelayExperiment       *relay_experiment_dialog_build     (RelayExperimentDialog *self,
                                                          GError               **error);

G_END_DECLS
