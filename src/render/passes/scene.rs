//! The scene pass: every [`DrawObject`], one instanced draw per mesh part
//! (grouped by material: opaque, then alpha-masked, then blended back to
//! front without depth writes).
//! The same draw writes the object's id into the object-ID target (colour
//! attachment 1), so the ids follow exactly the depth-tested visible surface.
//!
//! Records inside the main rendering scope that the renderer began (colour
//! cleared to the background, ids cleared to 0, scene depth cleared for the
//! depth mode).

use ash::vk;
use bytemuck::{Pod, Zeroable};
use nalgebra::{Matrix3, Matrix4};

use crate::math::DepthMode;
use crate::render::assets::material::{GpuMaterial, MaterialPush, Materials, Pass, LIGHTING_STRIDE};
use crate::render::assets::mesh::GpuMesh;
use crate::render::desc::{DrawObject, Highlight, MaterialId, MeshPart};
use crate::render::device::error::RenderError;
use crate::render::device::pipeline::{
    self, instanced_vertex_input, spirv, to_f32_cols, IdAttachment, Pipeline, PipelineDesc,
};
use crate::render::device::{Destroy, Gpu, Guard};

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
pub(crate) struct ScenePush {
    projection: [[f32; 4]; 4],
}

impl ScenePush {
    /// The projection (the solid mode's light is in the lighting block).
    pub fn new(projection: &Matrix4<f64>) -> ScenePush {
        ScenePush { projection: to_f32_cols(projection) }
    }
}

/// One instanced draw's objects: `count` instances of `mesh` from `first`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Run {
    pub mesh: usize,
    pub first: u32,
    pub count: u32,
    /// View-space z of the farthest instance's origin (for ordering blended
    /// draws back to front; 0 for meshes without blended parts).
    pub far: f32,
}

/// The scene's instances grouped by mesh, ready to upload: the objects in
/// instance order, whose instance data is written straight into the
/// frame's mapped instance buffer ([`SceneBatches::write_instances`]) with
/// no list in between (a view of half a million cubes made a 77 MB list a
/// frame and copied it).
pub(crate) struct SceneBatches<'a> {
    /// The objects drawn, in instance order.
    order: Vec<&'a DrawObject>,
    view: Matrix4<f64>,
    /// One per mesh drawn.
    pub runs: Vec<Run>,
    /// [`Highlight::code`] per object id (index = id), for the outline pass;
    /// empty when nothing is highlighted.
    pub highlights: Vec<u32>,
}

impl<'a> SceneBatches<'a> {
    /// Groups `objects` by mesh (objects naming an unknown mesh, and those
    /// `keep` refuses, are skipped) and makes the per-id highlight table.
    /// `blended[m]` says whether mesh `m` has blended parts: its instances
    /// are sorted back to front (farthest origin first), so that they blend
    /// in order.
    pub fn new(
        view: &Matrix4<f64>,
        objects: &'a [DrawObject],
        blended: &[bool],
        keep: impl Fn(&DrawObject) -> bool,
    ) -> SceneBatches<'a> {
        let mesh_count = blended.len();
        let mut order: Vec<&DrawObject> =
            objects.iter().filter(|o| (o.mesh.0 as usize) < mesh_count && keep(o)).collect();
        order.sort_by_key(|o| o.mesh);
        let mut runs: Vec<Run> = Vec::new();
        for (i, o) in order.iter().enumerate() {
            match runs.last_mut() {
                Some(run) if run.mesh == o.mesh.0 as usize => run.count += 1,
                _ => runs.push(Run { mesh: o.mesh.0 as usize, first: i as u32, count: 1, far: 0.0 }),
            }
        }
        let depth = |o: &DrawObject| (view * o.world)[(2, 3)];
        for run in runs.iter_mut().filter(|r| blended[r.mesh]) {
            let range = run.first as usize..(run.first + run.count) as usize;
            order[range.clone()].sort_by(|a, b| depth(a).total_cmp(&depth(b)));
            run.far = depth(order[range.start]) as f32;
        }
        let mut highlights = Vec::new();
        for o in order.iter().filter(|o| o.highlight != Highlight::None) {
            let i = o.id as usize;
            if highlights.len() <= i {
                highlights.resize(i + 1, 0);
            }
            highlights[i] = o.highlight.code();
        }
        SceneBatches { order, view: *view, runs, highlights }
    }

    /// The number of instances.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Instance `k`'s view-space data.
    fn instance(&self, k: usize) -> SceneInstance {
        let o = self.order[k];
        let model_view = self.view * o.world;
        let linear: Matrix3<f64> = model_view.fixed_view::<3, 3>(0, 0).into_owned();
        let normal = linear.try_inverse().map(|m| m.transpose()).unwrap_or_else(Matrix3::identity);
        SceneInstance {
            model_view: to_f32_cols(&model_view),
            normal: std::array::from_fn(|c| [normal[(0, c)] as f32, normal[(1, c)] as f32, normal[(2, c)] as f32, 0.0]),
            color: [o.color[0], o.color[1], o.color[2], 1.0],
            id: [o.id, 0, 0, 0],
        }
    }

    /// Writes every instance, in order, into `dst` (at least
    /// `len() * size_of::<SceneInstance>()` bytes: the mapped buffer).
    pub fn write_instances(&self, dst: &mut [u8]) {
        let size = std::mem::size_of::<SceneInstance>();
        for (k, out) in dst.chunks_exact_mut(size).take(self.len()).enumerate() {
            out.copy_from_slice(bytemuck::bytes_of(&self.instance(k)));
        }
    }

    #[cfg(test)]
    fn instances(&self) -> Vec<SceneInstance> {
        (0..self.len()).map(|k| self.instance(k)).collect()
    }
}

