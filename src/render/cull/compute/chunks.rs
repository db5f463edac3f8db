//! The coarse level of the GPU cull: the objects in chunks of [`CHUNK`]
//! consecutive ids, each with a world box that holds the world boxes of
//! its objects that draw a mesh. `cull.comp` tests, once per workgroup of
//! member slots, the chunks its members' ids fall in; when none meets the
//! frustum the workgroup stops before its per-object tests and its scan, and
//! the scatter skips it. With most of a large scene out of view this leaves
//! the per-object work to the workgroups near the view (on lavapipe, where
//! compute runs on the CPU's cores, the difference between about 0.35 s and
//! a few ms at 1M objects).
//!
//! Chunks by id, not by member slot: an object's chunk never changes, so an
//! edit grows the chunks of the objects it changed (a union with their new
//! boxes, copied to the GPU with their records) whatever happens to the
//! member list, and a whole upload makes every box tight again. A grown box
//! is larger than it needs to be (an object dragged away leaves its old
//! place in its chunk's box), which costs culling work, never correctness.
//!
//! The chunk test is conservative against the per-object test as the GPU
//! computes it in f32: each object's box is widened by 1e-5 of its size and
//! of its mesh box's offset from its origin when it joins a chunk, and the
//! shader keeps a chunk within 1e-5 of its distance from the eye, its size
//! and the plane's offset (about 80 f32 ulps of each: well above the
//! rounding of the f32 per-object test), so a workgroup is skipped only when
//! the per-object test would keep none of its objects.

use bytemuck::{Pod, Zeroable};
use nalgebra::Point3;

/// Objects per chunk (consecutive ids).
pub(crate) const CHUNK: u32 = 32;

/// Chunk flag: holds an object without a box (never culled), so the chunk
/// always meets the frustum.
const ALWAYS: u32 = 1;
/// Chunk flag: holds no object that draws a mesh, so it never meets it.
const EMPTY: u32 = 2;

/// A chunk's box as the GPU reads it (std430, 48 bytes): the centre split
/// into f32 hi + lo as object translations are, half sizes rounded up.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub(crate) struct GpuChunk {
    pub center_hi: [f32; 3],
    pub flags: u32,
    pub center_lo: [f32; 3],
    pub pad0: u32,
    pub half: [f32; 3],
    pub pad1: u32,
}

/// A chunk's box on the CPU: f32 corners rounded outwards (28 bytes, a
/// few centimetres larger than the f64 box 300 km from the origin, which
/// only makes the test more conservative).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChunkBox {
    min: [f32; 3],
    max: [f32; 3],
    always: bool,
}

impl Default for ChunkBox {
    fn default() -> ChunkBox {
        ChunkBox { min: [f32::INFINITY; 3], max: [f32::NEG_INFINITY; 3], always: false }
    }
}

/// The largest f32 not above `x`.
fn down(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) <= x {
        f
    } else if f > 0.0 {
        f32::from_bits(f.to_bits() - 1)
    } else if f == 0.0 {
        -f32::from_bits(1)
    } else {
        f32::from_bits(f.to_bits() + 1)
    }
}

/// The smallest f32 not below `x`.
fn up(x: f64) -> f32 {
    -down(-x)
}

/// What an object adds to its chunk: nothing (no mesh), its world box
/// (min, max), or "always" (no box: never culled).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ObjectBox {
    None,
    Box { min: Point3<f64>, max: Point3<f64>, translation: Point3<f64> },
    Always,
}

/// An object's world box `min`..`max` moved out by the widening the module
/// docs describe (before any rounding), for an object at `translation`.
#[inline(always)]
fn widened(min: Point3<f64>, max: Point3<f64>, translation: Point3<f64>) -> ([f64; 3], [f64; 3]) {
    let centre = nalgebra::center(&min, &max);
    let widen = 1e-5 * ((centre - translation).abs().sum() + (max - min).sum());
    ([0, 1, 2].map(|k| min[k] - widen), [0, 1, 2].map(|k| max[k] + widen))
}

