//! The toolbar's environment menu (`docs/spec/lights.md`, "The environment
//! behind the scene"): the environment (`studio`, `uniform`, each `.hdr`
//! file of the scene's folder and of `assets/`), what empty pixels show,
//! the background's blur, the environment's turn and the exposure. Each
//! choice is a [`Command::SetLighting`] (one undo step); a `.hdr` file is
//! read (and prefiltered, once per process) when it is chosen.

use std::path::{Path, PathBuf};

use super::trace::{note, UiTrace};
use crate::editor::{Command, Editor};
use crate::look::{Background, Environment, Lighting};

/// The `.hdr` files (any case) directly in `folders`, canonical (as a
/// loaded environment names its file), sorted, each once.
pub fn environment_files(folders: &[&Path]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = folders
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flat_map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("hdr")) && p.is_file())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    files.sort();
    files.dedup();
    files
}

/// Lays out the menu's contents: `files` are the `.hdr` choices.
pub(super) fn environment_menu(
    ui: &mut egui::Ui,
    editor: &Editor,
    files: &[PathBuf],
    u: f64,
    actions: &mut Vec<Command>,
    trace: &mut UiTrace,
) {
    let now = editor.lighting;
    let mut set = |l: Lighting| {
        if l != now {
            actions.push(Command::SetLighting(l));
        }
    };
    ui.label("Environment");
    for (name, env) in [("studio", Environment::Studio), ("uniform", Environment::Uniform)] {
        let r = ui.selectable_label(now.environment == env, name);
        if r.clicked() {
            set(Lighting { environment: env, ..now });
        }
        note(trace, &format!("environment.{name}"), &r, u);
    }
    let failed = egui::Id::new("environment file failed");
    for (k, path) in files.iter().enumerate() {
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        // Both canonical: no file system call while the menu is open.
        let current = matches!(now.environment, Environment::Hdr(id) if id.path() == *path);
        let r = ui.selectable_label(current, &name).on_hover_text(path.display().to_string());
        if r.clicked() {
            match crate::look::envmap::load(path) {
                Ok(id) => set(Lighting { environment: Environment::Hdr(id), ..now }),
                Err(e) => {
                    ui.data_mut(|d| d.insert_temp(failed, e.to_string()));
                }
            }
        }
        note(trace, &format!("environment.file{k}"), &r, u);
    }
    if let Some(why) = ui.data(|d| d.get_temp::<String>(failed)) {
        ui.colored_label(egui::Color32::from_rgb(230, 120, 100), why);
    }
    ui.separator();
    let behind = now.background == Background::Environment;
    let r = ui.checkbox(&mut behind.clone(), "Show it behind the scene");
    if r.clicked() {
        let background = if behind { Background::Program } else { Background::Environment };
        set(Lighting { background, ..now });
    }
    note(trace, "environment.background", &r, u);
    let shadows = now.shadows;
    let r = ui.checkbox(&mut shadows.clone(), "Shadows");
    if r.clicked() {
        set(Lighting { shadows: !shadows, ..now });
    }
    note(trace, "environment.shadows", &r, u);
    // Sliders show their value as they are dragged (previewed, no undo
    // step) and make one undo step when let go.
    let mut slider = |value: f32, range: std::ops::RangeInclusive<f32>, text: &str, name: &str| {
        let mut v = value;
        let r = ui.add(egui::Slider::new(&mut v, range).text(text));
        note(trace, name, &r, u);
        let done = r.drag_stopped() || (r.changed() && !r.dragged());
        (r.changed() || done).then_some((v, done))
    };
    let moved = [
        slider(now.background_blur, 0.0..=1.0, "Blur", "environment.blur")
            .map(|(v, done)| (Lighting { background_blur: v, ..now }, done)),
        slider(now.environment_rotation_deg, -180.0..=180.0, "Turn (deg)", "environment.rotation")
            .map(|(v, done)| (Lighting { environment_rotation_deg: v, ..now }, done)),
        slider(now.exposure_ev, -8.0..=8.0, "Exposure (EV)", "environment.exposure")
            .map(|(v, done)| (Lighting { exposure_ev: v, ..now }, done)),
    ];
    for (l, done) in moved.into_iter().flatten() {
        actions.push(if done { Command::SetLighting(l) } else { Command::PreviewLighting(l) });
    }
}
