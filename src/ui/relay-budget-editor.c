/* relay-budget-editor.c: the budget dialog. Presets fill the fields; any edit after that is
 * the user's own budget. A limit of 0 means "no budget for this stage".
 *
 * Presets (documented in the README's "Latency budgets"):
 * - Chat first character (880 ms): the default, network 100, wait 330, first token 200,
 *   end to end 880 with allowances front end 50 + back end 200, at p95.
 * - Strict (500 ms): for an interactive product on a nearby endpoint, at p95: network 60,
 *   wait 200, first token 120, TTFT 400, end to end 500 (front end 30 + back end 70), ITL 60,
 *   at least 30 tokens/s.
 * - Batch: throughput rather than latency, at p50: TTFT 5 s, total 60 s, ITL 250, at least
 *   20 tokens/s, no allowances.
 *
 * Copyright 2026 The Relayscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "relay-budget-editor.h"

struct _RelayBudgetEditor
{
  AdwWindow      parent_instance;

  AdwComboRow   *preset_row;
  AdwComboRow   *percentile_row;
  GtkSpinButton *limits[RELAY_N_BUDGET_ITEMS];
  GtkSpinButton *front_end;
  GtkSpinButton *back_end;
  GtkCheckButton *default_check;
  gboolean       filling;
};

G_DEFINE_FINAL_TYPE (RelayBudgetEditor, relay_budget_editor, ADW_TYPE_WINDOW)

enum {
  APPLY,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

RelayBudget *
relay_budget_preset_new (RelayBudgetPreset preset)
{
  RelayBudget *budget;

  switch (preset)
    {
    case RELAY_BUDGET_PRESET_STRICT:
      budget = relay_budget_new ();
      relay_budget_set_percentile (budget, 95);
      relay_budget_set_limit (budget, RELAY_BUDGET_NETWORK, 60);
      relay_budget_set_limit (budget, RELAY_BUDGET_WAIT, 200);
      relay_budget_set_limit (budget, RELAY_BUDGET_FIRST_TOKEN, 120);
      relay_budget_set_limit (budget, RELAY_BUDGET_TTFT, 400);
      relay_budget_set_limit (budget, RELAY_BUDGET_END_TO_END, 500);
      relay_budget_set_limit (budget, RELAY_BUDGET_ITL, 60);
      relay_budget_set_limit (budget, RELAY_BUDGET_TOKENS_PER_S, 30);
      relay_budget_set_allowance (budget, "front_end", 30);
      relay_budget_set_allowance (budget, "back_end", 70);
      return budget;

    case RELAY_BUDGET_PRESET_BATCH:
      budget = relay_budget_new ();
      relay_budget_set_percentile (budget, 50);
      relay_budget_set_limit (budget, RELAY_BUDGET_TTFT, 5000);
      relay_budget_set_limit (budget, RELAY_BUDGET_TOTAL, 60000);
      relay_budget_set_limit (budget, RELAY_BUDGET_ITL, 250);
      relay_budget_set_limit (budget, RELAY_BUDGET_TOKENS_PER_S, 20);
      return budget;

    case RELAY_BUDGET_PRESET_CHAT:
    case RELAY_N_BUDGET_PRESETS:
    default:
      return relay_budget_new_default ();
    }
}

const char *
relay_budget_preset_get_name (RelayBudgetPreset preset)
{
  switch (preset)
    {
    case RELAY_BUDGET_PRESET_STRICT:
      return _("Strict (500 ms)");
    case RELAY_BUDGET_PRESET_BATCH:
      return _("Batch (throughput)");
    case RELAY_BUDGET_PRESET_CHAT:
    case RELAY_N_BUDGET_PRESETS:
    default:
      return _("Chat first character (880 ms)");
    }
}

const char *
relay_budget_item_get_title (RelayBudgetItem item)
{
  switch (item)
    {
    case RELAY_BUDGET_NETWORK: return _("Network (DNS + TCP + TLS)");
    case RELAY_BUDGET_DNS: return _("Name lookup (DNS)");
    case RELAY_BUDGET_TCP: return _("TCP connect");
    case RELAY_BUDGET_TLS: return _("TLS handshake");
    case RELAY_BUDGET_WAIT: return _("Wait (gateway, queue and prefill)");
    case RELAY_BUDGET_FIRST_TOKEN: return _("First token after the headers");
    case RELAY_BUDGET_TTFT: return _("Time to first token");
    case RELAY_BUDGET_END_TO_END: return _("End to end (allowances + TTFT)");
    case RELAY_BUDGET_ITL: return _("Gap between chunks (ITL)");
    case RELAY_BUDGET_TOTAL: return _("Total");
    case RELAY_BUDGET_TOKENS_PER_S: return _("Lowest output rate (tokens/s)");
    case RELAY_N_BUDGET_ITEMS:
    default: return "";
    }
}

void
relay_budget_editor_set_budget (RelayBudgetEditor *self,
                                RelayBudget       *budget)
{
  g_return_if_fail (RELAY_IS_BUDGET_EDITOR (self));
  g_return_if_fail (RELAY_IS_BUDGET (budget));

  self->filling = TRUE;
  adw_combo_row_set_selected (self->percentile_row, relay_budget_get_percentile (budget) <= 50 ? 0 : 1);
  for (guint i = 0; i < RELAY_N_BUDGET_ITEMS; i++)
    gtk_spin_button_set_value (self->limits[i], MAX (relay_budget_get_limit (budget, i), 0));
  gtk_spin_button_set_value (self->front_end, relay_budget_get_allowance (budget, "front_end"));
  gtk_spin_button_set_value (self->back_end, relay_budget_get_allowance (budget, "back_end"));
  self->filling = FALSE;
}

RelayBudget *
relay_budget_editor_dup_budget (RelayBudgetEditor *self)
{
  RelayBudget *budget;

  g_return_val_if_fail (RELAY_IS_BUDGET_EDITOR (self), NULL);

  budget = relay_budget_new ();
  relay_budget_set_percentile (budget, adw_combo_row_get_selected (self->percentile_row) == 0 ? 50 : 95);
  for (guint i = 0; i < RELAY_N_BUDGET_ITEMS; i++)
    {
      double value = gtk_spin_button_get_value (self->limits[i]);

      relay_budget_set_limit (budget, i, value > 0 ? value : -1);
    }
  if (gtk_spin_button_get_value (self->front_end) > 0)
    relay_budget_set_allowance (budget, "front_end", gtk_spin_button_get_value (self->front_end));
  if (gtk_spin_button_get_value (self->back_end) > 0)
    relay_budget_set_allowance (budget, "back_end", gtk_spin_button_get_value (self->back_end));

  return budget;
}

static void
preset_changed_cb (RelayBudgetEditor *self)
{
  guint preset = adw_combo_row_get_selected (self->preset_row);
  g_autoptr(RelayBudget) budget = NULL;

  if (self->filling || preset >= RELAY_N_BUDGET_PRESETS)
    return;

  budget = relay_budget_preset_new (preset);
  relay_budget_editor_set_budget (self, budget);
  adw_combo_row_set_selected (self->preset_row, preset);
}

/* A field edited by hand makes the budget the user's own. */
static void
field_changed_cb (RelayBudgetEditor *self)
{
  if (self->filling)
    return;

  self->filling = TRUE;
  adw_combo_row_set_selected (self->preset_row, RELAY_N_BUDGET_PRESETS);
  self->filling = FALSE;
}