impl ChunkBox {
    /// Grows the box to hold `b` (widened, see the module docs): a
    /// [`Growth`] of the one box, rounded outwards.
    pub fn add(&mut self, b: &ObjectBox) {
        let mut g = Growth::default();
        g.add(b);
        self.grow(&g);
    }

    /// Grows the box by what `g` gathered: the same box as adding each of
    /// its objects with [`ChunkBox::add`] (rounding outwards is monotone,
    /// so rounding the f64 extremes once gives the extremes of the rounded
    /// boxes).
    pub fn grow(&mut self, g: &Growth) {
        self.always |= g.always;
        // Nothing gathered on a side: +inf / -inf round to themselves and
        // leave it as it is.
        for k in 0..3 {
            self.min[k] = self.min[k].min(down(g.min[k]));
            self.max[k] = self.max[k].max(up(g.max[k]));
        }
    }

    /// The GPU's copy of a chunk that holds `provisional` objects with
    /// provisional records (`GpuObjectRecord::provisional`): while it holds
    /// any, the box does not hold them, and the chunk always meets the
    /// frustum; otherwise [`ChunkBox::gpu`].
    pub fn gpu_with(&self, provisional: u8) -> GpuChunk {
        if provisional > 0 {
            return GpuChunk { flags: ALWAYS, ..GpuChunk::default() };
        }
        self.gpu()
    }

    /// The GPU's copy: the centre split as object translations are, half
    /// sizes rounded up to f32 (never smaller than the box).
    pub fn gpu(&self) -> GpuChunk {
        let mut c = GpuChunk::default();
        if self.always || self.min[0] > self.max[0] {
            c.flags = if self.always { ALWAYS } else { EMPTY };
            return c;
        }
        for k in 0..3 {
            let (lo, hi) = (f64::from(self.min[k]), f64::from(self.max[k]));
            (c.center_hi[k], c.center_lo[k]) = split_f64(0.5 * (lo + hi));
            c.half[k] = up(0.5 * (hi - lo));
        }
        c
    }
}

/// The widened boxes of a run of objects of one chunk gathered in f64
/// (NaN sides are skipped: `min` / `max` pass over NaN), for
/// [`ChunkBox::grow`] to round once: a run of new objects rounds its
/// chunk's box once, not once an object.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Growth {
    min: [f64; 3],
    max: [f64; 3],
    always: bool,
}

impl Default for Growth {
    fn default() -> Growth {
        Growth { min: [f64::INFINITY; 3], max: [f64::NEG_INFINITY; 3], always: false }
    }
}

impl Growth {
    /// Gathers `b`, widened (see the module docs).
    #[inline(always)]
    pub fn add(&mut self, b: &ObjectBox) {
        match *b {
            ObjectBox::None => {}
            ObjectBox::Always => self.always = true,
            ObjectBox::Box { min, max, translation } => {
                let (lo, hi) = widened(min, max, translation);
                for k in 0..3 {
                    self.min[k] = self.min[k].min(lo[k]);
                    self.max[k] = self.max[k].max(hi[k]);
                }
            }
        }
    }
}

/// The chunk of object `i`.
pub(crate) fn chunk_of(i: u32) -> usize {
    (i / CHUNK) as usize
}

