/* relay-budget.c: latency budgets and the check of a session against one.
 *
 * A budget file is JSON:
 *   { "format": "relayscope-budget", "percentile": 95,
 *     "limits_ms": { "network": 100, "wait": 330, "first_token": 200, "end_to_end": 880, … },
 *     "allowances_ms": { "front_end": 50, "back_end": 200 },
 *     "min_tokens_per_s": 20 }
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "relay-budget.h"
#include "relay-stats.h"
#include "relay-summary.h"

struct _RelayBudget
{
  GObject  parent_instance;

  double   percentile;
  double   limits[RELAY_N_BUDGET_ITEMS];
  double   allowances;
  /* Named allowances in the order given; allowances is their sum. */
  GPtrArray *allowance_names;
  GArray   *allowance_values;
};

G_DEFINE_FINAL_TYPE (RelayBudget, relay_budget, G_TYPE_OBJECT)

static const char * const item_names[RELAY_N_BUDGET_ITEMS] = {
  "network", "dns", "tcp", "tls", "wait", "first_token", "ttft", "end_to_end", "itl", "total",
  "tokens_per_s",
};

static void
relay_budget_finalize (GObject *object)
{
  RelayBudget *self = (RelayBudget *)object;

  g_clear_pointer (&self->allowance_names, g_ptr_array_unref);
  g_clear_pointer (&self->allowance_values, g_array_unref);

  G_OBJECT_CLASS (relay_budget_parent_class)->finalize (object);
}

static void
relay_budget_class_init (RelayBudgetClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = relay_budget_finalize;
}

static void
relay_budget_init (RelayBudget *self)
{
  self->percentile = 95;
  for (guint i = 0; i < RELAY_N_BUDGET_ITEMS; i++)
    self->limits[i] = -1;
  self->allowance_names = g_ptr_array_new_with_free_func (g_free);
  self->allowance_values = g_array_new (FALSE, FALSE, sizeof (double));
}

const char *
relay_budget_item_to_string (RelayBudgetItem item)
{
  g_return_val_if_fail (item < RELAY_N_BUDGET_ITEMS, NULL);
  return item_names[item];
}

RelayBudget *
relay_budget_new (void)
{
  return g_object_new (RELAY_TYPE_BUDGET, NULL);
}

void
relay_budget_set_percentile (RelayBudget *self,
                             double       percentile)
{
  g_return_if_fail (RELAY_IS_BUDGET (self));
  g_return_if_fail (percentile > 0 && percentile <= 100);

  self->percentile = percentile;
}

void
relay_budget_set_limit (RelayBudget     *self,
                        RelayBudgetItem  item,
                        double           limit)
{
  g_return_if_fail (RELAY_IS_BUDGET (self));
  g_return_if_fail (item < RELAY_N_BUDGET_ITEMS);

  self->limits[item] = isfinite (limit) && limit >= 0 ? limit : -1;
}

