//! Never lose work (`docs/spec/roundtrip.md`, "Never lose work"): the
//! window's periodic autosave of a scene with unsaved changes, written from
//! a snapshot on another thread so that a large scene does not stall the
//! window, and the recovery of an autosave (Ctrl+Shift+R, `--recover`).
//!
//! The autosave is a scene file, written atomically (a temporary file,
//! then a rename): a process killed at any moment leaves the previous or
//! the new autosave, never part of one.

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::draw::LoadedMeshes;
use crate::editor::{ChangeMark, Editor};
use crate::error::Error;
use crate::scene::Scene;

/// The autosave interval when `--autosave-secs` is not given.
pub const DEFAULT_SECS: f64 = 30.0;

/// The name of the autosave of a scene without a file (the demo), in the
/// state folder.
pub const STATE_FILE: &str = "viewport-autosave.json";

/// The user's state folder for this program: `$XDG_STATE_HOME/viewport`,
/// else `~/.local/state/viewport`.
pub fn state_dir() -> Option<PathBuf> {
    let from = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from);
    from("XDG_STATE_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| from("HOME").map(|h| h.join(".local/state")))
        .map(|p| p.join("viewport"))
}

/// Where the autosave of a scene saved to `save_path` goes:
/// `STEM.autosave.json` beside it (`STEM` without a `.scene` or `.json`
/// ending: `level.scene.json` -> `level.autosave.json`); for a scene
/// without a file, [`STATE_FILE`] in [`state_dir`].
pub fn autosave_path(save_path: Option<&Path>) -> Option<PathBuf> {
    let Some(p) = save_path else { return state_dir().map(|d| d.join(STATE_FILE)) };
    let name = p.file_name()?.to_string_lossy().into_owned();
    let stem = name.strip_suffix(".json").unwrap_or(&name);
    let stem = stem.strip_suffix(".scene").unwrap_or(stem);
    Some(p.with_file_name(format!("{stem}.autosave.json")))
}

/// The modification time of a file, if it has one.
fn modified(p: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// An autosave newer than the file opened, offered on opening: Ctrl+Shift+R
/// takes it while the scene has not been edited since.
#[derive(Clone, Debug)]
pub struct Recovery {
    path: PathBuf,
    /// The editor's change mark when offered; an edit dismisses the offer.
    mark: ChangeMark,
}

impl Recovery {
    /// The offer for the scene opened from `opened` (whose autosave is
    /// `autosave`), if that autosave exists and is newer than the file.
    pub fn offer(autosave: &Path, opened: &Path, editor: &Editor) -> Option<Recovery> {
        let (saved, scene) = (modified(autosave)?, modified(opened)?);
        (saved > scene).then(|| Recovery { path: autosave.to_path_buf(), mark: editor.change_mark() })
    }

    /// The line for the status bar and stderr.
    pub fn notice(&self) -> String {
        format!("An autosave newer than this scene exists ({}): Ctrl+Shift+R recovers it", self.path.display())
    }

    /// Whether the offer still stands (no edit since it was made).
    pub fn stands(&self, editor: &Editor) -> bool {
        editor.change_mark() == self.mark
    }

    /// Replaces the editor's scene with the autosave, one undo step;
    /// returns its meshes for the caller to upload.
    pub fn recover(&self, editor: &mut Editor) -> Result<LoadedMeshes, Error> {
        let scene = Scene::load(&self.path)?;
        let loaded = LoadedMeshes::load(&scene)?;
        loaded.hand_new_to(editor);
        editor.replace_scene(&scene);
        Ok(loaded)
    }
}

/// The periodic autosave of one scene.
#[derive(Debug)]
pub struct Autosaver {
    path: PathBuf,
    every: Duration,
    next: Instant,
    /// The change mark of the last autosave written (`None`: none yet).
    written: Option<ChangeMark>,
    /// The thread writing the last one.
    worker: Option<JoinHandle<()>>,
}

impl Autosaver {
    /// Autosaves to `path` every `every` from now.
    pub fn new(path: PathBuf, every: Duration) -> Autosaver {
        Autosaver { path, every, next: Instant::now() + every, written: None, worker: None }
    }

    /// The file it writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// When the next autosave is due.
    pub fn due(&self) -> Instant {
        self.next
    }

    /// Writes an autosave when one is due, the scene has unsaved changes
    /// (`modified`) and it changed since the last autosave: a snapshot is
    /// taken here and written on another thread. A write still under way
    /// puts this one off to the next interval.
    pub fn tick(&mut self, editor: &Editor, modified: bool, now: Instant) {
        if now < self.next {
            return;
        }
        self.next = now + self.every;
        let mark = editor.change_mark();
        if !modified || self.written == Some(mark) || self.worker.as_ref().is_some_and(|w| !w.is_finished()) {
            return;
        }
        let snapshot = editor.scene_to_save();
        let path = self.path.clone();
        self.written = Some(mark);
        self.worker = Some(std::thread::spawn(move || write(&snapshot, &path)));
    }

    /// Removes the autosave (the scene was saved, or the user quit without
    /// saving), after any write under way.
    pub fn remove(&mut self) {
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
        self.written = None;
        match std::fs::remove_file(&self.path) {
            Ok(()) => log::info!("removed {}", self.path.display()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => eprintln!("viewport: warning: could not remove {}: {e}", self.path.display()),
        }
    }
}

impl Drop for Autosaver {
    fn drop(&mut self) {
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

/// Writes one autosave (atomically); a failure is a warning line.
fn write(scene: &Scene, path: &Path) {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = std::fs::create_dir_all(dir);
    }
    match scene.save(path) {
        Ok(()) => log::info!("autosaved {}", path.display()),
        Err(e) => eprintln!("viewport: warning: autosave failed: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_autosave_sits_beside_the_scene_without_its_scene_ending() {
        let at = |p: &str| autosave_path(Some(Path::new(p))).unwrap();
        assert_eq!(at("levels/level.json"), PathBuf::from("levels/level.autosave.json"));
        assert_eq!(at("levels/level.scene.json"), PathBuf::from("levels/level.autosave.json"));
        assert_eq!(at("Fox.scene.json"), PathBuf::from("Fox.autosave.json"));
        assert_eq!(at("odd"), PathBuf::from("odd.autosave.json"));
    }

    #[test]
    fn an_autosave_is_written_only_when_due_and_changed_and_removed_on_save() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo.autosave.json");
        let mut e = Editor::new(Scene::demo(), 640.0, 480.0);
        let mut a = Autosaver::new(path.clone(), Duration::from_secs(30));
        let start = Instant::now();
        // Not due yet, then due but not modified: nothing.
        a.tick(&e, true, start);
        assert!(!path.exists());
        a.tick(&e, false, start + Duration::from_secs(31));
        assert!(!path.exists());
        // An edit, at the next interval: written from a snapshot.
        e.set_selection(&[0]);
        assert!(e.duplicate());
        a.tick(&e, true, start + Duration::from_secs(62));
        a.worker.take().unwrap().join().unwrap();
        let saved = Scene::load(&path).unwrap();
        assert_eq!(saved.len(), e.scene().len());
        // Unchanged since: not written again.
        std::fs::remove_file(&path).unwrap();
        a.tick(&e, true, start + Duration::from_secs(93));
        assert!(a.worker.is_none() && !path.exists());
        // Saved: removed.
        assert!(e.undo());
        a.tick(&e, true, start + Duration::from_secs(124));
        a.remove();
        assert!(!path.exists());
    }
}
