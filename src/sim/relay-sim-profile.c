/* relay-sim-profile.c: the simulated relay's named profiles and their JSON and header forms.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stddef.h>
#include <string.h>

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "relay-sim-profile.h"

typedef enum
{
  FIELD_DOUBLE,
  FIELD_UINT,
  FIELD_SIZE,
  FIELD_BOOLEAN,
  FIELD_FAULT,
  FIELD_STRING,
} FieldType;

typedef struct
{
  const char *name;
  FieldType   type;
  gsize       offset;
  double      min;
  double      max;
} Field;

#define DOUBLE_FIELD(f, lo, hi) { #f, FIELD_DOUBLE, offsetof (RelaySimProfile, f), lo, hi }
#define UINT_FIELD(f, hi) { #f, FIELD_UINT, offsetof (RelaySimProfile, f), 0, hi }

/* Upper bounds keep a typo in a header from tying a server up for hours. */
static const Field fields[] = {
  DOUBLE_FIELD (headers_delay_ms, 0, 600000),
  DOUBLE_FIELD (prefill_us_per_token, 0, 100000),
  DOUBLE_FIELD (cache_discount, 0, 1),
  DOUBLE_FIELD (ttft_ms, 0, 600000),
  UINT_FIELD (reasoning_tokens, 1000000),
  DOUBLE_FIELD (itl_ms, 0, 60000),
  DOUBLE_FIELD (itl_jitter_ms, 0, 60000),
  DOUBLE_FIELD (stall_probability, 0, 1),
  DOUBLE_FIELD (stall_ms, 0, 600000),
  UINT_FIELD (coalesce, 100000),
  UINT_FIELD (tokens, 1000000),
  { "role_chunk", FIELD_BOOLEAN, offsetof (RelaySimProfile, role_chunk), 0, 0 },
  { "fault", FIELD_FAULT, offsetof (RelaySimProfile, fault), 0, 0 },
  DOUBLE_FIELD (fault_probability, 0, 1),
  UINT_FIELD (fault_after, 1000000),
  { "fault_bytes", FIELD_SIZE, offsetof (RelaySimProfile, fault_bytes), 0, 1024.0 * 1024 * 1024 },
  { "model", FIELD_STRING, offsetof (RelaySimProfile, model), 0, 0 },
  UINT_FIELD (seed, G_MAXUINT32),
  { "fault_cycle", FIELD_STRING, offsetof (RelaySimProfile, fault_cycle), 0, 0 },
  DOUBLE_FIELD (queue_ms_per_active, 0, 600000),
  DOUBLE_FIELD (relay_overhead_ms, 0, 600000),
  DOUBLE_FIELD (ratelimit_remaining, -1, 1e9),
  { "model_ttft_ms", FIELD_STRING, offsetof (RelaySimProfile, model_ttft_ms), 0, 0 },
  { "effort_reasoning_tokens", FIELD_STRING, offsetof (RelaySimProfile, effort_reasoning_tokens), 0, 0 },
  { "close_connection", FIELD_BOOLEAN, offsetof (RelaySimProfile, close_connection), 0, 0 },
};

static const char * const fault_names[] = {
  [RELAY_SIM_FAULT_NONE] = "none",
  [RELAY_SIM_FAULT_HTTP_401] = "http-401",
  [RELAY_SIM_FAULT_HTTP_403] = "http-403",
  [RELAY_SIM_FAULT_HTTP_404] = "http-404",
  [RELAY_SIM_FAULT_HTTP_429] = "http-429",
  [RELAY_SIM_FAULT_HTTP_500] = "http-500",
  [RELAY_SIM_FAULT_HTTP_503] = "http-503",
  [RELAY_SIM_FAULT_HTML_502] = "html-502",
  [RELAY_SIM_FAULT_RESET] = "reset",
  [RELAY_SIM_FAULT_MALFORMED] = "malformed",
  [RELAY_SIM_FAULT_NO_TERMINATOR] = "no-terminator",
  [RELAY_SIM_FAULT_ERROR_EVENT] = "error-event",
  [RELAY_SIM_FAULT_STALL] = "stall",
  [RELAY_SIM_FAULT_HUGE_LINE] = "huge-line",
};

static const char * const profile_names[] = {
  "fast", "congested", "buffering", "reasoning", "flaky", NULL,
};

const char *
relay_sim_fault_to_string (RelaySimFault fault)
{
  if ((guint) fault < G_N_ELEMENTS (fault_names))
    return fault_names[fault];
  return NULL;
}

gboolean
relay_sim_fault_from_string (const char    *str,
                             RelaySimFault *fault)
{
  g_return_val_if_fail (fault != NULL, FALSE);

  if (str == NULL)
    return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (fault_names); i++)
    {
      if (g_ascii_strcasecmp (fault_names[i], str) == 0)
        {
          *fault = i;
          return TRUE;
        }
    }

  return FALSE;
}

