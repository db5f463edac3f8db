//! One-off command buffers and uploads through staging memory.

use ash::vk;
use gpu_allocator::MemoryLocation;

use super::context::Context;
use super::error::{RenderError, VkContext};
use super::memory::Buffer;
use super::owner::{Destroy, Gpu, Guard};

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
