//! The UI pass: egui's tessellated meshes over the finished frame, drawn by
//! the `egui-ash-renderer` crate inside a colour-only dynamic-rendering
//! scope (after the overlay and the selection rectangle), in the window
//! and off-screen alike, so screenshots show the UI.
//!
//! The crate owns its pipeline, font texture and per-frame vertex buffers
//! (memory from plain `vkAllocateMemory`, not our gpu-allocator, so the
//! project's allocator version is not tied to the crate's) and destroys them
//! when [`UiPass`] drops (its upload command pool has one destroy site of
//! its own, `UploadPool`'s drop); the
//! [`Renderer`](crate::render::Renderer) drops the pass while the device is idle and
//! before the context.

use ash::vk;
use egui_ash_renderer::{DynamicRendering, Options, RenderMode};

use crate::render::desc::UiDraw;
use crate::render::device::command_pool_with_buffer;
use crate::render::device::context::Context;
use crate::render::device::error::RenderError;

/// Why the UI pass failed (the crate's error, one line).
fn ui_error(e: egui_ash_renderer::RendererError) -> RenderError {
    match e {
        egui_ash_renderer::RendererError::Vulkan(result) => RenderError::from_vk("egui-ash-renderer", result),
        other => RenderError::Ui(other.to_string()),
    }
}

/// The command pool texture uploads use; destroys it when dropped (its one
/// destroy site), null or not.
struct UploadPool {
    device: ash::Device,
    raw: vk::CommandPool,
}

impl Drop for UploadPool {
    fn drop(&mut self) {
        if self.raw != vk::CommandPool::null() {
            // SAFETY: the UI pass drops only once the device is idle (or
            // before anything was recorded from the pool).
            unsafe { self.device.destroy_command_pool(self.raw, None) };
        }
    }
}

/// The egui renderer and the command pool its texture uploads use.
pub(crate) struct UiPass {
    renderer: egui_ash_renderer::Renderer<egui_ash_renderer::allocator::DefaultAllocator>,
    /// The crate allocates, submits, waits for and frees its one-shot
    /// upload buffers from this pool itself.
    pool: UploadPool,
}

impl UiPass {
    pub fn new(ctx: &Context, color_format: vk::Format) -> Result<UiPass, RenderError> {
        let srgb = matches!(color_format, vk::Format::R8G8B8A8_SRGB | vk::Format::B8G8R8A8_SRGB);
        let mode = RenderMode::DynamicRendering(DynamicRendering {
            color_attachment_format: color_format,
            depth_attachment_format: None,
            stencil_attachment_format: None,
        });
        let options = Options {
            in_flight_frames: crate::render::desc::FRAMES_IN_FLIGHT,
            enable_depth_test: false,
            enable_depth_write: false,
            srgb_framebuffer: srgb,
        };
        let device = ctx.device().clone();
        let mut pool = UploadPool { device: device.clone(), raw: vk::CommandPool::null() };
        // SAFETY: the pool is null and owned by `pool`, which destroys it on every path.
        let cmd = unsafe { command_pool_with_buffer(ctx, &mut pool.raw)? };
        // The crate allocates its own buffers; this one is not needed.
        // SAFETY: the buffer was never used.
        unsafe { device.free_command_buffers(pool.raw, &[cmd]) };
        let renderer = egui_ash_renderer::Renderer::with_default_allocator(
            &ctx.roots.instance,
            ctx.physical,
            device,
            mode,
            options,
        )
        .map_err(ui_error)?;
        Ok(UiPass { renderer, pool })
    }

    /// Applies the texture changes of `draw` (before recording). The crate
    /// submits and waits for each upload; the caller made sure no frame in
    /// flight still reads a texture that changes.
    pub fn set_textures(&mut self, ctx: &Context, draw: &UiDraw) -> Result<(), RenderError> {
        for (id, delta) in &draw.set_textures {
            self.renderer.set_texture(ctx.queue, self.pool.raw, *id, delta).map_err(ui_error)?;
        }
        Ok(())
    }

    /// Frees the textures `draw` gives up (after the frames using them ended).
    pub fn free_textures(&mut self, draw: &UiDraw) -> Result<(), RenderError> {
        for id in &draw.free_textures {
            self.renderer.free_texture(*id).map_err(ui_error)?;
        }
        Ok(())
    }

    /// Records the UI into the rendering scope open on `cmd`.
    ///
    /// # Safety
    /// `cmd` is recording inside a colour-only rendering scope of the
    /// pass's format covering `extent`.
    pub unsafe fn record(
        &mut self,
        cmd: vk::CommandBuffer,
        extent: vk::Extent2D,
        draw: &UiDraw,
    ) -> Result<(), RenderError> {
        self.renderer.cmd_draw(cmd, extent, draw.pixels_per_point.max(1e-3), &draw.primitives).map_err(ui_error)
    }
}
