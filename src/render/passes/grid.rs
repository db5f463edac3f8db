//! The grid pass: an infinite grid, alpha-blended over the scene,
//! depth-tested against it without writing depth, fading with distance;
//! works in both depth modes. It lies on the ground (y = 0), except in an
//! orthographic view along the X or Z axis (front, back, right, left),
//! which sees the ground edge-on: there it lies in the plane through the
//! origin facing the view, as Blender draws it. The shaders work relative
//! to the eye only (see `GridLayout`), so the lines are as sharp 1e6 m from
//! the origin as at it.
//!
//! Records inside the main rendering scope, after the scene pass; the
//! object-ID attachment is bound there but the grid leaves it untouched.

use ash::vk;
use bytemuck::{Pod, Zeroable};
use nalgebra::Matrix4;

use crate::math::{Camera, DepthMode, Projection};
use crate::render::device::error::RenderError;
use crate::render::device::pipeline::{self, spirv, to_f32_cols, IdAttachment, Pipeline, PipelineDesc};
use crate::render::device::{Destroy, Gpu};

/// The plane's axes are world axes, by index (0: X, 1: Y, 2: Z): `u`
/// across the plane, `v` along it, `n` its normal; the shaders colour the
/// line along a world axis X red, Y green, Z blue.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct GridPush {
    view_projection_rotation: [[f32; 4]; 4],
    /// xy: the eye's u and v coordinates modulo the period of the major
    /// lines; zw: the world origin's u and v minus the eye's.
    grid: [f32; 4],
    /// xy: the quad's centre in the plane, relative to the eye's foot point
    /// (u, v); z: the quad's half extent; w: the plane's offset from the
    /// eye along `n` (minus the eye's `n` coordinate).
    quad: [f32; 4],
    /// x: cell size, y: fade start, z: fade end; w: the depth the grid is
    /// drawn at when it faces the view (the cleared depth: it shows only
    /// where no object is), or -1 to draw it where it lies.
    params: [f32; 4],
    /// x, y, z: the world axis of `u`, `v` and `n`.
    axes: [i32; 4],
}

/// What the grid pass needs in one frame.
pub(crate) struct GridInputs {
    pub view: Matrix4<f64>,
    pub projection: Matrix4<f64>,
    pub camera: Camera,
    /// Viewport width / height.
    pub aspect: f64,
    /// Viewport height in pixels.
    pub height_px: f64,
    pub depth: DepthMode,
}

/// The finest cell the shader may draw for a view whose pixel covers
/// `pixel` metres of the plane near its centre: the power of ten between
/// one and ten pixels. The shader picks per pixel the level whose lines
/// are 10 to 100 px apart (`docs/spec/views.md`, "The grid at every zoom").
fn base_cell(pixel: f64) -> f64 {
    let pixel = if pixel.is_finite() && pixel > 0.0 { pixel } else { 1.0 };
    10f64.powf((10.0 * pixel).log10().floor()).max(1e-6)
}

/// The shader draws lines up to `10^LEVELS` base cells apart; the
/// coordinates it gets repeat every `PERIOD_CELLS` base cells.
const PERIOD_CELLS: f64 = 1e5;

/// An orthographic view counts as looking along a world axis when its
/// direction is within about 0.8 degrees of it (axis views are exact).
const AXIS_VIEW_COS: f64 = 0.9999;

