//! Memory-backed objects: [`Buffer`], [`GrowBuffer`] and [`Image`], each
//! with its own allocation, and the image-view helpers.

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use super::error::{RenderError, VkContext};
use super::owner::{Destroy, Gpu, Guard};

/// A buffer with its own allocation.
pub(crate) struct Buffer {
    pub raw: vk::Buffer,
    pub size: u64,
    pub(super) alloc: Option<Allocation>,
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
    pub(crate) alloc: Option<Allocation>,
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
pub(crate) fn create_image_memory(
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
