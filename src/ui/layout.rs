//! What the UI shows, laid out for one egui pass: the toolbar, the status
//! line, the side panel (outliner and transform fields) and the overlays
//! on the view. Each control records its rectangle in the trace and turns
//! what the user did into [`Command`]s that [`super::Ui`] applies to the
//! editor.

use super::outliner::OutlinerIo;
use super::side_panel::side_panel;
use super::toolbar::toolbar;
use super::trace::{px_rect, UiTrace};
use super::view_overlays::{ring_sweep, ruler, typed_value, view_labels, view_widget};
use super::{MIN_SIZE, STATUS_HEIGHT};
use crate::editor::{Command, Editor};

/// Lays out the whole UI for one pass; `panel`: the side panel is shown,
/// with this outliner.
#[allow(clippy::too_many_arguments)]
pub(super) fn build(
    ui: &mut egui::Ui,
    editor: &Editor,
    environments: &[std::path::PathBuf],
    u: f64,
    panel: Option<&mut OutlinerIo<'_>>,
    status: &str,
    actions: &mut Vec<Command>,
    trace: &mut UiTrace,
) {
    let screen = ui.ctx().content_rect();
    if screen.width() < MIN_SIZE.x || screen.height() < MIN_SIZE.y {
        // Too small to lay anything out (egui insists on positive sizes).
        return;
    }
    toolbar(ui, editor, environments, u, actions, trace);

    let line = egui::Panel::bottom("status").exact_size(STATUS_HEIGHT).resizable(false).show(ui, |ui| {
        ui.horizontal_centered(|ui| ui.label(status));
    });
    trace.rects.insert("status".into(), px_rect(line.response.rect, u));
    trace.status = status.to_string();

    if let Some(io) = panel {
        side_panel(ui, editor, io, u, screen, actions, trace);
    }
    view_labels(ui.ctx(), editor, u);
    ring_sweep(ui.ctx(), editor, u, screen, trace);
    ruler(ui.ctx(), editor, u, trace);
    typed_value(ui.ctx(), editor, u, screen, trace);
    view_widget(ui.ctx(), editor, u, screen);
}
