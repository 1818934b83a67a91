/* relay-findings.c: the rules that turn a session's traces into findings.
 *
 * Each rule looks at the traces of one endpoint × model (the connection rules at one
 * endpoint), compares a measured figure with a threshold from relay-findings.h, and when it
 * fires writes a sentence with the figures behind it. The thresholds sit well above what a
 * healthy endpoint shows on a busy machine, because a finding that fires on a healthy
 * endpoint teaches users to ignore findings.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "relay-budget.h"
#include "relay-findings.h"
#include "relay-stats.h"

#define WRAP_COLUMNS 100

/* What the rules need of one trace, computed once. */
typedef struct
{
  RelayTrace      *trace;
  guint            index;        /* in the session's traces */
  const char      *endpoint;
  const char      *model;
  RelayConnection  connection;
  const char      *prompt;
  gint64           abs_sent;     /* µs on a clock shared by the endpoint's traces */
  gint64           abs_end;
  guint            in_flight;    /* the endpoint's requests in flight when this one was sent */
} TraceInfo;

typedef struct
{
  char      *endpoint;
  char      *model;      /* NULL: every model of the endpoint */
  GPtrArray *infos;      /* TraceInfo, borrowed */
} Group;

typedef struct
{
  RelaySession *session;
  GArray       *infos;       /* TraceInfo */
  GPtrArray    *groups;      /* endpoint × model */
  GPtrArray    *endpoints;   /* endpoint */
  GPtrArray    *findings;
  double        server_limit_ms;
} Analysis;

G_DEFINE_BOXED_TYPE (RelayFinding, relay_finding, relay_finding_copy, relay_finding_free)

static const char * const confidence_names[] = { "low", "medium", "high" };
static const char * const severity_names[] = { "info", "problem" };

const char *
relay_confidence_to_string (RelayConfidence confidence)
{
  g_return_val_if_fail ((guint) confidence < G_N_ELEMENTS (confidence_names), NULL);

  return confidence_names[confidence];
}

const char *
relay_finding_severity_to_string (RelayFindingSeverity severity)
{
  g_return_val_if_fail ((guint) severity < G_N_ELEMENTS (severity_names), NULL);

  return severity_names[severity];
}

RelayFinding *
relay_finding_copy (const RelayFinding *finding)
{
  RelayFinding *copy;

  g_return_val_if_fail (finding != NULL, NULL);

  copy = g_new0 (RelayFinding, 1);
  copy->id = g_strdup (finding->id);
  copy->severity = finding->severity;
  copy->confidence = finding->confidence;
  copy->endpoint = g_strdup (finding->endpoint);
  copy->model = g_strdup (finding->model);
  copy->title = g_strdup (finding->title);
  copy->summary = g_strdup (finding->summary);
  copy->remedy = g_strdup (finding->remedy);
  copy->impact_ms = finding->impact_ms;
  copy->traces = g_array_new (FALSE, FALSE, sizeof (guint));
  if (finding->traces != NULL)
    g_array_append_vals (copy->traces, finding->traces->data, finding->traces->len);

  return copy;
}

void
relay_finding_free (RelayFinding *finding)
{
  if (finding == NULL)
    return;

  g_free (finding->id);
  g_free (finding->endpoint);
  g_free (finding->model);
  g_free (finding->title);
  g_free (finding->summary);
  g_free (finding->remedy);
  g_clear_pointer (&finding->traces, g_array_unref);
  g_free (finding);
}

JsonNode *
relay_finding_to_json (const RelayFinding *finding)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  g_return_val_if_fail (finding != NULL, NULL);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, finding->id);
  json_builder_set_member_name (b, "severity");
  json_builder_add_string_value (b, relay_finding_severity_to_string (finding->severity));
  json_builder_set_member_name (b, "confidence");
  json_builder_add_string_value (b, relay_confidence_to_string (finding->confidence));
  json_builder_set_member_name (b, "endpoint");
  if (finding->endpoint != NULL)
    json_builder_add_string_value (b, finding->endpoint);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "model");
  if (finding->model != NULL)
    json_builder_add_string_value (b, finding->model);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, finding->title);
  json_builder_set_member_name (b, "summary");
  json_builder_add_string_value (b, finding->summary);
  json_builder_set_member_name (b, "remedy");
  json_builder_add_string_value (b, finding->remedy);
  json_builder_set_member_name (b, "impact_ms");
  if (isfinite (finding->impact_ms))
    json_builder_add_double_value (b, round (finding->impact_ms * 10) / 10);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "traces");
  json_builder_begin_array (b);
  for (guint i = 0; finding->traces != NULL && i < finding->traces->len; i++)
    json_builder_add_int_value (b, g_array_index (finding->traces, guint, i));
  json_builder_end_array (b);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

JsonNode *
relay_findings_to_json (GPtrArray *findings)
{
  JsonArray *array;
  JsonNode *node;

  g_return_val_if_fail (findings != NULL, NULL);

  array = json_array_sized_new (findings->len);
  for (guint i = 0; i < findings->len; i++)
    json_array_add_element (array, relay_finding_to_json (g_ptr_array_index (findings, i)));

  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, array);

  return node;
}

/* ---------------------------------------------------------------------------------------
 * Numbers and words.
 */

/* Milliseconds as people read them: 0.3 ms, 8.5 ms, 53 ms, 1.24 s. */
static char *
fmt_ms (double ms)
{
  if (!isfinite (ms))
    return g_strdup ("?");
  if (fabs (ms) >= 1000)
    return g_strdup_printf (_("%.2f s"), ms / 1000);
  if (fabs (ms) >= 10)
    return g_strdup_printf (_("%.0f ms"), ms);
  return g_strdup_printf (_("%.1f ms"), ms);
}

static char *
fmt_percent (double share)
{
  return g_strdup_printf (_("%.0f %%"), 100 * share);
}

static double
percentile_of (GArray *values,
               double  q)
{
  if (values == NULL)
    return NAN;

  return relay_stats_percentile_of ((const double *) (gpointer) values->data, values->len, q);
}

static double
median_of (GArray *values)
{
  return percentile_of (values, 50);
}

static GArray *
doubles_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (double));
}

static GArray *
indices_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (guint));
}

static void
add_double (GArray *values,
            double  value)
{
  if (isfinite (value))
    g_array_append_val (values, value);
}

static double
interval_ms (RelayTrace *trace,
             RelayMark   from,
             RelayMark   to)
{
  gint64 us = relay_trace_get_interval (trace, from, to);

  return us == RELAY_TIME_NONE ? NAN : us / 1000.0;
}

static RelayConfidence
confidence_for (guint  n,
                double margin)
{
  if (n >= 5 && margin >= 1.5)
    return RELAY_CONFIDENCE_HIGH;
  if (n < 2 || (n < 3 && margin < 1.2))
    return RELAY_CONFIDENCE_LOW;
  return RELAY_CONFIDENCE_MEDIUM;
}

static RelayFinding *
finding_add (Analysis             *analysis,
             const char           *id,
             RelayFindingSeverity  severity,
             const Group          *group)
{
  RelayFinding *finding = g_new0 (RelayFinding, 1);

  finding->id = g_strdup (id);
  finding->severity = severity;
  finding->endpoint = g_strdup (group->endpoint);
  finding->model = g_strdup (group->model);
  finding->impact_ms = NAN;
  finding->traces = indices_new ();
  g_ptr_array_add (analysis->findings, finding);

  return finding;
}

static void
finding_add_trace (RelayFinding *finding,
                   guint         index)
{
  for (guint i = 0; i < finding->traces->len; i++)
    if (g_array_index (finding->traces, guint, i) == index)
      return;

  g_array_append_val (finding->traces, index);
}

static void
finding_add_traces (RelayFinding *finding,
                    GArray       *indices)
{
  for (guint i = 0; i < indices->len; i++)
    finding_add_trace (finding, g_array_index (indices, guint, i));
}

/* Usable for timing: finished and not cancelled. */
static gboolean
info_usable (const TraceInfo *info)
{
  return relay_trace_is_finished (info->trace) &&
         relay_trace_get_error_stage (info->trace) != RELAY_ERROR_STAGE_CANCELLED;
}

/* ---------------------------------------------------------------------------------------
 * Deliveries: chunks read together (less than BURST_GAP_MS apart) came in one flush.
 */

typedef struct
{
  guint   n_deliveries;
  guint   first_size;     /* chunks in the first delivery */
  GArray *gaps;           /* ms between deliveries */
} Deliveries;

