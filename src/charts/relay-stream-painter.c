/* relay-stream-painter.c: inter-chunk gaps, cumulative output and gap distributions, each
 * reduced to one min/max (or one value) per pixel column before anything is drawn.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <pango/pangocairo.h>

#include "relay-run.h"
#include "relay-stats.h"
#include "relay-stream-painter.h"

#define PAD            8.0
#define TITLE_HEIGHT   26.0
#define AXIS_LEFT      78.0
#define AXIS_BOTTOM    40.0
#define LEGEND_LINE    18.0
#define LEGEND_MAX     12
#define LEGEND_SWATCH  20.0   /* swatch and the gap after it */
#define LEGEND_SPACING 24.0   /* between items on a line */
#define MANY_SERIES    6      /* more traces than this are coloured by endpoint × model */
#define STALL_RADIUS   3.0
#define MIN_LOG_GAP    0.01   /* ms; coalesced chunks share a timestamp */

typedef struct
{
  RelayTrace *trace;        /* owned */
  gint64      origin_us;    /* GAPS: first token; CUMULATIVE: start (0) */
  double      scale;        /* CUMULATIVE: units per character */
  double      max_x;
  double      max_y;
  double      threshold;    /* ms: this trace's stall threshold */
  guint       n_points;
  guint       group;        /* index into groups */
  guint       color;        /* index into the series palette */
} Series;

/* The traces of one endpoint × model. */
typedef struct
{
  char   *endpoint;
  char   *model;
  char   *label;            /* compact: "fast", or "relay · model-a" for a multi-model endpoint */
  guint   n_traces;
  GArray *gaps;             /* DISTRIBUTION only: sorted, ms */
  double  p50, p95, p99;
  double  threshold;        /* DISTRIBUTION: the group's stall threshold */
} Group;

typedef struct
{
  char   *text;
  guint   color;            /* palette index; G_MAXUINT for the threshold entry */
  double  width;            /* swatch, text and spacing, in pixels */
} LegendItem;

typedef struct
{
  double x0, x1, y0, y1;    /* data ranges */
  gboolean log_x;
  cairo_rectangle_t area;   /* plot area */
} Axes;

struct _RelayStreamPainter
{
  GObject           parent_instance;

  GListModel       *traces;
  RelaySession     *session;
  gulong            items_changed_id;

  RelayStreamMode   mode;
  RelayStreamUnits  units;
  gboolean          log_scale;
  double            stall_threshold;

  RelayChartStyle   style;
  char             *title;
  gboolean          show_title;
  gboolean          show_legend;
  gboolean          show_axis;

  /* Cache. */
  gboolean          dirty;
  GArray           *series;   /* of Series */
  GPtrArray        *groups;   /* of Group */
  GArray           *legend;   /* of LegendItem */
  PangoContext     *measure;  /* measures legend labels */
  gboolean          color_by_group;
  gboolean          uniform_threshold;
  double            auto_threshold;
  double            min_gap;
  double            max_gap;
  guint             n_gaps;
  guint64           generation;     /* bumped whenever the data may have changed */

  /* The plot as last drawn, reused while nothing it depends on changes: a million chunks
   * take far longer than a frame to reduce, and most frames redraw the same picture. */
  cairo_surface_t  *plot_cache;
  guint64           plot_generation;
  RelayStreamMode   plot_mode;
  RelayStreamUnits  plot_units;
  gboolean          plot_log_scale;
  double            plot_threshold;
  RelayChartStyle   plot_style;
  Axes              plot_axes;
};

enum {
  PROP_0,
  PROP_MODE,
  PROP_UNITS,
  PROP_LOG_SCALE,
  PROP_STALL_THRESHOLD,
  PROP_TITLE,
  PROP_SHOW_TITLE,
  PROP_SHOW_LEGEND,
  PROP_SHOW_AXIS,
  N_PROPS
};

enum {
  CHANGED,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RelayStreamPainter, relay_stream_painter, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
series_clear (gpointer data)
{
  Series *series = data;

  g_clear_object (&series->trace);
}

static void
group_free (gpointer data)
{
  Group *group = data;

  g_free (group->endpoint);
  g_free (group->model);
  g_free (group->label);
  g_array_unref (group->gaps);
  g_free (group);
}

static void
legend_item_clear (gpointer data)
{
  LegendItem *item = data;

  g_clear_pointer (&item->text, g_free);
}

static void
mark_dirty (RelayStreamPainter *self)
{
  self->dirty = TRUE;
  self->generation++;
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
on_items_changed (GListModel         *model,
                  guint               position,
                  guint               removed,
                  guint               added,
                  RelayStreamPainter *self)
{
  mark_dirty (self);
}

static void
trace_names (RelayStreamPainter  *self,
             RelayTrace          *trace,
             const char         **endpoint,
             const char         **model)
{
  RelayRun *run = NULL;

  if (self->session != NULL)
    run = relay_session_get_run (self->session, relay_trace_get_run (trace));

  *endpoint = run != NULL ? relay_run_get_endpoint (run) : NULL;
  *model = run != NULL ? relay_run_get_model (run) : NULL;
}

/* A trace's label: its group's compact label and its number, "fast #2". */
static char *
series_label (RelayStreamPainter *self,
              const Series       *series)
{
  const Group *group = g_ptr_array_index (self->groups, series->group);

  return g_strdup_printf ("%s #%u", group->label, relay_trace_get_seq (series->trace));
}

/* The k-th smallest value (0-based); reorders values. Linear on average, which matters for a
 * million gaps redrawn while a probe streams. */
static double
select_kth (double *values,
            guint   n,
            guint   k)
{
  guint lo = 0, hi = n - 1;

  while (lo < hi)
    {
      double pivot = values[lo + (hi - lo) / 2];
      guint i = lo, j = hi;

      while (i <= j)
        {
          while (values[i] < pivot)
            i++;
          while (values[j] > pivot)
            j--;
          if (i <= j)
            {
              double tmp = values[i];

              values[i] = values[j];
              values[j] = tmp;
              i++;
              if (j == 0)
                break;
              j--;
            }
        }

      if (k <= j)
        hi = j;
      else if (k >= i)
        lo = i;
      else
        break;
    }

  return values[k];
}

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double da = *(const double *) a;
  double db = *(const double *) b;

  return da < db ? -1 : da > db;
}

static double
auto_threshold_for (double median)
{
  return MAX (4.0 * median, 50.0);
}

static guint
find_group (RelayStreamPainter *self,
            GHashTable         *index,
            RelayTrace         *trace)
{
  const char *endpoint, *model;
  g_autofree char *key = NULL;
  gpointer value;
  Group *group;

  trace_names (self, trace, &endpoint, &model);
  if (endpoint != NULL)
    key = g_strdup_printf ("%s\n%s", endpoint, model != NULL ? model : "");
  else
    key = g_strdup_printf ("\n%u", relay_trace_get_run (trace));

  if (g_hash_table_lookup_extended (index, key, NULL, &value))
    return GPOINTER_TO_UINT (value);

  group = g_new0 (Group, 1);
  group->endpoint = endpoint != NULL ? g_strdup (endpoint)
                                     : g_strdup_printf (_("Run %u"), relay_trace_get_run (trace));
  group->model = g_strdup (model);
  group->gaps = g_array_new (FALSE, FALSE, sizeof (double));
  g_ptr_array_add (self->groups, group);
  g_hash_table_insert (index, g_steal_pointer (&key), GUINT_TO_POINTER (self->groups->len - 1));

  return self->groups->len - 1;
}

/* Short labels: the endpoint alone, with the model only when that endpoint shows several. */
static void
label_groups (RelayStreamPainter *self)
{
  for (guint g = 0; g < self->groups->len; g++)
    {
      Group *group = g_ptr_array_index (self->groups, g);
      gboolean several_models = FALSE;

      for (guint h = 0; h < self->groups->len && !several_models; h++)
        {
          const Group *other = g_ptr_array_index (self->groups, h);

          several_models = h != g && g_strcmp0 (other->endpoint, group->endpoint) == 0;
        }

      g_free (group->label);
      if (several_models && group->model != NULL && group->model[0] != '\0')
        group->label = g_strdup_printf ("%s · %s", relay_chart_short_endpoint_name (group->endpoint), group->model);
      else
        group->label = g_strdup (relay_chart_short_endpoint_name (group->endpoint));
    }
}

static void
add_legend_item (RelayStreamPainter *self,
                 char               *text,
                 guint               color)
{
  LegendItem item = { text, color, 0 };

  g_array_append_val (self->legend, item);
}

static char *format_measured_ms (double ms);

static void
build_legend (RelayStreamPainter *self)
{
  g_autoptr(PangoLayout) layout = NULL;
  g_autoptr(PangoFontDescription) font = NULL;
  gboolean distribution = self->mode == RELAY_STREAM_MODE_DISTRIBUTION;
  guint n;

  g_array_set_size (self->legend, 0);

  if (distribution || self->color_by_group)
    {
      n = self->groups->len;
      for (guint g = 0; g < MIN (n, LEGEND_MAX); g++)
        {
          const Group *group = g_ptr_array_index (self->groups, g);

          if (distribution)
            {
              g_autofree char *p50 = format_measured_ms (group->p50);
              g_autofree char *p95 = format_measured_ms (group->p95);
              g_autofree char *p99 = format_measured_ms (group->p99);

              /* TRANSLATORS: legend of the gap distribution: group, then percentiles */
              add_legend_item (self, g_strdup_printf (_("%s  p50 %s · p95 %s · p99 %s"), group->label, p50, p95, p99), g);
            }
          else
            /* TRANSLATORS: a legend entry for the traces of one endpoint (and model) */
            add_legend_item (self, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s (%u trace)", "%s (%u traces)", group->n_traces),
                                                    group->label, group->n_traces),
                             g);
        }
    }
  else
    {
      n = self->series->len;
      for (guint s = 0; s < MIN (n, LEGEND_MAX); s++)
        {
          const Series *series = &g_array_index (self->series, Series, s);

          add_legend_item (self, series_label (self, series), series->color);
        }
    }