void
relay_budget_set_allowance (RelayBudget *self,
                            const char  *name,
                            double       ms)
{
  guint i;

  g_return_if_fail (RELAY_IS_BUDGET (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (isfinite (ms) && ms >= 0);

  for (i = 0; i < self->allowance_names->len; i++)
    if (strcmp (g_ptr_array_index (self->allowance_names, i), name) == 0)
      break;

  if (i == self->allowance_names->len)
    {
      g_ptr_array_add (self->allowance_names, g_strdup (name));
      g_array_append_val (self->allowance_values, ms);
    }
  else
    g_array_index (self->allowance_values, double, i) = ms;

  self->allowances = 0;
  for (i = 0; i < self->allowance_values->len; i++)
    self->allowances += g_array_index (self->allowance_values, double, i);
}

GStrv
relay_budget_dup_allowance_names (RelayBudget *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (RELAY_IS_BUDGET (self), NULL);

  for (guint i = 0; i < self->allowance_names->len; i++)
    g_strv_builder_add (builder, g_ptr_array_index (self->allowance_names, i));

  return g_strv_builder_end (builder);
}

double
relay_budget_get_allowance (RelayBudget *self,
                            const char  *name)
{
  g_return_val_if_fail (RELAY_IS_BUDGET (self), 0);
  g_return_val_if_fail (name != NULL, 0);

  for (guint i = 0; i < self->allowance_names->len; i++)
    if (strcmp (g_ptr_array_index (self->allowance_names, i), name) == 0)
      return g_array_index (self->allowance_values, double, i);

  return 0;
}

char *
relay_budget_to_data (RelayBudget *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (RELAY_IS_BUDGET (self), NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "format");
  json_builder_add_string_value (builder, "relayscope-budget");
  json_builder_set_member_name (builder, "percentile");
  json_builder_add_double_value (builder, self->percentile);
  json_builder_set_member_name (builder, "limits_ms");
  json_builder_begin_object (builder);
  for (guint i = 0; i < RELAY_N_BUDGET_ITEMS; i++)
    {
      if (i == RELAY_BUDGET_TOKENS_PER_S || self->limits[i] < 0)
        continue;
      json_builder_set_member_name (builder, item_names[i]);
      json_builder_add_double_value (builder, self->limits[i]);
    }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "allowances_ms");
  json_builder_begin_object (builder);
  for (guint i = 0; i < self->allowance_names->len; i++)
    {
      json_builder_set_member_name (builder, g_ptr_array_index (self->allowance_names, i));
      json_builder_add_double_value (builder, g_array_index (self->allowance_values, double, i));
    }
  json_builder_end_object (builder);
  if (self->limits[RELAY_BUDGET_TOKENS_PER_S] >= 0)
    {
      json_builder_set_member_name (builder, "min_tokens_per_s");
      json_builder_add_double_value (builder, self->limits[RELAY_BUDGET_TOKENS_PER_S]);
    }
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);

  return json_generator_to_data (generator, NULL);
}

RelayBudget *
relay_budget_new_default (void)
{
  RelayBudget *self = g_object_new (RELAY_TYPE_BUDGET, NULL);

  self->limits[RELAY_BUDGET_NETWORK] = 100;
  self->limits[RELAY_BUDGET_WAIT] = 330;
  self->limits[RELAY_BUDGET_FIRST_TOKEN] = 200;
  self->limits[RELAY_BUDGET_END_TO_END] = 880;
  relay_budget_set_allowance (self, "front_end", 50);
  relay_budget_set_allowance (self, "back_end", 200);

  return self;
}

static gboolean
read_number (JsonNode    *node,
             const char  *what,
             double      *value,
             GError     **error)
{
  if (!JSON_NODE_HOLDS_VALUE (node) ||
      (json_node_get_value_type (node) != G_TYPE_INT64 && json_node_get_value_type (node) != G_TYPE_DOUBLE))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("budget: %s must be a number"), what);
      return FALSE;
    }

  *value = json_node_get_double (node);
  if (!isfinite (*value) || *value < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("budget: %s must not be negative"), what);
      return FALSE;
    }

  return TRUE;
}

