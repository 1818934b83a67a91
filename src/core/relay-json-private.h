/* relay-json-private.h: small helpers shared by the core's JSON readers and writers: typed
 * member access with errors that name the member, and keeping members we do not know.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "relay-session.h"

G_BEGIN_DECLS

/* A copy that is valid UTF-8: servers send what they like, and one bad byte in a header
 * would make the saved session a file that JSON readers refuse. */
static inline char *
_relay_strdup_utf8 (const char *value)
{
  if (value == NULL || g_utf8_validate (value, -1, NULL))
    return g_strdup (value);

  return g_utf8_make_valid (value, -1);
}

/* Replaces a string member; TRUE when it changed (g_set_str is newer than GLib 2.74). */
static inline gboolean
_relay_str_set (char       **ptr,
                const char  *value)
{
  char *copy;

  if (g_strcmp0 (*ptr, value) == 0)
    return FALSE;

  copy = _relay_strdup_utf8 (value);
  g_free (*ptr);
  *ptr = copy;

  return TRUE;
}

/* Timestamps in files: ISO 8601 with microseconds and the UTC offset. The year always has
 * four digits: "%Y" writes year 226 as "226", which ISO 8601 readers (ours too) reject. */
static inline char *
_relay_json_format_time (GDateTime *dt)
{
  g_autofree char *rest = g_date_time_format (dt, "-%m-%dT%H:%M:%S.%f%:z");

  return g_strdup_printf ("%04d%s", g_date_time_get_year (dt), rest);
}

static inline void
_relay_json_set_string (JsonObject *object,
                        const char *name,
                        const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, name, value);
  else
    json_object_set_null_member (object, name);
}

static inline void
_relay_json_set_time (JsonObject *object,
                      const char *name,
                      GDateTime  *value)
{
  g_autofree char *str = NULL;

  if (value != NULL)
    str = _relay_json_format_time (value);
  _relay_json_set_string (object, name, str);
}

static inline gboolean
_relay_json_is_null (JsonNode *node)
{
  return node == NULL || JSON_NODE_HOLDS_NULL (node);
}

static inline gboolean
_relay_json_is_int (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64;
}

/* Reads an optional string member: absent or null gives NULL. */
static inline gboolean
_relay_json_get_string (JsonObject  *object,
                        const char  *where,
                        const char  *name,
                        const char **value,
                        GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);

  *value = NULL;

  if (_relay_json_is_null (node))
    return TRUE;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "%s%s is not a string", where, name);
      return FALSE;
    }

  *value = json_node_get_string (node);
  return TRUE;
}

/* Reads a string member that must be there. */
static inline gboolean
_relay_json_require_string (JsonObject  *object,
                            const char  *where,
                            const char  *name,
                            const char **value,
                            GError     **error)
{
  if (!_relay_json_get_string (object, where, name, value, error))
    return FALSE;

  if (*value == NULL)
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "%s%s is missing", where, name);
      return FALSE;
    }

  return TRUE;
}

/* Reads an optional integer member within [min, max]; absent or null gives fallback. */
static inline gboolean
_relay_json_get_int (JsonObject  *object,
                     const char  *where,
                     const char  *name,
                     gint64       min,
                     gint64       max,
                     gint64       fallback,
                     gint64      *value,
                     GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);
  gint64 v;

  *value = fallback;

  if (_relay_json_is_null (node))
    return TRUE;

  if (!_relay_json_is_int (node))
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "%s%s is not a number", where, name);
      return FALSE;
    }

  v = json_node_get_int (node);

  if (v < min || v > max)
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "%s%s is out of range", where, name);
      return FALSE;
    }

  *value = v;
  return TRUE;
}

/* Reads an optional boolean member; absent or null gives FALSE. */
static inline gboolean
_relay_json_get_bool (JsonObject  *object,
                      const char  *where,
                      const char  *name,
                      gboolean    *value,
                      GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);

  *value = FALSE;

  if (_relay_json_is_null (node))
    return TRUE;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "%s%s is not true or false", where, name);
      return FALSE;
    }

  *value = json_node_get_boolean (node);
  return TRUE;
}

/* Reads an optional time member (ISO 8601); absent or null gives NULL. */
static inline gboolean
_relay_json_get_time (JsonObject  *object,
                      const char  *where,
                      const char  *name,
                      GDateTime  **value,
                      GError     **error)
{
  const char *str;

  *value = NULL;

  if (!_relay_json_get_string (object, where, name, &str, error))
    return FALSE;

  if (str == NULL)
    return TRUE;

  if (!(*value = g_date_time_new_from_iso8601 (str, NULL)))
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "%s%s is not an ISO 8601 time", where, name);
      return FALSE;
    }

  return TRUE;
}

