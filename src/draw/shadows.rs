//! The frame's shadows: which directional light casts, its cascades for
//! the view, and each cascade's casters (`docs/spec/lights.md`,
//! "Shadows").

use super::{appearance, skin, SceneMeshes};
use crate::editor::Editor;
use crate::math::{DepthMode, View};
use crate::render::{DrawObject, FrameDesc, Highlight, ShadowDesc};

impl SceneMeshes {
    /// The frame's shadows (`docs/spec/lights.md`, "Shadows"): in the
    /// material mode with `lighting.shadows` on, the first directional
    /// light that lights the frame (a directional light object, else the
    /// built-in sun) casts them, in cascades that follow the view (the
    /// quad view's perspective one). Each cascade's casters are the shown
    /// objects whose box meets its light view (a walk of the pick tree, so
    /// the cost follows what the light sees) and that cast shadows.
    pub(super) fn shadows(&self, editor: &Editor, frame: &FrameDesc) -> Option<ShadowDesc> {
        use crate::look::shadow::{cascades, SHADOW_MAP_SIZE};
        let l = &frame.lighting;
        if !l.shadows || l.shading != crate::look::Shading::Material {
            return None;
        }
        let (light, direction) = if l.scene_lights == crate::look::SceneLights::On {
            let k = frame.lights.iter().position(|p| p.kind == crate::look::LightKind::Directional)?;
            (Some(k), frame.lights[k].direction)
        } else {
            (None, l.sun?.direction)
        };
        let view = editor.view_of(editor.views().len().saturating_sub(1))?;
        let cascades =
            cascades(view.camera(), view.aspect(), direction, f64::from(l.shadow_distance), SHADOW_MAP_SIZE)?;
        let scene = editor.scene();
        let size = f64::from(SHADOW_MAP_SIZE);
        let casters = cascades.map(|c| {
            let mut ids = Vec::new();
            if let Ok(v) = View::new(c.camera, size, size, DepthMode::Standard) {
                editor.visit_in_frustum(&v.frustum(), |i| ids.push(i));
            }
            ids.sort_unstable();
            let mut out = Vec::with_capacity(ids.len());
            for i in ids {
                let Some(o) = scene.get(i).filter(|o| o.cast_shadows) else { continue };
                let posed = editor.posed_mesh(i).and_then(|p| self.posed.get(&skin::posed_key(p))).map(|p| &p.entry);
                let Some((e, color)) = appearance(scene, i, o, |m| posed.or_else(|| self.entries.get(m))) else {
                    continue;
                };
                let world = scene.world_matrix(i);
                out.push(DrawObject { mesh: e.id, world, color, id: i as u32 + 1, highlight: Highlight::None });
            }
            out
        });
        Some(ShadowDesc { cascades, light, casters })
    }
}
