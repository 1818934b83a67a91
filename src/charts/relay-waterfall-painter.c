/* relay-waterfall-painter.c: the latency waterfall, reduced to what each pixel can show.
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
#include "relay-waterfall-painter-private.h"

#define ROW_HEIGHT     20.0
#define BAR_TOP        4.0    /* bar inside a row: [BAR_TOP, BAR_TOP + BAR_HEIGHT) */
#define BAR_HEIGHT     11.0
#define TICK_TOP       16.0   /* chunk ticks below the bar */
#define TICK_HEIGHT    3.0
#define PAD            8.0
#define TITLE_HEIGHT   26.0
#define AXIS_HEIGHT    22.0
#define LEGEND_LINE    18.0
#define LEGEND_ITEM    104.0
#define ERROR_CAP      3.0
#define AUTO_MARGIN    1.05

typedef struct
{
  RelayTrace *trace;       /* NULL for a group header row */
  guint       group;
  guint       index;       /* position in the model (traces) or group size (headers) */
  double      offset_ms;   /* where the trace's 0 sits on the axis */
  double      ttft_ms;     /* NAN when no first token */
  double      end_ms;      /* last mark (without offset) */
  gboolean    live;
} Row;

typedef struct
{
  char *endpoint;
  char *model;
} Group;

struct _RelayWaterfallPainter
{
  GObject              parent_instance;

  GListModel          *traces;
  RelaySession        *session;
  gulong               items_changed_id;

  RelayWaterfallAlign  align;
  RelayWaterfallSort   sort;
  gboolean             group_by_endpoint;

  double               view_t0;
  double               view_t1;
  gboolean             auto_fit;
  gint64               now_us;
  double               scroll_offset;
  RelayTrace          *selected;
  RelayBudget         *budget;

  RelayChartStyle      style;
  char                *title;
  gboolean             show_title;
  gboolean             show_legend;
  gboolean             show_axis;

  /* Cache, rebuilt when dirty. */
  GArray              *rows;     /* of Row */
  GPtrArray           *groups;   /* of Group */
  double               max_end_ms;  /* over finished rows, offset included */
  gboolean             dirty;
  double               last_width;
};

enum {
  PROP_0,
  PROP_ALIGN,
  PROP_SORT,
  PROP_GROUP_BY_ENDPOINT,
  PROP_TITLE,
  PROP_SHOW_TITLE,
  PROP_SHOW_LEGEND,
  PROP_SHOW_AXIS,
  PROP_AUTO_FIT,
  N_PROPS
};

enum {
  CHANGED,
  N_SIGNALS
};

G_DEFINE_FINAL_TYPE (RelayWaterfallPainter, relay_waterfall_painter, G_TYPE_OBJECT)

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
group_free (gpointer data)
{
  Group *group = data;

  g_free (group->endpoint);
  g_free (group->model);
  g_free (group);
}

