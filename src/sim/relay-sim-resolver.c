/* relay-sim-resolver.c: a GResolver that answers *.relayscope.test with loopback after a
 * chosen delay and hands every other name to the resolver it replaced.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * It lets the demo and the tests show a DNS segment of a known length without any network.
 * The delay is a timer on the caller's thread-default context, never a sleep, so a UI or a
 * prober using the asynchronous API is not blocked; only the synchronous variant sleeps.
 */

#include "config.h"

#include <string.h>

#include "relay-sim-resolver.h"

#define TEST_DOMAIN "relayscope.test"

#define RELAY_TYPE_SIM_RESOLVER (relay_sim_resolver_get_type ())
G_DECLARE_FINAL_TYPE (RelaySimResolver, relay_sim_resolver, RELAY, SIM_RESOLVER, GResolver)

struct _RelaySimResolver
{
  GResolver  parent_instance;
  GResolver *fallback;
};

G_DEFINE_FINAL_TYPE (RelaySimResolver, relay_sim_resolver, G_TYPE_RESOLVER)

G_LOCK_DEFINE_STATIC (delays);
static GHashTable *delays;       /* lower-case host → delay in ms */
static guint default_delay_ms;
static gboolean installed;
static guint n_forwarded;

typedef struct
{
  char                    *hostname;
  GResolverNameLookupFlags flags;
} Lookup;

static void
lookup_free (Lookup *lookup)
{
  g_free (lookup->hostname);
  g_free (lookup);
}

static char *
normalize_host (const char *hostname)
{
  g_autofree char *lower = g_ascii_strdown (hostname, -1);
  gsize len = strlen (lower);

  /* "fast.relayscope.test." is the same name as "fast.relayscope.test". */
  if (len > 0 && lower[len - 1] == '.')
    lower[len - 1] = '\0';

  return g_steal_pointer (&lower);
}

static gboolean
is_test_name (const char *hostname)
{
  g_autofree char *host = normalize_host (hostname);

  return strcmp (host, TEST_DOMAIN) == 0 || g_str_has_suffix (host, "." TEST_DOMAIN);
}

static guint
get_delay (const char *hostname)
{
  g_autofree char *host = normalize_host (hostname);
  gpointer value;
  guint delay;

  G_LOCK (delays);
  if (delays != NULL && g_hash_table_lookup_extended (delays, host, NULL, &value))
    delay = GPOINTER_TO_UINT (value);
  else
    delay = default_delay_ms;
  G_UNLOCK (delays);

  return delay;
}

/* The answer for a test name: loopback over IPv4, no IPv6 records, and no such name for
 * "nxdomain.…" so that tests can see a lookup fail. */
static GList *
answer (const char                *hostname,
        GResolverNameLookupFlags   flags,
        GError                   **error)
{
  g_autofree char *host = normalize_host (hostname);

  if (strcmp (host, "nxdomain." TEST_DOMAIN) == 0 || g_str_has_prefix (host, "nxdomain."))
    {
      g_set_error (error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND,
                   "Error resolving “%s”: Name or service not known", hostname);
      return NULL;
    }

  if (flags & G_RESOLVER_NAME_LOOKUP_FLAGS_IPV6_ONLY)
    {
      g_set_error (error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND,
                   "No IPv6 address for “%s”", hostname);
      return NULL;
    }

  return g_list_prepend (NULL, g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4));
}

static void
free_address_list (gpointer data)
{
  g_resolver_free_addresses (data);
}

static gboolean
answer_cb (gpointer data)
{
  GTask *task = data;
  Lookup *lookup = g_task_get_task_data (task);
  GError *error = NULL;
  GList *addresses;

  if (!g_task_return_error_if_cancelled (task))
    {
      if ((addresses = answer (lookup->hostname, lookup->flags, &error)))
        g_task_return_pointer (task, addresses, free_address_list);
      else
        g_task_return_error (task, error);
    }

  /* Drops the reference the lookup took when it attached this source. */
  g_object_unref (task);

  return G_SOURCE_REMOVE;
}

static void
forward_name_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      data)
{
  g_autoptr(GTask) task = data;
  GError *error = NULL;
  GList *addresses;

  addresses = g_resolver_lookup_by_name_with_flags_finish (G_RESOLVER (source), result, &error);
  if (addresses != NULL)
    g_task_return_pointer (task, addresses, free_address_list);
  else
    g_task_return_error (task, error);
}

