//! Views and the fly camera: axis views with automatic orthographic,
//! the perspective / orthographic toggle, and flying by frame time.

use nalgebra::Vector3;

use super::{camera, Editor};
use crate::math::Projection;

impl Editor {
    /// Advances time by `dt` seconds (a frame): moves the fly camera by the
    /// held keys and a playing animation on. Returns whether the view changed.
    pub fn advance(&mut self, dt: f64) -> bool {
        let played = self.advance_animation(dt);
        let Some(fly) = self.navigation.fly else { return played };
        if !(dt.is_finite() && dt > 0.0) {
            return played;
        }
        let axis = |plus: usize, minus: usize| (fly.held[plus] as i32 - fly.held[minus] as i32) as f64;
        // x right (D - A), y up (E - Q), z forward (W - S).
        let dir = Vector3::new(axis(3, 1), axis(5, 4), axis(0, 2));
        if dir == Vector3::zeros() {
            return played;
        }
        let speed = self.navigation.fly_speed * if self.pointer.mods.shift { camera::FLY_FAST } else { 1.0 };
        let moved = camera::fly_move(self.active_camera_mut(), dir * (speed * dt));
        self.rehover();
        moved || played
    }

    /// Whether time passing changes the view (the window keeps drawing).
    pub fn is_animating(&self) -> bool {
        self.navigation.fly.is_some_and(|f| f.held.iter().any(|&h| h)) || self.animation_playing()
    }

    /// Whether the fly camera is on (right button held).
    pub fn is_flying(&self) -> bool {
        self.navigation.fly.is_some()
    }

    /// Leaves an orthographic view that an axis view entered.
    pub(super) fn leave_auto_ortho(&mut self) {
        if self.in_ortho_quad_view() {
            return;
        }
        if let Some(fov) = self.navigation.auto_ortho.take() {
            camera::to_perspective(&mut self.camera, fov);
        }
    }

    /// Shows an axis view (Numpad 1 / 3 / 7, Ctrl for the opposite, or the
    /// view widget), switching a perspective camera to orthographic.
    pub fn set_axis_view(&mut self, view: camera::AxisView) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        if self.in_ortho_quad_view() {
            // The quad view's orthographic views turn and stay orthographic.
            let changed = camera::axis_view(self.active_camera_mut(), view);
            self.rehover();
            return changed;
        }
        let left = self.through.take().is_some();
        let changed = camera::axis_view(&mut self.camera, view) || left;
        if let Some(fov) = camera::to_orthographic(&mut self.camera) {
            self.navigation.auto_ortho = Some(fov);
            self.navigation.perspective_fov = fov;
        }
        self.rehover();
        changed
    }

    /// Numpad5: perspective <-> orthographic, keeping the apparent size at
    /// the target.
    pub fn toggle_projection(&mut self) -> bool {
        if self.gizmo.is_dragging() {
            return false;
        }
        if self.in_ortho_quad_view() {
            self.message = Some("The quad view's Top, Front and Right views stay orthographic".into());
            return false;
        }
        self.leave_camera_view();
        let changed = match self.camera.projection {
            Projection::Perspective { .. } => match camera::to_orthographic(&mut self.camera) {
                Some(fov) => {
                    self.navigation.perspective_fov = fov;
                    true
                }
                None => false,
            },
            Projection::Orthographic { .. } => {
                camera::to_perspective(&mut self.camera, self.navigation.perspective_fov)
            }
        };
        self.navigation.auto_ortho = None;
        self.rehover();
        changed
    }
}
