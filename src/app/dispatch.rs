//! The one dispatch of program commands, shared by the window and the
//! headless runner: every [`Outcome`] an event leaves (a key's program
//! command, a dialog's answer, a dropped file) is carried out here, once.
//! The hosts differ only in what [`Host`] asks of them: the GPU side of
//! new meshes, reading a file to import, screenshots, quitting, and which
//! files to watch.
//!
//! Adding a program command is its variant in [`crate::editor::Command`]
//! (with its name and default key in the key map) and its arm in
//! [`dispatch`].

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use super::autosave::{Autosaver, Recovery};
use super::clipboard::{self, Clipboard};
use super::document::{Document, FileStep};
use super::open::{import_into, ReadImport};
use super::save::SaveStep;
use super::Error;
use crate::draw::LoadedMeshes;
use crate::editor::{Command, Editor, Outcome};
use crate::scene::gltf::export;
use crate::ui::Ui;

/// What both hosts keep of the program: the editor and its UI, the scene's
/// file, the clipboard and the periodic autosave.
pub struct Program {
    pub editor: Editor,
    pub ui: Ui,
    pub doc: Document,
    pub clipboard: Clipboard,
    /// The periodic autosave (`None` with `--autosave-secs 0`, and headless).
    pub autosaver: Option<Autosaver>,
    /// The autosave interval in seconds, 0 for none.
    pub autosave_secs: f64,
}

/// What the dispatch asks of the window or the headless runner.
pub trait Host {
    /// Readies newly loaded meshes for drawing (an import, a paste, an
    /// add, a recovery, a reload).
    fn add_meshes(&mut self, loaded: &LoadedMeshes) -> Result<(), Error>;
    /// A new scene replaced the old one: its meshes in place of all others.
    fn replace_meshes(&mut self, loaded: &LoadedMeshes) -> Result<(), Error>;
    /// Reads a glTF file to import (the headless runner read its script's
    /// imports before the GPU was touched).
    fn read_import(&mut self, path: &Path) -> Result<Rc<ReadImport>, Error>;
    /// F12: writes a screenshot of the frame as it looks now.
    fn screenshot(&mut self, program: &mut Program) -> Result<(), Error>;
    /// Ctrl+Q: quits, when [`Program::may_quit`] allows.
    fn quit(&mut self, program: &mut Program);
    /// The used files to watch for changes changed.
    fn watch(&mut self, files: &[PathBuf]);
}

impl Program {
    /// The autosaver of the document's scene, every `autosave_secs` (none for 0).
    pub fn autosaver(&self) -> Option<Autosaver> {
        match &self.doc.autosave {
            Some(path) if self.autosave_secs > 0.0 => {
                Some(Autosaver::new(path.clone(), Duration::from_secs_f64(self.autosave_secs)))
            }
            _ => None,
        }
    }

    /// A quit request (Ctrl+Q, the close button): true to quit now. The
    /// first one while the scene has changes its file lacks only warns, on
    /// stderr and in the status line; quitting after it drops the changes
    /// and their autosave.
    pub fn may_quit(&mut self) -> bool {
        let modified = self.doc.unsaved.is_modified(&self.editor);
        let quits = match (self.doc.save.path(), self.doc.scene_name()) {
            (Some(path), Some(name)) if !self.doc.unsaved.may_quit(&self.editor) => {
                eprintln!(
                    "viewport: unsaved changes to {}: Ctrl+S saves, Ctrl+Q again quits without saving",
                    path.display()
                );
                self.ui.say(
                    &self.editor,
                    format!("Unsaved changes to {name}: Ctrl+S saves, Ctrl+Q again quits without saving"),
                );
                false
            }
            _ => true,
        };
        if quits && modified {
            self.drop_autosave();
        }
        quits
    }

    fn drop_autosave(&mut self) {
        if let Some(a) = self.autosaver.as_mut() {
            a.remove();
        }
    }

    /// Ctrl+S: writes the scene to its file (or only warns, or says there
    /// is none); a failed write is a line on stderr.
    fn save(&mut self) {
        match self.doc.save.save(&self.editor) {
            Ok(SaveStep::Write(_)) => {
                self.doc.unsaved.saved(&self.editor);
                self.drop_autosave();
                self.ui.say_lasting(None);
            }
            Ok(SaveStep::Warn(warning)) => self.ui.say(&self.editor, warning),
            Ok(SaveStep::NoFile) => {}
            Err(e) => eprintln!("viewport: {e}"),
        }
    }
}

