//! Copies of a finished frame's images into host-visible buffers (the
//! recording side of read-backs), the probe of small rectangles of depth
//! and ids, and decoding colour bytes on the host.
//!
//! Colour copies (off-screen frames, window screenshots) are recorded after
//! the frame's last pass, outside a rendering scope, and end with a memory
//! barrier to `HOST` so that the bytes are visible once the frame's fence
//! signalled. Ids and depth are not copied by frames: every frame leaves its
//! scene depth and ID images in `TRANSFER_SRC_OPTIMAL`, and [`Probe`] copies
//! just the rectangle asked for in a small submit of its own.

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::render::device::barrier::{self, Transition};
use crate::render::device::context::Context;
use crate::render::device::error::{RenderError, VkContext};
use crate::render::device::{command_pool_with_buffer, Destroy, Gpu, GrowBuffer, Guard};
use crate::render::renderer::target::{Depths, Offscreen};

/// A copy region of one aspect: `width` x `height` texels from (`x`, `y`),
/// tightly packed in the buffer from `offset`.
fn copy_region(
    aspect: vk::ImageAspectFlags,
    offset: u64,
    x: u32,
    y: u32,
    width: u32,
    height: u32,
) -> vk::BufferImageCopy {
    vk::BufferImageCopy {
        buffer_offset: offset,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask: aspect,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        },
        image_offset: vk::Offset3D { x: x as i32, y: y as i32, z: 0 },
        image_extent: vk::Extent3D { width, height, depth: 1 },
    }
}

/// A whole-image copy region of one aspect.
fn full_copy(aspect: vk::ImageAspectFlags, e: vk::Extent2D) -> vk::BufferImageCopy {
    copy_region(aspect, 0, 0, 0, e.width, e.height)
}

/// Ends an off-screen frame: the colour is copied into its read-back
/// buffer; scene depth and ids become copy sources for region read-backs.
///
/// # Safety
/// `cmd` is recording outside a rendering scope; the colour image is in
/// `COLOR_ATTACHMENT_OPTIMAL`, the scene depth in `DEPTH_READ_ONLY_OPTIMAL`
/// and the ids in `SHADER_READ_ONLY_OPTIMAL`.
pub(crate) unsafe fn record_offscreen(d: &ash::Device, cmd: vk::CommandBuffer, o: &Offscreen, depths: &Depths) {
    let e = o.extent();
    barrier::record(
        d,
        cmd,
        &[
            (Transition::ColorToCopy, o.color.raw),
            (Transition::SceneDepthToCopy, depths.scene.raw),
            (Transition::IdsToCopy, depths.ids.raw),
        ],
        &[],
    );
    let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
    d.cmd_copy_image_to_buffer(cmd, o.color.raw, src, o.readback.raw, &[full_copy(vk::ImageAspectFlags::COLOR, e)]);
    barrier::record(d, cmd, &[], &[barrier::copies_to_host()]);
}

/// Ends a window frame: the colour is handed to presentation; scene depth
/// and ids become copy sources for region read-backs.
///
/// # Safety
/// As [`record_offscreen`], with `color` a swapchain image.
pub(crate) unsafe fn record_window_end(d: &ash::Device, cmd: vk::CommandBuffer, color: vk::Image, depths: &Depths) {
    barrier::record(
        d,
        cmd,
        &[
            (Transition::ColorToPresent, color),
            (Transition::SceneDepthToCopy, depths.scene.raw),
            (Transition::IdsToCopy, depths.ids.raw),
        ],
        &[],
    );
}

/// Copies a presentable swapchain image into `buffer` and hands it back for
/// presentation.
///
/// # Safety
/// `cmd` is recording outside a rendering scope; the image is in
/// `PRESENT_SRC_KHR`; `buffer` holds the whole image.
pub(crate) unsafe fn record_capture(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    image: vk::Image,
    buffer: vk::Buffer,
    e: vk::Extent2D,
) {
    barrier::record(d, cmd, &[(Transition::PresentToCopy, image)], &[]);
    let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
    d.cmd_copy_image_to_buffer(cmd, image, src, buffer, &[full_copy(vk::ImageAspectFlags::COLOR, e)]);
    barrier::record(d, cmd, &[(Transition::CopyToPresent, image)], &[barrier::copies_to_host()]);
}

/// RGBA bytes of a captured swapchain image of `format`: BGRA is swizzled,
/// and alpha is forced opaque (presentation ignores it).
pub(crate) fn to_rgba(mut data: Vec<u8>, format: vk::Format) -> Vec<u8> {
    let bgra = matches!(format, vk::Format::B8G8R8A8_SRGB | vk::Format::B8G8R8A8_UNORM);
    for px in data.chunks_exact_mut(4) {
        if bgra {
            px.swap(0, 2);
        }
        px[3] = 255;
    }
    data
}