  if (n > LEGEND_MAX)
    add_legend_item (self, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "and %u more", "and %u more", n - LEGEND_MAX),
                                            n - LEGEND_MAX),
                     G_MAXUINT - 1);

  if (self->mode != RELAY_STREAM_MODE_CUMULATIVE)
    {
      if (self->stall_threshold > 0 || self->uniform_threshold)
        {
          g_autofree char *ms = format_measured_ms (self->stall_threshold > 0 ? self->stall_threshold : self->auto_threshold);

          add_legend_item (self, g_strdup_printf (_("Stall threshold %s"), ms), G_MAXUINT);
        }
      else
        add_legend_item (self, g_strdup (distribution ? _("Stall threshold: 4 × the median gap (at least 50 ms)")
                                                      : _("Stall threshold: 4 × each trace’s median gap (at least 50 ms)")),
                         G_MAXUINT);
    }

  /* Each item is as wide as its label: short labels pack several to a line. */
  if (self->measure == NULL)
    self->measure = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  layout = pango_layout_new (self->measure);
  font = pango_font_description_from_string (self->style.font);
  pango_layout_set_font_description (layout, font);
  for (guint i = 0; i < self->legend->len; i++)
    {
      LegendItem *item = &g_array_index (self->legend, LegendItem, i);
      int w;

      pango_layout_set_text (layout, item->text, -1);
      pango_layout_get_pixel_size (layout, &w, NULL);
      item->width = LEGEND_SWATCH + w + LEGEND_SPACING;
    }
}

/* Flows the legend's items into lines at a drawing width: calls place (if not NULL) for
 * each item with its position and the width it may use; returns the number of lines. */
static guint
flow_legend (RelayStreamPainter *self,
             double              width,
             void              (*place) (RelayStreamPainter *, const LegendItem *, double, guint, double, gpointer),
             gpointer            data)
{
  double x = PAD;
  double right = MAX (width - PAD, PAD + 1);
  guint line = 0;

  for (guint i = 0; i < self->legend->len; i++)
    {
      const LegendItem *item = &g_array_index (self->legend, LegendItem, i);
      double w = MIN (item->width, right - PAD);

      if (x > PAD && x + w > right)
        {
          x = PAD;
          line++;
        }
      if (place != NULL)
        place (self, item, x, line, w, data);
      x += w;
    }

  return self->legend->len > 0 ? line + 1 : 0;
}

