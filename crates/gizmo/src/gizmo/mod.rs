//! The transform gizmo: translate, rotate, scale and universal modes with
//! pixel-perfect drags (see `docs/spec/conventions.md`, "What a drag must do").
//!
//! Pure math, no GPU and no scene: the caller passes the selected objects as
//! [`Target`]s (local transform + parent world matrix) and gets back new
//! local transforms, plus [`OverlayInstance`]s to draw.
//!
//! Typical use, one mouse event per step (an engine would build the view
//! with [`View::from_matrices`] from its own camera matrices instead):
//! ```
//! use nalgebra::{Point3, Vector2};
//! use viewport_gizmo::gizmo::{Axis, Gizmo, GizmoConfig, Handle, Target};
//! use viewport_gizmo::math::{Camera, DepthMode, Transform, View};
//!
//! # fn main() -> Result<(), viewport_gizmo::math::ViewError> {
//! let mut gizmo = Gizmo::new(GizmoConfig::default()); // translate, world axes
//! let mut object = Transform::IDENTITY;
//!
//! // Each frame: this frame's camera and the selection.
//! let view = View::new(Camera::default(), 1280.0, 720.0, DepthMode::Reversed)?;
//! let targets = [Target::root(object)];
//!
//! // Mouse move (not dragging): highlight the handle under the cursor.
//! let frame = gizmo.frame(&view, &targets).expect("selection in front of the camera");
//! let on_x_arrow = frame.pivot + frame.axes[0] * (0.7 * frame.len);
//! let cursor = view.world_to_screen(&on_x_arrow).unwrap();
//! assert_eq!(gizmo.hover(&view, &targets, cursor), Some(Handle::TranslateAxis(Axis::X)));
//!
//! // Mouse down: the gizmo takes the mouse if a handle is under it.
//! assert!(gizmo.begin(&view, &targets, cursor));
//!
//! // Mouse moves while dragging (the bool is "snap", e.g. Ctrl held): new
//! // local transforms for the targets, in their order.
//! if let Some(update) = gizmo.update(&view, cursor + Vector2::new(30.0, 0.0), false) {
//!     object = update.transforms[0];
//! }
//! assert!(object.position.x > 0.0 && object.position.y == 0.0);
//!
//! // Mouse up: before/after transforms for undo. (Esc or a right click
//! // would call `gizmo.cancel()`, which returns the start transforms.)
//! let done = gizmo.end().unwrap();
//! assert_eq!(done.after[0], object);
//!
//! // Drawing: plain instances (mesh kind, model matrix, colour, state).
//! let draw = gizmo.instances(&view, &[Target::root(object)]);
//! assert!(!draw.is_empty());
//! # Ok(())
//! # }
//! ```

mod axis_image;
pub(crate) mod drag;
pub(crate) mod geometry;
pub(crate) mod layout;
pub(crate) mod overlay;
pub(crate) mod types;

use nalgebra::Point2;

use drag::DragState;
pub use drag::{AxisImage, Delta, DragUpdate, Sweep, MIN_SCALE_FACTOR, RING_EDGE_ON_COS};
pub use geometry::{HandleGeometry, GEOMETRY};
pub use layout::{GizmoFrame, Placement};
pub use overlay::{axis_cross, mesh, HandleState, MeshKind, OverlayInstance, AXIS_CROSS_PX, RING_TUBE};
pub use types::{Axis, GizmoConfig, Handle, Mode, Pivot, Snap, Space, Target};

use crate::math::{Transform, View};

/// A finished drag: what to record for undo.
#[derive(Clone, Debug, PartialEq)]
pub struct DragResult {
    /// The handle that was dragged.
    pub handle: Handle,
    /// Local transforms at mouse-down, one per target.
    pub before: Vec<Transform>,
    /// Local transforms at mouse-up, in the same order.
    pub after: Vec<Transform>,
}

/// Gizmo state: configuration, hovered handle and the drag in progress.
#[derive(Clone, Debug, Default)]
pub struct Gizmo {
    /// Mode, space, sizes and snapping; may be changed between drags.
    pub config: GizmoConfig,
    hovered: Option<Handle>,
    drag: Option<DragState>,
}

impl Gizmo {
    /// A gizmo with nothing hovered and no drag.
    pub fn new(config: GizmoConfig) -> Gizmo {
        Gizmo { config, hovered: None, drag: None }
    }

