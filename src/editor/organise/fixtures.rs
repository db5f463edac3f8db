//! The add menu's lights and camera (`docs/spec/lights.md`, "In the
//! window"): a sun, a point light, a spot light or a camera made where the
//! user points, as one undo step.

use nalgebra::{Unit, UnitQuaternion, Vector3};

use super::super::Editor;
use crate::math::{Projection, Transform};
use crate::scene::fixture::{CameraObject, Fixture, LightObject, LightType};
use crate::scene::MeshRef;

/// How high above the surface point a point or spot light is placed (m).
pub const LIGHT_HEIGHT: f64 = 2.0;

/// The rotation that turns local -Z (where lights shine and cameras look)
/// to `dir`, keeping +Y as near `up` as it can.
pub(in crate::editor) fn facing(dir: Vector3<f64>, up: Vector3<f64>) -> UnitQuaternion<f64> {
    let up = if dir.cross(&up).norm() < 1e-9 * dir.norm() { Vector3::z() } else { up };
    UnitQuaternion::face_towards(&-dir, &up)
}

impl Editor {
    /// Adds the light or camera `name` ([`super::FIXTURE_NAMES`]) where a
    /// drop lands ([`Editor::drop_point`]): a point or spot light
    /// 2 m above it (a spot shining straight down), a sun there
    /// shining along the built-in sun's direction with its colour and
    /// illuminance, a camera at the view's eye looking as the view looks,
    /// with its field of view (or height). A point or spot light gets the
    /// luminous intensity that lights the point below it as the built-in
    /// sun does (E x h^2). One undo step; false for another name.
    pub fn add_fixture(&mut self, name: &str) -> bool {
        let sun = self.lighting.sun.unwrap_or_default();
        let at = self.drop_point().coords;
        let (position, rotation, fixture) = match name {
            "sun" => {
                let mut l = LightObject::new(LightType::Directional);
                l.color = sun.color.map(f64::from);
                l.intensity = f64::from(sun.illuminance);
                let rotation = facing(Vector3::from(sun.direction), Vector3::y());
                (at, rotation, Fixture { light: Some(l), camera: None })
            }
            "point_light" | "spot_light" => {
                let kind = if name == "point_light" { LightType::Point } else { LightType::Spot };
                let mut l = LightObject::new(kind);
                l.intensity = f64::from(sun.illuminance) * LIGHT_HEIGHT * LIGHT_HEIGHT;
                // Local -Z turned to world -Y: a quarter turn about -X.
                let down =
                    UnitQuaternion::from_axis_angle(&Unit::new_normalize(Vector3::x()), -std::f64::consts::FRAC_PI_2);
                (at + Vector3::y() * LIGHT_HEIGHT, down, Fixture { light: Some(l), camera: None })
            }
            "camera" => {
                // The view as drawn: through a camera object, that camera.
                let cam = self.shown_camera();
                let mut c = CameraObject::new(matches!(cam.projection, Projection::Orthographic { .. }));
                match cam.projection {
                    Projection::Perspective { fov_y, .. } => c.fov_y_deg = fov_y.to_degrees(),
                    Projection::Orthographic { height, .. } => c.height = height,
                }
                let rotation = facing(cam.target - cam.eye, cam.up);
                (cam.eye.coords, rotation, Fixture { light: None, camera: Some(c) })
            }
            _ => return false,
        };
        let transform = Transform { position, rotation, ..Transform::IDENTITY };
        self.add_made(name, MeshRef::Empty, transform, Some(Box::new(fixture)))
    }
}

impl Editor {
    /// The selected objects with a mesh cast shadows or not (`on`): one
    /// undo step; false where none changes.
    pub fn set_cast_shadows(&mut self, on: bool) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        let (mut objects, mut was, mut now) = (Vec::new(), Vec::new(), Vec::new());
        for &i in self.selection.iter() {
            let Some(o) = self.scene.get(i) else { continue };
            if o.cast_shadows == on || matches!(o.mesh, MeshRef::Empty) {
                continue;
            }
            let mut after = o.clone();
            after.cast_shadows = on;
            objects.push(i);
            was.push(o.clone());
            now.push(after);
        }
        if objects.is_empty() {
            return false;
        }
        for &i in &objects {
            if let Some(o) = self.scene.object_mut(i) {
                *o.cast_shadows = on;
            }
        }
        self.log.changed(&objects, self.scene.id_bound());
        self.history.push(crate::editor::Edit::Replace { objects, before: was, after: now });
        true
    }

    /// Object `i`'s light and camera become `fixture` (a panel field as it
    /// is edited: no undo step, [`Editor::commit_fixtures`] makes it).
    /// Refused, with the status line saying why, for values a scene file
    /// could not hold (the file's checks) and for an object without
    /// either.
    pub fn set_fixture(&mut self, i: usize, fixture: Fixture) -> bool {
        let Some(o) = self.scene.get(i) else { return false };
        if o.fixture.is_none() || self.gizmo.is_dragging() {
            return false;
        }
        if let Some(why) = fixture.problem() {
            self.message = Some(format!("Not done: {why}"));
            return false;
        }
        if o.fixture.as_deref() == Some(&fixture) {
            return true;
        }
        self.scene.set_fixture(i, Some(Box::new(fixture)));
        self.log.changed(&[i], self.scene.id_bound());
        true
    }

    /// Records the lights and cameras the objects of `before` carry now as
    /// one undo step from the ones given there (a panel field's edit, over
    /// as many passes as it took). Objects gone or unchanged are left out.
    pub fn commit_fixtures(&mut self, before: &[(usize, Fixture)]) -> bool {
        let (mut objects, mut was, mut now) = (Vec::new(), Vec::new(), Vec::new());
        for &(i, f) in before {
            let Some(o) = self.scene.get(i) else { continue };
            if o.fixture.as_deref() == Some(&f) {
                continue;
            }
            let mut old = o.clone();
            old.fixture = Some(Box::new(f));
            objects.push(i);
            was.push(old);
            now.push(o.clone());
        }
        if objects.is_empty() {
            return false;
        }
        self.history.push(crate::editor::Edit::Replace { objects, before: was, after: now });
        true
    }
}
