//! What the export copies from the glTF nodes that objects were read from
//! ([`crate::scene::NodeOrigin`]): a node's own morph weights, and a file's
//! animations, copied with
//! the channels whose target node is written (through the first object, by
//! id, read from that node). Channels of nodes not written are dropped, and
//! an animation left without channels with them. Samplers' input and output
//! data are copied unchanged, with their interpolation.
//!
//! Only the four node paths of glTF 2.0 are copied (`translation`,
//! `rotation`, `scale`, `weights`; a `weights` channel only where the
//! written node's mesh has morph targets); channels of other paths
//! (`KHR_animation_pointer`) and the extensions of animations, channels
//! and samplers are left out, as they name parts of the file that are not
//! copied.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::{json, Value};

use super::copy::{index, Source, Use};
use super::{push, Builder, Placed};
use crate::scene::fixture::{CameraObject, Fixture, LightObject, LightType};

/// What an object's glTF node gives its written node ([`Builder::origin_bits`]).
#[derive(Default)]
pub(super) struct OriginBits {
    pub weights: Option<Vec<f32>>,
    pub camera: Option<Value>,
    pub light: Option<Value>,
}

/// A light object as a `KHR_lights_punctual` light: the extension's units
/// are the scene file's; a range only where one is set (none for a
/// directional light), cone angles in radians.
fn gltf_light(l: &LightObject, name: &str) -> Value {
    let mut v = json!({"name": name, "type": l.kind.name(), "color": l.color, "intensity": l.intensity});
    if let (Some(r), false) = (l.range, l.kind == LightType::Directional) {
        v["range"] = json!(r);
    }
    if l.kind == LightType::Spot {
        v["spot"] = json!({
            "innerConeAngle": l.inner_cone_deg.to_radians(),
            "outerConeAngle": l.outer_cone_deg.to_radians(),
        });
    }
    v
}

/// A camera object as a glTF camera: `aspectRatio` only where the aspect
/// is set, no `zfar` for an infinite far plane; an orthographic camera's
/// `ymag` is half its height and `xmag` its `ymag` times the aspect (1
/// where unset).
fn gltf_camera(c: &CameraObject, name: &str) -> Value {
    if c.orthographic {
        let ymag = c.height / 2.0;
        // An orthographic glTF camera needs a far plane: 1000 m past the
        // near one where none is set (as a read camera gets).
        let zfar = c.far.unwrap_or(c.near + 1000.0);
        return json!({"name": name, "type": "orthographic", "orthographic": {
            "xmag": ymag * c.aspect.unwrap_or(1.0), "ymag": ymag, "znear": c.near, "zfar": zfar,
        }});
    }
    let mut p = json!({"yfov": c.fov_y_deg.to_radians(), "znear": c.near});
    if let Some(far) = c.far {
        p["zfar"] = json!(far);
    }
    if let Some(a) = c.aspect {
        p["aspectRatio"] = json!(a);
    }
    json!({"name": name, "type": "perspective", "perspective": p})
}

/// The channel target paths that are copied.
const PATHS: [&str; 4] = ["translation", "rotation", "scale", "weights"];

impl Builder {
    /// What node `node` of the glTF file at `file` gives its object's node:
    /// its own morph `weights` (finite numbers only), and its camera's and
    /// light's JSON (whose names and extras the written ones keep).
    pub(super) fn origin_bits(&mut self, file: &Path, node: usize) -> OriginBits {
        let bits = self.with_source(file, |_, s| {
            let raw = &s.json["nodes"][node];
            let weights = raw["weights"]
                .as_array()
                .and_then(|w| w.iter().map(|x| x.as_f64().filter(|x| x.is_finite()).map(|x| x as f32)).collect());
            let camera = index(&raw["camera"]).and_then(|c| s.json["cameras"].get(c).cloned());
            let light = index(&raw["extensions"]["KHR_lights_punctual"]["light"])
                .and_then(|l| s.json["extensions"]["KHR_lights_punctual"]["lights"].get(l).cloned());
            Ok(OriginBits { weights, camera, light })
        });
        bits.unwrap_or_else(|e| {
            self.warn(format!("{e}: the morph weights and animations of its nodes are not exported"));
            OriginBits::default()
        })
    }

