//! A drag's world-space [`Delta`] applied to every target: about the start
//! pivot (or each target's own origin) and converted into each parent's
//! space.

use nalgebra::{UnitQuaternion, Vector3};

use super::{Delta, DragState};
use crate::math::Transform;

impl DragState {
    /// Applies a world-space change about the start pivot to every target,
    /// converting world deltas into each parent's space.
    pub fn apply(&self, delta: &Delta) -> Vec<Transform> {
        self.start
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let pos = self.start_pos[i];
                // Rotations and scales turn about the pivot, or about each
                // target's own origin (individual origins).
                let p = if self.individual { pos } else { self.frame.pivot };
                let mut local = t.local;
                let world_delta = match delta {
                    Delta::Translate(d) => *d,
                    Delta::Rotate(q) => {
                        let pr = self.parent_rot[i];
                        local.rotation =
                            UnitQuaternion::new_normalize((pr.inverse() * q * pr * local.rotation).into_inner());
                        (p + q * (pos - p)) - pos
                    }
                    Delta::Scale(f) => {
                        let mut d = Vector3::zeros();
                        for (k, a) in self.frame.axes.iter().enumerate() {
                            local.scale[k] *= f[k];
                            d += a * ((f[k] - 1.0) * (pos - p).dot(a));
                        }
                        d
                    }
                };
                if let Some(inv) = &self.parent_inv[i] {
                    let ld = inv * world_delta;
                    if ld.iter().all(|v| v.is_finite()) {
                        local.position += ld;
                    }
                }
                if local.is_finite() {
                    local
                } else {
                    t.local
                }
            })
            .collect()
    }
}
