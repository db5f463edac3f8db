//! The renderer's GPU-culling API: the persistent scene objects and
//! their read-backs (for tests).

use super::Renderer;
use crate::render::cull::choice::{choose_culling, Culling, CullingChoice};
use crate::render::cull::compute::{GpuObjectRecord, GpuScene, GpuSceneRebuilds, SceneObject};
use crate::render::desc::{MeshId, FRAMES_IN_FLIGHT};
use crate::render::renderer::target::DEPTH_FORMAT;
use crate::render::RenderError;

impl Renderer {
    /// GPU culling: replaces the persistent scene objects (object `i` has
    /// id `i + 1`) that frames with
    /// [`FrameDesc::gpu_scene`](crate::render::desc::FrameDesc::gpu_scene) draw.
    /// Waits for the device, rebuilds and uploads the whole object buffer
    /// (for a new scene, or new ids past the records held) from the
    /// `count` objects `objects` yields (missing ones draw nothing),
    /// written straight into the upload's staging memory: a scene of a
    /// million objects needs no list of them for the upload.
    pub fn set_scene_objects(
        &mut self,
        count: usize,
        objects: impl Iterator<Item = SceneObject>,
    ) -> Result<(), RenderError> {
        if !self.supports_gpu_culling() {
            return Err(RenderError::MissingFeature("drawIndirectFirstInstance"));
        }
        self.ctx.wait_idle()?;
        let parts = &mut self.parts;
        let scene = match &mut parts.gpu_scene {
            Some(s) => s,
            None => parts.gpu_scene.insert(GpuScene::new(
                &self.ctx.gpu,
                parts.color_format,
                DEPTH_FORMAT,
                self.ctx.samples(),
                parts.materials.layout,
                // A slot per view of each frame in flight.
                FRAMES_IN_FLIGHT * crate::render::desc::MAX_VIEWS,
            )?),
        };
        // SAFETY: the device is idle.
        unsafe { scene.set_objects(&self.ctx, count, objects, &parts.bounds) }
    }

    /// GPU culling: makes room for `count` scene objects (more than held;
    /// fewer change nothing), keeping every object: waits for the device,
    /// then copies the records into a larger buffer on the device. The
    /// objects past the old ones draw nothing until
    /// [`Renderer::update_scene_objects`] writes them, so new objects cost
    /// their own records, not an upload of the scene.
    pub fn grow_scene_objects(&mut self, count: usize) -> Result<(), RenderError> {
        let Some(s) = &mut self.parts.gpu_scene else {
            return Err(RenderError::BadObject { index: count as u32, count: 0 });
        };
        self.ctx.wait_idle()?;
        // SAFETY: the device is idle.
        unsafe { s.grow(&self.ctx, count) }
    }

    /// GPU culling: how often the scene objects' buffers were built again
    /// (whole uploads, grown buffers, rebuilt member lists; for tests).
    pub fn gpu_scene_rebuilds(&self) -> GpuSceneRebuilds {
        self.parts.gpu_scene.as_ref().map(GpuScene::rebuilds).unwrap_or_default()
    }

    /// Turns exact small-object culling on or off (on by default): both
    /// scene paths leave out objects whose projected box holds no sample
    /// position of the frame, which draw nothing (`render/cull/small.rs`).
    pub fn set_small_object_culling(&mut self, on: bool) {
        self.parts.small_culling = on;
    }

    /// Makes every later upload copy through staging memory even where the
    /// device-local memory is host-visible and coherent (off by default:
    /// there the data is written in place). A discrete GPU always takes
    /// the staging path; this lets tests on lavapipe or an integrated GPU
    /// cover it too.
    pub fn set_staged_uploads(&mut self, on: bool) {
        self.ctx.staged_uploads = on;
    }

    /// Lets later uploads of Basis Universal images use BC7 (on by
    /// default where the device has `textureCompressionBC`); off, they
    /// take the RGBA8 path that devices without it take, which lets tests
    /// cover it on any device. Turning it on cannot give BC7 to a device
    /// without it.
    pub fn set_block_compressed_textures(&mut self, on: bool) {
        self.ctx.bc_textures = on && self.ctx.bc_supported;
    }

    /// The sample positions a frame's small-object test uses, or `None`
    /// when it is off (turned off, or MSAA without standard locations).
    pub(crate) fn small_cull_positions(&self) -> Option<Vec<[f64; 2]>> {
        let samples = self.ctx.samples().as_raw();
        let positions = crate::render::cull::small::sample_positions(samples, self.ctx.standard_sample_locations);
        positions.filter(|_| self.parts.small_culling)
    }

    /// Whether the device has what GPU culling needs
    /// (`drawIndirectFirstInstance`: each mesh's indirect draws start at its
    /// slice of the visible list). Lavapipe has it.
    pub fn supports_gpu_culling(&self) -> bool {
        self.ctx.indirect_first_instance
    }

    /// The scene path `asked` comes to on this device: [`Culling::Auto`]
    /// culls on the GPU unless the device is a CPU rasteriser; GPU culling
    /// needs [`Renderer::supports_gpu_culling`].
    pub fn culling(&self, asked: Culling) -> CullingChoice {
        choose_culling(asked, self.device_info().device_type, self.supports_gpu_culling())
    }