static void
deliveries_compute (RelayTrace *trace,
                    Deliveries *out)
{
  const RelayChunk *chunks;
  guint n;
  gint64 burst_us = (gint64) (RELAY_FINDINGS_BURST_GAP_MS * 1000);

  out->n_deliveries = 0;
  out->first_size = 0;
  out->gaps = doubles_new ();

  chunks = relay_trace_get_chunks (trace, &n);
  if (n == 0)
    return;

  out->n_deliveries = 1;
  out->first_size = 1;
  for (guint i = 1; i < n; i++)
    {
      gint64 gap = chunks[i].t_us - chunks[i - 1].t_us;

      if (gap < burst_us)
        {
          if (out->n_deliveries == 1)
            out->first_size++;
          continue;
        }

      out->n_deliveries++;
      add_double (out->gaps, gap / 1000.0);
    }
}

static void
deliveries_clear (Deliveries *d)
{
  g_clear_pointer (&d->gaps, g_array_unref);
}

/* ---------------------------------------------------------------------------------------
 * The rules.
 */

static void
rule_buffering (Analysis *analysis,
                Group    *group)
{
  g_autoptr(GArray) per_delivery = doubles_new ();
  g_autoptr(GArray) first_share = doubles_new ();
  g_autoptr(GArray) delivery_gaps = doubles_new ();
  g_autoptr(GArray) held = doubles_new ();
  g_autoptr(GArray) deliveries = doubles_new ();
  g_autoptr(GArray) tokens_all = doubles_new ();
  g_autoptr(GArray) which = indices_new ();
  g_autofree char *gap_text = NULL;
  RelayFinding *finding;
  guint eligible = 0;
  double tpd, share;

  for (guint i = 0; i < group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (group->infos, i);
      gint64 tokens = relay_trace_get_output_tokens (info->trace, NULL);
      guint n_chunks = relay_trace_get_n_chunks (info->trace);
      Deliveries d;
      double ratio, gap;

      if (!info_usable (info) || tokens < RELAY_FINDINGS_BUFFER_MIN_TOKENS || n_chunks == 0)
        continue;

      eligible++;
      deliveries_compute (info->trace, &d);
      ratio = (double) tokens / d.n_deliveries;
      if (ratio >= RELAY_FINDINGS_BUFFER_TOKENS_PER_DELIVERY)
        {
          g_array_append_val (which, info->index);
          add_double (per_delivery, ratio);
          add_double (first_share, (double) d.first_size / n_chunks);
          add_double (deliveries, d.n_deliveries);
          add_double (tokens_all, tokens);
          gap = median_of (d.gaps);
          add_double (delivery_gaps, gap);
          /* The first token waited for the rest of its delivery to be generated. */
          if (isfinite (gap) && ratio > 0)
            add_double (held, ((double) d.first_size * tokens / n_chunks - 1) * gap / ratio);
        }
      deliveries_clear (&d);
    }

  if (which->len == 0 || which->len * 2 < eligible)
    return;

  tpd = median_of (per_delivery);
  share = median_of (first_share);

  finding = finding_add (analysis, RELAY_FINDING_BUFFERING_PROXY, RELAY_FINDING_PROBLEM, group);
  finding_add_traces (finding, which);
  finding->confidence = confidence_for (which->len, tpd / RELAY_FINDINGS_BUFFER_TOKENS_PER_DELIVERY);
  finding->remedy = g_strdup (_("Turn off response buffering for text/event-stream in the proxy or "
                                "relay (nginx: “proxy_buffering off”, or send “X-Accel-Buffering: "
                                "no”), and keep compression and CDN caching away from the stream."));

  if (share >= RELAY_FINDINGS_BUFFER_FIRST_SHARE)
    {
      g_autofree char *pct = fmt_percent (share);

      finding->title = g_strdup (_("The answer is held back and arrives whole"));
      finding->summary = g_strdup_printf (_("The first token arrived together with %s of the "
                                            "stream’s chunks in %u of %u streams: something "
                                            "between the model and you buffers the whole "
                                            "answer, so the first token waits for the last."),
                                          pct, which->len, eligible);
      return;
    }

  gap_text = fmt_ms (median_of (delivery_gaps));
  finding->impact_ms = median_of (held);
  finding->title = g_strdup (_("A proxy buffers the stream"));
  {
    g_autofree char *held_text = fmt_ms (finding->impact_ms);

    finding->summary = g_strdup_printf (_("Tokens arrive in bursts: %.1f tokens per delivery "
                                          "(%.0f deliveries for %.0f tokens in a typical "
                                          "stream), %s apart, in %u of %u streams. The first "
                                          "token was held about %s while its burst filled."),
                                        tpd, median_of (deliveries), median_of (tokens_all),
                                        gap_text, which->len, eligible,
                                        held_text);
  }
}

/* DNS + TCP + proxy + TLS of a new connection, from the first of these marks to the last. */
static double
connection_cost_ms (RelayTrace *trace)
{
  static const RelayMark begins[] = { RELAY_MARK_DNS_START, RELAY_MARK_CONNECT_START };
  static const RelayMark ends[] = { RELAY_MARK_TLS_END, RELAY_MARK_PROXY_END, RELAY_MARK_TCP_END };
  gint64 begin = RELAY_TIME_NONE;
  gint64 end = RELAY_TIME_NONE;

  for (guint i = 0; i < G_N_ELEMENTS (begins) && begin == RELAY_TIME_NONE; i++)
    begin = relay_trace_get_mark (trace, begins[i]);
  for (guint i = 0; i < G_N_ELEMENTS (ends) && end == RELAY_TIME_NONE; i++)
    end = relay_trace_get_mark (trace, ends[i]);

  if (begin == RELAY_TIME_NONE || end == RELAY_TIME_NONE || end < begin)
    return NAN;

  return (end - begin) / 1000.0;
}

static gboolean
is_new_connection (RelayTrace *trace)
{
  return !relay_trace_get_reused (trace) && relay_trace_has_mark (trace, RELAY_MARK_CONNECT_START);
}

static void
append_part (GString    *parts,
             const char *name,
             double      ms)
{
  g_autofree char *text = NULL;

  if (!isfinite (ms))
    return;

  text = fmt_ms (ms);
  if (parts->len > 0)
    g_string_append (parts, " + ");
  /* TRANSLATORS: a stage and its duration, e.g. "DNS 31 ms" */
  g_string_append_printf (parts, C_("stage cost", "%s %s"), name, text);
}

