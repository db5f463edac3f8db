//! The editor state machine: input events -> camera controller, selection
//! (click / shift-click on the drawn triangles), the gizmo (which has
//! priority while hovered or dragging), scene changes and undo / redo.
//!
//! Bindings (`editing.md`): left click selects (Shift toggles; the last
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
//! The editor owns the [`Scene`], the [`SceneIndex`] that picks it (kept up
//! to date incrementally while objects move) and the camera. The renderer
//! reads [`Editor::view`], [`Editor::scene`], [`Editor::world_matrices`],
//! [`Editor::selection`] and [`Editor::overlay`]. Submodules: [`camera`]
//! (camera operations), `changes` (duplicate, delete, history), `navigate`
//! (views, fly), `pick` (triangles under the cursor, vertex snapping).

pub mod camera;
mod changes;
mod history;
mod navigate;
mod pick;

pub use pick::PickMesh;

use std::collections::HashMap;
use std::sync::Arc;

use nalgebra::{Matrix4, Point2, Point3};

use crate::gizmo::{Gizmo, GizmoConfig, Handle, Mode, OverlayInstance, Pivot, Target};
use crate::input::{Event, Modifiers, MouseButton};
use crate::math::{Camera, DepthMode, Projection, Transform, View};
use crate::picking::SceneIndex;
use crate::scene::{MeshRef, Primitive, Scene};
pub use camera::AxisView;

pub use history::{Edit, History};

/// What the last drawn frame can tell the editor, from the GPU's depth and
/// object-ID buffers (a small read-back, never the whole image).
pub trait FrameProbe {
    /// The depth-buffer value under a screen point, if there is a frame.
    fn depth_at(&mut self, p: Point2<f64>) -> Option<f64>;
    /// The objects (indices) with at least one visible pixel centre in the
    /// rectangle `[min, max]`, ascending; `None` when there is no frame (the
    /// editor then casts rays itself).
    fn objects_in(&mut self, min: Point2<f64>, max: Point2<f64>) -> Option<Vec<usize>>;
}

/// No frame to read: no depth, and box selection by ray casts.
pub struct NoFrame;

impl FrameProbe for NoFrame {
    fn depth_at(&mut self, _p: Point2<f64>) -> Option<f64> {
        None
    }
    fn objects_in(&mut self, _min: Point2<f64>, _max: Point2<f64>) -> Option<Vec<usize>> {
        None
    }
}

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
        MeshRef::Gltf { .. } => Primitive::Cube.bounds(),
        MeshRef::Empty => ([-EMPTY_HALF_SIZE; 3], [EMPTY_HALF_SIZE; 3]),
    };
    (Point3::from(lo), Point3::from(hi))
}

