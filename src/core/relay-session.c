/* relay-session.c: a comparison session (endpoints, runs, traces) and its *.relayscope file:
 * strict, crash-proof loading and atomic saving.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "relay-json-private.h"
#include "relay-session-private.h"
#include "relay-session.h"

/* json-glib recurses once per nesting level; a hostile file must not exhaust the stack. A
 * session nests about six levels, extras from newer versions a few more. */
#define MAX_JSON_DEPTH 128

struct _RelaySession
{
  GObject     parent_instance;

  char       *title;
  char       *notes;
  GDateTime  *created;
  GListStore *endpoints;
  GListStore *runs;
  GListStore *traces;
  JsonObject *extras;
  gboolean    modified;
};

G_DEFINE_FINAL_TYPE (RelaySession, relay_session, G_TYPE_OBJECT)

G_DEFINE_QUARK (relay-session-error-quark, relay_session_error)

enum {
  PROP_0,
  PROP_TITLE,
  PROP_NOTES,
  PROP_CREATED,
  PROP_MODIFIED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char * const session_members[] = {
  "format", "version", "title", "created", "notes", "endpoints", "runs", "traces", NULL
};

static gsize fail_after_bytes = G_MAXSIZE;

void
_relay_session_set_fail_after_bytes (gsize n)
{
  fail_after_bytes = n;
}

static void
relay_session_finalize (GObject *object)
{
  RelaySession *self = (RelaySession *)object;

  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->notes, g_free);
  g_clear_pointer (&self->created, g_date_time_unref);
  g_clear_object (&self->endpoints);
  g_clear_object (&self->runs);
  g_clear_object (&self->traces);
  g_clear_pointer (&self->extras, json_object_unref);

  G_OBJECT_CLASS (relay_session_parent_class)->finalize (object);
}

