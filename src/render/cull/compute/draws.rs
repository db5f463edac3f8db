//! The scene pass's part of the GPU-driven path: one indirect draw per
//! culled mesh part, grouped by pass, material and mesh.

use ash::vk;

use super::{GpuScene, COMMAND, DISPATCH};
use crate::math::DepthMode;
use crate::render::assets::material::Materials;
use crate::render::assets::mesh::GpuMesh;
use crate::render::device::pipeline::Pipeline;
use crate::render::passes::scene::{Bound, ScenePush};

impl GpuScene {
    /// Records slot `fi`'s indirect draws (after [`GpuScene::cull`] of
    /// that slot: a frame in flight's view, numbered as the lighting
    /// block's slots); returns the draw calls.
    ///
    /// # Safety
    /// `cmd` is recording inside the scene pass's rendering scope, viewport
    /// and scissor set; the buffers live until the GPU finished the frame.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn record(
        &self,
        d: &ash::Device,
        cmd: vk::CommandBuffer,
        fi: usize,
        push: &ScenePush,
        depth: DepthMode,
        meshes: &[GpuMesh],
        materials: &Materials,
        multisampled: bool,
    ) -> u32 {
        let Some(commands) = self.commands[fi].get() else { return 0 };
        let (mut bound, mut mesh) = (Bound::for_slot(fi), None);
        let mut calls = 0;
        let pipelines = if multisampled { &self.multisampled } else { &self.pipelines };
        let set = [self.sets[fi]];
        for draw in &self.draws[fi] {
            let Some(m) = materials.get(draw.material) else { continue };
            // The frame's object records and visible list: set 1.
            let with_pipeline = |p: &Pipeline| {
                d.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::GRAPHICS, p.layout, 1, &set, &[]);
            };
            bound.bind(d, cmd, pipelines, (draw.pass, draw.material), m, depth, push, with_pipeline);
            if mesh != Some(draw.mesh) {
                let g = &meshes[draw.mesh];
                let (Some(v), Some(i), Some(s)) = (&g.vertices, &g.indices, &g.surface) else { continue };
                d.cmd_bind_vertex_buffers(cmd, 0, &[v.raw], &[0]);
                d.cmd_bind_vertex_buffers(cmd, 2, &[s.raw], &[0]);
                d.cmd_bind_index_buffer(cmd, i.raw, 0, vk::IndexType::UINT32);
                mesh = Some(draw.mesh);
            }
            let offset = DISPATCH + u64::from(draw.command) * COMMAND;
            d.cmd_draw_indexed_indirect(cmd, commands.raw, offset, 1, COMMAND as u32);
            calls += 1;
        }
        calls
    }
}
