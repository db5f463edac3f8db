//! Picking a rotation ring: the screen distance from the cursor to the
//! ring's projected ellipse (a conic when it is round enough, else a
//! sampled search refined by Newton steps), and the view depth there.

use nalgebra::{Point2, Vector2, Vector3};

use super::{min_w, ShapeHit};
use crate::math::{Circle, View};

/// Samples of the coarse search over a ring's angle.
pub(super) const RING_SAMPLES: usize = 24;

/// `cos` and `sin` of the sample angles `k * TAU / RING_SAMPLES` (15 degree
/// steps), exact to the last bit, built from the first quadrant.
pub(super) const RING_DIRS: [(f64, f64); RING_SAMPLES] = {
    const Q: [f64; 7] = [
        1.0,
        0.965_925_826_289_068_3,
        0.866_025_403_784_438_6,
        std::f64::consts::FRAC_1_SQRT_2,
        0.5,
        0.258_819_045_102_520_74,
        0.0,
    ];
    let mut out = [(0.0, 0.0); RING_SAMPLES];
    let mut k = 0;
    while k < RING_SAMPLES {
        let (q, r) = (k / 6, k % 6);
        let (c, s) = (Q[r], Q[6 - r]);
        out[k] = match q {
            0 => (c, s),
            1 => (-s, c),
            2 => (-c, -s),
            _ => (s, -c),
        };
        k += 1;
    }
    out
};

/// A projected circle `H(t) = C + U cos t + V sin t` in homogeneous screen
/// coordinates, and the cursor it is measured from.
pub(super) struct RingImage {
    c: Vector3<f64>,
    u: Vector3<f64>,
    v: Vector3<f64>,
    m: Point2<f64>,
    wmin: f64,
}

impl RingImage {
    /// `f(t) = |P(t) - m|^2` from `cos t`, `sin t`; `None` behind `wmin`.
    #[inline(always)]
    fn f(&self, ct: f64, st: f64) -> Option<f64> {
        let h = self.c + self.u * ct + self.v * st;
        if !(h.z > self.wmin) {
            return None;
        }
        let (dx, dy) = (h.x / h.z - self.m.x, h.y / h.z - self.m.y);
        Some(dx * dx + dy * dy)
    }

    /// `f`, `f'` and `f''`.
    #[inline(always)]
    fn fgh(&self, ct: f64, st: f64) -> Option<(f64, f64, f64)> {
        let h = self.c + self.u * ct + self.v * st;
        if !(h.z > self.wmin) {
            return None;
        }
        let dh = self.v * ct - self.u * st;
        // H'' = C - H.
        let ddh = self.c - h;
        let iw = 1.0 / h.z;
        let (px, py) = (h.x * iw, h.y * iw);
        let (dx, dy) = (px - self.m.x, py - self.m.y);
        let dpx = (dh.x - px * dh.z) * iw;
        let dpy = (dh.y - py * dh.z) * iw;
        let ddpx = (ddh.x - px * ddh.z - 2.0 * dpx * dh.z) * iw;
        let ddpy = (ddh.y - py * ddh.z - 2.0 * dpy * dh.z) * iw;
        let f = dx * dx + dy * dy;
        let g = 2.0 * (dx * dpx + dy * dpy);
        let h2 = 2.0 * (dpx * dpx + dpy * dpy + dx * ddpx + dy * ddpy);
        Some((f, g, h2))
    }
}

/// Rings whose image ellipse is at least this round (minor / major semi-axis)
/// take the closed-form path; flatter ones (nearly edge-on) are searched.
pub(super) const CONIC_MIN_ROUNDNESS: f64 = 0.05;

