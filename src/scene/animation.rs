//! glTF animation clips and their sampling (`docs/spec/materials.md`,
//! "Animation"): a clip is a set of channels, each moving one property
//! (translation, rotation or scale) of one node of one file along its
//! keyframes. Sampling follows the glTF 2.0 specification's Appendix C:
//! STEP holds the previous keyframe, LINEAR interpolates (rotations by
//! spherical interpolation along the shorter arc), CUBICSPLINE evaluates
//! the Hermite spline whose tangents are scaled by the keyframe interval
//! (rotations normalised after). Before the first keyframe a channel holds
//! its first value, after the last its last. A clip lasts until its latest
//! keyframe and loops.
//!
//! Morph-target weight channels ([`WeightChannel`]) hold N weights per
//! keyframe (N the node's mesh's targets), each interpolated on its own as
//! a translation component is (STEP holds, LINEAR is linear, CUBICSPLINE
//! the same Hermite spline). Everything is computed in f64.

use std::path::Path;
use std::sync::Arc;

use nalgebra::{Quaternion, UnitQuaternion, Vector3};

use crate::math::Transform;

/// How a channel's values run between keyframes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    Step,
    Linear,
    /// Hermite spline: each keyframe has an in-tangent, a value and an out-tangent.
    CubicSpline,
}

/// The node property a channel moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    Translation,
    /// A unit quaternion, x, y, z, w.
    Rotation,
    Scale,
}

impl Property {
    /// How many numbers one value has.
    pub fn width(self) -> usize {
        match self {
            Property::Rotation => 4,
            Property::Translation | Property::Scale => 3,
        }
    }
}

/// One animated property of one node.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// The node's index in its file.
    pub node: usize,
    pub property: Property,
    pub interpolation: Interpolation,
    /// Keyframe times in seconds, finite and not decreasing.
    pub times: Vec<f64>,
    /// One value per keyframe (unused components 0); for CUBICSPLINE three
    /// per keyframe: in-tangent, value, out-tangent.
    pub values: Vec<[f64; 4]>,
}

/// Why a channel's keyframes cannot be played.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChannelError {
    #[error("no keyframes")]
    Empty,
    #[error("keyframe times must be finite and not decreasing")]
    Times,
    #[error("{values} values for {keys} keyframes ({per_key} per keyframe expected)")]
    Count { values: usize, keys: usize, per_key: usize },
    #[error("a value is not finite")]
    Values,
}

impl Channel {
    /// A channel, checked: keyframe times finite and in order, as many
    /// values as the interpolation asks for, every value finite.
    pub fn new(
        node: usize,
        property: Property,
        interpolation: Interpolation,
        times: Vec<f64>,
        values: Vec<[f64; 4]>,
    ) -> Result<Channel, ChannelError> {
        if times.is_empty() {
            return Err(ChannelError::Empty);
        }
        if times.iter().any(|t| !t.is_finite()) || times.windows(2).any(|w| w[1] < w[0]) {
            return Err(ChannelError::Times);
        }
        let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        if values.len() != per_key * times.len() {
            return Err(ChannelError::Count { values: values.len(), keys: times.len(), per_key });
        }
        if values.iter().flatten().any(|v| !v.is_finite()) {
            return Err(ChannelError::Values);
        }
        Ok(Channel { node, property, interpolation, times, values })
    }

    /// The value of keyframe `k` (the middle one of three for CUBICSPLINE).
    fn key(&self, k: usize) -> [f64; 4] {
        match self.interpolation {
            Interpolation::CubicSpline => self.values[3 * k + 1],
            _ => self.values[k],
        }
    }