static void
apply_clicked_cb (RelayBudgetEditor *self)
{
  g_autoptr(RelayBudget) budget = relay_budget_editor_dup_budget (self);

  g_signal_emit (self, signals[APPLY], 0, budget, gtk_check_button_get_active (self->default_check));
  gtk_window_destroy (GTK_WINDOW (self));
}

static GtkWidget *
limit_row (RelayBudgetEditor *self,
           const char        *title,
           const char        *unit,
           GtkSpinButton    **spin_out)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (0, 600000, 10);
  GtkWidget *unit_label = gtk_label_new (unit);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), 0);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (unit_label, "dim-label");
  gtk_widget_set_size_request (unit_label, 64, -1);
  gtk_label_set_xalign (GTK_LABEL (unit_label), 0);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), unit_label);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  g_signal_connect_swapped (spin, "value-changed", G_CALLBACK (field_changed_cb), self);
  *spin_out = GTK_SPIN_BUTTON (spin);

  return row;
}

static void
build_ui (RelayBudgetEditor *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *cancel = gtk_button_new_with_mnemonic (_("_Cancel"));
  GtkWidget *apply = gtk_button_new_with_mnemonic (_("_Apply"));
  GtkWidget *page = adw_preferences_page_new ();
  GtkWidget *general = adw_preferences_group_new ();
  GtkWidget *stages = adw_preferences_group_new ();
  GtkWidget *allowances = adw_preferences_group_new ();
  GtkWidget *row;
  g_autoptr(GtkStringList) presets = gtk_string_list_new (NULL);
  g_autoptr(GtkStringList) percentiles = gtk_string_list_new (NULL);

  gtk_window_set_title (GTK_WINDOW (self), _("Latency Budget"));
  gtk_window_set_default_size (GTK_WINDOW (self), 560, 720);
  gtk_window_set_modal (GTK_WINDOW (self), TRUE);

  adw_header_bar_set_show_end_title_buttons (ADW_HEADER_BAR (header), FALSE);
  adw_header_bar_set_show_start_title_buttons (ADW_HEADER_BAR (header), FALSE);
  g_signal_connect_swapped (cancel, "clicked", G_CALLBACK (gtk_window_destroy), self);
  gtk_widget_add_css_class (apply, "suggested-action");
  g_signal_connect_swapped (apply, "clicked", G_CALLBACK (apply_clicked_cb), self);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), cancel);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), apply);
  gtk_box_append (GTK_BOX (box), header);

  for (guint i = 0; i < RELAY_N_BUDGET_PRESETS; i++)
    gtk_string_list_append (presets, relay_budget_preset_get_name (i));
  gtk_string_list_append (presets, _("Custom"));
  gtk_string_list_append (percentiles, _("Median (p50)"));
  gtk_string_list_append (percentiles, _("95th percentile (p95)"));

  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (general),
                                         _("Every stage over its ceiling is marked in the waterfall and the table, and fails relayscope-cli check in CI."));
  self->preset_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->preset_row), _("Preset"));
  adw_combo_row_set_model (self->preset_row, G_LIST_MODEL (presets));
  /* The selected name as the subtitle: the value column would cut it short. */
  adw_combo_row_set_use_subtitle (self->preset_row, TRUE);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (general), GTK_WIDGET (self->preset_row));

  self->percentile_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->percentile_row), _("Checked at"));
  adw_combo_row_set_model (self->percentile_row, G_LIST_MODEL (percentiles));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (general), GTK_WIDGET (self->percentile_row));
  g_signal_connect_swapped (self->percentile_row, "notify::selected", G_CALLBACK (field_changed_cb), self);

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (stages), _("Ceilings"));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (stages), _("0 leaves a stage without a budget"));
  for (guint i = 0; i < RELAY_N_BUDGET_ITEMS; i++)
    {
      row = limit_row (self, relay_budget_item_get_title (i),
                       i == RELAY_BUDGET_TOKENS_PER_S ? _("tokens/s") : _("ms"),
                       &self->limits[i]);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (stages), row);
    }

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (allowances), _("Allowances"));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (allowances),
                                         _("Time your own code takes before the request leaves, which a probe cannot see; added to TTFT for the end-to-end budget"));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (allowances),
                             limit_row (self, _("Front end"), _("ms"), &self->front_end));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (allowances),
                             limit_row (self, _("Back end (prompt assembly, retrieval)"), _("ms"), &self->back_end));

  row = adw_action_row_new ();
  self->default_check = GTK_CHECK_BUTTON (gtk_check_button_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Use for new sessions too"));
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), GTK_WIDGET (self->default_check));
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), GTK_WIDGET (self->default_check));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (general), row);

  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (general));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (stages));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (allowances));
  gtk_widget_set_vexpand (page, TRUE);
  /* Room for the longest preset and experiment names without ellipsis. */
  gtk_widget_set_size_request (page, 600, 480);
  gtk_box_append (GTK_BOX (box), page);
  adw_window_set_content (ADW_WINDOW (self), box);

  g_signal_connect_swapped (self->preset_row, "notify::selected", G_CALLBACK (preset_changed_cb), self);
}

