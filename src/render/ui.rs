//! The UI pass: egui's tessellated meshes over the finished frame, drawn by
//! the `egui-ash-renderer` crate inside a colour-only dynamic-rendering
//! scope (after the overlay and the selection rectangle), in the window
//! and off-screen alike, so screenshots show the UI.
//!
//! The crate owns its pipeline, font texture and per-frame vertex buffers
//! (memory from plain `vkAllocateMemory`, not our gpu-allocator, so the
//! project's allocator version is not tied to the crate's) and destroys them
//! when [`UiPass`] drops: that drop is the one destroy site, and the
//! [`Renderer`](super::Renderer) drops the pass while the device is idle and
//! before the context.

use ash::vk;
use egui_ash_renderer::{DynamicRendering, Options, RenderMode};

use super::context::Context;
use super::error::RenderError;
use super::resources::command_pool_with_buffer;

/// What the UI draws in one frame (built by [`crate::ui::Ui`]).
#[derive(Clone, Default)]
pub struct UiDraw {
    /// egui's tessellated output, in points.
    pub primitives: Vec<egui::ClippedPrimitive>,
    /// Texture changes since the last drawn frame (the font atlas), in order.
    /// (Plain lists: egui's own `TexturesDelta` insists on being applied
    /// before it drops, which a cloned frame description would break.)
    pub set_textures: Vec<(egui::TextureId, egui::epaint::ImageDelta)>,
    /// Textures to free once the frame is drawn.
    pub free_textures: Vec<egui::TextureId>,
    /// Physical pixels per egui point: the UI scale `u`.
    pub pixels_per_point: f32,
}

impl std::fmt::Debug for UiDraw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UiDraw")
            .field("primitives", &self.primitives.len())
            .field("set_textures", &self.set_textures.len())
            .field("free_textures", &self.free_textures)
            .field("pixels_per_point", &self.pixels_per_point)
            .finish()
    }
}

/// Why the UI pass failed (the crate's error, one line).
fn ui_error(e: egui_ash_renderer::RendererError) -> RenderError {
    match e {
        egui_ash_renderer::RendererError::Vulkan(result) => RenderError::from_vk("egui-ash-renderer", result),
        other => RenderError::Ui(other.to_string()),
    }
}

/// The egui renderer and the command pool its texture uploads use.
pub(crate) struct UiPass {
    renderer: egui_ash_renderer::Renderer<egui_ash_renderer::allocator::DefaultAllocator>,
    /// Texture uploads record into buffers from this pool (the crate
    /// allocates, submits, waits and frees them itself).
    pool: vk::CommandPool,
    device: ash::Device,
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
            in_flight_frames: super::FRAMES_IN_FLIGHT,
            enable_depth_test: false,
            enable_depth_write: false,
            srgb_framebuffer: srgb,
        };
        let mut pool = vk::CommandPool::null();
        // SAFETY: `pool` is null; it is destroyed below if the renderer fails, else by Drop.
        let cmd = unsafe { command_pool_with_buffer(ctx, &mut pool) };
        let device = ctx.device().clone();
        let destroy_pool = |pool| {
            // SAFETY: nothing was recorded from the pool.
            unsafe { device.destroy_command_pool(pool, None) }
        };
        let cmd = match cmd {
            Ok(c) => c,
            Err(e) => {
                if pool != vk::CommandPool::null() {
                    destroy_pool(pool);
                }
                return Err(e);
            }
        };
        // The crate allocates its own one-shot buffers; ours is not needed.
        // SAFETY: the buffer was never used.
        unsafe { device.free_command_buffers(pool, &[cmd]) };
        let renderer = egui_ash_renderer::Renderer::with_default_allocator(
            &ctx.roots.instance,
            ctx.physical,
            device.clone(),
            mode,
            options,
        );
        match renderer {
            Ok(renderer) => Ok(UiPass { renderer, pool, device }),
            Err(e) => {
                destroy_pool(pool);
                Err(ui_error(e))
            }
        }
    }

    /// Applies the texture changes of `draw` (before recording). The crate
    /// submits and waits for each upload; the caller made sure no frame in
    /// flight still reads a texture that changes.
    pub fn set_textures(&mut self, ctx: &Context, draw: &UiDraw) -> Result<(), RenderError> {
        for (id, delta) in &draw.set_textures {
            self.renderer.set_texture(ctx.queue, self.pool, *id, delta).map_err(ui_error)?;
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

impl Drop for UiPass {
    fn drop(&mut self) {
        // SAFETY: the renderer drops this pass only once the device is idle;
        // the crate's renderer (a field) destroys its own objects after this.
        unsafe { self.device.destroy_command_pool(self.pool, None) };
    }
}