/// Closed-form ring hit for a ring wholly in front of the camera whose image
/// is a well-rounded ellipse. The image of the circle `(cos t, sin t, 1)`
/// under `K = [U V C]` has the dual conic `K diag(1, 1, -1) K^T`, which gives
/// the ellipse's centre `o` and shape `S = M M^T` without any inverse; the
/// screen distance is then the exact point-to-ellipse distance in the
/// ellipse's principal frame (a trig-free fixed-point iteration that is
/// global in the cursor's quadrant, polished by Newton steps), and the ring
/// point under it comes back from a 2x2 linear system. `None` when this path
/// does not apply; `Some(None)` when the ring is farther than `max_px`.
pub(super) fn ring_hit_conic(
    view: &View,
    circle: &Circle,
    (e1, e2): (Vector3<f64>, Vector3<f64>),
    img: &RingImage,
    hw: f64,
    max_px: f64,
) -> Option<Option<ShapeHit>> {
    let (c, u, v, m) = (img.c, img.u, img.v, img.m);
    if !(c.z - hw > img.wmin) {
        return None;
    }
    let s = (c.z - hw) * (c.z + hw);
    let inv_s = 1.0 / s;
    let o = (c.xy() * c.z - u.xy() * u.z - v.xy() * v.z) * inv_s;
    // S = (U' U'^T + V' V'^T - C' C'^T) / s with the columns centred on o.
    let (cu, cv, cc) = (u.xy() - o * u.z, v.xy() - o * v.z, c.xy() - o * c.z);
    let sxx = (cu.x * cu.x + cv.x * cv.x - cc.x * cc.x) * inv_s;
    let sxy = (cu.x * cu.y + cv.x * cv.y - cc.x * cc.y) * inv_s;
    let syy = (cu.y * cu.y + cv.y * cv.y - cc.y * cc.y) * inv_s;
    let half = 0.5 * (sxx - syy);
    let l0 = 0.5 * (sxx + syy) + (half * half + sxy * sxy).sqrt();
    let det = sxx * syy - sxy * sxy;
    // b / a = sqrt(l1 / l0) = sqrt(det) / l0.
    if !(l0.is_finite() && det >= CONIC_MIN_ROUNDNESS * CONIC_MIN_ROUNDNESS * l0 * l0) {
        return None;
    }
    let a = l0.sqrt();
    let d = m.coords - o;
    // Exact rejections: outside the circumscribed circle grown by max_px, or
    // |rho - 1| b > max_px (the homothetic ellipse through the cursor is at
    // least that far from the ring's image, inside or out).
    let slack = max_px + 1e-9 * (1.0 + a + d.x.abs() + d.y.abs());
    if d.norm_squared() > (a + slack) * (a + slack) {
        return Some(None);
    }
    let b = (det / l0).sqrt();
    // Unit major axis.
    let ax = if sxx >= syy { Vector2::new(l0 - syy, sxy) } else { Vector2::new(sxy, l0 - sxx) };
    let n2 = ax.norm_squared();
    let ax = if n2 > 0.0 && n2.is_finite() { ax * (1.0 / n2.sqrt()) } else { Vector2::x() };
    let (y0, y1) = (d.dot(&ax), ax.perp(&d));
    let (ia, ib) = (1.0 / a, 1.0 / b);
    let rho = ((y0 * ia).powi(2) + (y1 * ib).powi(2)).sqrt();
    if (rho - 1.0).abs() * b > slack {
        return Some(None);
    }
    // Closest point in the first quadrant (Chatfield's trig-free iteration
    // on the evolute), then Newton on the angle.
    let (px, py) = (y0.abs(), y1.abs());
    let k = a * a - b * b;
    let (ka, kb) = (k * ia, k * ib);
    let (mut tc, mut ts) = (std::f64::consts::FRAC_1_SQRT_2, std::f64::consts::FRAC_1_SQRT_2);
    for _ in 0..3 {
        let (ex, ey) = (ka * tc * tc * tc, -kb * ts * ts * ts);
        let (rx, ry) = (a * tc - ex, b * ts - ey);
        let (qx, qy) = (px - ex, py - ey);
        let (r, q) = ((rx * rx + ry * ry).sqrt(), (qx * qx + qy * qy).sqrt());
        if !(q > 0.0) {
            break;
        }
        let rq = r / q;
        let nx = ((qx * rq + ex) * ia).clamp(0.0, 1.0);
        let ny = ((qy * rq + ey) * ib).clamp(0.0, 1.0);
        let t = (nx * nx + ny * ny).sqrt();
        if !(t > 0.0) {
            break;
        }
        let it = 1.0 / t;
        (tc, ts) = (nx * it, ny * it);
    }
    let f_at = |c: f64, s: f64| (a * c - px).powi(2) + (b * s - py).powi(2);
    let mut f_best = f_at(tc, ts);
    for _ in 0..4 {
        let g = (b * b - a * a) * tc * ts + a * px * ts - b * py * tc;
        let h = (b * b - a * a) * (tc * tc - ts * ts) + a * px * tc + b * py * ts;
        if !(h > 0.0) {
            break;
        }
        let dt = -g / h;
        let (cd, sd) = (1.0 - 0.5 * dt * dt, dt - dt * dt * dt / 6.0);
        let (nc, ns) = (tc * cd - ts * sd, ts * cd + tc * sd);
        // Back onto the unit circle: |(cd, sd)|^2 = 1 - dt^4 / 12 + ..., so
        // for small steps one Newton step of 1 / sqrt is exact to rounding.
        let n2 = nc * nc + ns * ns;
        let inv = if dt.abs() < 0.03 { 1.5 - 0.5 * n2 } else { 1.0 / n2.sqrt() };
        let (nc, ns) = (nc * inv, ns * inv);
        let f = f_at(nc, ns);
        if !(f < f_best) {
            break;
        }
        (tc, ts, f_best) = (nc, ns, f);
        if dt.abs() < 1e-12 {
            break;
        }
    }
    let dist = f_best.max(0.0).sqrt();
    if !(dist <= max_px) {
        return dist.is_finite().then_some(None);
    }
    // The ring angle under the closest image point x: (U - x U_w) cos t +
    // (V - x V_w) sin t = x C_w - C.
    let x = o + ax * (a * tc).copysign(y0) + Vector2::new(-ax.y, ax.x) * (b * ts).copysign(y1);
    let (a0, a1) = (u.xy() - x * u.z, v.xy() - x * v.z);
    let rhs = x * c.z - c.xy();
    let det = a0.perp(&a1);
    let (ct, st) = (rhs.perp(&a1) / det, a0.perp(&rhs) / det);
    let nt = (ct * ct + st * st).sqrt();
    if !(nt > 0.0 && nt.is_finite()) {
        return None;
    }
    let p = circle.center + (e1 * (ct / nt) + e2 * (st / nt)) * circle.radius;
    let depth = view.view_depth(&p);
    depth.is_finite().then_some(Some(ShapeHit { screen_dist: dist, view_depth: depth }))
}