static void
ensure_data (RelayStreamPainter *self)
{
  g_autoptr(GArray) trace_gaps = NULL;
  g_autoptr(GHashTable) group_index = NULL;
  double lowest = INFINITY, highest = 0;
  guint n;

  if (!self->dirty)
    return;

  self->dirty = FALSE;
  g_array_set_size (self->series, 0);
  g_ptr_array_set_size (self->groups, 0);
  g_array_set_size (self->legend, 0);
  self->min_gap = INFINITY;
  self->max_gap = 0;
  self->n_gaps = 0;
  self->auto_threshold = 250.0;
  self->uniform_threshold = TRUE;
  self->color_by_group = FALSE;

  if (self->traces == NULL)
    {
      build_legend (self);
      return;
    }

  n = g_list_model_get_n_items (self->traces);
  trace_gaps = g_array_new (FALSE, FALSE, sizeof (double));
  group_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (self->traces, i);
      const RelayChunk *chunks;
      guint n_chunks;
      gint64 first_token;
      guint64 chars = 0;
      Series series = { 0 };
      Group *group;

      chunks = relay_trace_get_chunks (trace, &n_chunks);
      if (n_chunks == 0)
        continue;

      first_token = relay_trace_get_mark (trace, RELAY_MARK_FIRST_TOKEN);
      if (first_token == RELAY_TIME_NONE || first_token > chunks[0].t_us)
        first_token = chunks[0].t_us;

      series.scale = 1.0;
      if (self->units == RELAY_STREAM_UNITS_TOKENS)
        {
          guint64 out_chars = relay_trace_get_output_chars (trace);
          gint64 tokens = relay_trace_get_output_tokens (trace, NULL);

          series.scale = out_chars > 0 && tokens > 0 ? (double) tokens / out_chars : 0.25;
        }

      series.group = find_group (self, group_index, trace);
      group = g_ptr_array_index (self->groups, series.group);
      group->n_traces++;

      g_array_set_size (trace_gaps, 0);
      for (guint c = 0; c < n_chunks; c++)
        {
          chars += chunks[c].chars;
          if (c > 0)
            {
              double gap = (chunks[c].t_us - chunks[c - 1].t_us) / 1000.0;

              series.max_y = MAX (series.max_y, gap);
              self->min_gap = MIN (self->min_gap, gap);
              self->max_gap = MAX (self->max_gap, gap);
              g_array_append_val (trace_gaps, gap);
              if (self->mode == RELAY_STREAM_MODE_DISTRIBUTION)
                g_array_append_val (group->gaps, gap);
            }
        }
      self->n_gaps += trace_gaps->len;

      /* Each trace against its own median: a congested relay's ordinary jitter is not a
       * stall, while a fast relay's 200 ms pause is. */
      if (trace_gaps->len > 0)
        {
          double *values = (double *) (gpointer) trace_gaps->data;

          series.threshold = auto_threshold_for (select_kth (values, trace_gaps->len, trace_gaps->len / 2));
          lowest = MIN (lowest, series.threshold);
          highest = MAX (highest, series.threshold);
        }
      else
        series.threshold = 250.0;

      series.trace = g_object_ref (trace);
      if (self->mode == RELAY_STREAM_MODE_CUMULATIVE)
        {
          series.origin_us = 0;
          series.max_x = chunks[n_chunks - 1].t_us / 1000.0;
          series.max_y = chars * series.scale;
          series.n_points = n_chunks;
        }
      else
        {
          series.origin_us = first_token;
          series.max_x = (chunks[n_chunks - 1].t_us - first_token) / 1000.0;
          series.n_points = n_chunks - 1;
        }
      g_array_append_val (self->series, series);
    }

  if (isfinite (lowest))
    {
      self->auto_threshold = lowest;
      self->uniform_threshold = highest - lowest < 0.05;
    }

  /* Many traces of several endpoints: one colour per endpoint × model reads better than a
   * dozen colours that repeat. */
  self->color_by_group = self->series->len > MANY_SERIES && self->groups->len > 1;
  for (guint s = 0; s < self->series->len; s++)
    {
      Series *series = &g_array_index (self->series, Series, s);

      series->color = self->color_by_group ? series->group : s;
    }

  label_groups (self);

  for (guint g = 0; g < self->groups->len; g++)
    {
      Group *group = g_ptr_array_index (self->groups, g);
      const double *sorted;

      if (group->gaps->len == 0)
        continue;
      g_array_sort (group->gaps, compare_double);
      sorted = (const double *) (gpointer) group->gaps->data;
      group->p50 = relay_stats_percentile (sorted, group->gaps->len, 50);
      group->p95 = relay_stats_percentile (sorted, group->gaps->len, 95);
      group->p99 = relay_stats_percentile (sorted, group->gaps->len, 99);
      group->threshold = auto_threshold_for (group->p50);
    }

  if (self->mode == RELAY_STREAM_MODE_DISTRIBUTION)
    {
      double lo = INFINITY, hi = 0;

      for (guint g = 0; g < self->groups->len; g++)
        {
          const Group *group = g_ptr_array_index (self->groups, g);

          if (group->gaps->len == 0)
            continue;
          lo = MIN (lo, group->threshold);
          hi = MAX (hi, group->threshold);
        }
      if (isfinite (lo))
        {
          self->auto_threshold = lo;
          self->uniform_threshold = hi - lo < 0.05;
        }
    }

  build_legend (self);
}

/* The threshold a series is judged by: the user's, or its own automatic one. */
static double
series_threshold (RelayStreamPainter *self,
                  const Series       *series)
{
  return self->stall_threshold > 0 ? self->stall_threshold : series->threshold;
}

static double
group_threshold (RelayStreamPainter *self,
                 const Group        *group)
{
  return self->stall_threshold > 0 ? self->stall_threshold : group->threshold;
}

static double
effective_threshold (RelayStreamPainter *self)
{
  ensure_data (self);
  return self->stall_threshold > 0 ? self->stall_threshold : self->auto_threshold;
}

static double
legend_height (RelayStreamPainter *self,
               double              width)
{
  guint lines;

  if (!self->show_legend)
    return 0;

  lines = flow_legend (self, width, NULL, NULL);
  if (lines == 0)
    return 0;

  return lines * LEGEND_LINE + PAD;
}

static void
plot_area (RelayStreamPainter *self,
           double              width,
           double              height,
           cairo_rectangle_t  *area)
{
  double top = PAD + (self->show_title ? TITLE_HEIGHT : 0);
  double left = self->show_axis ? AXIS_LEFT : PAD;
  double bottom = (self->show_axis ? AXIS_BOTTOM : PAD) + legend_height (self, width);

  area->x = left;
  area->y = top;
  area->width = MAX (1, width - left - 2 * PAD);
  area->height = MAX (1, height - top - bottom);
}

static void
compute_axes (RelayStreamPainter *self,
              double              width,
              double              height,
              Axes               *axes)
{
  double threshold = effective_threshold (self);

  memset (axes, 0, sizeof *axes);
  plot_area (self, width, height, &axes->area);

  switch (self->mode)
    {
    case RELAY_STREAM_MODE_GAPS:
    case RELAY_STREAM_MODE_CUMULATIVE:
      for (guint i = 0; i < self->series->len; i++)
        {
          const Series *series = &g_array_index (self->series, Series, i);

          axes->x1 = MAX (axes->x1, series->max_x);
          axes->y1 = MAX (axes->y1, series->max_y);
        }
      /* Keep every trace's threshold line in view. */
      if (self->mode == RELAY_STREAM_MODE_GAPS)
        for (guint i = 0; i < self->series->len; i++)
          axes->y1 = MAX (axes->y1, series_threshold (self, &g_array_index (self->series, Series, i)));
      axes->x1 = axes->x1 > 0 ? axes->x1 * 1.02 : 1000.0;
      axes->y1 = axes->y1 > 0 ? axes->y1 * 1.08 : 1.0;
      break;

    case RELAY_STREAM_MODE_DISTRIBUTION:
    default:
      axes->y0 = 0;
      axes->y1 = 1;
      if (self->log_scale)
        {
          double lo = MAX (isfinite (self->min_gap) ? self->min_gap : 1.0, MIN_LOG_GAP);
          double hi = MAX (self->max_gap, threshold);

          for (guint g = 0; g < self->groups->len; g++)
            hi = MAX (hi, group_threshold (self, g_ptr_array_index (self->groups, g)));

          axes->log_x = TRUE;
          axes->x0 = pow (10, floor (log10 (lo)));
          axes->x1 = pow (10, ceil (log10 (MAX (hi, lo))));
          if (axes->x1 <= axes->x0)
            axes->x1 = axes->x0 * 10;
        }
      else
        {
          double hi = MAX (self->max_gap, threshold);

          axes->x0 = 0;
          for (guint g = 0; g < self->groups->len; g++)
            hi = MAX (hi, group_threshold (self, g_ptr_array_index (self->groups, g)));
          axes->x1 = hi * 1.05;
          if (axes->x1 <= 0)
            axes->x1 = 1000.0;
        }
      break;
    }
}

