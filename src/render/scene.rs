//! The scene pass: every [`DrawObject`], lit, one instanced draw per mesh.
//! The same draw writes the object's id into the object-ID target (colour
//! attachment 1), so the ids follow exactly the depth-tested visible surface.
//!
//! Records inside the main rendering scope that the renderer began (colour
//! cleared to the background, ids cleared to 0, scene depth cleared for the
//! depth mode).

use ash::vk;
use bytemuck::{Pod, Zeroable};
use nalgebra::{Matrix3, Matrix4, Vector4};

use super::error::RenderError;
use super::mesh::GpuMesh;
use super::pipeline::{self, instanced_vertex_input, spirv, to_f32_cols, IdAttachment, Pipeline, PipelineDesc};
use super::resources::{Destroy, Gpu};
use super::{DrawObject, Highlight};
use crate::math::DepthMode;

/// Per-instance data of a scene object (144 bytes, no padding).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct SceneInstance {
    pub model_view: [[f32; 4]; 4],
    pub normal: [[f32; 4]; 3],
    pub color: [f32; 4],
    /// x: the object id; the rest is padding.
    pub id: [u32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct ScenePush {
    projection: [[f32; 4]; 4],
    light_dir_view: [f32; 4],
}

/// The scene's instances grouped by mesh, ready to upload.
pub(crate) struct SceneBatches {
    pub instances: Vec<SceneInstance>,
    /// (mesh index, first instance, instance count), one per draw.
    pub runs: Vec<(usize, u32, u32)>,
    /// [`Highlight::code`] per object id (index = id), for the outline pass;
    /// empty when nothing is highlighted.
    pub highlights: Vec<u32>,
}

impl SceneBatches {
    /// Groups `objects` by mesh (objects naming an unknown mesh are skipped)
    /// and computes their view-space instance data and the per-id highlight
    /// table (in the same single pass over the objects).
    pub fn new(view: &Matrix4<f64>, objects: &[DrawObject], mesh_count: usize) -> SceneBatches {
        let mut order: Vec<&DrawObject> = objects.iter().filter(|o| (o.mesh.0 as usize) < mesh_count).collect();
        order.sort_by_key(|o| o.mesh);
        let mut runs: Vec<(usize, u32, u32)> = Vec::new();
        for (i, o) in order.iter().enumerate() {
            match runs.last_mut() {
                Some(run) if run.0 == o.mesh.0 as usize => run.2 += 1,
                _ => runs.push((o.mesh.0 as usize, i as u32, 1)),
            }
        }
        let mut highlights = Vec::new();
        let instances = order
            .iter()
            .map(|o| {
                if o.highlight != Highlight::None {
                    let i = o.id as usize;
                    if highlights.len() <= i {
                        highlights.resize(i + 1, 0);
                    }
                    highlights[i] = o.highlight.code();
                }
                let model_view = view * o.world;
                let linear: Matrix3<f64> = model_view.fixed_view::<3, 3>(0, 0).into_owned();
                let normal = linear.try_inverse().map(|m| m.transpose()).unwrap_or_else(Matrix3::identity);
                SceneInstance {
                    model_view: to_f32_cols(&model_view),
                    normal: std::array::from_fn(|c| {
                        [normal[(0, c)] as f32, normal[(1, c)] as f32, normal[(2, c)] as f32, 0.0]
                    }),
                    color: [o.color[0], o.color[1], o.color[2], 1.0],
                    id: [o.id, 0, 0, 0],
                }
            })
            .collect();
        SceneBatches { instances, runs, highlights }
    }
}

/// What the scene pass draws in one frame.
pub(crate) struct SceneInputs<'a> {
    pub view: Matrix4<f64>,
    pub projection: Matrix4<f64>,
    pub depth: DepthMode,
    pub batches: &'a SceneBatches,
    pub meshes: &'a [GpuMesh],
    /// Holds `batches.instances` from offset 0.
    pub instance_buffer: vk::Buffer,
}

