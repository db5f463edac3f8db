//! Meshes on the GPU: vertex and index buffers of one [`MeshData`], and for
//! scene meshes a second vertex buffer of texture coordinates and vertex
//! colours with the index ranges to draw per material.

use ash::vk;

use crate::mesh::MeshData;
use crate::render::desc::{MaterialId, MeshPart, MeshSurface};
use crate::render::device::context::Context;
use crate::render::device::error::RenderError;
use crate::render::device::pipeline::{SurfaceVertex, Vertex};
use crate::render::device::{upload_buffer, Buffer, Destroy, Gpu, Guard};

/// A mesh's vertex and index buffers.
pub(crate) struct GpuMesh {
    pub vertices: Option<Buffer>,
    pub indices: Option<Buffer>,
    pub index_count: u32,
    /// How many vertices `vertices` holds.
    pub vertex_count: u32,
    /// Per vertex: UV and colour ([`SurfaceVertex`]); scene meshes only.
    pub surface: Option<Buffer>,
    /// Index ranges by material (scene meshes).
    pub parts: Vec<MeshPart>,
}

fn vertices(mesh: &MeshData) -> Result<Vec<Vertex>, RenderError> {
    if mesh.indices.is_empty() || mesh.positions.is_empty() {
        return Err(RenderError::EmptyMesh);
    }
    Ok(mesh.positions.iter().zip(&mesh.normals).map(|(&position, &normal)| Vertex { position, normal }).collect())
}

/// The surface buffer's vertices (UVs, colour, tangent) of a mesh of `n`
/// vertices, checking that `s` has `n` of each.
fn surface_vertices(n: usize, s: &MeshSurface<'_>) -> Result<Vec<SurfaceVertex>, RenderError> {
    let tangents = s.tangents.map_or(n, <[_]>::len);
    let uvs1 = s.uvs1.map_or(n, <[_]>::len);
    if s.uvs.len() != n || uvs1 != n || s.colors.len() != n || tangents != n {
        return Err(RenderError::BadMesh(format!(
            "{} UVs, {uvs1} second UVs, {} colours and {tangents} tangents for {n} vertices",
            s.uvs.len(),
            s.colors.len()
        )));
    }
    let tangent = |k: usize| s.tangents.map_or([0.0; 4], |t| t[k]);
    let uv = |k: usize| {
        let (a, b) = (s.uvs[k], s.uvs1.map_or([0.0; 2], |u| u[k]));
        [a[0], a[1], b[0], b[1]]
    };
    Ok((0..n).map(|k| SurfaceVertex { uv: uv(k), color: s.colors[k], tangent: tangent(k) }).collect())
}

impl GpuMesh {
    fn empty(index_count: usize, vertex_count: usize) -> GpuMesh {
        GpuMesh {
            vertices: None,
            indices: None,
            index_count: index_count as u32,
            vertex_count: vertex_count as u32,
            surface: None,
            parts: Vec::new(),
        }
    }

    /// Uploads a scene mesh through a staging buffer into device-local
    /// memory. Parts must lie within the indices and name materials below
    /// `materials`.
    pub fn upload(
        ctx: &Context,
        mesh: &MeshData,
        surface: Option<MeshSurface<'_>>,
        materials: usize,
    ) -> Result<GpuMesh, RenderError> {
        let v = vertices(mesh)?;
        let n = mesh.positions.len();
        let whole = [MeshPart { first: 0, count: mesh.indices.len() as u32, material: MaterialId::DEFAULT }];
        let (surface_vertices, parts) = match surface {
            None => (vec![SurfaceVertex { uv: [0.0; 4], color: [1.0; 4], tangent: [0.0; 4] }; n], &whole[..]),
            Some(s) => (surface_vertices(n, &s)?, s.parts),
        };
        for p in parts {
            let end = u64::from(p.first) + u64::from(p.count);
            if end > mesh.indices.len() as u64 || p.count % 3 != 0 {
                return Err(RenderError::BadMesh(format!("part {}..{end} of {} indices", p.first, mesh.indices.len())));
            }
            if p.material.0 as usize >= materials {
                return Err(RenderError::BadMesh(format!("unknown material {}", p.material.0)));
            }
        }
        let mut m = Guard::new(&ctx.gpu, GpuMesh::empty(mesh.indices.len(), n));
        m.parts = parts.iter().copied().filter(|p| p.count > 0).collect();
        let usage = vk::BufferUsageFlags::VERTEX_BUFFER;
        m.surface = Some(upload_buffer(ctx, bytemuck::cast_slice(&surface_vertices), usage, "mesh surface")?);
        let usage = vk::BufferUsageFlags::VERTEX_BUFFER;
        m.vertices = Some(upload_buffer(ctx, bytemuck::cast_slice(&v), usage, "mesh vertices")?);
        let usage = vk::BufferUsageFlags::INDEX_BUFFER;
        m.indices = Some(upload_buffer(ctx, bytemuck::cast_slice(&mesh.indices), usage, "mesh indices")?);
        Ok(m.finish())
    }

