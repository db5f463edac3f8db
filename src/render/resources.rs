//! Device-level ownership: the [`Gpu`] handle every object is created from,
//! the one pattern for building objects in steps ([`Destroy`] + [`Guard`]),
//! and the memory-backed objects: [`Buffer`], [`Image`], [`GrowBuffer`].
//!
//! # Ownership pattern
//! Every type that owns Vulkan objects created from a device implements
//! [`Destroy`]; its `destroy` is the single place those objects are
//! destroyed. Such a type starts out with null handles (destroying a null
//! handle is a no-op in Vulkan) and is filled in step by step inside a
//! [`Guard`]: if a step fails, the guard's drop destroys whatever was
//! created so far; on success [`Guard::finish`] hands the value over to its
//! owner. Owners call `destroy` from their own teardown after the GPU is
//! done with the objects. Only the roots (instance and device, in
//! [`super::Context`]) are destroyed in `Drop`.

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator};
use gpu_allocator::MemoryLocation;

use super::context::Context;
use super::error::{RenderError, VkContext};

/// A logical device and the allocator for its memory: what every
/// device-level object is created from and destroyed with. The device may
/// be ours ([`Context`]) or an embedding engine's.
#[derive(Clone)]
pub(crate) struct Gpu {
    pub device: ash::Device,
    pub allocator: Arc<Mutex<Allocator>>,
}

impl Gpu {
    /// The allocator, recovering it if a panic poisoned the lock.
    pub fn allocator(&self) -> MutexGuard<'_, Allocator> {
        self.allocator.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A value owning device-level Vulkan objects.
pub(crate) trait Destroy {
    /// Destroys every object the value owns and leaves null handles behind,
    /// so calling it again does nothing.
    ///
    /// # Safety
    /// The objects were created from `gpu`, and the GPU has finished every
    /// command that uses them.
    unsafe fn destroy(&mut self, gpu: &Gpu);
}

impl<T: Destroy> Destroy for Option<T> {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        if let Some(mut v) = self.take() {
            v.destroy(gpu);
        }
    }
}

impl<T: Destroy> Destroy for Vec<T> {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        for mut v in self.drain(..).rev() {
            v.destroy(gpu);
        }
    }
}

/// Holds a value under construction; destroys it on drop unless
/// [`Guard::finish`] took it out.
pub(crate) struct Guard<'a, T: Destroy> {
    gpu: &'a Gpu,
    value: Option<T>,
}

impl<'a, T: Destroy> Guard<'a, T> {
    pub fn new(gpu: &'a Gpu, value: T) -> Guard<'a, T> {
        Guard { gpu, value: Some(value) }
    }

    /// The finished value; the guard no longer destroys it.
    pub fn finish(mut self) -> T {
        self.value.take().expect("a guard holds its value until finished")
    }
}

impl<T: Destroy> Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value.as_ref().expect("a guard holds its value until finished")
    }
}

impl<T: Destroy> DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value.as_mut().expect("a guard holds its value until finished")
    }
}

impl<T: Destroy> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        if let Some(mut v) = self.value.take() {
            // SAFETY: a value under construction has not been used by any
            // submitted command, and was built from `self.gpu`.
            unsafe { v.destroy(self.gpu) };
        }
    }
}

/// A buffer with its own allocation.
pub(crate) struct Buffer {
    pub raw: vk::Buffer,
    pub size: u64,
    alloc: Option<Allocation>,
}

impl Buffer {
    /// A buffer that owns nothing yet (to be filled in under a [`Guard`]).
    pub const fn null() -> Buffer {
        Buffer { raw: vk::Buffer::null(), size: 0, alloc: None }
    }

