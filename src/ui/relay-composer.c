/* relay-composer.c: the probe composer.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "relay-composer.h"
#include "relay-endpoint-store.h"
#include "relay-prompts.h"

struct _RelayComposer
{
  GtkWidget       parent_instance;

  GSettings      *settings;
  GListModel     *endpoints;
  /* "endpoint\nmodel" of the targets the user switched off; everything else is probed. */
  GHashTable     *excluded;

  GtkToggleButton *cold_button;
  GtkSpinButton  *concurrency_spin;
  GtkDropDown    *effort_dropdown;
  GtkFlowBox     *flow;
  GtkSpinButton  *max_tokens_spin;
  GtkDropDown    *prompt_dropdown;
  GtkMenuButton  *prompt_edit_button;
  GtkLabel       *prompt_hint_label;
  GtkTextView    *prompt_view;
  GtkSpinButton  *repeat_spin;
  GtkSpinButton  *timeout_spin;
  GtkBox         *targets_box;
  GtkMenuButton  *targets_button;
  GtkPopover     *targets_popover;
  GtkToggleButton *warm_button;
};

G_DEFINE_FINAL_TYPE (RelayComposer, relay_composer, GTK_TYPE_WIDGET)

static const char * const efforts[] = { "", "low", "medium", "high" };

static char *
target_key (const char *endpoint,
            const char *model)
{
  return g_strconcat (endpoint, "\n", model, NULL);
}

static const char * const *
endpoint_models (RelayEndpoint *endpoint)
{
  static const char * const fallback[] = { "default", NULL };
  const char * const *models = relay_endpoint_get_models (endpoint);

  return models != NULL && models[0] != NULL ? models : fallback;
}

static void
count_targets (RelayComposer *self,
               guint         *chosen,
               guint         *total)
{
  guint n = self->endpoints != NULL ? g_list_model_get_n_items (self->endpoints) : 0;

  *chosen = *total = 0;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RelayEndpoint) endpoint = g_list_model_get_item (self->endpoints, i);
      const char * const *models = endpoint_models (endpoint);

      for (guint m = 0; models[m] != NULL; m++)
        {
          g_autofree char *key = target_key (relay_endpoint_get_name (endpoint), models[m]);

          (*total)++;
          if (!g_hash_table_contains (self->excluded, key))
            (*chosen)++;
        }
    }
}

static void
update_targets_label (RelayComposer *self)
{
  g_autofree char *label = NULL;
  guint chosen, total;

  count_targets (self, &chosen, &total);

  if (total == 0)
    label = g_strdup (_("No Endpoints"));
  else if (chosen == total)
    label = g_strdup_printf (ngettext ("%u Target", "%u Targets", total), total);
  else
    /* Translators: endpoint × model pairs chosen for the next run */
    label = g_strdup_printf (ngettext ("%u of %u Target", "%u of %u Targets", total), chosen, total);

  gtk_menu_button_set_label (self->targets_button, label);
}

static void
target_toggled_cb (GtkCheckButton *check,
                   RelayComposer  *self)
{
  const char *key = g_object_get_data (G_OBJECT (check), "target");

  if (gtk_check_button_get_active (check))
    g_hash_table_remove (self->excluded, key);
  else
    g_hash_table_add (self->excluded, g_strdup (key));

  update_targets_label (self);
}

static void
targets_popover_show_cb (RelayComposer *self)
{
  GtkWidget *child;
  guint n;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->targets_box))))
    gtk_box_remove (self->targets_box, child);

  n = self->endpoints != NULL ? g_list_model_get_n_items (self->endpoints) : 0;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RelayEndpoint) endpoint = g_list_model_get_item (self->endpoints, i);
      const char * const *models = endpoint_models (endpoint);
      GtkWidget *heading = gtk_label_new (relay_endpoint_get_name (endpoint));

      gtk_label_set_xalign (GTK_LABEL (heading), 0);
      gtk_widget_add_css_class (heading, "heading");
      gtk_widget_set_margin_top (heading, i == 0 ? 0 : 9);
      gtk_widget_set_margin_start (heading, 6);
      gtk_box_append (self->targets_box, heading);

      for (guint m = 0; models[m] != NULL; m++)
        {
          g_autofree char *key = target_key (relay_endpoint_get_name (endpoint), models[m]);
          GtkWidget *check = gtk_check_button_new_with_label (models[m]);

          gtk_check_button_set_active (GTK_CHECK_BUTTON (check),
                                       !g_hash_table_contains (self->excluded, key));
          g_object_set_data_full (G_OBJECT (check), "target", g_steal_pointer (&key), g_free);
          g_signal_connect (check, "toggled", G_CALLBACK (target_toggled_cb), self);
          gtk_widget_add_css_class (check, "target-model");
          gtk_box_append (self->targets_box, check);
        }
    }

  if (n == 0)
    {
      GtkWidget *label = gtk_label_new (_("Add an endpoint first"));

      gtk_widget_add_css_class (label, "dim-label");
      gtk_box_append (self->targets_box, label);
    }
}

