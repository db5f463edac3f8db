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
//! (camera operations), `changes` (duplicate, delete, history), `navigate`
//! (views, fly), `pick` (triangles under the cursor, vertex snapping),
//! `select` (clicks, box selection, [`FrameProbe`]).

mod animate;
mod bounds;
pub mod camera;
mod changes;
mod command;
mod events;
mod hide;
mod history;
pub mod keymap;
mod local;
mod meshes;
mod navigate;
pub mod organise;
mod parts;
mod pick;
pub mod quad;
mod ruler;
mod select;
mod skin;

pub use animate::AnimationState;
pub use command::Command;
pub use pick::PickMesh;
pub use select::{FrameProbe, IdSet, NoFrame};
pub use skin::SkinKey;

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use nalgebra::{Matrix4, Point2, Point3};

use crate::gizmo::{Gizmo, GizmoConfig, Handle, Mode, OverlayInstance, Pivot, Placement, Space, Target};
use crate::input::{Event, Modifiers, MouseButton};
use crate::lighting::Lighting;
use crate::math::{Camera, DepthMode, Transform, View};
use crate::picking::{BoxTree, Boxes};
use crate::scene::{transform_problem, MeshRef, Primitive, Scene, MIN_SCALE};
pub use camera::AxisView;

use changes::ChangeLog;
pub use changes::{ChangeMark, EditMark, SceneChanges};
pub use history::{Edit, History};

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

/// Whether two world matrices are drawn alike: each column of the linear
/// part within 1e-9 of its length (f32, which renderers draw with, resolves
/// 6e-8), the translation within 1e-12 of its size (plus 1e-12 m). A
/// reparent that keeps an object's world matrix gives one that differs from
/// the old in the last bits of f64.
fn drawn_alike(a: &Matrix4<f64>, b: &Matrix4<f64>) -> bool {
    let linear = (0..3).all(|c| {
        let (x, y) = (a.fixed_view::<3, 1>(0, c), b.fixed_view::<3, 1>(0, c));
        (x - y).amax() <= 1e-9 * x.amax()
    });
    let (t, u) = (a.fixed_view::<3, 1>(0, 3), b.fixed_view::<3, 1>(0, 3));
    linear && (t - u).amax() <= 1e-12 * (1.0 + t.amax())
}

/// The pick tree of `scene`'s objects with local bounds `bounds`.
fn index_of(scene: &Scene, bounds: &bounds::BoundsList) -> BoxTree {
    BoxTree::build(scene.id_bound(), &bounds::SceneBoxes { scene, bounds })
}

/// What [`Editor::selection_look`] was worked out from.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LookKey {
    selection: u64,
    changes: ChangeMark,
    structure: u64,
    bounds: u64,
    gizmo: (Mode, Space, Pivot),
}

/// The gizmo's placement for the selection and its selected empties.
#[derive(Debug)]
struct SelectionLook {
    placement: Option<Placement>,
    empties: Vec<usize>,
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
    /// The ruler (M) and its measurement.
    ruler: ruler::Ruler,
    /// The quad view's cameras and active view, while it is on.
    quad: Option<quad::Quad>,
    /// Physical pixels per UI unit (the quad view's separator is one unit).
    pub ui_scale: f64,
    /// The glTF files' clips and the animation pose shown.
    animations: animate::Animations,
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
            index: index_of(&scene, &bounds),
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
            size: (width, height),
            gizmo: Gizmo::new(GizmoConfig::default()),
            snap_on: false,
            pointer: parts::Pointer::new(Point2::new(width * 0.5, height * 0.5)),
            navigation: parts::Navigation::new(&camera),
            history: History::default(),
            log: ChangeLog::default(),
            message: None,
            local_camera: None,
            ruler: ruler::Ruler::default(),
            quad: None,
            ui_scale: 1.0,
            animations: animate::Animations::default(),
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
        scene
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