/// One draw of the scene pass: a part of a mesh for a run of instances.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Draw {
    pub pass: Pass,
    pub material: MaterialId,
    pub mesh: usize,
    /// First index and index count of the part.
    pub indices: (u32, u32),
    /// First instance and instance count of the run.
    pub instances: (u32, u32),
    far: f32,
}

/// The draws of a frame in recording order: opaque, then masked, each
/// grouped by material (one descriptor-set bind per material) and mesh;
/// then blended ones, farthest run first, parts in the mesh's order.
/// `parts(m)` gives mesh `m`'s parts, `pass(id)` a material's pass. The
/// work grows with runs times parts, not with objects.
pub(crate) fn plan<'a>(
    runs: &[Run],
    parts: impl Fn(usize) -> &'a [MeshPart],
    pass: impl Fn(MaterialId) -> Pass,
) -> Vec<Draw> {
    let mut draws: Vec<Draw> = Vec::new();
    for run in runs {
        for p in parts(run.mesh) {
            draws.push(Draw {
                pass: pass(p.material),
                material: p.material,
                mesh: run.mesh,
                indices: (p.first, p.count),
                instances: (run.first, run.count),
                far: run.far,
            });
        }
    }
    // Stable: blended parts of one mesh keep their order.
    draws.sort_by(|a, b| {
        a.pass.cmp(&b.pass).then_with(|| {
            if a.pass == Pass::Blend {
                a.far.total_cmp(&b.far).then(a.mesh.cmp(&b.mesh))
            } else {
                a.material.cmp(&b.material).then(a.mesh.cmp(&b.mesh))
            }
        })
    });
    draws
}

/// What the scene pass draws in one frame.
pub(crate) struct SceneInputs<'a> {
    pub projection: Matrix4<f64>,
    pub depth: DepthMode,
    pub batches: &'a SceneBatches<'a>,
    pub meshes: &'a [GpuMesh],
    pub materials: &'a Materials,
    /// Holds the batches' instances from instance `first_instance` on.
    pub instance_buffer: vk::Buffer,
    pub first_instance: u32,
    /// The slot of the lighting block (the frame in flight's, per view:
    /// [`lighting_slot`](crate::render::desc::lighting_slot)).
    pub lighting_slot: usize,
}

/// The scene pipelines, one per [`Pass`] (the fragment shader specialised
/// by alpha mode): per-vertex position + normal, per-instance data, per-vertex
/// UV + colour; the material's texture in set 0.
#[derive(Default)]
pub(crate) struct ScenePass {
    /// Single-sampled, writing colour and ids; indexed by `Pass as usize`.
    pipelines: [Pipeline; 3],
    /// With MSAA only: the multisampled colour pass's pipelines (colour
    /// alone, no object-ID attachment); indexed by `Pass as usize`.
    multisampled: [Pipeline; 3],
}

/// Offset of the material's push constants, after [`ScenePush`].
pub(crate) const MATERIAL_PUSH_OFFSET: u32 = std::mem::size_of::<ScenePush>() as u32;

