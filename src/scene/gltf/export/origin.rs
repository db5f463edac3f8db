//! What the export copies from the glTF nodes that objects were read from
//! ([`crate::scene::NodeOrigin`]): a node's camera and `KHR_lights_punctual`
//! light go on its object's node, and a file's animations are copied with
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

/// A node's camera and light (indices in the export) and its own morph
/// weights.
type OriginParts = (Option<u32>, Option<u32>, Option<Vec<f32>>);

/// The channel target paths that are copied.
const PATHS: [&str; 4] = ["translation", "rotation", "scale", "weights"];

impl Builder {
    /// The camera and light (indices in the export) of node `node` of the
    /// glTF file at `file`, each copied once, and the node's own morph
    /// `weights` (finite numbers only).
    pub(super) fn origin_parts(&mut self, file: &Path, node: usize) -> OriginParts {
        match self.with_source(file, |b, s| Ok(b.origin_parts_from(s, node))) {
            Ok(parts) => parts,
            Err(e) => {
                self.warn(format!("{e}: the cameras, lights and animations of its nodes are not exported"));
                (None, None, None)
            }
        }
    }

    fn origin_parts_from(&mut self, s: &mut Source, node: usize) -> OriginParts {
        let raw = &s.json["nodes"][node];
        let weights: Option<Vec<f32>> = raw["weights"]
            .as_array()
            .and_then(|w| w.iter().map(|x| x.as_f64().filter(|x| x.is_finite()).map(|x| x as f32)).collect());
        let camera = index(&raw["camera"]);
        let light = index(&raw["extensions"]["KHR_lights_punctual"]["light"]);
        let camera = camera.and_then(|c| {
            if let Some(&k) = s.cameras.get(&c) {
                return Some(k);
            }
            let value = s.json["cameras"].get(c)?.clone();
            self.note_extensions(s, &value);
            let k = push(&mut self.cameras, value);
            s.cameras.insert(c, k);
            Some(k)
        });
        let light = light.and_then(|l| {
            if let Some(&k) = s.lights.get(&l) {
                return Some(k);
            }
            let value = s.json["extensions"]["KHR_lights_punctual"]["lights"].get(l)?.clone();
            self.note_extension(s, "KHR_lights_punctual");
            self.note_extensions(s, &value);
            let k = push(&mut self.lights, value);
            s.lights.insert(l, k);
            Some(k)
        });
        (camera, light, weights)
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
            self.warn(format!("{e}: the cameras, lights and animations of its nodes are not exported"));
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
