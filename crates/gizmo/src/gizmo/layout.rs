//! Where the gizmo is and what its handles look like this frame: pivot,
//! orientation, screen-constant size `L`, per-handle visibility (fade and
//! hide) and the analytic pick shapes of `docs/spec/conventions.md`.

use nalgebra::{Point2, Point3, Unit, Vector3};

use super::geometry::GEOMETRY;
use super::types::{axes_of, GizmoConfig, Handle, Mode, Pivot, Space, Target};
use crate::math::closest::orthonormal_basis;
use crate::math::{Circle, Segment, View};
use crate::picking::{pick_nearest, shape_hit_within, Candidate, PickClass, PickShape};

/// Below this on-screen foreshortening an axis (or plane) is hidden.
pub const HIDE_BELOW: f64 = 0.05;
/// Between [`HIDE_BELOW`] and this it fades in; above it is fully visible.
pub const FADE_BELOW: f64 = 0.2;

/// The gizmo's placement for one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GizmoFrame {
    /// World position of the gizmo's centre (the selection's median position).
    pub pivot: Point3<f64>,
    /// Unit handle axes (world or local orientation).
    pub axes: [Vector3<f64>; 3],
    /// World length of an axis handle: `size_px * world_per_pixel(pivot)`.
    pub len: f64,
    /// Unit direction from the eye towards the pivot (forward for orthographic).
    pub view_dir: Vector3<f64>,
}

/// Component-wise median of the targets' world positions.
pub fn median_pivot(targets: &[Target]) -> Option<Point3<f64>> {
    match targets {
        [] => return None,
        [t] => {
            let p = t.world_position();
            return p.iter().all(|v| v.is_finite()).then_some(p);
        }
        _ => {}
    }
    let mut out = Point3::origin();
    let mut vals: Vec<f64> = Vec::with_capacity(targets.len());
    for k in 0..3 {
        vals.clear();
        vals.extend(targets.iter().map(|t| t.world_position()[k]));
        if !vals.iter().all(|v| v.is_finite()) {
            return None;
        }
        // The middle value(s) by selection, not a sort: linear in the
        // targets (a selection of a million objects).
        let n = vals.len();
        let (below, &mut upper, _) = vals.select_nth_unstable_by(n / 2, f64::total_cmp);
        out[k] = if n % 2 == 1 {
            upper
        } else {
            let lower = below.iter().copied().max_by(f64::total_cmp).expect("two or more targets");
            0.5 * (lower + upper)
        };
    }
    Some(out)
}

/// Where the gizmo sits for `targets` under a pivot mode (`None` for no
/// targets or non-finite positions).
pub fn pivot_point(targets: &[Target], pivot: Pivot) -> Option<Point3<f64>> {
    let p = match pivot {
        Pivot::Median | Pivot::Individual => return median_pivot(targets),
        Pivot::Active => targets.first()?.world_position(),
        Pivot::Bounds => {
            let mut lo = Point3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY);
            let mut hi = -lo;
            for t in targets {
                let world = t.world();
                let corners: Vec<Point3<f64>> = match t.bounds {
                    Some((a, b)) => (0..8)
                        .map(|k| {
                            let c = Point3::new(
                                if k & 1 == 0 { a.x } else { b.x },
                                if k & 2 == 0 { a.y } else { b.y },
                                if k & 4 == 0 { a.z } else { b.z },
                            );
                            world.transform_point(&c)
                        })
                        .collect(),
                    None => vec![t.world_position()],
                };
                for c in corners {
                    lo = lo.inf(&c);
                    hi = hi.sup(&c);
                }
            }
            if targets.is_empty() {
                return None;
            }
            nalgebra::center(&lo, &hi)
        }
    };
    p.iter().all(|v| v.is_finite()).then_some(p)
}

/// Where the gizmo sits and how it is turned, before a view sizes it: the
/// pivot of the targets under the pivot mode, and the first target's own
/// axes or the world's. It depends only on the targets and the
/// configuration, so a caller with many targets (a selection of a million
/// objects) can keep it while neither changes and place the gizmo in each
/// frame's view ([`GizmoFrame::placed`], [`super::Gizmo::hover_at`]) without
/// walking the targets again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// World position of the gizmo's centre.
    pub pivot: Point3<f64>,
    /// Unit handle axes (the first target's own, or the world's).
    pub axes: [Vector3<f64>; 3],
}

impl Placement {
    /// `None` for no targets or a non-finite pivot.
    pub fn of(targets: &[Target], config: &GizmoConfig) -> Option<Placement> {
        let pivot = pivot_point(targets, config.pivot)?;
        // Scale handles always follow the object's own axes (scale is a
        // local quantity in T * R * S).
        let local = config.space == Space::Local || config.mode == Mode::Scale;
        let axes =
            if local { axes_of(&targets[0].world_rotation()) } else { [Vector3::x(), Vector3::y(), Vector3::z()] };
        Some(Placement { pivot, axes })
    }
}

impl GizmoFrame {
    /// Placement for `targets` seen through `view`; `None` when nothing is
    /// selected or the pivot is not in front of the camera.
    pub fn new(view: &View, targets: &[Target], config: &GizmoConfig) -> Option<GizmoFrame> {
        Self::placed(view, &Placement::of(targets, config)?, config.size_px)
    }

    /// [`GizmoFrame::new`] from a placement already worked out.
    pub fn placed(view: &View, placement: &Placement, size_px: f64) -> Option<GizmoFrame> {
        Self::with_axes(view, placement.pivot, placement.axes, size_px)
    }

