//! Reading a glTF file's animations into [`Clip`]s, with the same
//! bounds-checked accessor code as the meshes. Animations only change
//! what is shown, so a channel that cannot be read is a warning and is
//! left out; the file still opens. Morph-target weight channels hold as
//! many weights per value as the node's mesh has targets.

use std::path::Path;
use std::sync::Arc;

use gltf::accessor::Dimensions;
use gltf::json::animation::{Interpolation as JsonInterpolation, Property as JsonProperty};
use gltf::json::validation::Checked;

use super::accessor::read_floats;
use super::GltfFile;
use crate::scene::animation::{Channel, Clip, Interpolation, Property, WeightChannel};

impl GltfFile {
    /// The file's animations as clips moving the nodes of `file` (the path
    /// objects read from this file name in their origin). Animations with
    /// nothing left to play are left out; every channel left out is one
    /// warning line.
    pub fn clips(&self, file: &Arc<Path>) -> Vec<Clip> {
        let root = self.document.as_json();
        let mut clips = Vec::new();
        for (a, animation) in root.animations.iter().enumerate() {
            let mut channels = Vec::new();
            let mut weights = Vec::new();
            for (c, channel) in animation.channels.iter().enumerate() {
                match self.channel(animation, channel) {
                    Ok(Read::Node(ch)) => channels.push(ch),
                    Ok(Read::Weights(ch)) => weights.push(ch),
                    Err(why) => log::warn!("{}: animation {a}, channel {c}: left out: {why}", self.path.display()),
                }
            }
            if channels.is_empty() && weights.is_empty() {
                continue;
            }
            let name = animation.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| format!("Animation {a}"));
            clips.push(Clip::with_weights(name, file.clone(), channels, weights));
        }
        clips
    }

    /// One channel, of a node's transform or of its morph weights.
    fn channel(
        &self,
        animation: &gltf::json::Animation,
        channel: &gltf::json::animation::Channel,
    ) -> Result<Read, String> {
        let property = match channel.target.path {
            Checked::Valid(JsonProperty::Translation) => Some(Property::Translation),
            Checked::Valid(JsonProperty::Rotation) => Some(Property::Rotation),
            Checked::Valid(JsonProperty::Scale) => Some(Property::Scale),
            Checked::Valid(JsonProperty::MorphTargetWeights) => None,
            Checked::Invalid => return Err("unknown target path".into()),
        };
        let node = channel.target.node.value();
        if node >= self.document.nodes().len() {
            return Err(format!("no node {node}"));
        }
        let sampler = animation
            .samplers
            .get(channel.sampler.value())
            .ok_or_else(|| format!("no sampler {}", channel.sampler.value()))?;
        let interpolation = match sampler.interpolation {
            Checked::Valid(JsonInterpolation::Linear) => Interpolation::Linear,
            Checked::Valid(JsonInterpolation::Step) => Interpolation::Step,
            Checked::Valid(JsonInterpolation::CubicSpline) => Interpolation::CubicSpline,
            Checked::Invalid => return Err("unknown interpolation".into()),
        };
        let accessor = |i: usize| self.document.accessors().nth(i).ok_or_else(|| format!("no accessor {i}"));
        let input = accessor(sampler.input.value())?;
        let output = accessor(sampler.output.value())?;
        let times: Vec<f64> = read_floats(&input, &self.buffers, "keyframe times", &[Dimensions::Scalar])?
            .into_iter()
            .map(|v| f64::from(v[0]))
            .collect();
        let Some(property) = property else {
            // N weights per value, N the targets of the node's mesh.
            let mesh = self.document.nodes().nth(node).and_then(|n| n.mesh());
            let count = mesh.map_or(0, |m| self.morph_target_count(m.index()));
            if count == 0 {
                return Err(format!("a weights channel on node {node}, whose mesh has no morph targets"));
            }
            let values: Vec<f64> = read_floats(&output, &self.buffers, "keyframe weights", &[Dimensions::Scalar])?
                .into_iter()
                .map(|v| f64::from(v[0]))
                .collect();
            return WeightChannel::new(node, interpolation, times, count, values)
                .map(Read::Weights)
                .map_err(|e| e.to_string());
        };
        let dims = if property == Property::Rotation { Dimensions::Vec4 } else { Dimensions::Vec3 };
        let values: Vec<[f64; 4]> = read_floats(&output, &self.buffers, "keyframe values", &[dims])?
            .into_iter()
            .map(|v| v.map(f64::from))
            .collect();
        Channel::new(node, property, interpolation, times, values).map(Read::Node).map_err(|e| e.to_string())
    }
}

/// A channel read: of a node's transform, or of its morph weights.
enum Read {
    Node(Channel),
    Weights(WeightChannel),
}