static double
axes_x (const Axes *axes,
        double      value)
{
  double f;

  if (axes->log_x)
    f = (log10 (MAX (value, MIN_LOG_GAP)) - log10 (axes->x0)) / (log10 (axes->x1) - log10 (axes->x0));
  else
    f = (value - axes->x0) / (axes->x1 - axes->x0);

  return axes->area.x + f * axes->area.width;
}

static double
axes_x_value (const Axes *axes,
              double      x)
{
  double f = (x - axes->area.x) / axes->area.width;

  if (axes->log_x)
    return pow (10, log10 (axes->x0) + f * (log10 (axes->x1) - log10 (axes->x0)));

  return axes->x0 + f * (axes->x1 - axes->x0);
}

static double
axes_y (const Axes *axes,
        double      value)
{
  double f = (value - axes->y0) / (axes->y1 - axes->y0);

  return axes->area.y + axes->area.height - f * axes->area.height;
}

/* Property plumbing. */

static void
relay_stream_painter_finalize (GObject *object)
{
  RelayStreamPainter *self = (RelayStreamPainter *)object;

  g_clear_pointer (&self->plot_cache, cairo_surface_destroy);

  if (self->traces != NULL)
    g_clear_signal_handler (&self->items_changed_id, self->traces);
  g_clear_object (&self->traces);
  g_clear_object (&self->session);
  g_clear_pointer (&self->series, g_array_unref);
  g_clear_pointer (&self->groups, g_ptr_array_unref);
  g_clear_pointer (&self->legend, g_array_unref);
  g_clear_object (&self->measure);
  g_clear_pointer (&self->title, g_free);

  G_OBJECT_CLASS (relay_stream_painter_parent_class)->finalize (object);
}

static void
relay_stream_painter_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  RelayStreamPainter *self = RELAY_STREAM_PAINTER (object);

  switch (prop_id)
    {
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_UNITS:
      g_value_set_enum (value, self->units);
      break;
    case PROP_LOG_SCALE:
      g_value_set_boolean (value, self->log_scale);
      break;
    case PROP_STALL_THRESHOLD:
      g_value_set_double (value, self->stall_threshold);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_SHOW_TITLE:
      g_value_set_boolean (value, self->show_title);
      break;
    case PROP_SHOW_LEGEND:
      g_value_set_boolean (value, self->show_legend);
      break;
    case PROP_SHOW_AXIS:
      g_value_set_boolean (value, self->show_axis);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_stream_painter_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  RelayStreamPainter *self = RELAY_STREAM_PAINTER (object);

  switch (prop_id)
    {
    case PROP_MODE:
      relay_stream_painter_set_mode (self, g_value_get_enum (value));
      break;
    case PROP_UNITS:
      relay_stream_painter_set_units (self, g_value_get_enum (value));
      break;
    case PROP_LOG_SCALE:
      relay_stream_painter_set_log_scale (self, g_value_get_boolean (value));
      break;
    case PROP_STALL_THRESHOLD:
      relay_stream_painter_set_stall_threshold (self, g_value_get_double (value));
      break;
    case PROP_TITLE:
      relay_stream_painter_set_title (self, g_value_get_string (value));
      break;
    case PROP_SHOW_TITLE:
      relay_stream_painter_set_show_title (self, g_value_get_boolean (value));
      break;
    case PROP_SHOW_LEGEND:
      relay_stream_painter_set_show_legend (self, g_value_get_boolean (value));
      break;
    case PROP_SHOW_AXIS:
      relay_stream_painter_set_show_axis (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_stream_painter_class_init (RelayStreamPainterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = relay_stream_painter_finalize;
  object_class->get_property = relay_stream_painter_get_property;
  object_class->set_property = relay_stream_painter_set_property;

  properties[PROP_MODE] =
    g_param_spec_enum ("mode", NULL, NULL,
                       RELAY_TYPE_STREAM_MODE, RELAY_STREAM_MODE_GAPS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_UNITS] =
    g_param_spec_enum ("units", NULL, NULL,
                       RELAY_TYPE_STREAM_UNITS, RELAY_STREAM_UNITS_CHARS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOG_SCALE] =
    g_param_spec_boolean ("log-scale", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STALL_THRESHOLD] =
    g_param_spec_double ("stall-threshold", NULL, NULL, -1, G_MAXDOUBLE, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_TITLE] =
    g_param_spec_boolean ("show-title", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_LEGEND] =
    g_param_spec_boolean ("show-legend", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_AXIS] =
    g_param_spec_boolean ("show-axis", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[CHANGED] =
    g_signal_new ("changed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
relay_stream_painter_init (RelayStreamPainter *self)
{
  self->series = g_array_new (FALSE, FALSE, sizeof (Series));
  g_array_set_clear_func (self->series, series_clear);
  self->groups = g_ptr_array_new_with_free_func (group_free);
  self->legend = g_array_new (FALSE, FALSE, sizeof (LegendItem));
  g_array_set_clear_func (self->legend, legend_item_clear);
  self->log_scale = TRUE;
  self->show_legend = TRUE;
  self->show_axis = TRUE;
  self->dirty = TRUE;
  relay_chart_style_init (&self->style, FALSE);
}

RelayStreamPainter *
relay_stream_painter_new (void)
{
  return g_object_new (RELAY_TYPE_STREAM_PAINTER, NULL);
}

void
relay_stream_painter_set_traces (RelayStreamPainter *self,
                                 GListModel         *traces,
                                 RelaySession       *session)
{
  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));
  g_return_if_fail (traces == NULL || G_IS_LIST_MODEL (traces));
  g_return_if_fail (session == NULL || RELAY_IS_SESSION (session));

  if (self->traces != NULL)
    g_clear_signal_handler (&self->items_changed_id, self->traces);
  g_set_object (&self->traces, traces);
  g_set_object (&self->session, session);
  if (self->traces != NULL)
    self->items_changed_id = g_signal_connect (self->traces, "items-changed",
                                               G_CALLBACK (on_items_changed), self);
  mark_dirty (self);
}

GListModel *
relay_stream_painter_get_traces (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), NULL);
  return self->traces;
}

RelaySession *
relay_stream_painter_get_session (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), NULL);
  return self->session;
}

void
relay_stream_painter_invalidate (RelayStreamPainter *self)
{
  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));
  mark_dirty (self);
}

void
relay_stream_painter_set_mode (RelayStreamPainter *self,
                               RelayStreamMode     mode)
{
  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));

  if (self->mode == mode)
    return;
  self->mode = mode;
  mark_dirty (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODE]);
}

RelayStreamMode
relay_stream_painter_get_mode (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), 0);
  return self->mode;
}

void
relay_stream_painter_set_units (RelayStreamPainter *self,
                                RelayStreamUnits    units)
{
  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));

  if (self->units == units)
    return;
  self->units = units;
  mark_dirty (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_UNITS]);
}

RelayStreamUnits
relay_stream_painter_get_units (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), 0);
  return self->units;
}

void
relay_stream_painter_set_log_scale (RelayStreamPainter *self,
                                    gboolean            log_scale)
{
  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));

  log_scale = !!log_scale;
  if (self->log_scale == log_scale)
    return;
  self->log_scale = log_scale;
  g_signal_emit (self, signals[CHANGED], 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOG_SCALE]);
}

gboolean
relay_stream_painter_get_log_scale (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), FALSE);
  return self->log_scale;
}

