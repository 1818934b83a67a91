/* relay-session-private.h: test hooks of the session saver.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "relay-session.h"

G_BEGIN_DECLS

/* Makes the next saves fail with an I/O error once n bytes of the temporary file are
 * written, as a full disk or a crash would; G_MAXSIZE turns it off. Tests only. */
void _relay_session_set_fail_after_bytes (gsize n);

G_END_DECLS
