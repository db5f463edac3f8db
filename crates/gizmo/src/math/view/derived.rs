//! What a [`View`](super::View) reads off its matrices: the eye, the
//! screen basis, the near and far planes, the pixel scale and the cursor-ray
//! map, for our own projections and for an engine's (see
//! [`View::from_matrices`](super::View::from_matrices)).

// `!(x > 0.0)` is deliberate: it is also true for NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use nalgebra::{Matrix3, Matrix4, Point3, Unit, Vector3, Vector4};

use super::error::ViewError;
use crate::math::camera::DepthMode;
use crate::math::geom::unit;

/// Everything a [`View`] reads off its matrices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Derived {
    pub(super) ortho: bool,
    pub(super) eye: Point3<f64>,
    pub(super) forward: Unit<Vector3<f64>>,
    pub(super) right: Unit<Vector3<f64>>,
    pub(super) up: Unit<Vector3<f64>>,
    pub(super) near: f64,
    pub(super) far: f64,
    /// Half the height of the view at clip w = 1: perspective tan(fov_y / 2)
    /// (per unit of view depth), orthographic half the visible height.
    pub(super) half_h: f64,
    /// Cursor rays from `(ndc x, ndc y, 1)`: perspective, the direction
    /// through the pixel; orthographic, the origin on the eye plane.
    pub(super) ray: Matrix3<f64>,
}

