//! The quad view (`docs/spec/views.md`, "Quad view"): four views of the
//! 3D area, Top, Front and Right orthographic and the perspective camera,
//! each with its own camera and rectangle. The perspective camera stays
//! [`Editor::camera`] (the trace's `camera`, what a scene file saves); the
//! three orthographic cameras live here. Screen coordinates stay the
//! window's: each view's [`View`] is placed at its rectangle's corner
//! ([`View::at`]), so picking, hovering and drags work in window pixels.

use nalgebra::Point3;

use crate::picking::Boxes;

use super::camera::{self, AxisView};
use super::Editor;
use crate::gizmo::OverlayInstance;
use crate::math::{Camera, Projection, View};

/// How many views the quad view has, and the perspective view's index.
pub const QUAD_VIEWS: usize = 4;
pub const PERSPECTIVE: usize = 3;

/// The orthographic views in order, with the axis views they look as.
const ORTHO: [AxisView; 3] = [AxisView::Top, AxisView::Front, AxisView::Right];

/// One view of the 3D area: its camera and its rectangle (x, y, width,
/// height in window pixels).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EditorView {
    pub camera: Camera,
    pub rect: [u32; 4],
}

/// The quad view's state.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Quad {
    /// Top, Front, Right.
    pub ortho: [Camera; 3],
    /// The view that input acts on: the one under the cursor when no
    /// button is held (a drag or navigation stays in the view it began in).
    pub active: usize,
}

/// The four rectangles of a `width` x `height` area split by lines
/// `separator` pixels wide, in the order Top, Front, Right, Perspective
/// (top-left, top-right, bottom-left, bottom-right). The left and top
/// views get the smaller half of an odd remainder. Empty rectangles where
/// the area is too small.
pub fn quad_rects(width: u32, height: u32, separator: u32) -> [[u32; 4]; 4] {
    let split = |n: u32| {
        let s = separator.min(n);
        let first = (n - s) / 2;
        (first, first + s, n - first - s)
    };
    let (lw, rx, rw) = split(width);
    let (th, by, bh) = split(height);
    [[0, 0, lw, th], [rx, 0, rw, th], [0, by, lw, bh], [rx, by, rw, bh]]
}

impl Editor {
    /// Whether the quad view is on.
    pub fn is_quad(&self) -> bool {
        self.quad.is_some()
    }

    /// The views in drawing and trace order: the single view over the
    /// whole area, or Top, Front, Right and Perspective.
    pub fn views(&self) -> Vec<EditorView> {
        let (w, h) = (self.size.0.max(0.0) as u32, self.size.1.max(0.0) as u32);
        match &self.quad {
            None => vec![EditorView { camera: self.shown_camera(), rect: [0, 0, w, h] }],
            Some(q) => {
                let rects = quad_rects(w, h, self.separator_px());
                let cameras = [q.ortho[0], q.ortho[1], q.ortho[2], self.shown_camera()];
                cameras.iter().zip(rects).map(|(&camera, rect)| EditorView { camera, rect }).collect()
            }
        }
    }

    /// The separator's width in pixels (one UI unit, at least one pixel).
    pub fn separator_px(&self) -> u32 {
        (self.ui_scale.round().max(1.0)) as u32
    }

    /// The view `k` of [`Editor::views`] placed in the window, or `None`
    /// where it has no area (or `k` is out of range).
    pub fn view_of(&self, k: usize) -> Option<View> {
        if self.quad.is_none() {
            // The whole area, at its exact (possibly fractional) size.
            return (k == 0)
                .then(|| View::new(self.shown_camera(), self.size.0, self.size.1, self.depth).ok())
                .flatten();
        }
        let v = *self.views().get(k)?;
        let [x, y, w, h] = v.rect;
        View::new(v.camera, f64::from(w), f64::from(h), self.depth).ok().map(|view| view.at(f64::from(x), f64::from(y)))
    }

    /// The index of the view input acts on (0 in the single view).
    pub fn active_view(&self) -> usize {
        self.quad.as_ref().map_or(0, |q| q.active)
    }

    /// The camera of the view input acts on.
    pub(super) fn active_camera(&self) -> Camera {
        match &self.quad {
            Some(q) if q.active < PERSPECTIVE => q.ortho[q.active],
            _ => self.shown_camera(),
        }
    }

    /// Whether input acts on one of the quad view's orthographic views.
    pub(super) fn in_ortho_quad_view(&self) -> bool {
        self.quad.as_ref().is_some_and(|q| q.active < PERSPECTIVE)
    }

    /// The camera of the view input acts on, to move.
    /// Moving the perspective camera leaves the camera view first
    /// (`through.rs`): the editor camera moves on from where it was.
    pub(super) fn active_camera_mut(&mut self) -> &mut Camera {
        if !self.in_ortho_quad_view() {
            self.leave_camera_view();
        }
        match &mut self.quad {
            Some(q) if q.active < PERSPECTIVE => &mut q.ortho[q.active],
            _ => &mut self.camera,
        }
    }

