//! Gizmo vocabulary: modes, spaces, axes, handles (with their automation
//! names), configuration and the objects a gizmo acts on.

use nalgebra::{Matrix3, Matrix4, Point3, Rotation3, UnitQuaternion, Vector3};

use crate::math::Transform;

/// What the gizmo does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    /// Move along axes, in planes or in the view plane.
    Translate,
    /// Rotate about axes, the view direction, or freely.
    Rotate,
    /// Scale along axes, in planes or uniformly.
    Scale,
    /// Translate handles plus rotate rings.
    Universal,
}

impl Mode {
    /// The automation name (`translate`, `rotate`, `scale`, `universal`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::Translate => "translate",
            Mode::Rotate => "rotate",
            Mode::Scale => "scale",
            Mode::Universal => "universal",
        }
    }
    /// Inverse of [`Mode::name`].
    pub fn parse(s: &str) -> Option<Mode> {
        [Mode::Translate, Mode::Rotate, Mode::Scale, Mode::Universal].into_iter().find(|m| m.name() == s)
    }
}

/// Orientation of the handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Space {
    /// World axes.
    #[default]
    World,
    /// The (first) selected object's world rotation.
    Local,
}

impl Space {
    /// The automation name (`world`, `local`).
    pub fn name(self) -> &'static str {
        match self {
            Space::World => "world",
            Space::Local => "local",
        }
    }
    /// Inverse of [`Space::name`].
    pub fn parse(s: &str) -> Option<Space> {
        match s {
            "world" => Some(Space::World),
            "local" => Some(Space::Local),
            _ => None,
        }
    }
    /// The other space.
    pub fn toggled(self) -> Space {
        match self {
            Space::World => Space::Local,
            Space::Local => Space::World,
        }
    }
}

/// One of the gizmo's three axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// The first axis (world +X in world space).
    X,
    /// The second axis (world +Y in world space).
    Y,
    /// The third axis (world +Z in world space).
    Z,
}

impl Axis {
    /// X, Y, Z in order.
    pub const ALL: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];
    /// 0, 1, 2 for X, Y, Z (the index into [`GizmoFrame::axes`](super::GizmoFrame::axes)).
    pub fn index(self) -> usize {
        self as usize
    }
    fn letter(self) -> &'static str {
        ["x", "y", "z"][self.index()]
    }
    /// The two axes spanning the plane normal to this one, in the order
    /// used by the handle names: Z -> (x, y), X -> (y, z), Y -> (z, x).
    pub fn plane_axes(self) -> (Axis, Axis) {
        match self {
            Axis::Z => (Axis::X, Axis::Y),
            Axis::X => (Axis::Y, Axis::Z),
            Axis::Y => (Axis::Z, Axis::X),
        }
    }
}

/// A grabbable part of the gizmo. Plane handles are named by their normal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Handle {
    /// The arrow along an axis.
    TranslateAxis(Axis),
    /// The square in the plane normal to the axis (`Z` is `translate.xy`).
    TranslatePlane(Axis),
    /// The camera-facing disc at the pivot.
    TranslateView,
    /// The ring about an axis.
    RotateAxis(Axis),
    /// The outer ring in the view plane.
    RotateView,
    /// Trackball: free rotation inside the rings.
    RotateFree,
    /// The cube-tipped handle along an axis.
    ScaleAxis(Axis),
    /// The square in the plane normal to the axis (two-axis scale).
    ScalePlane(Axis),
    /// The camera-facing disc at the pivot (uniform scale).
    ScaleUniform,
}

impl Handle {
    /// The automation name (`translate.x`, `translate.xy`, `rotate.view`,
    /// `scale.uniform`, ...). `rotate.free` and `scale.xy|yz|zx` extend the
    /// names listed in `docs/spec/automation.md`.
    pub fn name(self) -> String {
        let plane = |a: Axis| {
            let (p, q) = a.plane_axes();
            format!("{}{}", p.letter(), q.letter())
        };
        match self {
            Handle::TranslateAxis(a) => format!("translate.{}", a.letter()),
            Handle::TranslatePlane(a) => format!("translate.{}", plane(a)),
            Handle::TranslateView => "translate.view".into(),
            Handle::RotateAxis(a) => format!("rotate.{}", a.letter()),
            Handle::RotateView => "rotate.view".into(),
            Handle::RotateFree => "rotate.free".into(),
            Handle::ScaleAxis(a) => format!("scale.{}", a.letter()),
            Handle::ScalePlane(a) => format!("scale.{}", plane(a)),
            Handle::ScaleUniform => "scale.uniform".into(),
        }
    }

    /// Inverse of [`Handle::name`].
    pub fn parse(s: &str) -> Option<Handle> {
        Handle::ALL.iter().copied().find(|h| h.name() == s)
    }

