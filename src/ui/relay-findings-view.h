/* relay-findings-view.h: the Findings page: what the evidence of a session says slows the
 * first token, with the numbers, how sure it is, the remedy and links to the traces; and the
 * answer of the session's guided experiment with its chart.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "relay-experiment.h"
#include "relay-session.h"

G_BEGIN_DECLS

#define RELAY_TYPE_FINDINGS_VIEW (relay_findings_view_get_type())

G_DECLARE_FINAL_TYPE (RelayFindingsView, relay_findings_view, RELAY, FINDINGS_VIEW, GtkWidget)

/* Signal "trace-activated" (RelayTrace *): a link to a finding's evidence was clicked. */
GtkWidget             *relay_findings_view_new          (void);
void                   relay_findings_view_set_session  (RelayFindingsView *self,
                                                         RelaySession      *session);
/* Runs the rules again (after a run finished) and re-reads the session's experiment. */
void                   relay_findings_view_refresh      (RelayFindingsView *self);
/* The findings shown: an array of RelayFinding (may be empty), owned by the view. */
GPtrArray             *relay_findings_view_get_findings (RelayFindingsView *self);
/* The experiment result shown, or NULL. */
RelayExperimentResult *relay_findings_view_get_result   (RelayFindingsView *self);
/* The text of the empty state or the heading, for tests and screen readers. */
const char            *relay_findings_view_get_status   (RelayFindingsView *self);

G_END_DECLS
