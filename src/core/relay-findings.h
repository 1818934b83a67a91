/* relay-findings.h: rules that read a session's traces and say, in words and with numbers,
 * what slows the first token, how sure that is, and what to do about it.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "relay-session.h"

G_BEGIN_DECLS

typedef enum
{
  RELAY_CONFIDENCE_LOW,
  RELAY_CONFIDENCE_MEDIUM,
  RELAY_CONFIDENCE_HIGH,
} RelayConfidence;

typedef enum
{
  RELAY_FINDING_INFO,      /* worth knowing: a cache hit, what a new connection costs */
  RELAY_FINDING_PROBLEM,   /* slows the first token (or the stream) and can be acted on */
} RelayFindingSeverity;

/* Finding ids (stable: files, scripts and the app's icons use them). */
#define RELAY_FINDING_BUFFERING_PROXY      "buffering-proxy"
#define RELAY_FINDING_NO_CONNECTION_REUSE  "no-connection-reuse"
#define RELAY_FINDING_CONNECTION_COST      "connection-cost"
#define RELAY_FINDING_SLOW_DNS             "slow-dns"
#define RELAY_FINDING_SLOW_TLS             "slow-tls"
#define RELAY_FINDING_SERVER_WAIT          "server-wait"
#define RELAY_FINDING_PROMPT_CACHE_HIT     "prompt-cache-hit"
#define RELAY_FINDING_PROMPT_CACHE_MISS    "prompt-cache-miss"
#define RELAY_FINDING_REASONING_DELAY      "reasoning-delay"
#define RELAY_FINDING_THROTTLING           "throttling"
#define RELAY_FINDING_CONCURRENCY_QUEUE    "concurrency-queue"
#define RELAY_FINDING_RELAY_OVERHEAD       "relay-overhead"
#define RELAY_FINDING_MODEL_MISMATCH       "model-mismatch"

/* Thresholds. A rule looks at one endpoint × model (connection rules: one endpoint) and at
 * finished traces only. They are set so that a healthy endpoint (the simulated `fast`
 * profile, cold or warm, on a busy machine) fires no PROBLEM; the only finding it may show
 * is the INFO connection-cost, and only for cold probes whose handshakes really cost that
 * much (over TLS; plain HTTP on loopback costs far less).
 *
 * buffering-proxy: chunks read less than BURST_GAP_MS apart are one delivery (one flush of
 *   a proxy's buffer); a stream of at least BUFFER_MIN_TOKENS output tokens is buffered when
 *   it brings at least BUFFER_TOKENS_PER_DELIVERY tokens per delivery on average. Fires when
 *   at least half of the eligible streams are buffered. "Whole answer at once" is said when
 *   the first delivery holds BUFFER_FIRST_SHARE of the chunks. */
#define RELAY_FINDINGS_BURST_GAP_MS                2.0
#define RELAY_FINDINGS_BUFFER_MIN_TOKENS           16
#define RELAY_FINDINGS_BUFFER_TOKENS_PER_DELIVERY  4.0
#define RELAY_FINDINGS_BUFFER_FIRST_SHARE          0.8
/* connection-cost (INFO, cold probes): DNS + TCP + proxy + TLS setup + TLS handshake p50 of
 *   new connections is at least CONNECTION_COST_MIN_MS and CONNECTION_COST_MIN_SHARE of TTFT.
 * no-connection-reuse (PROBLEM): probes of a warm (keep-alive) run opened a new connection
 *   anyway, in at least NO_REUSE_MIN_SHARE of them (two probes at least). */
#define RELAY_FINDINGS_CONNECTION_COST_MIN_MS      20.0
#define RELAY_FINDINGS_CONNECTION_COST_MIN_SHARE   0.10
#define RELAY_FINDINGS_NO_REUSE_MIN_SHARE          0.5
/* slow-dns: resolution p50 above SLOW_DNS_MS (a nearby resolver answers in 1–20 ms).
 * slow-tls: handshake p50 at least SLOW_TLS_RTT_FACTOR × the TCP connect p50 (one round trip)
 *   and at least SLOW_TLS_EXTRA_MS more than it: TLS 1.3 needs one round trip, TLS 1.2 two. */
#define RELAY_FINDINGS_SLOW_DNS_MS                 50.0
#define RELAY_FINDINGS_SLOW_TLS_RTT_FACTOR         3.0
#define RELAY_FINDINGS_SLOW_TLS_EXTRA_MS           50.0
/* server-wait: the server's part of TTFT (request sent → first token: gateway, queue,
 *   prefill, first token) has a p50 above the default budget's wait + first token
 *   (330 + 200 = 530 ms, DESIGN.md §5) and is at least SERVER_WAIT_MIN_SHARE of TTFT. */
#define RELAY_FINDINGS_SERVER_WAIT_MIN_SHARE       0.7
/* prompt-cache-hit (INFO): the server reported cached prompt tokens in a response; the saving
 *   is said when misses of about the same prompt length (±25 %) are there to compare, on the
 *   server's part of TTFT (request sent → first token), so that a cold first request does not
 *   pass for a cache miss.
 * prompt-cache-miss: the same prompt prefix (at least PROMPT_CACHE_MIN_TOKENS prompt tokens,
 *   compared over its first PROMPT_CACHE_PREFIX_CHARS characters) went out at least twice
 *   and no response reported a cached token (a report of 0 is needed: absent is unknown). */