static void
relay_session_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  RelaySession *self = RELAY_SESSION (object);

  switch (prop_id)
    {
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;

    case PROP_NOTES:
      g_value_set_string (value, self->notes);
      break;

    case PROP_CREATED:
      g_value_set_boxed (value, self->created);
      break;

    case PROP_MODIFIED:
      g_value_set_boolean (value, self->modified);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_session_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  RelaySession *self = RELAY_SESSION (object);

  switch (prop_id)
    {
    case PROP_TITLE:
      relay_session_set_title (self, g_value_get_string (value));
      break;

    case PROP_NOTES:
      relay_session_set_notes (self, g_value_get_string (value));
      break;

    case PROP_MODIFIED:
      relay_session_set_modified (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_session_class_init (RelaySessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = relay_session_finalize;
  object_class->get_property = relay_session_get_property;
  object_class->set_property = relay_session_set_property;

  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_NOTES] =
    g_param_spec_string ("notes", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  properties[PROP_CREATED] =
    g_param_spec_boxed ("created", NULL, NULL,
                        G_TYPE_DATE_TIME,
                        (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  properties[PROP_MODIFIED] =
    g_param_spec_boolean ("modified", NULL, NULL,
                          FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
relay_session_init (RelaySession *self)
{
  self->created = g_date_time_new_now_local ();
  self->endpoints = g_list_store_new (RELAY_TYPE_ENDPOINT);
  self->runs = g_list_store_new (RELAY_TYPE_RUN);
  self->traces = g_list_store_new (RELAY_TYPE_TRACE);
}

RelaySession *
relay_session_new (void)
{
  return g_object_new (RELAY_TYPE_SESSION, NULL);
}

const char *
relay_session_get_title (RelaySession *self)
{
  g_return_val_if_fail (RELAY_IS_SESSION (self), NULL);

  return self->title;
}

void
relay_session_set_title (RelaySession *self,
                         const char   *title)
{
  g_return_if_fail (RELAY_IS_SESSION (self));

  if (_relay_str_set (&self->title, title))
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
      relay_session_set_modified (self, TRUE);
    }
}

const char *
relay_session_get_notes (RelaySession *self)
{
  g_return_val_if_fail (RELAY_IS_SESSION (self), NULL);

  return self->notes;
}

void
relay_session_set_notes (RelaySession *self,
                         const char   *notes)
{
  g_return_if_fail (RELAY_IS_SESSION (self));

  if (_relay_str_set (&self->notes, notes))
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NOTES]);
      relay_session_set_modified (self, TRUE);
    }
}

GDateTime *
relay_session_get_created (RelaySession *self)
{
  g_return_val_if_fail (RELAY_IS_SESSION (self), NULL);

  return self->created;
}

GListModel *
relay_session_get_endpoints (RelaySession *self)
{
  g_return_val_if_fail (RELAY_IS_SESSION (self), NULL);

  return G_LIST_MODEL (self->endpoints);
}

void
relay_session_add_endpoint (RelaySession  *self,
                            RelayEndpoint *endpoint)
{
  g_return_if_fail (RELAY_IS_SESSION (self));
  g_return_if_fail (RELAY_IS_ENDPOINT (endpoint));

  g_list_store_append (self->endpoints, endpoint);
  relay_session_set_modified (self, TRUE);
}

RelayEndpoint *
relay_session_find_endpoint (RelaySession *self,
                             const char   *name)
{
  guint n;

  g_return_val_if_fail (RELAY_IS_SESSION (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->endpoints));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RelayEndpoint) endpoint = g_list_model_get_item (G_LIST_MODEL (self->endpoints), i);

      /* The store keeps its reference; the caller borrows. */
      if (g_strcmp0 (relay_endpoint_get_name (endpoint), name) == 0)
        return endpoint;
    }

  return NULL;
}

GListModel *
relay_session_get_runs (RelaySession *self)
{
  g_return_val_if_fail (RELAY_IS_SESSION (self), NULL);

  return G_LIST_MODEL (self->runs);
}

guint
relay_session_add_run (RelaySession *self,
                       RelayRun     *run)
{
  guint index;

  g_return_val_if_fail (RELAY_IS_SESSION (self), 0);
  g_return_val_if_fail (RELAY_IS_RUN (run), 0);

  index = g_list_model_get_n_items (G_LIST_MODEL (self->runs));
  g_list_store_append (self->runs, run);
  relay_session_set_modified (self, TRUE);

  return index;
}

RelayRun *
relay_session_get_run (RelaySession *self,
                       guint         index)
{
  g_autoptr(RelayRun) run = NULL;

  g_return_val_if_fail (RELAY_IS_SESSION (self), NULL);

  /* The store keeps its reference; the caller borrows. */
  run = g_list_model_get_item (G_LIST_MODEL (self->runs), index);

  return run;
}

GListModel *
relay_session_get_traces (RelaySession *self)
{
  g_return_val_if_fail (RELAY_IS_SESSION (self), NULL);

  return G_LIST_MODEL (self->traces);
}

void
relay_session_add_trace (RelaySession *self,
                         RelayTrace   *trace)
{
  g_return_if_fail (RELAY_IS_SESSION (self));
  g_return_if_fail (RELAY_IS_TRACE (trace));

  g_list_store_append (self->traces, trace);
  relay_session_set_modified (self, TRUE);
}

JsonNode *
relay_session_get_extra (RelaySession *self,
                         const char   *name)
{
  g_return_val_if_fail (RELAY_IS_SESSION (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  if (self->extras == NULL || !json_object_has_member (self->extras, name))
    return NULL;

  return json_object_get_member (self->extras, name);
}

void
relay_session_set_extra (RelaySession *self,
                         const char   *name,
                         JsonNode     *value)
{
  g_return_if_fail (RELAY_IS_SESSION (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (!g_strv_contains (session_members, name));

  if (value == NULL)
    {
      if (self->extras == NULL || !json_object_has_member (self->extras, name))
        return;
      json_object_remove_member (self->extras, name);
    }
  else
    {
      if (self->extras == NULL)
        self->extras = json_object_new ();
      json_object_set_member (self->extras, name, json_node_copy (value));
    }

  relay_session_set_modified (self, TRUE);
}

gboolean
relay_session_get_modified (RelaySession *self)
{
  g_return_val_if_fail (RELAY_IS_SESSION (self), FALSE);

  return self->modified;
}

void
relay_session_set_modified (RelaySession *self,
                            gboolean      modified)
{
  g_return_if_fail (RELAY_IS_SESSION (self));

  modified = !!modified;

  if (self->modified != modified)
    {
      self->modified = modified;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
    }
}

typedef JsonNode *(*ToJsonFunc) (gpointer item);

static JsonArray *
model_to_json (GListModel *model,
               ToJsonFunc  to_json)
{
  guint n = g_list_model_get_n_items (model);
  JsonArray *array = json_array_sized_new (n);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);

      json_array_add_element (array, to_json (item));
    }

  return array;
}

JsonNode *
relay_session_to_json (RelaySession *self)
{
  g_autoptr(JsonObject) object = NULL;
  JsonNode *node;

  g_return_val_if_fail (RELAY_IS_SESSION (self), NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "format", RELAY_SESSION_FORMAT);
  json_object_set_int_member (object, "version", RELAY_SESSION_VERSION);
  _relay_json_set_string (object, "title", self->title);
  _relay_json_set_time (object, "created", self->created);
  _relay_json_set_string (object, "notes", self->notes);
  json_object_set_array_member (object, "endpoints",
                                model_to_json (G_LIST_MODEL (self->endpoints),
                                               (ToJsonFunc) relay_endpoint_to_json));
  json_object_set_array_member (object, "runs",
                                model_to_json (G_LIST_MODEL (self->runs),
                                               (ToJsonFunc) relay_run_to_json));
  json_object_set_array_member (object, "traces",
                                model_to_json (G_LIST_MODEL (self->traces),
                                               (ToJsonFunc) relay_trace_to_json));
  _relay_json_add_unknown (object, self->extras);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, object);

  return node;
}

RelaySession *
relay_session_new_from_json (JsonNode  *node,
                             GError   **error)
{
  g_autoptr(RelaySession) self = NULL;
  g_autoptr(GDateTime) created = NULL;
  JsonObject *object;
  JsonNode *format;
  JsonArray *endpoints;
  JsonArray *runs;
  JsonArray *traces;
  const char *title;
  const char *notes;
  gint64 version;
  guint n_runs;

  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    goto not_a_session;

  object = json_node_get_object (node);
  format = json_object_get_member (object, "format");

  if (format == NULL ||
      !JSON_NODE_HOLDS_VALUE (format) ||
      json_node_get_value_type (format) != G_TYPE_STRING ||
      g_strcmp0 (json_node_get_string (format), RELAY_SESSION_FORMAT) != 0)
    goto not_a_session;

  if (!_relay_json_get_int (object, "", "version", G_MININT64, G_MAXINT64, 0, &version, error))
    return NULL;

  if (version > RELAY_SESSION_VERSION)
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_VERSION,
                   "written by a newer Relayscope (format version %" G_GINT64_FORMAT "); "
                   "update Relayscope to open it", version);
      return NULL;
    }

  if (version < 1)
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "the format version is missing or not valid");
      return NULL;
    }

  if (!_relay_json_get_string (object, "", "title", &title, error) ||
      !_relay_json_get_string (object, "", "notes", &notes, error) ||
      !_relay_json_get_time (object, "", "created", &created, error) ||
      !_relay_json_get_array (object, "", "endpoints", &endpoints, error) ||
      !_relay_json_get_array (object, "", "runs", &runs, error) ||
      !_relay_json_get_array (object, "", "traces", &traces, error))
    return NULL;

  self = relay_session_new ();
  self->title = g_strdup (title);
  self->notes = g_strdup (notes);
  if (created != NULL)
    {
      g_clear_pointer (&self->created, g_date_time_unref);
      self->created = g_steal_pointer (&created);
    }

  for (guint i = 0; endpoints != NULL && i < json_array_get_length (endpoints); i++)
    {
      g_autoptr(RelayEndpoint) endpoint = NULL;

      if (!(endpoint = relay_endpoint_new_from_json (json_array_get_element (endpoints, i), error)))
        {
          g_prefix_error (error, "endpoint %u: ", i);
          return NULL;
        }

      g_list_store_append (self->endpoints, endpoint);
    }

  for (guint i = 0; runs != NULL && i < json_array_get_length (runs); i++)
    {
      g_autoptr(RelayRun) run = NULL;

      if (!(run = relay_run_new_from_json (json_array_get_element (runs, i), error)))
        {
          g_prefix_error (error, "run %u: ", i);
          return NULL;
        }

      g_list_store_append (self->runs, run);
    }

  n_runs = g_list_model_get_n_items (G_LIST_MODEL (self->runs));

  for (guint i = 0; traces != NULL && i < json_array_get_length (traces); i++)
    {
      g_autoptr(RelayTrace) trace = NULL;

      if (!(trace = relay_trace_new_from_json (json_array_get_element (traces, i), error)))
        {
          g_prefix_error (error, "trace %u: ", i);
          return NULL;
        }

      /* Views look a trace's run up by index; a dangling one would leave them nothing. */
      if (relay_trace_get_run (trace) >= n_runs)
        {
          g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                       "trace %u: run %u does not exist", i, relay_trace_get_run (trace));
          return NULL;
        }

      g_list_store_append (self->traces, trace);
    }

  self->extras = _relay_json_collect_unknown (object, session_members);
  self->modified = FALSE;

  return g_steal_pointer (&self);