void
relay_stream_painter_set_stall_threshold (RelayStreamPainter *self,
                                          double              ms)
{
  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));

  if (!(ms > 0))
    ms = 0;
  if (self->stall_threshold == ms)
    return;
  self->stall_threshold = ms;
  mark_dirty (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STALL_THRESHOLD]);
}

double
relay_stream_painter_get_stall_threshold (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), 0);
  return self->stall_threshold;
}

double
relay_stream_painter_get_effective_stall_threshold (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), 0);
  return effective_threshold (self);
}

static const Series *
find_series (RelayStreamPainter *self,
             RelayTrace         *trace)
{
  ensure_data (self);
  for (guint s = 0; s < self->series->len; s++)
    if (g_array_index (self->series, Series, s).trace == trace)
      return &g_array_index (self->series, Series, s);

  return NULL;
}

double
relay_stream_painter_get_trace_stall_threshold (RelayStreamPainter *self,
                                                RelayTrace         *trace)
{
  const Series *series;

  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), NAN);
  g_return_val_if_fail (RELAY_IS_TRACE (trace), NAN);

  if (!(series = find_series (self, trace)))
    return NAN;

  if (self->mode == RELAY_STREAM_MODE_DISTRIBUTION)
    return group_threshold (self, g_ptr_array_index (self->groups, series->group));

  return series_threshold (self, series);
}

char *
relay_stream_painter_dup_trace_label (RelayStreamPainter *self,
                                      RelayTrace         *trace)
{
  const Series *series;

  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), NULL);
  g_return_val_if_fail (RELAY_IS_TRACE (trace), NULL);

  if (!(series = find_series (self, trace)))
    return NULL;

  return series_label (self, series);
}

gboolean
relay_stream_painter_get_colors_by_group (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), FALSE);

  ensure_data (self);
  return self->color_by_group;
}

void
relay_stream_painter_set_style (RelayStreamPainter    *self,
                                const RelayChartStyle *style)
{
  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));
  g_return_if_fail (style != NULL);

  self->style = *style;
  self->style.font[sizeof self->style.font - 1] = '\0';
  /* The legend is measured in the style's font. */
  mark_dirty (self);
}

const RelayChartStyle *
relay_stream_painter_get_style (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), NULL);
  return &self->style;
}

void
relay_stream_painter_set_title (RelayStreamPainter *self,
                                const char         *title)
{
  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));

  if (g_strcmp0 (self->title, title) == 0)
    return;

  g_free (self->title);
  self->title = g_strdup (title);
  g_signal_emit (self, signals[CHANGED], 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

const char *
relay_stream_painter_get_title (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), NULL);
  return self->title;
}

static void
set_flag (RelayStreamPainter *self,
          gboolean           *flag,
          gboolean            value,
          guint               prop)
{
  value = !!value;
  if (*flag == value)
    return;
  *flag = value;
  g_signal_emit (self, signals[CHANGED], 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

void
relay_stream_painter_set_show_title (RelayStreamPainter *self,
                                     gboolean            show)
{
  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));
  set_flag (self, &self->show_title, show, PROP_SHOW_TITLE);
}

void
relay_stream_painter_set_show_legend (RelayStreamPainter *self,
                                      gboolean            show)
{
  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));
  set_flag (self, &self->show_legend, show, PROP_SHOW_LEGEND);
}

void
relay_stream_painter_set_show_axis (RelayStreamPainter *self,
                                    gboolean            show)
{
  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));
  set_flag (self, &self->show_axis, show, PROP_SHOW_AXIS);
}

gboolean
relay_stream_painter_get_show_title (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), FALSE);
  return self->show_title;
}

gboolean
relay_stream_painter_get_show_legend (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), FALSE);
  return self->show_legend;
}

gboolean
relay_stream_painter_get_show_axis (RelayStreamPainter *self)
{
  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), FALSE);
  return self->show_axis;
}

void
relay_stream_painter_get_plot_area (RelayStreamPainter *self,
                                    double              width,
                                    double              height,
                                    cairo_rectangle_t  *area)
{
  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));
  g_return_if_fail (area != NULL);

  ensure_data (self);
  plot_area (self, width, height, area);
}

void
relay_stream_painter_value_to_point (RelayStreamPainter *self,
                                     double              width,
                                     double              height,
                                     double              x_value,
                                     double              y_value,
                                     double             *x,
                                     double             *y)
{
  Axes axes;

  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));

  compute_axes (self, width, height, &axes);
  if (x)
    *x = axes_x (&axes, x_value);
  if (y)
    *y = axes_y (&axes, y_value);
}

gboolean
relay_stream_painter_hit_test (RelayStreamPainter *self,
                               double              width,
                               double              height,
                               double              x,
                               double              y,
                               double              radius,
                               RelayStreamHit     *hit)
{
  double best = radius * radius;
  gboolean found = FALSE;
  Axes axes;

  g_return_val_if_fail (RELAY_IS_STREAM_PAINTER (self), FALSE);
  g_return_val_if_fail (hit != NULL, FALSE);

  memset (hit, 0, sizeof *hit);
  compute_axes (self, width, height, &axes);

  if (self->mode == RELAY_STREAM_MODE_DISTRIBUTION)
    {
      double value = axes_x_value (&axes, x);

      for (guint g = 0; g < self->groups->len; g++)
        {
          const Group *group = g_ptr_array_index (self->groups, g);
          const double *gaps = (const double *) (gpointer) group->gaps->data;
          guint lo = 0, hi = group->gaps->len;
          double frac, d;

          if (group->gaps->len == 0)
            continue;
          while (lo < hi)
            {
              guint mid = lo + (hi - lo) / 2;

              if (gaps[mid] <= value)
                lo = mid + 1;
              else
                hi = mid;
            }
          frac = (double) lo / group->gaps->len;
          d = (axes_y (&axes, frac) - y) * (axes_y (&axes, frac) - y);
          if (d <= best)
            {
              best = d;
              found = TRUE;
              hit->series = g;
              hit->x_value = value;
              hit->y_value = frac;
              hit->x = x;
              hit->y = axes_y (&axes, frac);
            }
        }

      return found;
    }

  for (guint s = 0; s < self->series->len; s++)
    {
      const Series *series = &g_array_index (self->series, Series, s);
      const RelayChunk *chunks;
      guint n;
      double cum = 0;

      chunks = relay_trace_get_chunks (series->trace, &n);
      for (guint c = 0; c < n; c++)
        {
          double xv = (chunks[c].t_us - series->origin_us) / 1000.0;
          double yv, px, py, d;

          cum += chunks[c].chars * series->scale;
          if (self->mode == RELAY_STREAM_MODE_GAPS)
            {
              if (c == 0)
                continue;
              yv = (chunks[c].t_us - chunks[c - 1].t_us) / 1000.0;
            }
          else
            yv = cum;

          px = axes_x (&axes, xv);
          if (fabs (px - x) > radius)
            continue;
          py = axes_y (&axes, yv);
          d = (px - x) * (px - x) + (py - y) * (py - y);
          if (d <= best)
            {
              best = d;
              found = TRUE;
              hit->trace = series->trace;
              hit->series = s;
              hit->chunk = c;
              hit->x_value = xv;
              hit->y_value = yv;
              hit->x = px;
              hit->y = py;
            }
        }
    }

  return found;
}