/// `x` as an f32 `hi` and the f32 nearest `x - hi`.
pub fn split_f64(x: f64) -> (f32, f32) {
    let hi = x as f32;
    (hi, (x - f64::from(hi)) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_holds_its_objects_boxes_widened_and_rounded_outwards() {
        let mut c = ChunkBox::default();
        assert_eq!(c.gpu().flags, EMPTY, "no object: never drawn");
        let b = |lo: [f64; 3], hi: [f64; 3]| ObjectBox::Box {
            min: Point3::from(lo),
            max: Point3::from(hi),
            translation: Point3::from(lo),
        };
        c.add(&ObjectBox::None);
        c.add(&b([1.0e5, 2.0, -3.0], [1.0e5 + 1.0, 3.0, -2.0]));
        c.add(&b([1.0e5 + 4.0, -1.0, -3.0], [1.0e5 + 5.0, 0.5, -1.0]));
        let g = c.gpu();
        assert_eq!(g.flags, 0);
        // The union is x 1e5 .. 1e5 + 5, y -1 .. 3, z -3 .. -1, each side
        // widened by at least 1e-5 of (offset + size) of its object.
        let lo = [1.0e5, -1.0, -3.0];
        let hi = [1.0e5 + 5.0, 3.0, -1.0];
        for k in 0..3 {
            let centre = f64::from(g.center_hi[k]) + f64::from(g.center_lo[k]);
            let half = f64::from(g.half[k]);
            assert!(centre - half <= lo[k] - 1e-5 * 1.5, "axis {k}: {} > {}", centre - half, lo[k]);
            assert!(centre + half >= hi[k] + 1e-5 * 1.5, "axis {k}");
            // Tight within the widening and an f32 step (0.008 at 1e5) a side.
            let step = 1.2e-7 * lo[k].abs().max(hi[k].abs());
            assert!(half <= 0.5 * (hi[k] - lo[k]) + 1e-3 + 2.0 * step, "axis {k}: {half}");
        }
        c.add(&ObjectBox::Always);
        assert_eq!(c.gpu().flags, ALWAYS);
        for x in [0.0, 1e-30, -1e-30, 0.1, -0.1, 3.0e5 + 0.3, -3.0e5 - 0.3, 1e30] {
            assert!(f64::from(down(x)) <= x && f64::from(up(x)) >= x, "{x}");
            assert!(f64::from(up(x)) - f64::from(down(x)) <= 2.5e-7 * x.abs() + 1e-44, "{x}: one f32 step");
        }
        assert_eq!((chunk_of(0), chunk_of(CHUNK - 1), chunk_of(CHUNK)), (0, 0, 1));
    }

    /// A run's boxes gathered in f64 and rounded once grow a chunk to
    /// exactly the box that adding them one by one gives (far from the
    /// origin, where each rounding moves a side, and with a box without
    /// sides, an always box and NaN sides among them).
    #[test]
    fn a_gathered_run_grows_a_chunk_as_its_objects_one_by_one() {
        let b = |lo: [f64; 3], hi: [f64; 3], t: [f64; 3]| ObjectBox::Box {
            min: Point3::from(lo),
            max: Point3::from(hi),
            translation: Point3::from(t),
        };
        let far = 3.0e5 + 0.123;
        let runs: [Vec<ObjectBox>; 3] = [
            (0..32)
                .map(|k| {
                    let x = far + 0.37 * f64::from(k);
                    b([x, -1.0 - 1e-3 * f64::from(k), 7.0], [x + 1.0, 2.0, 7.5 + 1e-4 * f64::from(k)], [x, 0.0, 7.0])
                })
                .collect(),
            vec![ObjectBox::None, b([1.0, 2.0, 3.0], [1.5, 2.5, 3.5], [0.0; 3]), ObjectBox::Always],
            vec![
                b([f64::NAN, 0.0, 0.0], [f64::NAN, 1.0, 1.0], [0.0; 3]),
                b([-2.0, 0.5, 0.5], [4.0, 0.75, 2.0], [0.0; 3]),
            ],
        ];
        let start = {
            let mut c = ChunkBox::default();
            c.add(&b([far, 0.0, 0.0], [far + 0.5, 0.5, 0.5], [far, 0.0, 0.0]));
            c
        };
        for (n, run) in runs.iter().enumerate() {
            for from in [ChunkBox::default(), start] {
                let mut one_by_one = from;
                let mut g = Growth::default();
                for o in run {
                    one_by_one.add(o);
                    g.add(o);
                }
                let mut gathered = from;
                gathered.grow(&g);
                assert_eq!(gathered, one_by_one, "run {n}");
                assert_eq!(gathered.gpu(), one_by_one.gpu(), "run {n}");
            }
        }
        // Nothing gathered leaves a box as it is.
        let mut c = start;
        c.grow(&Growth::default());
        assert_eq!(c, start);
    }
}