not_a_session:
  g_set_error_literal (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_FORMAT,
                       "this is not a Relayscope session");
  return NULL;
}

/* The deepest nesting of arrays and objects, counted without parsing (strings skipped). */
static gboolean
nesting_within (const char *data,
                gsize       length,
                guint       max_depth)
{
  gboolean in_string = FALSE;
  guint depth = 0;

  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > max_depth)
            return FALSE;
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }

  return TRUE;
}

static RelaySession *
load_from_data (const char  *data,
                gsize        length,
                const char  *name,
                GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;

  if (!nesting_within (data, length, MAX_JSON_DEPTH))
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "%s: nested too deeply to be a session", name);
      return NULL;
    }

  parser = json_parser_new_immutable ();

  if (!json_parser_load_from_data (parser, data, length, &local_error))
    {
      const char *message = local_error->message;

      /* json-glib names the input "<data>"; say which file instead. */
      if (g_str_has_prefix (message, "<data>"))
        g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                     "%s%s", name, message + strlen ("<data>"));
      else
        g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                     "%s: %s", name, message);
      return NULL;
    }

  if (!(root = json_parser_get_root (parser)))
    {
      g_set_error (error, RELAY_SESSION_ERROR, RELAY_SESSION_ERROR_PARSE,
                   "%s: the file is empty", name);
      return NULL;
    }

  return relay_session_new_from_json (root, error);
}