#define RELAY_FINDINGS_PROMPT_CACHE_MIN_TOKENS     1024
#define RELAY_FINDINGS_PROMPT_CACHE_PREFIX_CHARS   4096
/* reasoning-delay: time in reasoning before the first visible text (first token → first
 *   content) has a p50 of at least REASONING_MIN_MS and REASONING_MIN_SHARE of the time to
 *   first visible text; or the usage reports hidden reasoning tokens that, at the stream's
 *   own pace, stand for at least REASONING_MIN_MS. */
#define RELAY_FINDINGS_REASONING_MIN_MS            300.0
#define RELAY_FINDINGS_REASONING_MIN_SHARE         0.25
/* throttling: a stall is a gap between deliveries of at least STALL_MIN_MS and
 *   STALL_FACTOR × that stream's median gap; fires with at least STALL_MIN_COUNT stalls, or
 *   any HTTP 429, or rate-limit headers (x-ratelimit-remaining-*, anthropic-ratelimit-*)
 *   at or below RATELIMIT_LOW_SHARE of the limit (RATELIMIT_LOW_REQUESTS requests when the
 *   limit is not given). */
#define RELAY_FINDINGS_STALL_MIN_MS                250.0
#define RELAY_FINDINGS_STALL_FACTOR                8.0
#define RELAY_FINDINGS_STALL_MIN_COUNT             2
#define RELAY_FINDINGS_RATELIMIT_LOW_SHARE         0.05
#define RELAY_FINDINGS_RATELIMIT_LOW_REQUESTS      5
/* concurrency-queue: the server's part of TTFT (request sent → first token, so that parallel
 *   handshakes on a busy client do not count) fitted against the number of the endpoint's
 *   requests in flight when each was sent (sent before it or within QUEUE_SIMULTANEOUS_MS
 *   after it, and not finished; itself included), by least squares over at least
 *   QUEUE_MIN_TRACES traces and two levels: the fitted value at the highest level exceeds the
 *   lowest by QUEUE_MIN_RISE_MS and by QUEUE_MIN_RATIO, and the correlation is at least
 *   QUEUE_MIN_R. Requests of one run at one concurrency mostly share one level; runs at
 *   different concurrency (the concurrency experiment) give the levels to compare. */
#define RELAY_FINDINGS_QUEUE_SIMULTANEOUS_MS       10.0
#define RELAY_FINDINGS_QUEUE_MIN_TRACES            6
#define RELAY_FINDINGS_QUEUE_MIN_RISE_MS           100.0
#define RELAY_FINDINGS_QUEUE_MIN_RATIO             1.5
#define RELAY_FINDINGS_QUEUE_MIN_R                 0.5
/* relay-overhead: wait (request sent → headers) minus the upstream's own time
 *   (x-envoy-upstream-service-time, openai-processing-ms or the largest Server-Timing dur,
 *   in that order) minus one network round trip (TCP connect p50, when measured) has a p50
 *   of at least RELAY_OVERHEAD_MIN_MS and RELAY_OVERHEAD_MIN_SHARE of the wait. */
#define RELAY_FINDINGS_RELAY_OVERHEAD_MIN_MS       50.0
#define RELAY_FINDINGS_RELAY_OVERHEAD_MIN_SHARE    0.2
/* model-mismatch: a response named a model other than the one requested; a dated snapshot
 *   of the requested name ("gpt-4o" → "gpt-4o-2024-08-06") or of a "-latest" alias is the
 *   same model. Requests for "default" are not checked.
 *
 * Confidence: from the number n of traces behind a finding and its margin (the measured
 * figure over its threshold, ≥ 1): HIGH when n ≥ 5 and margin ≥ 1.5; LOW when n < 2, or
 * when n < 3 and margin < 1.2; MEDIUM otherwise. Rules with a direct observation (HTTP 429,
 * a reported model, a reported cached-token count) use n and a margin of 2. */

typedef struct
{
  char                 *id;          /* one of RELAY_FINDING_* */
  RelayFindingSeverity  severity;
  RelayConfidence       confidence;
  char                 *endpoint;    /* the endpoint it is about, or NULL for the session */
  char                 *model;       /* the model, or NULL when about the endpoint (network) */
  char                 *title;       /* a few words: "A proxy buffers the stream" */
  char                 *summary;     /* one or two sentences with the numbers behind it */
  char                 *remedy;      /* what to do */
  double                impact_ms;   /* time at stake per request (ms), NAN when unknown */
  GArray               *traces;      /* guint: indices in relay_session_get_traces() */
} RelayFinding;

#define RELAY_TYPE_FINDING (relay_finding_get_type())

GType            relay_finding_get_type         (void) G_GNUC_CONST;
RelayFinding    *relay_finding_copy             (const RelayFinding *finding);
void             relay_finding_free             (RelayFinding       *finding);
JsonNode        *relay_finding_to_json          (const RelayFinding *finding);

const char      *relay_confidence_to_string     (RelayConfidence     confidence);
const char      *relay_finding_severity_to_string (RelayFindingSeverity severity);

/* Runs every rule over session. Findings come problems first, then by confidence, then by
 * impact; free the array with g_ptr_array_unref. An empty array when nothing fires. Traces
 * still running are left out, so it may be called again as a run goes on. */
GPtrArray       *relay_findings_analyze         (RelaySession       *session);
/* The findings as the CLI prints them (a heading, then each with its evidence and remedy);
 * a line saying nothing was found when the array is empty. */
char            *relay_findings_format_text     (GPtrArray          *findings);
/* A JSON array of the findings. */
JsonNode        *relay_findings_to_json         (GPtrArray          *findings);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RelayFinding, relay_finding_free)

G_END_DECLS
