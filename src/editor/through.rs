//! Looking through a camera object (`docs/spec/lights.md`, "In the
//! window"): Numpad0 shows the view of the active object's camera, or of
//! the scene's first camera object when the active object has none. The
//! editor camera is kept as it was: the views show the camera object's
//! view (its world transform and projection, followed as it moves) while
//! it lasts, and orbit, pan, zoom, fly, F and the axis views leave it and
//! go on from the editor camera (moving it leaves it
//! first). Ctrl+Alt+Numpad0 moves the active camera object to the view.

use nalgebra::{Point3, UnitQuaternion, Vector3};

use super::Editor;
use crate::math::{Camera, Projection, Transform};
use crate::scene::Scene;

/// How far in front of a camera object its view's target is put (the
/// view has no pivot of its own; leaving it goes back to the editor
/// camera's).
const TARGET_DISTANCE: f64 = 10.0;

/// The view of object `id`'s camera: its world origin, looking along its
/// world -Z with its world +Y up, with its projection (an infinite far
/// plane as the editor camera's far, or further for a far-off near plane).
/// `None` where it has no camera or its world axes are degenerate.
pub fn camera_of(scene: &Scene, id: usize) -> Option<Camera> {
    let c = *scene.get(id)?.camera()?;
    let w = scene.world_matrix(id);
    let eye = w.transform_point(&Point3::origin());
    let forward = w.transform_vector(&-Vector3::z()).try_normalize(1e-12)?;
    let up = w.transform_vector(&Vector3::y()).try_normalize(1e-12)?;
    let far = c.far.unwrap_or(Projection::DEFAULT_FAR.max(c.near * 1e4));
    let projection = if c.orthographic {
        Projection::Orthographic { height: c.height, near: c.near, far }
    } else {
        Projection::Perspective { fov_y: c.fov_y_deg.to_radians(), near: c.near, far }
    };
    let camera = Camera { eye, target: eye + forward * TARGET_DISTANCE, up, projection };
    camera.validate().is_ok().then_some(camera)
}

/// `camera` of aspect `aspect` shown in a view of `size`: the largest frame
/// of that aspect centred in the view (x, y, width, height in pixels), and
/// the camera widened so that the frame shows exactly its own view (the
/// field of view or height scaled by the view's height over the frame's).
pub fn framed(camera: Camera, aspect: f64, (w, h): (f64, f64)) -> (Camera, [f64; 4]) {
    let (fw, fh) = if aspect > w / h { (w, w / aspect) } else { (h * aspect, h) };
    let scale = h / fh;
    let projection = match camera.projection {
        Projection::Perspective { fov_y, near, far } => {
            Projection::Perspective { fov_y: 2.0 * ((fov_y / 2.0).tan() * scale).atan(), near, far }
        }
        Projection::Orthographic { height, near, far } => {
            Projection::Orthographic { height: height * scale, near, far }
        }
    };
    (Camera { projection, ..camera }, [(w - fw) / 2.0, (h - fh) / 2.0, fw, fh])
}

impl Editor {
    /// The camera object looked through (Numpad0), if any.
    pub fn camera_view(&self) -> Option<usize> {
        self.through.filter(|&id| camera_of(&self.scene, id).is_some())
    }

    /// The camera the perspective view shows: the camera object's while
    /// looking through one, else the editor camera.
    /// In the single view a camera whose `aspect` is set is widened so
    /// that its own view fills the frame of that aspect centred in the
    /// view ([`Editor::camera_frame`]).
    pub fn shown_camera(&self) -> Camera {
        let Some((id, camera)) = self.through.and_then(|id| Some((id, camera_of(&self.scene, id)?))) else {
            return self.camera;
        };
        match self.set_aspect(id) {
            Some(aspect) if self.quad.is_none() => framed(camera, aspect, self.size).0,
            _ => camera,
        }
    }

    /// While looking through a camera object whose `aspect` is set, in the
    /// single view: its frame, x, y, width and height in pixels (the rest
    /// of the view is darkened).
    pub fn camera_frame(&self) -> Option<[f64; 4]> {
        let id = self.camera_view()?;
        let aspect = self.set_aspect(id).filter(|_| self.quad.is_none())?;
        Some(framed(camera_of(&self.scene, id)?, aspect, self.size).1)
    }

    /// Object `id`'s camera's own aspect, if it sets one.
    fn set_aspect(&self, id: usize) -> Option<f64> {
        self.scene.get(id)?.camera()?.aspect
    }