    pub fn new(
        gpu: &Gpu,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
        name: &str,
    ) -> Result<Buffer, RenderError> {
        let mut b = Guard::new(gpu, Buffer { raw: vk::Buffer::null(), size, alloc: None });
        let info =
            vk::BufferCreateInfo::default().size(size.max(4)).usage(usage).sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info; the guard or the owner destroys the buffer.
        b.raw = unsafe { gpu.device.create_buffer(&info, None) }.vk("vkCreateBuffer")?;
        // SAFETY: `b.raw` is a live buffer of this device.
        let requirements = unsafe { gpu.device.get_buffer_memory_requirements(b.raw) };
        let alloc = gpu.allocator().allocate(&AllocationCreateDesc {
            name,
            requirements,
            location,
            linear: true,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        })?;
        // SAFETY: the memory stays allocated while the buffer is bound to it.
        let (memory, offset) = (unsafe { alloc.memory() }, alloc.offset());
        b.alloc = Some(alloc);
        // SAFETY: the memory was allocated for these requirements.
        unsafe { gpu.device.bind_buffer_memory(b.raw, memory, offset) }.vk("vkBindBufferMemory")?;
        Ok(b.finish())
    }

    /// A host-visible buffer holding `bytes` (read by the GPU in place).
    pub fn with_data(
        gpu: &Gpu,
        bytes: &[u8],
        usage: vk::BufferUsageFlags,
        name: &'static str,
    ) -> Result<Buffer, RenderError> {
        let mut b = Guard::new(gpu, Buffer::new(gpu, bytes.len() as u64, usage, MemoryLocation::CpuToGpu, name)?);
        b.write(0, bytes, name)?;
        Ok(b.finish())
    }

    /// The host-visible bytes (None for device-only memory).
    pub fn mapped(&mut self) -> Option<&mut [u8]> {
        self.alloc.as_mut().and_then(|a| a.mapped_slice_mut())
    }

    pub fn mapped_ref(&self) -> Option<&[u8]> {
        self.alloc.as_ref().and_then(|a| a.mapped_slice())
    }

    /// Copies `bytes` to `offset` of the mapped memory.
    pub fn write(&mut self, offset: usize, bytes: &[u8], name: &'static str) -> Result<(), RenderError> {
        let dst = self.mapped().ok_or(RenderError::NotHostVisible(name))?;
        dst[offset..offset + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }
}

impl Destroy for Buffer {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        gpu.device.destroy_buffer(self.raw, None);
        self.raw = vk::Buffer::null();
        if let Some(a) = self.alloc.take() {
            // Freeing only fails for an allocation of another allocator.
            let _ = gpu.allocator().free(a);
        }
    }
}

/// A host-visible buffer that is replaced by a bigger one when a frame
/// needs more room (instances, read-backs of a resized window). Sizes grow
/// to the next power of two, at least 64 KiB, so growth is rare.
pub(crate) struct GrowBuffer {
    buffer: Option<Buffer>,
    usage: vk::BufferUsageFlags,
    location: MemoryLocation,
    name: &'static str,
}

impl GrowBuffer {
    pub const fn new(usage: vk::BufferUsageFlags, location: MemoryLocation, name: &'static str) -> GrowBuffer {
        GrowBuffer { buffer: None, usage, location, name }
    }

    /// Whether [`GrowBuffer::reserve`] of `bytes` would replace the buffer.
    pub fn must_grow(&self, bytes: u64) -> bool {
        self.buffer.as_ref().is_none_or(|b| b.size < bytes)
    }

    /// A buffer of at least `bytes`, replacing the current one if it is too small.
    ///
    /// # Safety
    /// When [`GrowBuffer::must_grow`] is true, the GPU no longer uses the
    /// current buffer.
    pub unsafe fn reserve(&mut self, gpu: &Gpu, bytes: u64) -> Result<&mut Buffer, RenderError> {
        if self.must_grow(bytes) {
            self.buffer.destroy(gpu);
            let size = bytes.next_power_of_two().max(64 * 1024);
            self.buffer = Some(Buffer::new(gpu, size, self.usage, self.location, self.name)?);
        }
        Ok(self.buffer.as_mut().expect("reserved above"))
    }

    /// The current buffer, if one was reserved.
    pub fn get(&self) -> Option<&Buffer> {
        self.buffer.as_ref()
    }

    /// The first `len` bytes of the mapped memory.
    pub fn host_bytes(&self, len: usize) -> Result<&[u8], RenderError> {
        self.get().and_then(Buffer::mapped_ref).and_then(|b| b.get(..len)).ok_or(RenderError::NotHostVisible(self.name))
    }
}

impl Destroy for GrowBuffer {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.buffer.destroy(gpu);
    }
}

