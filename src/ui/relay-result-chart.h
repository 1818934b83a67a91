/* relay-result-chart.h: a small cairo chart for figures that are not a waterfall: an
 * experiment's bars or fitted points, A/B CDFs, the budget usage's stacked bars.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "relay-experiment.h"

G_BEGIN_DECLS

#define RELAY_TYPE_RESULT_CHART (relay_result_chart_get_type())

G_DECLARE_FINAL_TYPE (RelayResultChart, relay_result_chart, RELAY, RESULT_CHART, GtkWidget)

GtkWidget *relay_result_chart_new          (void);
/* Forgets every series, category and reference line, and sets the kind and axis labels. */
void       relay_result_chart_reset        (RelayResultChart     *self,
                                            RelayExperimentChart  kind,
                                            const char           *x_label,
                                            const char           *y_label);
/* x labels of the bar charts, in order (x = index). */
void       relay_result_chart_add_category (RelayResultChart     *self,
                                            const char           *label);
/* A series; line joins the points (XY), fit draws it dashed (a fitted line). */
void       relay_result_chart_add_series   (RelayResultChart     *self,
                                            const char           *name,
                                            gboolean              line,
                                            gboolean              fit,
                                            const RelayExperimentPoint *points,
                                            guint                 n_points);
/* A horizontal reference line (a budget), drawn in the error colour with its label. */
void       relay_result_chart_add_reference (RelayResultChart    *self,
                                            double                y,
                                            const char           *label);
/* Everything from an experiment's result (NULL clears the chart). */
void       relay_result_chart_set_result   (RelayResultChart     *self,
                                            RelayExperimentResult *result);
guint      relay_result_chart_get_n_series (RelayResultChart     *self);
/* Draws the chart into (0, 0, width, height), background included. */
void       relay_result_chart_draw         (RelayResultChart     *self,
                                            cairo_t              *cr,
                                            double                width,
                                            double                height);

G_END_DECLS