/// Carries out what an event left for the program. Editor-only outcomes
/// (`None`, `Redraw`) and the UI's own commands need nothing here.
pub fn dispatch(program: &mut Program, host: &mut impl Host, outcome: Outcome) -> Result<(), Error> {
    match outcome {
        Outcome::None | Outcome::Redraw => {}
        Outcome::Program(command) => match command {
            Command::Save => program.save(),
            Command::Screenshot => host.screenshot(program)?,
            Command::Quit => host.quit(program),
            Command::Copy => {
                let step = clipboard::copy(&program.editor, &mut program.clipboard);
                clip(program, host, step)?
            }
            Command::Paste => {
                let step = clipboard::paste(&mut program.editor, &mut program.clipboard)?;
                clip(program, host, step)?
            }
            Command::Recover => {
                let notice = recover(&mut program.doc.recovery, &mut program.editor, |l| host.add_meshes(l))?;
                if let Some(text) = notice {
                    program.ui.say(&program.editor, text);
                }
            }
            Command::OpenDialog | Command::NewDialog => file(program, host, &Outcome::Program(command))?,
            // The UI's own: its dialogs, menu and fields opened as it saw the key.
            _ => {}
        },
        Outcome::Open(_) | Outcome::SaveAs(_) | Outcome::New(_) => file(program, host, &outcome)?,
        Outcome::Add(name) => {
            let step = clipboard::add(&mut program.editor, &name)?;
            clip(program, host, step)?
        }
        Outcome::Import(path) => match host.read_import(&path) {
            // A file that cannot be read is one line and changes nothing.
            Err(e) => eprintln!("viewport: {e}"),
            Ok(read) => {
                import_into(&mut program.editor, &read);
                host.add_meshes(&read.loaded)?;
                eprintln!("viewport: imported {}", path.display());
                program.doc.reloader.track_meshes(read.loaded.mesh_refs());
                host.watch(&program.doc.reloader.watched());
            }
        },
        // As in the window, a failure is a line and a notice, not the end.
        Outcome::Export { path, selection } => {
            let said = export_notice(&program.editor, selection, &path);
            program.ui.say(&program.editor, said);
        }
    }
    Ok(())
}

/// Reloads the used glTF files that changed on disk (a script's `reload`,
/// the window's file watch). False while a drag is under way: try again
/// a little later.
pub fn reload(program: &mut Program, host: &mut impl Host) -> Result<bool, Error> {
    let Some(done) = program.doc.reloader.reload(&mut program.editor) else { return Ok(false) };
    host.watch(&program.doc.reloader.watched());
    for loaded in &done.loaded {
        host.add_meshes(loaded)?;
    }
    if let Some(notice) = done.notice() {
        program.ui.say(&program.editor, notice);
    }
    Ok(true)
}

/// Ctrl+C, Ctrl+V and the add menu's step: the new meshes and the notice.
fn clip(program: &mut Program, host: &mut impl Host, step: clipboard::ClipStep) -> Result<(), Error> {
    if let Some(loaded) = &step.loaded {
        host.add_meshes(loaded)?;
        program.doc.reloader.track_meshes(loaded.mesh_refs());
    }
    if let Some(text) = step.notice {
        program.ui.say(&program.editor, text);
    }
    Ok(())
}

/// A file command (Ctrl+O, Ctrl+N and the open, save-as and new dialogs'
/// answers): a new scene takes the place of the old one, its meshes
/// uploaded, watched and autosaved as at start.
fn file(program: &mut Program, host: &mut impl Host, outcome: &Outcome) -> Result<(), Error> {
    let was_modified = program.doc.unsaved.is_modified(&program.editor);
    let saved_as = matches!(outcome, Outcome::SaveAs(_));
    match program.doc.act(&mut program.editor, &mut program.ui, outcome)? {
        FileStep::Replaced(loaded) => {
            // Unsaved changes let go after the warning: their autosave goes too.
            if was_modified {
                program.drop_autosave();
            }
            host.replace_meshes(&loaded)?;
            program.autosaver = program.autosaver();
            host.watch(&program.doc.reloader.watched());
        }
        FileStep::Done if saved_as && !program.doc.unsaved.is_modified(&program.editor) => {
            // Saved under the new name: the old autosave is not needed, the next one goes beside it.
            program.drop_autosave();
            program.autosaver = program.autosaver();
        }
        FileStep::Done => {}
    }
    Ok(())
}

/// Ctrl+Shift+R: replaces the scene with the autosave offered on opening
/// (one undo step) while the offer stands, and hands its meshes to
/// `upload`. Returns the status line's notice; an autosave that cannot be
/// read is a notice and a line, not the end.
pub fn recover(
    offer: &mut Option<Recovery>,
    editor: &mut Editor,
    upload: impl FnOnce(&LoadedMeshes) -> Result<(), Error>,
) -> Result<Option<String>, Error> {
    let Some(r) = offer.take().filter(|r| r.stands(editor)) else {
        return Ok(Some("No autosave to recover (the offer ends with the first edit)".into()));
    };
    match r.recover(editor) {
        Ok(loaded) => {
            upload(&loaded)?;
            eprintln!("viewport: recovered the autosave");
            Ok(Some("Recovered the autosave (Ctrl+Z takes it back)".into()))
        }
        Err(e) => {
            eprintln!("viewport: {e}");
            Ok(Some(format!("Could not recover the autosave: {e}")))
        }
    }
}

/// Writes the editor's scene (or, with `selection`, the selected objects
/// and their descendants) as glTF to `path`, with a warning line for each
/// thing not yet written as the spec asks.
pub fn export_editor(editor: &Editor, selection: bool, path: &Path) -> Result<(), export::ExportError> {
    let only = selection.then(|| editor.selection().to_vec());
    for w in export::export_scene(&editor.scene_at_rest(), only.as_deref(), path)? {
        eprintln!("viewport: warning: {w}");
    }
    Ok(())
}

/// The export dialog's export ([`export_editor`]): a failure is a line on
/// stderr, not the end of the run. Returns the status line's notice.
pub fn export_notice(editor: &Editor, selection: bool, path: &Path) -> String {
    match export_editor(editor, selection, path) {
        Ok(()) => {
            eprintln!("viewport: exported {}", path.display());
            format!("Exported {}", path.display())
        }
        Err(e) => {
            eprintln!("viewport: {e}");
            format!("Export failed: {e}")
        }
    }
}
