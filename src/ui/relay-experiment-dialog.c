/* relay-experiment-dialog.c: the "Run Experiment" dialog. Each experiment shows only the
 * settings it uses; the defaults are the core's, so the dialog and `relayscope-cli
 * experiment` run the same plan unless the user changes something.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "relay-endpoint.h"
#include "relay-experiment-dialog.h"

struct _RelayExperimentDialog
{
  AdwWindow     parent_instance;

  GListModel   *endpoints;
  GStrv         selected;

  GtkWidget    *kind_group;
  AdwComboRow  *kind_row;
  AdwComboRow  *endpoint_row;
  AdwComboRow  *model_row;
  GtkWidget    *race_group;
  GPtrArray    *race_checks;     /* GtkCheckButton, one per endpoint */
  AdwEntryRow  *models_row;
  AdwEntryRow  *efforts_row;
  AdwEntryRow  *lengths_row;
  AdwEntryRow  *levels_row;
  GtkWidget    *prefix_row;
  GtkSpinButton *prefix_spin;
  GtkSpinButton *repeat_spin;
  GtkLabel     *error_label;
};

G_DEFINE_FINAL_TYPE (RelayExperimentDialog, relay_experiment_dialog, ADW_TYPE_WINDOW)

enum {
  RUN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static RelayEndpoint *
get_endpoint (RelayExperimentDialog *self,
              guint                  position)
{
  g_autoptr(RelayEndpoint) endpoint = g_list_model_get_item (self->endpoints, position);

  /* The model keeps it alive. */
  return endpoint;
}

static RelayExperimentKind
get_kind (RelayExperimentDialog *self)
{
  return MIN (adw_combo_row_get_selected (self->kind_row), RELAY_N_EXPERIMENTS - 1);
}

static char *
join_models (RelayEndpoint *endpoint)
{
  const char * const *models = relay_endpoint_get_models (endpoint);

  return models != NULL ? g_strjoinv (", ", (char **) models) : g_strdup ("");
}

static void
endpoint_changed_cb (RelayExperimentDialog *self)
{
  guint position = adw_combo_row_get_selected (self->endpoint_row);
  g_autoptr(GtkStringList) models = gtk_string_list_new (NULL);
  RelayEndpoint *endpoint = NULL;
  g_autofree char *joined = NULL;

  if (position != GTK_INVALID_LIST_POSITION && position < g_list_model_get_n_items (self->endpoints))
    endpoint = get_endpoint (self, position);

  if (endpoint != NULL && relay_endpoint_get_models (endpoint) != NULL)
    for (const char * const *m = relay_endpoint_get_models (endpoint); *m != NULL; m++)
      gtk_string_list_append (models, *m);

  adw_combo_row_set_model (self->model_row, G_LIST_MODEL (models));
  joined = endpoint != NULL ? join_models (endpoint) : g_strdup ("");
  gtk_editable_set_text (GTK_EDITABLE (self->models_row), joined);
}

static void
kind_changed_cb (RelayExperimentDialog *self)
{
  RelayExperimentKind kind = get_kind (self);
  g_autoptr(RelayExperiment) probe = relay_experiment_new (kind);

  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (self->kind_group), relay_experiment_kind_get_description (kind));
  gtk_widget_set_visible (GTK_WIDGET (self->endpoint_row), kind != RELAY_EXPERIMENT_RACE);
  gtk_widget_set_visible (GTK_WIDGET (self->model_row), kind != RELAY_EXPERIMENT_RACE && kind != RELAY_EXPERIMENT_MODELS);
  gtk_widget_set_visible (self->race_group, kind == RELAY_EXPERIMENT_RACE);
  gtk_widget_set_visible (GTK_WIDGET (self->models_row), kind == RELAY_EXPERIMENT_MODELS);
  gtk_widget_set_visible (GTK_WIDGET (self->efforts_row), kind == RELAY_EXPERIMENT_MODELS);
  gtk_widget_set_visible (GTK_WIDGET (self->lengths_row), kind == RELAY_EXPERIMENT_PROMPT_LENGTH);
  gtk_widget_set_visible (GTK_WIDGET (self->levels_row), kind == RELAY_EXPERIMENT_CONCURRENCY);
  gtk_widget_set_visible (self->prefix_row, kind == RELAY_EXPERIMENT_PROMPT_CACHE);
  gtk_spin_button_set_value (self->repeat_spin, relay_experiment_get_repeat (probe));
  gtk_label_set_text (self->error_label, "");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
}