const char * const *
relay_sim_profile_list_names (void)
{
  return profile_names;
}

static void
init_defaults (RelaySimProfile *profile)
{
  memset (profile, 0, sizeof *profile);
  profile->headers_delay_ms = 20;
  profile->ttft_ms = 80;
  profile->itl_ms = 10;
  profile->coalesce = 1;
  profile->tokens = 64;
  profile->fault_after = 8;
  profile->fault_bytes = 256 * 1024;
  profile->ratelimit_remaining = -1;
}

gboolean
relay_sim_profile_init_named (RelaySimProfile *profile,
                              const char      *name)
{
  g_return_val_if_fail (profile != NULL, FALSE);

  init_defaults (profile);

  if (g_strcmp0 (name, "fast") == 0)
    {
      profile->headers_delay_ms = 20;
      profile->ttft_ms = 80;
      profile->itl_ms = 10;
      profile->itl_jitter_ms = 2;
      profile->tokens = 64;
      profile->role_chunk = TRUE;
    }
  else if (g_strcmp0 (name, "congested") == 0)
    {
      /* A busy upstream: slow gateway, visible prefill, throttling pauses mid-stream. */
      profile->headers_delay_ms = 250;
      profile->prefill_us_per_token = 400;
      profile->cache_discount = 0.7;
      profile->ttft_ms = 400;
      profile->itl_ms = 35;
      profile->itl_jitter_ms = 25;
      profile->stall_probability = 0.03;
      profile->stall_ms = 600;
      profile->tokens = 96;
      profile->role_chunk = TRUE;
    }
  else if (g_strcmp0 (name, "buffering") == 0)
    {
      /* A proxy that holds tokens back and releases them in bursts. */
      profile->headers_delay_ms = 40;
      profile->ttft_ms = 120;
      profile->itl_ms = 15;
      profile->itl_jitter_ms = 3;
      profile->coalesce = 16;
      profile->tokens = 96;
      profile->role_chunk = TRUE;
    }
  else if (g_strcmp0 (name, "reasoning") == 0)
    {
      profile->headers_delay_ms = 60;
      profile->ttft_ms = 150;
      profile->reasoning_tokens = 48;
      profile->itl_ms = 12;
      profile->itl_jitter_ms = 3;
      profile->tokens = 64;
    }
  else if (g_strcmp0 (name, "flaky") == 0)
    {
      /* Almost fast, but about one request in three fails, each time in the next way. */
      profile->headers_delay_ms = 30;
      profile->ttft_ms = 100;
      profile->itl_ms = 12;
      profile->itl_jitter_ms = 4;
      profile->tokens = 64;
      profile->role_chunk = TRUE;
      profile->fault = RELAY_SIM_FAULT_HTTP_429;
      profile->fault_probability = 0.3;
      profile->fault_after = 8;
      profile->fault_cycle = g_strdup ("http-429|http-500|reset|malformed");
    }
  else
    {
      return FALSE;
    }

  return TRUE;
}

void
relay_sim_profile_copy (const RelaySimProfile *src,
                        RelaySimProfile       *dest)
{
  g_return_if_fail (src != NULL);
  g_return_if_fail (dest != NULL);

  if (src == dest)
    return;

  *dest = *src;
  dest->model = g_strdup (src->model);
  dest->fault_cycle = g_strdup (src->fault_cycle);
  dest->model_ttft_ms = g_strdup (src->model_ttft_ms);
  dest->effort_reasoning_tokens = g_strdup (src->effort_reasoning_tokens);
}

void
relay_sim_profile_clear (RelaySimProfile *profile)
{
  g_return_if_fail (profile != NULL);

  g_clear_pointer (&profile->model, g_free);
  g_clear_pointer (&profile->fault_cycle, g_free);
  g_clear_pointer (&profile->model_ttft_ms, g_free);
  g_clear_pointer (&profile->effort_reasoning_tokens, g_free);
}

static const Field *
find_field (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      if (strcmp (fields[i].name, name) == 0)
        return &fields[i];
    }

  return NULL;
}

static gboolean
check_fault_cycle (const char  *cycle,
                   GError     **error)
{
  g_auto(GStrv) parts = NULL;

  if (cycle == NULL)
    return TRUE;

  parts = g_strsplit (cycle, "|", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      RelaySimFault fault;

      if (!relay_sim_fault_from_string (g_strstrip (parts[i]), &fault))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "fault_cycle: unknown fault “%s”", parts[i]);
          return FALSE;
        }
    }

  return TRUE;
}