/// The grid of one frame in f64, everything the shaders see given relative
/// to the eye. Far from the origin an f32 world coordinate has too few bits
/// left for the fraction that places a line inside its cell (at 1e6 m they
/// are 6 cm apart), so the shaders never see one: the eye's own position
/// enters only reduced modulo the pattern's period, which is exact to do in
/// f64 and leaves a small number, and the axis lines are placed by the
/// origin's offset from the eye, which is small exactly when they are near
/// enough to be seen.
#[derive(Clone, Copy, Debug, PartialEq)]
struct GridLayout {
    /// World axes (0: X, 1: Y, 2: Z) across the plane, along it, and normal
    /// to it: X, Z, Y for the ground.
    axes: [usize; 3],
    /// The finest cell the shader may draw ([`base_cell`]).
    cell: f64,
    /// The eye's u and v coordinates modulo `PERIOD_CELLS * cell`.
    eye_mod: [f64; 2],
    /// The world origin's u and v coordinates minus the eye's.
    origin: [f64; 2],
    /// The quad's centre in the plane relative to the eye's foot point.
    centre: [f64; 2],
    half_extent: f64,
    /// From the eye to the plane along the normal axis: minus the eye's
    /// coordinate on it.
    to_plane: f64,
    fade_start: f64,
    fade_end: f64,
    /// The plane faces an orthographic view from the side: it is drawn
    /// behind the whole scene, on the background only, as Blender's side
    /// views draw it (in the plane it would cover whatever lies beyond it).
    behind_scene: bool,
}

impl GridLayout {
    fn new(camera: &Camera, aspect: f64, height_px: f64) -> GridLayout {
        let eye = camera.eye;
        let height_px = height_px.max(1.0);
        // An orthographic view along an axis sees the plane across it at
        // one distance: the ground from above or below, the plane through
        // the origin facing it from the side (the ground is edge-on there).
        let facing = match camera.projection {
            Projection::Orthographic { height, .. } => {
                let f = camera.forward();
                if f.x.abs() >= AXIS_VIEW_COS {
                    Some(([2, 1, 0], height, true))
                } else if f.z.abs() >= AXIS_VIEW_COS {
                    Some(([0, 1, 2], height, true))
                } else if f.y.abs() >= AXIS_VIEW_COS {
                    Some(([0, 2, 1], height, false))
                } else {
                    None
                }
            }
            Projection::Perspective { .. } => None,
        };
        let Some((axes, height, behind_scene)) = facing else {
            // The ground, the quad centred under the eye, as far as the fade.
            let height = eye.y.abs();
            let pixel = match camera.projection {
                Projection::Perspective { fov_y, .. } => height.max(1e-3) * 2.0 * (0.5 * fov_y).tan() / height_px,
                Projection::Orthographic { height: h, .. } => h / height_px,
            };
            let cell = base_cell(pixel);
            // An orthographic view shows as much ground as it is high,
            // whatever the eye's height.
            let seen = match camera.projection {
                Projection::Orthographic { height: h, .. } => 2.0 * h * (aspect + 1.0),
                Projection::Perspective { .. } => 0.0,
            };
            let fade_end = (30.0 + 12.0 * height).max(seen);
            return GridLayout {
                axes: [0, 2, 1],
                cell,
                eye_mod: [eye.x.rem_euclid(PERIOD_CELLS * cell), eye.z.rem_euclid(PERIOD_CELLS * cell)],
                origin: [-eye.x, -eye.z],
                centre: [0.0, 0.0],
                half_extent: fade_end,
                to_plane: -eye.y,
                fade_start: fade_end * 0.3,
                fade_end,
                behind_scene: false,
            };
        };
        let [u, v, n] = axes;
        let cell = base_cell(height / height_px);
        let to_plane = -eye[n];
        // Where the view's centre line meets the plane, in the plane.
        let f = camera.forward();
        let t = to_plane / f[n];
        let centre = [t * f[u], t * f[v]];
        // The quad covers the view (half of it is `height * aspect / 2`
        // wide) and fades only beyond it: an orthographic view shows the
        // plane at one distance, without a horizon.
        let half_extent = height * (aspect + 1.0);
        let fade_start = to_plane.abs() + centre[0].hypot(centre[1]) + half_extent;
        GridLayout {
            axes,
            cell,
            eye_mod: [eye[u].rem_euclid(PERIOD_CELLS * cell), eye[v].rem_euclid(PERIOD_CELLS * cell)],
            origin: [-eye[u], -eye[v]],
            centre,
            half_extent,
            to_plane,
            fade_start,
            fade_end: 2.0 * fade_start,
            behind_scene,
        }
    }