static char *
get_custom_prompt (RelayComposer *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->prompt_view);
  GtkTextIter begin, end;

  gtk_text_buffer_get_bounds (buffer, &begin, &end);
  return gtk_text_buffer_get_text (buffer, &begin, &end, FALSE);
}

static void
prompt_preset_changed_cb (RelayComposer *self)
{
  RelayPromptPreset preset = gtk_drop_down_get_selected (self->prompt_dropdown);

  if (preset >= RELAY_N_PROMPTS)
    return;

  gtk_label_set_text (self->prompt_hint_label, relay_prompt_preset_describe (preset));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->prompt_dropdown), relay_prompt_preset_describe (preset));
  gtk_text_view_set_editable (self->prompt_view, preset == RELAY_PROMPT_CUSTOM);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->prompt_edit_button),
                               preset == RELAY_PROMPT_CUSTOM ? _("Edit the custom prompt")
                                                             : _("Show the preset’s description"));

  if (self->settings != NULL)
    g_settings_set_string (self->settings, "default-prompt", relay_prompt_preset_to_string (preset));
}

static void
save_settings (RelayComposer *self)
{
  g_autofree char *custom = NULL;

  if (self->settings == NULL)
    return;

  custom = get_custom_prompt (self);
  g_settings_delay (self->settings);
  g_settings_set_uint (self->settings, "max-tokens", gtk_spin_button_get_value_as_int (self->max_tokens_spin));
  g_settings_set_uint (self->settings, "repeat", gtk_spin_button_get_value_as_int (self->repeat_spin));
  g_settings_set_uint (self->settings, "concurrency", gtk_spin_button_get_value_as_int (self->concurrency_spin));
  g_settings_set_uint (self->settings, "timeout", gtk_spin_button_get_value_as_int (self->timeout_spin));
  g_settings_set_string (self->settings, "reasoning-effort",
                         efforts[MIN (gtk_drop_down_get_selected (self->effort_dropdown), G_N_ELEMENTS (efforts) - 1)]);
  g_settings_set_enum (self->settings, "connection",
                       gtk_toggle_button_get_active (self->warm_button) ? RELAY_CONNECTION_WARM : RELAY_CONNECTION_COLD);
  g_settings_set_string (self->settings, "custom-prompt", custom);
  g_settings_apply (self->settings);
}

static void
load_settings (RelayComposer *self)
{
  g_autofree char *preset = NULL;
  g_autofree char *effort = NULL;
  g_autofree char *custom = NULL;

  if (self->settings == NULL)
    return;

  gtk_spin_button_set_value (self->max_tokens_spin, g_settings_get_uint (self->settings, "max-tokens"));
  gtk_spin_button_set_value (self->repeat_spin, g_settings_get_uint (self->settings, "repeat"));
  gtk_spin_button_set_value (self->concurrency_spin, g_settings_get_uint (self->settings, "concurrency"));
  gtk_spin_button_set_value (self->timeout_spin, g_settings_get_uint (self->settings, "timeout"));

  effort = g_settings_get_string (self->settings, "reasoning-effort");
  for (guint i = 0; i < G_N_ELEMENTS (efforts); i++)
    if (g_strcmp0 (effort, efforts[i]) == 0)
      gtk_drop_down_set_selected (self->effort_dropdown, i);

  if (g_settings_get_enum (self->settings, "connection") == RELAY_CONNECTION_WARM)
    gtk_toggle_button_set_active (self->warm_button, TRUE);

  custom = g_settings_get_string (self->settings, "custom-prompt");
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->prompt_view), custom, -1);

  preset = g_settings_get_string (self->settings, "default-prompt");
  gtk_drop_down_set_selected (self->prompt_dropdown, relay_prompt_preset_from_string (preset));
}

static void
endpoints_changed_cb (RelayComposer *self)
{
  update_targets_label (self);
}

static void
relay_composer_dispose (GObject *object)
{
  RelayComposer *self = (RelayComposer *)object;

  save_settings (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), RELAY_TYPE_COMPOSER);

  if (self->endpoints != NULL)
    g_signal_handlers_disconnect_by_func (self->endpoints, endpoints_changed_cb, self);
  g_clear_object (&self->endpoints);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->excluded, g_hash_table_unref);

  G_OBJECT_CLASS (relay_composer_parent_class)->dispose (object);
}

static void
relay_composer_class_init (RelayComposerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = relay_composer_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/relayscope/Relayscope/ui/relay-composer.ui");
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, cold_button);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, concurrency_spin);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, effort_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, flow);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, max_tokens_spin);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, prompt_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, prompt_edit_button);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, prompt_hint_label);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, prompt_view);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, repeat_spin);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, targets_box);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, targets_button);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, targets_popover);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, timeout_spin);
  gtk_widget_class_bind_template_child (widget_class, RelayComposer, warm_button);
  gtk_widget_class_bind_template_callback (widget_class, prompt_preset_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, targets_popover_show_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "composer");
}