/// What a run of scene draws has bound: the pass's pipeline and the
/// material, so that draws of the same pass and material bind nothing
/// again. The CPU path's instanced draws and the GPU path's indirect ones
/// both bind through it.
#[derive(Default)]
pub(crate) struct Bound {
    pass: Option<Pass>,
    material: Option<MaterialId>,
    /// The dynamic offset of frame's slot of the lighting block.
    lighting: u32,
}

impl Bound {
    /// Nothing bound yet, in frame `fi` (whose lighting slot the material
    /// sets are bound with).
    pub(crate) fn for_slot(slot: usize) -> Bound {
        Bound { lighting: (LIGHTING_STRIDE * slot as u64) as u32, ..Bound::default() }
    }

    /// Binds `pipelines[pass]` when the pass differs from the last one
    /// (with the depth compare op and the frame's push constants, then
    /// `with_pipeline` for the path's own descriptor sets), and material
    /// `id` (`m`) when it or the pass changed; returns the pipeline.
    ///
    /// # Safety
    /// `cmd` is recording inside the scene pass's rendering scope; the
    /// pipelines and the material's set live until the GPU finished it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn bind<'p>(
        &mut self,
        d: &ash::Device,
        cmd: vk::CommandBuffer,
        pipelines: &'p [Pipeline; 3],
        (pass, id): (Pass, MaterialId),
        m: &GpuMaterial,
        depth: DepthMode,
        push: &ScenePush,
        with_pipeline: impl FnOnce(&Pipeline),
    ) -> &'p Pipeline {
        let pipeline = &pipelines[pass as usize];
        if self.pass != Some(pass) {
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline.raw);
            d.cmd_set_depth_compare_op(cmd, pipeline::compare_op(depth));
            pipeline::push(d, cmd, pipeline.layout, push);
            with_pipeline(pipeline);
            self.pass = Some(pass);
            self.material = None;
        }
        if self.material != Some(id) {
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                pipeline.layout,
                0,
                &[m.set],
                &[self.lighting],
            );
            d.cmd_push_constants(
                cmd,
                pipeline.layout,
                vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                MATERIAL_PUSH_OFFSET,
                bytemuck::bytes_of(&m.push),
            );
            self.material = Some(id);
        }
        pipeline
    }
}

/// The vertex stage of a set of scene pipelines, one per material pass
/// (opaque, MASK, BLEND): the CPU-culled and the GPU-driven scene passes
/// differ only here. `bindings` and `attributes` are the pass's own inputs;
/// the surface stream the material shader reads
/// ([`pipeline::surface_vertex_input`]) is added by [`MaterialShaders::build`].
pub(crate) struct MaterialShaders<'a> {
    pub name: &'static str,
    pub vert: &'a [u8],
    pub bindings: &'a [vk::VertexInputBindingDescription],
    pub attributes: &'a [vk::VertexInputAttributeDescription],
}

impl MaterialShaders<'_> {
    /// Builds the pipelines of each material pass with the material
    /// fragment shader: single-sampled with the object-ID attachment and,
    /// when `samples` > 1, multisampled without it (the colour pass of an
    /// MSAA frame), into `single` and `multisampled` (indexed by pass), each
    /// as it is built, so the caller's guard owns it if a later one fails.
    pub(crate) fn build(
        &self,
        gpu: &Gpu,
        set_layouts: &[vk::DescriptorSetLayout],
        (color_format, depth_format): (vk::Format, vk::Format),
        samples: vk::SampleCountFlags,
        (single, multisampled): (&mut [Pipeline; 3], &mut [Pipeline; 3]),
    ) -> Result<(), RenderError> {
        let (surface, surface_attributes) = pipeline::surface_vertex_input();
        let bindings: Vec<_> = self.bindings.iter().copied().chain([surface]).collect();
        let attributes: Vec<_> = self.attributes.iter().copied().chain(surface_attributes).collect();
        let one = vk::SampleCountFlags::TYPE_1;
        // With MSAA the single-sample pipelines draw the ids pass, which has
        // no colour target: an id-only shader (no lighting, no texture
        // fetch outside MASK) and colour attachment 0 unused.
        let variants: &[_] = if samples == one {
            &[(one, IdAttachment::Written, spirv::SCENE_FRAG, color_format)]
        } else {
            &[
                (one, IdAttachment::Written, spirv::SCENE_IDS_FRAG, vk::Format::UNDEFINED),
                (samples, IdAttachment::Absent, spirv::SCENE_FRAG, color_format),
            ]
        };
        for &(count, ids, frag, color_format) in variants {
            for (i, kind) in [Pass::Opaque, Pass::Mask, Pass::Blend].into_iter().enumerate() {
                let built = PipelineDesc {
                    name: self.name,
                    vert: self.vert,
                    frag,
                    bindings: &bindings,
                    attributes: &attributes,
                    topology: vk::PrimitiveTopology::TRIANGLE_LIST,
                    push_size: MATERIAL_PUSH_OFFSET + std::mem::size_of::<MaterialPush>() as u32,
                    set_layouts,
                    depth_test: true,
                    depth_write: kind != Pass::Blend,
                    blend: kind == Pass::Blend && color_format != vk::Format::UNDEFINED,
                    ids,
                    frag_constants: &[i as u32],
                    depth_bias: None,
                }
                .build(gpu, color_format, depth_format, count)?;
                if count == one {
                    single[i] = built;
                } else {
                    multisampled[i] = built;
                }
            }
        }
        Ok(())
    }
}