/* Drawing. */

static void
show_text (cairo_t               *cr,
           PangoLayout           *layout,
           const char            *text,
           const RelayChartColor *color,
           double                 x,
           double                 y,
           double                 max_width,
           PangoAlignment         align)
{
  int tw, th;

  pango_layout_set_text (layout, text, -1);
  pango_layout_set_width (layout, max_width > 0 ? (int) (max_width * PANGO_SCALE) : -1);
  pango_layout_set_alignment (layout, align);
  pango_layout_get_pixel_size (layout, &tw, &th);
  relay_chart_set_source_color (cr, color);
  cairo_move_to (cr, x, y - th / 2.0);
  pango_cairo_show_layout (cr, layout);
}

static char *
format_value (RelayStreamPainter *self,
              double              value)
{
  switch (self->mode)
    {
    case RELAY_STREAM_MODE_GAPS:
      return relay_chart_format_ms (value);
    case RELAY_STREAM_MODE_CUMULATIVE:
      return g_strdup_printf ("%.0f", value);
    case RELAY_STREAM_MODE_DISTRIBUTION:
    default:
      return g_strdup_printf ("%.0f %%", value * 100);
    }
}

static void
draw_axes (RelayStreamPainter *self,
           cairo_t            *cr,
           PangoLayout        *layout,
           const Axes         *axes)
{
  const cairo_rectangle_t *a = &axes->area;
  const char *x_title, *y_title;
  double first, step;

  relay_chart_set_source_color (cr, &self->style.grid);

  /* Vertical grid and x labels. */
  if (axes->log_x)
    {
      for (double decade = axes->x0; decade <= axes->x1 * 1.0001; decade *= 10)
        {
          static const double mult[] = { 1, 2, 5 };

          for (guint m = 0; m < G_N_ELEMENTS (mult); m++)
            {
              double v = decade * mult[m];
              double x = floor (axes_x (axes, v));
              g_autofree char *text = NULL;

              if (v > axes->x1 * 1.0001)
                break;
              relay_chart_set_source_color (cr, &self->style.grid);
              cairo_rectangle (cr, x, a->y, 1, a->height);
              cairo_fill (cr);
              if (m == 0 || a->width > 400)
                {
                  text = relay_chart_format_ms (v);
                  show_text (cr, layout, text, &self->style.muted, x - 40, a->y + a->height + 10,
                             80, PANGO_ALIGN_CENTER);
                }
            }
        }
    }
  else
    {
      step = relay_chart_nice_step (axes->x0, axes->x1, MAX (2, (guint) (a->width / 90)), &first);
      for (double v = first; v <= axes->x1; v += step)
        {
          double x = floor (axes_x (axes, v));
          g_autofree char *text = relay_chart_format_ms (fabs (v) < step * 1e-6 ? 0 : v);

          relay_chart_set_source_color (cr, &self->style.grid);
          cairo_rectangle (cr, x, a->y, 1, a->height);
          cairo_fill (cr);
          show_text (cr, layout, text, &self->style.muted, x - 40, a->y + a->height + 10,
                     80, PANGO_ALIGN_CENTER);
        }
    }

  /* Horizontal grid and y labels. */
  step = relay_chart_nice_step (axes->y0, axes->y1, MAX (2, (guint) (a->height / 40)), &first);
  if (self->mode == RELAY_STREAM_MODE_CUMULATIVE && step < 1)
    step = 1, first = ceil (axes->y0);
  for (double v = first; v <= axes->y1 + step * 1e-6; v += step)
    {
      double y = floor (axes_y (axes, v));
      g_autofree char *text = format_value (self, fabs (v) < step * 1e-6 ? 0 : v);

      relay_chart_set_source_color (cr, &self->style.grid);
      cairo_rectangle (cr, a->x, y, a->width, 1);
      cairo_fill (cr);
      show_text (cr, layout, text, &self->style.muted, 20, y, a->x - 26, PANGO_ALIGN_RIGHT);
    }

  relay_chart_set_source_color (cr, &self->style.foreground);
  cairo_rectangle (cr, a->x, a->y + a->height, a->width, 1);
  cairo_rectangle (cr, a->x, a->y, 1, a->height);
  cairo_fill (cr);

  switch (self->mode)
    {
    case RELAY_STREAM_MODE_GAPS:
      x_title = _("Time since first token");
      y_title = _("Gap to previous chunk");
      break;
    case RELAY_STREAM_MODE_CUMULATIVE:
      x_title = _("Time since start");
      y_title = self->units == RELAY_STREAM_UNITS_TOKENS ? _("Output tokens") : _("Output characters");
      break;
    case RELAY_STREAM_MODE_DISTRIBUTION:
    default:
      x_title = self->log_scale ? _("Gap between chunks (log scale)") : _("Gap between chunks");
      y_title = _("Share of gaps at or below");
      break;
    }

  show_text (cr, layout, x_title, &self->style.foreground, a->x, a->y + a->height + 28,
             a->width, PANGO_ALIGN_CENTER);

  /* The y title runs up the left edge. */
  cairo_save (cr);
  cairo_translate (cr, 10, a->y + a->height / 2);
  cairo_rotate (cr, -G_PI / 2);
  show_text (cr, layout, y_title, &self->style.foreground, -a->height / 2, 0,
             a->height, PANGO_ALIGN_CENTER);
  cairo_restore (cr);
}

/* GAPS: a dashed line at each trace's threshold, as long as the trace; DISTRIBUTION: a
 * dashed vertical at each group's threshold, in the group's colour. Lines at the same
 * height share their dashes, so equal thresholds draw as one. */
static void
draw_thresholds (RelayStreamPainter *self,
                 cairo_t            *cr,
                 const Axes         *axes)
{
  static const double dash[] = { 5, 4 };
  const cairo_rectangle_t *a = &axes->area;

  cairo_save (cr);
  cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
  cairo_set_line_width (cr, 1);

  if (self->mode == RELAY_STREAM_MODE_GAPS)
    {
      relay_chart_set_source_color (cr, &self->style.error);
      for (guint s = 0; s < self->series->len; s++)
        {
          const Series *series = &g_array_index (self->series, Series, s);
          double y = floor (axes_y (axes, series_threshold (self, series))) + 0.5;
          double x1 = self->stall_threshold > 0 ? a->x + a->width
                                                : MIN (a->x + a->width, ceil (axes_x (axes, series->max_x)));

          cairo_move_to (cr, a->x, y);
          cairo_line_to (cr, MAX (x1, a->x + 20), y);
        }
      cairo_stroke (cr);
    }
  else
    {
      for (guint g = 0; g < self->groups->len; g++)
        {
          const Group *group = g_ptr_array_index (self->groups, g);
          double x = floor (axes_x (axes, group_threshold (self, group))) + 0.5;

          if (group->gaps->len == 0)
            continue;
          relay_chart_set_source_color (cr, self->stall_threshold > 0 || self->groups->len == 1
                                              ? &self->style.error
                                              : relay_chart_series_color (g, self->style.dark));
          cairo_move_to (cr, x, a->y);
          cairo_line_to (cr, x, a->y + a->height);
          cairo_stroke (cr);
        }
    }

  cairo_restore (cr);
}