/// Screen distance from the cursor to a projected circle outline. The
/// projected circle is `H(t) = C + U cos t + V sin t` in homogeneous screen
/// coordinates. When the whole ring is in front of the camera, exact bounds
/// reject it early: its image lies in the annulus around the projected
/// centre between the radii `s_min / g_hi` and `s_max / g_lo` (singular
/// values of the image ellipse over the range of `w`), and the screen point
/// moves at most `speed` pixels per radian, which turns the samples into a
/// lower bound on the distance over every sample interval. Otherwise the
/// squared distance is sampled (no trig) and the best valleys refined by a
/// safeguarded Newton search on its analytic derivative; a valley whose
/// lower bound cannot beat the best distance so far (or `max_px`) is not
/// refined. `None` when the ring is surely farther than `max_px`.
pub(super) fn ring_hit(view: &View, cursor: &Point2<f64>, circle: &Circle, max_px: f64) -> Option<ShapeHit> {
    ring_hit_with(view, cursor, circle, max_px, true)
}

/// The ring image: the circle's basis, `H(t)` and the range `hw` of its `w`
/// about the centre's.
pub(super) fn ring_image(
    view: &View,
    cursor: &Point2<f64>,
    circle: &Circle,
) -> ((Vector3<f64>, Vector3<f64>), RingImage, f64) {
    let (e1, e2) = circle.basis();
    let c = view.world_to_hscreen(&circle.center);
    let dir = |v: Vector3<f64>| view.vector_to_hscreen(&(v * circle.radius));
    let (u, v) = (dir(e1), dir(e2));
    let img = RingImage { c, u, v, m: *cursor, wmin: min_w(view).max(0.0) };
    ((e1, e2), img, (u.z * u.z + v.z * v.z).sqrt())
}

/// [`ring_hit`], with the closed-form path optional (the tests compare the two).
/// The two lowest local minima of `f` over the ring's samples (cyclic; a
/// strongly foreshortened ring can have two nearly equal valleys), or the
/// lowest finite sample when there is no interior valley (e.g. samples
/// behind the camera). Non-finite samples never count.
pub(super) fn two_best_minima(f: impl Fn(usize) -> f64) -> [Option<(usize, f64)>; 2] {
    let f_at = |k: usize| f(k % RING_SAMPLES);
    let mut minima: [Option<(usize, f64)>; 2] = [None, None];
    for k in 0..RING_SAMPLES {
        let v = f_at(k);
        if !v.is_finite() || v > f_at(k + 1) || v > f_at(k + RING_SAMPLES - 1) {
            continue;
        }
        if minima[0].is_none_or(|(_, b)| v < b) {
            minima[1] = minima[0];
            minima[0] = Some((k, v));
        } else if minima[1].is_none_or(|(_, b)| v < b) {
            minima[1] = Some((k, v));
        }
    }
    if minima[0].is_none() {
        minima[0] =
            (0..RING_SAMPLES).filter(|&k| f_at(k).is_finite()).map(|k| (k, f_at(k))).min_by(|a, b| a.1.total_cmp(&b.1));
    }
    minima
}

