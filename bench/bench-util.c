/* bench-util.c: what the benchmark's parts share: results, statistics, child processes,
 * the simulated relay as a process of its own, and the process's CPU and memory figures.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"

/* Samples */

BenchSamples *
bench_samples_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (double));
}

void
bench_samples_add_ms (BenchSamples *samples,
                      double        ms)
{
  g_array_append_val (samples, ms);
}

void
bench_samples_add_us (BenchSamples *samples,
                      gint64        us)
{
  bench_samples_add_ms (samples, us / 1000.0);
}

void
bench_samples_stats (BenchSamples *samples,
                     RelayStats   *stats)
{
  g_autofree double *copy = g_memdup2 (samples->data, samples->len * sizeof (double));

  relay_stats_compute (copy, samples->len, stats);
}

void
bench_samples_abs_stats (BenchSamples *samples,
                         RelayStats   *stats)
{
  g_autofree double *copy = g_new (double, MAX (samples->len, 1));

  for (guint i = 0; i < samples->len; i++)
    copy[i] = fabs (g_array_index (samples, double, i));
  relay_stats_compute (copy, samples->len, stats);
}

static void
add_number (JsonBuilder *b,
            const char  *name,
            double       value)
{
  json_builder_set_member_name (b, name);
  if (isnan (value))
    json_builder_add_null_value (b);
  else
    json_builder_add_double_value (b, round (value * 1000.0) / 1000.0);
}

JsonNode *
bench_stats_to_json (const RelayStats *stats)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "n");
  json_builder_add_int_value (b, stats->n);
  add_number (b, "p50_ms", stats->p50);
  add_number (b, "p99_ms", stats->p99);
  add_number (b, "mean_ms", stats->mean);
  add_number (b, "min_ms", stats->min);
  add_number (b, "max_ms", stats->max);
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

/* Clocks, CPU, memory */

gint64
bench_now_us (void)
{
  return g_get_monotonic_time ();
}

void
bench_self_cpu_us (gint64 *user_us,
                   gint64 *sys_us)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  *user_us = usage.ru_utime.tv_sec * G_USEC_PER_SEC + usage.ru_utime.tv_usec;
  *sys_us = usage.ru_stime.tv_sec * G_USEC_PER_SEC + usage.ru_stime.tv_usec;
}

gint64
bench_pid_cpu_us (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *text = NULL;
  g_auto(GStrv) fields = NULL;
  const char *after_name;
  long ticks = sysconf (_SC_CLK_TCK);

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return -1;

  /* The command name is in parentheses and may hold spaces: count fields after it. */
  after_name = strrchr (text, ')');
  if (after_name == NULL)
    return -1;
  fields = g_strsplit (after_name + 2, " ", -1);
  if (g_strv_length (fields) < 13 || ticks <= 0)
    return -1;

  /* Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the name. */
  return (g_ascii_strtoll (fields[11], NULL, 10) + g_ascii_strtoll (fields[12], NULL, 10)) *
         G_USEC_PER_SEC / ticks;
}

gint64
bench_self_status_kb (const char *field)
{
  g_autofree char *text = NULL;
  g_autofree char *key = g_strconcat ("\n", field, ":", NULL);
  const char *p;

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return -1;

  p = strstr (text, key);
  if (p == NULL)
    return -1;

  return g_ascii_strtoll (p + strlen (key), NULL, 10);
}

gint64
bench_machine_busy_us (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) fields = NULL;
  long ticks = sysconf (_SC_CLK_TCK);
  gint64 busy = 0;

  if (!g_file_get_contents ("/proc/stat", &text, NULL, NULL) ||
      !g_str_has_prefix (text, "cpu ") || ticks <= 0)
    return -1;

  /* cpu user nice system idle iowait irq softirq steal: all but idle and iowait. */
  fields = g_strsplit_set (text + 4, " \n", 12);
  for (guint i = 0, column = 0; fields[i] != NULL && column < 8; i++)
    {
      if (*fields[i] == '\0')
        continue;
      if (column != 3 && column != 4)
        busy += g_ascii_strtoll (fields[i], NULL, 10);
      column++;
    }

  return busy * G_USEC_PER_SEC / ticks;
}

gint64
bench_tree_cpu_us (void)
{
  struct rusage self, children;

  getrusage (RUSAGE_SELF, &self);
  getrusage (RUSAGE_CHILDREN, &children);

  return (self.ru_utime.tv_sec + self.ru_stime.tv_sec +
          children.ru_utime.tv_sec + children.ru_stime.tv_sec) * G_USEC_PER_SEC +
         self.ru_utime.tv_usec + self.ru_stime.tv_usec +
         children.ru_utime.tv_usec + children.ru_stime.tv_usec;
}

double
bench_load_average (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    return -1;

  return g_ascii_strtod (text, NULL);
}

guint64
bench_raise_nofile (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) != 0)
    return 0;

  if (limit.rlim_cur < limit.rlim_max)
    {
      limit.rlim_cur = limit.rlim_max;
      if (setrlimit (RLIMIT_NOFILE, &limit) != 0)
        getrlimit (RLIMIT_NOFILE, &limit);
    }

  return limit.rlim_cur;
}

/* The simulated relay as a process */

struct _BenchSim
{
  GSubprocess *process;
  char        *config_path;
  char        *url;
  guint        port;
};