    /// Every handle.
    pub const ALL: [Handle; 19] = [
        Handle::TranslateAxis(Axis::X),
        Handle::TranslateAxis(Axis::Y),
        Handle::TranslateAxis(Axis::Z),
        Handle::TranslatePlane(Axis::X),
        Handle::TranslatePlane(Axis::Y),
        Handle::TranslatePlane(Axis::Z),
        Handle::TranslateView,
        Handle::RotateAxis(Axis::X),
        Handle::RotateAxis(Axis::Y),
        Handle::RotateAxis(Axis::Z),
        Handle::RotateView,
        Handle::RotateFree,
        Handle::ScaleAxis(Axis::X),
        Handle::ScaleAxis(Axis::Y),
        Handle::ScaleAxis(Axis::Z),
        Handle::ScalePlane(Axis::X),
        Handle::ScalePlane(Axis::Y),
        Handle::ScalePlane(Axis::Z),
        Handle::ScaleUniform,
    ];

    /// The handles a mode shows, in drawing order.
    pub fn for_mode(mode: Mode) -> &'static [Handle] {
        use Axis::*;
        use Handle::*;
        const T: [Handle; 7] = [
            TranslatePlane(X),
            TranslatePlane(Y),
            TranslatePlane(Z),
            TranslateAxis(X),
            TranslateAxis(Y),
            TranslateAxis(Z),
            TranslateView,
        ];
        const R: [Handle; 5] = [RotateFree, RotateAxis(X), RotateAxis(Y), RotateAxis(Z), RotateView];
        const S: [Handle; 7] =
            [ScalePlane(X), ScalePlane(Y), ScalePlane(Z), ScaleAxis(X), ScaleAxis(Y), ScaleAxis(Z), ScaleUniform];
        const U: [Handle; 11] = [
            TranslatePlane(X),
            TranslatePlane(Y),
            TranslatePlane(Z),
            TranslateAxis(X),
            TranslateAxis(Y),
            TranslateAxis(Z),
            TranslateView,
            RotateAxis(X),
            RotateAxis(Y),
            RotateAxis(Z),
            RotateView,
        ];
        match mode {
            Mode::Translate => &T,
            Mode::Rotate => &R,
            Mode::Scale => &S,
            Mode::Universal => &U,
        }
    }

    /// The axis this handle is about, if any.
    pub fn axis(self) -> Option<Axis> {
        match self {
            Handle::TranslateAxis(a)
            | Handle::TranslatePlane(a)
            | Handle::RotateAxis(a)
            | Handle::ScaleAxis(a)
            | Handle::ScalePlane(a) => Some(a),
            _ => None,
        }
    }
}

/// Snapping increments, applied to a drag's total delta while snapping is on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Snap {
    /// World units along each handle axis.
    pub translate: f64,
    /// Degrees.
    pub rotate_deg: f64,
    /// Added to a scale factor of 1 (0.1 -> 1.0, 1.1, 1.2, ...).
    pub scale: f64,
    /// Translation snaps the pivot's coordinates along the moved axes to
    /// multiples of `translate` instead of rounding the delta
    /// (`docs/spec/editing.md`, "Snapping").
    pub absolute: bool,
}

impl Default for Snap {
    fn default() -> Self {
        Snap { translate: 0.5, rotate_deg: 15.0, scale: 0.1, absolute: false }
    }
}

/// Gizmo settings; the defaults are those of `docs/spec/conventions.md`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GizmoConfig {
    /// What the gizmo does.
    pub mode: Mode,
    /// World or local orientation (scale handles are always local).
    pub space: Space,
    /// Screen length of an axis handle perpendicular to the view.
    pub size_px: f64,
    /// Hover tolerance in screen pixels.
    pub hit_px: f64,
    /// Increments used while snapping is on.
    pub snap: Snap,
    /// The point rotations and scales turn about.
    pub pivot: Pivot,
}

/// What the gizmo turns and scales about (`docs/spec/editing.md`, "Pivot").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Pivot {
    /// The median of the targets' origins.
    #[default]
    Median,
    /// Each target rotates and scales about its own origin; the gizmo sits
    /// at the median and translation moves all together.
    Individual,
    /// The first target's origin (callers put the active object first).
    Active,
    /// The centre of the world-space box around the targets' bounds
    /// ([`Target::bounds`]; a target without bounds counts as its origin).
    Bounds,
}

impl Pivot {
    /// `"median"`, `"individual"`, `"active"`, `"bounds"`.
    pub fn name(self) -> &'static str {
        match self {
            Pivot::Median => "median",
            Pivot::Individual => "individual",
            Pivot::Active => "active",
            Pivot::Bounds => "bounds",
        }
    }

    /// The inverse of [`Pivot::name`].
    pub fn parse(s: &str) -> Option<Pivot> {
        [Pivot::Median, Pivot::Individual, Pivot::Active, Pivot::Bounds].into_iter().find(|p| p.name() == s)
    }
}

