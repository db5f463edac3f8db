//! The editor state machine: input events -> camera controller, selection
//! (click / shift-click through scene picking), the gizmo (which has
//! priority while hovered or dragging) and undo / redo of completed drags.
//!
//! Bindings: left click selects (shift toggles); left drag on a handle
//! moves; middle drag orbits, shift + middle pans, wheel zooms; `F` focuses
//! the selection; `W` / `E` / `R` / `T` choose translate / rotate / scale /
//! universal; `X` toggles world / local; Ctrl held snaps; `Escape` or the
//! right button cancels a drag; Ctrl+Z undoes, Ctrl+Shift+Z (or Ctrl+Y)
//! redoes.
//!
//! The editor owns the [`Scene`], the [`SceneIndex`] that picks it (kept up
//! to date incrementally while objects move) and the camera. The renderer
//! reads [`Editor::view`], [`Editor::scene`], [`Editor::world_matrices`],
//! [`Editor::selection`] and [`Editor::overlay`].

pub mod camera;
mod history;

use nalgebra::{Matrix4, Point2, Point3};

use crate::gizmo::{Gizmo, GizmoConfig, Handle, Mode, OverlayInstance, Target};
use crate::input::{Event, Modifiers, MouseButton};
use crate::math::{Camera, DepthMode, Transform, View};
use crate::picking::SceneIndex;
use crate::scene::{MeshRef, Primitive, Scene};

pub use history::{Edit, History};

/// A press that moves less than this (pixels) before release is a click.
pub const CLICK_SLOP_PX: f64 = 4.0;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Nav {
    Orbit,
    Pan,
}

/// Local bounds of a mesh: exact for primitives, a unit cube for glTF until
/// [`Editor::set_local_bounds`] is told the real ones.
fn mesh_bounds(mesh: &MeshRef) -> (Point3<f64>, Point3<f64>) {
    let (lo, hi) = match mesh {
        MeshRef::Primitive(p) => p.bounds(),
        MeshRef::Gltf { .. } => Primitive::Cube.bounds(),
    };
    (Point3::from(lo), Point3::from(hi))
}

/// Editor state. See the module docs for the bindings.
#[derive(Debug)]
pub struct Editor {
    scene: Scene,
    bounds: Vec<(Point3<f64>, Point3<f64>)>,
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
    /// Objects (selected roots first) whose transforms the drag edits.
    drag_objects: Vec<usize>,
    history: History,
    /// The surface point under the cursor for the event being handled (from
    /// the depth buffer, see [`Editor::handle_with_depth`]).
    surface: Option<Point3<f64>>,
    /// The point an orbit in progress turns about (None: the target).
    orbit_pivot: Option<Point3<f64>>,
}

impl Editor {
    /// An editor over `scene` with a viewport of `width` x `height` pixels.
    pub fn new(scene: Scene, width: f64, height: f64) -> Editor {
        let camera = scene.camera.filter(|c| c.validate().is_ok()).unwrap_or_default();
        let bounds: Vec<_> = scene.objects().iter().map(|o| mesh_bounds(&o.mesh)).collect();
        let worlds = scene.world_matrices();
        let index = SceneIndex::build(bounds.iter().zip(&worlds).map(|((lo, hi), m)| (*lo, *hi, *m)));
        Editor {
            scene,
            bounds,
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
            drag_objects: Vec::new(),
            history: History::default(),
            surface: None,
            orbit_pivot: None,
        }
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

    /// Selected object indices; the first is the active one (local space).
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

    /// Selected objects without a selected ancestor (moving a parent
    /// already moves its children).
    fn roots_of_selection(&self) -> Vec<usize> {
        self.selection
            .iter()
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
        match self.history.undo() {
            Some(e) => {
                self.write_transforms(&e.objects, &e.before);
                true
            }
            None => false,
        }
    }

    pub fn redo(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        match self.history.redo() {
            Some(e) => {
                self.write_transforms(&e.objects, &e.after);
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
                let changed = match self.surface {
                    Some(p) => camera::zoom_about(&mut self.camera, p, *delta),
                    None => camera::zoom(&mut self.camera, *delta),
                };
                self.rehover();
                changed
            }
            Event::KeyDown { key } => self.key_down(key),
            Event::KeyUp { .. } => false,
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
    /// the cursor. Orbit (middle press) and zoom (wheel) then turn about and
    /// move towards the surface point under the cursor, in either depth
    /// mode; over the background they fall back to the camera target.
    pub fn handle_with_depth(
        &mut self,
        event: &Event,
        mods: Modifiers,
        depth_at: &mut dyn FnMut(Point2<f64>) -> Option<f64>,
    ) -> bool {
        let wants_surface = matches!(event, Event::MouseDown { button: MouseButton::Middle } | Event::Scroll { .. });
        self.surface = None;
        if wants_surface && !self.gizmo.is_dragging() {
            let clear = self.depth.clear_depth() as f64;
            self.surface = match (self.view(), depth_at(self.cursor)) {
                (Some(v), Some(d)) if d.is_finite() && d != clear => v.unproject(&self.cursor, d),
                _ => None,
            };
        }
        let changed = self.handle_with_mods(event, mods);
        self.surface = None;
        changed
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
        match self.gizmo.update(&v, m, self.mods.ctrl) {
            Some(u) => {
                let objs = self.drag_objects.clone();
                self.write_transforms(&objs, &u.transforms);
                true
            }
            None => false,
        }
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
        match self.nav {
            Some(Nav::Orbit) => {
                return match self.orbit_pivot {
                    Some(p) => camera::orbit_about(&mut self.camera, p, dx, dy),
                    None => camera::orbit(&mut self.camera, dx, dy),
                }
            }
            Some(Nav::Pan) => return camera::pan(&mut self.camera, dx, dy, self.size.1.max(1.0)),
            None => {}
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
            MouseButton::Right => self.cancel_drag(),
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
                        self.history.push(Edit { objects, before: r.before, after: r.after });
                    }
                    return true;
                }
                match self.press.take() {
                    Some(p) if (p - self.cursor).norm() <= CLICK_SLOP_PX => self.click_select(),
                    _ => false,
                }
            }
            MouseButton::Middle => {
                self.nav = None;
                false
            }
            MouseButton::Right => false,
        }
    }

    fn click_select(&mut self) -> bool {
        let Some(v) = self.view() else { return false };
        let hit = v.cursor_ray(&self.cursor).and_then(|r| self.index.pick(&r)).map(|h| h.id);
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
        match key {
            "Escape" => self.cancel_drag(),
            "Z" if ctrl && self.mods.shift => self.redo(),
            "Z" if ctrl => self.undo(),
            "Y" if ctrl => self.redo(),
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
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests;
