//! Exact small-object culling (both scene paths): an object whose box,
//! projected to the screen, has a bounding rectangle that holds no sample
//! position of the frame produces no fragments, so drawing it changes no
//! pixel, id or depth; it is left out. The rectangle is that of the 8
//! corners of the object's box (its mesh's local box under its world
//! matrix: the mesh lies inside it, so every rasterised triangle lies in
//! the rectangle). An object with a corner not in front of the near plane
//! is never culled by this test (its projection is unbounded).
//!
//! Sample positions: the frame draws the scene into a single-sample target
//! (ids and depth, and the colour without MSAA), whose samples are the pixel
//! centres, and with MSAA also into a multisampled colour target: with the
//! device's standard sample locations (`standardSampleLocations`) those of
//! the sample count (Vulkan's table for 2, 4 and 8 samples) are added. A
//! device without standard locations, or another count, turns the test off
//! with MSAA.
//!
//! The margin, in pixels, by which the rectangle is widened on every side:
//! 1/16 (the rasteriser snaps vertices to its sub-pixel grid: at least 4
//! bits, so at most 1/16 pixel, and decides samples on an edge by its own
//! tie rule) plus 1e-5 of the width + height: the f32 arithmetic of the
//! vertex shaders (and of the GPU cull) moves a projected vertex by about
//! 1e-6 of the viewport's size (a few ulps of clip coordinates within the
//! frustum), so 1e-5 leaves a factor of ten. An object kept by mistake costs
//! a draw; one culled by mistake would lose pixels, so every rounding goes
//! the keeping way.

use nalgebra::{Matrix4, Point3};

use crate::math::{Camera, DepthMode, Plane, View};
use crate::render::cull::MeshBounds;

/// Vulkan's standard sample locations (x, y in the pixel) for 2, 4 and 8 samples.
const STANDARD_2: [[f64; 2]; 2] = [[0.75, 0.75], [0.25, 0.25]];
const STANDARD_4: [[f64; 2]; 4] = [[0.375, 0.125], [0.875, 0.375], [0.125, 0.625], [0.625, 0.875]];
const STANDARD_8: [[f64; 2]; 8] = [
    [0.5625, 0.3125],
    [0.4375, 0.6875],
    [0.8125, 0.5625],
    [0.3125, 0.1875],
    [0.1875, 0.8125],
    [0.0625, 0.4375],
    [0.6875, 0.9375],
    [0.9375, 0.0625],
];

/// Most sample positions a frame tests (the centre and 8 standard ones).
pub(crate) const MAX_SAMPLES: usize = 9;

/// The positions in a pixel where a frame with `samples` samples per pixel
/// (1: no MSAA) may write: the centre (the single-sample pass) and, with
/// MSAA, the standard locations of the count. `None`: not known (no
/// standard locations, or a count without a table): nothing is culled.
pub(crate) fn sample_positions(samples: u32, standard: bool) -> Option<Vec<[f64; 2]>> {
    let mut p = vec![[0.5, 0.5]];
    match samples {
        1 => {}
        2 if standard => p.extend_from_slice(&STANDARD_2),
        4 if standard => p.extend_from_slice(&STANDARD_4),
        8 if standard => p.extend_from_slice(&STANDARD_8),
        _ => return None,
    }
    Some(p)
}

/// The widening of the rectangle in pixels (see the module docs).
pub(crate) fn margin(width: f64, height: f64) -> f64 {
    1.0 / 16.0 + 1e-5 * (width + height)
}

/// Whether the rectangle `[x0, x1] x [y0, y1]` (pixels, widened by
/// `margin`) holds a sample: a point `(px + sx, py + sy)` with integer
/// `px`, `py` and `(sx, sy)` one of `positions`.
pub(crate) fn rect_holds_sample(rect: [f64; 4], positions: &[[f64; 2]], margin: f64) -> bool {
    let [x0, x1, y0, y1] = rect;
    let holds = |lo: f64, hi: f64, s: f64| (lo - margin - s).ceil() <= (hi + margin - s).floor();
    positions.iter().any(|&[sx, sy]| holds(x0, x1, sx) && holds(y0, y1, sy))
}

/// The small-object test of one frame, on the CPU (f64).
pub(crate) struct SmallCull {
    view: View,
    near: Plane,
    positions: Vec<[f64; 2]>,
    margin: f64,
}

