//! [`AxisImage`]: the image of a 3-D line on screen with the exact inverse
//! map from a screen position along it back to the line parameter, which
//! axis drags use (see `drag/mod.rs`), and [`depth_limit`].

// `!(a > b)` is deliberate here: it is true for NaN, which must be rejected.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use nalgebra::{Point2, Point3, Vector2, Vector3};

use crate::math::{Projection, View};

/// The image of a 3-D line on screen, with the exact inverse map.
#[derive(Clone, Copy, Debug)]
pub struct AxisImage {
    /// Screen position of the line's origin.
    pub p0: Point2<f64>,
    /// Unit direction of the image line (towards increasing `s`).
    pub u: Vector2<f64>,
    dlen: f64,
    w0: f64,
    wa: f64,
}

impl AxisImage {
    /// The image of `origin + s * dir`; `None` when the origin is behind the
    /// eye or the line is seen end-on (its image is a point).
    pub fn new(view: &View, origin: &Point3<f64>, dir: &Vector3<f64>) -> Option<AxisImage> {
        let c0 = view.world_to_hscreen(origin);
        let ca = view.vector_to_hscreen(dir);
        let (w0, wa) = (c0.z, ca.z);
        if !(w0 > 0.0) {
            return None;
        }
        let d = Vector2::new(ca.x * w0 - c0.x * wa, ca.y * w0 - c0.y * wa);
        let dlen = d.norm();
        // Relative test: `d / w0^2` is pixels per unit of `s`.
        if !(dlen > 1e-12 * w0 * w0 * (1.0 + view.width() + view.height()) * dir.norm()) || !dlen.is_finite() {
            return None;
        }
        Some(AxisImage { p0: Point2::new(c0.x / w0, c0.y / w0), u: d / dlen, dlen, w0, wa })
    }

    /// Signed distance in pixels of the cursor's projection along the image.
    pub fn t_of(&self, cursor: &Point2<f64>) -> f64 {
        self.u.dot(&(cursor - self.p0))
    }

    /// The line parameter under screen offset `t`, `None` past the vanishing point.
    pub fn s_of(&self, t: f64) -> Option<f64> {
        let den = self.dlen - t * self.w0 * self.wa;
        let s = t * self.w0 * self.w0 / den;
        (den > 0.0 && s.is_finite()).then_some(s)
    }

    /// Screen offset of line parameter `s` (inverse of [`AxisImage::s_of`]).
    pub fn t_of_s(&self, s: f64) -> f64 {
        s * self.dlen / (self.w0 * (self.w0 + s * self.wa))
    }

    /// The range of `t` whose line point has clip `w` in `[wmin, wmax]`
    /// (for perspective, `w` is the view depth). Unbounded for orthographic.
    pub fn t_range(&self, wmin: f64, wmax: f64) -> (f64, f64) {
        let k = self.w0 * self.wa;
        if k.abs() <= 1e-300 || !(wmin > 0.0) {
            return (f64::NEG_INFINITY, f64::INFINITY);
        }
        let den_lo = self.w0 * self.dlen / wmax;
        let den_hi = self.w0 * self.dlen / wmin;
        let a = (self.dlen - den_hi) / k;
        let b = (self.dlen - den_lo) / k;
        if a <= b {
            (a, b)
        } else {
            (b, a)
        }
    }

    /// Where the cursor projects onto the image line.
    pub fn foot(&self, cursor: &Point2<f64>) -> Point2<f64> {
        self.p0 + self.u * self.t_of(cursor)
    }
}

/// The farthest view depth a drag may move something to: the far plane, or
/// [`Projection::DEFAULT_FAR`] for a projection without one (a view from
/// matrices with an infinite far plane), and never nearer than four times
/// the start depth.
pub fn depth_limit(view: &View, start_depth: f64) -> f64 {
    let far = if view.far().is_finite() { view.far() } else { Projection::DEFAULT_FAR };
    far.max(4.0 * start_depth)
}
