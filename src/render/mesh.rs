//! Meshes on the GPU: vertex and index buffers of one [`MeshData`].

use ash::vk;

use super::context::Context;
use super::error::RenderError;
use super::pipeline::Vertex;
use super::resources::{upload_buffer, Buffer, Destroy, Gpu, Guard};
use crate::mesh::MeshData;

/// A mesh's vertex and index buffers.
pub(crate) struct GpuMesh {
    pub vertices: Option<Buffer>,
    pub indices: Option<Buffer>,
    pub index_count: u32,
}

fn vertices(mesh: &MeshData) -> Result<Vec<Vertex>, RenderError> {
    if mesh.indices.is_empty() || mesh.positions.is_empty() {
        return Err(RenderError::EmptyMesh);
    }
    Ok(mesh.positions.iter().zip(&mesh.normals).map(|(&position, &normal)| Vertex { position, normal }).collect())
}

impl GpuMesh {
    fn empty(index_count: usize) -> GpuMesh {
        GpuMesh { vertices: None, indices: None, index_count: index_count as u32 }
    }

    /// Uploads a mesh through a staging buffer into device-local memory.
    pub fn upload(ctx: &Context, mesh: &MeshData) -> Result<GpuMesh, RenderError> {
        let v = vertices(mesh)?;
        let mut m = Guard::new(&ctx.gpu, GpuMesh::empty(mesh.indices.len()));
        let usage = vk::BufferUsageFlags::VERTEX_BUFFER;
        m.vertices = Some(upload_buffer(ctx, bytemuck::cast_slice(&v), usage, "mesh vertices")?);
        let usage = vk::BufferUsageFlags::INDEX_BUFFER;
        m.indices = Some(upload_buffer(ctx, bytemuck::cast_slice(&mesh.indices), usage, "mesh indices")?);
        Ok(m.finish())
    }

    /// Puts a mesh into host-visible memory that the GPU reads directly:
    /// needs no queue, so it works on a device we only borrow. Meant for
    /// small meshes (the gizmo's).
    pub fn host_visible(gpu: &Gpu, mesh: &MeshData) -> Result<GpuMesh, RenderError> {
        let v = vertices(mesh)?;
        let mut m = Guard::new(gpu, GpuMesh::empty(mesh.indices.len()));
        let usage = vk::BufferUsageFlags::VERTEX_BUFFER;
        m.vertices = Some(Buffer::with_data(gpu, bytemuck::cast_slice(&v), usage, "gizmo vertices")?);
        let usage = vk::BufferUsageFlags::INDEX_BUFFER;
        m.indices = Some(Buffer::with_data(gpu, bytemuck::cast_slice(&mesh.indices), usage, "gizmo indices")?);
        Ok(m.finish())
    }

    /// Binds the mesh at vertex binding 0 (and `instances` at `instance_offset`
    /// on binding 1) and draws `count` instances from `first`.
    ///
    /// # Safety
    /// `cmd` is recording inside a rendering scope with a pipeline whose
    /// vertex input matches; the buffers are alive until the GPU is done.
    pub unsafe fn draw_instanced(
        &self,
        device: &ash::Device,
        cmd: vk::CommandBuffer,
        instances: vk::Buffer,
        instance_offset: u64,
        first: u32,
        count: u32,
    ) {
        let (Some(v), Some(i)) = (&self.vertices, &self.indices) else { return };
        device.cmd_bind_vertex_buffers(cmd, 0, &[v.raw, instances], &[0, instance_offset]);
        device.cmd_bind_index_buffer(cmd, i.raw, 0, vk::IndexType::UINT32);
        device.cmd_draw_indexed(cmd, self.index_count, count, 0, 0, first);
    }
}

impl Destroy for GpuMesh {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.vertices.destroy(gpu);
        self.indices.destroy(gpu);
    }
}