static void
emit_changed (RelayWaterfallPainter *self)
{
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
mark_dirty (RelayWaterfallPainter *self)
{
  self->dirty = TRUE;
  emit_changed (self);
}

static void
on_items_changed (GListModel            *model,
                  guint                  position,
                  guint                  removed,
                  guint                  added,
                  RelayWaterfallPainter *self)
{
  mark_dirty (self);
}

static double
us_to_ms (gint64 us)
{
  return us / 1000.0;
}

/* The latest mark of a trace, in µs since start, and the mark itself. */
static gint64
trace_last_mark (RelayTrace *trace,
                 RelayMark  *which)
{
  gint64 last = 0;
  RelayMark last_mark = RELAY_MARK_START;

  for (guint m = RELAY_MARK_START; m < RELAY_N_MARKS; m++)
    {
      gint64 t = relay_trace_get_mark (trace, m);

      if (t != RELAY_TIME_NONE && t >= last)
        {
          last = t;
          last_mark = m;
        }
    }

  if (which)
    *which = last_mark;

  return last;
}

/* The stage a live trace is in after its latest mark. */
static RelayStage
stage_after_mark (RelayMark mark)
{
  switch (mark)
    {
    case RELAY_MARK_START:          return RELAY_STAGE_BLOCKED;
    case RELAY_MARK_DNS_START:      return RELAY_STAGE_DNS;
    case RELAY_MARK_DNS_END:        return RELAY_STAGE_TCP;
    case RELAY_MARK_CONNECT_START:  return RELAY_STAGE_TCP;
    case RELAY_MARK_TCP_END:        return RELAY_STAGE_TLS_SETUP;
    case RELAY_MARK_PROXY_START:    return RELAY_STAGE_PROXY;
    case RELAY_MARK_PROXY_END:      return RELAY_STAGE_TLS_SETUP;
    case RELAY_MARK_TLS_START:      return RELAY_STAGE_TLS;
    case RELAY_MARK_TLS_END:        return RELAY_STAGE_SEND;
    case RELAY_MARK_REQUEST_START:  return RELAY_STAGE_SEND;
    case RELAY_MARK_REQUEST_END:    return RELAY_STAGE_WAIT;
    case RELAY_MARK_RESPONSE_START: return RELAY_STAGE_FIRST_EVENT;
    case RELAY_MARK_FIRST_BYTE:     return RELAY_STAGE_FIRST_EVENT;
    case RELAY_MARK_FIRST_EVENT:    return RELAY_STAGE_FIRST_TOKEN;
    case RELAY_MARK_FIRST_TOKEN:    return RELAY_STAGE_REASONING;
    case RELAY_MARK_FIRST_CONTENT:  return RELAY_STAGE_STREAM;
    case RELAY_MARK_LAST_TOKEN:     return RELAY_STAGE_STREAM;
    case RELAY_MARK_END:
    case RELAY_N_MARKS:
    default:                        return RELAY_STAGE_TAIL;
    }
}

/* Rows remember whether their trace was live when the rows were built; the trace may have
 * finished since, and then it must stop growing even before the next rebuild. */
static gboolean
row_is_live (RelayWaterfallPainter *self,
             const Row             *row)
{
  return row->live &&
         self->now_us > 0 &&
         relay_trace_get_mono_start (row->trace) > 0 &&
         !relay_trace_is_finished (row->trace);
}

/* Live traces gain marks between rebuilds, so read the first token from the trace. */
static double
row_ttft_ms (const Row *row)
{
  gint64 ttft;

  if (!row->live)
    return row->ttft_ms;

  ttft = relay_trace_get_mark (row->trace, RELAY_MARK_FIRST_TOKEN);
  return ttft != RELAY_TIME_NONE ? us_to_ms (ttft) : NAN;
}

/* The trace's segments, with the in-progress stage of a live trace extended to now. */
static guint
row_segments (RelayWaterfallPainter *self,
              const Row             *row,
              RelaySegment          *segments,
              guint                  n_segments)
{
  guint n = relay_trace_get_segments (row->trace, segments, n_segments - 1);

  if (row_is_live (self, row))
    {
      gint64 now = self->now_us - relay_trace_get_mono_start (row->trace);
      RelayMark mark;
      gint64 last = trace_last_mark (row->trace, &mark);
      gint64 begin = n > 0 ? segments[n - 1].end_us : 0;

      begin = MAX (begin, last);
      if (now > begin)
        {
          RelayStage stage = stage_after_mark (mark);

          if (n > 0 && segments[n - 1].stage == stage && segments[n - 1].end_us == begin)
            segments[n - 1].end_us = now;
          else
            {
              segments[n].stage = stage;
              segments[n].begin_us = begin;
              segments[n].end_us = now;
              n++;
            }
        }
    }

  return n;
}

static double
row_end_ms (RelayWaterfallPainter *self,
            const Row             *row)
{
  double end = row->end_ms;

  if (row->live)
    end = us_to_ms (trace_last_mark (row->trace, NULL));
  if (row_is_live (self, row))
    end = MAX (end, us_to_ms (self->now_us - relay_trace_get_mono_start (row->trace)));

  return end;
}

static void
trace_names (RelayWaterfallPainter *self,
             RelayTrace            *trace,
             const char           **endpoint,
             const char           **model)
{
  RelayRun *run = NULL;

  if (self->session != NULL)
    run = relay_session_get_run (self->session, relay_trace_get_run (trace));

  *endpoint = run ? relay_run_get_endpoint (run) : NULL;
  *model = run ? relay_run_get_model (run) : NULL;
}

static guint
find_group (RelayWaterfallPainter *self,
            GHashTable            *index,
            const char            *endpoint,
            const char            *model)
{
  g_autofree char *key = g_strdup_printf ("%s\x1f%s", endpoint ? endpoint : "", model ? model : "");
  gpointer value;
  Group *group;

  if (g_hash_table_lookup_extended (index, key, NULL, &value))
    return GPOINTER_TO_UINT (value);

  group = g_new0 (Group, 1);
  group->endpoint = g_strdup (endpoint);
  group->model = g_strdup (model);
  g_ptr_array_add (self->groups, group);
  g_hash_table_insert (index, g_steal_pointer (&key), GUINT_TO_POINTER (self->groups->len - 1));

  return self->groups->len - 1;
}

static int
compare_rows (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  RelayWaterfallPainter *self = user_data;
  const Row *ra = a;
  const Row *rb = b;

  if (self->group_by_endpoint && ra->group != rb->group)
    return ra->group < rb->group ? -1 : 1;

  if (self->sort == RELAY_WATERFALL_SORT_TTFT)
    {
      gboolean na = isnan (ra->ttft_ms);
      gboolean nb = isnan (rb->ttft_ms);

      if (na != nb)
        return na ? 1 : -1;
      if (!na && ra->ttft_ms != rb->ttft_ms)
        return ra->ttft_ms < rb->ttft_ms ? -1 : 1;
    }
  else if (self->align == RELAY_WATERFALL_ALIGN_WALL_CLOCK && ra->offset_ms != rb->offset_ms)
    return ra->offset_ms < rb->offset_ms ? -1 : 1;

  return ra->index < rb->index ? -1 : ra->index > rb->index;
}

static void
ensure_rows (RelayWaterfallPainter *self)
{
  g_autoptr(GHashTable) group_index = NULL;
  g_autoptr(GArray) traces = NULL;
  g_autoptr(GDateTime) min_wall = NULL;
  gint64 min_mono = G_MAXINT64;
  guint n;

  if (!self->dirty)
    return;

  self->dirty = FALSE;
  g_array_set_size (self->rows, 0);
  g_ptr_array_set_size (self->groups, 0);
  self->max_end_ms = 0;

  if (self->traces == NULL)
    return;

  n = g_list_model_get_n_items (self->traces);
  group_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  traces = g_array_sized_new (FALSE, FALSE, sizeof (Row), n);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RelayTrace) trace = g_list_model_get_item (self->traces, i);
      GDateTime *wall = relay_trace_get_wall_start (trace);
      gint64 mono = relay_trace_get_mono_start (trace);
      const char *endpoint, *model;
      gint64 ttft = relay_trace_get_mark (trace, RELAY_MARK_FIRST_TOKEN);
      Row row = { 0 };

      /* The model holds a reference for as long as the row exists (rows are dropped on
       * items-changed), so the row can keep a plain pointer. */
      row.trace = trace;
      row.index = i;
      row.ttft_ms = ttft != RELAY_TIME_NONE ? us_to_ms (ttft) : NAN;
      row.end_ms = us_to_ms (trace_last_mark (trace, NULL));
      row.live = !relay_trace_is_finished (trace);
      trace_names (self, trace, &endpoint, &model);
      row.group = find_group (self, group_index, endpoint, model);
      g_array_append_val (traces, row);

      if (wall != NULL && (min_wall == NULL || g_date_time_compare (wall, min_wall) < 0))
        {
          g_clear_pointer (&min_wall, g_date_time_unref);
          min_wall = g_date_time_ref (wall);
        }
      if (mono > 0)
        min_mono = MIN (min_mono, mono);
    }

  if (self->align == RELAY_WATERFALL_ALIGN_WALL_CLOCK)
    {
      for (guint i = 0; i < traces->len; i++)
        {
          Row *row = &g_array_index (traces, Row, i);
          GDateTime *wall = relay_trace_get_wall_start (row->trace);
          gint64 mono = relay_trace_get_mono_start (row->trace);

          if (wall != NULL && min_wall != NULL)
            row->offset_ms = us_to_ms (g_date_time_difference (wall, min_wall));
          else if (mono > 0 && min_mono != G_MAXINT64)
            row->offset_ms = us_to_ms (mono - min_mono);
        }
    }

  g_array_sort_with_data (traces, compare_rows, self);

  for (guint i = 0; i < traces->len; i++)
    {
      Row *row = &g_array_index (traces, Row, i);

      if (self->group_by_endpoint && (i == 0 || row[-1].group != row->group))
        {
          Row header = { 0 };
          guint count = 0;

          for (guint j = i; j < traces->len && g_array_index (traces, Row, j).group == row->group; j++)
            count++;
          header.group = row->group;
          header.index = count;
          header.ttft_ms = NAN;
          g_array_append_val (self->rows, header);
        }

      g_array_append_val (self->rows, *row);
      if (!row->live)
        self->max_end_ms = MAX (self->max_end_ms, row->offset_ms + row->end_ms);
    }
}

