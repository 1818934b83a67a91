/* relay-trace-details.c: everything recorded about one trace.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "relay-chart-palette.h"
#include "relay-prompts.h"
#include "relay-trace-details.h"

struct _RelayTraceDetails
{
  GtkWidget           parent_instance;

  GtkStack           *stack;
  AdwPreferencesPage *page;
  GPtrArray          *groups;
  RelayTrace         *trace;
  RelaySession       *session;
};

G_DEFINE_FINAL_TYPE (RelayTraceDetails, relay_trace_details, GTK_TYPE_WIDGET)

/* Durations read like DevTools': "657.5 ms", and seconds once they pass one. */
static char *
format_us (gint64 us)
{
  if (us == RELAY_TIME_NONE)
    return g_strdup ("—");

  if (ABS (us) >= G_USEC_PER_SEC)
    /* Translators: a duration in seconds */
    return g_strdup_printf (_("%.2f s"), us / (double) G_USEC_PER_SEC);

  /* Translators: a duration in milliseconds */
  return g_strdup_printf (_("%.1f ms"), us / 1000.0);
}

static AdwPreferencesGroup *
add_group (RelayTraceDetails *self,
           const char        *title,
           const char        *description)
{
  AdwPreferencesGroup *group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());

  adw_preferences_group_set_title (group, title);
  if (description != NULL)
    adw_preferences_group_set_description (group, description);
  adw_preferences_page_add (self->page, group);
  g_ptr_array_add (self->groups, group);

  return group;
}

static GtkWidget *
add_row (AdwPreferencesGroup *group,
         const char          *title,
         const char          *value)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *label = gtk_label_new (value != NULL && value[0] != '\0' ? value : "—");

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  /* Short figures stay on one line; only long values (headers, ciphers) may wrap, and
   * they get a minimum width so a narrow row cannot break them letter by letter. */
  if (value != NULL && g_utf8_strlen (value, -1) > 48)
    {
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_width_chars (GTK_LABEL (label), 32);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 56);
    }
  gtk_widget_add_css_class (label, "numeric");
  if (value == NULL || value[0] == '\0')
    gtk_widget_add_css_class (label, "dim-label");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  adw_preferences_group_add (group, row);

  return row;
}

static void
draw_swatch (GtkDrawingArea *area,
             cairo_t        *cr,
             int             width,
             int             height,
             gpointer        user_data)
{
  RelayStage stage = GPOINTER_TO_UINT (user_data);
  RelayChartStyle style;

  relay_chart_style_init (&style, adw_style_manager_get_dark (adw_style_manager_get_default ()));
  relay_chart_fill_stage (cr, &style, stage, 0, 0, width, height);
}

static void
build_summary (RelayTraceDetails *self)
{
  RelayTrace *trace = self->trace;
  RelayRun *run = NULL;
  AdwPreferencesGroup *group;
  g_autofree char *title = NULL;
  g_autofree char *started = NULL;
  g_autofree char *ttft = NULL;
  g_autofree char *total = NULL;
  g_autofree char *tokens = NULL;
  g_autofree char *rate = NULL;
  g_autofree char *chunks = NULL;
  gboolean estimated = FALSE;
  gint64 output;
  double per_second;
  GDateTime *wall;

  if (self->session != NULL)
    run = relay_session_get_run (self->session, relay_trace_get_run (trace));

  if (run != NULL)
    title = g_strdup_printf ("%s · %s · #%u", relay_chart_short_endpoint_name (relay_run_get_endpoint (run)),
                             relay_run_get_model (run), relay_trace_get_seq (trace));
  else
    title = g_strdup_printf (_("Trace #%u"), relay_trace_get_seq (trace));

  group = add_group (self, title, NULL);

  if (!relay_trace_is_finished (trace))
    add_row (group, _("Status"), _("Running"));
  else if (relay_trace_is_ok (trace))
    add_row (group, _("Status"), _("Succeeded"));
  else
    {
      g_autofree char *status = g_strdup_printf (_("Failed at %s"),
                                                 relay_error_stage_to_string (relay_trace_get_error_stage (trace)));
      GtkWidget *row = add_row (group, _("Status"), status);

      gtk_widget_add_css_class (row, "error");
    }

  wall = relay_trace_get_wall_start (trace);
  if (wall != NULL)
    started = g_date_time_format (wall, "%Y-%m-%d %H:%M:%S");
  add_row (group, _("Started"), started);

  if (run != NULL)
    {
      g_autofree char *spec = NULL;

      static const char *preset_names[] = {
        N_("Short chat"), N_("Long context"), N_("Cached prefix"), N_("Custom prompt"),
      };
      RelayPromptPreset preset = relay_run_get_prompt_preset (run) != NULL
                               ? relay_prompt_preset_from_string (relay_run_get_prompt_preset (run))
                               : RELAY_PROMPT_CUSTOM;

      G_STATIC_ASSERT (G_N_ELEMENTS (preset_names) == RELAY_N_PROMPTS);

      /* Translators: a run's request: prompt preset · most tokens · cold or warm connection */
      spec = g_strdup_printf (_("%s · up to %u tokens · %s"),
                              _(preset_names[MIN (preset, RELAY_N_PROMPTS - 1)]),
                              relay_run_get_max_tokens (run),
                              relay_run_get_connection (run) == RELAY_CONNECTION_WARM ? _("warm connection")
                                                                                      : _("cold connection"));
      add_row (group, _("Request"), spec);
    }

  ttft = format_us (relay_trace_get_mark (trace, RELAY_MARK_FIRST_TOKEN));
  add_row (group, _("Time to First Token"), ttft);
  total = format_us (relay_trace_get_interval (trace, RELAY_MARK_START, RELAY_MARK_END));
  add_row (group, _("Total"), total);

  output = relay_trace_get_output_tokens (trace, &estimated);
  if (output >= 0)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, output);

      /* Translators: %s is a number of tokens */
      tokens = estimated ? g_strdup_printf (_("about %s (estimated)"), count) : g_steal_pointer (&count);
    }
  add_row (group, _("Output Tokens"), tokens);

  per_second = relay_trace_get_output_tokens_per_second (trace);
  if (per_second >= 0)
    rate = g_strdup_printf (_("%.1f tokens/s"), per_second);
  add_row (group, _("Output Rate"), rate);

  chunks = g_strdup_printf ("%u", relay_trace_get_n_chunks (trace));
  add_row (group, _("Streamed Chunks"), chunks);
}

