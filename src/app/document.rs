//! The scene's file as the program keeps it ([`Document`]), and the file
//! commands of the window and of scripts alike (`docs/spec/roundtrip.md`,
//! "Files in the window"): Ctrl+O opens another file, Ctrl+Shift+S saves
//! under a new name, Ctrl+N starts an empty scene, each through a path
//! dialog, Ctrl+O and Ctrl+N warning first about unsaved changes.

use std::path::PathBuf;

use crate::app::error::Error;
use crate::draw::LoadedMeshes;
use crate::editor::Editor;
use crate::editor::{Command, Outcome};
use crate::math::DepthMode;
use crate::ui::{DialogKind, Ui};

/// What the program keeps about the scene's file: where Ctrl+S writes (and
/// its guard), the changes not saved yet, the used glTF files to reload,
/// the autosave offered for recovery and where autosaves go. Made when a
/// scene is opened, at start and by Ctrl+O / Ctrl+N.
#[derive(Debug)]
pub struct Document {
    pub save: crate::app::save::SaveTarget,
    pub unsaved: crate::app::save::Unsaved,
    pub reloader: crate::app::reload::Reloader,
    /// The autosave offered on opening, until an edit dismisses it.
    pub recovery: Option<crate::app::autosave::Recovery>,
    /// Where autosaves of this scene go.
    pub autosave: Option<PathBuf>,
    /// Ctrl+O or Ctrl+N warned about unsaved changes: the next one goes on.
    discard_warned: bool,
}

impl Document {
    /// Opens `opened` in a new editor of `size` in `depth` mode; returns the
    /// document, the editor and the scene's meshes (to upload). Notices
    /// (earlier edits beside a glTF, a newer autosave) are printed.
    pub fn open(
        opened: crate::app::open::Opened,
        size: (u32, u32),
        depth: crate::math::DepthMode,
    ) -> Result<(Document, Editor, crate::draw::LoadedMeshes), crate::app::error::Error> {
        let save = opened.save_target();
        if let Some(notice) = save.opening_notice() {
            eprintln!("viewport: {notice}");
        }
        let reloader = opened.reloader();
        let recovered = opened.recovered;
        let recovery_paths = opened.recovery_paths();
        let autosave = crate::app::autosave::autosave_path(opened.save_path.as_deref());
        let (editor, loaded) = crate::app::open::open_editor_for(opened, size, depth)?;
        // A recovered autosave is not what the scene's file holds.
        let unsaved =
            if recovered { crate::app::save::Unsaved::modified() } else { crate::app::save::Unsaved::new(&editor) };
        let recovery = recovery_paths
            .and_then(|(autosave, file)| crate::app::autosave::Recovery::offer(&autosave, &file, &editor));
        if let Some(r) = &recovery {
            eprintln!("viewport: {}", r.notice());
        }
        let doc = Document { save, unsaved, reloader, recovery, autosave, discard_warned: false };
        Ok((doc, editor, loaded))
    }

    /// Ctrl+N: an empty scene that Ctrl+S writes to `path` (nowhere without one).
    pub fn new_scene(
        path: Option<PathBuf>,
        size: (u32, u32),
        depth: crate::math::DepthMode,
    ) -> Result<(Document, Editor, crate::draw::LoadedMeshes), crate::app::error::Error> {
        // Not opened from `path`: a file of that name this session did not
        // write is guarded (`SaveTarget`).
        let mut opened = crate::app::open::Opened::without_file(crate::scene::Scene::default());
        opened.save_path = path;
        Document::open(opened, size, depth)
    }

    /// The status line's first notice: a newer autosave, else earlier edits beside a glTF.
    pub fn opening_notice(&self) -> Option<String> {
        self.recovery.as_ref().map(crate::app::autosave::Recovery::notice).or_else(|| self.save.opening_notice())
    }

    /// Ctrl+O or Ctrl+N: `Ok` to go on; with unsaved changes the first
    /// press is only this warning (as quitting is).
    pub fn may_discard(&mut self, editor: &Editor) -> Result<(), String> {
        if !self.unsaved.is_modified(editor) || std::mem::take(&mut self.discard_warned) {
            return Ok(());
        }
        self.discard_warned = true;
        Err("crate::app::save::Unsaved changes: Ctrl+S saves them; press the key again to go on without saving".into())
    }