RelayBudget *
relay_budget_new_from_data (const char  *data,
                            gssize       length,
                            GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(RelayBudget) self = g_object_new (RELAY_TYPE_BUDGET, NULL);
  JsonObject *root;
  JsonObject *obj;

  if (!json_parser_load_from_data (parser, data, length, error))
    return NULL;

  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("budget: expected a JSON object"));
      return NULL;
    }
  root = json_node_get_object (json_parser_get_root (parser));

  if (json_object_has_member (root, "percentile"))
    {
      JsonNode *node = json_object_get_member (root, "percentile");
      double p = -1;

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        {
          const char *s = json_node_get_string (node);
          p = (s[0] == 'p' || s[0] == 'P') ? g_ascii_strtod (s + 1, NULL) : -1;
        }
      else if (!read_number (node, "percentile", &p, error))
        return NULL;

      if (p <= 0 || p > 100)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("budget: percentile must be between 1 and 100 (e.g. 50 or \"p95\")"));
          return NULL;
        }
      self->percentile = p;
    }

  if (json_object_has_member (root, "limits_ms"))
    {
      g_autoptr(GList) members = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (json_object_get_member (root, "limits_ms")))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("budget: limits_ms must be an object"));
          return NULL;
        }
      obj = json_object_get_object_member (root, "limits_ms");
      members = json_object_get_members (obj);
      for (const GList *l = members; l != NULL; l = l->next)
        {
          const char *name = l->data;
          guint item;

          for (item = 0; item < RELAY_N_BUDGET_ITEMS; item++)
            if (strcmp (item_names[item], name) == 0 && item != RELAY_BUDGET_TOKENS_PER_S)
              break;
          if (item == RELAY_N_BUDGET_ITEMS)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("budget: unknown stage “%s” in limits_ms (known: network, dns, tcp, "
                             "tls, wait, first_token, ttft, end_to_end, itl, total)"), name);
              return NULL;
            }
          if (!read_number (json_object_get_member (obj, name), name, &self->limits[item], error))
            return NULL;
        }
    }

  if (json_object_has_member (root, "allowances_ms"))
    {
      g_autoptr(GList) members = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (json_object_get_member (root, "allowances_ms")))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("budget: allowances_ms must be an object"));
          return NULL;
        }
      obj = json_object_get_object_member (root, "allowances_ms");
      members = json_object_get_members (obj);
      for (const GList *l = members; l != NULL; l = l->next)
        {
          double v;

          if (!read_number (json_object_get_member (obj, l->data), l->data, &v, error))
            return NULL;
          relay_budget_set_allowance (self, l->data, v);
        }
    }

  if (json_object_has_member (root, "min_tokens_per_s") &&
      !read_number (json_object_get_member (root, "min_tokens_per_s"), "min_tokens_per_s",
                    &self->limits[RELAY_BUDGET_TOKENS_PER_S], error))
    return NULL;

  return g_steal_pointer (&self);
}

RelayBudget *
relay_budget_load (GFile   *file,
                   GError **error)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize len;
  RelayBudget *self;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  if (!g_file_load_contents (file, NULL, &data, &len, NULL, error))
    return NULL;

  if (!(self = relay_budget_new_from_data (data, len, &local_error)))
    {
      g_autofree char *name = g_file_get_parse_name (file);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", name, local_error->message);
      return NULL;
    }

  return self;
}

double
relay_budget_get_percentile (RelayBudget *self)
{
  g_return_val_if_fail (RELAY_IS_BUDGET (self), 95);
  return self->percentile;
}

double
relay_budget_get_limit (RelayBudget     *self,
                        RelayBudgetItem  item)
{
  g_return_val_if_fail (RELAY_IS_BUDGET (self), -1);
  g_return_val_if_fail (item < RELAY_N_BUDGET_ITEMS, -1);
  return self->limits[item];
}

double
relay_budget_get_allowances (RelayBudget *self)
{
  g_return_val_if_fail (RELAY_IS_BUDGET (self), 0);
  return self->allowances;
}

static double
interval_ms (RelayTrace *trace,
             RelayMark   from,
             RelayMark   to)
{
  gint64 d = relay_trace_get_interval (trace, from, to);

  return d == RELAY_TIME_NONE ? NAN : d / 1000.0;
}