static void
current_view (RelayWaterfallPainter *self,
              double                *t0,
              double                *t1)
{
  ensure_rows (self);

  if (self->auto_fit)
    {
      double max_end = self->max_end_ms;

      for (guint i = 0; i < self->rows->len; i++)
        {
          const Row *row = &g_array_index (self->rows, Row, i);

          if (row->trace != NULL && row->live)
            max_end = MAX (max_end, row->offset_ms + row_end_ms (self, row));
        }

      *t0 = 0;
      *t1 = max_end > 0 ? max_end * AUTO_MARGIN : 1000.0;
    }
  else
    {
      *t0 = self->view_t0;
      *t1 = self->view_t1;
    }
}

static double
header_height (RelayWaterfallPainter *self)
{
  return (self->show_title ? TITLE_HEIGHT : 0) + (self->show_axis ? AXIS_HEIGHT : 0);
}

static double
legend_height (RelayWaterfallPainter *self,
               double                 width)
{
  guint per_line, lines;

  if (!self->show_legend)
    return 0;

  /* Every stage plus the error cap and the TTFT marker. */
  per_line = MAX (1, (guint) ((width - 2 * PAD) / LEGEND_ITEM));
  lines = (RELAY_N_STAGES + 2 + per_line - 1) / per_line;

  return lines * LEGEND_LINE + PAD;
}

static double
label_width (double width)
{
  return CLAMP (floor (width * 0.24), 120.0, 280.0);
}

static void
plot_range (RelayWaterfallPainter *self,
            double                 width,
            double                *x0,
            double                *x1)
{
  *x0 = label_width (width) + PAD;
  *x1 = MAX (*x0 + 1, width - PAD);
}

static double
time_to_x (double t,
           double t0,
           double t1,
           double x0,
           double x1)
{
  return x0 + (t - t0) / (t1 - t0) * (x1 - x0);
}

/* Property plumbing. */

static void
relay_waterfall_painter_finalize (GObject *object)
{
  RelayWaterfallPainter *self = (RelayWaterfallPainter *)object;

  if (self->traces != NULL)
    g_clear_signal_handler (&self->items_changed_id, self->traces);
  g_clear_object (&self->traces);
  g_clear_object (&self->session);
  g_clear_object (&self->budget);
  g_clear_pointer (&self->rows, g_array_unref);
  g_clear_pointer (&self->groups, g_ptr_array_unref);
  g_clear_pointer (&self->title, g_free);

  G_OBJECT_CLASS (relay_waterfall_painter_parent_class)->finalize (object);
}

static void
relay_waterfall_painter_get_property (GObject    *object,
                                      guint       prop_id,
                                      GValue     *value,
                                      GParamSpec *pspec)
{
  RelayWaterfallPainter *self = RELAY_WATERFALL_PAINTER (object);

  switch (prop_id)
    {
    case PROP_ALIGN:
      g_value_set_enum (value, self->align);
      break;
    case PROP_SORT:
      g_value_set_enum (value, self->sort);
      break;
    case PROP_GROUP_BY_ENDPOINT:
      g_value_set_boolean (value, self->group_by_endpoint);
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
    case PROP_AUTO_FIT:
      g_value_set_boolean (value, self->auto_fit);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_waterfall_painter_set_property (GObject      *object,
                                      guint         prop_id,
                                      const GValue *value,
                                      GParamSpec   *pspec)
{
  RelayWaterfallPainter *self = RELAY_WATERFALL_PAINTER (object);

  switch (prop_id)
    {
    case PROP_ALIGN:
      relay_waterfall_painter_set_align (self, g_value_get_enum (value));
      break;
    case PROP_SORT:
      relay_waterfall_painter_set_sort (self, g_value_get_enum (value));
      break;
    case PROP_GROUP_BY_ENDPOINT:
      relay_waterfall_painter_set_group_by_endpoint (self, g_value_get_boolean (value));
      break;
    case PROP_TITLE:
      relay_waterfall_painter_set_title (self, g_value_get_string (value));
      break;
    case PROP_SHOW_TITLE:
      relay_waterfall_painter_set_show_title (self, g_value_get_boolean (value));
      break;
    case PROP_SHOW_LEGEND:
      relay_waterfall_painter_set_show_legend (self, g_value_get_boolean (value));
      break;
    case PROP_SHOW_AXIS:
      relay_waterfall_painter_set_show_axis (self, g_value_get_boolean (value));
      break;
    case PROP_AUTO_FIT:
      if (g_value_get_boolean (value))
        relay_waterfall_painter_reset_view (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
relay_waterfall_painter_class_init (RelayWaterfallPainterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = relay_waterfall_painter_finalize;
  object_class->get_property = relay_waterfall_painter_get_property;
  object_class->set_property = relay_waterfall_painter_set_property;

  properties[PROP_ALIGN] =
    g_param_spec_enum ("align", NULL, NULL,
                       RELAY_TYPE_WATERFALL_ALIGN, RELAY_WATERFALL_ALIGN_START,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SORT] =
    g_param_spec_enum ("sort", NULL, NULL,
                       RELAY_TYPE_WATERFALL_SORT, RELAY_WATERFALL_SORT_START,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_GROUP_BY_ENDPOINT] =
    g_param_spec_boolean ("group-by-endpoint", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_TITLE] =
    g_param_spec_boolean ("show-title", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_LEGEND] =
    g_param_spec_boolean ("show-legend", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHOW_AXIS] =
    g_param_spec_boolean ("show-axis", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_AUTO_FIT] =
    g_param_spec_boolean ("auto-fit", NULL, NULL, TRUE,
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
relay_waterfall_painter_init (RelayWaterfallPainter *self)
{
  self->rows = g_array_new (FALSE, FALSE, sizeof (Row));
  self->groups = g_ptr_array_new_with_free_func (group_free);
  self->auto_fit = TRUE;
  self->show_axis = TRUE;
  self->view_t1 = 1000.0;
  self->dirty = TRUE;
  relay_chart_style_init (&self->style, FALSE);
}

RelayWaterfallPainter *
relay_waterfall_painter_new (void)
{
  return g_object_new (RELAY_TYPE_WATERFALL_PAINTER, NULL);
}

void
relay_waterfall_painter_set_traces (RelayWaterfallPainter *self,
                                    GListModel            *traces,
                                    RelaySession          *session)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));
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
relay_waterfall_painter_get_traces (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), NULL);
  return self->traces;
}

RelaySession *
relay_waterfall_painter_get_session (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), NULL);
  return self->session;
}

void
relay_waterfall_painter_invalidate (RelayWaterfallPainter *self)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));
  mark_dirty (self);
}