static void
relay_composer_init (RelayComposer *self)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  self->excluded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  gtk_widget_init_template (GTK_WIDGET (self));

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema != NULL)
    self->settings = g_settings_new (APP_ID);

  load_settings (self);
  prompt_preset_changed_cb (self);
  update_targets_label (self);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self->prompt_edit_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Edit the custom prompt"),
                                  -1);
}

GtkWidget *
relay_composer_new (void)
{
  return g_object_new (RELAY_TYPE_COMPOSER, NULL);
}

void
relay_composer_set_endpoints (RelayComposer *self,
                              GListModel    *endpoints)
{
  g_return_if_fail (RELAY_IS_COMPOSER (self));

  if (self->endpoints == endpoints)
    return;

  if (self->endpoints != NULL)
    g_signal_handlers_disconnect_by_func (self->endpoints, endpoints_changed_cb, self);
  g_set_object (&self->endpoints, endpoints);
  if (self->endpoints != NULL)
    g_signal_connect_swapped (self->endpoints, "items-changed", G_CALLBACK (endpoints_changed_cb), self);

  update_targets_label (self);
}

guint
relay_composer_get_n_targets (RelayComposer *self)
{
  guint chosen, total;

  g_return_val_if_fail (RELAY_IS_COMPOSER (self), 0);

  count_targets (self, &chosen, &total);
  return chosen;
}

RelayProbePlan *
relay_composer_build_plan (RelayComposer *self)
{
  g_autoptr(RelayProbePlan) plan = NULL;
  g_autofree char *custom = NULL;
  g_autofree char *prompt = NULL;
  RelayPromptPreset preset;
  guint effort;
  guint n, added = 0;

  g_return_val_if_fail (RELAY_IS_COMPOSER (self), NULL);

  save_settings (self);

  plan = relay_probe_plan_new ();
  n = self->endpoints != NULL ? g_list_model_get_n_items (self->endpoints) : 0;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RelayEndpoint) endpoint = g_list_model_get_item (self->endpoints, i);
      const char * const *models = endpoint_models (endpoint);
      g_autoptr(GPtrArray) chosen = g_ptr_array_new ();
      g_autoptr(RelayEndpoint) copy = NULL;

      for (guint m = 0; models[m] != NULL; m++)
        {
          g_autofree char *key = target_key (relay_endpoint_get_name (endpoint), models[m]);

          if (!g_hash_table_contains (self->excluded, key))
            g_ptr_array_add (chosen, (gpointer) models[m]);
        }

      if (chosen->len == 0)
        continue;

      g_ptr_array_add (chosen, NULL);
      copy = relay_endpoint_store_copy (endpoint);
      relay_endpoint_set_models (copy, (const char * const *) chosen->pdata);
      relay_probe_plan_add_endpoint (plan, copy);
      added++;
    }

  if (added == 0)
    return NULL;

  preset = gtk_drop_down_get_selected (self->prompt_dropdown);
  if (preset >= RELAY_N_PROMPTS)
    preset = RELAY_PROMPT_SHORT;
  custom = get_custom_prompt (self);
  prompt = relay_prompt_build (preset, custom);

  relay_probe_plan_set_prompt (plan, prompt);
  relay_probe_plan_set_prompt_preset (plan, relay_prompt_preset_to_string (preset));
  relay_probe_plan_set_max_tokens (plan, gtk_spin_button_get_value_as_int (self->max_tokens_spin));
  effort = gtk_drop_down_get_selected (self->effort_dropdown);
  if (effort > 0 && effort < G_N_ELEMENTS (efforts))
    relay_probe_plan_set_reasoning_effort (plan, efforts[effort]);
  relay_probe_plan_set_repeat (plan, gtk_spin_button_get_value_as_int (self->repeat_spin));
  relay_probe_plan_set_concurrency (plan, gtk_spin_button_get_value_as_int (self->concurrency_spin));
  relay_probe_plan_set_connection (plan, gtk_toggle_button_get_active (self->warm_button)
                                           ? RELAY_CONNECTION_WARM : RELAY_CONNECTION_COLD);
  /* A probe that hangs must not hold the run forever. */
  relay_probe_plan_set_timeout (plan, gtk_spin_button_get_value_as_int (self->timeout_spin));

  return g_steal_pointer (&plan);
}

void
relay_composer_set_repeat (RelayComposer *self,
                           guint          repeat)
{
  g_return_if_fail (RELAY_IS_COMPOSER (self));

  gtk_spin_button_set_value (self->repeat_spin, repeat);
}

void
relay_composer_set_concurrency (RelayComposer *self,
                                guint          concurrency)
{
  g_return_if_fail (RELAY_IS_COMPOSER (self));

  gtk_spin_button_set_value (self->concurrency_spin, concurrency);
}

void
relay_composer_set_timeout (RelayComposer *self,
                            guint          seconds)
{
  g_return_if_fail (RELAY_IS_COMPOSER (self));

  gtk_spin_button_set_value (self->timeout_spin, seconds);
}

guint
relay_composer_get_timeout (RelayComposer *self)
{
  g_return_val_if_fail (RELAY_IS_COMPOSER (self), 0);

  return gtk_spin_button_get_value_as_int (self->timeout_spin);
}
