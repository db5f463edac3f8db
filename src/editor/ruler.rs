//! The ruler (`docs/spec/views.md`, "Measure"): M toggles it; with it on,
//! a left drag measures between the points under the cursor where it
//! started and where it is (a drawn surface, the ground plane y = 0 over
//! the background, or with V held the nearest vertex within 20 px). The
//! measurement stays until the next drag or M. It changes nothing in the
//! scene and takes the left button from selection and the gizmo.

use nalgebra::{Point2, Point3};

use super::{Editor, VERTEX_SNAP_PX};

/// The ruler's state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Ruler {
    pub on: bool,
    /// The measurement shown: from, to.
    pub shown: Option<(Point3<f64>, Point3<f64>)>,
    /// A drag is measuring.
    pub dragging: bool,
}

impl Editor {
    /// M: the ruler on or off (off clears the measurement).
    pub fn toggle_ruler(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        self.ruler = Ruler { on: !self.ruler.on, ..Ruler::default() };
        true
    }

    /// Whether the ruler is on.
    pub fn ruler_on(&self) -> bool {
        self.ruler.on
    }

    /// The measurement shown, if any: its two points.
    pub fn measurement(&self) -> Option<(Point3<f64>, Point3<f64>)> {
        self.ruler.shown.filter(|_| self.ruler.on)
    }

    /// The point a measurement takes at `cursor`: the nearest vertex within
    /// 20 px with V held, else the drawn surface, else the ground plane.
    fn measure_point(&self, cursor: Point2<f64>) -> Option<Point3<f64>> {
        let visible = |i: usize| !self.scene.is_hidden(i);
        if self.pointer.vertex_snap_held {
            if let Some(v) = self.vertex_near(cursor, VERTEX_SNAP_PX, visible) {
                return Some(v);
            }
        }
        if let Some((_, p)) = self.surface_at(cursor, visible) {
            return Some(p);
        }
        let ray = self.view()?.cursor_ray(&cursor)?;
        let t = -ray.origin.y / ray.dir.y;
        (t.is_finite() && t >= 0.0).then(|| ray.at(t))
    }

    /// The left button went down with the ruler on: a new measurement
    /// starts where the cursor is (nothing where there is no point).
    pub(super) fn ruler_press(&mut self) -> bool {
        let Some(p) = self.measure_point(self.pointer.cursor) else { return false };
        self.ruler.shown = Some((p, p));
        self.ruler.dragging = true;
        true
    }

    /// The cursor moved (or V changed) during a measuring drag.
    pub(super) fn ruler_follow(&mut self) -> bool {
        if !self.ruler.dragging {
            return false;
        }
        let (Some((from, _)), Some(p)) = (self.ruler.shown, self.measure_point(self.pointer.cursor)) else {
            return false;
        };
        self.ruler.shown = Some((from, p));
        true
    }

    /// The button came up: the measurement stays.
    pub(super) fn ruler_release(&mut self) -> bool {
        let moved = self.ruler_follow();
        self.ruler.dragging = false;
        moved
    }
}
