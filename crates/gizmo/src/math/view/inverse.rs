//! The inverses a [`View`](super::View) keeps: closed-form ones of our own
//! rigid view and projection matrices, and checked general ones of an
//! engine's (refused when too badly conditioned to place a cursor).

use nalgebra::Matrix4;

use super::error::ViewError;

/// Inverse of a rigid transform (rotation + translation).
pub(super) fn rigid_inverse(m: &Matrix4<f64>) -> Matrix4<f64> {
    let r = m.fixed_view::<3, 3>(0, 0).transpose();
    let t = -(r * m.fixed_view::<3, 1>(0, 3));
    let mut out = Matrix4::identity();
    out.fixed_view_mut::<3, 3>(0, 0).copy_from(&r);
    out.fixed_view_mut::<3, 1>(0, 3).copy_from(&t);
    out
}

/// Inverse of the projection matrices of [`Projection::matrix`]:
/// perspective `[sx 0 0 0; 0 sy 0 0; 0 0 a b; 0 0 -1 0]` and orthographic
/// `[sx 0 0 0; 0 sy 0 0; 0 0 a b; 0 0 0 1]`.
pub(super) fn projection_inverse(p: &Matrix4<f64>, ortho: bool) -> Option<Matrix4<f64>> {
    let (sx, sy, a, b) = (p[(0, 0)], p[(1, 1)], p[(2, 2)], p[(2, 3)]);
    let mut inv = Matrix4::zeros();
    inv[(0, 0)] = 1.0 / sx;
    inv[(1, 1)] = 1.0 / sy;
    if ortho {
        // z_c = a z_v + b.
        inv[(2, 2)] = 1.0 / a;
        inv[(2, 3)] = -b / a;
        inv[(3, 3)] = 1.0;
    } else {
        // w_c = -z_v, z_c = a z_v + b w_v.
        inv[(2, 3)] = -1.0;
        inv[(3, 2)] = 1.0 / b;
        inv[(3, 3)] = a / b;
    }
    inv.iter().all(|v| v.is_finite()).then_some(inv)
}

/// Max-row-sum norm.
fn norm_inf<const N: usize>(a: &nalgebra::SMatrix<f64, N, N>) -> f64 {
    (0..N).map(|r| a.row(r).abs().sum()).fold(0.0, f64::max)
}

/// The general inverse of an engine's projection matrix, or why there is
/// none. It is accepted only when it is finite, the matrix is not so badly
/// conditioned that the derived quantities would carry too few correct
/// digits to place a cursor, and `m * inv` is the identity to match.
pub(super) fn checked_inverse(m: &Matrix4<f64>) -> Result<Matrix4<f64>, ViewError> {
    let inv = m.try_inverse().ok_or(ViewError::Singular)?;
    let cond = norm_inf(m) * norm_inf(&inv);
    let residual = (m * inv - Matrix4::identity()).abs().max();
    if !(inv.iter().all(|v| v.is_finite()) && cond < 1e12 && residual <= 1e-12 * cond) {
        return Err(ViewError::Singular);
    }
    Ok(inv)
}

/// The inverse of an engine's view matrix, which must be affine: the
/// general inverse of its 3x3 linear part (conditioned as in
/// [`checked_inverse`]) and the translation undone with it. Unlike a 4x4
/// inverse this stays exact however far the camera is from the origin.
pub(super) fn affine_inverse(m: &Matrix4<f64>) -> Result<Matrix4<f64>, ViewError> {
    let lin = m.fixed_view::<3, 3>(0, 0).into_owned();
    let inv = lin.try_inverse().ok_or(ViewError::Singular)?;
    let cond = norm_inf(&lin) * norm_inf(&inv);
    if !(inv.iter().all(|v| v.is_finite()) && cond < 1e12) {
        return Err(ViewError::Singular);
    }
    let scale = m.abs().max();
    let tiny = |x: f64| x.abs() <= 1e-12 * scale;
    if !(tiny(m[(3, 0)]) && tiny(m[(3, 1)]) && tiny(m[(3, 2)]) && (m[(3, 3)] - 1.0).abs() <= 1e-12) {
        return Err(ViewError::Unsupported("the view matrix is not affine (last row must be 0 0 0 1)"));
    }
    let mut out = Matrix4::identity();
    out.fixed_view_mut::<3, 3>(0, 0).copy_from(&inv);
    out.fixed_view_mut::<3, 1>(0, 3).copy_from(&(-(inv * m.fixed_view::<3, 1>(0, 3))));
    Ok(out)
}