static void
rule_connection (Analysis *analysis,
                 Group    *group)
{
  g_autoptr(GArray) cost = doubles_new ();
  g_autoptr(GArray) ttft = doubles_new ();
  g_autoptr(GArray) dns = doubles_new ();
  g_autoptr(GArray) tcp = doubles_new ();
  g_autoptr(GArray) proxy = doubles_new ();
  g_autoptr(GArray) setup = doubles_new ();
  g_autoptr(GArray) tls = doubles_new ();
  g_autoptr(GArray) other = doubles_new ();
  g_autoptr(GArray) cold = indices_new ();
  g_autoptr(GArray) warm_cost = doubles_new ();
  g_autoptr(GArray) warm_new = indices_new ();
  guint n_warm = 0;

  for (guint i = 0; i < group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (group->infos, i);
      RelayTrace *trace = info->trace;

      if (!info_usable (info) || !relay_trace_has_mark (trace, RELAY_MARK_REQUEST_START))
        continue;

      if (info->connection == RELAY_CONNECTION_WARM)
        {
          n_warm++;
          if (is_new_connection (trace))
            {
              g_array_append_val (warm_new, info->index);
              add_double (warm_cost, connection_cost_ms (trace));
            }
          continue;
        }

      if (!is_new_connection (trace))
        continue;

      {
        double total = connection_cost_ms (trace);
        double parts[] = {
          interval_ms (trace, RELAY_MARK_DNS_START, RELAY_MARK_DNS_END),
          interval_ms (trace, RELAY_MARK_CONNECT_START, RELAY_MARK_TCP_END),
          interval_ms (trace, RELAY_MARK_PROXY_START, RELAY_MARK_PROXY_END),
          NAN,
          interval_ms (trace, RELAY_MARK_TLS_START, RELAY_MARK_TLS_END),
        };
        double rest = total;

        if (relay_trace_has_mark (trace, RELAY_MARK_TLS_START))
          parts[3] = interval_ms (trace, relay_trace_has_mark (trace, RELAY_MARK_PROXY_END)
                                           ? RELAY_MARK_PROXY_END : RELAY_MARK_TCP_END,
                                  RELAY_MARK_TLS_START);
        for (guint p = 0; p < G_N_ELEMENTS (parts); p++)
          if (isfinite (parts[p]))
            rest -= parts[p];

        g_array_append_val (cold, info->index);
        add_double (cost, total);
        add_double (ttft, interval_ms (trace, RELAY_MARK_START, RELAY_MARK_FIRST_TOKEN));
        add_double (dns, parts[0]);
        add_double (tcp, parts[1]);
        add_double (proxy, parts[2]);
        add_double (setup, parts[3]);
        add_double (tls, parts[4]);
        /* Between the stages: address enumeration, a refused first attempt… */
        add_double (other, MAX (rest, 0));
      }
    }

  /* Keep-alive asked for and not given: the server or a proxy closes connections. */
  if (n_warm >= 2 && warm_new->len >= 2 &&
      warm_new->len >= RELAY_FINDINGS_NO_REUSE_MIN_SHARE * n_warm)
    {
      RelayFinding *finding = finding_add (analysis, RELAY_FINDING_NO_CONNECTION_REUSE,
                                           RELAY_FINDING_PROBLEM, group);
      g_autofree char *cost_text = fmt_ms (median_of (warm_cost));

      finding_add_traces (finding, warm_new);
      finding->impact_ms = median_of (warm_cost);
      finding->confidence = confidence_for (warm_new->len, 2.0 * warm_new->len / n_warm);
      finding->title = g_strdup (_("Connections are not kept alive"));
      finding->summary = g_strdup_printf (_("%u of %u requests sent over a kept-alive connection "
                                            "had to open a new one, each paying %s to connect "
                                            "again: the server or a proxy closes the connection "
                                            "after each response."),
                                          warm_new->len, n_warm, cost_text);
      finding->remedy = g_strdup (_("Look for “Connection: close” or a very short keep-alive "
                                    "timeout at the relay or load balancer, and enable HTTP "
                                    "keep-alive (or HTTP/2) so that requests share connections."));
    }

  if (cold->len > 0)
    {
      double cost_p50 = median_of (cost);
      double ttft_p50 = median_of (ttft);
      double setup_p50 = median_of (setup);
      double tls_p50 = median_of (tls);
      double other_p50 = median_of (other);
      double part_p50[] = { median_of (dns), median_of (tcp), median_of (proxy),
                            isfinite (setup_p50) && isfinite (tls_p50) ? setup_p50 + tls_p50 : tls_p50,
                            other_p50 >= 1 ? other_p50 : NAN };
      const char *part_names[] = { _("DNS"), _("TCP"), _("proxy"), _("TLS"), _("other") };
      g_autoptr(GString) parts = g_string_new (NULL);
      g_autofree char *cost_text = NULL;
      g_autofree char *ttft_text = fmt_ms (ttft_p50);
      g_autofree char *share_text = NULL;
      RelayFinding *finding;
      double sum = 0;

      /* The medians of the parts, so that the sentence adds up. */
      for (guint p = 0; p < G_N_ELEMENTS (part_p50); p++)
        {
          if (isfinite (part_p50[p]))
            sum += part_p50[p];
          append_part (parts, part_names[p], part_p50[p]);
        }
      cost_p50 = parts->len > 0 ? sum : cost_p50;

      if (!(cost_p50 >= RELAY_FINDINGS_CONNECTION_COST_MIN_MS) || !isfinite (ttft_p50) ||
          cost_p50 < RELAY_FINDINGS_CONNECTION_COST_MIN_SHARE * ttft_p50)
        return;

      cost_text = fmt_ms (cost_p50);
      share_text = fmt_percent (cost_p50 / ttft_p50);

      finding = finding_add (analysis, RELAY_FINDING_CONNECTION_COST, RELAY_FINDING_INFO, group);
      finding_add_traces (finding, cold);
      finding->impact_ms = cost_p50;
      finding->confidence = confidence_for (cold->len,
                                            cost_p50 / RELAY_FINDINGS_CONNECTION_COST_MIN_MS);
      finding->title = g_strdup_printf (_("A new connection costs %s"), cost_text);
      finding->summary = g_strdup_printf (_("Every request paid for a new connection: %s = %s of "
                                            "each %s TTFT (%s, p50 of %u)."),
                                          parts->str, cost_text, ttft_text, share_text,
                                          cold->len);
      if (isfinite (setup_p50) && setup_p50 >= 1)
        {
          g_autofree char *setup_text = fmt_ms (setup_p50);
          g_autofree char *tls_text = fmt_ms (tls_p50);
          g_autofree char *longer = g_strdup_printf (_("%s TLS is %s of client-side set-up and a %s "
                                                       "handshake."),
                                                     finding->summary, setup_text, tls_text);

          g_free (finding->summary);
          finding->summary = g_steal_pointer (&longer);
        }
      finding->remedy = g_strdup (_("Reuse connections (HTTP keep-alive, one connection pool "
                                    "shared by all requests) and keep one warm: a reused "
                                    "connection skips all of this."));
    }
}

static char *
endpoint_host (Analysis   *analysis,
               const char *name)
{
  RelayEndpoint *endpoint = relay_session_find_endpoint (analysis->session, name);
  g_autoptr(GUri) uri = NULL;

  if (endpoint != NULL)
    uri = g_uri_parse (relay_endpoint_get_base_url (endpoint), G_URI_FLAGS_NONE, NULL);
  if (uri != NULL && g_uri_get_host (uri) != NULL)
    return g_strdup (g_uri_get_host (uri));

  return g_strdup (name);
}

static void
rule_dns_tls (Analysis *analysis,
              Group    *group)
{
  g_autoptr(GArray) dns = doubles_new ();
  g_autoptr(GArray) dns_which = indices_new ();
  g_autoptr(GArray) tcp = doubles_new ();
  g_autoptr(GArray) tls = doubles_new ();
  g_autoptr(GArray) tls_which = indices_new ();
  double dns_p50, tcp_p50, tls_p50, limit;

  for (guint i = 0; i < group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (group->infos, i);
      double d, t, h;

      if (!info_usable (info))
        continue;

      d = interval_ms (info->trace, RELAY_MARK_DNS_START, RELAY_MARK_DNS_END);
      t = interval_ms (info->trace, RELAY_MARK_CONNECT_START, RELAY_MARK_TCP_END);
      h = interval_ms (info->trace, RELAY_MARK_TLS_START, RELAY_MARK_TLS_END);
      if (isfinite (d))
        {
          add_double (dns, d);
          g_array_append_val (dns_which, info->index);
        }
      add_double (tcp, t);
      if (isfinite (h))
        {
          add_double (tls, h);
          g_array_append_val (tls_which, info->index);
        }
    }

  dns_p50 = median_of (dns);
  if (dns_p50 >= RELAY_FINDINGS_SLOW_DNS_MS)
    {
      RelayFinding *finding = finding_add (analysis, RELAY_FINDING_SLOW_DNS,
                                           RELAY_FINDING_PROBLEM, group);
      g_autofree char *host = endpoint_host (analysis, group->endpoint);
      g_autofree char *p50_text = fmt_ms (dns_p50);
      g_autofree char *max_text = fmt_ms (percentile_of (dns, 100));

      finding_add_traces (finding, dns_which);
      finding->impact_ms = dns_p50;
      finding->confidence = confidence_for (dns->len, dns_p50 / RELAY_FINDINGS_SLOW_DNS_MS);
      finding->title = g_strdup (_("Name resolution is slow"));
      finding->summary = g_strdup_printf (_("Resolving %s took %s (p50 of %u lookups, slowest "
                                            "%s); a resolver nearby answers in 1–20 ms."),
                                          host, p50_text, dns->len, max_text);
      finding->remedy = g_strdup (_("Use a faster or nearer DNS resolver, cache lookups in the "
                                    "process, and reuse connections so that lookups are rare."));
    }

  tls_p50 = median_of (tls);
  tcp_p50 = median_of (tcp);
  if (!isfinite (tls_p50) || !isfinite (tcp_p50))
    return;

  limit = MAX (RELAY_FINDINGS_SLOW_TLS_RTT_FACTOR * tcp_p50, tcp_p50 + RELAY_FINDINGS_SLOW_TLS_EXTRA_MS);
  if (tls_p50 >= limit)
    {
      RelayFinding *finding = finding_add (analysis, RELAY_FINDING_SLOW_TLS,
                                           RELAY_FINDING_PROBLEM, group);
      g_autofree char *tls_text = fmt_ms (tls_p50);
      g_autofree char *tcp_text = fmt_ms (tcp_p50);
      g_autofree char *extra_text = fmt_ms (tls_p50 - 2 * tcp_p50);

      finding_add_traces (finding, tls_which);
      finding->impact_ms = tls_p50 - 2 * tcp_p50;
      finding->confidence = confidence_for (tls->len, tls_p50 / limit);
      finding->title = g_strdup (_("The TLS handshake is slow"));
      finding->summary = g_strdup_printf (_("The TLS handshake took %s (p50 of %u) while the TCP "
                                            "connect, one network round trip, took %s. TLS 1.3 "
                                            "needs one round trip and TLS 1.2 two, so about %s "
                                            "goes elsewhere: a slow or overloaded TLS terminator, "
                                            "a long certificate chain, or a TLS-inspecting proxy."),
                                          tls_text, tls->len, tcp_text, extra_text);
      finding->remedy = g_strdup (_("Reuse connections so that handshakes are rare; enable TLS 1.3 "
                                    "and session resumption at the terminator, and check its load "
                                    "and certificate chain."));
    }
}