    /// The handles the current mode shows.
    pub fn handles(&self) -> &'static [Handle] {
        Handle::for_mode(self.config.mode)
    }

    /// Placement this frame (`None`: nothing selected or pivot not in front).
    /// During a drag the orientation is the one at mouse-down.
    pub fn frame(&self, view: &View, targets: &[Target]) -> Option<GizmoFrame> {
        self.frame_at(view, &Placement::of(targets, &self.config)?)
    }

    /// [`Gizmo::frame`] from the targets' [`Placement`] (the same result:
    /// callers that keep the placement while the targets stay need not pass
    /// them every frame).
    pub fn frame_at(&self, view: &View, placement: &Placement) -> Option<GizmoFrame> {
        let mut frame = GizmoFrame::placed(view, placement, self.config.size_px)?;
        if let Some(d) = &self.drag {
            frame = GizmoFrame::with_axes(view, frame.pivot, d.frame.axes, self.config.size_px)?;
        }
        Some(frame)
    }

    /// The handle under the cursor (pure; does not change state).
    pub fn pick(&self, view: &View, targets: &[Target], cursor: Point2<f64>) -> Option<Handle> {
        self.pick_at(view, Placement::of(targets, &self.config).as_ref(), cursor)
    }

    /// [`Gizmo::pick`] from the targets' placement (`None`: no targets).
    pub fn pick_at(&self, view: &View, placement: Option<&Placement>, cursor: Point2<f64>) -> Option<Handle> {
        let frame = self.frame_at(view, placement?)?;
        frame.pick(view, &cursor, self.handles(), self.config.hit_px)
    }

    /// Updates the hovered handle (kept as the active one while dragging).
    pub fn hover(&mut self, view: &View, targets: &[Target], cursor: Point2<f64>) -> Option<Handle> {
        let placement = Placement::of(targets, &self.config);
        self.hover_at(view, placement.as_ref(), cursor)
    }

    /// [`Gizmo::hover`] from the targets' placement (`None`: no targets).
    pub fn hover_at(&mut self, view: &View, placement: Option<&Placement>, cursor: Point2<f64>) -> Option<Handle> {
        if let Some(d) = &self.drag {
            return Some(d.handle);
        }
        self.hovered = self.pick_at(view, placement, cursor);
        self.hovered
    }

    /// The handle found by the last [`Gizmo::hover`] (or being dragged).
    pub fn hovered(&self) -> Option<Handle> {
        self.hovered
    }

    /// The handle being dragged.
    pub fn active(&self) -> Option<Handle> {
        self.drag.as_ref().map(|d| d.handle)
    }

    /// The latest update of the drag in progress (`None` before the cursor
    /// moved or without a drag): what a status line shows.
    pub fn last_update(&self) -> Option<&DragUpdate> {
        self.drag.as_ref()?.last.as_ref()
    }

    /// Whether a drag is in progress.
    pub fn is_dragging(&self) -> bool {
        self.drag.is_some()
    }

    /// Mouse-down: starts dragging the handle under the cursor, if any.
    pub fn begin(&mut self, view: &View, targets: &[Target], cursor: Point2<f64>) -> bool {
        match self.pick(view, targets, cursor) {
            Some(h) => self.begin_with(view, targets, h, cursor),
            None => false,
        }
    }

    /// Starts dragging a given handle (scripts and tests); it need not be hovered.
    pub fn begin_with(&mut self, view: &View, targets: &[Target], handle: Handle, cursor: Point2<f64>) -> bool {
        self.drag = None;
        let Some(frame) = GizmoFrame::new(view, targets, &self.config) else {
            return false;
        };
        self.drag = DragState::begin(view, frame, targets, handle, cursor, &self.config);
        if self.drag.is_some() {
            self.hovered = Some(handle);
        }
        self.drag.is_some()
    }

    /// Mouse move during a drag: the new local transforms of the targets.
    pub fn update(&mut self, view: &View, cursor: Point2<f64>, snap: bool) -> Option<DragUpdate> {
        let snap = snap.then_some(self.config.snap);
        self.drag.as_mut()?.update(view, cursor, snap.as_ref())
    }

    /// During a translate drag, puts the pivot at `point` (projected onto
    /// the dragged axis or plane) instead of under the cursor: vertex and
    /// surface snapping. `None` when not dragging a translate handle.
    pub fn move_pivot_to(&mut self, point: &nalgebra::Point3<f64>) -> Option<DragUpdate> {
        self.drag.as_mut()?.move_pivot_to(point)
    }

    /// The sector swept by the ring drag in progress, for drawing it.
    pub fn sweep(&self) -> Option<Sweep> {
        self.drag.as_ref()?.sweep()
    }

    /// Whether the drag in progress takes a typed value (an axis or a ring).
    pub fn takes_typed(&self) -> bool {
        self.drag.as_ref().is_some_and(DragState::takes_typed)
    }

    /// A value typed during the drag (metres, degrees or a factor): the targets
    /// placed exactly as that value says; `None` shows the start.
    pub fn typed(&mut self, value: Option<f64>) -> Option<DragUpdate> {
        self.drag.as_mut()?.typed(value)
    }

    /// Mouse-up: ends the drag; `None` if nothing was dragging.
    pub fn end(&mut self) -> Option<DragResult> {
        let d = self.drag.take()?;
        let before = d.start_transforms();
        let after = d.last.map_or_else(|| before.clone(), |u| u.transforms);
        Some(DragResult { handle: d.handle, before, after })
    }

    /// Esc / right button: abandons the drag and returns the start transforms.
    pub fn cancel(&mut self) -> Option<Vec<Transform>> {
        self.drag.take().map(|d| d.start_transforms())
    }

    /// Draw data for this frame.
    pub fn instances(&self, view: &View, targets: &[Target]) -> Vec<OverlayInstance> {
        self.instances_at(view, Placement::of(targets, &self.config).as_ref())
    }

    /// [`Gizmo::instances`] from the targets' placement (`None`: no targets).
    pub fn instances_at(&self, view: &View, placement: Option<&Placement>) -> Vec<OverlayInstance> {
        match placement.and_then(|p| self.frame_at(view, p)) {
            Some(frame) => overlay::instances(&frame, self.handles(), self.hovered, self.active()),
            None => Vec::new(),
        }
    }
}