    /// The channel's value at time `t` (seconds, not wrapped).
    pub fn sample(&self, t: f64) -> [f64; 4] {
        let (k, u, dt) = match Spot::of(&self.times, t) {
            Spot::Key(k) => return self.key(k),
            Spot::Between { k, u, dt } => (k, u, dt),
        };
        let rotation = self.property == Property::Rotation;
        match self.interpolation {
            Interpolation::Step => self.key(k),
            Interpolation::Linear if rotation => slerp(self.key(k), self.key(k + 1), u),
            Interpolation::Linear => {
                std::array::from_fn(|c| self.key(k)[c] + (self.key(k + 1)[c] - self.key(k)[c]) * u)
            }
            Interpolation::CubicSpline => {
                let (p0, m0) = (self.values[3 * k + 1], self.values[3 * k + 2]);
                let (p1, m1) = (self.values[3 * (k + 1) + 1], self.values[3 * (k + 1)]);
                let [a, b, c, d] = hermite(u, dt);
                let v: [f64; 4] = std::array::from_fn(|i| a * p0[i] + b * m0[i] + c * p1[i] + d * m1[i]);
                if rotation {
                    normalised(v)
                } else {
                    v
                }
            }
        }
    }
}

/// Where a time falls among a channel's keyframes.
enum Spot {
    /// On keyframe `k`'s value: before the first key (or NaN), after the
    /// last, or exactly on a key.
    Key(usize),
    /// Inside [times[k], times[k + 1]), `u` of the way, the interval `dt`
    /// seconds long.
    Between { k: usize, u: f64, dt: f64 },
}

impl Spot {
    fn of(times: &[f64], t: f64) -> Spot {
        let last = times.len() - 1;
        // A NaN time reads as the start.
        if t <= times[0] || t.is_nan() {
            return Spot::Key(0);
        }
        if t >= times[last] {
            return Spot::Key(last);
        }
        // The keyframe at or before `t`.
        let k = times.partition_point(|&x| x <= t) - 1;
        let dt = times[k + 1] - times[k];
        let u = if dt > 0.0 { (t - times[k]) / dt } else { 0.0 };
        Spot::Between { k, u, dt }
    }
}

/// The factors of the cubic Hermite spline `u` of the way through an
/// interval of `dt` seconds: of the start value, the start's out-tangent,
/// the end value and the end's in-tangent (tangents are per second, so
/// scaled by `dt`).
fn hermite(u: f64, dt: f64) -> [f64; 4] {
    let (u2, u3) = (u * u, u * u * u);
    [2.0 * u3 - 3.0 * u2 + 1.0, (u3 - 2.0 * u2 + u) * dt, -2.0 * u3 + 3.0 * u2, (u3 - u2) * dt]
}

/// The morph-target weights of one node, animated: `count` weights per
/// value.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightChannel {
    /// The node's index in its file.
    pub node: usize,
    pub interpolation: Interpolation,
    /// Keyframe times in seconds, finite and not decreasing.
    pub times: Vec<f64>,
    /// How many weights a value holds (the mesh's targets).
    pub count: usize,
    /// `count` numbers per value, one value per keyframe; for CUBICSPLINE
    /// three values per keyframe: in-tangent, value, out-tangent.
    pub values: Vec<f64>,
}

impl WeightChannel {
    /// A channel, checked as [`Channel::new`] checks, with `count` numbers
    /// per value (at least one).
    pub fn new(
        node: usize,
        interpolation: Interpolation,
        times: Vec<f64>,
        count: usize,
        values: Vec<f64>,
    ) -> Result<WeightChannel, ChannelError> {
        if times.is_empty() || count == 0 {
            return Err(ChannelError::Empty);
        }
        if times.iter().any(|t| !t.is_finite()) || times.windows(2).any(|w| w[1] < w[0]) {
            return Err(ChannelError::Times);
        }
        let per_key = count * if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        if values.len() != per_key * times.len() {
            return Err(ChannelError::Count { values: values.len(), keys: times.len(), per_key });
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err(ChannelError::Values);
        }
        Ok(WeightChannel { node, interpolation, times, count, values })
    }

    /// Value `v` (of all values, tangents included) as a slice.
    fn value(&self, v: usize) -> &[f64] {
        &self.values[v * self.count..(v + 1) * self.count]
    }

    /// The value of keyframe `k` (the middle one of three for CUBICSPLINE).
    fn key(&self, k: usize) -> &[f64] {
        match self.interpolation {
            Interpolation::CubicSpline => self.value(3 * k + 1),
            _ => self.value(k),
        }
    }