/// Region read-backs of the ids and scene depth left by the last frame: a
/// command buffer and fence of their own and a grow-on-demand host buffer
/// (ids first, then depth, each tightly packed).
pub(crate) struct Probe {
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    buffer: GrowBuffer,
}

impl Probe {
    pub fn new(ctx: &Context) -> Result<Probe, RenderError> {
        let d = ctx.device();
        let mut p = Guard::new(
            &ctx.gpu,
            Probe {
                pool: vk::CommandPool::null(),
                cmd: vk::CommandBuffer::null(),
                fence: vk::Fence::null(),
                buffer: GrowBuffer::new(
                    vk::BufferUsageFlags::TRANSFER_DST,
                    MemoryLocation::GpuToCpu,
                    "region read-back",
                ),
            },
        );
        // SAFETY: plain object creation; the guard or `destroy` destroys them.
        unsafe {
            p.cmd = command_pool_with_buffer(ctx, &mut p.pool)?;
            p.fence = d.create_fence(&vk::FenceCreateInfo::default(), None).vk("vkCreateFence")?;
        }
        Ok(p.finish())
    }

    /// Copies `width` x `height` texels from (`x`, `y`) of the ids and the
    /// scene depth, waits for the copy, and returns them (rows top to bottom).
    /// The rectangle lies inside the images and is not empty.
    ///
    /// # Safety
    /// Both images are alive and in `TRANSFER_SRC_OPTIMAL` for every command
    /// submitted before this one up to the next frame's first barrier (whose
    /// source stages include copies); no submit of this probe is pending.
    pub unsafe fn read(
        &mut self,
        ctx: &Context,
        depths: &Depths,
        (x, y, width, height): (u32, u32, u32, u32),
    ) -> Result<(Vec<u32>, Vec<f32>), RenderError> {
        let n = width as u64 * height as u64;
        let bytes = n * 8;
        // No submit of ours is pending (each one is waited for below).
        let buffer = self.buffer.reserve(&ctx.gpu, bytes)?.raw;
        let d = ctx.device();
        d.reset_command_pool(self.pool, vk::CommandPoolResetFlags::empty()).vk("vkResetCommandPool")?;
        d.begin_command_buffer(
            self.cmd,
            &vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
        )
        .vk("vkBeginCommandBuffer")?;
        // The previous region copy wrote the same buffer.
        barrier::record(d, self.cmd, &[], &[barrier::copy_after_copy()]);
        let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
        let ids = copy_region(vk::ImageAspectFlags::COLOR, 0, x, y, width, height);
        let depth = copy_region(vk::ImageAspectFlags::DEPTH, n * 4, x, y, width, height);
        d.cmd_copy_image_to_buffer(self.cmd, depths.ids.raw, src, buffer, &[ids]);
        d.cmd_copy_image_to_buffer(self.cmd, depths.scene.raw, src, buffer, &[depth]);
        barrier::record(d, self.cmd, &[], &[barrier::copies_to_host()]);
        d.end_command_buffer(self.cmd).vk("vkEndCommandBuffer")?;
        let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(self.cmd)];
        let submit = [vk::SubmitInfo2::default().command_buffer_infos(&cmds)];
        d.reset_fences(&[self.fence]).vk("vkResetFences")?;
        d.queue_submit2(ctx.queue, &submit, self.fence).vk("vkQueueSubmit2")?;
        let waited = d.wait_for_fences(&[self.fence], true, u64::MAX).vk("vkWaitForFences");
        if waited.is_err() {
            // The copy may still be pending: never leave it running into a
            // later reuse or destruction of the buffer.
            let _ = d.device_wait_idle();
        }
        waited?;
        let host = self.buffer.host_bytes(bytes as usize)?;
        let (id_bytes, depth_bytes) = host.split_at(n as usize * 4);
        let ids = id_bytes.chunks_exact(4).map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect();
        let depth = depth_bytes.chunks_exact(4).map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect();
        Ok((ids, depth))
    }
}

impl Destroy for Probe {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.buffer.destroy(gpu);
        gpu.device.destroy_fence(self.fence, None);
        // Frees the command buffer with it.
        gpu.device.destroy_command_pool(self.pool, None);
        self.fence = vk::Fence::null();
        self.pool = vk::CommandPool::null();
        self.cmd = vk::CommandBuffer::null();
    }
}
