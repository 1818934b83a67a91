/* relayscope-bench.c: the benchmark: timing accuracy against curl and the openai npm client,
 * capacity under concurrent streams, painter frame times and session opening. Prints a table
 * and writes the figures as JSON.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "bench-accuracy.h"
#include "bench-capacity.h"
#include "bench-draw.h"

static char *
cpu_model (void)
{
  g_autofree char *text = NULL;
  const char *p;
  const char *end;

  if (!g_file_get_contents ("/proc/cpuinfo", &text, NULL, NULL) ||
      (p = strstr (text, "model name")) == NULL ||
      (p = strchr (p, ':')) == NULL)
    return g_strdup ("unknown");

  p++;
  while (*p == ' ')
    p++;
  end = strchr (p, '\n');

  return g_strndup (p, end != NULL ? (gsize) (end - p) : strlen (p));
}

static gboolean
parse_levels (const char  *text,
              BenchConfig *config)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  guint n = g_strv_length (parts);

  config->levels = g_new0 (guint, MAX (n, 1));
  config->n_levels = 0;
  for (guint i = 0; i < n; i++)
    {
      guint64 level;

      if (!g_ascii_string_to_unsigned (g_strstrip (parts[i]), 10, 1, 5000, &level, NULL))
        return FALSE;
      config->levels[config->n_levels++] = (guint) level;
    }

  return config->n_levels > 0;
}

typedef JsonNode *(*SectionFunc) (const BenchConfig *config,
                                  GError           **error);

/* Runs one part and notes how busy the rest of the machine was meanwhile: on a shared
 * machine, other processes' load shows up as lag and slow frames. */