/// Editor state. See the module docs for the bindings.
#[derive(Debug)]
pub struct Editor {
    scene: Scene,
    /// Local bounds of each object's mesh (index = object).
    bounds: Vec<(Point3<f64>, Point3<f64>)>,
    /// Real bounds of meshes that [`mesh_bounds`] cannot know (glTF).
    known_bounds: HashMap<MeshRef, (Point3<f64>, Point3<f64>)>,
    /// The drawn triangles of each mesh, for exact picking and snapping
    /// (primitives are generated on first use).
    meshes: HashMap<MeshRef, Arc<PickMesh>>,
    /// Each object's entry of `meshes` (index = object), so that picking
    /// does not hash a mesh reference per candidate.
    object_meshes: Vec<Option<Arc<PickMesh>>>,
    /// Keys held that change a drag: V (vertex snap).
    vertex_snap_held: bool,
    index: SceneIndex,
    selection: Vec<usize>,
    pub camera: Camera,
    pub depth: DepthMode,
    size: (f64, f64),
    pub gizmo: Gizmo,
    cursor: Point2<f64>,
    mods: Modifiers,
    nav: Option<Nav>,
    /// Where the left button went down, when it did not start a drag.
    press: Option<Point2<f64>>,
    /// The press has moved 4 px or more: a box selection is being dragged.
    boxing: bool,
    /// The objects the frame shows in the box, for the release being handled.
    boxed: Option<Vec<usize>>,
    /// Objects (selected roots first) whose transforms the drag edits.
    drag_objects: Vec<usize>,
    history: History,
    /// The surface point under the cursor for the event being handled (from
    /// the depth buffer, see [`Editor::handle_with_depth`]).
    surface: Option<Point3<f64>>,
    /// The point an orbit in progress turns about (None: the target).
    orbit_pivot: Option<Point3<f64>>,
    /// The field of view to return to when an axis view switched the
    /// camera to orthographic (orbiting away goes back to perspective).
    auto_ortho: Option<f64>,
    /// The fly camera while the right button is held.
    fly: Option<Fly>,
    /// Fly speed in m/s (the wheel changes it while flying).
    fly_speed: f64,
    /// The field of view the camera had when it last left perspective
    /// (Numpad5 goes back to it).
    perspective_fov: f64,
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
        let bounds: Vec<_> = scene.objects().iter().map(|o| mesh_bounds(&o.mesh)).collect();
        let worlds = scene.world_matrices();
        let index = SceneIndex::build(bounds.iter().zip(&worlds).map(|((lo, hi), m)| (*lo, *hi, *m)));
        let mut editor = Editor {
            scene,
            bounds,
            known_bounds: HashMap::new(),
            meshes: HashMap::new(),
            object_meshes: Vec::new(),
            vertex_snap_held: false,
            index,
            selection: Vec::new(),
            camera,
            depth: DepthMode::Reversed,
            size: (width, height),
            gizmo: Gizmo::new(GizmoConfig::default()),
            cursor: Point2::new(width * 0.5, height * 0.5),
            mods: Modifiers::NONE,
            nav: None,
            press: None,
            boxing: false,
            boxed: None,
            drag_objects: Vec::new(),
            history: History::default(),
            surface: None,
            orbit_pivot: None,
            auto_ortho: None,
            fly: None,
            fly_speed: camera::FLY_SPEED,
            perspective_fov: match camera.projection {
                Projection::Perspective { fov_y, .. } => fov_y,
                Projection::Orthographic { .. } => camera::DEFAULT_FOV_DEG.to_radians(),
            },
        };
        editor.add_primitive_meshes();
        editor
    }

    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The scene as it should be saved: objects as edited, camera as viewed.
    pub fn scene_to_save(&self) -> Scene {
        let mut scene = self.scene.clone();
        scene.camera = Some(self.camera);
        scene
    }

    /// Selected object indices in selection order; the last is the active
    /// one (`editing.md`, "Selection order and the active object").
    pub fn selection(&self) -> &[usize] {
        &self.selection
    }

    /// Replaces the selection (invalid indices are dropped).
    pub fn set_selection(&mut self, ids: &[usize]) {
        if self.gizmo.is_dragging() {
            return;
        }
        self.selection.clear();
        for &i in ids {
            if i < self.scene.len() && !self.selection.contains(&i) {
                self.selection.push(i);
            }
        }
    }

    pub fn size(&self) -> (f64, f64) {
        self.size
    }

    pub fn cursor(&self) -> Point2<f64> {
        self.cursor
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// Sets object `i`'s local transform (scripts, tools), keeping picking
    /// current. Ignored during a drag or for an invalid index.
    pub fn set_transform(&mut self, i: usize, t: Transform) {
        if i < self.scene.len() && !self.gizmo.is_dragging() {
            self.write_transforms(&[i], &[t]);
        }
    }

    /// The real local bounds of object `i`'s mesh (e.g. once a glTF is loaded).
    pub fn set_local_bounds(&mut self, i: usize, min: Point3<f64>, max: Point3<f64>) {
        if i < self.bounds.len() {
            self.bounds[i] = (min, max);
            self.known_bounds.insert(self.scene.objects()[i].mesh.clone(), (min, max));
            let m = self.scene.world_matrix(i);
            self.index.set(i, &min, &max, &m);
        }
    }

    /// This frame's view, or `None` while the viewport has no area.
    pub fn view(&self) -> Option<View> {
        View::new(self.camera, self.size.0, self.size.1, self.depth).ok()
    }

    /// World matrices of every object.
    pub fn world_matrices(&self) -> Vec<Matrix4<f64>> {
        self.scene.world_matrices()
    }

    /// Gizmo draw data for this frame.
    pub fn overlay(&self) -> Vec<OverlayInstance> {
        match self.view() {
            Some(v) => self.gizmo.instances(&v, &self.targets()),
            None => Vec::new(),
        }
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
            .filter(|&i| !self.scene.hierarchy().ancestors(i).any(|p| self.selection.contains(&p)))
            .collect()
    }

    /// The gizmo's targets: the selected roots.
    pub fn targets(&self) -> Vec<Target> {
        self.roots_of_selection()
            .into_iter()
            .map(|i| Target {
                local: self.scene.objects()[i].transform,
                parent_world: self.scene.parent_world_matrix(i),
                bounds: Some(self.bounds[i]),
            })
            .collect()
    }

    /// Writes transforms and refreshes the pick index for them and their descendants.
    fn write_transforms(&mut self, objects: &[usize], transforms: &[Transform]) {
        for (&i, t) in objects.iter().zip(transforms) {
            if let Some(o) = self.scene.object_mut(i) {
                o.transform = *t;
            }
        }
        // The written objects and their subtrees, each once (a written object
        // may sit below another): what this costs depends on what moved, not
        // on the size of the scene.
        let mut moved: Vec<usize> = Vec::new();
        for &i in objects.iter().filter(|&&i| i < self.scene.len()) {
            if !self.scene.hierarchy().ancestors(i).any(|p| objects.contains(&p)) {
                moved.push(i);
                moved.extend(self.scene.hierarchy().descendants(i));
            }
        }
        for i in moved {
            let (lo, hi) = self.bounds[i];
            let m = self.scene.world_matrix(i);
            self.index.set(i, &lo, &hi, &m);
        }
    }

    pub fn undo(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        match self.history.undo().cloned() {
            Some(e) => {
                self.apply(&e, false);
                true
            }
            None => false,
        }
    }

    pub fn redo(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        match self.history.redo().cloned() {
            Some(e) => {
                self.apply(&e, true);
                true
            }
            None => false,
        }
    }

    /// Abandons a drag in progress, restoring the start transforms.
    pub fn cancel_drag(&mut self) -> bool {
        match self.gizmo.cancel() {
            Some(start) => {
                let objs = std::mem::take(&mut self.drag_objects);
                self.write_transforms(&objs, &start);
                true
            }
            None => false,
        }
    }

    /// Looks at the selection (or the whole scene when nothing is selected).
    pub fn focus(&mut self) -> bool {
        let ids: Vec<usize> =
            if self.selection.is_empty() { (0..self.scene.len()).collect() } else { self.selection.clone() };
        let mut lo = Point3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY);
        let mut hi = -lo;
        for i in ids {
            if let Some(b) = self.index.obb(i) {
                let (a, b) = b.aabb();
                lo = lo.inf(&a);
                hi = hi.sup(&b);
            }
        }
        if lo.x.is_nan() || hi.x.is_nan() || lo.x > hi.x {
            return false;
        }
        let center = nalgebra::center(&lo, &hi);
        camera::focus(&mut self.camera, center, 0.5 * (hi - lo).norm())
    }

    /// Handles one event; returns whether anything visible may have changed.
    pub fn handle(&mut self, event: &Event) -> bool {
        match event {
            Event::Modifiers(m) => {
                self.mods = *m;
                // Snapping follows Ctrl immediately during a drag.
                self.drag_to(self.cursor)
            }
            Event::Resize { width, height } => {
                if width.is_finite() && height.is_finite() {
                    self.size = (width.max(0.0), height.max(0.0));
                }
                true
            }
            Event::CursorMoved { x, y } => self.cursor_moved(Point2::new(*x, *y)),
            Event::MouseDown { button } => self.mouse_down(*button),
            Event::MouseUp { button } => self.mouse_up(*button),
            Event::Scroll { delta } => {
                if self.gizmo.is_dragging() || !delta.is_finite() {
                    return false;
                }
                if self.fly.is_some() {
                    self.fly_speed =
                        (self.fly_speed * camera::FLY_WHEEL.powf(delta.clamp(-50.0, 50.0))).clamp(1e-3, 1e5);
                    return false;
                }
                let changed = match self.surface {
                    Some(p) => camera::zoom_about(&mut self.camera, p, *delta),
                    None => camera::zoom(&mut self.camera, *delta),
                };
                self.rehover();
                changed
            }
            Event::KeyDown { key } => self.key_down(key),
            Event::KeyUp { key } => {
                if let (Some(fly), Some(k)) = (self.fly.as_mut(), FLY_KEYS.iter().position(|f| f == key)) {
                    fly.held[k] = false;
                }
                if key == "V" && self.vertex_snap_held {
                    self.vertex_snap_held = false;
                    return self.drag_to(self.cursor);
                }
                false
            }
        }
    }

    /// Sets the modifiers, then handles `event` (for scripts that give the
    /// modifiers per event).
    pub fn handle_with_mods(&mut self, event: &Event, mods: Modifiers) -> bool {
        let a = if mods != self.mods { self.handle(&Event::Modifiers(mods)) } else { false };
        self.handle(event) || a
    }

    /// Like [`Editor::handle_with_mods`], with access to the depth buffer of
    /// the last drawn frame: `depth_at(cursor)` gives the depth value under
    /// the cursor (see [`Editor::handle_with_frame`]; box selection then
    /// falls back to ray casts).
    pub fn handle_with_depth(
        &mut self,
        event: &Event,
        mods: Modifiers,
        depth_at: &mut dyn FnMut(Point2<f64>) -> Option<f64>,
    ) -> bool {
        struct DepthOnly<'a>(&'a mut dyn FnMut(Point2<f64>) -> Option<f64>);
        impl FrameProbe for DepthOnly<'_> {
            fn depth_at(&mut self, p: Point2<f64>) -> Option<f64> {
                (self.0)(p)
            }
            fn objects_in(&mut self, _min: Point2<f64>, _max: Point2<f64>) -> Option<Vec<usize>> {
                None
            }
        }
        self.handle_with_frame(event, mods, &mut DepthOnly(depth_at))
    }

    /// Like [`Editor::handle_with_mods`], with access to the last drawn
    /// frame: orbit (middle press) and zoom (wheel) turn about and move
    /// towards the surface point under the cursor (from the depth buffer,
    /// in either depth mode; over the background the camera target), and a
    /// box selection takes the objects with visible pixels in the box (from
    /// the object-ID buffer).
    pub fn handle_with_frame(&mut self, event: &Event, mods: Modifiers, frame: &mut dyn FrameProbe) -> bool {
        let wants_surface = matches!(event, Event::MouseDown { button: MouseButton::Middle } | Event::Scroll { .. });
        self.surface = None;
        if wants_surface && !self.gizmo.is_dragging() {
            let clear = self.depth.clear_depth() as f64;
            self.surface = match (self.view(), frame.depth_at(self.cursor)) {
                (Some(v), Some(d)) if d.is_finite() && d != clear => v.unproject(&self.cursor, d),
                _ => None,
            };
        }
        self.boxed = None;
        if let (Event::MouseUp { button: MouseButton::Left }, Some([x0, y0, x1, y1])) = (event, self.selection_rect()) {
            let (min, max) = (Point2::new(x0 as f64, y0 as f64), Point2::new(x1 as f64, y1 as f64));
            self.boxed = Some(frame.objects_in(min, max).unwrap_or_else(|| self.objects_in_rect(min, max)));
        }
        let changed = self.handle_with_mods(event, mods);
        self.surface = None;
        self.boxed = None;
        changed
    }

    /// The box-selection rectangle being dragged, `[x0, y0, x1, y1]` in
    /// pixels (x0 <= x1, y0 <= y1), for drawing.
    pub fn selection_rect(&self) -> Option<[f32; 4]> {
        let p = self.press?;
        if !self.boxing {
            return None;
        }
        let c = self.cursor;
        Some([p.x.min(c.x) as f32, p.y.min(c.y) as f32, p.x.max(c.x) as f32, p.y.max(c.y) as f32])
    }

    /// The objects with at least one visible pixel centre in the rectangle,
    /// by casting a ray through every pixel centre on the CPU: what the
    /// object-ID buffer gives (the same triangles, nearest first), for
    /// callers with no frame to read.
    pub fn objects_in_rect(&self, min: Point2<f64>, max: Point2<f64>) -> Vec<usize> {
        let mut found: Vec<usize> = Vec::new();
        let (x0, y0) = ((min.x - 0.5).ceil().max(0.0) as i64, (min.y - 0.5).ceil().max(0.0) as i64);
        let (x1, y1) =
            ((max.x - 0.5).floor().min(self.size.0 - 1.0) as i64, (max.y - 0.5).floor().min(self.size.1 - 1.0) as i64);
        for y in y0..=y1 {
            for x in x0..=x1 {
                if let Some((id, _)) = self.surface_at(Point2::new(x as f64 + 0.5, y as f64 + 0.5), |_| true) {
                    if !found.contains(&id) {
                        found.push(id);
                    }
                }
            }
        }
        found.sort_unstable();
        found
    }

    /// Applies a finished box: replace the selection (plain), add (Shift)
    /// or remove (Ctrl), `editing.md` "Box selection".
    fn box_select(&mut self, ids: Vec<usize>) -> bool {
        let before = self.selection.clone();
        if self.mods.ctrl {
            self.selection.retain(|i| !ids.contains(i));
        } else {
            if !self.mods.shift {
                self.selection.clear();
            }
            for i in ids {
                if i < self.scene.len() && !self.selection.contains(&i) {
                    self.selection.push(i);
                }
            }
        }
        self.rehover();
        before != self.selection
    }

    /// Esc or right click during a box selection: drop the box.
    fn cancel_box(&mut self) -> bool {
        let had = self.boxing;
        self.boxing = false;
        self.press = None;
        had
    }

    fn rehover(&mut self) {
        if let Some(v) = self.view() {
            let t = self.targets();
            self.gizmo.hover(&v, &t, self.cursor);
        }
    }

    fn drag_to(&mut self, m: Point2<f64>) -> bool {
        if !self.gizmo.is_dragging() {
            return false;
        }
        let Some(v) = self.view() else { return false };
        let Some(mut u) = self.gizmo.update(&v, m, self.mods.ctrl) else { return false };
        // Vertex snap (V held) or surface snap (Ctrl+Shift held) put the
        // pivot on another object's drawn mesh (`editing.md`, "Snapping").
        let surface = self.mods.ctrl && self.mods.shift;
        if self.vertex_snap_held || surface {
            let moved = self.scene.with_descendants(&self.drag_objects);
            let keep = |i: usize| moved.binary_search(&i).is_err();
            let target = if self.vertex_snap_held {
                self.vertex_near(m, VERTEX_SNAP_PX, keep)
            } else {
                self.surface_at(m, keep).map(|(_, p)| p)
            };
            if let Some(snapped) = target.and_then(|p| self.gizmo.move_pivot_to(&p)) {
                u = snapped;
            }
        }
        let objs = self.drag_objects.clone();
        self.write_transforms(&objs, &u.transforms);
        true
    }

    fn cursor_moved(&mut self, m: Point2<f64>) -> bool {
        if !(m.x.is_finite() && m.y.is_finite()) {
            return false;
        }
        let prev = self.cursor;
        self.cursor = m;
        if self.gizmo.is_dragging() {
            return self.drag_to(m);
        }
        let (dx, dy) = (m.x - prev.x, m.y - prev.y);
        if self.fly.is_some() {
            return camera::fly_turn(&mut self.camera, dx, dy);
        }
        match self.nav {
            Some(Nav::Orbit) => {
                let turned = match self.orbit_pivot {
                    Some(p) => camera::orbit_about(&mut self.camera, p, dx, dy),
                    None => camera::orbit(&mut self.camera, dx, dy),
                };
                if turned {
                    self.leave_auto_ortho();
                }
                return turned;
            }
            Some(Nav::Pan) => return camera::pan(&mut self.camera, dx, dy, self.size.1.max(1.0)),
            None => {}
        }
        if let Some(p) = self.press {
            // A press that moves 4 px or more draws a selection box.
            if self.boxing || (m - p).norm() >= CLICK_SLOP_PX {
                self.boxing = true;
                return true;
            }
        }
        let before = self.gizmo.hovered();
        self.rehover();
        before != self.gizmo.hovered()
    }

    fn mouse_down(&mut self, button: MouseButton) -> bool {
        match button {
            MouseButton::Left => {
                if self.gizmo.is_dragging() || self.nav.is_some() {
                    return false;
                }
                if let Some(v) = self.view() {
                    let targets = self.targets();
                    if self.gizmo.begin(&v, &targets, self.cursor) {
                        self.drag_objects = self.roots_of_selection();
                        return true;
                    }
                }
                self.press = Some(self.cursor);
                false
            }
            MouseButton::Right => {
                if self.gizmo.is_dragging() {
                    return self.cancel_drag();
                }
                if self.boxing {
                    return self.cancel_box();
                }
                if self.nav.is_none() && self.fly.is_none() {
                    self.press = None;
                    self.leave_auto_ortho();
                    self.fly = Some(Fly::default());
                }
                false
            }
            MouseButton::Middle => {
                if self.gizmo.is_dragging() {
                    return false;
                }
                self.nav = Some(if self.mods.shift { Nav::Pan } else { Nav::Orbit });
                self.orbit_pivot = self.surface;
                false
            }
        }
    }

    fn mouse_up(&mut self, button: MouseButton) -> bool {
        match button {
            MouseButton::Left => {
                if let Some(r) = self.gizmo.end() {
                    let objects = std::mem::take(&mut self.drag_objects);
                    if r.before != r.after {
                        self.history.push(Edit::Transform { objects, before: r.before, after: r.after });
                    }
                    return true;
                }
                let boxing = std::mem::take(&mut self.boxing);
                match (self.press.take(), self.boxed.take()) {
                    (Some(_), Some(ids)) if boxing => self.box_select(ids),
                    (Some(p), _) if !boxing && (p - self.cursor).norm() < CLICK_SLOP_PX => self.click_select(),
                    _ => boxing,
                }
            }
            MouseButton::Middle => {
                self.nav = None;
                false
            }
            MouseButton::Right => {
                self.fly = None;
                false
            }
        }
    }

    fn click_select(&mut self) -> bool {
        if self.view().is_none() {
            return false;
        }
        // What is drawn under the cursor: the first hit on the objects'
        // triangles, not on their boxes (`editing.md`, "Picking what is drawn").
        let hit = self.surface_at(self.cursor, |_| true).map(|(id, _)| id);
        let before = self.selection.clone();
        match (hit, self.mods.shift) {
            (Some(id), true) => {
                if let Some(k) = self.selection.iter().position(|&s| s == id) {
                    self.selection.remove(k);
                } else {
                    self.selection.push(id);
                }
            }
            (Some(id), false) => self.selection = vec![id],
            (None, true) => {}
            (None, false) => self.selection.clear(),
        }
        self.rehover();
        before != self.selection
    }

    fn key_down(&mut self, key: &str) -> bool {
        let ctrl = self.mods.ctrl;
        if let (Some(fly), Some(k)) = (self.fly.as_mut(), FLY_KEYS.iter().position(|f| *f == key)) {
            // The view starts moving: the window must keep drawing.
            fly.held[k] = true;
            return true;
        }
        match key {
            "Escape" if self.boxing => self.cancel_box(),
            "Escape" => self.cancel_drag(),
            "Z" if ctrl && self.mods.shift => self.redo(),
            "Z" if ctrl => self.undo(),
            "Y" if ctrl => self.redo(),
            "V" if !ctrl => {
                // Held: vertex snapping during a translate drag.
                self.vertex_snap_held = true;
                self.drag_to(self.cursor)
            }
            _ if self.gizmo.is_dragging() => false,
            "W" | "E" | "R" | "T" if !ctrl => {
                self.gizmo.config.mode = match key {
                    "W" => Mode::Translate,
                    "E" => Mode::Rotate,
                    "R" => Mode::Scale,
                    _ => Mode::Universal,
                };
                self.rehover();
                true
            }
            "X" if !ctrl => {
                self.gizmo.config.space = self.gizmo.config.space.toggled();
                self.rehover();
                true
            }
            "F" if !ctrl => self.focus(),
            "D" if ctrl || self.mods.shift => self.duplicate(),
            "Numpad1" => self.set_axis_view(if ctrl { AxisView::Back } else { AxisView::Front }),
            "Numpad3" => self.set_axis_view(if ctrl { AxisView::Left } else { AxisView::Right }),
            "Numpad7" => self.set_axis_view(if ctrl { AxisView::Bottom } else { AxisView::Top }),
            "Numpad5" => self.toggle_projection(),
            "Period" if !ctrl => {
                // Cycles median -> individual -> active -> bounds.
                self.gizmo.config.pivot = match self.gizmo.config.pivot {
                    Pivot::Median => Pivot::Individual,
                    Pivot::Individual => Pivot::Active,
                    Pivot::Active => Pivot::Bounds,
                    Pivot::Bounds => Pivot::Median,
                };
                self.rehover();
                true
            }
            "NumpadDecimal" => self.focus(),
            "Delete" => self.delete(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests;