    /// Numpad0: looks through the active object's camera, or the scene's
    /// first camera object's; the status line names it. Refused, with a
    /// line saying why, where there is none.
    pub fn look_through_camera(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        let first = || self.scene.fixture_ids().find(|&i| !self.scene.is_hidden(i) && self.has_camera(i));
        let id = self.active().filter(|&i| self.has_camera(i)).or_else(first);
        let Some(id) = id else {
            self.message = Some("No camera object to look through (Shift+A adds one)".into());
            return false;
        };
        let name = self.scene.objects()[id].name.to_string();
        if camera_of(&self.scene, id).is_none() {
            self.message = Some(format!("Camera \"{name}\" cannot be looked through: its axes are degenerate"));
            return false;
        }
        self.through = Some(id);
        self.message = Some(format!("Looking through camera \"{name}\""));
        self.rehover();
        true
    }

    /// Whether object `i` carries a camera.
    fn has_camera(&self, i: usize) -> bool {
        self.scene.get(i).is_some_and(|o| o.camera().is_some())
    }

    /// Leaves the camera view (the editor camera is as it was before).
    pub(super) fn leave_camera_view(&mut self) {
        self.through = None;
    }

    /// Ctrl+Alt+Numpad0: the active camera object moves to the view (its
    /// world origin to the eye, its -Z along the view, its +Y up; its scale
    /// kept), one undo step; the view then looks through it.
    pub fn camera_to_view(&mut self) -> bool {
        let Some(id) = self.active().filter(|&i| self.has_camera(i)) else {
            self.message = Some("Select a camera object to move to the view".into());
            return false;
        };
        let view = self.shown_camera();
        let world_rotation = super::organise::facing(view.target - view.eye, view.up);
        let before = self.scene.objects()[id].transform;
        let parent = self.scene.parent_world_matrix(id);
        let Some(inv) = parent.try_inverse() else { return false };
        let position = inv.transform_point(&view.eye).coords;
        // The parent's rotation, taken out (a parent without shear).
        let parent_rotation = UnitQuaternion::from_matrix(&parent.fixed_view::<3, 3>(0, 0).into_owned());
        let after = Transform { position, rotation: parent_rotation.inverse() * world_rotation, scale: before.scale };
        if !self.commit_transform(id, before, after) {
            return false;
        }
        self.through = Some(id);
        self.message = Some(format!("Camera \"{}\" moved to the view", self.scene.objects()[id].name));
        true
    }
}

/// How near its centre (px) a click picks a light's or camera's icon
/// (the icons are about 24 px across).
pub const ICON_PICK_PX: f64 = 12.0;

impl Editor {
    /// The objects shown with an icon (`docs/spec/lights.md`): the light and
    /// camera objects that are not hidden, but the camera looked through.
    pub fn icon_objects(&self) -> impl Iterator<Item = usize> + '_ {
        let through = self.camera_view();
        self.scene.fixture_ids().filter(move |&i| !self.scene.is_hidden(i) && Some(i) != through)
    }

    /// Each icon's centre in the view input acts on, with its object.
    fn icon_centres(&self) -> Vec<(usize, nalgebra::Point2<f64>)> {
        let Some(v) = self.view() else { return Vec::new() };
        self.icon_objects()
            .filter_map(|i| {
                let w = self.scene.world_matrix(i);
                let at = Point3::new(w[(0, 3)], w[(1, 3)], w[(2, 3)]);
                v.world_to_screen(&at).map(|s| (i, s))
            })
            .collect()
    }

    /// The icon a click at `cursor` picks: the one whose centre is nearest,
    /// within [`ICON_PICK_PX`] (the lower id on a tie). Icons are drawn
    /// over the scene, so one is picked before any surface.
    pub fn icon_at(&self, cursor: nalgebra::Point2<f64>) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        for (i, s) in self.icon_centres() {
            let d = (s - cursor).norm();
            if d <= ICON_PICK_PX && best.is_none_or(|(bd, bi)| d < bd || (d == bd && i < bi)) {
                best = Some((d, i));
            }
        }
        best.map(|(_, i)| i)
    }

    /// The objects whose icon centres lie in the box from `min` to `max`.
    pub fn icons_in(&self, min: nalgebra::Point2<f64>, max: nalgebra::Point2<f64>) -> Vec<usize> {
        self.icon_centres()
            .into_iter()
            .filter(|(_, s)| s.x >= min.x && s.x <= max.x && s.y >= min.y && s.y <= max.y)
            .map(|(i, _)| i)
            .collect()
    }
}
