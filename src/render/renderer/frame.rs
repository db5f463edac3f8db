//! Per-frame resources: what one frame in flight owns so that the CPU can
//! record frame N+1 while the GPU still works on frame N.

use ash::vk;
use gpu_allocator::MemoryLocation;

use crate::render::device::context::Context;
use crate::render::device::error::{RenderError, VkContext};
use crate::render::device::{command_pool_with_buffer, Destroy, Gpu, GrowBuffer, Guard};

/// One frame in flight: a command pool and buffer, a fence signalled when
/// the GPU finished the frame, the semaphore for the swapchain acquire, and
/// the host-visible buffer of the scene's instances.
pub(crate) struct Frame {
    pub pool: vk::CommandPool,
    pub cmd: vk::CommandBuffer,
    pub done: vk::Fence,
    pub acquired: vk::Semaphore,
    pub instances: GrowBuffer,
}

impl Frame {
    pub fn new(ctx: &Context) -> Result<Frame, RenderError> {
        let d = ctx.device();
        let mut f = Guard::new(
            &ctx.gpu,
            Frame {
                pool: vk::CommandPool::null(),
                cmd: vk::CommandBuffer::null(),
                done: vk::Fence::null(),
                acquired: vk::Semaphore::null(),
                instances: GrowBuffer::new(
                    vk::BufferUsageFlags::VERTEX_BUFFER,
                    MemoryLocation::CpuToGpu,
                    "scene instances",
                ),
            },
        );
        // SAFETY: plain object creation; the guard or `destroy` destroys them.
        unsafe {
            f.cmd = command_pool_with_buffer(ctx, &mut f.pool)?;
            f.done = d
                .create_fence(&vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED), None)
                .vk("vkCreateFence")?;
            f.acquired = d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None).vk("vkCreateSemaphore")?;
        }
        Ok(f.finish())
    }

    /// Waits until the GPU finished this frame's last submission.
    pub fn wait(&self, ctx: &Context) -> Result<(), RenderError> {
        // SAFETY: live fence.
        unsafe { ctx.device().wait_for_fences(&[self.done], true, u64::MAX) }.vk("vkWaitForFences")
    }

    /// Resets the pool and begins the command buffer.
    ///
    /// # Safety
    /// The frame's fence was waited for, so nothing recorded from the pool is pending.
    pub unsafe fn begin(&self, device: &ash::Device) -> Result<vk::CommandBuffer, RenderError> {
        device.reset_command_pool(self.pool, vk::CommandPoolResetFlags::empty()).vk("vkResetCommandPool")?;
        device
            .begin_command_buffer(
                self.cmd,
                &vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )
            .vk("vkBeginCommandBuffer")?;
        Ok(self.cmd)
    }
}

impl Destroy for Frame {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        gpu.device.destroy_semaphore(self.acquired, None);
        gpu.device.destroy_fence(self.done, None);
        // Frees the command buffer with it.
        gpu.device.destroy_command_pool(self.pool, None);
        self.acquired = vk::Semaphore::null();
        self.done = vk::Fence::null();
        self.pool = vk::CommandPool::null();
        self.cmd = vk::CommandBuffer::null();
        self.instances.destroy(gpu);
    }
}
