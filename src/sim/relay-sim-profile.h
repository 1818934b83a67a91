/* relay-sim-profile.h: what the simulated relay does to a request: delays, pacing, faults.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  RELAY_SIM_FAULT_NONE,
  RELAY_SIM_FAULT_HTTP_401,
  RELAY_SIM_FAULT_HTTP_403,
  RELAY_SIM_FAULT_HTTP_404,
  RELAY_SIM_FAULT_HTTP_429,       /* with retry-after and a JSON error body */
  RELAY_SIM_FAULT_HTTP_500,
  RELAY_SIM_FAULT_HTTP_503,
  RELAY_SIM_FAULT_HTML_502,       /* an HTML error page, as a proxy sends */
  RELAY_SIM_FAULT_RESET,          /* connection closed mid-stream after fault_after tokens */
  RELAY_SIM_FAULT_MALFORMED,      /* a malformed JSON chunk after fault_after tokens */
  RELAY_SIM_FAULT_NO_TERMINATOR,  /* stream ends without [DONE] / message_stop */
  RELAY_SIM_FAULT_ERROR_EVENT,    /* an error event mid-stream */
  RELAY_SIM_FAULT_STALL,          /* stops sending after fault_after tokens, forever */
  RELAY_SIM_FAULT_HUGE_LINE,      /* one data line of fault_bytes bytes */
} RelaySimFault;

typedef struct
{
  double        headers_delay_ms;      /* before the response headers */
  double        prefill_us_per_token;  /* added to headers delay per prompt token (~4 chars) */
  double        cache_discount;        /* 0..1: prefill saved for a prefix seen before */
  double        ttft_ms;               /* headers → first token */
  guint         reasoning_tokens;      /* thinking tokens sent before the content */
  double        itl_ms;                /* mean gap between tokens */
  double        itl_jitter_ms;         /* uniform ± jitter */
  double        stall_probability;     /* per token: a pause of stall_ms (throttling) */
  double        stall_ms;
  guint         coalesce;              /* tokens per written chunk (1 = none; buffering proxy) */
  guint         tokens;                /* output tokens (content) */
  gboolean      role_chunk;            /* openai: a role-only first chunk */
  RelaySimFault fault;
  double        fault_probability;     /* 0..1 per request (1 = always) */
  guint         fault_after;           /* tokens before a mid-stream fault */
  gsize         fault_bytes;           /* for HUGE_LINE */
  char         *model;                 /* reported model; NULL echoes the requested one */
  guint32       seed;                  /* jitter and fault dice; 0 = random */
  char         *fault_cycle;           /* "http-429|reset|…": a faulty request takes the next
                                        * of these instead of fault (NULL: always fault) */
  double        queue_ms_per_active;   /* more headers delay per request already in flight */
  double        relay_overhead_ms;     /* headers delay the latency headers leave out, as a
                                        * relay in front of the upstream adds */
  double        ratelimit_remaining;   /* x-ratelimit-remaining-requests; < 0 counts down */
  char         *model_ttft_ms;         /* "model:ms|model:ms": ttft_ms by requested model */
  char         *effort_reasoning_tokens; /* "low:n|medium:n|high:n": reasoning_tokens by the
                                        * request's effort (Anthropic: thinking budget) */
  gboolean      close_connection;      /* "Connection: close" on every answer: no keep-alive */
} RelaySimProfile;

/* Named profiles: "fast", "congested", "buffering", "reasoning", "flaky". */
gboolean         relay_sim_profile_init_named  (RelaySimProfile       *profile,
                                                const char            *name);
const char * const *relay_sim_profile_list_names (void);
/* Reads a JSON object of the fields above (names as in the struct) over a named base
 * ("profile": "fast"). */
gboolean         relay_sim_profile_init_from_json (RelaySimProfile    *profile,
                                                const char            *json,
                                                GError               **error);
/* Applies "key=value, key=value" (the X-Relayscope-Sim request header). */
gboolean         relay_sim_profile_apply_overrides (RelaySimProfile   *profile,
                                                const char            *overrides,
                                                GError               **error);
void             relay_sim_profile_copy        (const RelaySimProfile *src,
                                                RelaySimProfile       *dest);
void             relay_sim_profile_clear       (RelaySimProfile       *profile);

/* "http-429", "reset", … ("none" for RELAY_SIM_FAULT_NONE). */
const char      *relay_sim_fault_to_string     (RelaySimFault          fault);
gboolean         relay_sim_fault_from_string   (const char            *str,
                                                RelaySimFault         *fault);

G_END_DECLS
