//! The editor state machine: input events -> camera controller, selection
//! (click / shift-click on the drawn triangles), the gizmo (which has
//! priority while hovered or dragging), scene changes and undo / redo.
//!
//! Bindings (`docs/spec/editing.md`): left click selects (Shift toggles; the last
//! selected is active); left drag on a handle moves; middle drag orbits,
//! Shift + middle pans, wheel zooms; the right button held flies
//! (W/A/S/D/Q/E); `F` or NumpadDecimal focuses the selection; Numpad 1 / 3 /
//! 7 (Ctrl: opposite) show axis views and Numpad5 toggles the projection;
//! `W` / `E` / `R` / `T` choose translate / rotate / scale / universal; `X`
//! toggles world / local; Period cycles the pivot; Ctrl held snaps, V held
//! snaps to vertices, Ctrl+Shift to surfaces; `Escape` or the right button
//! cancels a drag; Ctrl+D / Shift+D duplicates, Delete deletes; Ctrl+Z
//! undoes, Ctrl+Shift+Z (or Ctrl+Y) redoes.
//!
//! The editor owns the [`Scene`], the [`BoxTree`] that picks it (kept up
//! to date incrementally while objects move) and the camera. The renderer
//! reads [`Editor::view`], [`Editor::scene`], [`Editor::world_matrices`],
//! [`Editor::selection`] and [`Editor::overlay`]. Submodules: [`camera`]
//! (camera operations), `add_remove` (duplicate, import, delete, reload),
//! `apply` (undo, redo), `change_log` (what renderers redraw), `navigate`
//! (views, fly), `pick` (triangles under the cursor, vertex snapping),
//! `select` (clicks, box selection, [`FrameProbe`]).

mod add_remove;
mod animate;
mod apply;
mod bounds;
pub mod camera;
mod change_log;
mod command;
mod events;
mod hide;
mod history;
pub mod keymap;
mod local;
mod meshes;
mod navigate;
pub mod organise;
mod outcome;
mod parts;
mod pick;
pub mod quad;
mod ruler;
mod select;
mod selection_look;
mod skin;
pub mod through;
mod transforms;

pub use animate::AnimationState;
pub use command::Command;
pub use keymap::KeyMap;
pub use outcome::Outcome;
pub use pick::PickMesh;
pub use select::{FrameProbe, IdSet, NoFrame};
pub use skin::SkinKey;

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use nalgebra::{Matrix4, Point2, Point3};

use crate::gizmo::{Gizmo, GizmoConfig, Handle};
use crate::input::{Event, Modifiers, MouseButton};
use crate::look::Lighting;
use crate::math::{Camera, DepthMode, View};
use crate::picking::{BoxTree, Boxes};
use crate::scene::{MeshRef, Primitive, Scene};
pub use camera::AxisView;

use change_log::ChangeLog;
pub use change_log::{ChangeMark, EditMark, SceneChanges};
pub use history::{Edit, History};
use selection_look::{LookKey, SelectionLook};

/// Vertex snapping reaches vertices this close to the cursor (pixels).
pub const VERTEX_SNAP_PX: f64 = 20.0;

/// A press that moves less than this (pixels) before release is a click.
pub const CLICK_SLOP_PX: f64 = 4.0;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Nav {
    Orbit,
    Pan,
}

/// Half the side of the small box an empty object has for the gizmo and
/// framing (it draws nothing and is never picked).
pub const EMPTY_HALF_SIZE: f64 = 0.05;

/// Local bounds of a mesh: exact for primitives, a unit cube for glTF until
/// [`Editor::set_local_bounds`] is told the real ones, a small box for an
/// empty object.
fn mesh_bounds(mesh: &MeshRef) -> (Point3<f64>, Point3<f64>) {
    let (lo, hi) = match mesh {
        MeshRef::Primitive(p) => p.bounds(),
        MeshRef::Gltf(_) => Primitive::Cube.bounds(),
        MeshRef::Empty => ([-EMPTY_HALF_SIZE; 3], [EMPTY_HALF_SIZE; 3]),
    };
    (Point3::from(lo), Point3::from(hi))
}