void
relay_experiment_dialog_set_kind (RelayExperimentDialog *self,
                                  RelayExperimentKind    kind)
{
  g_return_if_fail (RELAY_IS_EXPERIMENT_DIALOG (self));
  g_return_if_fail (kind < RELAY_N_EXPERIMENTS);

  adw_combo_row_set_selected (self->kind_row, kind);
  kind_changed_cb (self);
}

/* "1, 2, 4 8" → numbers; FALSE on anything but positive integers. */
static gboolean
parse_numbers (const char  *text,
               GArray      *numbers,
               const char  *what,
               GError     **error)
{
  g_auto(GStrv) parts = g_regex_split_simple ("[,;\\s]+", text != NULL ? text : "", 0, 0);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      guint64 value;

      if (parts[i][0] == '\0')
        continue;
      if (!g_ascii_string_to_unsigned (parts[i], 10, 1, G_MAXUINT, &value, NULL))
        {
          /* Translators: %s is what the list holds ("levels"), then the wrong entry */
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("The %s must be whole numbers above zero, separated by commas: “%s” is not"),
                       what, parts[i]);
          return FALSE;
        }
      g_array_append_val (numbers, (guint) { value });
    }

  if (numbers->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Enter at least one of the %s"), what);
      return FALSE;
    }

  return TRUE;
}

static GStrv
split_words (const char *text)
{
  g_auto(GStrv) parts = g_regex_split_simple ("[,;\\s]+", text != NULL ? text : "", 0, 0);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; parts[i] != NULL; i++)
    if (parts[i][0] != '\0')
      g_strv_builder_add (builder, parts[i]);

  return g_strv_builder_end (builder);
}

/* A copy of an endpoint that asks for the given models only: the user's own stays as it is. */
static RelayEndpoint *
copy_endpoint (RelayEndpoint      *endpoint,
               const char * const *models)
{
  g_autoptr(JsonNode) node = relay_endpoint_to_json (endpoint);
  RelayEndpoint *copy = relay_endpoint_new_from_json (node, NULL);

  if (copy == NULL)
    return g_object_ref (endpoint);
  relay_endpoint_set_simulated (copy, relay_endpoint_get_simulated (endpoint));
  if (models != NULL && models[0] != NULL)
    relay_endpoint_set_models (copy, models);

  return copy;
}

RelayExperiment *
relay_experiment_dialog_build (RelayExperimentDialog  *self,
                               GError                **error)
{
  RelayExperimentKind kind;
  g_autoptr(RelayExperiment) experiment = NULL;
  guint repeat;

  g_return_val_if_fail (RELAY_IS_EXPERIMENT_DIALOG (self), NULL);

  kind = get_kind (self);
  experiment = relay_experiment_new (kind);
  repeat = gtk_spin_button_get_value_as_int (self->repeat_spin);
  relay_experiment_set_repeat (experiment, repeat);

  if (kind == RELAY_EXPERIMENT_RACE)
    {
      for (guint i = 0; i < self->race_checks->len; i++)
        if (gtk_check_button_get_active (g_ptr_array_index (self->race_checks, i)))
          {
            RelayEndpoint *endpoint = get_endpoint (self, i);
            const char * const *models = relay_endpoint_get_models (endpoint);
            const char *first[] = { models != NULL ? models[0] : NULL, NULL };
            g_autoptr(RelayEndpoint) copy = copy_endpoint (endpoint, first);

            relay_experiment_add_endpoint (experiment, copy);
          }
    }
  else
    {
      guint position = adw_combo_row_get_selected (self->endpoint_row);
      RelayEndpoint *endpoint;
      g_autoptr(RelayEndpoint) copy = NULL;

      if (position == GTK_INVALID_LIST_POSITION || position >= g_list_model_get_n_items (self->endpoints))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               _("Add an endpoint first: an experiment needs one to probe"));
          return NULL;
        }
      endpoint = get_endpoint (self, position);

      if (kind == RELAY_EXPERIMENT_MODELS)
        {
          g_auto(GStrv) models = split_words (gtk_editable_get_text (GTK_EDITABLE (self->models_row)));
          g_auto(GStrv) efforts = split_words (gtk_editable_get_text (GTK_EDITABLE (self->efforts_row)));

          copy = copy_endpoint (endpoint, (const char * const *) models);
          relay_experiment_set_efforts (experiment, (const char * const *) efforts);
        }
      else
        {
          GtkStringObject *model = adw_combo_row_get_selected_item (self->model_row);
          const char *one[] = { model != NULL ? gtk_string_object_get_string (model) : NULL, NULL };

          copy = copy_endpoint (endpoint, one);
        }
      relay_experiment_add_endpoint (experiment, copy);
    }

  if (kind == RELAY_EXPERIMENT_PROMPT_LENGTH)
    {
      g_autoptr(GArray) lengths = g_array_new (FALSE, FALSE, sizeof (guint));

      if (!parse_numbers (gtk_editable_get_text (GTK_EDITABLE (self->lengths_row)), lengths,
                          _("prompt lengths"), error))
        return NULL;
      relay_experiment_set_prompt_lengths (experiment, (guint *) (gpointer) lengths->data, lengths->len);
    }
  else if (kind == RELAY_EXPERIMENT_CONCURRENCY)
    {
      g_autoptr(GArray) levels = g_array_new (FALSE, FALSE, sizeof (guint));

      if (!parse_numbers (gtk_editable_get_text (GTK_EDITABLE (self->levels_row)), levels,
                          _("concurrency levels"), error))
        return NULL;
      relay_experiment_set_concurrency_levels (experiment, (guint *) (gpointer) levels->data, levels->len);
    }
  else if (kind == RELAY_EXPERIMENT_PROMPT_CACHE)
    relay_experiment_set_prefix_tokens (experiment, gtk_spin_button_get_value_as_int (self->prefix_spin));

  if (!relay_experiment_prepare (experiment, error))
    return NULL;

  return g_steal_pointer (&experiment);
}