/// A 2-D image with one view and its own device-local allocation.
pub(crate) struct Image {
    pub raw: vk::Image,
    pub view: vk::ImageView,
    pub extent: vk::Extent2D,
    pub(super) alloc: Option<Allocation>,
}

impl Image {
    /// An image that owns nothing yet (to be filled in under a [`Guard`]).
    pub const fn null() -> Image {
        Image {
            raw: vk::Image::null(),
            view: vk::ImageView::null(),
            extent: vk::Extent2D { width: 0, height: 0 },
            alloc: None,
        }
    }

    pub fn new(
        gpu: &Gpu,
        extent: vk::Extent2D,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        aspect: vk::ImageAspectFlags,
        name: &str,
    ) -> Result<Image, RenderError> {
        Image::with_samples(gpu, extent, format, usage, aspect, vk::SampleCountFlags::TYPE_1, name)
    }

    /// As [`Image::new`], with `samples` samples per pixel.
    pub fn with_samples(
        gpu: &Gpu,
        extent: vk::Extent2D,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        aspect: vk::ImageAspectFlags,
        samples: vk::SampleCountFlags,
        name: &str,
    ) -> Result<Image, RenderError> {
        let mut image =
            Guard::new(gpu, Image { raw: vk::Image::null(), view: vk::ImageView::null(), extent, alloc: None });
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D { width: extent.width, height: extent.height, depth: 1 })
            .mip_levels(1)
            .array_layers(1)
            .samples(samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let image_ref = &mut *image;
        create_image_memory(gpu, &info, name, &mut image_ref.raw, &mut image_ref.alloc)?;
        image.view = create_view(&gpu.device, image.raw, format, aspect)?;
        Ok(image.finish())
    }
}

/// Creates the image `info` describes into `raw` and binds fresh
/// device-local memory to it (kept in `alloc`). What was made is already in
/// the slots when a step fails, so the guard of the object they belong to
/// destroys it: textures and render targets share this.
pub(super) fn create_image_memory(
    gpu: &Gpu,
    info: &vk::ImageCreateInfo,
    name: &str,
    raw: &mut vk::Image,
    alloc: &mut Option<Allocation>,
) -> Result<(), RenderError> {
    // SAFETY: valid create info; the caller's guard or owner destroys the image.
    *raw = unsafe { gpu.device.create_image(info, None) }.vk("vkCreateImage")?;
    // SAFETY: `raw` is a live image of this device.
    let requirements = unsafe { gpu.device.get_image_memory_requirements(*raw) };
    let a = gpu.allocator().allocate(&AllocationCreateDesc {
        name,
        requirements,
        location: MemoryLocation::GpuOnly,
        linear: false,
        allocation_scheme: AllocationScheme::GpuAllocatorManaged,
    })?;
    // SAFETY: the memory stays allocated while the image is bound to it.
    let (memory, offset) = (unsafe { a.memory() }, a.offset());
    *alloc = Some(a);
    // SAFETY: the memory was allocated for these requirements.
    unsafe { gpu.device.bind_image_memory(*raw, memory, offset) }.vk("vkBindImageMemory")?;
    Ok(())
}

impl Destroy for Image {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        gpu.device.destroy_image_view(self.view, None);
        gpu.device.destroy_image(self.raw, None);
        self.view = vk::ImageView::null();
        self.raw = vk::Image::null();
        if let Some(a) = self.alloc.take() {
            let _ = gpu.allocator().free(a);
        }
    }
}

/// A 2-D view of the whole of `image`.
pub(crate) fn create_view(
    device: &ash::Device,
    image: vk::Image,
    format: vk::Format,
    aspect: vk::ImageAspectFlags,
) -> Result<vk::ImageView, RenderError> {
    let info = vk::ImageViewCreateInfo::default()
        .image(image)
        .view_type(vk::ImageViewType::TYPE_2D)
        .format(format)
        .subresource_range(subresource(aspect));
    // SAFETY: `image` is alive and has this format.
    unsafe { device.create_image_view(&info, None) }.vk("vkCreateImageView")
}

/// The single mip level and array layer of `aspect`.
pub(crate) fn subresource(aspect: vk::ImageAspectFlags) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: aspect,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// A transient command pool with one primary command buffer (uploads).
struct OneShot {
    pool: vk::CommandPool,
    fence: vk::Fence,
}

