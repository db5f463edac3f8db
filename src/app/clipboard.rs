//! The program's side of organising a scene (`docs/spec/organise.md`):
//! copy and paste through a clipboard (the system's in the window, one of
//! the process's own in headless runs) as scene-file text with absolute
//! mesh paths, and adding a primitive or an empty at the cursor. Both bring
//! meshes the scene may not have loaded yet, which the caller uploads.

use crate::app::error::Error;
use crate::draw::LoadedMeshes;
use crate::editor::organise::add_mesh;
use crate::editor::Editor;
use crate::math::Transform;
use crate::scene::{Object, Scene};

/// Where copied objects go.
pub struct Clipboard {
    /// The process's own text (headless runs, or no system clipboard).
    own: Option<String>,
    /// The X11 clipboard, in the window.
    system: Option<arboard::Clipboard>,
}

impl std::fmt::Debug for Clipboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clipboard").field("system", &self.system.is_some()).finish_non_exhaustive()
    }
}

impl Clipboard {
    /// A clipboard of this process alone (headless runs).
    pub fn own() -> Clipboard {
        Clipboard { own: None, system: None }
    }

    /// The system clipboard, or this process's own where there is none.
    pub fn system() -> Clipboard {
        let system = match arboard::Clipboard::new() {
            Ok(c) => Some(c),
            Err(e) => {
                log::warn!("no system clipboard ({e}); copy and paste stay in this program");
                None
            }
        };
        Clipboard { own: None, system }
    }

    fn set(&mut self, text: String) {
        if let Some(c) = self.system.as_mut() {
            if c.set_text(text.clone()).is_ok() {
                return;
            }
        }
        self.own = Some(text);
    }

    fn get(&mut self) -> Option<String> {
        if let Some(c) = self.system.as_mut() {
            if let Ok(t) = c.get_text() {
                return Some(t);
            }
        }
        self.own.clone()
    }
}

/// What a copy, paste or add did: the status line's notice and the meshes
/// to upload (a paste's or an add's).
#[derive(Debug, Default)]
pub struct ClipStep {
    pub notice: Option<String>,
    pub loaded: Option<LoadedMeshes>,
}

/// Ctrl+C: the selected objects with their descendants to the clipboard,
/// as a scene file.
pub fn copy(editor: &Editor, clipboard: &mut Clipboard) -> ClipStep {
    let Some(fragment) = editor.copy_selection() else {
        return ClipStep { notice: Some("Nothing selected to copy".into()), loaded: None };
    };
    let n = fragment.len();
    clipboard.set(fragment.to_json());
    ClipStep { notice: Some(format!("Copied {n} object{}", if n == 1 { "" } else { "s" })), loaded: None }
}

/// Ctrl+V: the clipboard's scene pasted as new objects (names made
/// unique, world transforms kept, the pasted roots selected); text that is
/// not such a scene changes nothing and says so.
pub fn paste(editor: &mut Editor, clipboard: &mut Clipboard) -> Result<ClipStep, Error> {
    let Some(text) = clipboard.get() else {
        return Ok(ClipStep { notice: Some("The clipboard is empty".into()), loaded: None });
    };
    let fragment = match Scene::from_json(&text, std::path::Path::new("")) {
        Ok(f) if !f.is_empty() => f,
        Ok(_) => return Ok(ClipStep { notice: Some("The clipboard holds no objects".into()), loaded: None }),
        Err(e) => {
            return Ok(ClipStep { notice: Some(format!("The clipboard holds no scene to paste ({e})")), loaded: None })
        }
    };
    let loaded = LoadedMeshes::load(&fragment)?;
    loaded.hand_new_to(editor);
    let n = fragment.len();
    editor.paste(&fragment);
    Ok(ClipStep { notice: Some(format!("Pasted {n} object{}", if n == 1 { "" } else { "s" })), loaded: Some(loaded) })
}

/// Shift+A's menu, a script's `{"add": NAME}`: a primitive (`cube`, ...)
/// or an `empty` where a drop lands ([`Editor::drop_point`]), the only selection. An unknown name changes nothing.
pub fn add(editor: &mut Editor, name: &str) -> Result<ClipStep, Error> {
    let Some(mesh) = add_mesh(name) else {
        return Ok(ClipStep { notice: Some(format!("Cannot add \"{name}\"")), loaded: None });
    };
    // A light or a camera: no mesh to ready.
    if crate::editor::organise::FIXTURE_NAMES.contains(&name) {
        editor.add_fixture(name);
        return Ok(ClipStep::default());
    }
    let at = editor.drop_point();
    // Its mesh readied for drawing and picking, as an import's is.
    let one = Object {
        name: "one".into(),
        mesh: mesh.clone(),
        transform: Transform::IDENTITY,
        color: [1.0; 3],
        skin: None,
        extras: None,
        origin: None,
        fixture: None,
        cast_shadows: true,
        hidden: false,
    };
    let loaded = LoadedMeshes::load(&Scene::from_objects(None, vec![one]))?;
    loaded.hand_new_to(editor);
    editor.add_object(mesh, at);
    Ok(ClipStep { notice: None, loaded: Some(loaded) })
}