/// The pick tree of `scene`'s objects with local bounds `bounds` and
/// posed triangles `posed`.
fn index_of(scene: &Scene, bounds: &bounds::BoundsList, posed: &bounds::Posed) -> BoxTree {
    BoxTree::build(scene.id_bound(), &bounds::SceneBoxes { scene, bounds, posed: Some(posed) })
}

/// Editor state. See the module docs for the bindings. Its parts are owned
/// apart so that a method borrows what it needs: the pointer's state, the
/// camera's navigation state, the pick index and the skins.
#[derive(Debug)]
pub struct Editor {
    scene: Scene,
    /// Local bounds, drawn triangles and the pick tree of the objects.
    pick: parts::PickIndex,
    /// Skin data, skinned objects and their posed triangles.
    skinning: parts::Skinning,
    selection: select::Selection,
    /// The gizmo's placement and the selected empties, with what they were
    /// worked out from ([`Editor::selection_look`]).
    look: RefCell<Option<(LookKey, Arc<SelectionLook>)>>,
    pub camera: Camera,
    pub depth: DepthMode,
    /// The shading mode and what lights the scene (Z toggles the mode).
    pub lighting: Lighting,
    /// The lighting before the previews of a slider being dragged.
    lighting_before: Option<Lighting>,
    size: (f64, f64),
    pub gizmo: Gizmo,
    /// Snapping switched on (the toolbar): drags snap as if Ctrl were held.
    pub snap_on: bool,
    /// Cursor, buttons, modifiers, boxes and drags in progress.
    pointer: parts::Pointer,
    /// Axis views, the projection to return to, and flying.
    navigation: parts::Navigation,
    history: History,
    /// What changed in the scene, for renderers that keep a copy ([`ChangeMark`]).
    log: ChangeLog,
    /// A line for the status bar from the last command (a refusal, a note).
    message: Option<String>,
    /// The camera from before local view, while it is on ([`Editor::toggle_local_view`]).
    local_camera: Option<Camera>,
    /// The camera object looked through (Numpad0, `through.rs`).
    through: Option<usize>,
    /// The ruler (M) and its measurement.
    ruler: ruler::Ruler,
    /// The quad view's cameras and active view, while it is on.
    quad: Option<quad::Quad>,
    /// Physical pixels per UI unit (the quad view's separator is one unit).
    pub ui_scale: f64,
    /// The glTF files' clips and the animation pose shown.
    animations: animate::Animations,
    /// The key map in force: the one lookup of every key press.
    pub keymap: KeyMap,
}

/// Fly-camera state: which movement keys are held.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Fly {
    /// W, A, S, D, Q, E.
    held: [bool; 6],
}

const FLY_KEYS: [&str; 6] = ["W", "A", "S", "D", "Q", "E"];

impl Editor {
    /// An editor over `scene` with a viewport of `width` x `height` pixels.
    pub fn new(scene: Scene, width: f64, height: f64) -> Editor {
        let camera = scene.camera.filter(|c| c.validate().is_ok()).unwrap_or_default();
        // Per slot; a dead slot's zero world matrix makes it unhittable.
        let bounds: bounds::BoundsList = (0..scene.id_bound())
            .map(|i| scene.get(i).map_or_else(|| mesh_bounds(&MeshRef::Empty), |o| mesh_bounds(&o.mesh)))
            .collect();
        let pick = parts::PickIndex {
            index: index_of(&scene, &bounds, &bounds::Posed::new()),
            bounds,
            known_bounds: HashMap::new(),
            meshes: meshes::MeshTable::default(),
        };
        let mut editor = Editor {
            scene,
            pick,
            skinning: parts::Skinning::default(),
            selection: select::Selection::default(),
            look: RefCell::new(None),
            camera,
            depth: DepthMode::Reversed,
            lighting: Lighting::default(),
            lighting_before: None,
            size: (width, height),
            gizmo: Gizmo::new(GizmoConfig::default()),
            snap_on: false,
            pointer: parts::Pointer::new(Point2::new(width * 0.5, height * 0.5)),
            navigation: parts::Navigation::new(&camera),
            history: History::default(),
            log: ChangeLog::default(),
            message: None,
            local_camera: None,
            through: None,
            ruler: ruler::Ruler::default(),
            quad: None,
            ui_scale: 1.0,
            animations: animate::Animations::default(),
            keymap: KeyMap::default(),
        };
        editor.add_primitive_meshes();
        editor
    }

    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// Takes the status line's message of the last command, if it left one.
    pub fn take_message(&mut self) -> Option<String> {
        self.message.take()
    }

