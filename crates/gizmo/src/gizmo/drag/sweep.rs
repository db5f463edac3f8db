//! [`Sweep`]: the sector a ring drag has swept, for drawing it.

use nalgebra::{Point3, Vector3};

use super::{Delta, DragState, Kind};
use crate::gizmo::geometry::GEOMETRY;
use crate::gizmo::types::Handle;

/// What a ring drag has swept so far, for drawing its sector
/// (`Gizmo::sweep`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep {
    /// The ring's centre (the pivot at mouse-down).
    pub centre: Point3<f64>,
    /// The ring's axis (unit): the sweep turns about it, right handed.
    pub axis: Vector3<f64>,
    /// Unit direction in the ring's plane where the sweep starts.
    pub start: Vector3<f64>,
    /// The ring's radius in world units.
    pub radius: f64,
    /// The angle swept (radians, signed about `axis`), as applied.
    pub angle: f64,
}

impl DragState {
    /// The sector a ring drag has swept (the angle of the rotation last
    /// applied, snapped or typed as it was); `None` for other handles.
    pub fn sweep(&self) -> Option<Sweep> {
        let radius = match self.handle {
            Handle::RotateAxis(_) => GEOMETRY.ring_radius,
            Handle::RotateView => GEOMETRY.view_ring_radius,
            _ => return None,
        } * self.frame.len;
        let (axis, start) = match self.kind {
            Kind::Ring { axis, r0, .. } => (axis.into_inner(), r0.try_normalize(1e-12)?),
            Kind::Tangent { axis, .. } => {
                let axis = axis.into_inner();
                // Any direction in the ring's plane: the view's, made perpendicular.
                let d = self.frame.view_dir - axis * axis.dot(&self.frame.view_dir);
                let d = d.try_normalize(1e-9).unwrap_or_else(|| axis.cross(&Vector3::x()).normalize());
                (axis, d.cross(&axis).try_normalize(1e-9)?)
            }
            _ => return None,
        };
        let angle = match self.last.as_ref().map(|u| u.delta) {
            Some(Delta::Rotate(q)) => q.axis().map_or(0.0, |a| q.angle() * a.dot(&axis).signum()),
            _ => 0.0,
        };
        // A quaternion keeps the angle within half a turn: whole turns
        // back as typed, or as the cursor went round (the ring's total).
        let angle = match self.kind {
            _ if self.typed_angle.is_some() => self.typed_angle.unwrap_or(angle),
            Kind::Ring { total, .. } => {
                let turns = ((total - angle) / std::f64::consts::TAU).round();
                angle + turns * std::f64::consts::TAU
            }
            _ => angle,
        };
        Some(Sweep { centre: self.frame.pivot, axis, start, radius, angle })
    }
}
