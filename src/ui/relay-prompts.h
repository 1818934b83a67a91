/* relay-prompts.h: the composer's prompt presets (short chat, long context, cached prefix).
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  RELAY_PROMPT_SHORT,
  RELAY_PROMPT_LONG_CONTEXT,
  RELAY_PROMPT_CACHED_PREFIX,
  RELAY_PROMPT_CUSTOM,
  RELAY_N_PROMPTS
} RelayPromptPreset;

/* The names kept in GSettings and in a run ("short", "long-context", …). */
const char        *relay_prompt_preset_to_string   (RelayPromptPreset  preset);
RelayPromptPreset  relay_prompt_preset_from_string (const char        *str);
/* A translated sentence saying what the preset exposes. */
const char        *relay_prompt_preset_describe    (RelayPromptPreset  preset);
/* The prompt text; custom is returned for RELAY_PROMPT_CUSTOM. */
char              *relay_prompt_build              (RelayPromptPreset  preset,
                                                    const char        *custom);
/* Filler text of about n_tokens tokens (4 characters a token), the same for the same seed. */
char              *relay_prompt_filler             (guint              n_tokens,
                                                    guint32            seed);

G_END_DECLS
