//! The real `viewport` binary run headless (`CARGO_BIN_EXE_viewport`):
//! command line, replay scripts and glTF scenes. One test executable; each
//! file under `cli/` is a module. Every run works in its own temporary
//! directory, so the tests run in parallel.

mod support;

/// glTF animation on a file the test writes.
#[path = "cli/animation.rs"]
mod animation;
/// Headless outputs and bad command-line input.
#[path = "cli/args.rs"]
mod args;
/// Draco-compressed glTF: drawn, exported decoded, broken data reported.
#[path = "cli/draco.rs"]
mod draco;
/// Editing rules of `docs/spec/editing.md`: duplicate, delete, views, fly, keys.
#[path = "cli/editing.rs"]
mod editing;
/// Editing rules of `docs/spec/editing.md`: pivots, snapping, picking what is drawn.
#[path = "cli/editing_snap.rs"]
mod editing_snap;
/// Export to glTF: the written file read back, reopened, bad paths.
#[path = "cli/export.rs"]
mod export;
/// Ctrl+O, Ctrl+Shift+S and Ctrl+N through their dialogs.
#[path = "cli/files.rs"]
mod files;
/// glTF meshes in scenes.
#[path = "cli/gltf.rs"]
mod gltf;
/// Hide: the trace, the saved file, the picture and clicks, on both culling paths.
#[path = "cli/hide.rs"]
mod hide;
/// Importing a glTF file into an open scene (a script's `import`).
#[path = "cli/import.rs"]
mod import;
/// The user's key map: --keymap, the config file, --list-commands.
#[path = "cli/keymap.rs"]
mod keymap;
/// Light and camera objects: scene-file fields, glTF nodes, the scene_lights rule.
#[path = "cli/lights.rs"]
mod lights;
/// Images that cannot be used: a warning, and the colour factor.
#[path = "cli/materials.rs"]
mod materials;
/// glTF files opened as the scene, and `path#N` meshes.
#[path = "cli/open_gltf.rs"]
mod open_gltf;
/// Select all / none, add, copy / paste, group, parent, drop to floor.
#[path = "cli/organise.rs"]
mod organise;
/// Mesh paths written relative to the written file after paste and save as.
#[path = "cli/paths.rs"]
mod paths;
/// Recovering an autosave: `--recover`, Ctrl+Shift+R.
#[path = "cli/recover.rs"]
mod recover;
/// `{"reload": true}`: a missing prop file written during the run comes in.
#[path = "cli/reload.rs"]
mod reload;
/// Replay scripts with independently computed expected transforms.
#[path = "cli/replay.rs"]
mod replay;
/// Ctrl+S in scripts; the warning before replacing earlier edits.
#[path = "cli/save.rs"]
mod save;
/// Shadows measured in the picture (`docs/spec/lights.md`, "Shadows").
#[path = "cli/shadows.rs"]
mod shadows;
/// Skinned meshes posed by joint objects: a drag, clicks, save and reopen.
#[path = "cli/skin.rs"]
mod skin;
/// Typed values during a drag.
#[path = "cli/typed.rs"]
mod typed;
/// The UI drawn in the viewport: toolbar, status line, panel, view widget.
#[path = "cli/ui.rs"]
mod ui;
/// The rotation sector and the ruler.
#[path = "cli/views.rs"]
mod views;