double
relay_budget_trace_value (RelayBudget     *self,
                          RelayTrace      *trace,
                          RelayBudgetItem  item)
{
  switch (item)
    {
    case RELAY_BUDGET_NETWORK:
      {
        double sum = 0;
        double parts[] = {
          interval_ms (trace, RELAY_MARK_DNS_START, RELAY_MARK_DNS_END),
          interval_ms (trace, RELAY_MARK_CONNECT_START, RELAY_MARK_TCP_END),
          interval_ms (trace, RELAY_MARK_TLS_START, RELAY_MARK_TLS_END),
        };

        /* A reused connection costs no network setup: that is the point of keep-alive. */
        for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
          if (isfinite (parts[i]))
            sum += parts[i];
        return sum;
      }
    case RELAY_BUDGET_DNS:
      return interval_ms (trace, RELAY_MARK_DNS_START, RELAY_MARK_DNS_END);
    case RELAY_BUDGET_TCP:
      return interval_ms (trace, RELAY_MARK_CONNECT_START, RELAY_MARK_TCP_END);
    case RELAY_BUDGET_TLS:
      return interval_ms (trace, RELAY_MARK_TLS_START, RELAY_MARK_TLS_END);
    case RELAY_BUDGET_WAIT:
      return interval_ms (trace, RELAY_MARK_REQUEST_END, RELAY_MARK_RESPONSE_START);
    case RELAY_BUDGET_FIRST_TOKEN:
      return interval_ms (trace, RELAY_MARK_RESPONSE_START, RELAY_MARK_FIRST_TOKEN);
    case RELAY_BUDGET_TTFT:
      return interval_ms (trace, RELAY_MARK_START, RELAY_MARK_FIRST_TOKEN);
    case RELAY_BUDGET_END_TO_END:
      return interval_ms (trace, RELAY_MARK_START, RELAY_MARK_FIRST_TOKEN) + self->allowances;
    case RELAY_BUDGET_TOTAL:
      return interval_ms (trace, RELAY_MARK_START, RELAY_MARK_END);
    case RELAY_BUDGET_TOKENS_PER_S:
      return relay_trace_get_metric (trace, RELAY_METRIC_TOKENS_PER_SECOND);
    case RELAY_BUDGET_ITL:
    case RELAY_N_BUDGET_ITEMS:
    default:
      return NAN;
    }
}

static void
collect_gaps (RelayTrace *trace,
              GArray     *values)
{
  guint n;
  const RelayChunk *chunks = relay_trace_get_chunks (trace, &n);

  for (guint i = 1; i < n; i++)
    {
      double gap = (chunks[i].t_us - chunks[i - 1].t_us) / 1000.0;
      g_array_append_val (values, gap);
    }
}

static void
overrun_free (gpointer data)
{
  RelayBudgetOverrun *overrun = data;

  g_free (overrun->endpoint);
  g_free (overrun->model);
  g_free (overrun);
}

char *
relay_budget_overrun_format (const RelayBudgetOverrun *overrun)
{
  g_return_val_if_fail (overrun != NULL, NULL);

  if (overrun->item == RELAY_BUDGET_TOKENS_PER_S)
    return g_strdup_printf (_("%s %s: output p%g %.1f tokens/s is below the floor of %.1f"),
                            overrun->endpoint, overrun->model, overrun->percentile, overrun->value,
                            overrun->limit);

  return g_strdup_printf (_("%s %s: %s p%g is %.1f ms, over its budget of %.0f ms by %.1f ms"),
                          overrun->endpoint, overrun->model, item_names[overrun->item],
                          overrun->percentile, overrun->value, overrun->limit,
                          overrun->value - overrun->limit);
}