static void
draw_gaps (RelayStreamPainter *self,
           cairo_t            *cr,
           const Axes         *axes)
{
  const cairo_rectangle_t *a = &axes->area;
  guint n_cols = (guint) ceil (a->width);
  g_autofree double *col_min = g_new (double, n_cols);
  g_autofree double *col_max = g_new (double, n_cols);
  double x_scale = a->width / (axes->x1 - axes->x0);

  for (guint s = 0; s < self->series->len; s++)
    {
      const Series *series = &g_array_index (self->series, Series, s);
      const RelayChartColor *color = relay_chart_series_color (series->color, self->style.dark);
      double threshold = series_threshold (self, series);
      const RelayChunk *chunks;
      guint n;

      for (guint c = 0; c < n_cols; c++)
        {
          col_min[c] = INFINITY;
          col_max[c] = -INFINITY;
        }

      /* One pass over the chunks into min/max per column; then at most two shapes per
       * column are drawn, however many chunks there are. */
      chunks = relay_trace_get_chunks (series->trace, &n);
      for (guint c = 1; c < n; c++)
        {
          double xv = (chunks[c].t_us - series->origin_us) / 1000.0;
          double gap = (chunks[c].t_us - chunks[c - 1].t_us) / 1000.0;
          gint64 col = (gint64) floor ((xv - axes->x0) * x_scale);

          if (col < 0 || col >= n_cols)
            continue;
          col_min[col] = MIN (col_min[col], gap);
          col_max[col] = MAX (col_max[col], gap);
        }

      /* Gaps are points, not a line: the extremes of a column are two dots (one when they
       * are close), so a burst of coalesced chunks next to a long gap does not read as a
       * bar of every value between. */
      relay_chart_set_source_color (cr, color);
      for (guint c = 0; c < n_cols; c++)
        {
          double y0, y1, x = a->x + c - 1;

          if (col_max[c] < col_min[c])
            continue;
          y0 = floor (axes_y (axes, col_max[c]));
          y1 = floor (axes_y (axes, col_min[c]));
          if (y1 - y0 <= 3)
            cairo_rectangle (cr, x, y0 - 1, 3, y1 - y0 + 3);
          else
            {
              cairo_rectangle (cr, x, y0 - 1, 3, 3);
              cairo_rectangle (cr, x, y1 - 1, 3, 3);
            }
        }
      cairo_fill (cr);

      /* Stalls get a second cue besides position: a ring in the error colour. */
      cairo_save (cr);
      cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
      for (guint c = 0; c < n_cols; c++)
        {
          if (col_max[c] < col_min[c] || col_max[c] <= threshold)
            continue;
          cairo_new_sub_path (cr);
          cairo_arc (cr, a->x + c + 0.5, floor (axes_y (axes, col_max[c])) + 0.5,
                     STALL_RADIUS, 0, 2 * G_PI);
        }
      relay_chart_set_source_color (cr, &self->style.error);
      cairo_fill (cr);
      cairo_restore (cr);
    }
}

static void
draw_cumulative (RelayStreamPainter *self,
                 cairo_t            *cr,
                 const Axes         *axes)
{
  const cairo_rectangle_t *a = &axes->area;
  guint n_cols = (guint) ceil (a->width);
  g_autofree double *col_value = g_new (double, n_cols);
  double x_scale = a->width / (axes->x1 - axes->x0);

  cairo_save (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
  cairo_set_line_width (cr, 1.5);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_MITER);

  for (guint s = 0; s < self->series->len; s++)
    {
      const Series *series = &g_array_index (self->series, Series, s);
      const RelayChunk *chunks;
      double cum = 0, prev_y;
      guint n;

      for (guint c = 0; c < n_cols; c++)
        col_value[c] = -1;

      /* The running total at the end of each column: a step line through these shows
       * bursts as risers and stalls as long treads. */
      chunks = relay_trace_get_chunks (series->trace, &n);
      for (guint c = 0; c < n; c++)
        {
          double xv = (chunks[c].t_us - series->origin_us) / 1000.0;
          gint64 col = (gint64) floor ((xv - axes->x0) * x_scale);

          cum += chunks[c].chars * series->scale;
          if (col >= 0 && col < n_cols)
            col_value[col] = cum;
        }

      prev_y = axes_y (axes, 0);
      cairo_move_to (cr, a->x, prev_y);
      for (guint c = 0; c < n_cols; c++)
        {
          double y;

          if (col_value[c] < 0)
            continue;
          y = axes_y (axes, col_value[c]);
          cairo_line_to (cr, a->x + c + 0.5, prev_y);
          cairo_line_to (cr, a->x + c + 0.5, y);
          prev_y = y;
        }
      relay_chart_set_source_color (cr, relay_chart_series_color (series->color, self->style.dark));
      cairo_stroke (cr);
    }

  cairo_restore (cr);
}