    /// A device-local vertex buffer with `mesh`'s positions and normals in
    /// place of the current one, and with `surface` a surface buffer of
    /// its UVs, colours and tangents in place of that one; the buffers
    /// replaced are returned (the caller retires them once no frame in
    /// flight reads them). The vertex and index counts must not change,
    /// nor the parts (`surface`'s must be the mesh's).
    pub fn replace_vertices(
        &mut self,
        ctx: &Context,
        mesh: &MeshData,
        surface: Option<MeshSurface<'_>>,
    ) -> Result<Vec<Buffer>, RenderError> {
        let v = vertices(mesh)?;
        if v.len() != self.vertex_count as usize || mesh.indices.len() != self.index_count as usize {
            return Err(RenderError::BadMesh(format!(
                "{} vertices and {} indices in place of {} and {}",
                v.len(),
                mesh.indices.len(),
                self.vertex_count,
                self.index_count
            )));
        }
        // Everything is checked before anything is replaced.
        let surface_vertices = match surface {
            Some(s) => {
                if !s.parts.iter().filter(|p| p.count > 0).eq(&self.parts) {
                    return Err(RenderError::BadMesh("a posed mesh's parts differ from its mesh's".into()));
                }
                Some(surface_vertices(v.len(), &s)?)
            }
            None => None,
        };
        let usage = vk::BufferUsageFlags::VERTEX_BUFFER;
        // Guarded until both are uploaded: a failed surface upload leaves
        // the mesh as it was and frees the new vertices.
        let fresh = Guard::new(&ctx.gpu, upload_buffer(ctx, bytemuck::cast_slice(&v), usage, "posed mesh vertices")?);
        let fresh_surface = match surface_vertices {
            Some(sv) => Some(upload_buffer(ctx, bytemuck::cast_slice(&sv), usage, "posed mesh surface")?),
            None => None,
        };
        let mut old: Vec<Buffer> = self.vertices.replace(fresh.finish()).into_iter().collect();
        old.extend(fresh_surface.and_then(|b| self.surface.replace(b)));
        Ok(old)
    }

    /// Puts a mesh into host-visible memory that the GPU reads directly:
    /// needs no queue, so it works on a device we only borrow. Meant for
    /// small meshes (the gizmo's).
    pub fn host_visible(gpu: &Gpu, mesh: &MeshData) -> Result<GpuMesh, RenderError> {
        let v = vertices(mesh)?;
        let mut m = Guard::new(gpu, GpuMesh::empty(mesh.indices.len(), v.len()));
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

impl GpuMesh {
    /// Binds a scene mesh: vertices at binding 0, `instances` at 1, the
    /// surface at 2, and the indices. False (nothing bound) for a mesh
    /// without buffers.
    ///
    /// # Safety
    /// `cmd` is recording with the scene pipeline bound; the buffers are
    /// alive until the GPU is done.
    pub unsafe fn bind_scene(&self, device: &ash::Device, cmd: vk::CommandBuffer, instances: vk::Buffer) -> bool {
        let (Some(v), Some(i), Some(s)) = (&self.vertices, &self.indices, &self.surface) else { return false };
        device.cmd_bind_vertex_buffers(cmd, 0, &[v.raw, instances, s.raw], &[0, 0, 0]);
        device.cmd_bind_index_buffer(cmd, i.raw, 0, vk::IndexType::UINT32);
        true
    }
}

impl Destroy for GpuMesh {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.vertices.destroy(gpu);
        self.indices.destroy(gpu);
        self.surface.destroy(gpu);
    }
}

/// Buffers taken out of use while frames in flight may still read them,
/// each with the number of frames submitted when it was taken out.
#[derive(Default)]
pub(crate) struct Retired {
    buffers: Vec<(u64, Buffer)>,
}

impl Retired {
    /// `buffer` left use when `frames` frames had been submitted.
    pub fn push(&mut self, frames: u64, buffer: Buffer) {
        self.buffers.push((frames, buffer));
    }

    /// Destroys the buffers no frame can read any more. Frame `k` uses the
    /// fence of slot `k % FRAMES_IN_FLIGHT`; once frame `drawing` has
    /// waited for its slot, frames up to `drawing - FRAMES_IN_FLIGHT` are
    /// done, and a buffer retired after `n` frames was last read by frame
    /// `n - 1`.
    ///
    /// # Safety
    /// The fences of every frame before `drawing - FRAMES_IN_FLIGHT + 1`
    /// were waited for.
    pub unsafe fn release(&mut self, gpu: &Gpu, drawing: u64) {
        let mut done = Vec::new();
        self.buffers.retain_mut(|(n, b)| {
            let free = *n + crate::render::desc::FRAMES_IN_FLIGHT as u64 <= drawing + 1;
            if free {
                done.push(std::mem::replace(b, Buffer::null()));
            }
            !free
        });
        done.destroy(gpu);
    }
}

impl Destroy for Retired {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        for (_, b) in &mut self.buffers {
            b.destroy(gpu);
        }
        self.buffers.clear();
    }
}