static void
rule_server_wait (Analysis *analysis,
                  Group    *group)
{
  g_autoptr(GArray) server = doubles_new ();
  g_autoptr(GArray) wait = doubles_new ();
  g_autoptr(GArray) after = doubles_new ();
  g_autoptr(GArray) ttft = doubles_new ();
  g_autoptr(GArray) which = indices_new ();
  g_autofree char *server_text = NULL;
  g_autofree char *ttft_text = NULL;
  g_autofree char *share_text = NULL;
  g_autofree char *wait_text = NULL;
  g_autofree char *after_text = NULL;
  g_autofree char *net_text = NULL;
  RelayFinding *finding;
  double server_p50, ttft_p50;

  for (guint i = 0; i < group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (group->infos, i);
      double s = interval_ms (info->trace, RELAY_MARK_REQUEST_END, RELAY_MARK_FIRST_TOKEN);
      double t = interval_ms (info->trace, RELAY_MARK_START, RELAY_MARK_FIRST_TOKEN);

      if (!info_usable (info) || !isfinite (s) || !isfinite (t))
        continue;

      add_double (server, s);
      add_double (ttft, t);
      add_double (wait, interval_ms (info->trace, RELAY_MARK_REQUEST_END, RELAY_MARK_RESPONSE_START));
      add_double (after, interval_ms (info->trace, RELAY_MARK_RESPONSE_START, RELAY_MARK_FIRST_TOKEN));
      g_array_append_val (which, info->index);
    }

  server_p50 = median_of (server);
  ttft_p50 = median_of (ttft);
  if (!(server_p50 >= analysis->server_limit_ms) ||
      server_p50 < RELAY_FINDINGS_SERVER_WAIT_MIN_SHARE * ttft_p50)
    return;

  server_text = fmt_ms (server_p50);
  ttft_text = fmt_ms (ttft_p50);
  share_text = fmt_percent (server_p50 / ttft_p50);
  wait_text = fmt_ms (median_of (wait));
  after_text = fmt_ms (median_of (after));
  net_text = fmt_ms (MAX (0, ttft_p50 - server_p50));

  finding = finding_add (analysis, RELAY_FINDING_SERVER_WAIT, RELAY_FINDING_PROBLEM, group);
  finding_add_traces (finding, which);
  finding->impact_ms = server_p50;
  finding->confidence = confidence_for (which->len, server_p50 / analysis->server_limit_ms);
  finding->title = g_strdup (_("The server’s side dominates the first token"));
  finding->summary = g_strdup_printf (_("The server’s side took %s of the %s TTFT (%s, p50 of %u): "
                                        "%s until the response headers (gateway, queue and "
                                        "prefill) and %s from the headers to the first token. "
                                        "Connecting and sending took %s."),
                                      server_text, ttft_text, share_text, which->len,
                                      wait_text, after_text, net_text);
  finding->remedy = g_strdup (_("A faster network will not help much here. Shorten the prompt or "
                                "use prompt caching, try a smaller or faster model, a less loaded "
                                "endpoint or region, or a lower reasoning effort."));
}

static gint64
prompt_tokens_of (TraceInfo *info)
{
  const RelayUsage *usage = relay_trace_get_usage (info->trace);

  if (usage->prompt_tokens >= 0)
    return usage->prompt_tokens;
  if (info->prompt != NULL)
    return (gint64) (strlen (info->prompt) + 3) / 4;
  return -1;
}

static void
rule_prompt_cache (Analysis *analysis,
                   Group    *group)
{
  g_autoptr(GArray) hits = indices_new ();
  g_autoptr(GArray) hit_ttft = doubles_new ();
  g_autoptr(GArray) miss_ttft = doubles_new ();
  g_autoptr(GArray) hit_share = doubles_new ();
  g_autoptr(GArray) hit_cached = doubles_new ();
  g_autoptr(GArray) hit_prompt = doubles_new ();
  g_autoptr(GArray) miss_prompt = doubles_new ();
  g_autoptr(GHashTable) prefixes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) g_array_unref);
  guint reported = 0;

  for (guint i = 0; i < group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (group->infos, i);
      const RelayUsage *usage = relay_trace_get_usage (info->trace);
      /* From the request sent: a cold connection must not pass for a cache miss. */
      double ttft = interval_ms (info->trace, RELAY_MARK_REQUEST_END, RELAY_MARK_FIRST_TOKEN);
      gint64 prompt_tokens = prompt_tokens_of (info);

      if (!info_usable (info) || !relay_trace_is_ok (info->trace))
        continue;

      if (usage->cached_prompt_tokens > 0)
        {
          g_array_append_val (hits, info->index);
          add_double (hit_ttft, ttft);
          add_double (hit_cached, usage->cached_prompt_tokens);
          add_double (hit_prompt, prompt_tokens);
          if (prompt_tokens > 0)
            add_double (hit_share, (double) usage->cached_prompt_tokens / prompt_tokens);
        }
      else if (usage->cached_prompt_tokens == 0)
        {
          add_double (miss_ttft, ttft);
          add_double (miss_prompt, prompt_tokens);
        }
      reported += usage->cached_prompt_tokens >= 0;

      /* Requests that share a long prefix could have hit the cache. */
      if (usage->cached_prompt_tokens == 0 && info->prompt != NULL &&
          prompt_tokens >= RELAY_FINDINGS_PROMPT_CACHE_MIN_TOKENS)
        {
          g_autofree char *prefix = g_strndup (info->prompt, RELAY_FINDINGS_PROMPT_CACHE_PREFIX_CHARS);
          GArray *same = g_hash_table_lookup (prefixes, prefix);

          if (same == NULL)
            {
              same = indices_new ();
              g_hash_table_insert (prefixes, g_steal_pointer (&prefix), same);
            }
          g_array_append_val (same, info->index);
        }
    }

  if (hits->len > 0)
    {
      RelayFinding *finding = finding_add (analysis, RELAY_FINDING_PROMPT_CACHE_HIT,
                                           RELAY_FINDING_INFO, group);
      g_autofree char *share_text = fmt_percent (median_of (hit_share));
      double hit_p50 = median_of (hit_ttft);
      double miss_p50 = median_of (miss_ttft);
      double hp = median_of (hit_prompt);
      double mp = median_of (miss_prompt);

      finding_add_traces (finding, hits);
      finding->confidence = confidence_for (hits->len, 2);
      finding->title = g_strdup (_("The prompt cache was hit"));
      finding->summary = g_strdup_printf (_("%u of %u requests hit the provider’s prompt cache: "
                                            "%.0f of %.0f prompt tokens (%s) were cached."),
                                          hits->len, reported, median_of (hit_cached), hp,
                                          share_text);
      /* A saving means something only between prompts of about the same length. */
      if (isfinite (hit_p50) && isfinite (miss_p50) && isfinite (hp) && isfinite (mp) &&
          fabs (hp - mp) <= 0.25 * MAX (hp, mp))
        {
          g_autofree char *hit_text = fmt_ms (hit_p50);
          g_autofree char *miss_text = fmt_ms (miss_p50);
          g_autofree char *saving_text = fmt_ms (miss_p50 - hit_p50);
          g_autofree char *saving_share = fmt_percent ((miss_p50 - hit_p50) / miss_p50);
          g_autofree char *longer = NULL;

          if (miss_p50 > hit_p50)
            longer = g_strdup_printf (_("%s From the request sent to the first token took %s "
                                        "(p50) with a hit against %s without: %s (%s) saved."),
                                      finding->summary, hit_text, miss_text, saving_text,
                                      saving_share);
          else
            longer = g_strdup_printf (_("%s Yet from the request sent to the first token took %s "
                                        "(p50) with a hit against %s without: the cache saved no "
                                        "time here."),
                                      finding->summary, hit_text, miss_text);
          g_free (finding->summary);
          finding->summary = g_steal_pointer (&longer);
          finding->impact_ms = miss_p50 - hit_p50;
        }
      finding->remedy = g_strdup (_("Keep the long, stable part of the prompt first and "
                                    "byte-identical between requests, so that more of them hit."));
      return;
    }

  if (reported > 0)
    {
      GHashTableIter iter;
      gpointer key, value;
      GArray *best = NULL;

      g_hash_table_iter_init (&iter, prefixes);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          GArray *same = value;

          if (same->len >= 2 && (best == NULL || same->len > best->len))
            best = same;
        }

      if (best != NULL)
        {
          RelayFinding *finding = finding_add (analysis, RELAY_FINDING_PROMPT_CACHE_MISS,
                                               RELAY_FINDING_PROBLEM, group);
          double tokens = median_of (miss_prompt);

          finding_add_traces (finding, best);
          finding->confidence = confidence_for (best->len, 2);
          finding->title = g_strdup (_("A repeated prompt never hit the cache"));
          finding->summary = g_strdup_printf (_("The same prompt prefix (about %.0f tokens) went out "
                                                "%u times and the provider reported no cached "
                                                "tokens: every request paid the full prefill."),
                                              tokens, best->len);
          finding->remedy = g_strdup (_("Keep the long, stable part of the prompt (system prompt, "
                                        "documents, tool definitions) first and byte-identical, "
                                        "and the changing part last. Some providers cache only "
                                        "from 1,024 tokens, or only when asked (Anthropic: "
                                        "cache_control)."));
        }
    }
}