impl ScenePass {
    /// With `samples` > 1 it also builds the multisampled colour pass's
    /// pipelines ([`ScenePass::record`] with `multisampled`).
    pub fn new(
        gpu: &Gpu,
        color_format: vk::Format,
        depth_format: vk::Format,
        samples: vk::SampleCountFlags,
        material_layout: vk::DescriptorSetLayout,
    ) -> Result<ScenePass, RenderError> {
        let (bindings, attributes) = instance_input();
        let set_layouts = [material_layout];
        let mut pass = Guard::new(gpu, ScenePass::default());
        let shaders =
            MaterialShaders { name: "scene", vert: spirv::SCENE_VERT, bindings: &bindings, attributes: &attributes };
        let p = &mut *pass;
        shaders.build(
            gpu,
            &set_layouts,
            (color_format, depth_format),
            samples,
            (&mut p.pipelines, &mut p.multisampled),
        )?;
        Ok(pass.finish())
    }

    /// Records the draws; returns (draw calls, instances).
    ///
    /// # Safety
    /// `cmd` is recording inside a rendering scope with attachments of the
    /// pass's formats, viewport and scissor set; every buffer, set and
    /// texture in `inputs` stays alive until the GPU finished the command
    /// buffer.
    /// `multisampled`: with the multisampled colour pass's pipelines
    /// (built only when the pass was created with more than one sample).
    pub unsafe fn record(
        &self,
        d: &ash::Device,
        cmd: vk::CommandBuffer,
        inputs: &SceneInputs,
        multisampled: bool,
    ) -> (u32, u32) {
        let pipelines = if multisampled { &self.multisampled } else { &self.pipelines };
        record_draws(d, cmd, pipelines, inputs, |_, _| false)
    }
}

/// Records `inputs`' instanced draws with `pipelines` (indexed by
/// [`Pass`]), binding each pipeline, material and mesh once per run,
/// leaving out the parts `skip` names by pass and material (the shadow
/// pass's); returns (draw calls, instances).
///
/// # Safety
/// As [`ScenePass::record`], the pipelines' formats those of the scope.
pub(crate) unsafe fn record_draws(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    pipelines: &[Pipeline; 3],
    inputs: &SceneInputs,
    skip: impl Fn(Pass, &GpuMaterial) -> bool,
) -> (u32, u32) {
    if inputs.batches.is_empty() {
        return (0, 0);
    }
    let push = ScenePush::new(&inputs.projection);
    let materials = inputs.materials;
    let pass_of = |id: MaterialId| materials.get(id).map_or(Pass::Opaque, |m| m.pass);
    let draws = plan(&inputs.batches.runs, |m| &inputs.meshes[m].parts, pass_of);
    let (mut bound, mut mesh) = (Bound::for_slot(inputs.lighting_slot), None);
    let (mut calls, mut instances) = (0, 0);
    for draw in &draws {
        let Some(m) = materials.get(draw.material).filter(|m| !skip(draw.pass, m)) else { continue };
        bound.bind(d, cmd, pipelines, (draw.pass, draw.material), m, inputs.depth, &push, |_| {});
        if mesh != Some(draw.mesh) {
            if !inputs.meshes[draw.mesh].bind_scene(d, cmd, inputs.instance_buffer) {
                continue;
            }
            mesh = Some(draw.mesh);
        }
        let first = inputs.first_instance + draw.instances.0;
        d.cmd_draw_indexed(cmd, draw.indices.1, draw.instances.1, draw.indices.0, 0, first);
        calls += 1;
        instances += draw.instances.1;
    }
    (calls, instances)
}