static void
relay_sim_resolver_lookup_by_name_with_flags_async (GResolver                *resolver,
                                                    const char               *hostname,
                                                    GResolverNameLookupFlags  flags,
                                                    GCancellable             *cancellable,
                                                    GAsyncReadyCallback       callback,
                                                    gpointer                  user_data)
{
  RelaySimResolver *self = RELAY_SIM_RESOLVER (resolver);
  g_autoptr(GTask) task = NULL;
  g_autoptr(GSource) timeout = NULL;
  Lookup *lookup;

  task = g_task_new (resolver, cancellable, callback, user_data);
  g_task_set_source_tag (task, relay_sim_resolver_lookup_by_name_with_flags_async);
  g_task_set_name (task, "[relayscope-sim] lookup");

  if (!is_test_name (hostname))
    {
      g_atomic_int_inc (&n_forwarded);
      g_resolver_lookup_by_name_with_flags_async (self->fallback, hostname, flags, cancellable,
                                                  forward_name_cb, g_steal_pointer (&task));
      return;
    }

  lookup = g_new0 (Lookup, 1);
  lookup->hostname = g_strdup (hostname);
  lookup->flags = flags;
  g_task_set_task_data (task, lookup, (GDestroyNotify) lookup_free);

  timeout = g_timeout_source_new (get_delay (hostname));
  g_task_attach_source (task, timeout, answer_cb);
  g_steal_pointer (&task);
}

static GList *
relay_sim_resolver_lookup_by_name_with_flags_finish (GResolver     *resolver,
                                                     GAsyncResult  *result,
                                                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, resolver), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
relay_sim_resolver_lookup_by_name_async (GResolver           *resolver,
                                         const char          *hostname,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  relay_sim_resolver_lookup_by_name_with_flags_async (resolver, hostname,
                                                      G_RESOLVER_NAME_LOOKUP_FLAGS_DEFAULT,
                                                      cancellable, callback, user_data);
}

static GList *
relay_sim_resolver_lookup_by_name_with_flags (GResolver                 *resolver,
                                              const char                *hostname,
                                              GResolverNameLookupFlags   flags,
                                              GCancellable              *cancellable,
                                              GError                   **error)
{
  RelaySimResolver *self = RELAY_SIM_RESOLVER (resolver);
  guint delay;

  if (!is_test_name (hostname))
    {
      g_atomic_int_inc (&n_forwarded);
      return g_resolver_lookup_by_name_with_flags (self->fallback, hostname, flags,
                                                   cancellable, error);
    }

  if ((delay = get_delay (hostname)) > 0)
    g_usleep ((gulong) delay * 1000);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  return answer (hostname, flags, error);
}

static GList *
relay_sim_resolver_lookup_by_name (GResolver     *resolver,
                                   const char    *hostname,
                                   GCancellable  *cancellable,
                                   GError       **error)
{
  return relay_sim_resolver_lookup_by_name_with_flags (resolver, hostname,
                                                       G_RESOLVER_NAME_LOOKUP_FLAGS_DEFAULT,
                                                       cancellable, error);
}

/* Reverse lookups, services and records are only ever forwarded. */

static char *
relay_sim_resolver_lookup_by_address (GResolver     *resolver,
                                      GInetAddress  *address,
                                      GCancellable  *cancellable,
                                      GError       **error)
{
  g_atomic_int_inc (&n_forwarded);
  return g_resolver_lookup_by_address (RELAY_SIM_RESOLVER (resolver)->fallback, address,
                                       cancellable, error);
}

static void
forward_address_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      data)
{
  g_autoptr(GTask) task = data;
  GError *error = NULL;
  char *name;

  if ((name = g_resolver_lookup_by_address_finish (G_RESOLVER (source), result, &error)))
    g_task_return_pointer (task, name, g_free);
  else
    g_task_return_error (task, error);
}

static void
relay_sim_resolver_lookup_by_address_async (GResolver           *resolver,
                                            GInetAddress        *address,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data)
{
  GTask *task = g_task_new (resolver, cancellable, callback, user_data);

  g_task_set_source_tag (task, relay_sim_resolver_lookup_by_address_async);
  g_atomic_int_inc (&n_forwarded);
  g_resolver_lookup_by_address_async (RELAY_SIM_RESOLVER (resolver)->fallback, address,
                                      cancellable, forward_address_cb, task);
}

static char *
relay_sim_resolver_lookup_by_address_finish (GResolver     *resolver,
                                             GAsyncResult  *result,
                                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, resolver), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
free_record_list (gpointer data)
{
  g_list_free_full (data, (GDestroyNotify) g_variant_unref);
}