pub(super) fn ring_hit_with(
    view: &View,
    cursor: &Point2<f64>,
    circle: &Circle,
    max_px: f64,
    conic: bool,
) -> Option<ShapeHit> {
    let ((e1, e2), img, hw) = ring_image(view, cursor, circle);
    if conic {
        if let Some(hit) = ring_hit_conic(view, circle, (e1, e2), &img, hw, max_px) {
            return hit;
        }
    }
    let RingImage { c, u, v, wmin, .. } = img;
    let step = std::f64::consts::TAU / RING_SAMPLES as f64;
    let w_lo = c.z - hw;
    let mut speed = f64::INFINITY;
    if w_lo > wmin && c.z > 0.0 {
        let cs = Vector2::new(c.x / c.z, c.y / c.z);
        // P(t) - cs = (a cos t + b sin t) / (c.z * H_w(t)).
        let a = Vector2::new(u.x * c.z - c.x * u.z, u.y * c.z - c.y * u.z);
        let b = Vector2::new(v.x * c.z - c.x * v.z, v.y * c.z - c.y * v.z);
        let p = a.norm_squared() + b.norm_squared();
        let det2 = 2.0 * a.perp(&b).abs();
        let (sp, sm) = ((p + det2).sqrt(), (p - det2).max(0.0).sqrt());
        let (s_max, s_min) = (0.5 * (sp + sm), 0.5 * (sp - sm));
        let (g_lo, g_hi) = (c.z * w_lo, c.z * (c.z + hw));
        let (r_max, r_min) = (s_max / g_lo, s_min / g_hi);
        let dc = (cursor.coords - cs).norm();
        let slack = max_px + 1e-9 * (1.0 + dc + r_max);
        if dc - r_max > slack || r_min - dc > slack {
            return None;
        }
        // |P'| <= |E'| / g + |E| |g'| / g^2 with |E|, |E'| <= s_max, |g'| <= c.z hw.
        speed = r_max * (1.0 + c.z * hw / g_lo) * (1.0 + 1e-9);
        if !speed.is_finite() {
            speed = f64::INFINITY;
        }
    }
    let mut fs = [f64::INFINITY; RING_SAMPLES];
    for (k, &(ct, st)) in RING_DIRS.iter().enumerate() {
        if let Some(f) = img.f(ct, st) {
            fs[k] = f;
        }
    }
    // Lower bound of the distance over sample interval [k, k + 1].
    let mut lb = [f64::NEG_INFINITY; RING_SAMPLES];
    if speed.is_finite() {
        let d: [f64; RING_SAMPLES] = fs.map(|f| f.max(0.0).sqrt());
        let mut lowest = f64::INFINITY;
        for k in 0..RING_SAMPLES {
            lb[k] = 0.5 * (d[k] + d[(k + 1) % RING_SAMPLES] - speed * step) - 1e-9 * (1.0 + d[k]);
            lowest = lowest.min(lb[k]);
        }
        if lowest > max_px {
            return None;
        }
    }
    let minima = two_best_minima(|k| fs[k]);
    let (k0, mut f_best) = minima[0]?;
    let mut best = RING_DIRS[k0];
    for (k, _) in minima.into_iter().flatten() {
        let km = (k + RING_SAMPLES - 1) % RING_SAMPLES;
        let kp = (k + 1) % RING_SAMPLES;
        // Nothing in this valley can beat the best so far, or come within reach.
        let valley_lb = lb[km].min(lb[k]);
        if valley_lb >= f_best.sqrt() || valley_lb > max_px {
            continue;
        }
        let g_of = |j: usize| img.fgh(RING_DIRS[j].0, RING_DIRS[j].1).map(|(_, g, _)| g);
        let (Some(ga), Some(gb), Some(g0)) = (g_of(km), g_of(kp), g_of(k)) else { continue };
        let centre = k as f64 * step;
        // The half-bracket where f' changes sign.
        let (mut a, fa, mut b, fb) =
            if g0 > 0.0 { (centre - step, ga, centre, g0) } else { (centre, g0, centre + step, gb) };
        if !(fa <= 0.0 && fb >= 0.0) {
            continue;
        }
        // Safeguarded Newton on f', from the secant point of the bracket.
        let t0 = if fb != fa { (a * fb - b * fa) / (fb - fa) } else { 0.5 * (a + b) };
        let mut t = if t0 > a && t0 < b { t0 } else { 0.5 * (a + b) };
        for _ in 0..40 {
            let (st, ct) = t.sin_cos();
            let Some((f, g, h)) = img.fgh(ct, st) else { break };
            if f < f_best {
                f_best = f;
                best = (ct, st);
            }
            if g.abs() < 1e-12 * (1.0 + f) || b - a < 1e-12 {
                break;
            }
            if g > 0.0 {
                b = t;
            } else {
                a = t;
            }
            let newton = t - g / h;
            let next = if h > 0.0 && newton > a && newton < b { newton } else { 0.5 * (a + b) };
            if (next - t).abs() < 1e-13 {
                break;
            }
            t = next;
        }
    }
    let dist = f_best.max(0.0).sqrt();
    if dist > max_px {
        return None;
    }
    let p = circle.center + (e1 * best.0 + e2 * best.1) * circle.radius;
    Some(ShapeHit { screen_dist: dist, view_depth: view.view_depth(&p) })
}