static void
build_stages (RelayTraceDetails *self)
{
  AdwPreferencesGroup *group;

  group = add_group (self, _("Stages"), _("The waterfall’s segments; together they cover the whole probe"));

  for (guint stage = 0; stage < RELAY_N_STAGES; stage++)
    {
      gint64 duration = relay_trace_get_stage_duration (self->trace, stage);
      g_autofree char *text = NULL;
      GtkWidget *row;
      GtkWidget *swatch;

      if (duration == RELAY_TIME_NONE)
        continue;

      text = format_us (duration);
      row = add_row (group, relay_chart_stage_label (stage), text);

      swatch = gtk_drawing_area_new ();
      gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (swatch), 14);
      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (swatch), 14);
      gtk_widget_set_valign (swatch, GTK_ALIGN_CENTER);
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (swatch), draw_swatch,
                                      GUINT_TO_POINTER (stage), NULL);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), swatch);
    }
}

static void
build_marks (RelayTraceDetails *self)
{
  AdwPreferencesGroup *group;

  group = add_group (self, _("Marks"), _("Microsecond timestamps since the probe started; “—” was not observed"));

  for (guint mark = 0; mark < RELAY_N_MARKS; mark++)
    {
      gint64 t = relay_trace_get_mark (self->trace, mark);
      g_autofree char *text = t == RELAY_TIME_NONE ? NULL
                                                   : g_strdup_printf (_("%.3f ms"), t / 1000.0);

      add_row (group, relay_mark_to_string (mark), text);
    }
}

static void
build_connection (RelayTraceDetails *self)
{
  RelayTrace *trace = self->trace;
  AdwPreferencesGroup *group;
  g_autofree char *status = NULL;
  g_autofree char *attempts = NULL;

  group = add_group (self, _("Connection"), NULL);

  if (relay_trace_get_http_status (trace) != 0)
    status = g_strdup_printf ("%u", relay_trace_get_http_status (trace));
  add_row (group, _("HTTP Status"), status);
  add_row (group, _("HTTP Version"), relay_trace_get_http_version (trace));
  add_row (group, _("Connection Reused"), relay_trace_get_reused (trace) ? _("Yes") : _("No"));
  add_row (group, _("Remote Address"), relay_trace_get_remote (trace));
  add_row (group, _("TLS Version"), relay_trace_get_tls_version (trace));
  add_row (group, _("Cipher"), relay_trace_get_cipher (trace));
  attempts = g_strdup_printf ("%u", relay_trace_get_connect_attempts (trace));
  add_row (group, _("Connection Attempts"), attempts);
}

static void
build_server (RelayTraceDetails *self)
{
  const char * const *headers = relay_trace_get_server_headers (self->trace);
  AdwPreferencesGroup *group;

  group = add_group (self, _("Server Latency Headers"),
                     _("What the server and the proxies in between said about their own time"));

  if (headers == NULL || headers[0] == NULL)
    {
      add_row (group, _("None received"), NULL);
      return;
    }

  for (guint i = 0; headers[i] != NULL && headers[i + 1] != NULL; i += 2)
    add_row (group, headers[i], headers[i + 1]);
}

static char *
format_count (gint64 value)
{
  return value < 0 ? NULL : g_strdup_printf ("%" G_GINT64_FORMAT, value);
}