/// The scene pipeline: per-vertex position + normal, per-instance data.
#[derive(Default)]
pub(crate) struct ScenePass {
    pipeline: Pipeline,
}

impl ScenePass {
    pub fn new(gpu: &Gpu, color_format: vk::Format, depth_format: vk::Format) -> Result<ScenePass, RenderError> {
        // 4 model-view columns, 3 normal-matrix columns, 1 colour: eight
        // vec4s, then the id as an integer attribute (exact for any u32).
        let (bindings, mut attributes) = instanced_vertex_input(std::mem::size_of::<SceneInstance>() as u32, 8);
        attributes.push(vk::VertexInputAttributeDescription {
            location: 10,
            binding: 1,
            format: vk::Format::R32_UINT,
            offset: std::mem::offset_of!(SceneInstance, id) as u32,
        });
        let pipeline = PipelineDesc {
            name: "scene",
            vert: spirv::SCENE_VERT,
            frag: spirv::SCENE_FRAG,
            bindings: &bindings,
            attributes: &attributes,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            push_size: std::mem::size_of::<ScenePush>() as u32,
            set_layouts: &[],
            depth_test: true,
            depth_write: true,
            blend: false,
            ids: IdAttachment::Written,
        }
        .build(gpu, color_format, depth_format)?;
        Ok(ScenePass { pipeline })
    }

    /// Records the draws; returns (draw calls, instances).
    ///
    /// # Safety
    /// `cmd` is recording inside a rendering scope with attachments of the
    /// pass's formats, viewport and scissor set; every buffer in `inputs`
    /// stays alive until the GPU finished the command buffer.
    pub unsafe fn record(&self, d: &ash::Device, cmd: vk::CommandBuffer, inputs: &SceneInputs) -> (u32, u32) {
        if inputs.batches.instances.is_empty() {
            return (0, 0);
        }
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline.raw);
        d.cmd_set_depth_compare_op(cmd, pipeline::compare_op(inputs.depth));
        let light_world = Vector4::new(0.35, 0.8, 0.5, 0.0);
        let light_view = (inputs.view * light_world).xyz().normalize();
        let push = ScenePush {
            projection: to_f32_cols(&inputs.projection),
            light_dir_view: [light_view.x as f32, light_view.y as f32, light_view.z as f32, 0.0],
        };
        pipeline::push(d, cmd, self.pipeline.layout, &push);
        let (mut draws, mut instances) = (0, 0);
        for &(mesh, first, count) in &inputs.batches.runs {
            inputs.meshes[mesh].draw_instanced(d, cmd, inputs.instance_buffer, 0, first, count);
            draws += 1;
            instances += count;
        }
        (draws, instances)
    }
}

impl Destroy for ScenePass {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.pipeline.destroy(gpu);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::MeshId;

    fn object(mesh: u32, id: u32, highlight: Highlight) -> DrawObject {
        DrawObject { mesh: MeshId(mesh), world: Matrix4::identity(), color: [1.0; 3], id, highlight }
    }

    #[test]
    fn batches_carry_ids_and_a_highlight_table_indexed_by_id() {
        let objects = [
            object(1, 3, Highlight::Selected),
            object(0, 1, Highlight::None),
            object(1, 5, Highlight::Active),
            object(7, 2, Highlight::Selected), // unknown mesh: skipped
        ];
        let b = SceneBatches::new(&Matrix4::identity(), &objects, 2);
        assert_eq!(b.runs, vec![(0, 0, 1), (1, 1, 2)]);
        let ids: Vec<u32> = b.instances.iter().map(|i| i.id[0]).collect();
        assert_eq!(ids, vec![1, 3, 5]);
        assert_eq!(b.highlights, vec![0, 0, 0, 1, 0, 2]);
        let none = SceneBatches::new(&Matrix4::identity(), &objects[1..2], 2);
        assert!(none.highlights.is_empty());
    }
}
