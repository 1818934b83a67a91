/* relay-sim-demo.c: a few simulated relays in-process for demo mode.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each relay has its own *.relayscope.test name with its own DNS delay and serves TLS with
 * the built-in certificate, so a demo probe shows every stage of the waterfall with no
 * account and no network.
 */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "relay-sim-demo.h"
#include "relay-sim-resolver.h"
#include "relay-sim-server.h"

typedef struct
{
  const char *profile;
  const char *api;
  guint       dns_delay_ms;
} DemoSpec;

static const DemoSpec specs[] = {
  { "fast", "openai-chat", 5 },
  { "congested", "openai-chat", 120 },
  { "buffering", "openai-chat", 15 },
  { "reasoning", "anthropic-messages", 30 },
};

struct _RelaySimDemo
{
  GPtrArray         *servers;
  RelaySimDemoRelay  relays[G_N_ELEMENTS (specs)];
  guint              n_relays;
  char              *ca_file;
};

static char *
write_ca_file (GError **error)
{
  g_autoptr(GBytes) pem = relay_sim_server_get_certificate_pem ();
  g_autofree char *path = NULL;
  const char *data;
  gsize len;
  int fd;

  if (pem == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "The simulated relay's certificate is missing");
      return NULL;
    }

  /* g_file_open_tmp creates the file with mode 0600 under a unique name. */
  if ((fd = g_file_open_tmp ("relayscope-sim-ca-XXXXXX.pem", &path, error)) < 0)
    return NULL;

  data = g_bytes_get_data (pem, &len);
  while (len > 0)
    {
      gssize n = write (fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Could not write %s: %s", path, g_strerror (saved));
          close (fd);
          g_unlink (path);
          return NULL;
        }
      data += n;
      len -= n;
    }

  if (close (fd) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not write %s: %s", path, g_strerror (saved));
      g_unlink (path);
      return NULL;
    }

  return g_steal_pointer (&path);
}

RelaySimDemo *
relay_sim_demo_start (GError **error)
{
  g_autoptr(RelaySimDemo) demo = g_new0 (RelaySimDemo, 1);

  demo->servers = g_ptr_array_new_with_free_func (g_object_unref);

  if (!(demo->ca_file = write_ca_file (error)))
    return NULL;

  relay_sim_resolver_install ();

  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      const DemoSpec *spec = &specs[i];
      RelaySimDemoRelay *relay = &demo->relays[i];
      g_autoptr(RelaySimServer) server = NULL;
      g_autofree char *host = g_strdup_printf ("%s.relayscope.test", spec->profile);
      g_autofree char *root = NULL;
      RelaySimProfile profile;

      relay_sim_profile_init_named (&profile, spec->profile);
      g_free (profile.model);
      profile.model = g_strdup_printf ("sim-%s-1", spec->profile);

      server = relay_sim_server_new (&profile);
      relay_sim_profile_clear (&profile);

      if (!relay_sim_server_start (server, 0, TRUE, error))
        return NULL;

      relay_sim_resolver_set_delay (host, spec->dns_delay_ms);

      root = relay_sim_server_dup_root_url (server, host);
      relay->name = g_strdup_printf ("Simulated: %s", spec->profile);
      relay->profile = g_strdup (spec->profile);
      relay->api = g_strdup (spec->api);
      relay->model = g_strdup_printf ("sim-%s-1", spec->profile);
      /* Base URLs as the vendors' SDKs take them: …/v1 for OpenAI, the root for Anthropic. */
      if (g_str_equal (spec->api, "openai-chat"))
        relay->base_url = g_strdup_printf ("%s/v1", root);
      else
        relay->base_url = g_steal_pointer (&root);

      demo->n_relays++;
      g_ptr_array_add (demo->servers, g_steal_pointer (&server));
    }

  return g_steal_pointer (&demo);
}

void
relay_sim_demo_free (RelaySimDemo *demo)
{
  if (demo == NULL)
    return;

  for (guint i = 0; i < demo->servers->len; i++)
    relay_sim_server_stop (g_ptr_array_index (demo->servers, i));
  g_ptr_array_unref (demo->servers);

  for (guint i = 0; i < demo->n_relays; i++)
    {
      g_free (demo->relays[i].name);
      g_free (demo->relays[i].profile);
      g_free (demo->relays[i].base_url);
      g_free (demo->relays[i].api);
      g_free (demo->relays[i].model);
    }

  if (demo->ca_file != NULL)
    g_unlink (demo->ca_file);
  g_free (demo->ca_file);
  g_free (demo);
}

guint
relay_sim_demo_get_n_relays (RelaySimDemo *demo)
{
  g_return_val_if_fail (demo != NULL, 0);

  return demo->n_relays;
}

const RelaySimDemoRelay *
relay_sim_demo_get_relay (RelaySimDemo *demo,
                          guint         i)
{
  g_return_val_if_fail (demo != NULL, NULL);
  g_return_val_if_fail (i < demo->n_relays, NULL);

  return &demo->relays[i];
}

const char *
relay_sim_demo_get_ca_file (RelaySimDemo *demo)
{
  g_return_val_if_fail (demo != NULL, NULL);

  return demo->ca_file;
}
