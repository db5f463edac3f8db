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

use crate::app::error::Error;
use crate::draw::LoadedMeshes;
use crate::editor::{ChangeMark, EditMark, Editor, SceneChanges};
use crate::scene::{Scene, SceneCopy};

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
    mark: EditMark,
}

impl Recovery {
    /// The offer for the scene opened from `opened` (whose autosave is
    /// `autosave`), if that autosave exists and is newer than the file.
    pub fn offer(autosave: &Path, opened: &Path, editor: &Editor) -> Option<Recovery> {
        let (saved, scene) = (modified(autosave)?, modified(opened)?);
        (saved > scene).then(|| Recovery { path: autosave.to_path_buf(), mark: editor.edit_mark() })
    }

    /// The line for the status bar and stderr.
    pub fn notice(&self) -> String {
        format!("An autosave newer than this scene exists ({}): Ctrl+Shift+R recovers it", self.path.display())
    }

    /// Whether the offer still stands (no edit since it was made).
    pub fn stands(&self, editor: &Editor) -> bool {
        editor.edit_mark() == self.mark
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

/// How many object slots one step of an autosave's snapshot copies: a few
/// milliseconds' work, so that a large scene is copied over several frames.
pub const COPY_STEP: usize = 50_000;

/// The periodic autosave of one scene.
#[derive(Debug)]
pub struct Autosaver {
    path: PathBuf,
    every: Duration,
    next: Instant,
    /// The edit mark of the last autosave written (`None`: none yet).
    written: Option<EditMark>,
    /// The thread writing the last one.
    worker: Option<JoinHandle<()>>,
    /// A snapshot being copied, step by step, and the mark it started at.
    copying: Option<(SceneCopy, ChangeMark)>,
    /// Slots copied per step ([`COPY_STEP`]).
    step: usize,
}

impl Autosaver {
    /// Autosaves to `path` every `every` from now.
    pub fn new(path: PathBuf, every: Duration) -> Autosaver {
        Autosaver {
            path,
            every,
            next: Instant::now() + every,
            written: None,
            worker: None,
            copying: None,
            step: COPY_STEP,
        }
    }

    /// Whether a snapshot is being copied (the next step is due at once).
    pub fn busy(&self) -> bool {
        self.copying.is_some()
    }

    /// The file it writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// When the next autosave (or the next step of one) is due.
    pub fn due(&self) -> Instant {
        if self.busy() {
            Instant::now()
        } else {
            self.next
        }
    }

    /// Writes an autosave when one is due, the scene has unsaved changes
    /// (`modified`) and it changed since the last autosave. The snapshot is
    /// copied [`COPY_STEP`] slots per call (the window calls again at once
    /// while [`Autosaver::busy`]); what changed meanwhile is taken again at
    /// the end (the editor's change log), and a change of the scene's
    /// shape starts it over. The file is written on another thread. A
    /// write still under way puts a new one off to the next interval.
    pub fn tick(&mut self, editor: &Editor, modified: bool, now: Instant) {
        if let Some((mut copy, mark)) = self.copying.take() {
            let scene = editor.scene();
            if !scene.copy_piece(&mut copy, self.step) {
                self.copying = Some((copy, mark));
                return;
            }
            let finished = match editor.changes_since(Some(mark)) {
                SceneChanges::Changed(ids) => {
                    // Objects hidden or shown meanwhile are taken again too.
                    let shown_or_hidden = editor.visibility_since(Some(mark)).iter().map(|&(i, _)| i);
                    let ids: Vec<usize> = ids.iter().copied().chain(shown_or_hidden).collect();
                    scene.finish_copy(copy, &ids, Some(editor.camera_to_save()))
                }
                SceneChanges::All => None,
            };
            match finished {
                Some(copied) => {
                    let path = self.path.clone();
                    // An animation pose is not saved: the posed objects' own transforms are.
                    let rest = editor.rest_transforms();
                    let lighting = editor.lighting_to_save();
                    self.worker = Some(std::thread::spawn(move || {
                        let mut scene = copied.into_scene();
                        scene.lighting = lighting;
                        for (i, t) in rest {
                            if let Some(o) = scene.object_mut(i) {
                                *o.transform = t;
                            }
                        }
                        write(&scene, &path)
                    }));
                }
                // Objects came or went meanwhile: copy again from the start.
                None => self.copying = Some((scene.start_copy(), editor.change_mark())),
            }
            return;
        }
        if now < self.next {
            return;
        }
        self.next = now + self.every;
        let mark = editor.change_mark();
        let edits = editor.edit_mark();
        if !modified || self.written == Some(edits) || self.worker.as_ref().is_some_and(|w| !w.is_finished()) {
            return;
        }
        self.written = Some(edits);
        self.copying = Some((editor.scene().start_copy(), mark));
        // The first step now.
        self.tick(editor, modified, now);
    }

    /// Removes the autosave (the scene was saved, or the user quit without
    /// saving), after any write under way.
    pub fn remove(&mut self) {
        self.copying = None;
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

    /// A snapshot copied over many steps while the scene is edited between
    /// them holds the scene as it is when the copy ends; one whose objects
    /// come or go meanwhile starts over.
    #[test]
    fn a_snapshot_taken_in_steps_holds_the_edits_made_between_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("grid.autosave.json");
        let mut e = Editor::new(Scene::cube_grid(100), 640.0, 480.0);
        let mut a = Autosaver::new(path.clone(), Duration::from_secs(30));
        a.step = 7;
        let start = Instant::now();
        // A first edit makes the scene modified; the copy starts at the interval.
        let t = e.scene().objects()[3].transform;
        let moved =
            |dx: f64| crate::math::Transform { position: t.position + nalgebra::Vector3::new(dx, 0.0, 0.0), ..t };
        assert!(e.commit_transform(3, t, moved(1.0)));
        a.tick(&e, true, start + Duration::from_secs(31));
        assert!(a.busy());
        // Edits while it copies: a slot already copied moves again.
        a.tick(&e, true, start + Duration::from_secs(31));
        assert!(e.commit_transform(3, moved(1.0), moved(2.0)));
        a.tick(&e, true, start + Duration::from_secs(31));
        // A delete mid-copy: the shape changed, so it starts over.
        e.set_selection(&[50]);
        assert!(e.delete());
        let mut steps = 0;
        while a.busy() {
            a.tick(&e, true, start + Duration::from_secs(31));
            steps += 1;
            assert!(steps < 100, "the copy ends");
        }
        assert!(steps > 100 / 7, "it went in steps ({steps})");
        a.worker.take().unwrap().join().unwrap();
        let saved = Scene::load(&path).unwrap();
        assert_eq!(saved.len(), 99, "the deleted cube is not in it");
        assert_eq!(saved.objects()[saved.find("cube3").unwrap()].transform.position, moved(2.0).position);
        assert!(saved.find("cube50").is_none());
    }

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