    fn push(&self, view_projection_rotation: &Matrix4<f64>, depth: DepthMode) -> GridPush {
        let f = |v: f64| v as f32;
        let drawn_at = if self.behind_scene { depth.clear_depth() } else { -1.0 };
        GridPush {
            view_projection_rotation: to_f32_cols(view_projection_rotation),
            grid: [f(self.eye_mod[0]), f(self.eye_mod[1]), f(self.origin[0]), f(self.origin[1])],
            quad: [f(self.centre[0]), f(self.centre[1]), f(self.half_extent), f(self.to_plane)],
            params: [f(self.cell), f(self.fade_start), f(self.fade_end), drawn_at],
            axes: [self.axes[0] as i32, self.axes[1] as i32, self.axes[2] as i32, 0],
        }
    }
}

/// The grid: no vertex input, alpha-blended, depth-tested, no depth write.
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
            depth_bias: None,
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
        let push = GridLayout::new(&inputs.camera, inputs.aspect, inputs.height_px)
            .push(&(inputs.projection * rotation_only), inputs.depth);
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
    use super::*;
    use nalgebra::{Point3, Vector3};

    /// The base cell is a power of ten between one and ten pixels, so the
    /// level ten times coarser, which the shader draws at the centre, is
    /// between 10 and 100 px.
    #[test]
    fn the_base_cell_is_one_to_ten_pixels() {
        for pixel in [1e-5, 3e-4, 0.01, 0.0137, 0.1, 0.99, 1.0, 7.0, 83.3, 1e4, 123456.0] {
            let c = base_cell(pixel);
            let px = c / pixel;
            assert!(px > 1.0 - 1e-9 && px <= 10.0 + 1e-9, "{pixel}: cell {c} is {px} px");
            assert!((c.log10() - c.log10().round()).abs() < 1e-12, "{c} is a power of ten");
        }
        assert_eq!(base_cell(f64::NAN), 10.0);
    }

    fn camera(eye: [f64; 3], target: [f64; 3], orthographic: bool) -> Camera {
        let projection = if orthographic {
            Projection::Orthographic { height: 8.0, near: 0.05, far: 1000.0 }
        } else {
            Projection::Perspective { fov_y: 1.0, near: 0.05, far: 1000.0 }
        };
        Camera { eye: Point3::from(eye), target: Point3::from(target), up: Vector3::y(), projection }
    }

    /// Far from the origin the eye's position reaches the shaders only
    /// reduced modulo the pattern's period, so they get the same small
    /// numbers at 1e6 m as near the origin; the origin's offset from the
    /// eye places the axes.
    #[test]
    fn the_eye_reaches_the_shaders_reduced_modulo_the_period() {
        // 2 m up with a 1 rad field of view over 800 px: 2.73 mm a pixel,
        // so 1 cm base cells and a period of 1 km.
        let ground = |eye: [f64; 3]| GridLayout::new(&camera(eye, [0.0, 0.0, 0.0], false), 1.5, 800.0);
        let near = ground([3.25, 2.0, -0.5]);
        assert_eq!((near.axes, near.to_plane), ([0, 2, 1], -2.0));
        assert!((near.cell - 0.01).abs() < 1e-15, "{}", near.cell);
        assert!((near.eye_mod[0] - 3.25).abs() < 1e-9 && (near.eye_mod[1] - 999.5).abs() < 1e-9, "{:?}", near.eye_mod);
        assert_eq!(near.origin, [-3.25, 0.5]);
        // 1e6 + 3.25 and -1e6 - 0.5 are exact in f64, and 1e6 is 1e3 periods.
        let far = ground([1e6 + 3.25, 2.0, -1e6 - 0.5]);
        for k in 0..2 {
            assert!((far.eye_mod[k] - near.eye_mod[k]).abs() < 1e-6, "{:?} {:?}", far.eye_mod, near.eye_mod);
        }
        assert_eq!(far.origin, [-1e6 - 3.25, 1e6 + 0.5]);
        assert_eq!((far.centre, far.half_extent, far.fade_end), ([0.0, 0.0], 54.0, 54.0));
        assert!((far.fade_start - 16.2).abs() < 1e-12);
        // 10 km up: the grid still reaches 120 km (no cap), cells of 100 m (13.7 m a pixel).
        let high = ground([-1234.5, 1e4, 250.0]);
        assert_eq!((high.fade_end, high.cell), (30.0 + 12.0 * 1e4, 100.0));
    }

    /// Orthographic views along X or Z get the plane facing them (the
    /// vertical axis Y second), sized by the visible height and drawn
    /// behind the scene; the top view gets the ground sized the same way,
    /// drawn where it lies; other views the ground under the eye.
    #[test]
    fn orthographic_views_along_an_axis_face_the_plane_across_it() {
        let front = GridLayout::new(&camera([1e6 + 2.5, 3.0, 20.0], [1e6 + 2.5, 3.0, 0.0], true), 1.5, 800.0);
        assert_eq!((front.axes, front.to_plane, front.behind_scene), ([0, 1, 2], -20.0, true));
        // 8 m over 800 px: 1 cm a pixel, 10 cm base cells.
        assert!((front.cell - 0.1).abs() < 1e-15);
        assert_eq!((front.origin, front.centre), ([-1e6 - 2.5, -3.0], [0.0, 0.0]));
        // 8 m high at 1.5: the view is 12 m wide; the quad reaches 20 m each
        // way and fades beyond 20 + 20 m.
        assert_eq!((front.half_extent, front.fade_start, front.fade_end), (20.0, 40.0, 80.0));
        let left = GridLayout::new(&camera([-7.0, -1.0, -43.0], [5.0, -1.0, -43.0], true), 1.5, 800.0);
        assert_eq!((left.axes, left.to_plane, left.origin), ([2, 1, 0], 7.0, [43.0, 1.0]));
        // About 0.3 degrees off the -z axis: still the front plane, the quad
        // centred where the view's centre line meets it.
        let tilted = GridLayout::new(&camera([0.0, 0.0, 10.0], [0.05, 0.0, 0.0], true), 1.5, 800.0);
        assert_eq!(tilted.axes, [0, 1, 2]);
        assert!((tilted.centre[0] - 0.05).abs() < 1e-12 && tilted.centre[1] == 0.0, "{:?}", tilted.centre);
        let mut top = camera([3.0, 50.0, 4.0], [3.0, 0.0, 4.0], true);
        top.up = Vector3::new(0.0, 0.0, -1.0);
        let top = GridLayout::new(&top, 1.5, 800.0);
        assert_eq!((top.axes, top.behind_scene, top.half_extent), ([0, 2, 1], false, 20.0));
        for (eye, target, ortho) in [
            ([0.0, 0.0, 10.0], [0.2, 0.0, 0.0], true), // 1.1 degrees off
            ([0.0, 0.0, 10.0], [0.0, 0.0, 0.0], false),
            ([0.0, 10.0, 0.0], [0.0, 0.0, 0.0], true),
        ] {
            let mut cam = camera(eye, target, ortho);
            cam.up = Vector3::new(0.0, 0.6, -0.8);
            assert_eq!(
                GridLayout::new(&cam, 1.5, 800.0).axes,
                [0, 2, 1],
                "{eye:?} -> {target:?}, orthographic {ortho}"
            );
        }
        // Cells follow the visible height: 5e6 m over 500 px, 1e4 m a pixel.
        let mut wide = camera([0.0, 0.0, 10.0], [0.0, 0.0, 0.0], true);
        wide.projection = Projection::Orthographic { height: 5e6, near: 0.05, far: 1000.0 };
        assert_eq!(GridLayout::new(&wide, 1.5, 500.0).cell, 1e5);
    }
}