/* "name:number|name:number", as model_ttft_ms and effort_reasoning_tokens take them. */
static gboolean
check_number_map (const char  *field,
                  const char  *map,
                  GError     **error)
{
  g_auto(GStrv) parts = NULL;

  if (map == NULL)
    return TRUE;

  parts = g_strsplit (map, "|", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *colon = strrchr (parts[i], ':');
      char *end = NULL;
      double value = -1;

      if (colon != NULL)
        value = g_ascii_strtod (colon + 1, &end);
      if (colon == NULL || colon == parts[i] || end == colon + 1 || *g_strchug (end) != '\0' ||
          !(value >= 0 && value <= 1e9))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s: “%s” is not name:number", field, parts[i]);
          return FALSE;
        }
    }

  return TRUE;
}

static gboolean
set_double (RelaySimProfile  *profile,
            const Field      *field,
            double            value,
            GError          **error)
{
  if (!(value >= field->min && value <= field->max))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%s: %g is out of range (%g to %g)",
                   field->name, value, field->min, field->max);
      return FALSE;
    }

  switch (field->type)
    {
    case FIELD_DOUBLE:
      G_STRUCT_MEMBER (double, profile, field->offset) = value;
      return TRUE;

    case FIELD_UINT:
    case FIELD_SIZE:
      if (value != (double) (guint64) value)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s: %g is not a whole number", field->name, value);
          return FALSE;
        }
      if (field->type == FIELD_UINT)
        G_STRUCT_MEMBER (guint, profile, field->offset) = (guint) value;
      else
        G_STRUCT_MEMBER (gsize, profile, field->offset) = (gsize) value;
      return TRUE;

    case FIELD_BOOLEAN:
    case FIELD_FAULT:
    case FIELD_STRING:
    default:
      g_assert_not_reached ();
    }
}

/* Sets one field from its text form, as the override header and the JSON strings carry it. */
static gboolean
set_from_string (RelaySimProfile  *profile,
                 const Field      *field,
                 const char       *value,
                 GError          **error)
{
  switch (field->type)
    {
    case FIELD_DOUBLE:
    case FIELD_UINT:
    case FIELD_SIZE:
      {
        char *end = NULL;
        double d = g_ascii_strtod (value, &end);

        if (*value == '\0' || end == NULL || *end != '\0')
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         "%s: “%s” is not a number", field->name, value);
            return FALSE;
          }
        return set_double (profile, field, d, error);
      }

    case FIELD_BOOLEAN:
      if (g_ascii_strcasecmp (value, "true") == 0 || g_strcmp0 (value, "1") == 0 ||
          g_ascii_strcasecmp (value, "yes") == 0)
        G_STRUCT_MEMBER (gboolean, profile, field->offset) = TRUE;
      else if (g_ascii_strcasecmp (value, "false") == 0 || g_strcmp0 (value, "0") == 0 ||
               g_ascii_strcasecmp (value, "no") == 0)
        G_STRUCT_MEMBER (gboolean, profile, field->offset) = FALSE;
      else
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s: “%s” is not true or false", field->name, value);
          return FALSE;
        }
      return TRUE;

    case FIELD_FAULT:
      if (!relay_sim_fault_from_string (value, &profile->fault))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "fault: unknown fault “%s”", value);
          return FALSE;
        }
      return TRUE;

    case FIELD_STRING:
      {
        char **member = &G_STRUCT_MEMBER (char *, profile, field->offset);
        const char *v = (*value == '\0' || g_strcmp0 (value, "null") == 0) ? NULL : value;

        if (field->offset == offsetof (RelaySimProfile, fault_cycle) &&
            !check_fault_cycle (v, error))
          return FALSE;
        if ((field->offset == offsetof (RelaySimProfile, model_ttft_ms) ||
             field->offset == offsetof (RelaySimProfile, effort_reasoning_tokens)) &&
            !check_number_map (field->name, v, error))
          return FALSE;

        g_free (*member);
        *member = g_strdup (v);
        return TRUE;
      }

    default:
      g_assert_not_reached ();
    }
}

static gboolean
set_from_node (RelaySimProfile  *profile,
               const Field      *field,
               JsonNode         *node,
               GError          **error)
{
  GType value_type = json_node_get_value_type (node);

  if (JSON_NODE_HOLDS_NULL (node))
    {
      if (field->type == FIELD_STRING)
        return set_from_string (profile, field, "", error);
    }
  else if (JSON_NODE_HOLDS_VALUE (node))
    {
      if (value_type == G_TYPE_STRING)
        return set_from_string (profile, field, json_node_get_string (node), error);

      if (field->type == FIELD_BOOLEAN && value_type == G_TYPE_BOOLEAN)
        {
          G_STRUCT_MEMBER (gboolean, profile, field->offset) = json_node_get_boolean (node);
          return TRUE;
        }

      if ((field->type == FIELD_DOUBLE || field->type == FIELD_UINT || field->type == FIELD_SIZE) &&
          (value_type == G_TYPE_INT64 || value_type == G_TYPE_DOUBLE))
        return set_double (profile, field, json_node_get_double (node), error);
    }

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               "%s: wrong type of value", field->name);
  return FALSE;
}

