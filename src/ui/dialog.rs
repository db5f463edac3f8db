//! The export dialog (Ctrl+E, `docs/spec/roundtrip.md`, "Export"): a path
//! field prefilled with `STEM.glb` beside the scene file, a "selection only"
//! box; Enter or the button writes, Escape closes (`Ui::handle`). Its path field takes
//! typed text and Ctrl+A as number fields do, in the window and in scripts.

use super::UiTrace;

/// The open dialog.
#[derive(Clone, Debug)]
pub(super) struct ExportDialog {
    pub path: String,
    pub selection: bool,
    /// The path field takes the keyboard in the next pass.
    focus: bool,
}

impl ExportDialog {
    pub fn new(path: String) -> ExportDialog {
        ExportDialog { path, selection: false, focus: true }
    }

    /// Draws the dialog in the middle of the screen; returns whether the
    /// export was asked for this pass (Enter in the field, or the button). Its controls are traced as `export.path`,
    /// `export.selection` and `export.write`.
    pub fn show(&mut self, ctx: &egui::Context, u: f64, trace: &mut UiTrace) -> bool {
        let mut answer = false;
        egui::Window::new("Export glTF")
            .collapsible(false)
            .resizable(false)
            .fade_in(false)
            .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
            .show(ctx, |ui| {
                ui.label("File (.glb, or .gltf with .bin beside it):");
                let field = ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(360.0));
                if std::mem::take(&mut self.focus) {
                    field.request_focus();
                }
                if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                    answer = true;
                }
                let boxed = ui.checkbox(&mut self.selection, "Selection only (with descendants)");
                let write = ui.button("Export");
                if write.clicked() {
                    answer = true;
                }
                for (name, r) in [("export.path", &field), ("export.selection", &boxed), ("export.write", &write)] {
                    trace.rects.insert(name.into(), super::px_rect(r.rect, u));
                }
            });
        answer
    }
}