void
relay_waterfall_painter_set_align (RelayWaterfallPainter *self,
                                   RelayWaterfallAlign    align)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));

  if (self->align == align)
    return;
  self->align = align;
  mark_dirty (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ALIGN]);
}

RelayWaterfallAlign
relay_waterfall_painter_get_align (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), 0);
  return self->align;
}

void
relay_waterfall_painter_set_sort (RelayWaterfallPainter *self,
                                  RelayWaterfallSort     sort)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));

  if (self->sort == sort)
    return;
  self->sort = sort;
  mark_dirty (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SORT]);
}

RelayWaterfallSort
relay_waterfall_painter_get_sort (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), 0);
  return self->sort;
}

void
relay_waterfall_painter_set_group_by_endpoint (RelayWaterfallPainter *self,
                                               gboolean               group)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));

  group = !!group;
  if (self->group_by_endpoint == group)
    return;
  self->group_by_endpoint = group;
  mark_dirty (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_GROUP_BY_ENDPOINT]);
}

gboolean
relay_waterfall_painter_get_group_by_endpoint (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), FALSE);
  return self->group_by_endpoint;
}

static void
set_auto_fit (RelayWaterfallPainter *self,
              gboolean               auto_fit)
{
  if (self->auto_fit == auto_fit)
    return;
  self->auto_fit = auto_fit;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUTO_FIT]);
}

void
relay_waterfall_painter_set_view (RelayWaterfallPainter *self,
                                  double                 t0_ms,
                                  double                 t1_ms)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));
  g_return_if_fail (isfinite (t0_ms) && isfinite (t1_ms));

  /* A view narrower than a microsecond shows nothing a trace can resolve. */
  if (t1_ms - t0_ms < 0.001)
    t1_ms = t0_ms + 0.001;

  self->view_t0 = t0_ms;
  self->view_t1 = t1_ms;
  set_auto_fit (self, FALSE);
  emit_changed (self);
}

void
relay_waterfall_painter_get_view (RelayWaterfallPainter *self,
                                  double                *t0_ms,
                                  double                *t1_ms)
{
  double t0, t1;

  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));

  current_view (self, &t0, &t1);
  if (t0_ms)
    *t0_ms = t0;
  if (t1_ms)
    *t1_ms = t1;
}

void
relay_waterfall_painter_reset_view (RelayWaterfallPainter *self)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));

  set_auto_fit (self, TRUE);
  emit_changed (self);
}

gboolean
relay_waterfall_painter_get_auto_fit (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), FALSE);
  return self->auto_fit;
}

void
relay_waterfall_painter_zoom (RelayWaterfallPainter *self,
                              double                 factor,
                              double                 anchor_ms)
{
  double t0, t1;

  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));
  g_return_if_fail (factor > 0);

  current_view (self, &t0, &t1);
  relay_waterfall_painter_set_view (self,
                                    anchor_ms - (anchor_ms - t0) / factor,
                                    anchor_ms + (t1 - anchor_ms) / factor);
}

void
relay_waterfall_painter_pan (RelayWaterfallPainter *self,
                             double                 delta_ms)
{
  double t0, t1;

  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));

  current_view (self, &t0, &t1);
  relay_waterfall_painter_set_view (self, t0 + delta_ms, t1 + delta_ms);
}

void
relay_waterfall_painter_set_now (RelayWaterfallPainter *self,
                                 gint64                 now_us)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));

  if (self->now_us == now_us)
    return;
  self->now_us = now_us;
  emit_changed (self);
}

gint64
relay_waterfall_painter_get_now (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), 0);
  return self->now_us;
}

void
relay_waterfall_painter_set_style (RelayWaterfallPainter *self,
                                   const RelayChartStyle *style)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));
  g_return_if_fail (style != NULL);

  self->style = *style;
  self->style.font[sizeof self->style.font - 1] = '\0';
  emit_changed (self);
}

const RelayChartStyle *
relay_waterfall_painter_get_style (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), NULL);
  return &self->style;
}

void
relay_waterfall_painter_set_title (RelayWaterfallPainter *self,
                                   const char            *title)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));

  if (g_strcmp0 (self->title, title) == 0)
    return;

  g_free (self->title);
  self->title = g_strdup (title);
  emit_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

const char *
relay_waterfall_painter_get_title (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), NULL);
  return self->title;
}

static void
set_flag (RelayWaterfallPainter *self,
          gboolean              *flag,
          gboolean               value,
          guint                  prop)
{
  value = !!value;
  if (*flag == value)
    return;
  *flag = value;
  emit_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

void
relay_waterfall_painter_set_show_title (RelayWaterfallPainter *self,
                                        gboolean               show)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));
  set_flag (self, &self->show_title, show, PROP_SHOW_TITLE);
}

void
relay_waterfall_painter_set_show_legend (RelayWaterfallPainter *self,
                                         gboolean               show)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));
  set_flag (self, &self->show_legend, show, PROP_SHOW_LEGEND);
}

void
relay_waterfall_painter_set_show_axis (RelayWaterfallPainter *self,
                                       gboolean               show)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));
  set_flag (self, &self->show_axis, show, PROP_SHOW_AXIS);
}

gboolean
relay_waterfall_painter_get_show_title (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), FALSE);
  return self->show_title;
}

gboolean
relay_waterfall_painter_get_show_legend (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), FALSE);
  return self->show_legend;
}

gboolean
relay_waterfall_painter_get_show_axis (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), FALSE);
  return self->show_axis;
}

void
relay_waterfall_painter_set_scroll_offset (RelayWaterfallPainter *self,
                                           double                 offset)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));

  offset = MAX (0, offset);
  if (self->scroll_offset == offset)
    return;
  self->scroll_offset = offset;
  emit_changed (self);
}

double
relay_waterfall_painter_get_scroll_offset (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), 0);
  return self->scroll_offset;
}

void
relay_waterfall_painter_set_selected (RelayWaterfallPainter *self,
                                      RelayTrace            *trace)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));

  if (self->selected == trace)
    return;
  self->selected = trace;
  emit_changed (self);
}