static void
rule_reasoning (Analysis *analysis,
                Group    *group)
{
  g_autoptr(GArray) reasoning = doubles_new ();
  g_autoptr(GArray) ttfo = doubles_new ();
  g_autoptr(GArray) tokens = doubles_new ();
  g_autoptr(GArray) which = indices_new ();
  g_autoptr(GArray) hidden_ms = doubles_new ();
  g_autoptr(GArray) hidden_tokens = doubles_new ();
  g_autoptr(GArray) hidden_rate = doubles_new ();
  g_autoptr(GArray) hidden_which = indices_new ();
  RelayFinding *finding;
  double r50, o50;

  for (guint i = 0; i < group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (group->infos, i);
      const RelayUsage *usage = relay_trace_get_usage (info->trace);
      const RelayChunk *chunks;
      guint n;
      gboolean visible = FALSE;

      if (!info_usable (info))
        continue;

      chunks = relay_trace_get_chunks (info->trace, &n);
      for (guint c = 0; c < n && !visible; c++)
        visible = chunks[c].kind == RELAY_CHUNK_REASONING;

      if (visible)
        {
          double r = interval_ms (info->trace, RELAY_MARK_FIRST_TOKEN, RELAY_MARK_FIRST_CONTENT);
          double o = interval_ms (info->trace, RELAY_MARK_START, RELAY_MARK_FIRST_CONTENT);

          if (!isfinite (r) || !isfinite (o))
            continue;
          add_double (reasoning, r);
          add_double (ttfo, o);
          if (usage->reasoning_tokens >= 0)
            add_double (tokens, usage->reasoning_tokens);
          g_array_append_val (which, info->index);
        }
      else if (usage->reasoning_tokens > 0)
        {
          double rate = relay_trace_get_output_tokens_per_second (info->trace);

          if (rate > 0)
            {
              add_double (hidden_ms, 1000.0 * usage->reasoning_tokens / rate);
              add_double (hidden_tokens, usage->reasoning_tokens);
              add_double (hidden_rate, rate);
              g_array_append_val (hidden_which, info->index);
            }
        }
    }

  r50 = median_of (reasoning);
  o50 = median_of (ttfo);
  if (r50 >= RELAY_FINDINGS_REASONING_MIN_MS && r50 >= RELAY_FINDINGS_REASONING_MIN_SHARE * o50)
    {
      g_autofree char *r_text = fmt_ms (r50);
      g_autofree char *o_text = fmt_ms (o50);
      g_autofree char *share_text = fmt_percent (r50 / o50);
      double t50 = median_of (tokens);

      finding = finding_add (analysis, RELAY_FINDING_REASONING_DELAY, RELAY_FINDING_PROBLEM, group);
      finding_add_traces (finding, which);
      finding->impact_ms = r50;
      finding->confidence = confidence_for (which->len, r50 / RELAY_FINDINGS_REASONING_MIN_MS);
      finding->title = g_strdup (_("Reasoning delays the first visible text"));
      if (isfinite (t50))
        finding->summary = g_strdup_printf (_("The model reasoned for %s (%.0f reasoning tokens, p50 "
                                              "of %u) before the first visible text: %s of the %s "
                                              "until the first visible character."),
                                            r_text, t50, which->len, share_text, o_text);
      else
        finding->summary = g_strdup_printf (_("The model reasoned for %s (p50 of %u) before the "
                                              "first visible text: %s of the %s until the first "
                                              "visible character."),
                                            r_text, which->len, share_text, o_text);
    }
  else if (median_of (hidden_ms) >= RELAY_FINDINGS_REASONING_MIN_MS)
    {
      double h50 = median_of (hidden_ms);
      g_autofree char *h_text = fmt_ms (h50);

      finding = finding_add (analysis, RELAY_FINDING_REASONING_DELAY, RELAY_FINDING_PROBLEM, group);
      finding_add_traces (finding, hidden_which);
      finding->impact_ms = h50;
      finding->confidence = confidence_for (hidden_which->len, h50 / RELAY_FINDINGS_REASONING_MIN_MS);
      finding->title = g_strdup (_("Hidden reasoning delays the first token"));
      finding->summary = g_strdup_printf (_("The model used %.0f reasoning tokens it did not stream "
                                            "(p50 of %u); at its output pace of %.0f tokens/s that "
                                            "is about %s of the wait before the first token."),
                                          median_of (hidden_tokens), hidden_which->len,
                                          median_of (hidden_rate), h_text);
    }
  else
    return;

  finding->remedy = g_strdup (_("For replies that must start fast, ask for low reasoning effort "
                                "(or none), use a non-reasoning variant, or show the reasoning "
                                "while it streams."));
}

typedef struct
{
  const char *remaining;
  const char *limit;
  gboolean    requests;
} RateHeader;

static const RateHeader rate_headers[] = {
  { "x-ratelimit-remaining-requests", "x-ratelimit-limit-requests", TRUE },
  { "x-ratelimit-remaining-tokens", "x-ratelimit-limit-tokens", FALSE },
  { "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-limit", TRUE },
  { "anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-limit", FALSE },
  { "anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-limit", FALSE },
  { "anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-limit", FALSE },
};

static gboolean
parse_number (const char *text,
              double     *value)
{
  char *end = NULL;

  if (text == NULL)
    return FALSE;

  *value = g_ascii_strtod (text, &end);
  return end != text && isfinite (*value);
}

