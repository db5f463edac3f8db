//! The grid pass: an infinite ground grid on y = 0, alpha-blended over the
//! scene, depth-tested against it without writing depth, fading with
//! distance; works in both depth modes. The shaders work relative to the
//! eye only (see `GroundGrid`), so the lines are as sharp 1e6 m from the
//! origin as at it.
//!
//! Records inside the main rendering scope, after the scene pass; the
//! object-ID attachment is bound there but the grid leaves it untouched.

use ash::vk;
use bytemuck::{Pod, Zeroable};
use nalgebra::{Matrix4, Point3};

use super::error::RenderError;
use super::pipeline::{self, spirv, to_f32_cols, IdAttachment, Pipeline, PipelineDesc};
use super::resources::{Destroy, Gpu};
use crate::math::DepthMode;

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct GridPush {
    view_projection_rotation: [[f32; 4]; 4],
    /// xy: the eye's x and z modulo the period of the major lines; zw: the
    /// world origin's x and z relative to the eye.
    eye_xz: [f32; 4],
    /// x: cell size, y: fade start, z: fade end, w: the eye's height (y).
    params: [f32; 4],
}

/// What the grid pass needs in one frame.
pub(crate) struct GridInputs {
    pub view: Matrix4<f64>,
    pub projection: Matrix4<f64>,
    pub eye: Point3<f64>,
    pub depth: DepthMode,
}

/// Grid cell size: 1 m near the ground, growing by 10x as the camera rises.
fn grid_cell(height: f64) -> f64 {
    let mut cell = 1.0;
    while height > 40.0 * cell && cell < 1e4 {
        cell *= 10.0;
    }
    cell
}

/// Minor lines every cell, major lines every `MAJOR` cells: the pattern
/// the shader draws repeats every `MAJOR * cell`.
const MAJOR: f64 = 10.0;

/// The ground grid of one frame in f64, everything the shaders see given
/// relative to the eye. Far from the origin an f32 world coordinate has
/// too few bits left for the fraction that places a line inside its cell
/// (at 1e6 m they are 6 cm apart), so the shaders never see one: the eye's
/// own position enters only reduced modulo the pattern's period, which is
/// exact to do in f64 and leaves a small number, and the axis lines are
/// placed by the origin's offset from the eye, which is small exactly when
/// they are near enough to be seen.
#[derive(Clone, Copy, Debug, PartialEq)]
struct GroundGrid {
    cell: f64,
    /// The eye's x and z modulo `MAJOR * cell`, in `[0, MAJOR * cell)`.
    eye_mod: [f64; 2],
    /// The world origin's x and z minus the eye's.
    origin: [f64; 2],
    height: f64,
    fade_start: f64,
    fade_end: f64,
}

impl GroundGrid {
    fn new(eye: Point3<f64>) -> GroundGrid {
        let height = eye.y;
        let cell = grid_cell(height.abs());
        let period = MAJOR * cell;
        let fade_end = (30.0 + 12.0 * height.abs()).min(900.0);
        GroundGrid {
            cell,
            eye_mod: [eye.x.rem_euclid(period), eye.z.rem_euclid(period)],
            origin: [-eye.x, -eye.z],
            height,
            fade_start: fade_end * 0.3,
            fade_end,
        }
    }

    fn push(&self, view_projection_rotation: &Matrix4<f64>) -> GridPush {
        let f = |v: f64| v as f32;
        GridPush {
            view_projection_rotation: to_f32_cols(view_projection_rotation),
            eye_xz: [f(self.eye_mod[0]), f(self.eye_mod[1]), f(self.origin[0]), f(self.origin[1])],
            params: [f(self.cell), f(self.fade_start), f(self.fade_end), f(self.height)],
        }
    }
}

/// The ground grid: no vertex input, alpha-blended, depth-tested, no depth write.
#[derive(Default)]
pub(crate) struct GridPass {
    pipeline: Pipeline,
}

impl GridPass {
    /// `samples` > 1: the grid is drawn in the multisampled colour pass,
    /// which has no object-ID attachment.
    pub fn new(
        gpu: &Gpu,
        color_format: vk::Format,
        depth_format: vk::Format,
        samples: vk::SampleCountFlags,
    ) -> Result<GridPass, RenderError> {
        let pipeline = PipelineDesc {
            name: "grid",
            vert: spirv::GRID_VERT,
            frag: spirv::GRID_FRAG,
            bindings: &[],
            attributes: &[],
            topology: vk::PrimitiveTopology::TRIANGLE_STRIP,
            push_size: std::mem::size_of::<GridPush>() as u32,
            set_layouts: &[],
            depth_test: true,
            depth_write: false,
            blend: true,
            ids: if samples == vk::SampleCountFlags::TYPE_1 { IdAttachment::Untouched } else { IdAttachment::Absent },
            frag_constants: &[],
        }
        .build(gpu, color_format, depth_format, samples)?;
        Ok(GridPass { pipeline })
    }

    /// Records the grid's single draw; returns the number of draw calls.
    ///
    /// # Safety
    /// `cmd` is recording inside a rendering scope with attachments of the
    /// pass's formats, viewport and scissor set.
    pub unsafe fn record(&self, d: &ash::Device, cmd: vk::CommandBuffer, inputs: &GridInputs) -> u32 {
        let mut rotation_only = inputs.view;
        rotation_only[(0, 3)] = 0.0;
        rotation_only[(1, 3)] = 0.0;
        rotation_only[(2, 3)] = 0.0;
        let push = GroundGrid::new(inputs.eye).push(&(inputs.projection * rotation_only));
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline.raw);
        d.cmd_set_depth_compare_op(cmd, pipeline::compare_op(inputs.depth));
        pipeline::push(d, cmd, self.pipeline.layout, &push);
        d.cmd_draw(cmd, 4, 1, 0, 0);
        1
    }
}

impl Destroy for GridPass {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.pipeline.destroy(gpu);
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::Point3;

    #[test]
    fn grid_cells_grow_tenfold_with_height() {
        assert_eq!(super::grid_cell(1.0), 1.0);
        assert_eq!(super::grid_cell(41.0), 10.0);
        assert_eq!(super::grid_cell(401.0), 100.0);
    }

    /// Far from the origin the eye's position reaches the shaders only
    /// reduced modulo the major lines' period (10 cells), so they get the
    /// same small numbers at 1e6 m as near the origin; the origin's offset
    /// from the eye places the axes.
    #[test]
    fn the_eye_reaches_the_shaders_reduced_modulo_the_period() {
        let near = super::GroundGrid::new(Point3::new(3.25, 2.0, -0.5));
        assert_eq!(near.cell, 1.0);
        assert_eq!(near.eye_mod, [3.25, 9.5]);
        assert_eq!(near.origin, [-3.25, 0.5]);
        // 1e6 + 3.25 and -1e6 - 0.5 are exact in f64, and 1e6 is 1e5 periods.
        let far = super::GroundGrid::new(Point3::new(1e6 + 3.25, 2.0, -1e6 - 0.5));
        assert_eq!(far.eye_mod, near.eye_mod);
        assert_eq!(far.origin, [-1e6 - 3.25, 1e6 + 0.5]);
        assert_eq!((far.cell, far.height, far.fade_end), (1.0, 2.0, 54.0));
        assert!((far.fade_start - 16.2).abs() < 1e-12);
        // 100 m up: 10 m cells, a period of 100 m.
        let high = super::GroundGrid::new(Point3::new(-1234.5, 100.0, 250.0));
        assert_eq!((high.cell, high.eye_mod), (10.0, [65.5, 50.0]));
    }
}