    /// The light and camera an object carries (`docs/spec/lights.md`) as
    /// a `KHR_lights_punctual` light and a glTF camera (indices in the
    /// export), named after the object.
    /// Where the object was read from a glTF node that had a light or
    /// camera (`from`), the written one keeps that one's name and extras.
    pub(super) fn fixture_parts(
        &mut self,
        fixture: Option<&Fixture>,
        name: &str,
        from: &OriginBits,
    ) -> (Option<u32>, Option<u32>) {
        let Some(f) = fixture else { return (None, None) };
        let keep = |mut v: Value, source: &Option<Value>| {
            for key in ["name", "extras"] {
                if let Some(x) = source.as_ref().and_then(|s| s.get(key)) {
                    v[key] = x.clone();
                }
            }
            v
        };
        let light = f.light.as_ref().map(|l| {
            self.used.insert("KHR_lights_punctual".to_string());
            push(&mut self.lights, keep(gltf_light(l, name), &from.light))
        });
        let camera = f.camera.as_ref().map(|c| push(&mut self.cameras, keep(gltf_camera(c, name), &from.camera)));
        (camera, light)
    }

    /// Copies the animations of the glTF file at `file` that move written
    /// nodes (see the module docs).
    pub(super) fn copy_animations(&mut self, placed: &Placed<'_>, file: &Path) {
        let result = self.with_source(file, |b, s| {
            let animations = s.json["animations"].as_array().cloned().unwrap_or_default();
            for (a, animation) in animations.iter().enumerate() {
                match b.copy_animation(placed, file, s, animation) {
                    Ok(Some(value)) => {
                        b.animations.push(value);
                    }
                    Ok(None) => {}
                    Err(e) => b.warn(format!("{}: animation {a}: {e}: not exported", file.display())),
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            self.warn(format!("{e}: the morph weights and animations of its nodes are not exported"));
        }
    }

    /// `animation` of source `s` (the file at `file`) with the channels
    /// that target written nodes; `None` when none does.
    fn copy_animation(
        &mut self,
        placed: &Placed<'_>,
        file: &Path,
        s: &mut Source,
        animation: &Value,
    ) -> Result<Option<Value>, String> {
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        let mut sampler_of: HashMap<usize, u32> = HashMap::new();
        let mut targets = HashSet::new();
        for channel in animation["channels"].as_array().into_iter().flatten() {
            let target = &channel["target"];
            let (Some(n), Some(path)) = (index(&target["node"]), target["path"].as_str()) else { continue };
            let Some(object) = placed.origin_object(file, n) else { continue };
            let node = placed.node_of[object];
            if !PATHS.contains(&path) || (path == "weights" && !self.morph_nodes.contains(&node)) {
                continue;
            }
            // One channel per node and path (two are invalid glTF).
            if !targets.insert((node, path)) {
                continue;
            }
            let sampler = index(&channel["sampler"]).ok_or("a channel without a sampler")?;
            let new_sampler = match sampler_of.get(&sampler) {
                Some(&k) => k,
                None => {
                    let raw = animation["samplers"].get(sampler).ok_or("no such sampler")?;
                    let input = index(&raw["input"]).ok_or("a sampler without input")?;
                    let output = index(&raw["output"]).ok_or("a sampler without output")?;
                    let mut out = json!({
                        "input": self.copy_accessor(s, input, Use::Data)?,
                        "output": self.copy_accessor(s, output, Use::Data)?,
                    });
                    for key in ["interpolation", "extras"] {
                        if let Some(v) = raw.get(key) {
                            out[key] = v.clone();
                        }
                    }
                    let k = push(&mut samplers, out);
                    sampler_of.insert(sampler, k);
                    k
                }
            };
            let mut new_target = json!({"node": node, "path": path});
            if let Some(v) = target.get("extras") {
                new_target["extras"] = v.clone();
            }
            let mut out = json!({"sampler": new_sampler, "target": new_target});
            if let Some(v) = channel.get("extras") {
                out["extras"] = v.clone();
            }
            channels.push(out);
        }
        if channels.is_empty() {
            return Ok(None);
        }
        let mut out = json!({"channels": channels, "samplers": samplers});
        for key in ["name", "extras"] {
            if let Some(v) = animation.get(key) {
                out[key] = v.clone();
            }
        }
        Ok(Some(out))
    }
}