static void
run_clicked_cb (RelayExperimentDialog *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RelayExperiment) experiment = relay_experiment_dialog_build (self, &error);

  if (experiment == NULL)
    {
      gtk_label_set_text (self->error_label, error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
      return;
    }

  g_signal_emit (self, signals[RUN], 0, experiment);
  gtk_window_destroy (GTK_WINDOW (self));
}

static GtkWidget *
spin_row (const char     *title,
          const char     *subtitle,
          double          lower,
          double          upper,
          double          value,
          GtkSpinButton **spin_out)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (lower, upper, 1);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  *spin_out = GTK_SPIN_BUTTON (spin);

  return row;
}

static AdwEntryRow *
entry_row (const char *title,
           const char *text)
{
  GtkWidget *row = adw_entry_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_editable_set_text (GTK_EDITABLE (row), text);

  return ADW_ENTRY_ROW (row);
}

static void
build_ui (RelayExperimentDialog *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *cancel = gtk_button_new_with_mnemonic (_("_Cancel"));
  GtkWidget *run = gtk_button_new_with_mnemonic (_("_Run"));
  GtkWidget *page = adw_preferences_page_new ();
  GtkWidget *group = self->kind_group = adw_preferences_group_new ();
  GtkWidget *params = adw_preferences_group_new ();
  g_autoptr(GtkStringList) kinds = gtk_string_list_new (NULL);
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  guint selected_position = 0;
  gboolean found = FALSE;

  gtk_window_set_title (GTK_WINDOW (self), _("Run an Experiment"));
  gtk_window_set_default_size (GTK_WINDOW (self), 600, 620);
  gtk_window_set_modal (GTK_WINDOW (self), TRUE);

  adw_header_bar_set_show_end_title_buttons (ADW_HEADER_BAR (header), FALSE);
  adw_header_bar_set_show_start_title_buttons (ADW_HEADER_BAR (header), FALSE);
  g_signal_connect_swapped (cancel, "clicked", G_CALLBACK (gtk_window_destroy), self);
  gtk_widget_add_css_class (run, "suggested-action");
  g_signal_connect_swapped (run, "clicked", G_CALLBACK (run_clicked_cb), self);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), cancel);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), run);
  gtk_window_set_default_widget (GTK_WINDOW (self), run);
  gtk_box_append (GTK_BOX (box), header);

  for (guint k = 0; k < RELAY_N_EXPERIMENTS; k++)
    gtk_string_list_append (kinds, relay_experiment_kind_get_title (k));
  for (guint i = 0; i < g_list_model_get_n_items (self->endpoints); i++)
    {
      RelayEndpoint *endpoint = get_endpoint (self, i);

      gtk_string_list_append (names, relay_endpoint_get_name (endpoint));
      if (!found && self->selected != NULL &&
          g_strv_contains ((const char * const *) self->selected, relay_endpoint_get_name (endpoint)))
        {
          selected_position = i;
          found = TRUE;
        }
    }

  self->kind_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->kind_row), _("Experiment"));
  adw_combo_row_set_model (self->kind_row, G_LIST_MODEL (kinds));
  adw_combo_row_set_use_subtitle (self->kind_row, TRUE);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->kind_row));

  self->endpoint_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->endpoint_row), _("Endpoint"));
  adw_combo_row_set_model (self->endpoint_row, G_LIST_MODEL (names));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->endpoint_row));

  self->model_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->model_row), _("Model"));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->model_row));

  self->race_group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (self->race_group), _("Endpoints to Race"));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (self->race_group),
                                         _("Each gets the same request at the same instant, with its first model"));
  self->race_checks = g_ptr_array_new ();
  for (guint i = 0; i < g_list_model_get_n_items (self->endpoints); i++)
    {
      RelayEndpoint *endpoint = get_endpoint (self, i);
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *check = gtk_check_button_new ();

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), relay_endpoint_get_name (endpoint));
      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->race_group), row);
      g_ptr_array_add (self->race_checks, check);
    }

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (params), _("Settings"));
  self->models_row = entry_row (_("Models to compare (separated by commas)"), "");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (params), GTK_WIDGET (self->models_row));
  self->efforts_row = entry_row (_("Reasoning efforts (empty for none)"), "low, medium, high");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (params), GTK_WIDGET (self->efforts_row));
  self->lengths_row = entry_row (_("Prompt lengths in tokens"), "100, 1000, 2000, 4000, 8000, 16000");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (params), GTK_WIDGET (self->lengths_row));
  self->levels_row = entry_row (_("Concurrent streams per level"), "1, 2, 4, 8");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (params), GTK_WIDGET (self->levels_row));
  self->prefix_row = spin_row (_("Shared prefix"), _("Tokens of the prompt every cached request repeats"),
                               64, 100000, 2048, &self->prefix_spin);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (params), self->prefix_row);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (params),
                             spin_row (_("Rounds"), _("Each step is repeated this often, the rounds interleaved"),
                                       1, 50, 3, &self->repeat_spin));

  self->error_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->error_label, TRUE);
  gtk_label_set_xalign (self->error_label, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->error_label), "error");
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (params), GTK_WIDGET (self->error_label));

  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (self->race_group));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (params));
  gtk_widget_set_vexpand (page, TRUE);
  /* Room for the longest preset and experiment names without ellipsis. */
  gtk_widget_set_size_request (page, 620, 480);
  gtk_box_append (GTK_BOX (box), page);
  adw_window_set_content (ADW_WINDOW (self), box);

  adw_combo_row_set_selected (self->endpoint_row, selected_position);
  g_signal_connect_swapped (self->endpoint_row, "notify::selected", G_CALLBACK (endpoint_changed_cb), self);
  g_signal_connect_swapped (self->kind_row, "notify::selected", G_CALLBACK (kind_changed_cb), self);
  endpoint_changed_cb (self);
  kind_changed_cb (self);
}