static void
build_usage (RelayTraceDetails *self)
{
  const RelayUsage *usage = relay_trace_get_usage (self->trace);
  AdwPreferencesGroup *group;
  g_autofree char *prompt = NULL;
  g_autofree char *cached = NULL;
  g_autofree char *completion = NULL;
  g_autofree char *reasoning = NULL;

  group = add_group (self, _("Usage"), NULL);

  add_row (group, _("Reported Model"), relay_trace_get_model_reported (self->trace));
  if (usage != NULL)
    {
      prompt = format_count (usage->prompt_tokens);
      cached = format_count (usage->cached_prompt_tokens);
      completion = format_count (usage->completion_tokens);
      reasoning = format_count (usage->reasoning_tokens);
    }
  add_row (group, _("Prompt Tokens"), prompt);
  add_row (group, _("Cached Prompt Tokens"), cached);
  add_row (group, usage != NULL && usage->estimated ? _("Completion Tokens (estimated)") : _("Completion Tokens"),
           completion);
  add_row (group, _("Reasoning Tokens"), reasoning);
}

static void
build_error (RelayTraceDetails *self)
{
  AdwPreferencesGroup *group;
  GtkWidget *label;

  if (relay_trace_is_ok (self->trace))
    return;

  group = add_group (self, _("Error"), NULL);
  add_row (group, _("Stage"), relay_error_stage_to_string (relay_trace_get_error_stage (self->trace)));
  add_row (group, _("Kind"), relay_trace_get_error_kind (self->trace));

  label = gtk_label_new (relay_trace_get_error_message (self->trace));
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "error");
  gtk_widget_set_margin_top (label, 12);
  adw_preferences_group_add (group, label);
}

static void
build_raw (RelayTraceDetails *self)
{
  const char * const *events = relay_trace_get_raw_events (self->trace);
  AdwPreferencesGroup *group;
  g_autofree char *text = NULL;
  GtkWidget *label;
  GtkWidget *frame;

  group = add_group (self, _("First Events of the Stream"), _("As received, before parsing"));

  text = events != NULL && events[0] != NULL ? g_strjoinv ("\n\n", (char **) events) : NULL;
  label = gtk_label_new (text != NULL ? text : _("No events received"));
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "raw-events");
  gtk_widget_add_css_class (label, "monospace");

  frame = gtk_frame_new (NULL);
  gtk_frame_set_child (GTK_FRAME (frame), label);
  gtk_widget_add_css_class (frame, "view");
  adw_preferences_group_add (group, frame);
}

void
relay_trace_details_refresh (RelayTraceDetails *self)
{
  g_return_if_fail (RELAY_IS_TRACE_DETAILS (self));

  for (guint i = 0; i < self->groups->len; i++)
    adw_preferences_page_remove (self->page, g_ptr_array_index (self->groups, i));
  g_ptr_array_set_size (self->groups, 0);

  if (self->trace == NULL)
    {
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }

  build_summary (self);
  build_error (self);
  build_stages (self);
  build_connection (self);
  build_usage (self);
  build_server (self);
  build_marks (self);
  build_raw (self);

  gtk_stack_set_visible_child_name (self->stack, "page");
}

static void
relay_trace_details_dispose (GObject *object)
{
  RelayTraceDetails *self = (RelayTraceDetails *)object;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);

  g_clear_pointer (&self->groups, g_ptr_array_unref);
  g_clear_object (&self->trace);
  g_clear_object (&self->session);

  G_OBJECT_CLASS (relay_trace_details_parent_class)->dispose (object);
}

static void
relay_trace_details_class_init (RelayTraceDetailsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = relay_trace_details_dispose;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "tracedetails");
}

static void
relay_trace_details_init (RelayTraceDetails *self)
{
  GtkWidget *empty;

  self->groups = g_ptr_array_new ();
  self->page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());

  empty = adw_status_page_new ();
  adw_status_page_set_icon_name (ADW_STATUS_PAGE (empty), "relayscope-details-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (empty), _("No Trace Selected"));
  adw_status_page_set_description (ADW_STATUS_PAGE (empty),
                                   _("Click a row of the waterfall to see everything recorded about it"));

  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_stack_add_named (self->stack, empty, "empty");
  gtk_stack_add_named (self->stack, GTK_WIDGET (self->page), "page");
  gtk_stack_set_visible_child_name (self->stack, "empty");
  gtk_widget_set_parent (GTK_WIDGET (self->stack), GTK_WIDGET (self));
}

GtkWidget *
relay_trace_details_new (void)
{
  return g_object_new (RELAY_TYPE_TRACE_DETAILS, NULL);
}

void
relay_trace_details_set_trace (RelayTraceDetails *self,
                               RelayTrace        *trace,
                               RelaySession      *session)
{
  g_return_if_fail (RELAY_IS_TRACE_DETAILS (self));

  g_set_object (&self->trace, trace);
  g_set_object (&self->session, session);
  relay_trace_details_refresh (self);
}

RelayTrace *
relay_trace_details_get_trace (RelayTraceDetails *self)
{
  g_return_val_if_fail (RELAY_IS_TRACE_DETAILS (self), NULL);

  return self->trace;
}