    /// A number that changes with every change of the selection, unique in
    /// the process (for caches of what the selection decides).
    pub fn selection_version(&self) -> u64 {
        self.selection.version()
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

    /// Sets object `i`'s local transform (scripts, tools), keeping picking
    /// current. Ignored during a drag, for an invalid index, and for a
    /// transform a scene file could not hold ([`transform_problem`]: a zero
    /// scale, a non-finite number), so whatever the editor holds can be
    /// saved and opened again. Returns whether it was written.
    pub fn set_transform(&mut self, i: usize, t: Transform) -> bool {
        if !self.scene.contains(i) || self.gizmo.is_dragging() || transform_problem(&t).is_some() {
            return false;
        }
        self.write_transforms(&[i], &[t]);
        true
    }

    /// Sets object `i`'s local transform as one undo step (a typed value):
    /// the same write and history entry a completed drag makes. `before` is
    /// the transform the edit started from.
    pub fn commit_transform(&mut self, i: usize, before: Transform, after: Transform) -> bool {
        if !self.scene.contains(i) || self.gizmo.is_dragging() || transform_problem(&after).is_some() {
            return false;
        }
        self.write_transforms(&[i], &[after]);
        if before != after {
            self.history.push(Edit::Transform { objects: vec![i], before: vec![before], after: vec![after] });
        }
        self.rehover();
        true
    }

    /// Records the local transforms the objects of `before` have now as
    /// one undo step from the transforms given there (fields typed into or
    /// dragged over several frames write as they go, through
    /// [`Editor::set_transform`], and record one step at the end). Objects
    /// gone since, or unchanged, are left out.
    pub fn commit_transforms(&mut self, before: &[(usize, Transform)]) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        let changed: Vec<(usize, Transform, Transform)> = before
            .iter()
            .filter_map(|&(i, b)| self.scene.get(i).map(|o| (i, b, o.transform)))
            .filter(|(_, b, a)| b != a)
            .collect();
        if changed.is_empty() {
            return false;
        }
        self.history.push(Edit::Transform {
            objects: changed.iter().map(|c| c.0).collect(),
            before: changed.iter().map(|c| c.1).collect(),
            after: changed.iter().map(|c| c.2).collect(),
        });
        self.rehover();
        true
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
        self.pick.index = index_of(&self.scene, &self.pick.bounds);
    }