    /// The view whose rectangle holds window point (`x`, `y`), if any (the
    /// separator lines belong to none).
    pub fn view_index_at(&self, x: f64, y: f64) -> Option<usize> {
        self.views().iter().position(|v| {
            let [rx, ry, rw, rh] = v.rect.map(f64::from);
            x >= rx && y >= ry && x < rx + rw && y < ry + rh
        })
    }

    /// What the overlay draws in view `k`: the gizmo at its screen size
    /// there, and the selected empties' axis crosses.
    pub fn overlay_of(&self, k: usize) -> Vec<OverlayInstance> {
        match self.view_of(k) {
            Some(v) => self.overlay_in(&v),
            None => Vec::new(),
        }
    }

    /// Ctrl+Alt+Q: into the quad view or back to the single view (with the
    /// perspective camera). Entering gives the orthographic views the
    /// perspective camera's target and a height that shows the whole scene.
    pub fn toggle_quad(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        if self.quad.take().is_some() {
            self.rehover();
            return true;
        }
        let target = self.camera.target;
        let radius = self.scene_radius_about(target);
        let mut ortho = [self.camera; 3];
        for (cam, axis) in ortho.iter_mut().zip(ORTHO) {
            *cam = ortho_camera(target, radius, axis);
        }
        self.quad = Some(Quad { ortho, active: PERSPECTIVE });
        let c = self.pointer.cursor;
        self.set_active_view_at(c.x, c.y);
        self.rehover();
        true
    }

    /// Makes view `k` the one input acts on (the view-orientation widget
    /// makes it the perspective view); nothing in the single view or for a
    /// `k` out of range.
    pub fn activate_view(&mut self, k: usize) {
        if let Some(q) = self.quad.as_mut().filter(|_| k < QUAD_VIEWS) {
            q.active = k;
        }
    }

    /// Makes the view under (`x`, `y`) the active one (no change over a
    /// separator or outside every view).
    pub(super) fn set_active_view_at(&mut self, x: f64, y: f64) {
        if let Some(k) = self.view_index_at(x, y) {
            if let Some(q) = &mut self.quad {
                q.active = k;
            }
        }
    }

    /// The distance from `target` to the farthest corner of the shown
    /// objects' bounds (10 m with nothing shown).
    fn scene_radius_about(&self, target: Point3<f64>) -> f64 {
        let boxes = self.pick.boxes(&self.scene);
        let mut r: f64 = 0.0;
        for i in self.scene.ids().filter(|&i| !self.scene.is_hidden(i)) {
            if let Some(b) = boxes.obb(i) {
                let (lo, hi) = b.aabb();
                for c in 0..8 {
                    let p = Point3::new(
                        if c & 1 == 0 { lo.x } else { hi.x },
                        if c & 2 == 0 { lo.y } else { hi.y },
                        if c & 4 == 0 { lo.z } else { hi.z },
                    );
                    r = r.max((p - target).norm());
                }
            }
        }
        if r.is_finite() && r > 0.0 {
            r
        } else {
            10.0
        }
    }
}

/// An orthographic camera looking as axis view `axis` looks, at `target`,
/// tall enough to show a sphere of `radius` about it with a margin.
fn ortho_camera(target: Point3<f64>, radius: f64, axis: AxisView) -> Camera {
    let near = 0.01_f64.max(radius * 1e-4);
    let mut cam = Camera {
        eye: target + axis.eye_direction() * (radius * 4.0).max(1.0),
        target,
        up: axis.up(),
        projection: Projection::Orthographic { height: 2.4 * radius, near, far: (radius * 40.0).max(1000.0) },
    };
    // The axis view sets the up vector exactly as the keys do.
    camera::axis_view(&mut cam, axis);
    cam
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_rectangles_tile_the_area_around_the_separators() {
        for (w, h, s) in [(800, 600, 1), (801, 601, 1), (1600, 900, 2), (3, 3, 1)] {
            let r = quad_rects(w, h, s);
            // Left and right columns with the separator between them span
            // the width; the same for the rows.
            assert_eq!(r[0][2] + s + r[1][2], w);
            assert_eq!(r[0][3] + s + r[2][3], h);
            assert_eq!((r[1][0], r[3][0]), (r[0][2] + s, r[0][2] + s));
            assert_eq!((r[2][1], r[3][1]), (r[0][3] + s, r[0][3] + s));
            assert!(r[1][2] >= r[0][2] && r[1][2] - r[0][2] <= 1);
        }
        assert_eq!(quad_rects(0, 0, 1), [[0; 4]; 4]);
    }
}