static GList *
relay_sim_resolver_lookup_records (GResolver            *resolver,
                                   const char           *rrname,
                                   GResolverRecordType   record_type,
                                   GCancellable         *cancellable,
                                   GError              **error)
{
  g_atomic_int_inc (&n_forwarded);
  return g_resolver_lookup_records (RELAY_SIM_RESOLVER (resolver)->fallback, rrname,
                                    record_type, cancellable, error);
}

static void
forward_records_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      data)
{
  g_autoptr(GTask) task = data;
  GError *error = NULL;
  GList *records;

  if ((records = g_resolver_lookup_records_finish (G_RESOLVER (source), result, &error)))
    g_task_return_pointer (task, records, free_record_list);
  else
    g_task_return_error (task, error);
}

static void
relay_sim_resolver_lookup_records_async (GResolver           *resolver,
                                         const char          *rrname,
                                         GResolverRecordType  record_type,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  GTask *task = g_task_new (resolver, cancellable, callback, user_data);

  g_task_set_source_tag (task, relay_sim_resolver_lookup_records_async);
  g_atomic_int_inc (&n_forwarded);
  g_resolver_lookup_records_async (RELAY_SIM_RESOLVER (resolver)->fallback, rrname,
                                   record_type, cancellable, forward_records_cb, task);
}

static GList *
relay_sim_resolver_lookup_records_finish (GResolver     *resolver,
                                          GAsyncResult  *result,
                                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, resolver), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* GResolver's lookup_service is written on top of lookup_records, so forwarding those covers
 * SRV lookups too. */

static void
relay_sim_resolver_finalize (GObject *object)
{
  RelaySimResolver *self = (RelaySimResolver *) object;

  g_clear_object (&self->fallback);

  G_OBJECT_CLASS (relay_sim_resolver_parent_class)->finalize (object);
}

static void
relay_sim_resolver_class_init (RelaySimResolverClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GResolverClass *resolver_class = G_RESOLVER_CLASS (klass);

  object_class->finalize = relay_sim_resolver_finalize;

  resolver_class->lookup_by_name = relay_sim_resolver_lookup_by_name;
  resolver_class->lookup_by_name_async = relay_sim_resolver_lookup_by_name_async;
  resolver_class->lookup_by_name_finish = relay_sim_resolver_lookup_by_name_with_flags_finish;
  resolver_class->lookup_by_name_with_flags = relay_sim_resolver_lookup_by_name_with_flags;
  resolver_class->lookup_by_name_with_flags_async = relay_sim_resolver_lookup_by_name_with_flags_async;
  resolver_class->lookup_by_name_with_flags_finish = relay_sim_resolver_lookup_by_name_with_flags_finish;
  resolver_class->lookup_by_address = relay_sim_resolver_lookup_by_address;
  resolver_class->lookup_by_address_async = relay_sim_resolver_lookup_by_address_async;
  resolver_class->lookup_by_address_finish = relay_sim_resolver_lookup_by_address_finish;
  resolver_class->lookup_records = relay_sim_resolver_lookup_records;
  resolver_class->lookup_records_async = relay_sim_resolver_lookup_records_async;
  resolver_class->lookup_records_finish = relay_sim_resolver_lookup_records_finish;
}

static void
relay_sim_resolver_init (RelaySimResolver *self)
{
}

void
relay_sim_resolver_install (void)
{
  static GMutex install_lock;
  g_autoptr(GResolver) previous = NULL;
  g_autoptr(RelaySimResolver) self = NULL;

  g_mutex_lock (&install_lock);

  if (installed)
    {
      g_mutex_unlock (&install_lock);
      return;
    }

  previous = g_resolver_get_default ();
  self = g_object_new (RELAY_TYPE_SIM_RESOLVER, NULL);
  self->fallback = g_steal_pointer (&previous);
  g_resolver_set_default (G_RESOLVER (self));
  installed = TRUE;

  g_mutex_unlock (&install_lock);
}

void
relay_sim_resolver_set_delay (const char *host,
                              guint       delay_ms)
{
  G_LOCK (delays);
  if (host == NULL)
    default_delay_ms = delay_ms;
  else
    {
      if (delays == NULL)
        delays = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_replace (delays, normalize_host (host), GUINT_TO_POINTER (delay_ms));
    }
  G_UNLOCK (delays);
}

guint
relay_sim_resolver_get_n_forwarded (void)
{
  return (guint) g_atomic_int_get (&n_forwarded);
}