    /// The real local bounds of object `i`'s mesh (e.g. once a glTF is loaded).
    pub fn set_local_bounds(&mut self, i: usize, min: Point3<f64>, max: Point3<f64>) {
        if i < self.pick.bounds.len() && self.scene.contains(i) {
            self.pick.bounds.set(i, (min, max));
            self.pick.known_bounds.insert(self.scene.objects()[i].mesh.clone(), (min, max));
            self.pick.set(i, &self.scene);
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

    /// What the selection shows, worked out again only when the selection,
    /// a transform, the hierarchy, a mesh's bounds or the gizmo's mode,
    /// space or pivot changed: so hovering and drawing cost the same with a
    /// million objects selected as with one (the placement walks every
    /// target).
    fn selection_look(&self) -> Arc<SelectionLook> {
        let c = &self.gizmo.config;
        let key = LookKey {
            selection: self.selection.version(),
            changes: self.log_position(),
            structure: self.scene.structure(),
            bounds: self.pick.bounds.edits(),
            gizmo: (c.mode, c.space, c.pivot),
        };
        if let Some((k, look)) = &*self.look.borrow() {
            if *k == key {
                return look.clone();
            }
        }
        let look = Arc::new(SelectionLook {
            placement: Placement::of(&self.targets(), c),
            empties: self
                .selection
                .iter()
                .copied()
                .filter(|&i| self.scene.objects()[i].mesh == crate::scene::MeshRef::Empty)
                .collect(),
        });
        *self.look.borrow_mut() = Some((key, look.clone()));
        look
    }

    /// Gizmo draw data for this frame.
    /// What the overlay pass draws: the gizmo, and an axis cross on each
    /// selected empty (`docs/spec/assets.md`: empties have no geometry to show).
    pub fn overlay(&self) -> Vec<OverlayInstance> {
        let Some(v) = self.view() else { return Vec::new() };
        self.overlay_in(&v)
    }

    /// [`Editor::overlay`] for view `v` (one view of the quad view).
    fn overlay_in(&self, v: &View) -> Vec<OverlayInstance> {
        let look = self.selection_look();
        let mut out = self.gizmo.instances_at(v, look.placement.as_ref());
        for &i in &look.empties {
            let world = self.scene.world_matrix(i);
            let origin = Point3::new(world[(0, 3)], world[(1, 3)], world[(2, 3)]);
            if let Some(wpp) = v.world_per_pixel(&origin) {
                out.extend(crate::gizmo::axis_cross(&world, wpp));
            }
        }
        out
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

    /// Selected objects without a selected ancestor (moving a parent
    /// already moves its children), the active one's root first (the gizmo
    /// takes its local axes from the first target).
    fn roots_of_selection(&self) -> Vec<usize> {
        self.selection
            .iter()
            .rev()
            .copied()
            .filter(|&i| !self.scene.hierarchy().ancestors(i).any(|p| self.selection.contains(p)))
            .collect()
    }

    /// The gizmo's targets: the selected roots.
    pub fn targets(&self) -> Vec<Target> {
        self.roots_of_selection()
            .into_iter()
            .map(|i| Target {
                local: self.scene.objects()[i].transform,
                parent_world: self.scene.parent_world_matrix(i),
                bounds: Some(self.pick.bounds[i]),
            })
            .collect()
    }

    /// Writes transforms and refreshes the pick index for them and their descendants.
    /// An edit's write first returns to the rest pose ([`Editor::before_edit`]).
    fn write_transforms(&mut self, objects: &[usize], transforms: &[Transform]) {
        self.write_transforms_from(objects, transforms, None);
    }

    /// [`Editor::write_transforms`] where the objects' world matrices
    /// before the write are known (`worlds`, one per object; a reparent,
    /// which keeps them): an object whose world matrix draws the same
    /// afterwards ([`drawn_alike`]), so its whole subtree, is neither
    /// logged nor looked at again, so reparenting many objects costs
    /// renderers and the pick tree nothing.
    fn write_transforms_from(&mut self, objects: &[usize], transforms: &[Transform], worlds: Option<&[Matrix4<f64>]>) {
        self.before_edit();
        for (&i, t) in objects.iter().zip(transforms) {
            if let Some(o) = self.scene.object_mut(i) {
                // A scale drag can shrink a component past what a scene file
                // holds (each drag stops at MIN_SCALE_FACTOR of its start, but
                // drags compound): it stops at MIN_SCALE, keeping its sign.
                let mut t = *t;
                for s in t.scale.iter_mut() {
                    if s.abs() < MIN_SCALE {
                        *s = MIN_SCALE.copysign(*s);
                    }
                }
                *o.transform = t;
            }
        }
        // The written objects and their subtrees, each once (a written object
        // may sit below another): what this costs depends on what moved, not
        // on the size of the scene.
        let mut written: Vec<usize> = objects.to_vec();
        written.sort_unstable();
        let mut moved: Vec<usize> = Vec::new();
        for (k, &i) in objects.iter().enumerate().filter(|&(_, &i)| self.scene.contains(i)) {
            if worlds.and_then(|w| w.get(k)).is_some_and(|w| drawn_alike(w, &self.scene.world_matrix(i))) {
                self.log.edited();
                continue;
            }
            if !self.scene.hierarchy().ancestors(i).any(|p| written.binary_search(&p).is_ok()) {
                moved.push(i);
                moved.extend(self.scene.hierarchy().descendants(i));
            }
        }
        self.log.changed(&moved, self.scene.id_bound());
        for &i in &moved {
            self.pick.set(i, &self.scene);
        }
        self.repose_moved(&moved);
    }

    pub fn undo(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        match self.history.take_undo() {
            Some(e) => {
                self.apply(&e, false);
                self.history.undone(e);
                true
            }
            None => false,
        }
    }

    pub fn redo(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        match self.history.take_redo() {
            Some(e) => {
                self.apply(&e, true);
                self.history.redone(e);
                true
            }
            None => false,
        }
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