double
relay_waterfall_painter_get_row_height (RelayWaterfallPainter *self)
{
  return ROW_HEIGHT;
}

guint
relay_waterfall_painter_get_n_rows (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), 0);

  ensure_rows (self);
  return self->rows->len;
}

double
relay_waterfall_painter_get_header_height (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), 0);
  return header_height (self);
}

static double
content_height (RelayWaterfallPainter *self,
                double                 width)
{
  ensure_rows (self);
  return header_height (self) + self->rows->len * ROW_HEIGHT + legend_height (self, width);
}

double
relay_waterfall_painter_get_content_height (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), 0);

  /* The legend wraps with the width; use the width last drawn at. */
  return content_height (self, self->last_width > 0 ? self->last_width : 800.0);
}

double
_relay_waterfall_painter_get_content_height_for_width (RelayWaterfallPainter *self,
                                                       double                 width)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), 0);
  return content_height (self, width);
}

double
relay_waterfall_painter_get_label_width (RelayWaterfallPainter *self,
                                         double                 width)
{
  return label_width (width);
}

double
relay_waterfall_painter_get_trace_y (RelayWaterfallPainter *self,
                                     RelayTrace            *trace)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), -1);

  ensure_rows (self);
  for (guint i = 0; i < self->rows->len; i++)
    if (g_array_index (self->rows, Row, i).trace == trace && trace != NULL)
      return header_height (self) - self->scroll_offset + i * ROW_HEIGHT;

  return -1;
}

RelayTrace *
relay_waterfall_painter_get_row_trace (RelayWaterfallPainter *self,
                                       guint                  row)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), NULL);

  ensure_rows (self);
  if (row >= self->rows->len)
    return NULL;

  return g_array_index (self->rows, Row, row).trace;
}

int
relay_waterfall_painter_get_trace_row (RelayWaterfallPainter *self,
                                       RelayTrace            *trace)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), -1);

  if (trace == NULL)
    return -1;

  ensure_rows (self);
  for (guint i = 0; i < self->rows->len; i++)
    if (g_array_index (self->rows, Row, i).trace == trace)
      return (int) i;

  return -1;
}

double
relay_waterfall_painter_time_to_x (RelayWaterfallPainter *self,
                                   double                 width,
                                   double                 t_ms)
{
  double t0, t1, x0, x1;

  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), 0);

  current_view (self, &t0, &t1);
  plot_range (self, width, &x0, &x1);
  return time_to_x (t_ms, t0, t1, x0, x1);
}

double
relay_waterfall_painter_x_to_time (RelayWaterfallPainter *self,
                                   double                 width,
                                   double                 x)
{
  double t0, t1, x0, x1;

  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), 0);

  current_view (self, &t0, &t1);
  plot_range (self, width, &x0, &x1);
  return t0 + (x - x0) / (x1 - x0) * (t1 - t0);
}

gboolean
relay_waterfall_painter_hit_test (RelayWaterfallPainter *self,
                                  double                 width,
                                  double                 x,
                                  double                 y,
                                  RelayWaterfallHit     *hit)
{
  RelaySegment segments[RELAY_N_MARKS + 2];
  double rows_top, t0, t1, x0, x1, t;
  const Row *row;
  guint n, i;

  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), FALSE);
  g_return_val_if_fail (hit != NULL, FALSE);

  memset (hit, 0, sizeof *hit);
  hit->stage = RELAY_N_STAGES;

  current_view (self, &t0, &t1);
  plot_range (self, width, &x0, &x1);
  rows_top = header_height (self) - self->scroll_offset;

  if (y < header_height (self) || y < rows_top || x < 0 || x >= width)
    return FALSE;

  i = (guint) ((y - rows_top) / ROW_HEIGHT);
  if (i >= self->rows->len)
    return FALSE;

  row = &g_array_index (self->rows, Row, i);
  hit->row = i;
  hit->trace = row->trace;
  hit->x = 0;
  hit->y = rows_top + i * ROW_HEIGHT;
  hit->width = width;
  hit->height = ROW_HEIGHT;

  if (row->trace == NULL)
    return TRUE;

  if (x < x0)
    {
      hit->in_label = TRUE;
      return TRUE;
    }

  t = t0 + (x - x0) / (x1 - x0) * (t1 - t0) - row->offset_ms;
  n = row_segments (self, row, segments, G_N_ELEMENTS (segments));
  for (guint s = 0; s < n; s++)
    {
      double b = us_to_ms (segments[s].begin_us);
      double e = us_to_ms (segments[s].end_us);
      double sx0 = floor (time_to_x (b + row->offset_ms, t0, t1, x0, x1));
      double sx1 = ceil (time_to_x (e + row->offset_ms, t0, t1, x0, x1));

      /* Slivers narrower than a pixel are still hit when the pointer is on their pixel. */
      if ((t >= b && t < e) || (x >= sx0 && x < sx1 && sx1 - sx0 <= 1))
        {
          hit->stage = segments[s].stage;
          hit->begin_us = segments[s].begin_us;
          hit->end_us = segments[s].end_us;
          hit->x = sx0;
          hit->y += BAR_TOP;
          hit->width = sx1 - sx0;
          hit->height = BAR_HEIGHT;
          break;
        }
    }

  return TRUE;
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
row_label (RelayWaterfallPainter *self,
           const Row             *row)
{
  const char *endpoint, *model;

  if (row->trace == NULL)
    {
      const Group *group = g_ptr_array_index (self->groups, row->group);

      return g_strdup_printf ("%s · %s  (%u)",
                              group->endpoint ? relay_chart_short_endpoint_name (group->endpoint) : _("Unknown endpoint"),
                              group->model ? group->model : _("unknown model"),
                              row->index);
    }

  trace_names (self, row->trace, &endpoint, &model);
  if (endpoint == NULL && model == NULL)
    /* TRANSLATORS: a waterfall row of a trace without a known endpoint: run and sequence */
    return g_strdup_printf (_("Run %u #%u"), relay_trace_get_run (row->trace),
                            relay_trace_get_seq (row->trace));
  if (self->group_by_endpoint)
    return g_strdup_printf ("#%u", relay_trace_get_seq (row->trace));

  return g_strdup_printf ("%s · %s #%u", endpoint ? relay_chart_short_endpoint_name (endpoint) : "?", model ? model : "?",
                          relay_trace_get_seq (row->trace));
}