static void
normalize (RelaySimProfile *profile,
           gboolean         fault_given,
           gboolean         probability_given)
{
  if (profile->coalesce == 0)
    profile->coalesce = 1;

  /* Naming a fault without odds means "always": that is what a person asking for one wants. */
  if (fault_given && !probability_given)
    profile->fault_probability = profile->fault != RELAY_SIM_FAULT_NONE ? 1.0 : 0.0;

  /* An explicit fault replaces a cycle inherited from the base profile. */
  if (fault_given)
    g_clear_pointer (&profile->fault_cycle, g_free);
}

gboolean
relay_sim_profile_init_from_json (RelaySimProfile  *profile,
                                  const char       *json,
                                  GError          **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GList) members = NULL;
  RelaySimProfile result;
  JsonObject *object;
  const char *base = "fast";
  gboolean fault_given = FALSE;
  gboolean probability_given = FALSE;

  g_return_val_if_fail (profile != NULL, FALSE);
  g_return_val_if_fail (json != NULL, FALSE);

  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, json, -1, error))
    return FALSE;

  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "A simulated relay profile must be a JSON object");
      return FALSE;
    }

  object = json_node_get_object (json_parser_get_root (parser));
  if (json_object_has_member (object, "profile"))
    {
      JsonNode *node = json_object_get_member (object, "profile");

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               "profile: must be the name of a profile");
          return FALSE;
        }
      base = json_node_get_string (node);
    }

  if (!relay_sim_profile_init_named (&result, base))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "profile: unknown profile “%s”", base);
      return FALSE;
    }

  members = json_object_get_members (object);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      const Field *field;

      if (strcmp (name, "profile") == 0)
        continue;

      if (!(field = find_field (name)))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "Unknown profile field “%s”", name);
          relay_sim_profile_clear (&result);
          return FALSE;
        }

      if (!set_from_node (&result, field, json_object_get_member (object, name), error))
        {
          relay_sim_profile_clear (&result);
          return FALSE;
        }

      fault_given |= field->type == FIELD_FAULT;
      probability_given |= strcmp (name, "fault_probability") == 0;
    }

  normalize (&result, fault_given, probability_given);

  *profile = result;
  return TRUE;
}

gboolean
relay_sim_profile_apply_overrides (RelaySimProfile  *profile,
                                   const char       *overrides,
                                   GError          **error)
{
  g_auto(GStrv) items = NULL;
  RelaySimProfile result;
  gboolean fault_given = FALSE;
  gboolean probability_given = FALSE;

  g_return_val_if_fail (profile != NULL, FALSE);

  if (overrides == NULL)
    return TRUE;

  items = g_strsplit (overrides, ",", -1);

  /* Work on a copy so that a bad item leaves the profile as it was. */
  relay_sim_profile_copy (profile, &result);

  /* A base profile applies first wherever it is written, so the other items refine it. */
  for (guint i = 0; items[i] != NULL; i++)
    {
      char *item = g_strstrip (items[i]);
      char *eq = strchr (item, '=');
      g_autofree char *key = NULL;
      const char *name;

      if (eq == NULL)
        continue;

      key = g_strstrip (g_strndup (item, eq - item));
      if (strcmp (key, "profile") != 0)
        continue;

      name = g_strstrip (eq + 1);
      relay_sim_profile_clear (&result);
      if (!relay_sim_profile_init_named (&result, name))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "profile: unknown profile “%s”", name);
          relay_sim_profile_clear (&result);
          return FALSE;
        }
      *item = '\0';
    }

  for (guint i = 0; items[i] != NULL; i++)
    {
      const char *item = items[i];
      const char *eq;
      g_autofree char *key = NULL;
      g_autofree char *value = NULL;
      const Field *field;

      if (*item == '\0')
        continue;

      if (!(eq = strchr (item, '=')))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "“%s” is not key=value", item);
          relay_sim_profile_clear (&result);
          return FALSE;
        }

      key = g_strstrip (g_strndup (item, eq - item));
      value = g_strstrip (g_strdup (eq + 1));

      if (!(field = find_field (key)))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "Unknown profile field “%s”", key);
          relay_sim_profile_clear (&result);
          return FALSE;
        }

      if (!set_from_string (&result, field, value, error))
        {
          relay_sim_profile_clear (&result);
          return FALSE;
        }

      fault_given |= field->type == FIELD_FAULT;
      probability_given |= strcmp (key, "fault_probability") == 0;
    }

  normalize (&result, fault_given, probability_given);

  relay_sim_profile_clear (profile);
  *profile = result;
  return TRUE;
}