static void
rule_throttling (Analysis *analysis,
                 Group    *group)
{
  g_autoptr(GArray) stall_which = indices_new ();
  g_autoptr(GArray) usual = doubles_new ();
  g_autoptr(GArray) rejected = indices_new ();
  g_autoptr(GArray) low_which = indices_new ();
  g_autoptr(GString) summary = g_string_new (NULL);
  g_autofree char *low_text = NULL;
  const char *retry_after = NULL;
  RelayFinding *finding;
  RelayConfidence confidence = RELAY_CONFIDENCE_LOW;
  guint n_stalls = 0;
  guint n_finished = 0;
  double longest = 0;
  double stall_total = 0;

  for (guint i = 0; i < group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (group->infos, i);
      Deliveries d;
      double gap50;
      guint stalls = 0;

      if (!info_usable (info))
        continue;
      n_finished++;

      if (relay_trace_get_http_status (info->trace) == 429)
        {
          g_array_append_val (rejected, info->index);
          if (retry_after == NULL)
            retry_after = relay_trace_get_server_header (info->trace, "retry-after");
        }

      for (guint h = 0; h < G_N_ELEMENTS (rate_headers); h++)
        {
          double remaining, limit;
          gboolean has_limit;
          gboolean low;

          if (!parse_number (relay_trace_get_server_header (info->trace, rate_headers[h].remaining), &remaining))
            continue;
          has_limit = parse_number (relay_trace_get_server_header (info->trace, rate_headers[h].limit), &limit) &&
                      limit > 0;
          low = has_limit ? remaining <= RELAY_FINDINGS_RATELIMIT_LOW_SHARE * limit
                          : rate_headers[h].requests && remaining <= RELAY_FINDINGS_RATELIMIT_LOW_REQUESTS;
          /* A 429 says so itself; its headers add nothing. */
          if (low && relay_trace_get_http_status (info->trace) != 429)
            {
              if (low_text == NULL)
                {
                  if (has_limit)
                    low_text = g_strdup_printf (_("%s was %.0f of %.0f"), rate_headers[h].remaining, remaining, limit);
                  else
                    low_text = g_strdup_printf (_("%s was %.0f"), rate_headers[h].remaining, remaining);
                }
              g_array_append_val (low_which, info->index);
              break;
            }
        }

      deliveries_compute (info->trace, &d);
      gap50 = median_of (d.gaps);
      if (d.gaps->len >= 3 && isfinite (gap50))
        {
          double limit = MAX (RELAY_FINDINGS_STALL_MIN_MS, RELAY_FINDINGS_STALL_FACTOR * gap50);

          for (guint g = 0; g < d.gaps->len; g++)
            {
              double gap = g_array_index (d.gaps, double, g);

              if (gap >= limit)
                {
                  stalls++;
                  stall_total += gap;
                  longest = MAX (longest, gap);
                }
            }
          add_double (usual, gap50);
        }
      deliveries_clear (&d);

      if (stalls > 0)
        {
          n_stalls += stalls;
          g_array_append_val (stall_which, info->index);
        }
    }

  if (n_stalls < RELAY_FINDINGS_STALL_MIN_COUNT && rejected->len == 0 && low_which->len == 0)
    return;

  finding = finding_add (analysis, RELAY_FINDING_THROTTLING, RELAY_FINDING_PROBLEM, group);
  finding->title = g_strdup (_("The provider is throttling"));

  if (n_stalls >= RELAY_FINDINGS_STALL_MIN_COUNT)
    {
      g_autofree char *longest_text = fmt_ms (longest);
      g_autofree char *usual_text = fmt_ms (median_of (usual));

      g_string_append_printf (summary, _("%u streams paused %u times mid-stream, for up to %s, "
                                         "against a usual gap of %s: the provider slowed the "
                                         "stream down (“suddenly slow, then fine”)."),
                              stall_which->len, n_stalls, longest_text, usual_text);
      finding_add_traces (finding, stall_which);
      finding->impact_ms = stall_total / MAX (1, n_finished);
      confidence = MAX (confidence, confidence_for (n_stalls, longest / RELAY_FINDINGS_STALL_MIN_MS));
    }

  if (rejected->len > 0)
    {
      if (summary->len > 0)
        g_string_append_c (summary, ' ');
      g_string_append_printf (summary, _("%u of %u requests were refused with HTTP 429 (rate "
                                         "limited)"),
                              rejected->len, n_finished);
      if (retry_after != NULL)
        g_string_append_printf (summary, _(", with retry-after %s"), retry_after);
      g_string_append_c (summary, '.');
      finding_add_traces (finding, rejected);
      confidence = MAX (confidence, confidence_for (rejected->len, 2));
    }

  if (low_which->len > 0)
    {
      if (summary->len > 0)
        g_string_append_c (summary, ' ');
      g_string_append_printf (summary, _("The rate-limit headers were near exhaustion in %u "
                                         "responses (%s)."),
                              low_which->len, low_text);
      finding_add_traces (finding, low_which);
      confidence = MAX (confidence, confidence_for (low_which->len, 2));
    }

  finding->confidence = confidence;
  finding->summary = g_strdup (summary->str);
  finding->remedy = g_strdup (_("Lower the request rate and concurrency (a token bucket and a "
                                "semaphore), spread the load over keys or endpoints, retry 429s "
                                "after retry-after with jitter, or ask the provider for a higher "
                                "limit."));
}

static void
rule_queue (Analysis *analysis,
            Group    *group)
{
  g_autoptr(GArray) which = indices_new ();
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  guint lo = G_MAXUINT, hi = 0;
  guint n = 0;
  double b, a, r, rise, at_lo, at_hi, denom;
  RelayFinding *finding;

  for (guint i = 0; i < group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (group->infos, i);
      /* The server's part: parallel handshakes on a busy client must not pass for a queue. */
      double ttft = interval_ms (info->trace, RELAY_MARK_REQUEST_END, RELAY_MARK_FIRST_TOKEN);
      double x = info->in_flight;

      if (!info_usable (info) || !isfinite (ttft) || info->in_flight == 0)
        continue;

      n++;
      sx += x;
      sy += ttft;
      sxx += x * x;
      sxy += x * ttft;
      syy += ttft * ttft;
      lo = MIN (lo, info->in_flight);
      hi = MAX (hi, info->in_flight);
      g_array_append_val (which, info->index);
    }

  if (n < RELAY_FINDINGS_QUEUE_MIN_TRACES || hi <= lo)
    return;

  denom = n * sxx - sx * sx;
  if (denom <= 0)
    return;

  b = (n * sxy - sx * sy) / denom;
  a = (sy - b * sx) / n;
  r = (n * sxy - sx * sy) / sqrt (denom * MAX (n * syy - sy * sy, 1e-12));
  at_lo = a + b * lo;
  at_hi = a + b * hi;
  rise = at_hi - at_lo;

  if (rise < RELAY_FINDINGS_QUEUE_MIN_RISE_MS || at_lo <= 0 ||
      at_hi < RELAY_FINDINGS_QUEUE_MIN_RATIO * at_lo || r < RELAY_FINDINGS_QUEUE_MIN_R)
    return;

  finding = finding_add (analysis, RELAY_FINDING_CONCURRENCY_QUEUE, RELAY_FINDING_PROBLEM, group);
  finding_add_traces (finding, which);
  finding->impact_ms = rise;
  finding->confidence = confidence_for (n, MIN (rise / RELAY_FINDINGS_QUEUE_MIN_RISE_MS,
                                               at_hi / at_lo / RELAY_FINDINGS_QUEUE_MIN_RATIO));
  finding->title = g_strdup (_("Requests queue under concurrency"));
  {
    g_autofree char *per_text = fmt_ms (b);
    g_autofree char *lo_text = fmt_ms (at_lo);
    g_autofree char *hi_text = fmt_ms (at_hi);

    finding->summary = g_strdup_printf (_("The server’s time to the first token grows with the "
                                          "requests in flight: about %s more for each concurrent "
                                          "request, from %s with %u in flight to %s with %u "
                                          "(fitted over %u requests, r = %.2f). The server queues "
                                          "requests instead of serving them in parallel."),
                                        per_text, lo_text, lo, hi_text, hi, n, r);
  }
  finding->remedy = g_strdup (_("Bound your concurrency below the point where TTFT starts to "
                                "grow (a semaphore), shape bursts with a token bucket, lower "
                                "concurrency when TTFT p95 rises, or ask the provider for more "
                                "capacity."));
}

/* The upstream's own time by the headers that report it, in ms; NAN when none does. */
static double
upstream_ms (RelayTrace  *trace,
             const char **header)
{
  const char *value;
  double ms;

  value = relay_trace_get_server_header (trace, "x-envoy-upstream-service-time");
  if (parse_number (value, &ms))
    {
      *header = "x-envoy-upstream-service-time";
      return ms;
    }

  value = relay_trace_get_server_header (trace, "openai-processing-ms");
  if (parse_number (value, &ms))
    {
      *header = "openai-processing-ms";
      return ms;
    }

  value = relay_trace_get_server_header (trace, "server-timing");
  if (value != NULL)
    {
      g_auto(GStrv) metrics = g_strsplit (value, ",", -1);
      double best = NAN;

      for (guint i = 0; metrics[i] != NULL; i++)
        {
          g_auto(GStrv) params = g_strsplit (metrics[i], ";", -1);

          for (guint p = 1; params[p] != NULL; p++)
            {
              const char *param = g_strstrip (params[p]);

              if (g_ascii_strncasecmp (param, "dur=", 4) == 0 && parse_number (param + 4, &ms))
                best = isfinite (best) ? MAX (best, ms) : ms;
            }
        }

      if (isfinite (best))
        {
          *header = "Server-Timing";
          return best;
        }
    }

  return NAN;
}

