//! The file dialogs (`docs/spec/roundtrip.md`, "Export" and "Files in the
//! window"): Ctrl+E export (a path prefilled with the last path exported
//! to, else `STEM.glb` beside the scene file, and a "selection only" box
//! as last left), Ctrl+O open, Ctrl+Shift+S save as, Ctrl+N new scene,
//! Ctrl+I import (`docs/spec/assets.md`). Each is a path field that opens
//! with its text selected; Enter or the button confirms, Escape closes
//! (`Ui::handle`). The field takes typed text and Ctrl+A as number fields
//! do, in the window and in scripts.

use std::path::PathBuf;

use super::UiTrace;
use crate::editor::Outcome;

/// Which dialog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogKind {
    /// Ctrl+E: write the scene (or the selection) as glTF.
    Export,
    /// Ctrl+O: open a scene file or a glTF file in place of the scene.
    Open,
    /// Ctrl+Shift+S: save the scene under a new name.
    SaveAs,
    /// Ctrl+N: start an empty scene, saved to the file named (if any).
    New,
    /// Ctrl+I: import a glTF file under the cursor, as a dropped file.
    Import,
}

impl DialogKind {
    fn title(self) -> &'static str {
        match self {
            DialogKind::Export => "Export glTF",
            DialogKind::Open => "Open",
            DialogKind::SaveAs => "Save as",
            DialogKind::New => "New scene",
            DialogKind::Import => "Import glTF",
        }
    }

    fn prompt(self) -> &'static str {
        match self {
            DialogKind::Export => "File (.glb, or .gltf with .bin beside it):",
            DialogKind::Open => "Scene file or glTF file (.json, .gltf, .glb):",
            DialogKind::SaveAs => "Scene file to save to (.json):",
            DialogKind::New => "Scene file for the new scene (may stay empty):",
            DialogKind::Import => "glTF file to import under the cursor (.gltf, .glb):",
        }
    }

    fn button(self) -> &'static str {
        match self {
            DialogKind::Export => "Export",
            DialogKind::Open => "Open",
            DialogKind::SaveAs => "Save",
            DialogKind::New => "New",
            DialogKind::Import => "Import",
        }
    }

    /// The name its controls have in the trace (`export.path`, `open.path`, ...).
    fn trace_name(self) -> &'static str {
        match self {
            DialogKind::Export => "export",
            DialogKind::Open => "open",
            DialogKind::SaveAs => "save_as",
            DialogKind::New => "new",
            DialogKind::Import => "import",
        }
    }
}

/// The open dialog.
#[derive(Clone, Debug)]
pub(super) struct PathDialog {
    pub kind: DialogKind,
    pub path: String,
    /// Export only: the selection and its descendants alone.
    pub selection: bool,
    /// The path field takes the keyboard in the next pass.
    focus: bool,
}

impl PathDialog {
    /// Dialog `kind` with `path` in its field (selected) and, for export,
    /// the "selection only" box as `selection`.
    pub fn new(kind: DialogKind, path: String, selection: bool) -> PathDialog {
        PathDialog { kind, path, selection, focus: true }
    }

    /// What confirming the dialog asks of the program (`None`: an empty
    /// path where one is needed, which keeps the dialog open).
    pub fn outcome(&self) -> Option<Outcome> {
        let path = self.path.trim();
        let file = (!path.is_empty()).then(|| PathBuf::from(path));
        match self.kind {
            DialogKind::Export => Some(Outcome::Export { path: file?, selection: self.selection }),
            DialogKind::Open => Some(Outcome::Open(file?)),
            DialogKind::SaveAs => Some(Outcome::SaveAs(file?)),
            DialogKind::New => Some(Outcome::New(file)),
            DialogKind::Import => Some(Outcome::Import(file?)),
        }
    }

    /// Draws the dialog in the middle of the screen; returns whether it was
    /// confirmed this pass (Enter in the field, or the button). Its controls
    /// are traced as `NAME.path`, `NAME.selection` (export) and `NAME.write`.
    pub fn show(&mut self, ctx: &egui::Context, u: f64, trace: &mut UiTrace) -> bool {
        let mut answer = false;
        let kind = self.kind;
        egui::Window::new(kind.title())
            .collapsible(false)
            .resizable(false)
            .fade_in(false)
            .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
            .show(ctx, |ui| {
                ui.label(kind.prompt());
                let field = ui.add(egui::TextEdit::singleline(&mut self.path).desired_width(360.0));
                // Opened with its text selected: typing replaces it.
                if std::mem::take(&mut self.focus) {
                    super::rename::take_keyboard_selected(ui.ctx(), &field, &self.path);
                }
                if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                    answer = true;
                }
                let boxed = (kind == DialogKind::Export)
                    .then(|| ui.checkbox(&mut self.selection, "Selection only (with descendants)"));
                let write = ui.button(kind.button());
                if write.clicked() {
                    answer = true;
                }
                let name = kind.trace_name();
                trace.rects.insert(format!("{name}.path"), super::px_rect(field.rect, u));
                if let Some(b) = boxed {
                    trace.rects.insert(format!("{name}.selection"), super::px_rect(b.rect, u));
                }
                trace.rects.insert(format!("{name}.write"), super::px_rect(write.rect, u));
            });
        answer
    }
}

/// The add menu (Shift+A) at `at` (points): one button per primitive and
/// `empty`, traced as `add.NAME`, under a title with the chord that opens
/// it in `keymap`. Returns the one clicked this pass.
pub(super) fn add_menu(
    ctx: &egui::Context,
    at: egui::Pos2,
    keymap: &crate::editor::KeyMap,
    u: f64,
    trace: &mut UiTrace,
) -> Option<&'static str> {
    let mut chosen = None;
    egui::Window::new(add_menu_title(keymap))
        .id(egui::Id::new("add menu"))
        .default_width(140.0)
        .collapsible(false)
        .resizable(false)
        .fade_in(false)
        .fixed_pos(at)
        .show(ctx, |ui| {
            for name in crate::editor::organise::ADD_NAMES {
                // The lights and the camera after a line, by their menu names.
                let label = match name {
                    "sun" => "Sun",
                    "point_light" => "Point light",
                    "spot_light" => "Spot light",
                    "camera" => "Camera",
                    other => other,
                };
                if name == "sun" {
                    ui.separator();
                }
                let b = ui.button(label);
                if b.clicked() {
                    chosen = Some(name);
                }
                trace.rects.insert(format!("add.{name}"), super::px_rect(b.rect, u));
            }
        });
    chosen
}

/// The add menu's title: "Add" and the chord that opens it.
pub(super) fn add_menu_title(keymap: &crate::editor::KeyMap) -> String {
    format!("Add ({})", keymap.shortcut(crate::editor::Command::AddMenu))
}