    /// The weights at time `t` (seconds, not wrapped).
    pub fn sample(&self, t: f64) -> Vec<f64> {
        let (k, u, dt) = match Spot::of(&self.times, t) {
            Spot::Key(k) => return self.key(k).to_vec(),
            Spot::Between { k, u, dt } => (k, u, dt),
        };
        match self.interpolation {
            Interpolation::Step => self.key(k).to_vec(),
            Interpolation::Linear => self.key(k).iter().zip(self.key(k + 1)).map(|(a, b)| a + (b - a) * u).collect(),
            Interpolation::CubicSpline => {
                let (p0, m0) = (self.value(3 * k + 1), self.value(3 * k + 2));
                let (p1, m1) = (self.value(3 * (k + 1) + 1), self.value(3 * (k + 1)));
                let [a, b, c, d] = hermite(u, dt);
                (0..self.count).map(|i| a * p0[i] + b * m0[i] + c * p1[i] + d * m1[i]).collect()
            }
        }
    }
}

/// `v` as a unit quaternion's components (x, y, z, w); the identity for a
/// zero vector.
fn normalised(v: [f64; 4]) -> [f64; 4] {
    let n = v.iter().map(|c| c * c).sum::<f64>().sqrt();
    if n > 1e-12 {
        v.map(|c| c / n)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Spherical interpolation from `a` to `b` (x, y, z, w), along the shorter
/// arc (`b` negated when the two lie more than half a turn apart).
fn slerp(a: [f64; 4], b: [f64; 4], u: f64) -> [f64; 4] {
    let (a, b) = (normalised(a), normalised(b));
    let mut dot: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    let b = if dot < 0.0 {
        dot = -dot;
        b.map(|c| -c)
    } else {
        b
    };
    if dot > 1.0 - 1e-9 {
        // Nearly the same rotation: linear and normalised is as good.
        return normalised(std::array::from_fn(|i| a[i] + (b[i] - a[i]) * u));
    }
    let angle = dot.min(1.0).acos();
    let s = angle.sin();
    let (wa, wb) = (((1.0 - u) * angle).sin() / s, (u * angle).sin() / s);
    normalised(std::array::from_fn(|i| wa * a[i] + wb * b[i]))
}

/// One animation of a glTF file.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// The animation's `name`, else `Animation N` (N its index in the file).
    pub name: String,
    /// The file whose nodes it moves, as objects' [`super::NodeOrigin`] name it.
    pub file: Arc<Path>,
    pub channels: Vec<Channel>,
    /// The morph-weight channels.
    pub weights: Vec<WeightChannel>,
    /// The latest keyframe time of any channel (seconds).
    pub duration: f64,
}

impl Clip {
    /// A clip of `channels`; its duration is their latest keyframe.
    pub fn new(name: String, file: Arc<Path>, channels: Vec<Channel>) -> Clip {
        Clip::with_weights(name, file, channels, Vec::new())
    }

    /// A clip of node channels and morph-weight channels; its duration is
    /// their latest keyframe.
    pub fn with_weights(name: String, file: Arc<Path>, channels: Vec<Channel>, weights: Vec<WeightChannel>) -> Clip {
        let last = channels.iter().filter_map(|c| c.times.last()).chain(weights.iter().filter_map(|c| c.times.last()));
        let duration = last.copied().fold(0.0, f64::max);
        Clip { name, file, channels, weights, duration }
    }

    /// `t` brought into the clip's loop [0, duration) (0 for a clip of no length).
    pub fn wrap(&self, t: f64) -> f64 {
        if self.duration > 0.0 && t.is_finite() {
            t.rem_euclid(self.duration)
        } else {
            0.0
        }
    }

    /// The nodes it moves, each once, in the order their first channel comes.
    pub fn nodes(&self) -> Vec<usize> {
        let mut nodes: Vec<usize> = Vec::new();
        for c in &self.channels {
            if !nodes.contains(&c.node) {
                nodes.push(c.node);
            }
        }
        nodes
    }

    /// Node `node`'s local transform at time `t` (wrapped into the loop):
    /// `rest` with the properties the clip animates replaced.
    pub fn pose(&self, node: usize, rest: &Transform, t: f64) -> Transform {
        let t = self.wrap(t);
        let mut out = *rest;
        for c in self.channels.iter().filter(|c| c.node == node) {
            let v = c.sample(t);
            match c.property {
                Property::Translation => out.position = Vector3::new(v[0], v[1], v[2]),
                Property::Scale => out.scale = Vector3::new(v[0], v[1], v[2]),
                Property::Rotation => {
                    out.rotation = UnitQuaternion::new_normalize(Quaternion::new(v[3], v[0], v[1], v[2]))
                }
            }
        }
        out
    }

    /// The nodes whose morph weights it moves, each once.
    pub fn weight_nodes(&self) -> Vec<usize> {
        let mut nodes: Vec<usize> = Vec::new();
        for c in &self.weights {
            if !nodes.contains(&c.node) {
                nodes.push(c.node);
            }
        }
        nodes
    }

    /// Node `node`'s morph weights at time `t` (wrapped into the loop);
    /// `None` where the clip does not animate them (of two channels on one
    /// node, the last one read wins, as for node channels).
    pub fn weights_at(&self, node: usize, t: f64) -> Option<Vec<f64>> {
        let t = self.wrap(t);
        self.weights.iter().rev().find(|c| c.node == node).map(|c| c.sample(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f64; 4], b: [f64; 4]) -> bool {
        a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-9)
    }

    fn clip(channels: Vec<Channel>) -> Clip {
        Clip::new("test".into(), Arc::from(Path::new("t.gltf")), channels)
    }

    #[test]
    fn animation_linear_translation_halfway_is_the_mean() {
        let c = Channel::new(
            0,
            Property::Translation,
            Interpolation::Linear,
            vec![1.0, 3.0],
            vec![[0.0, 2.0, -4.0, 0.0], [10.0, 4.0, 4.0, 0.0]],
        )
        .unwrap();
        assert!(close(c.sample(2.0), [5.0, 3.0, 0.0, 0.0]));
        // A quarter of the way (0.5 s of the 2 s between the keys).
        assert!(close(c.sample(1.5), [2.5, 2.5, -2.0, 0.0]));
        // Before the first key and after the last, held.
        assert!(close(c.sample(0.0), [0.0, 2.0, -4.0, 0.0]));
        assert!(close(c.sample(9.0), [10.0, 4.0, 4.0, 0.0]));
    }

    #[test]
    fn animation_slerp_of_a_quarter_turn_halfway_is_an_eighth() {
        let h = std::f64::consts::FRAC_PI_4; // half of 90 degrees
        let q90 = [0.0, h.sin(), 0.0, h.cos()]; // 90 degrees about +Y
        let c =
            Channel::new(0, Property::Rotation, Interpolation::Linear, vec![0.0, 1.0], vec![[0.0, 0.0, 0.0, 1.0], q90])
                .unwrap();
        let e = std::f64::consts::PI / 8.0; // half of 45 degrees
        assert!(close(c.sample(0.5), [0.0, e.sin(), 0.0, e.cos()]));
        // The same end written as its negation takes the same short way.
        let c = Channel::new(
            0,
            Property::Rotation,
            Interpolation::Linear,
            vec![0.0, 1.0],
            vec![[0.0, 0.0, 0.0, 1.0], q90.map(|x| -x)],
        )
        .unwrap();
        let s = c.sample(0.5);
        let same = close(s, [0.0, e.sin(), 0.0, e.cos()]) || close(s.map(|x| -x), [0.0, e.sin(), 0.0, e.cos()]);
        assert!(same, "{s:?}");
    }

    #[test]
    fn animation_step_holds_the_previous_key() {
        let c = Channel::new(
            0,
            Property::Scale,
            Interpolation::Step,
            vec![0.0, 1.0, 2.0],
            vec![[1.0, 1.0, 1.0, 0.0], [2.0, 2.0, 2.0, 0.0], [3.0, 3.0, 3.0, 0.0]],
        )
        .unwrap();
        assert!(close(c.sample(0.999), [1.0, 1.0, 1.0, 0.0]));
        assert!(close(c.sample(1.0), [2.0, 2.0, 2.0, 0.0]));
        assert!(close(c.sample(1.7), [2.0, 2.0, 2.0, 0.0]));
        assert!(close(c.sample(2.5), [3.0, 3.0, 3.0, 0.0]));
    }

    #[test]
    fn animation_cubic_spline_follows_the_cubic_its_tangents_make() {
        // Keys at t = 1 and t = 3 (interval 2). Values 1 and 5, out-tangent
        // of the first 2 (per second), in-tangent of the second -1. The
        // curve is the cubic p(t) with p(1) = 1, p'(1) = 2, p(3) = 5,
        // p'(3) = -1: with s = t - 1, p = 1 + 2 s + a s^2 + b s^3 where
        // 4a + 8b = 5 - 1 - 4 = 0 and 4a + 12b = -1 - 2 = -3, so b = -3/4,
        // a = 3/2.
        let p = |t: f64| {
            let s = t - 1.0;
            1.0 + 2.0 * s + 1.5 * s * s - 0.75 * s * s * s
        };
        let k = |x: f64| [x, 0.0, 0.0, 0.0];
        let c = Channel::new(
            0,
            Property::Translation,
            Interpolation::CubicSpline,
            vec![1.0, 3.0],
            // in, value, out per key; the first in and last out are unused.
            vec![k(100.0), k(1.0), k(2.0), k(-1.0), k(5.0), k(100.0)],
        )
        .unwrap();
        for t in [1.0, 1.3, 2.0, 2.5, 2.9, 3.0] {
            assert!((c.sample(t)[0] - p(t)).abs() < 1e-9, "t = {t}: {} vs {}", c.sample(t)[0], p(t));
        }
    }

    #[test]
    fn animation_cubic_spline_rotation_is_normalised() {
        let z = [0.0; 4];
        let c = Channel::new(
            0,
            Property::Rotation,
            Interpolation::CubicSpline,
            vec![0.0, 1.0],
            vec![z, [0.0, 0.0, 0.0, 1.0], z, z, [1.0, 0.0, 0.0, 0.0], z],
        )
        .unwrap();
        // Halfway the Hermite weights are 1/2 and 1/2: (0.5, 0, 0, 0.5) normalised.
        let r = std::f64::consts::FRAC_1_SQRT_2;
        assert!(close(c.sample(0.5), [r, 0.0, 0.0, r]));
    }

    #[test]
    fn animation_time_past_the_end_loops() {
        let c = Channel::new(
            7,
            Property::Translation,
            Interpolation::Linear,
            vec![0.0, 2.0],
            vec![[0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 0.0, 0.0]],
        )
        .unwrap();
        let clip = clip(vec![c]);
        assert_eq!(clip.duration, 2.0);
        assert_eq!(clip.wrap(5.0), 1.0);
        assert_eq!(clip.wrap(-0.5), 1.5);
        let rest = Transform::default();
        let at = |t| clip.pose(7, &rest, t).position.x;
        assert!((at(5.0) - 2.0).abs() < 1e-12);
        assert!((at(1.0) - 2.0).abs() < 1e-12);
        // A node the clip does not move keeps its rest transform.
        assert_eq!(clip.pose(3, &rest, 1.0), rest);
        assert_eq!(clip.nodes(), vec![7]);
    }

    #[test]
    fn animation_weights_interpolate_each_weight_on_its_own() {
        // Two weights per value, keys at 0, 1 and 3 s.
        let values = vec![0.0, 1.0, 1.0, 0.0, 0.5, 0.5];
        let lin = WeightChannel::new(2, Interpolation::Linear, vec![0.0, 1.0, 3.0], 2, values.clone()).unwrap();
        let near =
            |a: Vec<f64>, b: [f64; 2]| a.len() == 2 && (a[0] - b[0]).abs() < 1e-12 && (a[1] - b[1]).abs() < 1e-12;
        assert!(near(lin.sample(0.25), [0.25, 0.75]));
        assert!(near(lin.sample(2.0), [0.75, 0.25]));
        assert!(near(lin.sample(-1.0), [0.0, 1.0]) && near(lin.sample(9.0), [0.5, 0.5]));
        let step = WeightChannel::new(2, Interpolation::Step, vec![0.0, 1.0, 3.0], 2, values).unwrap();
        assert!(near(step.sample(0.999), [0.0, 1.0]) && near(step.sample(1.0), [1.0, 0.0]));
        assert!(near(step.sample(2.9), [1.0, 0.0]));
        // CUBICSPLINE, keys at 1 and 3 s: weight 0 runs as the cubic of
        // the translation test (values 1 and 5, tangents 2 and -1), weight
        // 1 from 0 to 1 with zero tangents: 3 s^2 - 2 s^3, s = (t - 1) / 2.
        let values = vec![9.0, 9.0, 1.0, 0.0, 2.0, 0.0, -1.0, 0.0, 5.0, 1.0, 9.0, 9.0];
        let cubic = WeightChannel::new(0, Interpolation::CubicSpline, vec![1.0, 3.0], 2, values).unwrap();
        for t in [1.0, 1.5, 2.0, 2.7, 3.0] {
            let (x, s) = (t - 1.0, (t - 1.0) / 2.0);
            let want = [1.0 + 2.0 * x + 1.5 * x * x - 0.75 * x * x * x, 3.0 * s * s - 2.0 * s * s * s];
            assert!(near(cubic.sample(t), want), "t = {t}: {:?} vs {want:?}", cubic.sample(t));
        }
        // A clip: its duration covers the weights; a node it does not
        // animate has none.
        let clip = Clip::with_weights("w".into(), Arc::from(Path::new("t.gltf")), vec![], vec![lin]);
        assert_eq!(clip.duration, 3.0);
        assert_eq!(clip.weight_nodes(), vec![2]);
        assert!(near(clip.weights_at(2, 5.0).unwrap(), [0.75, 0.25]), "wrapped to 2 s");
        assert!(clip.weights_at(1, 0.0).is_none());
        assert!(clip.nodes().is_empty());
    }

    #[test]
    fn animation_bad_weight_channels_are_refused() {
        let lin = Interpolation::Linear;
        assert_eq!(WeightChannel::new(0, lin, vec![0.0], 0, vec![]), Err(ChannelError::Empty));
        assert_eq!(
            WeightChannel::new(0, lin, vec![0.0, 1.0], 2, vec![0.0; 3]),
            Err(ChannelError::Count { values: 3, keys: 2, per_key: 2 })
        );
        assert_eq!(
            WeightChannel::new(0, Interpolation::CubicSpline, vec![0.0], 2, vec![0.0; 2]),
            Err(ChannelError::Count { values: 2, keys: 1, per_key: 6 })
        );
        assert_eq!(WeightChannel::new(0, lin, vec![0.0], 1, vec![f64::INFINITY]), Err(ChannelError::Values));
    }

    #[test]
    fn animation_bad_channels_are_refused() {
        let v = [0.0; 4];
        let lin = Interpolation::Linear;
        assert_eq!(Channel::new(0, Property::Scale, lin, vec![], vec![]), Err(ChannelError::Empty));
        assert_eq!(Channel::new(0, Property::Scale, lin, vec![1.0, 0.0], vec![v, v]), Err(ChannelError::Times));
        assert_eq!(
            Channel::new(0, Property::Scale, Interpolation::CubicSpline, vec![0.0, 1.0], vec![v, v]),
            Err(ChannelError::Count { values: 2, keys: 2, per_key: 3 })
        );
        assert_eq!(Channel::new(0, Property::Scale, lin, vec![0.0], vec![[f64::NAN; 4]]), Err(ChannelError::Values));
    }
}
