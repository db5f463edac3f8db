//! The view-orientation widget's geometry (`docs/spec/editing.md`, "View-orientation
//! widget"): where its six balls are, which one a point hits, and the view
//! a click on it shows. Pure functions of the camera, the top-right corner
//! of the view it sits in and the UI scale `u`, in physical pixels, so tests
//! and the drawing agree.

use nalgebra::{Point2, Vector3};

use crate::editor::quad::PERSPECTIVE;
use crate::editor::{AxisView, Editor};
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

/// The top-right corner of the view the widget sits in, for a window
/// `width` px wide: the window's in the single view, the perspective view's
/// in the quad view (`docs/spec/views.md`, "Quad view").
pub fn corner(editor: &Editor, width: f64) -> Point2<f64> {
    match editor.is_quad().then(|| editor.views().get(PERSPECTIVE).map(|v| v.rect)).flatten() {
        Some([x, y, w, _]) => Point2::new(f64::from(x) + f64::from(w), f64::from(y)),
        None => Point2::new(width, 0.0),
    }
}

/// The widget's centre for a view whose top-right corner is `corner`, at
/// scale `u`.
pub fn centre(corner: Point2<f64>, u: f64) -> Point2<f64> {
    Point2::new(corner.x - CENTRE_FROM_RIGHT * u, corner.y + CENTRE_Y * u)
}

/// Whether `p` is inside the widget's circle (where it has priority).
pub fn contains(corner: Point2<f64>, u: f64, p: Point2<f64>) -> bool {
    (p - centre(corner, u)).norm() <= REACH * u
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
pub fn balls(cam: &Camera, corner: Point2<f64>, u: f64) -> Vec<Ball> {
    let Some((right, up, back)) = screen_axes(cam) else { return Vec::new() };
    let c = centre(corner, u);
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
pub fn ball_at(cam: &Camera, corner: Point2<f64>, u: f64, p: Point2<f64>) -> Option<Ball> {
    balls(cam, corner, u).into_iter().rev().find(|b| (p - b.centre).norm() <= BALL_RADIUS * u)
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
        let top_right = Point2::new(800.0, 0.0);
        let bs = balls(&cam, top_right, 1.0);
        let find = |v: AxisView| bs.iter().find(|b| b.view == v).copied().unwrap();
        assert!((find(AxisView::Right).centre - Point2::new(720.0 + 56.0, 120.0)).norm() < 1e-9);
        assert!((find(AxisView::Top).centre - Point2::new(720.0, 64.0)).norm() < 1e-9);
        assert!((find(AxisView::Front).centre - Point2::new(720.0, 120.0)).norm() < 1e-9);
        // +Z and -Z overlap at the centre: +Z faces the viewer and wins.
        assert_eq!(ball_at(&cam, top_right, 1.0, Point2::new(720.0, 120.0)).unwrap().view, AxisView::Front);
        // Doubling u doubles the distances.
        let b2 = balls(&cam, top_right, 2.0);
        let r2 = b2.iter().find(|b| b.view == AxisView::Right).unwrap();
        assert!((r2.centre - Point2::new(800.0 - 160.0 + 112.0, 240.0)).norm() < 1e-9);
        // Another corner moves every ball by the corner's offset.
        let moved = balls(&cam, Point2::new(500.0, 300.0), 1.0);
        for (a, b) in bs.iter().zip(&moved) {
            assert!((b.centre - a.centre - nalgebra::Vector2::new(-300.0, 300.0)).norm() < 1e-9);
        }
    }

    #[test]
    fn in_the_quad_view_the_widget_sits_at_the_perspective_views_corner() {
        let mut editor = Editor::new(crate::scene::Scene::demo(), 801.0, 601.0);
        assert_eq!(corner(&editor, 801.0), Point2::new(801.0, 0.0));
        editor.toggle_quad();
        // The bottom-right view begins past the middle and the 1 px line.
        let (left, top) = ((801 - 1) / 2, (601 - 1) / 2);
        assert_eq!(corner(&editor, 801.0), Point2::new(801.0, f64::from(top + 1)));
        let c = centre(corner(&editor, 801.0), 1.0);
        assert!(c.x > f64::from(left + 1) && c.y > f64::from(top + 1));
    }
}