    /// Placement with explicit pivot and axes.
    pub fn with_axes(view: &View, pivot: Point3<f64>, axes: [Vector3<f64>; 3], size_px: f64) -> Option<GizmoFrame> {
        if view.view_depth(&pivot) < view.near() {
            return None;
        }
        let len = size_px * view.world_per_pixel(&pivot)?;
        if !(len.is_finite() && len > 0.0) {
            return None;
        }
        let view_dir = if view.is_orthographic() {
            view.forward().into_inner()
        } else {
            crate::math::geom::unit(pivot - view.eye()).map_or(view.forward().into_inner(), |u| u.into_inner())
        };
        Some(GizmoFrame { pivot, axes, len, view_dir })
    }

    /// Visibility in [0, 1]: 0 hidden (and not pickable), below 1 faded.
    pub fn visibility(&self, handle: Handle) -> f64 {
        let ramp = |r: f64| ((r - HIDE_BELOW) / (FADE_BELOW - HIDE_BELOW)).clamp(0.0, 1.0);
        match handle {
            Handle::TranslateAxis(a) | Handle::ScaleAxis(a) => {
                let c = self.view_dir.dot(&self.axes[a.index()]).abs().min(1.0);
                ramp((1.0 - c * c).sqrt())
            }
            Handle::TranslatePlane(a) | Handle::ScalePlane(a) => ramp(self.view_dir.dot(&self.axes[a.index()]).abs()),
            _ => 1.0,
        }
    }

    /// The camera-facing basis (right, up, towards the camera).
    pub fn facing(&self) -> (Vector3<f64>, Vector3<f64>, Vector3<f64>) {
        let n = Unit::new_unchecked(-self.view_dir);
        let (a, b) = orthonormal_basis(&n);
        (a, b, n.into_inner())
    }

    /// The analytic pick shape of a handle, sized by [`GEOMETRY`].
    pub fn shape(&self, handle: Handle) -> PickShape {
        let (p, l, g) = (self.pivot, self.len, &GEOMETRY);
        let facing = Unit::new_unchecked(-self.view_dir);
        match handle {
            Handle::TranslateAxis(a) | Handle::ScaleAxis(a) => {
                PickShape::Segment(Segment::new(p, p + self.axes[a.index()] * (g.axis_len * l)))
            }
            Handle::TranslatePlane(n) | Handle::ScalePlane(n) => {
                let (i, j) = n.plane_axes();
                let (a, b) = (self.axes[i.index()], self.axes[j.index()]);
                let half = g.plane_half() * l;
                PickShape::Quad { center: p + (a + b) * (g.plane_center() * l), a: a * half, b: b * half }
            }
            Handle::TranslateView | Handle::ScaleUniform => {
                PickShape::Disc(Circle { center: p, normal: facing, radius: g.disc_radius * l })
            }
            Handle::RotateAxis(a) => PickShape::Ring(Circle {
                center: p,
                normal: Unit::new_normalize(self.axes[a.index()]),
                radius: g.ring_radius * l,
            }),
            Handle::RotateView => PickShape::Ring(Circle { center: p, normal: facing, radius: g.view_ring_radius * l }),
            Handle::RotateFree => PickShape::Sphere { center: p, radius: g.trackball_radius * l },
        }
    }

    /// The handle under `cursor` among `handles` (hidden ones excluded).
    pub fn pick(&self, view: &View, cursor: &Point2<f64>, handles: &[Handle], hit_px: f64) -> Option<Handle> {
        let ray = view.cursor_ray(cursor)?;
        let candidates = handles.iter().filter(|h| self.visibility(**h) > 0.0).filter_map(|&h| {
            let hit = shape_hit_within(view, cursor, &ray, &self.shape(h), hit_px)?;
            let class = match h {
                Handle::TranslateView | Handle::ScaleUniform => PickClass::ViewDisc,
                Handle::RotateFree => PickClass::Fallback,
                _ => PickClass::Normal,
            };
            Some(Candidate { handle: h, class, hit })
        });
        pick_nearest(candidates, hit_px)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Transform;
    use rand::{Rng, SeedableRng};

    /// The median by its definition: sort each coordinate, take the middle
    /// value or the mean of the two middle values.
    fn sorted_median(points: &[Point3<f64>]) -> Point3<f64> {
        let mut out = Point3::origin();
        for k in 0..3 {
            let mut v: Vec<f64> = points.iter().map(|p| p[k]).collect();
            v.sort_by(f64::total_cmp);
            let n = v.len();
            out[k] = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        }
        out
    }

    #[test]
    fn the_median_pivot_is_the_coordinatewise_median() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for round in 0..300 {
            let n = rng.gen_range(1..60);
            // Few distinct values in some rounds: ties around the middle.
            let spread = if round % 3 == 0 { 3 } else { 1_000_000 };
            let points: Vec<Point3<f64>> = (0..n)
                .map(|_| {
                    let mut c = || rng.gen_range(0..spread) as f64 * 0.37 - 1e4;
                    Point3::new(c(), c(), c())
                })
                .collect();
            let targets: Vec<Target> =
                points.iter().map(|p| Target::root(Transform { position: p.coords, ..Transform::IDENTITY })).collect();
            assert_eq!(median_pivot(&targets), Some(sorted_median(&points)), "{n} targets");
        }
    }
}