impl Default for GizmoConfig {
    fn default() -> Self {
        GizmoConfig {
            mode: Mode::Translate,
            space: Space::World,
            size_px: 100.0,
            hit_px: 8.0,
            snap: Snap::default(),
            pivot: Pivot::Median,
        }
    }
}

/// An object the gizmo acts on: its transform relative to its parent and
/// the parent's world matrix (identity for a root). The gizmo returns new
/// local transforms; it does not know about scenes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    /// The object's transform relative to its parent.
    pub local: Transform,
    /// The parent's world matrix (identity for a root object).
    pub parent_world: Matrix4<f64>,
    /// The object's local bounding box `(min, max)`, for [`Pivot::Bounds`].
    pub bounds: Option<(Point3<f64>, Point3<f64>)>,
}

impl Target {
    /// An object under a parent whose world matrix is `parent_world`.
    pub fn new(local: Transform, parent_world: Matrix4<f64>) -> Target {
        Target { local, parent_world, bounds: None }
    }

    /// A root object.
    pub fn root(local: Transform) -> Target {
        Target { local, parent_world: Matrix4::identity(), bounds: None }
    }

    /// The object's world matrix: `parent_world * T * R * S`.
    pub fn world(&self) -> Matrix4<f64> {
        self.parent_world * self.local.matrix()
    }

    /// The object's origin in world space.
    pub fn world_position(&self) -> Point3<f64> {
        self.parent_world.transform_point(&Point3::from(self.local.position))
    }

    /// The parent's world rotation (the rotation factor of its linear part),
    /// identity when the parent is degenerate.
    pub fn parent_rotation(&self) -> UnitQuaternion<f64> {
        rotation_of(&self.parent_world.fixed_view::<3, 3>(0, 0).into_owned())
    }

    /// The object's world rotation: parent rotation times local rotation.
    pub fn world_rotation(&self) -> UnitQuaternion<f64> {
        self.parent_rotation() * self.local.rotation
    }
}

/// The rotation factor of a 3x3 matrix (polar decomposition), identity when
/// it is singular or not finite. Reflections are folded into a rotation.
pub fn rotation_of(m: &Matrix3<f64>) -> UnitQuaternion<f64> {
    let det = m.determinant();
    if !det.is_finite() || det.abs() < 1e-300 {
        return UnitQuaternion::identity();
    }
    // Fast path: already a rotation (the common case of unscaled parents).
    if det > 0.0 && (m.transpose() * m - Matrix3::identity()).abs().max() < 1e-12 {
        return UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(*m));
    }
    // Polar factor U V^T of the SVD, exact to rounding whatever the scale
    // ratios (an iteration stopped early was 1e-5 rad off under 10:1
    // scales). A mirroring matrix is negated first, so the factor is a
    // proper rotation.
    let m = if det < 0.0 { -m } else { *m };
    let svd = m.svd(true, true);
    let (Some(u), Some(v_t)) = (svd.u, svd.v_t) else {
        return UnitQuaternion::identity();
    };
    let r = Rotation3::from_matrix_unchecked(u * v_t);
    let q = UnitQuaternion::from_rotation_matrix(&r);
    if q.coords.iter().all(|v| v.is_finite()) {
        q
    } else {
        UnitQuaternion::identity()
    }
}

/// Axis unit vectors for a rotation.
pub fn axes_of(q: &UnitQuaternion<f64>) -> [Vector3<f64>; 3] {
    [q * Vector3::x(), q * Vector3::y(), q * Vector3::z()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_of_scaled_and_degenerate_matrices() {
        let q = UnitQuaternion::from_euler_angles(0.3, -1.1, 2.0);
        let r = q.to_rotation_matrix().into_inner();
        assert!(rotation_of(&r).angle_to(&q) < 1e-12);
        // Non-uniform scale applied on the right keeps the rotation factor when it is orthogonal-aligned.
        let s = Matrix3::from_diagonal(&Vector3::new(2.0, 2.0, 2.0));
        assert!(rotation_of(&(r * s)).angle_to(&q) < 1e-9);
        let ns = Matrix3::from_diagonal(&Vector3::new(3.0, 0.5, 1.0));
        assert!(rotation_of(&(r * ns)).angle_to(&q) < 1e-6);
        assert_eq!(rotation_of(&Matrix3::zeros()), UnitQuaternion::identity());
        assert_eq!(
            rotation_of(&(r * Matrix3::from_diagonal(&Vector3::new(1.0, 0.0, 1.0)))),
            UnitQuaternion::identity()
        );
    }
}