static char *
row_status (RelayWaterfallPainter *self,
            const Row             *row,
            gboolean              *is_error)
{
  *is_error = FALSE;

  if (!relay_trace_is_ok (row->trace))
    {
      const char *kind = relay_trace_get_error_kind (row->trace);

      *is_error = TRUE;
      if (kind == NULL || *kind == '\0')
        kind = relay_error_stage_to_string (relay_trace_get_error_stage (row->trace));
      return g_strdup (kind);
    }

  if (!isnan (row_ttft_ms (row)))
    {
      g_autofree char *ms = relay_chart_format_ms (round (row_ttft_ms (row)));

      /* TRANSLATORS: time to first token, shown beside a waterfall row */
      return g_strdup_printf (_("TTFT %s"), ms);
    }

  if (row->live && !relay_trace_is_finished (row->trace))
    return g_strdup (_("live"));

  return NULL;
}

static void
draw_chunk_ticks (RelayWaterfallPainter *self,
                  cairo_t               *cr,
                  const Row             *row,
                  double                 y,
                  double                 t0,
                  double                 t1,
                  double                 x0,
                  double                 x1)
{
  const RelayChunk *chunks;
  guint n, i = 0;
  double ms_per_px = (t1 - t0) / (x1 - x0);

  chunks = relay_trace_get_chunks (row->trace, &n);
  if (n == 0)
    return;

  relay_chart_set_source_color (cr, &self->style.marker);

  /* One tick per pixel column: after drawing a column, binary-search the first chunk of the
   * next one, so a million chunks cost a few thousand steps. */
  while (i < n)
    {
      double t = us_to_ms (chunks[i].t_us) + row->offset_ms;
      double col;
      gint64 next_us;
      guint lo, hi;

      if (t >= t1)
        break;

      if (t < t0)
        col = -1;
      else
        {
          col = floor (time_to_x (t, t0, t1, x0, x1));
          cairo_rectangle (cr, col, y + TICK_TOP, 1, TICK_HEIGHT);
        }

      next_us = (gint64) ceil ((t0 + (col + 1 - x0) * ms_per_px - row->offset_ms) * 1000.0);
      if (col < 0)
        next_us = (gint64) ceil ((t0 - row->offset_ms) * 1000.0);

      lo = i + 1;
      hi = n;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (chunks[mid].t_us < next_us)
            lo = mid + 1;
          else
            hi = mid;
        }
      i = lo;
    }

  cairo_fill (cr);
}

/* Whether an overrun of item covers stage; items spanning the row return FALSE for all. */
static gboolean
item_covers_stage (RelayBudgetItem item,
                   RelayStage      stage)
{
  switch (item)
    {
    case RELAY_BUDGET_NETWORK:
      return stage == RELAY_STAGE_DNS || stage == RELAY_STAGE_TCP || stage == RELAY_STAGE_PROXY ||
             stage == RELAY_STAGE_TLS_SETUP || stage == RELAY_STAGE_TLS;
    case RELAY_BUDGET_DNS:
      return stage == RELAY_STAGE_DNS;
    case RELAY_BUDGET_TCP:
      return stage == RELAY_STAGE_TCP;
    case RELAY_BUDGET_TLS:
      return stage == RELAY_STAGE_TLS;
    case RELAY_BUDGET_WAIT:
      return stage == RELAY_STAGE_WAIT;
    case RELAY_BUDGET_FIRST_TOKEN:
      return stage == RELAY_STAGE_FIRST_EVENT || stage == RELAY_STAGE_FIRST_TOKEN;
    case RELAY_BUDGET_TTFT:
    case RELAY_BUDGET_END_TO_END:
    case RELAY_BUDGET_ITL:
    case RELAY_BUDGET_TOTAL:
    case RELAY_BUDGET_TOKENS_PER_S:
    case RELAY_N_BUDGET_ITEMS:
    default:
      return FALSE;
    }
}

