//! Buffers and images backed by gpu-allocator.
//!
//! These are plain handles with an explicit `destroy`: their owner (a target,
//! the mesh store, a frame) calls it from its own teardown while the
//! [`Context`] is still alive.

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use super::context::Context;
use super::error::{RenderError, VkContext};

pub(crate) struct Buffer {
    pub raw: vk::Buffer,
    pub size: u64,
    alloc: Option<Allocation>,
}

impl Buffer {
    pub fn new(
        ctx: &Context,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
        name: &str,
    ) -> Result<Buffer, RenderError> {
        let info =
            vk::BufferCreateInfo::default().size(size.max(4)).usage(usage).sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info; the buffer is destroyed in `destroy`.
        let raw = unsafe { ctx.device.create_buffer(&info, None) }.vk("vkCreateBuffer")?;
        let requirements = unsafe { ctx.device.get_buffer_memory_requirements(raw) };
        let alloc = ctx.allocator().allocate(&AllocationCreateDesc {
            name,
            requirements,
            location,
            linear: true,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        });
        let alloc = match alloc {
            Ok(a) => a,
            Err(e) => {
                unsafe { ctx.device.destroy_buffer(raw, None) };
                return Err(e.into());
            }
        };
        // SAFETY: memory comes from a compatible type with the right size.
        if let Err(e) = unsafe { ctx.device.bind_buffer_memory(raw, alloc.memory(), alloc.offset()) } {
            let _ = ctx.allocator().free(alloc);
            unsafe { ctx.device.destroy_buffer(raw, None) };
            return Err(RenderError::Vk { call: "vkBindBufferMemory", result: e });
        }
        Ok(Buffer { raw, size, alloc: Some(alloc) })
    }

    /// The host-visible bytes (None for device-only memory).
    pub fn mapped(&mut self) -> Option<&mut [u8]> {
        self.alloc.as_mut().and_then(|a| a.mapped_slice_mut())
    }

    pub fn mapped_ref(&self) -> Option<&[u8]> {
        self.alloc.as_ref().and_then(|a| a.mapped_slice())
    }

    pub fn destroy(&mut self, ctx: &Context) {
        if let Some(a) = self.alloc.take() {
            let _ = ctx.allocator().free(a);
            // SAFETY: the owner guarantees the GPU no longer uses the buffer.
            unsafe { ctx.device.destroy_buffer(self.raw, None) };
        }
    }
}

pub(crate) struct Image {
    pub raw: vk::Image,
    pub view: vk::ImageView,
    pub extent: vk::Extent2D,
    alloc: Option<Allocation>,
}

impl Image {
    pub fn new(
        ctx: &Context,
        extent: vk::Extent2D,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        aspect: vk::ImageAspectFlags,
        name: &str,
    ) -> Result<Image, RenderError> {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D { width: extent.width, height: extent.height, depth: 1 })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid create info; destroyed in `destroy`.
        let raw = unsafe { ctx.device.create_image(&info, None) }.vk("vkCreateImage")?;
        let requirements = unsafe { ctx.device.get_image_memory_requirements(raw) };
        let alloc = match ctx.allocator().allocate(&AllocationCreateDesc {
            name,
            requirements,
            location: MemoryLocation::GpuOnly,
            linear: false,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        }) {
            Ok(a) => a,
            Err(e) => {
                unsafe { ctx.device.destroy_image(raw, None) };
                return Err(e.into());
            }
        };
        let mut image = Image { raw, view: vk::ImageView::null(), extent, alloc: None };
        // SAFETY: freshly allocated, compatible memory.
        if let Err(e) = unsafe { ctx.device.bind_image_memory(raw, alloc.memory(), alloc.offset()) } {
            let _ = ctx.allocator().free(alloc);
            unsafe { ctx.device.destroy_image(raw, None) };
            return Err(RenderError::Vk { call: "vkBindImageMemory", result: e });
        }
        image.alloc = Some(alloc);
        match create_view(ctx, raw, format, aspect) {
            Ok(v) => image.view = v,
            Err(e) => {
                image.destroy(ctx);
                return Err(e);
            }
        }
        Ok(image)
    }

    pub fn destroy(&mut self, ctx: &Context) {
        // SAFETY: the owner guarantees the GPU no longer uses the image.
        unsafe {
            if self.view != vk::ImageView::null() {
                ctx.device.destroy_image_view(self.view, None);
                self.view = vk::ImageView::null();
            }
            if let Some(a) = self.alloc.take() {
                let _ = ctx.allocator().free(a);
                ctx.device.destroy_image(self.raw, None);
            }
        }
    }
}

