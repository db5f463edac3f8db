//! The view-orientation widget's geometry (`docs/spec/editing.md`, "View-orientation
//! widget"): where its six balls are, which one a point hits, and the view
//! a click on it shows. Pure functions of the camera, the viewport width and
//! the UI scale `u`, in physical pixels, so tests and the drawing agree.

use nalgebra::{Point2, Vector3};

use crate::editor::AxisView;
use crate::math::Camera;

/// Distance of the widget's centre from the right edge, in units of `u` px.
pub const CENTRE_FROM_RIGHT: f64 = 80.0;
/// Height of the widget's centre, in units of `u` px.
pub const CENTRE_Y: f64 = 120.0;
/// Distance of a ball from the centre for an axis in the view plane.
pub const ARM: f64 = 56.0;
/// A ball's radius.
pub const BALL_RADIUS: f64 = 11.0;
/// Inside this radius the widget has priority over handles and selection.
pub const REACH: f64 = 80.0;

/// One ball: a signed world axis and where it is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball {
    /// The unit world axis (+X, -X, +Y, -Y, +Z, -Z).
    pub axis: Vector3<f64>,
    /// The positive axes carry labels and full colour.
    pub positive: bool,
    /// Its letter: X, Y or Z.
    pub letter: char,
    /// Centre in physical pixels.
    pub centre: Point2<f64>,
    /// How much the axis points at the viewer (larger: nearer).
    pub nearness: f64,
    /// The view a click on it shows (unless that view is already shown).
    pub view: AxisView,
}

/// The widget's centre for a viewport `width` px wide at scale `u`.
pub fn centre(width: f64, u: f64) -> Point2<f64> {
    Point2::new(width - CENTRE_FROM_RIGHT * u, CENTRE_Y * u)
}

/// Whether `p` is inside the widget's circle (where it has priority).
pub fn contains(width: f64, u: f64, p: Point2<f64>) -> bool {
    (p - centre(width, u)).norm() <= REACH * u
}

/// The camera's unit screen axes (right, up) and the unit direction from
/// the target to the eye; `None` for a degenerate camera.
fn screen_axes(cam: &Camera) -> Option<(Vector3<f64>, Vector3<f64>, Vector3<f64>)> {
    let back = (cam.eye - cam.target).try_normalize(1e-300)?;
    let right = cam.up.cross(&back).try_normalize(1e-300)?;
    let up = back.cross(&right);
    Some((right, up, back))
}

/// The six balls, farthest from the viewer first (the drawing order).
pub fn balls(cam: &Camera, width: f64, u: f64) -> Vec<Ball> {
    let Some((right, up, back)) = screen_axes(cam) else { return Vec::new() };
    let c = centre(width, u);
    let table = [
        (Vector3::x(), true, 'X', AxisView::Right),
        (-Vector3::x(), false, 'X', AxisView::Left),
        (Vector3::y(), true, 'Y', AxisView::Top),
        (-Vector3::y(), false, 'Y', AxisView::Bottom),
        (Vector3::z(), true, 'Z', AxisView::Front),
        (-Vector3::z(), false, 'Z', AxisView::Back),
    ];
    let mut out: Vec<Ball> = table
        .into_iter()
        .map(|(axis, positive, letter, view)| Ball {
            axis,
            positive,
            letter,
            centre: Point2::new(c.x + ARM * u * axis.dot(&right), c.y - ARM * u * axis.dot(&up)),
            nearness: axis.dot(&back),
            view,
        })
        .collect();
    out.sort_by(|a, b| a.nearness.total_cmp(&b.nearness));
    out
}

/// The ball under `p` (the nearest to the viewer where balls overlap).
pub fn ball_at(cam: &Camera, width: f64, u: f64, p: Point2<f64>) -> Option<Ball> {
    balls(cam, width, u).into_iter().rev().find(|b| (p - b.centre).norm() <= BALL_RADIUS * u)
}

/// The view a click on `ball` shows: its side, or the opposite side when
/// that view is already shown.
pub fn view_for_click(cam: &Camera, ball: &Ball) -> AxisView {
    if AxisView::of(cam) == Some(ball.view) {
        ball.view.opposite()
    } else {
        ball.view
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Point3;

    #[test]
    fn a_front_view_puts_x_right_y_up_and_z_at_the_centre() {
        let cam = Camera { eye: Point3::new(0.0, 0.0, 5.0), ..Camera::default() };
        let bs = balls(&cam, 800.0, 1.0);
        let find = |v: AxisView| bs.iter().find(|b| b.view == v).copied().unwrap();
        assert!((find(AxisView::Right).centre - Point2::new(720.0 + 56.0, 120.0)).norm() < 1e-9);
        assert!((find(AxisView::Top).centre - Point2::new(720.0, 64.0)).norm() < 1e-9);
        assert!((find(AxisView::Front).centre - Point2::new(720.0, 120.0)).norm() < 1e-9);
        // +Z and -Z overlap at the centre: +Z faces the viewer and wins.
        assert_eq!(ball_at(&cam, 800.0, 1.0, Point2::new(720.0, 120.0)).unwrap().view, AxisView::Front);
        // Doubling u doubles the distances.
        let b2 = balls(&cam, 800.0, 2.0);
        let r2 = b2.iter().find(|b| b.view == AxisView::Right).unwrap();
        assert!((r2.centre - Point2::new(800.0 - 160.0 + 112.0, 240.0)).norm() < 1e-9);
    }
}