static void
draw_overruns (RelayWaterfallPainter *self,
               cairo_t               *cr,
               const Row             *row,
               const RelaySegment    *segments,
               guint                  n,
               double                 y,
               double                 t0,
               double                 t1,
               double                 x0,
               double                 x1)
{
  RelayBudgetItem items[RELAY_N_BUDGET_ITEMS];
  guint n_items = relay_budget_trace_overruns (self->budget, row->trace, items, G_N_ELEMENTS (items));
  gboolean whole = FALSE;
  gboolean to_first_token = FALSE;

  if (n_items == 0 || n == 0)
    return;

  relay_chart_set_source_color (cr, &self->style.error);
  cairo_set_line_width (cr, 1.5);

  for (guint i = 0; i < n_items; i++)
    {
      double b = INFINITY, e = -INFINITY;
      gboolean any = FALSE;

      for (guint s = 0; s < n; s++)
        if (item_covers_stage (items[i], segments[s].stage))
          {
            b = MIN (b, us_to_ms (segments[s].begin_us) + row->offset_ms);
            e = MAX (e, us_to_ms (segments[s].end_us) + row->offset_ms);
            any = TRUE;
          }

      if (!any)
        {
          /* TTFT and end to end end at the first token; the rest span the row. */
          if (items[i] == RELAY_BUDGET_TTFT || items[i] == RELAY_BUDGET_END_TO_END)
            to_first_token = TRUE;
          else
            whole = TRUE;
          continue;
        }

      cairo_rectangle (cr,
                       round (time_to_x (b, t0, t1, x0, x1)) - 0.75, y + BAR_TOP - 1.75,
                       MAX (round (time_to_x (e, t0, t1, x0, x1)) - round (time_to_x (b, t0, t1, x0, x1)), 2) + 1.5,
                       BAR_HEIGHT + 3.5);
      cairo_stroke (cr);
    }

  if (whole || to_first_token)
    {
      double b = us_to_ms (segments[0].begin_us) + row->offset_ms;
      double e = us_to_ms (segments[n - 1].end_us) + row->offset_ms;
      static const double dash[] = { 3, 2 };

      if (!whole && !isnan (row_ttft_ms (row)))
        e = row_ttft_ms (row) + row->offset_ms;

      cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
      cairo_rectangle (cr,
                       round (time_to_x (b, t0, t1, x0, x1)) - 2.25, y + BAR_TOP - 3.25,
                       round (time_to_x (e, t0, t1, x0, x1)) - round (time_to_x (b, t0, t1, x0, x1)) + 4.5,
                       BAR_HEIGHT + 6.5);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
}

static void
draw_row (RelayWaterfallPainter *self,
          cairo_t               *cr,
          PangoLayout           *layout,
          const Row             *row,
          double                 y,
          double                 width,
          double                 t0,
          double                 t1,
          double                 x0,
          double                 x1)
{
  RelaySegment segments[RELAY_N_MARKS + 2];
  g_autofree char *label = row_label (self, row);
  g_autofree char *status = NULL;
  double lw = label_width (width);
  double split;
  double end_x = -1;
  gboolean is_error = FALSE;
  guint n;

  if (row->trace == NULL)
    {
      relay_chart_set_source_color (cr, &self->style.group);
      cairo_rectangle (cr, 0, y, width, ROW_HEIGHT);
      cairo_fill (cr);
      show_text (cr, layout, label, &self->style.foreground, PAD, y + ROW_HEIGHT / 2,
                 width - 2 * PAD, PANGO_ALIGN_LEFT);
      return;
    }

  if (self->selected == row->trace)
    {
      relay_chart_set_source_color (cr, &self->style.highlight);
      cairo_rectangle (cr, 0, y, width, ROW_HEIGHT);
      cairo_fill (cr);
    }

  /* Grouped rows are labelled "#3" only: the status ("TTFT 221 ms") gets the room. */
  split = lw * (self->group_by_endpoint ? 0.3 : 0.62);
  status = row_status (self, row, &is_error);
  show_text (cr, layout, label, &self->style.foreground,
             PAD + (self->group_by_endpoint ? PAD : 0), y + ROW_HEIGHT / 2,
             split - PAD, PANGO_ALIGN_LEFT);
  if (status != NULL)
    show_text (cr, layout, status, is_error ? &self->style.error : &self->style.muted,
               split, y + ROW_HEIGHT / 2, lw - split - PAD / 2, PANGO_ALIGN_RIGHT);

  /* An overrun is marked in the label column too, so that it shows when the bar is
   * scrolled or zoomed out of view. */
  if (relay_waterfall_painter_trace_over_budget (self, row->trace))
    {
      relay_chart_set_source_color (cr, &self->style.error);
      cairo_rectangle (cr, 0, y + 2, 3, ROW_HEIGHT - 4);
      cairo_fill (cr);
    }

  cairo_save (cr);
  cairo_rectangle (cr, x0, y, x1 - x0, ROW_HEIGHT);
  cairo_clip (cr);

  /* Segments tile the row, so snapping both edges to whole pixels keeps them contiguous; a
   * segment that rounds to nothing leaves its pixel to a neighbour. */
  n = row_segments (self, row, segments, G_N_ELEMENTS (segments));
  for (guint s = 0; s < n; s++)
    {
      double b = us_to_ms (segments[s].begin_us) + row->offset_ms;
      double e = us_to_ms (segments[s].end_us) + row->offset_ms;
      double px0, px1;

      if (e < t0 || b > t1)
        continue;

      px0 = round (time_to_x (MAX (b, t0 - 1e-3 * (t1 - t0)), t0, t1, x0, x1));
      px1 = round (time_to_x (MIN (e, t1 + 1e-3 * (t1 - t0)), t0, t1, x0, x1));
      if (px1 <= px0)
        continue;

      relay_chart_fill_stage (cr, &self->style, segments[s].stage,
                              px0, y + BAR_TOP, px1 - px0, BAR_HEIGHT);
    }

  if (n > 0)
    end_x = round (time_to_x (us_to_ms (segments[n - 1].end_us) + row->offset_ms, t0, t1, x0, x1));

  /* TTFT marker: a small triangle above the bar. */
  if (!isnan (row_ttft_ms (row)))
    {
      double tx = time_to_x (row_ttft_ms (row) + row->offset_ms, t0, t1, x0, x1);

      if (tx >= x0 - 4 && tx <= x1 + 4)
        {
          relay_chart_set_source_color (cr, &self->style.marker);
          cairo_move_to (cr, tx - 3, y);
          cairo_line_to (cr, tx + 3, y);
          cairo_line_to (cr, tx, y + BAR_TOP - 0.5);
          cairo_close_path (cr);
          cairo_fill (cr);
        }
    }

  draw_chunk_ticks (self, cr, row, y, t0, t1, x0, x1);

  if (self->budget != NULL && relay_trace_is_finished (row->trace))
    draw_overruns (self, cr, row, segments, n, y, t0, t1, x0, x1);

  if (is_error)
    {
      g_autofree char *what = NULL;
      double cx = end_x >= 0 ? end_x : x0;
      int tw;

      /* Where it broke: a red cap on the end of the bar and the error kind beside it. */
      relay_chart_set_source_color (cr, &self->style.error);
      cairo_rectangle (cr, cx, y + BAR_TOP - 2, ERROR_CAP, BAR_HEIGHT + 4);
      cairo_fill (cr);

      what = g_strdup (status);
      pango_layout_set_width (layout, -1);
      pango_layout_set_text (layout, what, -1);
      pango_layout_get_pixel_size (layout, &tw, NULL);

      /* Beside the cap when it fits whole; the label column names the kind anyway, and a
       * clipped "tim…" at the edge would only look broken. */
      if (cx + ERROR_CAP + 4 + tw <= x1)
        show_text (cr, layout, what, &self->style.error, cx + ERROR_CAP + 4,
                   y + ROW_HEIGHT / 2, x1 - cx - ERROR_CAP - 4, PANGO_ALIGN_LEFT);
    }

  cairo_restore (cr);
}

static void
draw_axis (RelayWaterfallPainter *self,
           cairo_t               *cr,
           PangoLayout           *layout,
           double                 top,
           double                 bottom,
           double                 t0,
           double                 t1,
           double                 x0,
           double                 x1)
{
  double first, step;
  guint max_ticks = MAX (2, (guint) ((x1 - x0) / 90));

  step = relay_chart_nice_step (t0, t1, max_ticks, &first);

  /* Grid lines through the rows, then labels in the header. */
  relay_chart_set_source_color (cr, &self->style.grid);
  for (double t = first; t <= t1 + step * 1e-6; t += step)
    {
      double x = floor (time_to_x (t, t0, t1, x0, x1));

      cairo_rectangle (cr, x, top + AXIS_HEIGHT - 4, 1, bottom - (top + AXIS_HEIGHT - 4));
    }
  cairo_fill (cr);

  for (double t = first; t <= t1 + step * 1e-6; t += step)
    {
      double x = floor (time_to_x (t, t0, t1, x0, x1));
      g_autofree char *text = relay_chart_format_ms (fabs (t) < step * 1e-6 ? 0 : t);
      int tw, th;

      pango_layout_set_width (layout, -1);
      pango_layout_set_text (layout, text, -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      relay_chart_set_source_color (cr, &self->style.muted);
      cairo_move_to (cr, CLAMP (x - tw / 2.0, x0 - PAD, x1 + PAD - tw), top + (AXIS_HEIGHT - 4 - th) / 2);
      pango_cairo_show_layout (cr, layout);
    }

  relay_chart_set_source_color (cr, &self->style.foreground);
  cairo_rectangle (cr, x0, top + AXIS_HEIGHT - 1, x1 - x0, 1);
  cairo_fill (cr);
}

static void
draw_legend (RelayWaterfallPainter *self,
             cairo_t               *cr,
             PangoLayout           *layout,
             double                 top,
             double                 width)
{
  guint per_line = MAX (1, (guint) ((width - 2 * PAD) / LEGEND_ITEM));

  for (guint i = 0; i < RELAY_N_STAGES + 2; i++)
    {
      double x = PAD + (i % per_line) * LEGEND_ITEM;
      double y = top + PAD + (i / per_line) * LEGEND_LINE;
      const char *text;

      if (i < RELAY_N_STAGES)
        {
          relay_chart_fill_stage (cr, &self->style, i, x, y + 4, 12, 10);
          text = relay_chart_stage_label (i);
        }
      else if (i == RELAY_N_STAGES)
        {
          relay_chart_set_source_color (cr, &self->style.error);
          cairo_rectangle (cr, x + 4, y + 2, ERROR_CAP, 14);
          cairo_fill (cr);
          text = _("Error");
        }
      else
        {
          relay_chart_set_source_color (cr, &self->style.marker);
          cairo_move_to (cr, x + 2, y + 4);
          cairo_line_to (cr, x + 10, y + 4);
          cairo_line_to (cr, x + 6, y + 10);
          cairo_close_path (cr);
          cairo_fill (cr);
          /* TRANSLATORS: legend entry of the marker at the first token */
          text = _("TTFT");
        }

      show_text (cr, layout, text, &self->style.foreground, x + 16, y + 9,
                 LEGEND_ITEM - 20, PANGO_ALIGN_LEFT);
    }
}

void
relay_waterfall_painter_draw (RelayWaterfallPainter *self,
                              cairo_t               *cr,
                              double                 width,
                              double                 height)
{
  g_autoptr(PangoFontDescription) font = NULL;
  g_autoptr(PangoLayout) layout = NULL;
  double cx0, cy0, cx1, cy1;
  double t0, t1, x0, x1, top, rows_top, rows_bottom;
  guint first_row, last_row;

  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));
  g_return_if_fail (cr != NULL);

  if (width <= 0 || height <= 0)
    return;

  self->last_width = width;
  current_view (self, &t0, &t1);
  plot_range (self, width, &x0, &x1);

  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_clip (cr);
  cairo_clip_extents (cr, &cx0, &cy0, &cx1, &cy1);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);

  relay_chart_set_source_color (cr, &self->style.background);
  cairo_paint (cr);

  layout = pango_cairo_create_layout (cr);
  font = pango_font_description_from_string (self->style.font);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode (layout, TRUE);

  top = 0;
  if (self->show_title)
    {
      const char *title = self->title ? self->title : _("Latency waterfall");
      g_autoptr(PangoFontDescription) bold = pango_font_description_copy (font);

      pango_font_description_set_weight (bold, PANGO_WEIGHT_BOLD);
      pango_layout_set_font_description (layout, bold);
      show_text (cr, layout, title, &self->style.foreground, PAD, TITLE_HEIGHT / 2,
                 width - 2 * PAD, PANGO_ALIGN_LEFT);
      pango_layout_set_font_description (layout, font);
      top += TITLE_HEIGHT;
    }

  rows_top = header_height (self) - self->scroll_offset;
  rows_bottom = MIN (height - legend_height (self, width),
                     rows_top + self->rows->len * ROW_HEIGHT);

  if (self->show_axis)
    draw_axis (self, cr, layout, top, MAX (rows_bottom, top + AXIS_HEIGHT), t0, t1, x0, x1);

  if (self->rows->len == 0)
    {
      show_text (cr, layout, _("No traces yet"), &self->style.muted, PAD,
                 header_height (self) + ROW_HEIGHT, width - 2 * PAD, PANGO_ALIGN_CENTER);
    }
  else
    {
      double clip_top = MAX (cy0, header_height (self));
      double clip_bottom = MIN (cy1, rows_bottom);

      /* Only the rows that meet the clip (the widget's visible area) are drawn. */
      cairo_save (cr);
      cairo_rectangle (cr, 0, header_height (self), width,
                       MAX (0, rows_bottom - header_height (self)));
      cairo_clip (cr);

      if (clip_bottom > clip_top)
        {
          first_row = (guint) MAX (0, floor ((clip_top - rows_top) / ROW_HEIGHT));
          last_row = (guint) MIN ((double) self->rows->len,
                                  ceil ((clip_bottom - rows_top) / ROW_HEIGHT));

          for (guint i = first_row; i < last_row; i++)
            draw_row (self, cr, layout, &g_array_index (self->rows, Row, i),
                      rows_top + i * ROW_HEIGHT, width, t0, t1, x0, x1);
        }

      cairo_restore (cr);
    }

  if (self->show_legend)
    draw_legend (self, cr, layout, height - legend_height (self, width), width);

  cairo_restore (cr);
}

void
relay_waterfall_painter_set_budget (RelayWaterfallPainter *self,
                                    RelayBudget           *budget)
{
  g_return_if_fail (RELAY_IS_WATERFALL_PAINTER (self));
  g_return_if_fail (budget == NULL || RELAY_IS_BUDGET (budget));

  if (g_set_object (&self->budget, budget))
    g_signal_emit (self, signals[CHANGED], 0);
}

RelayBudget *
relay_waterfall_painter_get_budget (RelayWaterfallPainter *self)
{
  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), NULL);

  return self->budget;
}

gboolean
relay_waterfall_painter_trace_over_budget (RelayWaterfallPainter *self,
                                           RelayTrace            *trace)
{
  RelayBudgetItem items[RELAY_N_BUDGET_ITEMS];

  g_return_val_if_fail (RELAY_IS_WATERFALL_PAINTER (self), FALSE);
  g_return_val_if_fail (RELAY_IS_TRACE (trace), FALSE);

  return self->budget != NULL && relay_trace_is_finished (trace) &&
         relay_budget_trace_overruns (self->budget, trace, items, G_N_ELEMENTS (items)) > 0;
}