/* Reads an optional member that must be an object (absent or null gives NULL). */
static inline gboolean
_relay_json_get_object (JsonObject  *object,
                        const char  *where,
                        const char  *name,
                        JsonObject **value,
                        GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);

  *value = NULL;

  if (_relay_json_is_null (node))
    return TRUE;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "%s%s is not an object", where, name);
      return FALSE;
    }

  *value = json_node_get_object (node);
  return TRUE;
}

/* Reads an optional member that must be an array (absent or null gives NULL). */
static inline gboolean
_relay_json_get_array (JsonObject  *object,
                       const char  *where,
                       const char  *name,
                       JsonArray  **value,
                       GError     **error)
{
  JsonNode *node = json_object_get_member (object, name);

  *value = NULL;

  if (_relay_json_is_null (node))
    return TRUE;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "%s%s is not a list", where, name);
      return FALSE;
    }

  *value = json_node_get_array (node);
  return TRUE;
}

/* Reads an optional array of strings as a NULL-terminated vector (NULL when absent). */
static inline gboolean
_relay_json_get_strv (JsonObject   *object,
                      const char   *where,
                      const char   *name,
                      char       ***value,
                      GError      **error)
{
  JsonArray *array;
  g_autoptr(GStrvBuilder) builder = NULL;
  guint n;

  *value = NULL;

  if (!_relay_json_get_array (object, where, name, &array, error))
    return FALSE;

  if (array == NULL)
    return TRUE;

  builder = g_strv_builder_new ();
  n = json_array_get_length (array);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        {
          g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                       "%s%s[%u] is not a string", where, name, i);
          return FALSE;
        }

      g_strv_builder_add (builder, json_node_get_string (node));
    }

  *value = g_strv_builder_end (builder);
  return TRUE;
}

static inline void
_relay_json_set_strv (JsonObject         *object,
                      const char         *name,
                      const char * const *strv)
{
  JsonArray *array = json_array_sized_new (strv ? g_strv_length ((char **) strv) : 0);

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);

  json_object_set_array_member (object, name, array);
}

/* A deep copy that json-glib 1.6 can write back as valid JSON. It reads a number too large
 * for a double (1e999) as infinity and writes "inf"; it writes a double whose text has no
 * '.' with ".0" appended, so 1e20 becomes "1e+20.0". Integral ones of those are kept as
 * integers, the others as null: a kept member must never make the saved file one we
 * cannot open. */
static inline JsonNode *
_relay_json_copy_writable (JsonNode *node)
{
  JsonNode *copy;

  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_object_new ();
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;

        json_object_iter_init_ordered (&iter, json_node_get_object (node));
        while (json_object_iter_next_ordered (&iter, &name, &member))
          json_object_set_member (object, name, _relay_json_copy_writable (member));
        copy = json_node_init_object (json_node_alloc (), object);
        json_object_unref (object);
        return copy;
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);
        JsonArray *elements = json_array_sized_new (n);

        for (guint i = 0; i < n; i++)
          json_array_add_element (elements, _relay_json_copy_writable (json_array_get_element (array, i)));
        copy = json_node_init_array (json_node_alloc (), elements);
        json_array_unref (elements);
        return copy;
      }

    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
        {
          double d = json_node_get_double (node);
          char text[G_ASCII_DTOSTR_BUF_SIZE];

          if (!isfinite (d))
            return json_node_new (JSON_NODE_NULL);

          g_ascii_dtostr (text, sizeof text, d);
          if (strchr (text, '.') == NULL && strpbrk (text, "eE") != NULL)
            {
              if (d == floor (d) && fabs (d) < 9.2e18)
                return json_node_init_int (json_node_alloc (), (gint64) d);
              return json_node_new (JSON_NODE_NULL);
            }
        }
      return json_node_copy (node);

    case JSON_NODE_NULL:
    default:
      return json_node_copy (node);
    }
}

/* Copies the members of object that are not in known (NULL-terminated), in their order, so
 * that a newer file's additions survive a load and save. NULL when there are none. */
static inline JsonObject *
_relay_json_collect_unknown (JsonObject         *object,
                             const char * const *known)
{
  JsonObject *extras = NULL;
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  json_object_iter_init_ordered (&iter, object);

  while (json_object_iter_next_ordered (&iter, &name, &node))
    {
      if (g_strv_contains (known, name))
        continue;

      if (extras == NULL)
        extras = json_object_new ();
      json_object_set_member (extras, name, _relay_json_copy_writable (node));
    }

  return extras;
}

/* Appends the kept unknown members after the known ones; a known member always wins. */
static inline void
_relay_json_add_unknown (JsonObject *object,
                         JsonObject *extras)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  if (extras == NULL)
    return;

  json_object_iter_init_ordered (&iter, extras);

  while (json_object_iter_next_ordered (&iter, &name, &node))
    {
      if (!json_object_has_member (object, name))
        json_object_set_member (object, name, json_node_copy (node));
    }
}

G_END_DECLS
