//! Where frames go: an off-screen colour image that can be read back, or a
//! window swapchain. Both own their depth images and object-ID target
//! ([`Depths`]).

use ash::{khr, vk};
use gpu_allocator::MemoryLocation;

use crate::render::device::context::Context;
use crate::render::device::error::{RenderError, VkContext};
use crate::render::device::pipeline::ID_FORMAT;
use crate::render::device::{create_view, Buffer, Destroy, Gpu, Guard, Image};

/// The depth format of the scene and overlay passes.
pub(crate) const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;

/// The off-screen colour format: sRGB-encoded like a typical swapchain, so a
/// PNG of it looks like the window.
pub(crate) const OFFSCREEN_FORMAT: vk::Format = vk::Format::R8G8B8A8_SRGB;

/// The images of a target besides its colour: the two depth images and the
/// object-ID target, which the scene pass writes beside the colour.
pub(crate) struct Depths {
    /// The scene depth: attachment of the scene and grid passes, then
    /// sampled by the overlay pass and copied by region read-backs.
    pub scene: Image,
    /// The overlay's own depth, cleared at the start of the overlay pass.
    pub overlay: Image,
    /// Object ids ([`ID_FORMAT`]): colour attachment 1 of the scene pass,
    /// then sampled by the outline pass and copied by region read-backs.
    pub ids: Image,
    /// With MSAA: the multisampled colour and depth the scene, grid,
    /// outline and overlay draw into before the colour is resolved into
    /// the target's colour image.
    pub msaa: Option<Multisampled>,
}

/// The multisampled images of a target (MSAA on).
pub(crate) struct Multisampled {
    /// Colour, in the target's colour format; resolved (average) into the
    /// target's single-sample colour image at the end of the last
    /// multisampled pass.
    pub color: Image,
    /// Depth of the multisampled colour pass (scene and grid); never read.
    pub depth: Image,
}

impl Destroy for Multisampled {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.depth.destroy(gpu);
        self.color.destroy(gpu);
    }
}

impl Depths {
    /// The images for a target of `extent` whose colour is `color_format`;
    /// with `samples` > 1 also the multisampled colour and depth (the
    /// overlay's depth is then multisampled too).
    pub fn new(
        gpu: &Gpu,
        extent: vk::Extent2D,
        color_format: vk::Format,
        samples: vk::SampleCountFlags,
    ) -> Result<Depths, RenderError> {
        let mut d =
            Guard::new(gpu, Depths { scene: Image::null(), overlay: Image::null(), ids: Image::null(), msaa: None });
        d.scene = Image::new(
            gpu,
            extent,
            DEPTH_FORMAT,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
                | vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::SAMPLED,
            vk::ImageAspectFlags::DEPTH,
            "depth",
        )?;
        d.overlay = Image::with_samples(
            gpu,
            extent,
            DEPTH_FORMAT,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
            vk::ImageAspectFlags::DEPTH,
            samples,
            "overlay depth",
        )?;
        if samples != vk::SampleCountFlags::TYPE_1 {
            let mut ms = Guard::new(gpu, Multisampled { color: Image::null(), depth: Image::null() });
            ms.color = Image::with_samples(
                gpu,
                extent,
                color_format,
                vk::ImageUsageFlags::COLOR_ATTACHMENT,
                vk::ImageAspectFlags::COLOR,
                samples,
                "multisampled colour",
            )?;
            ms.depth = Image::with_samples(
                gpu,
                extent,
                DEPTH_FORMAT,
                vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
                vk::ImageAspectFlags::DEPTH,
                samples,
                "multisampled depth",
            )?;
            d.msaa = Some(ms.finish());
        }
        d.ids = Image::new(
            gpu,
            extent,
            ID_FORMAT,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_SRC,
            vk::ImageAspectFlags::COLOR,
            "object ids",
        )?;
        Ok(d.finish())
    }
}

impl Destroy for Depths {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.msaa.destroy(gpu);
        self.ids.destroy(gpu);
        self.overlay.destroy(gpu);
        self.scene.destroy(gpu);
    }
}

/// Colour, depth and ID images, and a host-visible buffer the colour is
/// copied into after every frame (depth and ids are read by region).
pub(crate) struct Offscreen {
    pub color: Image,
    pub depths: Option<Depths>,
    pub readback: Buffer,
}

impl Offscreen {
    pub fn new(gpu: &Gpu, extent: vk::Extent2D, samples: vk::SampleCountFlags) -> Result<Offscreen, RenderError> {
        if extent.width == 0 || extent.height == 0 {
            let (width, height) = (extent.width, extent.height);
            return Err(RenderError::ZeroSize { what: "off-screen", width, height });
        }
        let mut o = Guard::new(gpu, Offscreen { color: Image::null(), depths: None, readback: Buffer::null() });
        o.color = Image::new(
            gpu,
            extent,
            OFFSCREEN_FORMAT,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
            vk::ImageAspectFlags::COLOR,
            "offscreen colour",
        )?;
        o.depths = Some(Depths::new(gpu, extent, OFFSCREEN_FORMAT, samples)?);
        let bytes = extent.width as u64 * extent.height as u64 * 4;
        let usage = vk::BufferUsageFlags::TRANSFER_DST;
        o.readback = Buffer::new(gpu, bytes, usage, MemoryLocation::GpuToCpu, "readback")?;
        Ok(o.finish())
    }