/// The CPU path's per-instance vertex input ([`SceneInstance`]): 4
/// model-view columns, 3 normal-matrix columns and the colour as eight
/// vec4s, then the id as an integer attribute (exact for any u32).
pub(crate) fn instance_input() -> (Vec<vk::VertexInputBindingDescription>, Vec<vk::VertexInputAttributeDescription>) {
    let (bindings, mut attributes) = instanced_vertex_input(std::mem::size_of::<SceneInstance>() as u32, 8);
    attributes.push(vk::VertexInputAttributeDescription {
        location: 10,
        binding: 1,
        format: vk::Format::R32_UINT,
        offset: std::mem::offset_of!(SceneInstance, id) as u32,
    });
    (bindings.to_vec(), attributes)
}

impl Destroy for ScenePass {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        for p in self.pipelines.iter_mut().chain(&mut self.multisampled) {
            p.destroy(gpu);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::desc::MeshId;

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
        let b = SceneBatches::new(&Matrix4::identity(), &objects, &[false, false], |_| true);
        let runs: Vec<(usize, u32, u32)> = b.runs.iter().map(|r| (r.mesh, r.first, r.count)).collect();
        assert_eq!(runs, vec![(0, 0, 1), (1, 1, 2)]);
        let ids: Vec<u32> = b.instances().iter().map(|i| i.id[0]).collect();
        assert_eq!(ids, vec![1, 3, 5]);
        assert_eq!(b.highlights, vec![0, 0, 0, 1, 0, 2]);
        let none = SceneBatches::new(&Matrix4::identity(), &objects[1..2], &[false, false], |_| true);
        assert!(none.highlights.is_empty());
    }

    #[test]
    fn blended_meshes_sort_their_instances_back_to_front() {
        let at = |id: u32, z: f64| DrawObject {
            world: Matrix4::new_translation(&nalgebra::Vector3::new(0.0, 0.0, z)),
            ..object(0, id, Highlight::None)
        };
        // The camera looks down -z: the most negative z is the farthest.
        let objects = [at(1, -2.0), at(2, -9.0), at(3, -5.0)];
        let ids = |b: &SceneBatches| b.instances().iter().map(|i| i.id[0]).collect::<Vec<_>>();
        let blended = SceneBatches::new(&Matrix4::identity(), &objects, &[true], |_| true);
        assert_eq!(ids(&blended), vec![2, 3, 1]);
        assert_eq!(blended.runs[0].far, -9.0);
        let opaque = SceneBatches::new(&Matrix4::identity(), &objects, &[false], |_| true);
        assert_eq!(ids(&opaque), vec![1, 2, 3]);
    }

    #[test]
    fn draws_group_by_pass_and_material_and_blend_last_far_first() {
        let part = |first: u32, material: u32| MeshPart { first, count: 3, material: MaterialId(material) };
        let parts = [
            vec![part(0, 2), part(3, 1)], // mesh 0: material 2 (blend), 1 (opaque)
            vec![part(0, 1)],             // mesh 1: material 1
            vec![part(0, 2), part(3, 3)], // mesh 2: blend, then mask
        ];
        let pass = |m: MaterialId| match m.0 {
            2 => Pass::Blend,
            3 => Pass::Mask,
            _ => Pass::Opaque,
        };
        let runs = [
            Run { mesh: 0, first: 0, count: 10, far: -3.0 },
            Run { mesh: 1, first: 10, count: 1000, far: 0.0 },
            Run { mesh: 2, first: 1010, count: 2, far: -7.0 },
        ];
        let draws = plan(&runs, |m| &parts[m], pass);
        let order: Vec<(Pass, u32, usize)> = draws.iter().map(|d| (d.pass, d.material.0, d.mesh)).collect();
        assert_eq!(
            order,
            vec![
                (Pass::Opaque, 1, 0),
                (Pass::Opaque, 1, 1),
                (Pass::Mask, 3, 2),
                (Pass::Blend, 2, 2),
                (Pass::Blend, 2, 0)
            ]
        );
        // A thousand objects of one mesh are one draw.
        assert_eq!(draws[1].instances, (10, 1000));
    }
}
