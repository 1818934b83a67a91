/* relay-prompts.c: the composer's prompt presets.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "relay-prompts.h"

/* Long prompts expose prefill time; about 6000 tokens is long enough to dominate the wait
 * on most servers and small enough for every current model's context. */
#define LONG_CONTEXT_TOKENS  6000
#define CACHED_PREFIX_TOKENS 4000

static const char * const names[RELAY_N_PROMPTS] = {
  "short", "long-context", "cached-prefix", "custom",
};

static const char * const subjects[] = {
  "The gateway", "Each replica", "The scheduler", "A regional relay", "The tokenizer",
  "The load balancer", "The cache layer", "The model server", "An upstream proxy",
  "The rate limiter", "The batching queue", "The streaming encoder",
};

static const char * const verbs[] = {
  "records", "forwards", "delays", "batches", "measures", "retries", "compresses",
  "rejects", "reorders", "buffers", "throttles", "annotates",
};

static const char * const objects[] = {
  "every incoming request", "the longest prompts", "the response headers",
  "the first generated token", "idle connections", "the prefill work",
  "short chat turns", "the usage report", "each streamed chunk", "the TLS session",
  "the routing decision", "requests without a cache hit",
};

static const char * const tails[] = {
  "before the queue fills up", "while the handshake completes", "under sustained load",
  "when the region is congested", "after the warm-up period", "during a deployment",
  "for the slowest tenants", "until the budget is spent", "once the cache is warm",
  "at the end of each minute", "whenever the upstream stalls", "for audit purposes",
};

const char *
relay_prompt_preset_to_string (RelayPromptPreset preset)
{
  g_return_val_if_fail (preset < RELAY_N_PROMPTS, "custom");

  return names[preset];
}

RelayPromptPreset
relay_prompt_preset_from_string (const char *str)
{
  for (guint i = 0; i < RELAY_N_PROMPTS; i++)
    {
      if (g_strcmp0 (str, names[i]) == 0)
        return i;
    }

  return RELAY_PROMPT_SHORT;
}

const char *
relay_prompt_preset_describe (RelayPromptPreset preset)
{
  switch (preset)
    {
    case RELAY_PROMPT_SHORT:
      return _("A short chat question: the wait is mostly gateway, queue and network.");
    case RELAY_PROMPT_LONG_CONTEXT:
      return _("About 6000 tokens of context, different for every run: exposes prefill time.");
    case RELAY_PROMPT_CACHED_PREFIX:
      return _("The same long prefix every time: after the first probe, prompt caching should cut the time to first token.");
    case RELAY_PROMPT_CUSTOM:
    case RELAY_N_PROMPTS:
    default:
      return _("Your own prompt, sent as it is.");
    }
}

char *
relay_prompt_filler (guint   n_tokens,
                     guint32 seed)
{
  g_autoptr(GString) str = g_string_sized_new (n_tokens * 4 + 64);
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  guint sentence = 0;

  while (str->len < n_tokens * 4)
    {
      g_string_append_printf (str, "%s %s %s %s.",
                              subjects[g_rand_int_range (rand, 0, G_N_ELEMENTS (subjects))],
                              verbs[g_rand_int_range (rand, 0, G_N_ELEMENTS (verbs))],
                              objects[g_rand_int_range (rand, 0, G_N_ELEMENTS (objects))],
                              tails[g_rand_int_range (rand, 0, G_N_ELEMENTS (tails))]);
      sentence++;
      g_string_append (str, sentence % 6 == 0 ? "\n\n" : " ");
    }

  return g_string_free (g_steal_pointer (&str), FALSE);
}

char *
relay_prompt_build (RelayPromptPreset  preset,
                    const char        *custom)
{
  switch (preset)
    {
    case RELAY_PROMPT_SHORT:
      return g_strdup ("In two sentences, explain what time to first token means for a chat application.");

    case RELAY_PROMPT_LONG_CONTEXT:
      {
        /* A fresh seed and a run id in front, so no earlier run's cache can serve it. */
        guint32 seed = g_random_int ();
        g_autofree char *filler = relay_prompt_filler (LONG_CONTEXT_TOKENS, seed);

        return g_strdup_printf ("Operations log %08x.\n\n%s\n\nSummarise the log above in three sentences.",
                                seed, filler);
      }

    case RELAY_PROMPT_CACHED_PREFIX:
      {
        /* The prefix never changes, so a server with prompt caching serves it from cache. */
        g_autofree char *filler = relay_prompt_filler (CACHED_PREFIX_TOKENS, 20260101);

        return g_strdup_printf ("Reference manual.\n\n%s\n\nWhich component throttles requests? Answer in one sentence.",
                                filler);
      }

    case RELAY_PROMPT_CUSTOM:
    case RELAY_N_PROMPTS:
    default:
      return g_strdup (custom != NULL && custom[0] != '\0' ? custom : "Hello!");
    }
}