impl SmallCull {
    /// The test for a `width` x `height` frame from `camera` with sample
    /// `positions` ([`sample_positions`]), or `None` when there is no usable
    /// view (nothing is culled).
    pub fn new(
        camera: Camera,
        depth: DepthMode,
        (width, height): (u32, u32),
        positions: &[[f64; 2]],
    ) -> Option<SmallCull> {
        let positions = positions.to_vec();
        let view = View::new(camera, f64::from(width), f64::from(height), depth).ok()?;
        let near = view.frustum().near;
        Some(SmallCull { view, near, positions, margin: margin(f64::from(width), f64::from(height)) })
    }

    /// The screen rectangle `[x0, x1, y0, y1]` of the box `bounds` under
    /// `world`, or `None` when a corner is not in front of the near plane.
    pub fn rect(&self, world: &Matrix4<f64>, (min, max): MeshBounds) -> Option<[f64; 4]> {
        let mut r = [f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY];
        for k in 0..8 {
            let pick = |axis: usize| f64::from(if k & (1 << axis) != 0 { max[axis] } else { min[axis] });
            let corner = world.transform_point(&Point3::new(pick(0), pick(1), pick(2)));
            // In front, not behind, on or NaN.
            if self.near.signed_distance(&corner).partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                return None;
            }
            let s = self.view.world_to_screen(&corner)?;
            r = [r[0].min(s.x), r[1].max(s.x), r[2].min(s.y), r[3].max(s.y)];
        }
        Some(r)
    }

    /// Whether an object with box `bounds` under `world` may write a sample.
    pub fn keeps(&self, world: &Matrix4<f64>, bounds: MeshBounds) -> bool {
        self.rect(world, bounds).is_none_or(|r| rect_holds_sample(r, &self.positions, self.margin))
    }
}

/// The GPU cull's copy of the test (std430, in the frame header): the
/// projection, the screen size and margin, and the sample positions.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct GpuSmallCull {
    /// Columns.
    pub projection: [[f32; 4]; 4],
    /// Width, height, margin (pixels), unused.
    pub screen: [f32; 4],
    /// (x, y) pairs, two to a vec4.
    pub positions: [[f32; 4]; 5],
    /// x: how many positions (0: the test is off).
    pub count: [u32; 4],
}

impl GpuSmallCull {
    /// The test for the GPU, or one that is off (`None` positions).
    pub fn new(projection: &Matrix4<f64>, (width, height): (u32, u32), positions: Option<&[[f64; 2]]>) -> GpuSmallCull {
        let mut g = GpuSmallCull::default();
        let Some(positions) = positions.filter(|p| p.len() <= MAX_SAMPLES) else { return g };
        g.projection = std::array::from_fn(|c| std::array::from_fn(|r| projection[(r, c)] as f32));
        let (w, h) = (f64::from(width), f64::from(height));
        g.screen = [w as f32, h as f32, margin(w, h) as f32, 0.0];
        for (k, p) in positions.iter().enumerate() {
            g.positions[k / 2][2 * (k % 2)] = p[0] as f32;
            g.positions[k / 2][2 * (k % 2) + 1] = p[1] as f32;
        }
        g.count[0] = positions.len() as u32;
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rectangle_holds_a_sample_when_a_sample_position_falls_inside_it() {
        let centre = sample_positions(1, true).unwrap();
        assert_eq!(centre, vec![[0.5, 0.5]]);
        // Around the centre of pixel (3, 7): held; between centres: not.
        assert!(rect_holds_sample([3.4, 3.6, 7.4, 7.6], &centre, 0.0));
        assert!(!rect_holds_sample([3.6, 4.4, 7.4, 7.6], &centre, 0.0));
        assert!(!rect_holds_sample([3.4, 3.6, 7.6, 8.4], &centre, 0.0));
        // The margin reaches a centre 0.05 away.
        assert!(rect_holds_sample([3.55, 3.9, 7.4, 7.6], &centre, 0.0625));
        // 4x adds (0.375, 0.125) ...: x 3.3 .. 3.45, y 7.1 .. 7.2 holds it.
        let four = sample_positions(4, true).unwrap();
        assert_eq!(four.len(), 5);
        assert!(!rect_holds_sample([3.3, 3.45, 7.1, 7.2], &centre, 0.0));
        assert!(rect_holds_sample([3.3, 3.45, 7.1, 7.2], &four, 0.0));
        // x of one sample and y of another: not a sample.
        assert!(!rect_holds_sample([3.3, 3.45, 7.3, 7.45], &four, 0.0));
        assert_eq!(sample_positions(4, false), None);
        assert_eq!(sample_positions(16, true), None);
        assert_eq!(sample_positions(8, true).map(|p| p.len()), Some(9));
    }
}