impl Destroy for OneShot {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        gpu.device.destroy_fence(self.fence, None);
        gpu.device.destroy_command_pool(self.pool, None);
        self.fence = vk::Fence::null();
        self.pool = vk::CommandPool::null();
    }
}

/// Creates a transient command pool on the queue family and allocates one
/// primary command buffer from it. The pool is written to `pool` as soon as
/// it exists, so the caller's guard destroys it if the allocation fails.
///
/// # Safety
/// `pool` must be null or owned by the caller's guard, which destroys it.
pub(crate) unsafe fn command_pool_with_buffer(
    ctx: &Context,
    pool: &mut vk::CommandPool,
) -> Result<vk::CommandBuffer, RenderError> {
    let d = ctx.device();
    let info = vk::CommandPoolCreateInfo::default()
        .queue_family_index(ctx.queue_family)
        .flags(vk::CommandPoolCreateFlags::TRANSIENT);
    // SAFETY: plain object creation; the caller's guard owns the pool.
    unsafe {
        *pool = d.create_command_pool(&info, None).vk("vkCreateCommandPool")?;
        Ok(d.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default().command_pool(*pool).command_buffer_count(1),
        )
        .vk("vkAllocateCommandBuffers")?[0])
    }
}

/// A descriptor-set layout of `bindings`, a pool sized by `sizes` for
/// `frames` sets, and one set per frame in flight. Each handle is written
/// out as soon as it exists, so the caller's guard destroys what was made.
///
/// # Safety
/// `layout` and `pool` must be null or owned by the caller's guard.
pub(crate) unsafe fn per_frame_sets(
    d: &ash::Device,
    bindings: &[vk::DescriptorSetLayoutBinding<'_>],
    sizes: &[vk::DescriptorPoolSize],
    frames: usize,
    layout: &mut vk::DescriptorSetLayout,
    pool: &mut vk::DescriptorPool,
) -> Result<Vec<vk::DescriptorSet>, RenderError> {
    // SAFETY: plain object creation; the caller's guard owns the results.
    unsafe {
        *layout = d
            .create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings), None)
            .vk("vkCreateDescriptorSetLayout")?;
        *pool = d
            .create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default().max_sets(frames as u32).pool_sizes(sizes),
                None,
            )
            .vk("vkCreateDescriptorPool")?;
        let layouts = vec![*layout; frames];
        d.allocate_descriptor_sets(
            &vk::DescriptorSetAllocateInfo::default().descriptor_pool(*pool).set_layouts(&layouts),
        )
        .vk("vkAllocateDescriptorSets")
    }
}

/// A sampler that reads texels as they are: nearest, clamped to the edge
/// (depth and object-id images are fetched, never filtered).
pub(crate) fn nearest_clamp_sampler() -> vk::SamplerCreateInfo<'static> {
    vk::SamplerCreateInfo::default()
        .mag_filter(vk::Filter::NEAREST)
        .min_filter(vk::Filter::NEAREST)
        .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
}

/// Records, submits and waits for a one-off command buffer (uploads).
pub(crate) fn one_shot(ctx: &Context, record: impl FnOnce(vk::CommandBuffer)) -> Result<(), RenderError> {
    let d = ctx.device();
    // Destroyed by the guard on every path, after the fence wait.
    let mut o = Guard::new(&ctx.gpu, OneShot { pool: vk::CommandPool::null(), fence: vk::Fence::null() });
    // SAFETY: objects created here are used only here and destroyed by the
    // guard once the submit was waited for (or never happened).
    unsafe {
        o.fence = d.create_fence(&vk::FenceCreateInfo::default(), None).vk("vkCreateFence")?;
        let cb = command_pool_with_buffer(ctx, &mut o.pool)?;
        d.begin_command_buffer(
            cb,
            &vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
        )
        .vk("vkBeginCommandBuffer")?;
        record(cb);
        d.end_command_buffer(cb).vk("vkEndCommandBuffer")?;
        let cbs = [vk::CommandBufferSubmitInfo::default().command_buffer(cb)];
        let submit = [vk::SubmitInfo2::default().command_buffer_infos(&cbs)];
        d.queue_submit2(ctx.queue, &submit, o.fence).vk("vkQueueSubmit2")?;
        let waited = d.wait_for_fences(&[o.fence], true, u64::MAX).vk("vkWaitForFences");
        if waited.is_err() {
            // The command buffer may still be pending: wait for the whole
            // device before the guard destroys the pool.
            let _ = d.device_wait_idle();
        }
        waited
    }
}