/// Reads the camera off `proj * view` and the inverses (see
/// [`View::from_matrices`] for what is accepted).
pub(super) fn derive(
    view: &Matrix4<f64>,
    proj: &Matrix4<f64>,
    inv_view: &Matrix4<f64>,
    inv_proj: &Matrix4<f64>,
    depth_mode: DepthMode,
) -> Result<Derived, ViewError> {
    let unsupported = ViewError::Unsupported;
    let tiny = |x: f64, scale: f64| x.abs() <= 1e-12 * scale;
    // The view matrix must be affine (engines' always are).
    let vscale = view.abs().max();
    let affine = tiny(view[(3, 0)], vscale)
        && tiny(view[(3, 1)], vscale)
        && tiny(view[(3, 2)], vscale)
        && (view[(3, 3)] - 1.0).abs() <= 1e-12;
    if !affine {
        return Err(unsupported("the view matrix is not affine (last row must be 0 0 0 1)"));
    }
    let m = proj * view;
    let row = |i: usize| Vector3::new(m[(i, 0)], m[(i, 1)], m[(i, 2)]);
    // Depth values of the near and the far plane in this mode.
    let (d_near, d_far) = match depth_mode {
        DepthMode::Reversed => (1.0, 0.0),
        DepthMode::Standard => (0.0, 1.0),
    };
    // The camera's linear part, view -> world.
    let to_world = inv_view.fixed_view::<3, 3>(0, 0).into_owned();
    let w_row = proj.row(3);
    let ortho = tiny(w_row[0].abs() + w_row[1].abs() + w_row[2].abs(), w_row[3].abs());
    // The eye in view space (kept there too: converting the world eye back
    // would cost digits for a camera far from the origin).
    let (eye_view, forward) = if ortho {
        if !(w_row[3] > 0.0) {
            return Err(unsupported("orthographic clip w must be positive"));
        }
        // The viewing direction keeps clip x and y fixed; it points the way
        // depth runs from the near to the far value.
        let n = row(0).cross(&row(1));
        let dz = row(2).dot(&n);
        if tiny(dz, row(2).norm() * n.norm()) {
            return Err(ViewError::Singular);
        }
        let toward_far = if (d_far - d_near) * dz > 0.0 { n } else { -n };
        (Point3::origin(), unit(toward_far).ok_or(ViewError::Singular)?)
    } else {
        // The centre of projection is the one point clip x, y and w all
        // vanish at: the inverse image of the clip-space z direction.
        let c = inv_proj.column(2);
        if tiny(c[3], c.fixed_rows::<3>(0).norm()) {
            return Err(unsupported("the projection has no centre of projection"));
        }
        let centre = Point3::new(c[0] / c[3], c[1] / c[3], c[2] / c[3]);
        // Clip w grows with the distance in front of the eye.
        (centre, unit(row(3)).ok_or(ViewError::Singular)?)
    };
    let eye = inv_view.transform_point(&eye_view);
    let f = forward.into_inner();
    // Screen right and up: the directions across the line of sight in which
    // clip x grows and clip y falls (NDC y points down).
    let across = |v: Vector3<f64>| v - f * v.dot(&f);
    let (rx, ry) = (across(row(0)), across(-row(1)));
    let right = unit(rx).ok_or(ViewError::Singular)?;
    let up = unit(ry).ok_or(ViewError::Singular)?;
    // Clip z and w along the forward axis, `eye + t f`: z = ze + zf t and
    // w = we + wf t (w is constant for orthographic, 0 at a perspective eye).
    // (In view space, where the numbers are small.)
    let f_view = view.transform_vector(&f);
    let at_eye = proj * eye_view.to_homogeneous();
    let along = proj * f_view.to_homogeneous();
    let (ze, zf) = (at_eye.z, along.z);
    let (we, wf) = if ortho { (at_eye.w, 0.0) } else { (0.0, along.w) };
    // The t at which the depth value z / w equals d: ze + zf t = d (we + wf t).
    let t_of = |d: f64| {
        let den = zf - d * wf;
        let t = (d * we - ze) / den;
        if tiny(den, zf.abs() + wf) || !t.is_finite() {
            f64::INFINITY
        } else {
            t
        }
    };
    let (mut near, mut far) = (t_of(d_near), t_of(d_far));
    if !(near.is_finite() && far > near) {
        return Err(unsupported("the depth range does not run from near to far for this depth mode"));
    }
    // The depth value must also move the right way between near and far
    // (a perspective matrix for the other depth mode fails here).
    let depth_at = |t: f64| (ze + zf * t) / (we + wf * t);
    let probe = if far.is_finite() { 0.5 * (near + far) } else { 3.0 * near };
    let d_mid = depth_at(probe);
    if !((d_mid - d_near) * (d_far - d_near) > 0.0 && (d_far - d_mid) * (d_far - d_near) > 0.0) {
        return Err(unsupported("the depth values run the wrong way for this depth mode"));
    }
    let (mut eye, mut eye_view) = (eye, eye_view);
    if ortho && !(near > 0.0) && far.is_finite() {
        // The eye of an orthographic camera only fixes where view depth 0
        // is; when the engine's near plane is at or behind it, move it back
        // so that everything visible is in front.
        let back = near - 1e-3 * (far - near);
        eye += f * back;
        eye_view += view.transform_vector(&(f * back));
        (near, far) = (near - back, far - back);
    }
    if !(near > 0.0) {
        return Err(unsupported("the near plane is not in front of the eye"));
    }
    // Pixels per world unit across the line of sight: NDC y moves by
    // |row1 . up| / w per world unit. `half_h` is the half-height of the view
    // at w = 1 (perspective: tan(fov_y / 2) when |grad w| = 1).
    let half_h = if ortho { we } else { wf } / row(1).dot(&up).abs();
    // The cursor-ray map from (ndc x, ndc y, 1), built in view space (small
    // numbers) and turned into world space by the camera's linear part.
    let k = [
        inv_proj.column(0).into_owned(),
        inv_proj.column(1).into_owned(),
        inv_proj * Vector4::new(0.0, 0.0, d_near, 1.0),
    ];
    let mut ray = Matrix3::zeros();
    if ortho {
        // Origins on the eye plane: the near-plane point of the pixel, moved
        // back along the line of sight.
        for (j, c) in k.iter().enumerate() {
            let v = Vector3::new(c[0], c[1], c[2]) / k[2][3];
            let v = if j == 2 { v - eye_view.coords } else { v };
            let w = to_world * v;
            ray.set_column(j, &(w - f * w.dot(&f)));
        }
        ray.set_column(2, &(ray.column(2) + eye.coords));
    } else {
        // Directions from the centre of projection towards the pixel's
        // point on the near plane (homogeneous: x - w * centre).
        for (j, c) in k.iter().enumerate() {
            let v = Vector3::new(c[0], c[1], c[2]) - eye_view.coords * c[3];
            ray.set_column(j, &(to_world * v));
        }
        if ray.column(2).dot(&f) < 0.0 {
            ray = -ray;
        }
    }
    let all_finite = ray.iter().chain(eye.iter()).chain([near, half_h].iter()).all(|v| v.is_finite());
    if !(all_finite && half_h > 0.0) {
        return Err(ViewError::Singular);
    }
    Ok(Derived { ortho, eye, forward, right, up, near, far, half_h, ray })
}
