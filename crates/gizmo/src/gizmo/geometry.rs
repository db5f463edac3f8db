//! The one table of handle sizes. Picking ([`GizmoFrame::shape`]), drawing
//! ([`overlay::instances`]) and dragging ([`DragState`]) all read
//! [`GEOMETRY`], so what the user sees, what the cursor grabs and what a drag
//! moves along cannot drift apart.
//!
//! Every length is a multiple of the screen-constant handle length
//! `L = size_px * world_per_pixel(pivot)` ([`GizmoFrame::len`]). The pick
//! shapes come from `docs/spec/conventions.md`, section "Gizmo geometry (what the user
//! sees and grabs)"; the rest (thicknesses, tips, the trackball, the scale
//! lever) is the viewport's own choice and is marked so below.
//!
//! [`GizmoFrame::shape`]: super::GizmoFrame::shape
//! [`GizmoFrame::len`]: super::GizmoFrame::len
//! [`overlay::instances`]: super::overlay::instances
//! [`DragState`]: super::DragState

/// Handle sizes in units of `L` (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandleGeometry {
    /// Axis handles (translate, scale) cover `pivot -> pivot + axis_len * L * axis`.
    /// Spec, "Gizmo geometry": the segment pivot -> pivot + L * axis, so 1.
    pub axis_len: f64,
    /// Plane squares (translate, scale) cover `[plane_min L, plane_max L]`
    /// along both of their axes. Spec, "Gizmo geometry": `[0.2 L, 0.4 L]`.
    pub plane_min: f64,
    /// See [`HandleGeometry::plane_min`]; 0.4 in the spec.
    pub plane_max: f64,
    /// Radius of the camera-facing disc at the pivot (view-plane translate,
    /// uniform scale). Spec, "Gizmo geometry": `0.12 L`.
    pub disc_radius: f64,
    /// Radius of the rotate ring about each axis. Spec, "Gizmo geometry": `L`.
    pub ring_radius: f64,
    /// Radius of the view (screen-facing) rotate ring. Spec, "Gizmo geometry": `1.2 L`.
    pub view_ring_radius: f64,
    /// Radius of the free-rotate trackball (the sphere inside the rings).
    /// Not in the spec; it fills the axis rings.
    pub trackball_radius: f64,
    /// Drawing only (not in the spec): radius of an axis shaft; 0.015 L
    /// draws a shaft about 3 px thick at the pivot for `size_px` 100, and
    /// it scales with `size_px` (so with the UI scale).
    pub shaft_radius: f64,
    /// Drawing only (not in the spec): a translate arrow's shaft ends here
    /// and its cone runs from here to [`HandleGeometry::axis_len`].
    pub arrow_shaft_len: f64,
    /// Drawing only (not in the spec): base radius of a translate arrow's cone.
    pub cone_radius: f64,
    /// Drawing only (not in the spec): edge of the cube at the tip of a scale
    /// axis; the cube ends at [`HandleGeometry::axis_len`] and the shaft
    /// stops where the cube starts.
    pub cube_size: f64,
    /// Drawing only (not in the spec): tube radius of a ring, relative to the
    /// ring's own radius (so the rings' thickness grows with their size):
    /// an axis ring (radius `L`) is about 2.5 px thick for `size_px` 100.
    pub ring_tube: f64,
    /// Dragging only (not in the spec): a scale drag grabbed closer than this
    /// to the pivot measures its factor from this distance instead, so the
    /// ratio `s / s0` of the spec never divides by (nearly) zero.
    pub scale_lever: f64,
}

/// The handle geometry the gizmo uses.
pub const GEOMETRY: HandleGeometry = HandleGeometry {
    axis_len: 1.0,
    plane_min: 0.2,
    plane_max: 0.4,
    disc_radius: 0.12,
    ring_radius: 1.0,
    view_ring_radius: 1.2,
    trackball_radius: 1.0,
    shaft_radius: 0.015,
    arrow_shaft_len: 0.8,
    cone_radius: 0.06,
    cube_size: 0.1,
    ring_tube: 0.0125,
    scale_lever: 0.05,
};

impl HandleGeometry {
    /// Offset of a plane square's centre along each of its two axes (0.3).
    pub const fn plane_center(&self) -> f64 {
        0.5 * (self.plane_min + self.plane_max)
    }

    /// Half the side of a plane square (0.1).
    pub const fn plane_half(&self) -> f64 {
        0.5 * (self.plane_max - self.plane_min)
    }

    /// Length of a translate arrow's cone (0.2).
    pub const fn cone_len(&self) -> f64 {
        self.axis_len - self.arrow_shaft_len
    }

    /// Length of a scale axis's shaft, up to its cube (0.9).
    pub const fn scale_shaft_len(&self) -> f64 {
        self.axis_len - self.cube_size
    }

    /// Distance of a scale axis's cube centre from the pivot (0.95).
    pub const fn cube_center(&self) -> f64 {
        self.axis_len - 0.5 * self.cube_size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_spec() {
        // The numbers of docs/spec/conventions.md, "Gizmo geometry", typed in again here.
        assert_eq!(GEOMETRY.axis_len, 1.0);
        assert_eq!((GEOMETRY.plane_min, GEOMETRY.plane_max), (0.2, 0.4));
        assert_eq!(GEOMETRY.disc_radius, 0.12);
        assert_eq!(GEOMETRY.ring_radius, 1.0);
        assert_eq!(GEOMETRY.view_ring_radius, 1.2);
        // Derived values.
        assert!((GEOMETRY.plane_center() - 0.3).abs() < 1e-15);
        assert!((GEOMETRY.plane_half() - 0.1).abs() < 1e-15);
        assert!((GEOMETRY.cone_len() - 0.2).abs() < 1e-15);
        assert!((GEOMETRY.scale_shaft_len() - 0.9).abs() < 1e-15);
        assert!((GEOMETRY.cube_center() - 0.95).abs() < 1e-15);
    }
}
