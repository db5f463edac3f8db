//! Where frames go: an off-screen colour image that can be read back, or a
//! window swapchain. Both own their depth buffer.

use ash::{khr, vk};
use gpu_allocator::MemoryLocation;

use super::context::Context;
use super::error::{RenderError, VkContext};
use super::pipeline::DEPTH_FORMAT;
use super::resources::{create_view, Buffer, Image};

/// The off-screen colour format: sRGB-encoded like a typical swapchain, so a
/// PNG of it looks like the window.
pub(crate) const OFFSCREEN_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;

/// The scene depth buffer: also sampled by the overlay pass and copied for read-back.
pub(crate) fn depth_image(ctx: &Context, extent: vk::Extent2D) -> Result<Image, RenderError> {
    Image::new(
        ctx,
        extent,
        DEPTH_FORMAT,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
            | vk::ImageUsageFlags::TRANSFER_SRC
            | vk::ImageUsageFlags::SAMPLED,
        vk::ImageAspectFlags::DEPTH,
        "depth",
    )
}

/// The overlay's own depth buffer.
pub(crate) fn overlay_depth_image(ctx: &Context, extent: vk::Extent2D) -> Result<Image, RenderError> {
    Image::new(
        ctx,
        extent,
        DEPTH_FORMAT,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        vk::ImageAspectFlags::DEPTH,
        "overlay depth",
    )
}

/// Destroys images on drop unless disarmed: keeps multi-step creation leak-free.
struct ImageGuard<'a> {
    ctx: &'a Context,
    images: Vec<Image>,
}

impl Drop for ImageGuard<'_> {
    fn drop(&mut self) {
        for mut i in self.images.drain(..) {
            i.destroy(self.ctx);
        }
    }
}

/// Colour + depth images and host-visible read-back buffers.
pub(crate) struct Offscreen {
    pub color: Image,
    pub depth: Image,
    pub overlay_depth: Image,
    pub readback: Buffer,
    pub depth_readback: Buffer,
}

impl Offscreen {
    pub fn new(ctx: &Context, extent: vk::Extent2D) -> Result<Offscreen, RenderError> {
        let mut guard = ImageGuard { ctx, images: Vec::new() };
        guard.images.push(Image::new(
            ctx,
            extent,
            OFFSCREEN_FORMAT,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
            vk::ImageAspectFlags::COLOR,
            "offscreen colour",
        )?);
        guard.images.push(depth_image(ctx, extent)?);
        guard.images.push(overlay_depth_image(ctx, extent)?);
        let bytes = extent.width as u64 * extent.height as u64 * 4;
        let mut readback =
            Buffer::new(ctx, bytes, vk::BufferUsageFlags::TRANSFER_DST, MemoryLocation::GpuToCpu, "readback")?;
        let depth_readback = match Buffer::new(
            ctx,
            bytes,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuToCpu,
            "depth readback",
        ) {
            Ok(b) => b,
            Err(e) => {
                readback.destroy(ctx);
                return Err(e);
            }
        };
        let overlay_depth = guard.images.pop().expect("pushed above");
        let depth = guard.images.pop().expect("pushed above");
        let color = guard.images.pop().expect("pushed above");
        Ok(Offscreen { color, depth, overlay_depth, readback, depth_readback })
    }

    pub fn extent(&self) -> vk::Extent2D {
        self.color.extent
    }

    pub fn destroy(&mut self, ctx: &Context) {
        self.color.destroy(ctx);
        self.depth.destroy(ctx);
        self.overlay_depth.destroy(ctx);
        self.readback.destroy(ctx);
        self.depth_readback.destroy(ctx);
    }
}

/// A window swapchain with one present semaphore per image.
pub(crate) struct Swapchain {
    pub loader: khr::swapchain::Device,
    pub raw: vk::SwapchainKHR,
    pub images: Vec<vk::Image>,
    pub views: Vec<vk::ImageView>,
    pub present_ready: Vec<vk::Semaphore>,
    pub format: vk::Format,
    pub extent: vk::Extent2D,
    pub depth: Option<Image>,
    pub overlay_depth: Option<Image>,
    /// Set when the window changed size or presentation reported out-of-date.
    pub dirty: bool,
}

impl Swapchain {
    /// Chooses the surface format: 8-bit sRGB if offered.
    pub fn choose_format(ctx: &Context) -> Result<vk::SurfaceFormatKHR, RenderError> {
        let (loader, surface) = ctx.surface.as_ref().ok_or_else(|| RenderError::Other("no window surface".into()))?;
        // SAFETY: live physical device and surface.
        let formats = unsafe { loader.get_physical_device_surface_formats(ctx.physical, *surface) }
            .vk("vkGetPhysicalDeviceSurfaceFormatsKHR")?;
        let preferred = [vk::Format::B8G8R8A8_SRGB, vk::Format::R8G8B8A8_SRGB];
        preferred
            .iter()
            .find_map(|p| {
                formats.iter().find(|f| f.format == *p && f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR).copied()
            })
            .or_else(|| formats.first().copied())
            .ok_or_else(|| RenderError::Other("the surface offers no formats".into()))
    }