static void
rule_relay_overhead (Analysis *analysis,
                     Group    *group)
{
  g_autoptr(GArray) tcp = doubles_new ();
  g_autoptr(GArray) wait = doubles_new ();
  g_autoptr(GArray) upstream = doubles_new ();
  g_autoptr(GArray) overhead = doubles_new ();
  g_autoptr(GArray) which = indices_new ();
  const char *header = NULL;
  RelayFinding *finding;
  double rtt, o50, w50;

  for (guint i = 0; i < group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (group->infos, i);

      if (info_usable (info))
        add_double (tcp, interval_ms (info->trace, RELAY_MARK_CONNECT_START, RELAY_MARK_TCP_END));
    }
  rtt = median_of (tcp);
  if (!isfinite (rtt))
    rtt = 0;

  for (guint i = 0; i < group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (group->infos, i);
      double w = interval_ms (info->trace, RELAY_MARK_REQUEST_END, RELAY_MARK_RESPONSE_START);
      const char *which_header = NULL;
      double u;

      if (!info_usable (info) || !isfinite (w) || relay_trace_get_http_status (info->trace) != 200)
        continue;

      u = upstream_ms (info->trace, &which_header);
      if (!isfinite (u))
        continue;

      header = which_header;
      add_double (wait, w);
      add_double (upstream, u);
      add_double (overhead, w - u - rtt);
      g_array_append_val (which, info->index);
    }

  o50 = median_of (overhead);
  w50 = median_of (wait);
  if (!(o50 >= RELAY_FINDINGS_RELAY_OVERHEAD_MIN_MS) || o50 < RELAY_FINDINGS_RELAY_OVERHEAD_MIN_SHARE * w50)
    return;

  finding = finding_add (analysis, RELAY_FINDING_RELAY_OVERHEAD, RELAY_FINDING_PROBLEM, group);
  finding_add_traces (finding, which);
  finding->impact_ms = o50;
  finding->confidence = confidence_for (which->len, o50 / RELAY_FINDINGS_RELAY_OVERHEAD_MIN_MS);
  finding->title = g_strdup (_("The relay adds time of its own"));
  {
    g_autofree char *w_text = fmt_ms (w50);
    g_autofree char *u_text = fmt_ms (median_of (upstream));
    g_autofree char *rtt_text = fmt_ms (rtt);
    g_autofree char *o_text = fmt_ms (o50);
    g_autofree char *share_text = fmt_percent (o50 / w50);

    finding->summary = g_strdup_printf (_("Of the %s wait for the response headers, the upstream "
                                          "reports %s of its own processing (%s); after one "
                                          "network round trip (%s), about %s (%s, p50 of %u) is "
                                          "spent in between, in the relay or gateway."),
                                        w_text, u_text, header, rtt_text, o_text, share_text,
                                        which->len);
  }
  finding->remedy = g_strdup (_("Ask the relay’s operator where the time goes (authentication, "
                                "rate-limit checks, routing, a queue of its own), try a relay "
                                "nearer the upstream, or call the upstream directly to compare."));
}

static const char *
strip_provider (const char *model)
{
  const char *slash = strrchr (model, '/');

  return slash != NULL ? slash + 1 : model;
}

/* TRUE when reported names the requested model: the same name, or a dated or versioned
 * snapshot of it ("gpt-4o" → "gpt-4o-2024-08-06", "claude-3-5-haiku-latest" →
 * "claude-3-5-haiku-20241022"). */
static gboolean
same_model (const char *requested,
            const char *reported)
{
  g_autofree char *stem = NULL;
  gsize len;

  requested = strip_provider (requested);
  reported = strip_provider (reported);

  if (g_ascii_strcasecmp (requested, reported) == 0)
    return TRUE;

  stem = g_strdup (requested);
  if (g_str_has_suffix (stem, "-latest"))
    stem[strlen (stem) - strlen ("-latest")] = '\0';
  len = strlen (stem);

  return len > 0 && g_ascii_strncasecmp (reported, stem, len) == 0 &&
         reported[len] == '-' && g_ascii_isdigit (reported[len + 1]);
}

static void
rule_model (Analysis *analysis,
            Group    *group)
{
  g_autoptr(GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GArray) which = indices_new ();
  const char *most = NULL;
  guint most_count = 0;
  guint n_reported = 0;
  RelayFinding *finding;

  if (group->model == NULL || g_strcmp0 (group->model, "default") == 0 || group->model[0] == '\0')
    return;

  for (guint i = 0; i < group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (group->infos, i);
      const char *reported = relay_trace_get_model_reported (info->trace);
      guint count;

      if (!info_usable (info) || reported == NULL || reported[0] == '\0')
        continue;

      n_reported++;
      if (same_model (group->model, reported))
        continue;

      g_array_append_val (which, info->index);
      count = GPOINTER_TO_UINT (g_hash_table_lookup (counts, reported)) + 1;
      g_hash_table_insert (counts, (gpointer) reported, GUINT_TO_POINTER (count));
      if (count > most_count)
        {
          most = reported;
          most_count = count;
        }
    }

  if (which->len == 0)
    return;

  finding = finding_add (analysis, RELAY_FINDING_MODEL_MISMATCH, RELAY_FINDING_PROBLEM, group);
  finding_add_traces (finding, which);
  finding->confidence = confidence_for (which->len, 2);
  finding->title = g_strdup (_("A different model answered"));
  finding->summary = g_strdup_printf (_("You asked for %s, but %u of %u responses named %s."),
                                      group->model, which->len, n_reported, most);
  finding->remedy = g_strdup (_("Check the relay’s model mapping: it may route to another (often "
                                "smaller or older) model, which changes quality and latency. Use "
                                "the exact model name the provider documents."));
}

/* ---------------------------------------------------------------------------------------
 * Grouping and ordering.
 */

static void
group_free (gpointer data)
{
  Group *group = data;

  g_free (group->endpoint);
  g_free (group->model);
  g_ptr_array_unref (group->infos);
  g_free (group);
}

static Group *
group_ensure (GPtrArray  *groups,
              const char *endpoint,
              const char *model)
{
  Group *group;

  for (guint i = 0; i < groups->len; i++)
    {
      group = g_ptr_array_index (groups, i);
      if (g_strcmp0 (group->endpoint, endpoint) == 0 && g_strcmp0 (group->model, model) == 0)
        return group;
    }

  group = g_new0 (Group, 1);
  group->endpoint = g_strdup (endpoint);
  group->model = g_strdup (model);
  group->infos = g_ptr_array_new ();
  g_ptr_array_add (groups, group);

  return group;
}

static gint64
wall_usec (RelayTrace *trace)
{
  GDateTime *wall = relay_trace_get_wall_start (trace);

  if (wall == NULL)
    return RELAY_TIME_NONE;

  return g_date_time_to_unix (wall) * G_USEC_PER_SEC + g_date_time_get_microsecond (wall);
}

/* How many of its endpoint's requests were in flight when each request was sent, itself
 * included: those sent before it, or at the same moment, and not yet finished. Requests sent
 * within QUEUE_SIMULTANEOUS_MS of each other count as simultaneous: which of them the server
 * took first is a matter of microseconds the client cannot see, so a burst of four is four
 * for each of them, not a ramp of one to four. Times are on the monotonic clock when every
 * trace has one, else on the wall clock. */
static void
count_in_flight (Analysis *analysis,
                 Group    *endpoint_group)
{
  gint64 simultaneous = (gint64) (RELAY_FINDINGS_QUEUE_SIMULTANEOUS_MS * 1000);
  gboolean mono = TRUE;

  for (guint i = 0; i < endpoint_group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (endpoint_group->infos, i);

      mono &= relay_trace_get_mono_start (info->trace) != 0;
    }

  for (guint i = 0; i < endpoint_group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (endpoint_group->infos, i);
      gint64 base = mono ? relay_trace_get_mono_start (info->trace) : wall_usec (info->trace);
      gint64 sent = relay_trace_get_mark (info->trace, RELAY_MARK_REQUEST_END);
      gint64 end = relay_trace_get_mark (info->trace, RELAY_MARK_END);

      if (base == RELAY_TIME_NONE || sent == RELAY_TIME_NONE || end == RELAY_TIME_NONE)
        {
          info->abs_sent = info->abs_end = RELAY_TIME_NONE;
          continue;
        }
      info->abs_sent = base + sent;
      info->abs_end = base + end;
    }

  for (guint i = 0; i < endpoint_group->infos->len; i++)
    {
      TraceInfo *info = g_ptr_array_index (endpoint_group->infos, i);

      info->in_flight = 0;
      if (info->abs_sent == RELAY_TIME_NONE)
        continue;

      for (guint j = 0; j < endpoint_group->infos->len; j++)
        {
          TraceInfo *other = g_ptr_array_index (endpoint_group->infos, j);

          if (other->abs_sent == RELAY_TIME_NONE)
            continue;
          if (other->abs_sent <= info->abs_sent + simultaneous && info->abs_sent < other->abs_end)
            info->in_flight++;
        }
    }
}

