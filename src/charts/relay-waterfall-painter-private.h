/* relay-waterfall-painter-private.h: layout internals shared with the exporter.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "relay-waterfall-painter.h"

G_BEGIN_DECLS

/* The content height at a given drawing width (the legend wraps with the width). */
double _relay_waterfall_painter_get_content_height_for_width (RelayWaterfallPainter *self,
                                                              double                 width);

G_END_DECLS