static void
run_section (JsonBuilder       *b,
             const char        *name,
             SectionFunc        func,
             const BenchConfig *config)
{
  g_autoptr(GError) error = NULL;
  gint64 busy0 = bench_machine_busy_us ();
  gint64 ours0 = bench_tree_cpu_us ();
  gint64 t0 = g_get_monotonic_time ();
  JsonNode *node = func (config, &error);
  gint64 busy1 = bench_machine_busy_us ();
  gint64 ours1 = bench_tree_cpu_us ();
  gint64 t1 = g_get_monotonic_time ();
  double others = busy0 >= 0 && busy1 >= 0
                  ? MAX (0.0, (double) ((busy1 - busy0) - (ours1 - ours0)) / (t1 - t0))
                  : -1;
  double load = bench_load_average ();

  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);

      json_object_set_double_member (object, "duration_s", (t1 - t0) / 1e6);
      json_object_set_double_member (object, "other_processes_cpus", others);
      json_object_set_double_member (object, "load_average_1min", load);
      bench_report_note ("meanwhile other processes kept %.2f of the %u CPUs busy (load average "
                         "%.2f); this part took %.0f s",
                         others, g_get_num_processors (), load, (t1 - t0) / 1e6);
    }

  json_builder_set_member_name (b, name);
  if (node != NULL)
    json_builder_add_value (b, node);
  else
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "failed");
      json_builder_add_string_value (b, error ? error->message : "unknown error");
      json_builder_end_object (b);
      g_printerr ("bench: %s failed: %s\n", name, error ? error->message : "unknown error");
      bench_report_note ("%s failed: %s", name, error ? error->message : "unknown error");
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *sim_path = NULL;
  g_autofree char *node_dir = NULL;
  g_autofree char *output = NULL;
  g_autofree char *levels = NULL;
  g_autofree char *child_url = NULL;
  g_autofree char *child_session = NULL;
  g_autofree char *self_path = NULL;
  g_autofree char *work_dir = NULL;
  g_auto(GStrv) only = NULL;
  int requests = 50;
  int frames = 15;
  int loads = 3;
  int child_capacity = 0;
  int child_streams = 0;
  double child_rate = 0;
  BenchConfig config = { 0 };
  GOptionEntry entries[] = {
    { "sim", 0, 0, G_OPTION_ARG_FILENAME, &sim_path, "The relayscope-sim executable", "PATH" },
    { "node-dir", 0, 0, G_OPTION_ARG_FILENAME, &node_dir,
      "Directory of openai-stream.mjs and its node_modules (the openai npm client)", "DIR" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Where to write the JSON results (default: bench-results.json)", "FILE" },
    { "only", 0, 0, G_OPTION_ARG_STRING_ARRAY, &only,
      "Run only this part: accuracy, capacity or drawing (repeatable)", "PART" },
    { "requests", 0, 0, G_OPTION_ARG_INT, &requests, "Accuracy: requests per client (50)", "N" },
    { "levels", 0, 0, G_OPTION_ARG_STRING, &levels,
      "Capacity: concurrency levels (1,50,200,500)", "LIST" },
    { "frames", 0, 0, G_OPTION_ARG_INT, &frames, "Drawing: frames timed after the first (15)",
      "N" },
    { "loads", 0, 0, G_OPTION_ARG_INT, &loads, "Session: times the session is opened (3)", "N" },
    { "child-capacity", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &child_capacity, NULL, NULL },
    { "streams", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &child_streams, NULL, NULL },
    { "rate", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_DOUBLE, &child_rate, NULL, NULL },
    { "url", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &child_url, NULL, NULL },
    { "child-session-load", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &child_session,
      NULL, NULL },
    { NULL }
  };
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) generator = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *date = g_date_time_format_iso8601 (now);
  g_autofree char *cpu = cpu_model ();
  struct utsname uts;
  gint64 t_start = g_get_monotonic_time ();
  guint64 nofile;
  double load_start = bench_load_average ();

  setlocale (LC_ALL, "");

  context = g_option_context_new ("- measure Relayscope's accuracy, capacity and drawing");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("relayscope-bench: %s\n", error->message);
      return 2;
    }

  /* Many connections at once: each probe and each relay stream holds a socket. */
  nofile = bench_raise_nofile ();

  if (child_capacity > 0)
    return bench_capacity_child (child_capacity, MAX (child_streams, child_capacity),
                                 child_rate, child_url);
  if (child_session != NULL)
    return bench_session_load_child (child_session);

  if (sim_path == NULL)
    {
      g_printerr ("relayscope-bench: --sim is required\n");
      return 2;
    }
  if (requests < 1 || frames < 1 || loads < 1 ||
      !parse_levels (levels != NULL ? levels : "1,50,200,500", &config))
    {
      g_printerr ("relayscope-bench: --requests, --frames and --loads must be positive and "
                  "--levels a list like 1,50,200,500\n");
      return 2;
    }

  for (guint i = 0; only != NULL && only[i] != NULL; i++)
    {
      if (g_strcmp0 (only[i], "accuracy") != 0 && g_strcmp0 (only[i], "capacity") != 0 &&
          g_strcmp0 (only[i], "drawing") != 0)
        {
          g_printerr ("relayscope-bench: --only takes accuracy, capacity or drawing, not “%s”\n",
                      only[i]);
          return 2;
        }
    }

  if (output == NULL)
    output = g_strdup ("bench-results.json");
  if (!g_path_is_absolute (output))
    {
      g_autofree char *cwd = g_get_current_dir ();
      char *abs = g_build_filename (cwd, output, NULL);

      g_free (output);
      output = abs;
    }
  work_dir = g_path_get_dirname (output);
  self_path = g_file_read_link ("/proc/self/exe", NULL);

  config.self_path = self_path != NULL ? self_path : argv[0];
  config.sim_path = sim_path;
  config.node_dir = node_dir;
  config.work_dir = work_dir;
  config.requests = requests;
  config.frames = frames;
  config.loads = loads;

  uname (&uts);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, "relayscope-bench");
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, 1);
  json_builder_set_member_name (b, "relayscope_version");
  json_builder_add_string_value (b, PACKAGE_VERSION);
  json_builder_set_member_name (b, "date");
  json_builder_add_string_value (b, date);
  json_builder_set_member_name (b, "machine");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "cpus");
  json_builder_add_int_value (b, g_get_num_processors ());
  json_builder_set_member_name (b, "cpu_model");
  json_builder_add_string_value (b, cpu);
  json_builder_set_member_name (b, "kernel");
  json_builder_add_string_value (b, uts.release);
  json_builder_set_member_name (b, "open_files_limit");
  json_builder_add_int_value (b, nofile);
  json_builder_set_member_name (b, "load_average_1min_at_start");
  json_builder_add_double_value (b, load_start);
  json_builder_end_object (b);

  if (only == NULL || g_strv_contains ((const char * const *) only, "accuracy"))
    run_section (b, "accuracy", bench_accuracy_run, &config);
  if (only == NULL || g_strv_contains ((const char * const *) only, "capacity"))
    run_section (b, "capacity", bench_capacity_run, &config);
  if (only == NULL || g_strv_contains ((const char * const *) only, "drawing"))
    run_section (b, "drawing", bench_draw_run, &config);

  json_builder_set_member_name (b, "duration_s");
  json_builder_add_double_value (b, (g_get_monotonic_time () - t_start) / 1e6);
  json_builder_end_object (b);

  generator = json_generator_new ();
  json_generator_set_pretty (generator, TRUE);
  json_generator_set_root (generator, json_builder_get_root (b));
  if (!json_generator_to_file (generator, output, &error))
    {
      g_printerr ("relayscope-bench: %s\n", error->message);
      return 1;
    }

  printf ("Relayscope benchmark — %s, %u CPUs (%s), Linux %s, load average %.2f at the "
          "start\n", date, g_get_num_processors (), cpu, uts.release, load_start);
  printf ("%s", bench_report_get_text ());
  printf ("\nTook %.0f s. Results: %s\n", (g_get_monotonic_time () - t_start) / 1e6, output);

  g_free (config.levels);
  return 0;
}