static void
relay_experiment_dialog_finalize (GObject *object)
{
  RelayExperimentDialog *self = RELAY_EXPERIMENT_DIALOG (object);

  g_clear_object (&self->endpoints);
  g_clear_pointer (&self->selected, g_strfreev);
  g_clear_pointer (&self->race_checks, g_ptr_array_unref);

  G_OBJECT_CLASS (relay_experiment_dialog_parent_class)->finalize (object);
}

static void
relay_experiment_dialog_class_init (RelayExperimentDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = relay_experiment_dialog_finalize;

  signals[RUN] =
    g_signal_new ("run",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, RELAY_TYPE_EXPERIMENT);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
relay_experiment_dialog_init (RelayExperimentDialog *self)
{
}

RelayExperimentDialog *
relay_experiment_dialog_new (GtkWindow           *parent,
                             GListModel          *endpoints,
                             const char * const  *selected,
                             RelayExperimentKind  kind)
{
  RelayExperimentDialog *self;

  g_return_val_if_fail (G_IS_LIST_MODEL (endpoints), NULL);

  self = g_object_new (RELAY_TYPE_EXPERIMENT_DIALOG,
                       "transient-for", parent,
                       NULL);
  self->endpoints = g_object_ref (endpoints);
  self->selected = g_strdupv ((char **) selected);
  build_ui (self);
  relay_experiment_dialog_set_kind (self, kind);

  return self;
}