RelaySession *
relay_session_load_from_data (const char  *data,
                              gssize       length,
                              GError     **error)
{
  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (length < 0)
    length = strlen (data);

  return load_from_data (data ? data : "", length, "<data>", error);
}

RelaySession *
relay_session_load (GFile         *file,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *name = NULL;
  gsize length;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_file_load_contents (file, cancellable, &contents, &length, NULL, error))
    return NULL;

  name = g_file_get_parse_name (file);

  return load_from_data (contents, length, name, error);
}

static gboolean
write_all (int          fd,
           const char  *data,
           gsize        length,
           int         *errsv)
{
  gsize written = 0;

  while (written < length)
    {
      gsize chunk = length - written;
      gssize n;

      if (fail_after_bytes != G_MAXSIZE)
        {
          if (written >= fail_after_bytes)
            {
              *errsv = EIO;
              return FALSE;
            }
          chunk = MIN (chunk, fail_after_bytes - written);
        }

      n = write (fd, data + written, chunk);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          *errsv = errno;
          return FALSE;
        }

      written += n;
    }

  return TRUE;
}

static gboolean
set_save_error (GError     **error,
                const char  *path,
                const char  *what,
                int          errsv)
{
  g_autofree char *display = g_filename_display_name (path);

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
               "Could not save “%s”: %s: %s", display, what, g_strerror (errsv));

  return FALSE;
}

/* Writes a temporary file beside the target (rename only replaces atomically within one
 * file system), flushes it to disk, then renames it over the target: a crash leaves either
 * the old file or the new one, never a mix. */
static gboolean
write_atomically (const char    *path,
                  const char    *data,
                  gsize          length,
                  GCancellable  *cancellable,
                  GError       **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  struct stat st;
  int errsv = 0;
  int dir_fd;
  int fd;

  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0644);

  if (fd < 0)
    return set_save_error (error, path, "could not create a temporary file", errno);

  /* Keep the permissions the user gave the file. */
  if (stat (path, &st) == 0 && S_ISREG (st.st_mode))
    (void) fchmod (fd, st.st_mode & 07777);

  if (!write_all (fd, data, length, &errsv))
    {
      set_save_error (error, path, "could not write", errsv);
      goto failed;
    }

  if (fsync (fd) != 0)
    {
      set_save_error (error, path, "could not flush to disk", errno);
      goto failed;
    }

  if (close (fd) != 0)
    {
      fd = -1;
      set_save_error (error, path, "could not write", errno);
      goto failed;
    }
  fd = -1;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    goto failed;

  if (rename (tmp, path) != 0)
    {
      set_save_error (error, path, "could not replace the file", errno);
      goto failed;
    }

  /* Make the rename itself durable; the new file is in place either way. */
  dir_fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0)
    {
      if (fsync (dir_fd) != 0)
        g_debug ("Could not flush directory %s: %s", dir, g_strerror (errno));
      close (dir_fd);
    }

  return TRUE;

failed:
  if (fd >= 0)
    close (fd);
  g_unlink (tmp);

  return FALSE;
}

gboolean
relay_session_save (RelaySession  *self,
                    GFile         *file,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autoptr(JsonGenerator) generator = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *path = NULL;
  g_autofree char *data = NULL;
  g_autofree char *text = NULL;
  gsize length;

  g_return_val_if_fail (RELAY_IS_SESSION (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!(path = g_file_get_path (file)))
    {
      g_autofree char *uri = g_file_get_uri (file);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "Could not save “%s”: only local files can be saved atomically", uri);
      return FALSE;
    }

  /* Replace the file a link points to, not the link. */
  if (g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      char *real = realpath (path, NULL);

      if (real != NULL)
        {
          g_free (path);
          path = g_strdup (real);
          free (real);
        }
    }

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  /* Compact: a session holds thousands of chunk arrays, and pretty printing would put every
   * number of each on a line of its own. One trailing newline for the tools that want it. */
  root = relay_session_to_json (self);
  generator = json_generator_new ();
  json_generator_set_pretty (generator, FALSE);
  json_generator_set_root (generator, root);
  data = json_generator_to_data (generator, &length);
  text = g_strconcat (data, "\n", NULL);

  if (!write_atomically (path, text, length + 1, cancellable, error))
    return FALSE;

  relay_session_set_modified (self, FALSE);

  return TRUE;
}
