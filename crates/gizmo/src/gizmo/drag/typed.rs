//! Placing the targets by value instead of by the cursor: a value typed
//! during a drag (metres, degrees or a factor), and the pivot moved onto
//! a snapped point (vertex and surface snapping).

use nalgebra::{Point3, UnitQuaternion, Vector3};

use super::{Delta, DragState, DragUpdate, Kind, MIN_SCALE_FACTOR};
use crate::gizmo::types::Handle;

impl DragState {
    /// Moves the pivot to `point` instead of following the cursor (vertex
    /// and surface snapping), within what the handle allows: along its axis,
    /// in its plane, or freely for the view-plane handle. `None` (and no
    /// change) for other handles or a non-finite point.
    pub fn move_pivot_to(&mut self, point: &Point3<f64>) -> Option<DragUpdate> {
        let to = point - self.frame.pivot;
        let axes = &self.frame.axes;
        let d = match self.handle {
            Handle::TranslateAxis(a) => axes[a.index()] * axes[a.index()].dot(&to),
            Handle::TranslatePlane(a) => to - axes[a.index()] * axes[a.index()].dot(&to),
            Handle::TranslateView => to,
            _ => return None,
        };
        if !d.iter().all(|v| v.is_finite()) {
            return None;
        }
        let delta = Delta::Translate(d);
        let update = DragUpdate {
            handle: self.handle,
            transforms: self.apply(&delta),
            delta,
            clamped: false,
            tangent_fallback: false,
        };
        self.last = Some(update.clone());
        Some(update)
    }

    /// Whether the handle takes a typed value ([`DragState::typed`]):
    /// translate and scale axes, uniform scale, the rings.
    pub fn takes_typed(&self) -> bool {
        match self.handle {
            Handle::TranslateAxis(_) | Handle::ScaleAxis(_) | Handle::ScaleUniform => true,
            Handle::RotateAxis(_) | Handle::RotateView => matches!(self.kind, Kind::Ring { .. } | Kind::Tangent { .. }),
            _ => false,
        }
    }

    /// Places the targets as if the drag had produced `value` exactly:
    /// metres along the dragged axis, degrees about the ring's axis (right
    /// handed), or the scale factor (along the axis, or uniform; at least
    /// [`MIN_SCALE_FACTOR`]). `None` (the start transforms) shows the
    /// drag's start; `None` is returned for handles that take no typed
    /// value or a non-finite one. No snapping applies.
    pub fn typed(&mut self, value: Option<f64>) -> Option<DragUpdate> {
        if !self.takes_typed() || value.is_some_and(|v| !v.is_finite()) {
            return None;
        }
        let axes = &self.frame.axes;
        let mut clamped = false;
        let delta = match (self.handle, value) {
            (Handle::TranslateAxis(_) | Handle::RotateAxis(_) | Handle::RotateView, None) => {
                self.typed_angle = Some(0.0);
                Delta::Translate(Vector3::zeros())
            }
            (Handle::TranslateAxis(a), Some(v)) => Delta::Translate(axes[a.index()] * v),
            (Handle::RotateAxis(_) | Handle::RotateView, Some(v)) => {
                let axis = match self.kind {
                    Kind::Ring { axis, .. } | Kind::Tangent { axis, .. } => axis,
                    _ => return None,
                };
                self.typed_angle = Some(v.to_radians());
                Delta::Rotate(UnitQuaternion::from_axis_angle(&axis, v.to_radians()))
            }
            (_, v) => {
                let f = v.unwrap_or(1.0);
                let f = if f < MIN_SCALE_FACTOR {
                    clamped = true;
                    MIN_SCALE_FACTOR
                } else {
                    f.min(1e6)
                };
                match self.handle {
                    Handle::ScaleAxis(a) => {
                        let mut s = [1.0; 3];
                        s[a.index()] = f;
                        Delta::Scale(s)
                    }
                    _ => Delta::Scale([f; 3]),
                }
            }
        };
        let update =
            DragUpdate { handle: self.handle, transforms: self.apply(&delta), delta, clamped, tangent_fallback: false };
        self.last = Some(update.clone());
        Some(update)
    }
}