    pub fn extent(&self) -> vk::Extent2D {
        self.color.extent
    }
}

impl Destroy for Offscreen {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.readback.destroy(gpu);
        self.depths.destroy(gpu);
        self.color.destroy(gpu);
    }
}

/// What a swapchain has per image and for its extent; rebuilt on recreate.
#[derive(Default)]
pub(crate) struct SwapchainImages {
    pub images: Vec<vk::Image>,
    pub views: Vec<vk::ImageView>,
    /// Signalled by the frame's submit, waited on by the present.
    pub present_ready: Vec<vk::Semaphore>,
    pub depths: Option<Depths>,
}

impl Destroy for SwapchainImages {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        for v in self.views.drain(..) {
            gpu.device.destroy_image_view(v, None);
        }
        for s in self.present_ready.drain(..) {
            gpu.device.destroy_semaphore(s, None);
        }
        self.depths.destroy(gpu);
        // The images belong to the swapchain.
        self.images.clear();
    }
}

/// A window swapchain with one present semaphore per image.
pub(crate) struct Swapchain {
    pub loader: khr::swapchain::Device,
    pub raw: vk::SwapchainKHR,
    pub per_image: SwapchainImages,
    pub format: vk::SurfaceFormatKHR,
    pub extent: vk::Extent2D,
    /// Set when the window changed size or presentation reported out-of-date.
    pub dirty: bool,
}

impl Swapchain {
    /// Chooses the surface format: 8-bit sRGB if offered.
    pub fn choose_format(ctx: &Context) -> Result<vk::SurfaceFormatKHR, RenderError> {
        let (loader, surface) = ctx.roots.surface.as_ref().ok_or(RenderError::NoSurface)?;
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
            .ok_or(RenderError::NoSurfaceFormat)
    }

    pub fn new(
        ctx: &Context,
        format: vk::SurfaceFormatKHR,
        window_extent: vk::Extent2D,
    ) -> Result<Swapchain, RenderError> {
        let mut s = Swapchain {
            loader: khr::swapchain::Device::new(&ctx.roots.instance, ctx.device()),
            raw: vk::SwapchainKHR::null(),
            per_image: SwapchainImages::default(),
            format,
            extent: vk::Extent2D::default(),
            dirty: false,
        };
        if let Err(e) = s.recreate(ctx, window_extent) {
            // SAFETY: nothing was submitted with the new objects.
            unsafe { s.destroy(&ctx.gpu) };
            return Err(e);
        }
        Ok(s)
    }

    /// Whether there is nothing to draw into (a minimised window).
    pub fn is_empty(&self) -> bool {
        self.raw == vk::SwapchainKHR::null() || self.extent.width == 0 || self.extent.height == 0
    }

    /// (Re)creates the swapchain for the window's current size. A zero size
    /// (minimised) leaves it empty until the next call with a real size.
    pub fn recreate(&mut self, ctx: &Context, window_extent: vk::Extent2D) -> Result<(), RenderError> {
        ctx.wait_idle()?;
        // SAFETY: the device is idle.
        unsafe { self.per_image.destroy(&ctx.gpu) };
        let (loader, surface) = ctx.roots.surface.as_ref().ok_or(RenderError::NoSurface)?;
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
            .image_format(self.format.format)
            .image_color_space(self.format.color_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true)
            .old_swapchain(self.raw);
        // SAFETY: valid create info; the old swapchain is retired right after.
        let raw = unsafe { self.loader.create_swapchain(&info, None) }.vk("vkCreateSwapchainKHR")?;
        // SAFETY: the device is idle, so no old image is in use.
        unsafe { self.release_handle() };
        self.raw = raw;
        let p = &mut self.per_image;
        // SAFETY: live swapchain; each object is owned by `per_image`, which
        // the next recreate or `destroy` destroys.
        unsafe {
            p.images = self.loader.get_swapchain_images(raw).vk("vkGetSwapchainImagesKHR")?;
            for &image in &p.images {
                p.views.push(create_view(ctx.device(), image, self.format.format, vk::ImageAspectFlags::COLOR)?);
                let sem =
                    ctx.device().create_semaphore(&vk::SemaphoreCreateInfo::default(), None).vk("vkCreateSemaphore")?;
                p.present_ready.push(sem);
            }
        }
        p.depths = Some(Depths::new(&ctx.gpu, extent, self.format.format, ctx.samples())?);
        Ok(())
    }
}

impl Swapchain {
    /// Destroys the swapchain handle (the one place that does).
    ///
    /// # Safety
    /// None of its images is in use by the GPU or acquired.
    unsafe fn release_handle(&mut self) {
        self.loader.destroy_swapchain(self.raw, None);
        self.raw = vk::SwapchainKHR::null();
    }
}

impl Destroy for Swapchain {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        self.per_image.destroy(gpu);
        self.release_handle();
    }
}