GPtrArray *
relay_budget_check_overruns (RelayBudget  *self,
                             RelaySession *session)
{
  GPtrArray *overruns = g_ptr_array_new_with_free_func (overrun_free);
  GListModel *traces;
  guint n_runs;

  g_return_val_if_fail (RELAY_IS_BUDGET (self), overruns);
  g_return_val_if_fail (RELAY_IS_SESSION (session), overruns);

  traces = relay_session_get_traces (session);
  n_runs = g_list_model_get_n_items (relay_session_get_runs (session));

  /* Group by endpoint × model, as the table does: runs of the same pair are pooled. */
  for (guint r = 0; r < n_runs; r++)
    {
      RelayRun *run = relay_session_get_run (session, r);
      gboolean seen = FALSE;

      for (guint q = 0; q < r && !seen; q++)
        {
          RelayRun *other = relay_session_get_run (session, q);
          seen = g_strcmp0 (relay_run_get_endpoint (other), relay_run_get_endpoint (run)) == 0 &&
                 g_strcmp0 (relay_run_get_model (other), relay_run_get_model (run)) == 0;
        }
      if (seen)
        continue;

      for (guint item = 0; item < RELAY_N_BUDGET_ITEMS; item++)
        {
          g_autoptr(GArray) values = NULL;
          RelayStats stats;
          double limit = self->limits[item];
          double value;
          double percentile = self->percentile;
          RelayBudgetOverrun *overrun;

          if (limit < 0)
            continue;

          values = g_array_new (FALSE, FALSE, sizeof (double));
          for (guint i = 0; i < g_list_model_get_n_items (traces); i++)
            {
              g_autoptr(RelayTrace) trace = g_list_model_get_item (traces, i);
              RelayRun *trun = relay_session_get_run (session, relay_trace_get_run (trace));
              double v;

              if (trun == NULL || !relay_trace_is_ok (trace) ||
                  g_strcmp0 (relay_run_get_endpoint (trun), relay_run_get_endpoint (run)) != 0 ||
                  g_strcmp0 (relay_run_get_model (trun), relay_run_get_model (run)) != 0)
                continue;

              if (item == RELAY_BUDGET_ITL)
                {
                  collect_gaps (trace, values);
                  continue;
                }

              v = relay_budget_trace_value (self, trace, item);
              if (isfinite (v))
                g_array_append_val (values, v);
            }

          if (values->len == 0)
            continue;

          relay_stats_compute ((double *) (gpointer) values->data, values->len, &stats);

          if (item == RELAY_BUDGET_TOKENS_PER_S)
            {
              /* A floor: the slow tail is the low percentile. */
              percentile = 100 - self->percentile;
              value = relay_stats_percentile ((double *) (gpointer) values->data, values->len, percentile);
              if (!(value < limit))
                continue;
            }
          else
            {
              value = relay_stats_percentile ((double *) (gpointer) values->data, values->len, percentile);
              if (!(value > limit))
                continue;
            }

          overrun = g_new0 (RelayBudgetOverrun, 1);
          overrun->endpoint = g_strdup (relay_run_get_endpoint (run));
          overrun->model = g_strdup (relay_run_get_model (run));
          overrun->item = item;
          overrun->percentile = percentile;
          overrun->value = value;
          overrun->limit = limit;
          overrun->n = stats.n;
          g_ptr_array_add (overruns, overrun);
        }
    }

  return overruns;
}

GPtrArray *
relay_budget_check (RelayBudget  *self,
                    RelaySession *session)
{
  GPtrArray *sentences = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) overruns = NULL;

  g_return_val_if_fail (RELAY_IS_BUDGET (self), sentences);
  g_return_val_if_fail (RELAY_IS_SESSION (session), sentences);

  overruns = relay_budget_check_overruns (self, session);
  for (guint i = 0; i < overruns->len; i++)
    g_ptr_array_add (sentences, relay_budget_overrun_format (g_ptr_array_index (overruns, i)));

  return sentences;
}

guint
relay_budget_trace_overruns (RelayBudget     *self,
                             RelayTrace      *trace,
                             RelayBudgetItem *items,
                             guint            n_items)
{
  guint n = 0;

  g_return_val_if_fail (RELAY_IS_BUDGET (self), 0);
  g_return_val_if_fail (RELAY_IS_TRACE (trace), 0);
  g_return_val_if_fail (items != NULL || n_items == 0, 0);

  if (!relay_trace_is_ok (trace))
    return 0;

  for (guint item = 0; item < RELAY_N_BUDGET_ITEMS && n < n_items; item++)
    {
      double limit = self->limits[item];
      double value;

      if (limit < 0)
        continue;

      if (item == RELAY_BUDGET_ITL)
        {
          g_autoptr(GArray) gaps = g_array_new (FALSE, FALSE, sizeof (double));
          RelayStats stats;

          collect_gaps (trace, gaps);
          relay_stats_compute ((double *) (gpointer) gaps->data, gaps->len, &stats);
          value = stats.max;
        }
      else
        value = relay_budget_trace_value (self, trace, item);

      if (!isfinite (value))
        continue;
      if (item == RELAY_BUDGET_TOKENS_PER_S ? value < limit : value > limit)
        items[n++] = item;
    }

  return n;
}