static void
relay_budget_editor_class_init (RelayBudgetEditorClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  signals[APPLY] =
    g_signal_new ("apply",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, RELAY_TYPE_BUDGET, G_TYPE_BOOLEAN);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
relay_budget_editor_init (RelayBudgetEditor *self)
{
  build_ui (self);
}

/* Which preset a budget is, or RELAY_N_BUDGET_PRESETS for none. */
static guint
find_preset (RelayBudget *budget)
{
  g_autofree char *data = relay_budget_to_data (budget);

  for (guint i = 0; i < RELAY_N_BUDGET_PRESETS; i++)
    {
      g_autoptr(RelayBudget) preset = relay_budget_preset_new (i);
      g_autofree char *preset_data = relay_budget_to_data (preset);

      if (g_strcmp0 (data, preset_data) == 0)
        return i;
    }

  return RELAY_N_BUDGET_PRESETS;
}

RelayBudgetEditor *
relay_budget_editor_new (GtkWindow   *parent,
                         RelayBudget *budget)
{
  RelayBudgetEditor *self;

  g_return_val_if_fail (RELAY_IS_BUDGET (budget), NULL);

  self = g_object_new (RELAY_TYPE_BUDGET_EDITOR,
                       "transient-for", parent,
                       NULL);
  relay_budget_editor_set_budget (self, budget);
  self->filling = TRUE;
  adw_combo_row_set_selected (self->preset_row, find_preset (budget));
  self->filling = FALSE;

  return self;
}
