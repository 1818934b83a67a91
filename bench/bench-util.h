/* bench-util.h: what the benchmark's parts share: results, statistics, child processes,
 * the simulated relay as a process of its own, and the process's CPU and memory figures.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "relay-prober.h"
#include "relay-session.h"
#include "relay-stats.h"

G_BEGIN_DECLS

typedef struct
{
  const char *self_path;     /* this executable, re-run for child measurements */
  const char *sim_path;      /* relayscope-sim */
  const char *node_dir;      /* bench/node, or NULL */
  const char *work_dir;      /* scratch files and the cached session */
  guint       requests;      /* accuracy: requests per tool */
  guint      *levels;        /* capacity: concurrency levels */
  guint       n_levels;
  guint       frames;        /* drawing: frames timed after the first */
  guint       loads;         /* session: loads timed (each in a child) */
} BenchConfig;

/* A sample set in milliseconds. */
typedef GArray BenchSamples;

BenchSamples *bench_samples_new          (void);
void          bench_samples_add_us       (BenchSamples  *samples,
                                          gint64         us);
void          bench_samples_add_ms       (BenchSamples  *samples,
                                          double         ms);
/* Stats of the samples (copied, so the samples keep their order). */
void          bench_samples_stats        (BenchSamples  *samples,
                                          RelayStats    *stats);
/* Stats of the absolute values: an error's size whatever its sign. */
void          bench_samples_abs_stats    (BenchSamples  *samples,
                                          RelayStats    *stats);
/* {"n", "p50_ms", "p99_ms", "mean_ms", "min_ms", "max_ms"} of the samples. */
JsonNode     *bench_stats_to_json        (const RelayStats *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BenchSamples, g_array_unref)

/* The machine's own monotonic clock, in µs (the clock of g_get_monotonic_time). */
gint64        bench_now_us               (void);
/* CPU time of this process (user, system) in µs. */
void          bench_self_cpu_us          (gint64        *user_us,
                                          gint64        *sys_us);
/* CPU time (user + system) of another process, in µs, or -1. */
gint64        bench_pid_cpu_us           (GPid           pid);
/* A /proc/self/status field in kB (VmHWM, VmRSS), or -1. */
gint64        bench_self_status_kb       (const char    *field);
/* CPU time all processes spent busy since boot, in µs (from /proc/stat), or -1. */
gint64        bench_machine_busy_us      (void);
/* CPU time of this process and its waited-for children, in µs. */
gint64        bench_tree_cpu_us          (void);
/* The 1-minute load average, or -1. */
double        bench_load_average         (void);
/* Lifts the soft limit of open files to the hard limit; returns the new soft limit. */
guint64       bench_raise_nofile         (void);

/* The simulated relay as a separate process on 127.0.0.1, from a profile in JSON. */
typedef struct _BenchSim BenchSim;

BenchSim     *bench_sim_start            (const BenchConfig *config,
                                          const char    *profile_json,
                                          GError       **error);
const char   *bench_sim_get_url          (BenchSim      *sim);  /* http://127.0.0.1:PORT */
guint         bench_sim_get_port         (BenchSim      *sim);
GPid          bench_sim_get_pid          (BenchSim      *sim);
void          bench_sim_stop             (BenchSim      *sim);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BenchSim, bench_sim_stop)

/* Runs plan into session in this process and waits; NULL or the run's error. */
GError       *bench_run_plan             (RelayProbePlan *plan,
                                          RelaySession  *session);

/* Runs argv, waits, and parses its standard output's last line as a JSON object. */
JsonObject   *bench_run_child_json       (const char * const *argv,
                                          GError       **error);

/* The first "relayscope_sent_us" number in text[0..len), or -1. */
gint64        bench_find_sent_us         (const char    *text,
                                          gsize          len);

/* Results: one row per tool × measure, kept for the table and the JSON. */
void          bench_report_section       (const char    *title);
void          bench_report_row           (const char    *label,
                                          const char    *fmt,
                                          ...) G_GNUC_PRINTF (2, 3);
void          bench_report_note          (const char    *fmt,
                                          ...) G_GNUC_PRINTF (1, 2);
const char   *bench_report_get_text      (void);

G_END_DECLS