    /// The scene as it should be saved: objects as edited, camera as viewed.
    /// Local view is not saved: the camera from before it is; nor is an
    /// animation pose: the objects' own transforms are.
    pub fn scene_to_save(&self) -> Scene {
        let mut scene = self.scene_at_rest().into_owned();
        scene.set_local_view(None);
        scene.camera = Some(self.camera_to_save());
        scene.lighting = self.lighting_to_save();
        scene
    }

    /// The lighting a saved file (or an autosave) holds: the lighting,
    /// where the file had one or it differs from the defaults.
    pub fn lighting_to_save(&self) -> Option<Lighting> {
        let kept = self.lighting != Lighting::default() || self.scene.lighting.is_some();
        kept.then_some(self.lighting)
    }

    /// The scene's lighting becomes `l` (the environment, the background,
    /// exposure...): one undo step, none where nothing changes.
    /// After previews ([`Editor::preview_lighting`]) the step goes from
    /// the lighting before the first of them.
    pub fn set_lighting(&mut self, l: Lighting) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        let before = self.lighting_before.take().unwrap_or(self.lighting);
        if l != before {
            self.history.push(Edit::Lighting { before: Box::new(before), after: Box::new(l) });
        }
        self.lighting = l;
        true
    }

    /// Shows lighting `l` without an undo step (a slider being dragged);
    /// the [`Editor::set_lighting`] that follows makes the one step.
    pub fn preview_lighting(&mut self, l: Lighting) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        self.lighting_before.get_or_insert(self.lighting);
        self.lighting = l;
        true
    }

    /// The camera a saved file (or an autosave) holds: the one from before
    /// local view while it is on, else the camera.
    pub fn camera_to_save(&self) -> Camera {
        self.local_camera.filter(|_| self.in_local_view()).unwrap_or(self.camera)
    }

    /// Selected object ids in selection order; the last is the active
    /// one (`docs/spec/editing.md`, "Selection order and the active object").
    pub fn selection(&self) -> &[usize] {
        &self.selection
    }

    /// Replaces the selection (ids without an object are dropped).
    pub fn set_selection(&mut self, ids: &[usize]) {
        if self.gizmo.is_dragging() {
            return;
        }
        let scene = &self.scene;
        self.selection.set(ids.iter().copied().filter(|&i| scene.contains(i) && !scene.is_hidden(i)));
    }

    /// What changes with every action on the scene: an edit, an undo, a
    /// redo or a change of the selection. The status line's messages
    /// last until it changes (`docs/spec/editing.md`, "Status line").
    pub fn action_stamp(&self) -> (u64, u64) {
        (self.history.steps(), self.selection.version())
    }

    /// A number that changes with every change of the selection, unique in
    /// the process (for caches of what the selection decides).
    pub fn selection_version(&self) -> u64 {
        self.selection.version()
    }

    /// Whether the scene has a shown light object (what `scene_lights`
    /// "auto" asks); costs the light and camera objects, not the scene.
    pub fn scene_has_lights(&self) -> bool {
        self.scene.shown_lights().next().is_some()
    }

    /// How many of the scene's shown light objects the frame leaves out
    /// (more than [`crate::look::LIGHTS_PER_FRAME`] light it; 0 where the
    /// built-in sun lights it or in the solid mode).
    pub fn lights_left_out(&self) -> usize {
        let shown = self.scene.shown_lights().count();
        let lit = self.lighting.shading == crate::look::Shading::Material && self.lighting.scene_lights.lit(shown > 0);
        if lit {
            shown.saturating_sub(crate::look::LIGHTS_PER_FRAME)
        } else {
            0
        }
    }

    /// Whether object `i` is selected (costs the same for any selection size).
    pub fn is_selected(&self, i: usize) -> bool {
        self.selection.contains(i)
    }

    pub fn size(&self) -> (f64, f64) {
        self.size
    }

    pub fn cursor(&self) -> Point2<f64> {
        self.pointer.cursor
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// Selects object `i` as a click does (`add`: as Shift+click does, i.e.
    /// toggles it, making it active when added). A hidden object cannot be
    /// selected.
    pub fn select_object(&mut self, i: usize, add: bool) -> bool {
        if !self.scene.contains(i) || self.scene.is_hidden(i) || self.gizmo.is_dragging() {
            return false;
        }
        match (add, self.selection.contains(i)) {
            (true, true) => self.selection.remove(i),
            (true, false) => self.selection.push(i),
            (false, _) => self.selection.set([i]),
        }
        self.rehover();
        true
    }

    /// Orbits the camera by a cursor motion of (`dx`, `dy`) pixels about its
    /// target (the view widget's drag), leaving an automatic orthographic view.
    pub fn orbit_by(&mut self, dx: f64, dy: f64) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        self.leave_camera_view();
        let turned = camera::orbit(&mut self.camera, dx, dy);
        if turned {
            self.leave_auto_ortho();
            self.rehover();
        }
        turned
    }

    /// Forgets the hovered handle (the cursor is over the UI).
    pub fn unhover(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        let Some(v) = self.view() else { return false };
        let before = self.gizmo.hovered();
        // A point far off screen hovers nothing.
        self.gizmo.hover(&v, &[], Point2::new(-1e9, -1e9));
        before.is_some()
    }

    /// Builds the pick tree again from every object's bounds and world matrix.
    fn rebuild_index(&mut self) {
        self.pick.index = BoxTree::default();
        self.pick.index = index_of(&self.scene, &self.pick.bounds, &self.skinning.posed);
    }

    /// The real local bounds of object `i`'s mesh (e.g. once a glTF is loaded).
    pub fn set_local_bounds(&mut self, i: usize, min: Point3<f64>, max: Point3<f64>) {
        if i < self.pick.bounds.len() && self.scene.contains(i) {
            self.pick.bounds.set(i, (min, max));
            self.pick.known_bounds.insert(self.scene.objects()[i].mesh.clone(), (min, max));
            self.pick.set(i, &self.scene, &self.skinning.posed);
        }
    }

    /// The view input acts on (the single view, or in the quad view the
    /// one under the cursor), placed in the window; `None` while it has no
    /// area.
    pub fn view(&self) -> Option<View> {
        self.view_of(self.active_view())
    }

    /// World matrices by id ([`Scene::world_matrices`]: zero for a dead slot).
    pub fn world_matrices(&self) -> Vec<Matrix4<f64>> {
        self.scene.world_matrices()
    }

    pub fn hovered_handle(&self) -> Option<Handle> {
        self.gizmo.hovered()
    }

    pub fn active_handle(&self) -> Option<Handle> {
        self.gizmo.active()
    }

    /// The active (last selected) object.
    pub fn active(&self) -> Option<usize> {
        self.selection.last().copied()
    }

    /// Abandons a drag in progress, restoring the start transforms.
    pub fn cancel_drag(&mut self) -> bool {
        self.pointer.typed = None;
        match self.gizmo.cancel() {
            Some(start) => {
                let objs = std::mem::take(&mut self.pointer.drag_objects);
                self.write_transforms(&objs, &start);
                true
            }
            None => false,
        }
    }

    /// Looks at the selection (or the whole scene when nothing is selected).
    pub fn focus(&mut self) -> bool {
        let ids: Vec<usize> =
            if self.selection.is_empty() { self.scene.ids().collect() } else { self.selection.to_vec() };
        let mut lo = Point3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY);
        let mut hi = -lo;
        let boxes = self.pick.boxes(&self.scene);
        for i in ids {
            if let Some(b) = boxes.obb(i) {
                let (a, b) = b.aabb();
                lo = lo.inf(&a);
                hi = hi.sup(&b);
            }
        }
        if lo.x.is_nan() || hi.x.is_nan() || lo.x > hi.x {
            return false;
        }
        let center = nalgebra::center(&lo, &hi);
        camera::focus(self.active_camera_mut(), center, 0.5 * (hi - lo).norm())
    }
}

#[cfg(test)]
mod tests;