BenchSim *
bench_sim_start (const BenchConfig  *config,
                 const char         *profile_json,
                 GError            **error)
{
  g_autoptr(GDataInputStream) lines = NULL;
  g_autofree char *line = NULL;
  BenchSim *sim = g_new0 (BenchSim, 1);
  const char *colon;

  sim->config_path = g_build_filename (config->work_dir, "bench-sim-profile.json", NULL);
  if (!g_file_set_contents (sim->config_path, profile_json, -1, error))
    goto fail;

  /* Only 127.0.0.1: the benchmark never talks to anything else. */
  sim->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                   G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                                   error,
                                   config->sim_path, "--config", sim->config_path,
                                   "--host", "127.0.0.1", "--port", "0", NULL);
  if (sim->process == NULL)
    goto fail;

  lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (sim->process));
  line = g_data_input_stream_read_line_utf8 (lines, NULL, NULL, error);
  if (line == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                     "relayscope-sim exited without printing its URL");
      goto fail;
    }

  colon = strrchr (line, ':');
  if (!g_str_has_prefix (line, "http://127.0.0.1:") || colon == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "relayscope-sim printed an unexpected URL: %s", line);
      goto fail;
    }

  sim->url = g_steal_pointer (&line);
  sim->port = (guint) g_ascii_strtoull (colon + 1, NULL, 10);
  return sim;

fail:
  bench_sim_stop (sim);
  return NULL;
}

const char *
bench_sim_get_url (BenchSim *sim)
{
  return sim->url;
}

guint
bench_sim_get_port (BenchSim *sim)
{
  return sim->port;
}

GPid
bench_sim_get_pid (BenchSim *sim)
{
  const char *id = g_subprocess_get_identifier (sim->process);

  return id != NULL ? (GPid) atoi (id) : 0;
}

void
bench_sim_stop (BenchSim *sim)
{
  if (sim == NULL)
    return;

  if (sim->process != NULL)
    {
      g_subprocess_send_signal (sim->process, SIGTERM);
      g_subprocess_wait (sim->process, NULL, NULL);
    }

  if (sim->config_path != NULL)
    g_unlink (sim->config_path);

  g_clear_object (&sim->process);
  g_free (sim->config_path);
  g_free (sim->url);
  g_free (sim);
}

/* Running a plan in this process */

typedef struct
{
  gboolean  done;
  GError   *error;
} RunState;

static void
run_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  RunState *state = user_data;

  relay_prober_run_finish (RELAY_PROBER (object), result, &state->error);
  state->done = TRUE;
}

static char *
dummy_key (RelayEndpoint *endpoint,
           gpointer       user_data)
{
  return g_strdup ("dummy");
}

GError *
bench_run_plan (RelayProbePlan *plan,
                RelaySession   *session)
{
  g_autoptr(RelayProber) prober = relay_prober_new ();
  RunState state = { 0 };

  relay_prober_set_key_func (prober, dummy_key, NULL, NULL);
  relay_prober_run_async (prober, plan, session, NULL, run_done_cb, &state);

  while (!state.done)
    g_main_context_iteration (NULL, TRUE);

  return state.error;
}

/* Child processes */

JsonObject *
bench_run_child_json (const char * const  *argv,
                      GError             **error)
{
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *out = NULL;
  const char *last;
  gsize len;

  child = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, error);
  if (child == NULL)
    return NULL;

  if (!g_subprocess_communicate_utf8 (child, NULL, NULL, &out, NULL, error))
    return NULL;

  if (!g_subprocess_get_if_exited (child) || g_subprocess_get_exit_status (child) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s %s failed", argv[0], argv[1]);
      return NULL;
    }

  len = out != NULL ? strlen (out) : 0;
  while (len > 0 && out[len - 1] == '\n')
    out[--len] = '\0';
  last = out != NULL ? strrchr (out, '\n') : NULL;
  last = last != NULL ? last + 1 : out;

  if (last == NULL || !json_parser_load_from_data (parser, last, -1, error))
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s printed nothing", argv[0]);
      return NULL;
    }

  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s printed no JSON object", argv[0]);
      return NULL;
    }

  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

gint64
bench_find_sent_us (const char *text,
                    gsize       len)
{
  static const char key[] = "\"relayscope_sent_us\":";
  const char *p = g_strstr_len (text, len, key);

  if (p == NULL || p + strlen (key) >= text + len)
    return -1;

  return g_ascii_strtoll (p + strlen (key), NULL, 10);
}

/* The report */

static GString *report;

static GString *
get_report (void)
{
  if (report == NULL)
    report = g_string_new (NULL);
  return report;
}

void
bench_report_section (const char *title)
{
  g_string_append_printf (get_report (), "\n%s\n", title);
  for (const char *p = title; *p != '\0'; p = g_utf8_next_char (p))
    g_string_append_c (get_report (), '-');
  g_string_append_c (get_report (), '\n');
}

void
bench_report_row (const char *label,
                  const char *fmt,
                  ...)
{
  g_autofree char *text = NULL;
  va_list args;
  glong pad;

  va_start (args, fmt);
  text = g_strdup_vprintf (fmt, args);
  va_end (args);

  /* Pad by characters, not bytes: labels have "→" and "×". */
  pad = 38 - g_utf8_strlen (label, -1);
  g_string_append_printf (get_report (), "  %s%*s %s\n", label, (int) MAX (pad, 1), "", text);
}

void
bench_report_note (const char *fmt,
                   ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, fmt);
  text = g_strdup_vprintf (fmt, args);
  va_end (args);

  g_string_append_printf (get_report (), "  note: %s\n", text);
}

const char *
bench_report_get_text (void)
{
  return get_report ()->str;
}