pub(crate) fn create_view(
    ctx: &Context,
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
    unsafe { ctx.device.create_image_view(&info, None) }.vk("vkCreateImageView")
}

pub(crate) fn subresource(aspect: vk::ImageAspectFlags) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: aspect,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    }
}

/// Records, submits and waits for a one-off command buffer (uploads).
pub(crate) fn one_shot(ctx: &Context, record: impl FnOnce(vk::CommandBuffer)) -> Result<(), RenderError> {
    let pool_info = vk::CommandPoolCreateInfo::default()
        .queue_family_index(ctx.queue_family)
        .flags(vk::CommandPoolCreateFlags::TRANSIENT);
    // SAFETY: pool, buffer and fence are created, used and destroyed here.
    unsafe {
        let pool = ctx.device.create_command_pool(&pool_info, None).vk("vkCreateCommandPool")?;
        let result = (|| {
            let cb = ctx
                .device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default().command_pool(pool).command_buffer_count(1),
                )
                .vk("vkAllocateCommandBuffers")?[0];
            ctx.device
                .begin_command_buffer(
                    cb,
                    &vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .vk("vkBeginCommandBuffer")?;
            record(cb);
            ctx.device.end_command_buffer(cb).vk("vkEndCommandBuffer")?;
            let fence = ctx.device.create_fence(&vk::FenceCreateInfo::default(), None).vk("vkCreateFence")?;
            let cbs = [vk::CommandBufferSubmitInfo::default().command_buffer(cb)];
            let submit = [vk::SubmitInfo2::default().command_buffer_infos(&cbs)];
            let r = ctx.device.queue_submit2(ctx.queue, &submit, fence).vk("vkQueueSubmit2");
            let r = r.and_then(|_| ctx.device.wait_for_fences(&[fence], true, u64::MAX).vk("vkWaitForFences"));
            ctx.device.destroy_fence(fence, None);
            r
        })();
        ctx.device.destroy_command_pool(pool, None);
        result
    }
}

/// Creates a device-local buffer holding `bytes`, copied through a staging buffer.
pub(crate) fn upload_buffer(
    ctx: &Context,
    bytes: &[u8],
    usage: vk::BufferUsageFlags,
    name: &str,
) -> Result<Buffer, RenderError> {
    let size = bytes.len() as u64;
    let mut staging = Buffer::new(ctx, size, vk::BufferUsageFlags::TRANSFER_SRC, MemoryLocation::CpuToGpu, "staging")?;
    let result = (|| {
        let dst = staging.mapped().ok_or_else(|| RenderError::Other("staging buffer is not host-visible".into()))?;
        dst[..bytes.len()].copy_from_slice(bytes);
        let mut buffer =
            Buffer::new(ctx, size, usage | vk::BufferUsageFlags::TRANSFER_DST, MemoryLocation::GpuOnly, name)?;
        let (src, dst_raw) = (staging.raw, buffer.raw);
        if let Err(e) = one_shot(ctx, |cb| unsafe {
            ctx.device.cmd_copy_buffer(
                cb,
                src,
                dst_raw,
                &[vk::BufferCopy { src_offset: 0, dst_offset: 0, size: size.max(4) }],
            );
            // Make the copy visible to every later read of the buffer.
            let barrier = [vk::MemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::COPY)
                .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                .dst_access_mask(vk::AccessFlags2::MEMORY_READ)];
            ctx.device.cmd_pipeline_barrier2(cb, &vk::DependencyInfo::default().memory_barriers(&barrier));
        }) {
            buffer.destroy(ctx);
            return Err(e);
        }
        Ok(buffer)
    })();
    staging.destroy(ctx);
    result
}