    /// Whether mesh `mesh` has a blended part. GPU culling leaves such
    /// meshes' objects to [`FrameDesc::objects`](crate::render::desc::FrameDesc::objects),
    /// which the CPU scene pass sorts back to front.
    pub fn mesh_is_blended(&self, mesh: MeshId) -> bool {
        self.parts.blended.get(mesh.0 as usize).copied().unwrap_or(false)
    }

    /// GPU culling: new data for the objects `changed` names (by index);
    /// the next frame copies only these records (and the member slots of
    /// objects new to a mesh). No wait, unless an object moved to another
    /// mesh, or new objects do not fit their mesh's room in the member
    /// list or come before its listed ones: then the member list is rebuilt
    /// (waits for the device). A frame makes the world boxes of up to
    /// 1,024 objects; the records of the others it changes are provisional
    /// (drawn without the frustum test) until
    /// [`Renderer::settle_scene_objects`] makes their boxes in the next
    /// frames.
    pub fn update_scene_objects(&mut self, changed: &[(u32, SceneObject)]) -> Result<(), RenderError> {
        let Some(s) = &mut self.parts.gpu_scene else {
            return Err(RenderError::BadObject { index: changed.first().map_or(0, |c| c.0), count: 0 });
        };
        let remeshed = s.update(changed, &self.parts.bounds)?;
        self.rebuild_members_if(remeshed)
    }

    /// [`Renderer::update_scene_objects`] for the objects `ids` names,
    /// each made by `object(index)` as it is read (no list of them: an
    /// edit of thousands of objects writes each record once). Nothing is
    /// queued, and `object` not called, when an index is past the objects.
    pub fn update_scene_objects_with(
        &mut self,
        ids: &[u32],
        object: impl FnMut(u32) -> SceneObject,
    ) -> Result<(), RenderError> {
        let Some(s) = &mut self.parts.gpu_scene else {
            return Err(RenderError::BadObject { index: ids.first().copied().unwrap_or(0), count: 0 });
        };
        let remeshed = s.update_with(ids, object, &self.parts.bounds)?;
        self.rebuild_members_if(remeshed)
    }

    /// GPU culling: makes the world boxes that earlier frames left to make
    /// (their records provisional, see [`Renderer::update_scene_objects`]),
    /// up to what is left of this frame's budget of 1,024, oldest first,
    /// each object's record made again by `object(index)`. Call it once a
    /// frame, before drawing, with the objects as they are now; nothing
    /// happens when no record is provisional.
    pub fn settle_scene_objects(&mut self, object: impl FnMut(u32) -> SceneObject) -> Result<(), RenderError> {
        let Some(s) = &mut self.parts.gpu_scene else { return Ok(()) };
        let remeshed = s.settle_with(object, &self.parts.bounds)?;
        self.rebuild_members_if(remeshed)
    }

    /// Objects whose records are provisional (GPU culling; none without
    /// it): drawn without the frustum test until their boxes are made
    /// ([`Renderer::settle_scene_objects`]).
    pub fn provisional_scene_objects(&self) -> usize {
        self.parts.gpu_scene.as_ref().map_or(0, |s| s.provisional_objects())
    }

    /// Rebuilds the member list after an update that left it stale (waits
    /// for the device).
    fn rebuild_members_if(&mut self, remeshed: bool) -> Result<(), RenderError> {
        let Some(s) = &mut self.parts.gpu_scene else { return Ok(()) };
        if remeshed {
            self.ctx.wait_idle()?;
            // SAFETY: the device is idle.
            unsafe { s.set_members(&self.ctx, self.parts.bounds.len())? };
        }
        Ok(())
    }

    /// GPU culling: objects hidden (`true`) or shown again (`false`) with
    /// nothing else of them changed: a bit each is set or cleared for the
    /// cull (copied by the next frame), their records kept as they are.
    /// Returns the shown objects whose records must be made whole instead
    /// ([`Renderer::update_scene_objects`]): those whose records draw
    /// nothing (made while they were hidden, or before their mesh was
    /// uploaded).
    pub fn set_scene_objects_shown(&mut self, items: &[(u32, bool)]) -> Result<Vec<u32>, RenderError> {
        let Some(s) = &mut self.parts.gpu_scene else {
            return Err(RenderError::BadObject { index: items.first().map_or(0, |c| c.0), count: 0 });
        };
        s.set_hidden(items)
    }

    /// GPU culling: object `index`'s record as the GPU holds it (waits for
    /// the device; for tests). Updates count once a frame has been drawn.
    pub fn read_scene_object(&self, index: u32) -> Result<GpuObjectRecord, RenderError> {
        match &self.parts.gpu_scene {
            Some(s) => s.read(&self.ctx, index),
            None => Err(RenderError::BadObject { index, count: 0 }),
        }
    }

    /// GPU culling: how many workgroups of the cull's member slots the last
    /// frame's coarse (chunk) pass handed to the per-object test, of how
    /// many (waits for the device; for tests).
    pub fn read_cull_workgroups(&self) -> Result<(u32, u32), RenderError> {
        match &self.parts.gpu_scene {
            Some(s) => s.read_listed(&self.ctx),
            None => Ok((0, 0)),
        }
    }

    /// GPU culling: the objects (indices, ascending) the last frame drew,
    /// read back from its indirect commands and visible list (waits for
    /// the device; for tests).
    pub fn read_drawn_objects(&self) -> Result<Vec<u32>, RenderError> {
        match &self.parts.gpu_scene {
            Some(s) => s.read_drawn(&self.ctx),
            None => Ok(Vec::new()),
        }
    }
}