static int
compare_uints (gconstpointer a,
               gconstpointer b)
{
  guint x = *(const guint *) a;
  guint y = *(const guint *) b;

  return (x > y) - (x < y);
}

static int
compare_findings (gconstpointer a,
                  gconstpointer b)
{
  const RelayFinding *x = *(RelayFinding * const *) a;
  const RelayFinding *y = *(RelayFinding * const *) b;
  double ix = isfinite (x->impact_ms) ? x->impact_ms : -1;
  double iy = isfinite (y->impact_ms) ? y->impact_ms : -1;

  if (x->severity != y->severity)
    return x->severity == RELAY_FINDING_PROBLEM ? -1 : 1;
  if (x->confidence != y->confidence)
    return x->confidence > y->confidence ? -1 : 1;
  if (ix != iy)
    return ix > iy ? -1 : 1;
  return g_strcmp0 (x->id, y->id);
}

GPtrArray *
relay_findings_analyze (RelaySession *session)
{
  g_autoptr(RelayBudget) budget = relay_budget_new_default ();
  GListModel *traces;
  GListModel *runs;
  Analysis analysis = { 0 };
  guint n_traces;
  double wait_limit, first_limit;

  g_return_val_if_fail (RELAY_IS_SESSION (session), NULL);

  analysis.session = session;
  analysis.findings = g_ptr_array_new_with_free_func ((GDestroyNotify) relay_finding_free);
  analysis.groups = g_ptr_array_new_with_free_func (group_free);
  analysis.endpoints = g_ptr_array_new_with_free_func (group_free);

  wait_limit = relay_budget_get_limit (budget, RELAY_BUDGET_WAIT);
  first_limit = relay_budget_get_limit (budget, RELAY_BUDGET_FIRST_TOKEN);
  analysis.server_limit_ms = wait_limit > 0 && first_limit > 0 ? wait_limit + first_limit : 530;

  traces = relay_session_get_traces (session);
  runs = relay_session_get_runs (session);
  n_traces = g_list_model_get_n_items (traces);
  analysis.infos = g_array_sized_new (FALSE, TRUE, sizeof (TraceInfo), n_traces);
  g_array_set_size (analysis.infos, n_traces);

  for (guint i = 0; i < n_traces; i++)
    {
      TraceInfo *info = &g_array_index (analysis.infos, TraceInfo, i);
      g_autoptr(RelayRun) run = NULL;

      info->trace = g_list_model_get_item (traces, i);
      info->index = i;
      info->endpoint = "?";
      info->model = NULL;
      info->connection = RELAY_CONNECTION_COLD;

      if (relay_trace_get_run (info->trace) < g_list_model_get_n_items (runs))
        run = g_list_model_get_item (runs, relay_trace_get_run (info->trace));
      if (run != NULL)
        {
          /* The session keeps its runs alive as long as these borrowed strings are used. */
          info->endpoint = relay_run_get_endpoint (run);
          info->model = relay_run_get_model (run);
          info->connection = relay_run_get_connection (run);
          info->prompt = relay_run_get_prompt (run);
        }

      g_ptr_array_add (group_ensure (analysis.groups, info->endpoint, info->model)->infos, info);
      g_ptr_array_add (group_ensure (analysis.endpoints, info->endpoint, NULL)->infos, info);
    }

  for (guint i = 0; i < analysis.endpoints->len; i++)
    {
      Group *group = g_ptr_array_index (analysis.endpoints, i);

      count_in_flight (&analysis, group);
      rule_connection (&analysis, group);
      rule_dns_tls (&analysis, group);
    }

  for (guint i = 0; i < analysis.groups->len; i++)
    {
      Group *group = g_ptr_array_index (analysis.groups, i);

      rule_buffering (&analysis, group);
      rule_server_wait (&analysis, group);
      rule_prompt_cache (&analysis, group);
      rule_reasoning (&analysis, group);
      rule_throttling (&analysis, group);
      rule_queue (&analysis, group);
      rule_relay_overhead (&analysis, group);
      rule_model (&analysis, group);
    }

  for (guint i = 0; i < analysis.findings->len; i++)
    {
      RelayFinding *finding = g_ptr_array_index (analysis.findings, i);

      g_array_sort (finding->traces, compare_uints);
    }

  g_ptr_array_sort (analysis.findings, compare_findings);

  for (guint i = 0; i < n_traces; i++)
    g_object_unref (g_array_index (analysis.infos, TraceInfo, i).trace);
  g_array_unref (analysis.infos);
  g_ptr_array_unref (analysis.groups);
  g_ptr_array_unref (analysis.endpoints);

  return analysis.findings;
}

/* ---------------------------------------------------------------------------------------
 * Text.
 */

/* Appends text wrapped at WRAP_COLUMNS, every line indented by indent spaces. */
static void
append_wrapped (GString    *out,
                const char *text,
                guint       indent)
{
  g_auto(GStrv) words = g_strsplit (text, " ", -1);
  guint column = 0;

  for (guint i = 0; words[i] != NULL; i++)
    {
      guint len = g_utf8_strlen (words[i], -1);

      if (len == 0)
        continue;

      if (column > 0 && column + 1 + len > WRAP_COLUMNS)
        {
          g_string_append_c (out, '\n');
          column = 0;
        }
      if (column == 0)
        {
          for (guint s = 0; s < indent; s++)
            g_string_append_c (out, ' ');
          column = indent;
        }
      else
        {
          g_string_append_c (out, ' ');
          column++;
        }
      g_string_append (out, words[i]);
      column += len;
    }

  g_string_append_c (out, '\n');
}

/* "1–5, 8" for traces 0–4 and 7 (people count from 1). */
static char *
format_trace_list (GArray *traces)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < traces->len;)
    {
      guint first = g_array_index (traces, guint, i);
      guint last = first;
      guint j = i + 1;

      while (j < traces->len && g_array_index (traces, guint, j) == last + 1)
        last = g_array_index (traces, guint, j++);

      if (out->len > 0)
        g_string_append (out, ", ");
      if (last > first)
        g_string_append_printf (out, "%u–%u", first + 1, last + 1);
      else
        g_string_append_printf (out, "%u", first + 1);
      i = j;
    }

  return g_string_free (out, FALSE);
}

static const char *
confidence_label (RelayConfidence confidence)
{
  switch (confidence)
    {
    case RELAY_CONFIDENCE_HIGH:
      return _("high confidence");
    case RELAY_CONFIDENCE_MEDIUM:
      return _("medium confidence");
    case RELAY_CONFIDENCE_LOW:
    default:
      return _("low confidence");
    }
}

char *
relay_findings_format_text (GPtrArray *findings)
{
  GString *out;

  g_return_val_if_fail (findings != NULL, NULL);

  out = g_string_new (NULL);
  if (findings->len == 0)
    {
      g_string_append_printf (out, "%s\n", _("Findings: nothing stands out; every rule stayed "
                                             "within its threshold."));
      return g_string_free (out, FALSE);
    }

  g_string_append_printf (out, "%s\n", _("Findings:"));
  for (guint i = 0; i < findings->len; i++)
    {
      RelayFinding *finding = g_ptr_array_index (findings, i);
      g_autofree char *heading = NULL;
      g_autofree char *scope = NULL;
      g_autofree char *remedy = NULL;
      g_autofree char *list = NULL;
      g_autofree char *traces = NULL;

      if (finding->endpoint != NULL && finding->model != NULL)
        scope = g_strdup_printf (" (%s, %s)", finding->endpoint, finding->model);
      else if (finding->endpoint != NULL)
        scope = g_strdup_printf (" (%s)", finding->endpoint);
      else
        scope = g_strdup ("");

      /* TRANSLATORS: "1. [problem, high confidence] A proxy buffers the stream (endpoint, model)" */
      heading = g_strdup_printf (_("%u. [%s, %s] %s%s"), i + 1,
                                 finding->severity == RELAY_FINDING_PROBLEM ? _("problem") : _("info"),
                                 confidence_label (finding->confidence), finding->title, scope);
      g_string_append_c (out, '\n');
      append_wrapped (out, heading, 2);
      append_wrapped (out, finding->summary, 5);
      remedy = g_strdup_printf (_("What to do: %s"), finding->remedy);
      append_wrapped (out, remedy, 5);
      if (finding->traces->len > 0)
        {
          list = format_trace_list (finding->traces);
          traces = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Evidence: trace %s",
                                                 "Evidence: traces %s", finding->traces->len),
                                    list);
          append_wrapped (out, traces, 5);
        }
    }

  return g_string_free (out, FALSE);
}