/// Creates a device-local buffer holding `bytes`, copied through a staging buffer.
pub(crate) fn upload_buffer(
    ctx: &Context,
    bytes: &[u8],
    usage: vk::BufferUsageFlags,
    name: &str,
) -> Result<Buffer, RenderError> {
    upload_buffer_with(ctx, bytes.len(), 1, usage, name, |at, dst| dst.copy_from_slice(&bytes[at..at + dst.len()]))
}

/// Staging memory an upload uses at most at a time.
const STAGING_BYTES: usize = 8 << 20;

/// [`upload_buffer`] of `size` bytes that `fill` writes straight into
/// mapped staging memory, in pieces of at most [`STAGING_BYTES`] (whole
/// multiples of `unit` bytes): `fill(offset, piece)` writes bytes
/// `offset..offset + piece.len()`, in order. No copy of the data is kept on
/// the heap, and at most one piece of staging memory exists at a time.
/// Where the device-local memory is host-visible and coherent (unified
/// memory: integrated GPUs, CPU rasterisers such as lavapipe, where the
/// copy would be a second pass over the same host memory), `fill` writes
/// the buffer itself, in the same pieces, and nothing is copied: the
/// submits that later read it make the host writes visible.
pub(crate) fn upload_buffer_with(
    ctx: &Context,
    size: usize,
    unit: usize,
    usage: vk::BufferUsageFlags,
    name: &str,
    mut fill: impl FnMut(usize, &mut [u8]),
) -> Result<Buffer, RenderError> {
    let gpu = &ctx.gpu;
    let unit = unit.max(1);
    let piece = (STAGING_BYTES / unit).max(1) * unit;
    let mut buffer = Guard::new(
        gpu,
        Buffer::new(gpu, size as u64, usage | vk::BufferUsageFlags::TRANSFER_DST, MemoryLocation::GpuOnly, name)?,
    );
    let coherent = !ctx.staged_uploads
        && buffer.alloc.as_ref().is_some_and(|a| {
            let flags = a.memory_properties();
            flags.contains(vk::MemoryPropertyFlags::HOST_COHERENT) && a.mapped_ptr().is_some()
        });
    if coherent {
        if let Some(dst) = buffer.mapped() {
            for (k, chunk) in dst[..size].chunks_mut(piece).enumerate() {
                fill(k * piece, chunk);
            }
            if size == 0 {
                fill(0, &mut []);
            }
            return Ok(buffer.finish());
        }
    }
    let mut staging = Guard::new(
        gpu,
        Buffer::new(
            gpu,
            piece.min(size) as u64,
            vk::BufferUsageFlags::TRANSFER_SRC,
            MemoryLocation::CpuToGpu,
            "staging",
        )?,
    );
    let mut offset = 0;
    // At least one copy (`loop`), so that an empty buffer is defined too.
    loop {
        let len = piece.min(size - offset);
        fill(offset, &mut staging.mapped().ok_or(RenderError::NotHostVisible("staging"))?[..len]);
        let (src, dst) = (staging.raw, buffer.raw);
        one_shot(ctx, |cb| {
            // SAFETY: both buffers are alive until the one-shot submit was
            // waited for, which is also when the staging piece is free again.
            unsafe {
                ctx.device().cmd_copy_buffer(
                    cb,
                    src,
                    dst,
                    &[vk::BufferCopy { src_offset: 0, dst_offset: offset as u64, size: (len as u64).max(4) }],
                );
                // Make the copy visible to every later read of the buffer.
                let barrier = [vk::MemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::COPY)
                    .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                    .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                    .dst_access_mask(vk::AccessFlags2::MEMORY_READ)];
                ctx.device().cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&barrier));
            }
        })?;
        offset += len;
        if offset >= size {
            break;
        }
    }
    drop(staging);
    Ok(buffer.finish())
}