    /// Ctrl+Shift+S: writes the scene to `path`, which becomes the scene's
    /// file (Ctrl+S writes there from now on).
    pub fn save_as(&mut self, editor: &Editor, path: PathBuf) -> Result<(), crate::scene::SceneError> {
        editor.scene_to_save().save(&path)?;
        eprintln!("viewport: saved {}", path.display());
        self.save = crate::app::save::SaveTarget::new(Some(path.clone()), true);
        self.unsaved.saved(editor);
        self.autosave = crate::app::autosave::autosave_path(Some(&path));
        Ok(())
    }
}

/// What a file command left for the window or the replay to do.
#[derive(Debug)]
pub enum FileStep {
    /// Nothing more.
    Done,
    /// The scene was replaced (a new editor is in place): upload these
    /// meshes, every one of the new scene's, in place of the old ones.
    Replaced(Box<LoadedMeshes>),
}

impl Document {
    /// Sets the UI's defaults for this document: the export and save-as
    /// paths and the opening notice.
    pub fn dress(&self, ui: &mut Ui) {
        ui.say_lasting(self.opening_notice());
        self.dress_paths(ui);
    }

    /// The UI's export and save-as paths for the current file.
    fn dress_paths(&self, ui: &mut Ui) {
        ui.export_default = crate::scene::gltf::export::default_path(self.save.path()).display().to_string();
        ui.save_default = self.save.path().map_or_else(|| "scene.json".into(), |p| p.display().to_string());
        let folder = self.save.path().and_then(|p| p.parent()).filter(|d| !d.as_os_str().is_empty());
        let assets = std::path::Path::new("assets");
        ui.environments = crate::ui::environment_menu::environment_files(&[folder.unwrap_or(assets), assets]);
    }

    /// Carries out a file command (`outcome`: the dialogs' keys and their
    /// answers); other outcomes are left alone. A file that cannot be read
    /// or written is a notice and a line on stderr, never the end.
    pub fn act(&mut self, editor: &mut Editor, ui: &mut Ui, outcome: &Outcome) -> Result<FileStep, Error> {
        let (w, h) = editor.size();
        let size = (w.max(1.0) as u32, h.max(1.0) as u32);
        let depth: DepthMode = editor.depth;
        let replaced = match outcome {
            Outcome::Program(c @ (Command::OpenDialog | Command::NewDialog)) => {
                match self.may_discard(editor) {
                    Ok(()) if *c == Command::OpenDialog => {
                        let folder = self.save.path().and_then(|p| p.parent()).map(|d| d.join(""));
                        let start = folder.map_or_else(String::new, |d| d.display().to_string());
                        ui.open_dialog(editor, DialogKind::Open, start);
                    }
                    Ok(()) => ui.open_dialog(editor, DialogKind::New, String::new()),
                    Err(warning) => {
                        eprintln!("viewport: {warning}");
                        ui.say(editor, warning);
                    }
                }
                None
            }
            Outcome::Open(path) => {
                let opened = crate::app::open::open_scene(Some(path)).map_err(Error::from);
                match opened.and_then(|o| Document::open(o, size, depth)) {
                    Ok(done) => Some(done),
                    Err(e) => {
                        eprintln!("viewport: {e}");
                        ui.say(editor, format!("Could not open: {e}"));
                        None
                    }
                }
            }
            Outcome::New(path) => Some(Document::new_scene(path.clone(), size, depth)?),
            Outcome::SaveAs(path) => {
                let said = match self.save_as(editor, path.clone()) {
                    Ok(()) => format!("Saved {}", path.display()),
                    Err(e) => {
                        eprintln!("viewport: {e}");
                        format!("Could not save: {e}")
                    }
                };
                ui.say(editor, said);
                self.dress_paths(ui);
                None
            }
            _ => None,
        };
        let Some((doc, mut new_editor, loaded)) = replaced else { return Ok(FileStep::Done) };
        ui.scale_gizmo(&mut new_editor);
        ui.settle(&mut new_editor);
        // The key map stays with the window, not the file; so does the
        // lighting, unless the new scene has its own.
        new_editor.lighting = new_editor.scene().lighting.unwrap_or(editor.lighting);
        new_editor.keymap = std::mem::take(&mut editor.keymap);
        *editor = new_editor;
        *self = doc;
        self.dress(ui);
        if let Some(p) = self.save.path() {
            eprintln!("viewport: opened {}", p.display());
        }
        Ok(FileStep::Replaced(Box::new(loaded)))
    }

    /// The name of the file Ctrl+S writes, if there is one.
    pub fn scene_name(&self) -> Option<String> {
        let p = self.save.path()?;
        Some(p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned()))
    }
}