static void
draw_distribution (RelayStreamPainter *self,
                   cairo_t            *cr,
                   const Axes         *axes)
{
  const cairo_rectangle_t *a = &axes->area;
  guint n_cols = (guint) ceil (a->width);

  cairo_save (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
  cairo_set_line_width (cr, 2);

  for (guint g = 0; g < self->groups->len; g++)
    {
      const Group *group = g_ptr_array_index (self->groups, g);
      const double *gaps = (const double *) (gpointer) group->gaps->data;
      const RelayChartColor *color = relay_chart_series_color (g, self->style.dark);
      const double marks[] = { group->p50, group->p95, group->p99 };
      guint n = group->gaps->len;
      guint idx = 0;

      if (n == 0)
        continue;

      /* Sorted gaps: the share at or below each column's value only grows, so one forward
       * walk gives the whole curve. */
      for (guint c = 0; c <= n_cols; c++)
        {
          double value = axes_x_value (axes, a->x + c);
          double y;

          while (idx < n && gaps[idx] <= value)
            idx++;
          y = axes_y (axes, (double) idx / n);
          if (c == 0)
            cairo_move_to (cr, a->x + c, y);
          else
            cairo_line_to (cr, a->x + c, y);
        }
      relay_chart_set_source_color (cr, color);
      cairo_stroke (cr);

      for (guint m = 0; m < G_N_ELEMENTS (marks); m++)
        {
          double frac = m == 0 ? 0.50 : m == 1 ? 0.95 : 0.99;

          if (!isfinite (marks[m]))
            continue;
          cairo_new_sub_path (cr);
          cairo_arc (cr, axes_x (axes, marks[m]), axes_y (axes, frac), 3.5, 0, 2 * G_PI);
        }
      relay_chart_set_source_color (cr, &self->style.background);
      cairo_fill_preserve (cr);
      relay_chart_set_source_color (cr, color);
      cairo_set_line_width (cr, 1.5);
      cairo_stroke (cr);
      cairo_set_line_width (cr, 2);
    }

  cairo_restore (cr);
}

/* Measured values to about three significant digits: "23.9 ms", not "23.851 ms". */
static char *
format_measured_ms (double ms)
{
  double rounded;

  if (fabs (ms) >= 100)
    rounded = round (ms);
  else if (fabs (ms) >= 10)
    rounded = round (ms * 10) / 10;
  else
    rounded = round (ms * 100) / 100;

  return relay_chart_format_ms (rounded);
}

typedef struct
{
  cairo_t     *cr;
  PangoLayout *layout;
  double       top;
} LegendDraw;

static void
draw_legend_item (RelayStreamPainter *self,
                  const LegendItem   *item,
                  double              x,
                  guint               line,
                  double              width,
                  gpointer            data)
{
  LegendDraw *draw = data;
  cairo_t *cr = draw->cr;
  double y = draw->top + PAD + line * LEGEND_LINE + LEGEND_LINE / 2;

  if (item->color == G_MAXUINT)
    {
      relay_chart_set_source_color (cr, &self->style.error);
      cairo_rectangle (cr, x, y - 0.5, 5, 1);
      cairo_rectangle (cr, x + 9, y - 0.5, 5, 1);
      cairo_fill (cr);
    }
  else if (item->color != G_MAXUINT - 1)
    {
      relay_chart_set_source_color (cr, relay_chart_series_color (item->color, self->style.dark));
      cairo_rectangle (cr, x, y - 2, 14, 4);
      cairo_fill (cr);
    }

  show_text (cr, draw->layout, item->text, &self->style.foreground, x + LEGEND_SWATCH, y,
             width - LEGEND_SWATCH - LEGEND_SPACING / 2, PANGO_ALIGN_LEFT);
}

static void
draw_legend (RelayStreamPainter *self,
             cairo_t            *cr,
             PangoLayout        *layout,
             double              top,
             double              width)
{
  LegendDraw draw = { cr, layout, top };

  flow_legend (self, width, draw_legend_item, &draw);
}

static void
draw_plot (RelayStreamPainter *self,
           cairo_t            *cr,
           const Axes         *axes)
{
  cairo_save (cr);
  cairo_rectangle (cr, axes->area.x - STALL_RADIUS, axes->area.y - STALL_RADIUS,
                   axes->area.width + 2 * STALL_RADIUS, axes->area.height + 2 * STALL_RADIUS);
  cairo_clip (cr);

  switch (self->mode)
    {
    case RELAY_STREAM_MODE_GAPS:
      draw_thresholds (self, cr, axes);
      draw_gaps (self, cr, axes);
      break;
    case RELAY_STREAM_MODE_CUMULATIVE:
      draw_cumulative (self, cr, axes);
      break;
    case RELAY_STREAM_MODE_DISTRIBUTION:
    default:
      draw_thresholds (self, cr, axes);
      draw_distribution (self, cr, axes);
      break;
    }

  cairo_restore (cr);
}

static gboolean
plot_cache_matches (RelayStreamPainter *self,
                    const Axes         *axes)
{
  return self->plot_cache != NULL &&
         self->plot_generation == self->generation &&
         self->plot_mode == self->mode &&
         self->plot_units == self->units &&
         self->plot_log_scale == self->log_scale &&
         self->plot_threshold == self->stall_threshold &&
         memcmp (&self->plot_style, &self->style, sizeof self->style) == 0 &&
         memcmp (&self->plot_axes, axes, sizeof *axes) == 0;
}

/* Raster targets at scale 1 (the widget, PNG export) reuse the last plot; vector exports
 * and scaled targets draw afresh, so that they stay sharp. */
static void
draw_plot_cached (RelayStreamPainter *self,
                  cairo_t            *cr,
                  const Axes         *axes)
{
  cairo_surface_t *target = cairo_get_target (cr);
  cairo_matrix_t matrix;
  double sx = 1, sy = 1, ox, oy;
  int w, h;

  cairo_get_matrix (cr, &matrix);
  cairo_surface_get_device_scale (target, &sx, &sy);

  if (cairo_surface_get_type (target) != CAIRO_SURFACE_TYPE_IMAGE ||
      matrix.xx != 1 || matrix.yy != 1 || matrix.xy != 0 || matrix.yx != 0 || sx != 1 || sy != 1)
    {
      draw_plot (self, cr, axes);
      return;
    }

  ox = axes->area.x - STALL_RADIUS;
  oy = axes->area.y - STALL_RADIUS;
  w = (int) ceil (axes->area.width + 2 * STALL_RADIUS);
  h = (int) ceil (axes->area.height + 2 * STALL_RADIUS);
  if (w <= 0 || h <= 0)
    return;

  if (!plot_cache_matches (self, axes))
    {
      cairo_t *pcr;

      g_clear_pointer (&self->plot_cache, cairo_surface_destroy);
      self->plot_cache = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
      pcr = cairo_create (self->plot_cache);
      cairo_set_antialias (pcr, cairo_get_antialias (cr));
      cairo_translate (pcr, -ox, -oy);
      draw_plot (self, pcr, axes);
      cairo_destroy (pcr);

      self->plot_generation = self->generation;
      self->plot_mode = self->mode;
      self->plot_units = self->units;
      self->plot_log_scale = self->log_scale;
      self->plot_threshold = self->stall_threshold;
      self->plot_style = self->style;
      self->plot_axes = *axes;
    }

  cairo_save (cr);
  cairo_set_source_surface (cr, self->plot_cache, ox, oy);
  cairo_paint (cr);
  cairo_restore (cr);
}

void
relay_stream_painter_draw (RelayStreamPainter *self,
                           cairo_t            *cr,
                           double              width,
                           double              height)
{
  g_autoptr(PangoFontDescription) font = NULL;
  g_autoptr(PangoLayout) layout = NULL;
  gboolean empty;
  Axes axes;

  g_return_if_fail (RELAY_IS_STREAM_PAINTER (self));
  g_return_if_fail (cr != NULL);

  if (width <= 0 || height <= 0)
    return;

  ensure_data (self);
  compute_axes (self, width, height, &axes);

  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_clip (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  relay_chart_set_source_color (cr, &self->style.background);
  cairo_paint (cr);

  layout = pango_cairo_create_layout (cr);
  font = pango_font_description_from_string (self->style.font);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode (layout, TRUE);

  if (self->show_title)
    {
      g_autoptr(PangoFontDescription) bold = pango_font_description_copy (font);
      const char *title = self->title;

      if (title == NULL)
        title = self->mode == RELAY_STREAM_MODE_GAPS ? _("Inter-chunk gaps")
              : self->mode == RELAY_STREAM_MODE_CUMULATIVE ? _("Cumulative output")
              : _("Distribution of inter-chunk gaps");
      pango_font_description_set_weight (bold, PANGO_WEIGHT_BOLD);
      pango_layout_set_font_description (layout, bold);
      show_text (cr, layout, title, &self->style.foreground, PAD, PAD + TITLE_HEIGHT / 2 - 4,
                 width - 2 * PAD, PANGO_ALIGN_LEFT);
      pango_layout_set_font_description (layout, font);
    }

  empty = self->series->len == 0 ||
          (self->mode != RELAY_STREAM_MODE_CUMULATIVE && self->n_gaps == 0);

  if (empty)
    {
      show_text (cr, layout, _("No streamed chunks yet"), &self->style.muted, PAD,
                 height / 2, width - 2 * PAD, PANGO_ALIGN_CENTER);
      cairo_restore (cr);
      return;
    }

  if (self->show_axis)
    draw_axes (self, cr, layout, &axes);

  draw_plot_cached (self, cr, &axes);

  if (self->show_legend)
    draw_legend (self, cr, layout, height - legend_height (self, width), width);

  cairo_restore (cr);
}