    pub fn new(
        ctx: &Context,
        format: vk::SurfaceFormatKHR,
        window_extent: vk::Extent2D,
    ) -> Result<Swapchain, RenderError> {
        let mut s = Swapchain {
            loader: khr::swapchain::Device::new(&ctx.instance, &ctx.device),
            raw: vk::SwapchainKHR::null(),
            images: Vec::new(),
            views: Vec::new(),
            present_ready: Vec::new(),
            format: format.format,
            extent: vk::Extent2D::default(),
            depth: None,
            overlay_depth: None,
            dirty: false,
        };
        s.recreate(ctx, format, window_extent)?;
        Ok(s)
    }

    /// Whether there is nothing to draw into (a minimised window).
    pub fn is_empty(&self) -> bool {
        self.raw == vk::SwapchainKHR::null() || self.extent.width == 0 || self.extent.height == 0
    }

    fn destroy_views(&mut self, ctx: &Context) {
        // SAFETY: called after device_wait_idle.
        unsafe {
            for v in self.views.drain(..) {
                ctx.device.destroy_image_view(v, None);
            }
            for s in self.present_ready.drain(..) {
                ctx.device.destroy_semaphore(s, None);
            }
        }
        for mut d in [self.depth.take(), self.overlay_depth.take()].into_iter().flatten() {
            d.destroy(ctx);
        }
        self.images.clear();
    }

    /// (Re)creates the swapchain for the window's current size. A zero size
    /// (minimised) leaves it empty until the next call with a real size.
    pub fn recreate(
        &mut self,
        ctx: &Context,
        format: vk::SurfaceFormatKHR,
        window_extent: vk::Extent2D,
    ) -> Result<(), RenderError> {
        ctx.wait_idle();
        self.destroy_views(ctx);
        let (loader, surface) = ctx.surface.as_ref().ok_or_else(|| RenderError::Other("no window surface".into()))?;
        // SAFETY: live physical device and surface.
        let caps = unsafe { loader.get_physical_device_surface_capabilities(ctx.physical, *surface) }
            .vk("vkGetPhysicalDeviceSurfaceCapabilitiesKHR")?;
        let extent = if caps.current_extent.width != u32::MAX {
            caps.current_extent
        } else {
            vk::Extent2D {
                width: window_extent.width.clamp(caps.min_image_extent.width, caps.max_image_extent.width),
                height: window_extent.height.clamp(caps.min_image_extent.height, caps.max_image_extent.height),
            }
        };
        self.extent = extent;
        self.format = format.format;
        self.dirty = false;
        if extent.width == 0 || extent.height == 0 {
            // Minimised: keep the old swapchain handle alive (it is retired
            // on the next real recreate), draw nothing.
            return Ok(());
        }
        let mut count = caps.min_image_count + 1;
        if caps.max_image_count > 0 {
            count = count.min(caps.max_image_count);
        }
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(*surface)
            .min_image_count(count)
            .image_format(format.format)
            .image_color_space(format.color_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true)
            .old_swapchain(self.raw);
        // SAFETY: valid create info; the old swapchain is retired below.
        let raw = unsafe { self.loader.create_swapchain(&info, None) }.vk("vkCreateSwapchainKHR")?;
        if self.raw != vk::SwapchainKHR::null() {
            unsafe { self.loader.destroy_swapchain(self.raw, None) };
        }
        self.raw = raw;
        self.images = unsafe { self.loader.get_swapchain_images(raw) }.vk("vkGetSwapchainImagesKHR")?;
        for &image in &self.images {
            self.views.push(create_view(ctx, image, format.format, vk::ImageAspectFlags::COLOR)?);
            let sem = unsafe { ctx.device.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }
                .vk("vkCreateSemaphore")?;
            self.present_ready.push(sem);
        }
        self.depth = Some(depth_image(ctx, extent)?);
        self.overlay_depth = Some(overlay_depth_image(ctx, extent)?);
        Ok(())
    }

    pub fn destroy(&mut self, ctx: &Context) {
        ctx.wait_idle();
        self.destroy_views(ctx);
        if self.raw != vk::SwapchainKHR::null() {
            // SAFETY: idle device, no image in use.
            unsafe { self.loader.destroy_swapchain(self.raw, None) };
            self.raw = vk::SwapchainKHR::null();
        }
    }
}
