//! The renderer's error type and the single mapping from `vk::Result`.
//!
//! Every failed Vulkan call goes through [`RenderError::from_vk`] (directly or
//! through the crate-internal `.vk("vkCallName")` adapter), so a lost device
//! or exhausted memory is always reported as such, whichever call saw it.

use ash::vk;

/// Which memory ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryKind {
    Host,
    Device,
}

impl std::fmt::Display for MemoryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MemoryKind::Host => "host",
            MemoryKind::Device => "device",
        })
    }
}

/// A renderer failure. Display gives one line suitable for the CLI.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The Vulkan loader library could not be loaded.
    #[error("cannot load the Vulkan loader (libvulkan.so.1): {0}")]
    Loader(#[from] ash::LoadingError),
    /// The device was lost (driver crash, GPU reset, ...); nothing drawn on
    /// it can be trusted any more.
    #[error("the Vulkan device was lost (during {call})")]
    DeviceLost { call: &'static str },
    /// A Vulkan call ran out of host or device memory.
    #[error("out of {kind} memory (during {call})")]
    OutOfMemory { call: &'static str, kind: MemoryKind },
    /// Any other failed Vulkan call.
    #[error("Vulkan call {call} failed: {result}")]
    Vk { call: &'static str, result: vk::Result },
    /// gpu-allocator could not provide memory.
    #[error("GPU memory allocation failed: {0}")]
    Alloc(#[from] gpu_allocator::AllocationError),
    #[error("no suitable Vulkan device: {0}")]
    NoDevice(String),
    #[error(
        "the Khronos validation layer was requested but is not installed (Debian package vulkan-validationlayers)"
    )]
    ValidationMissing,
    /// A required instance or device extension is not available.
    #[error("the Vulkan extension {0} is not available")]
    MissingExtension(String),
    /// The renderer was created for a window but has no surface (internal misuse).
    #[error("no window surface")]
    NoSurface,
    /// The window surface offers no format to present with.
    #[error("the surface offers no formats")]
    NoSurfaceFormat,
    /// Embedded SPIR-V could not be read (a build problem).
    #[error("bad SPIR-V for {shader}: {source}")]
    Spirv { shader: &'static str, source: std::io::Error },
    /// A mesh without vertices or indices.
    #[error("object {index} is not among the {count} scene objects on the GPU")]
    BadObject { index: u32, count: u32 },

    #[error("the Vulkan device lacks the feature {0}")]
    MissingFeature(&'static str),

    #[error("cannot upload an empty mesh")]
    EmptyMesh,
    /// A mesh whose vertex attributes or parts do not fit its vertices and
    /// indices, or name an unknown material.
    #[error("bad mesh: {0}")]
    BadMesh(String),
    /// A material names a texture that was not added.
    #[error("unknown texture {0}")]
    UnknownTexture(u32),
    /// A size that must be non-zero was zero.
    #[error("{what} size must be non-zero, got {width}x{height}")]
    ZeroSize { what: &'static str, width: u32, height: u32 },
    /// The operation needs the other kind of target (window / off-screen).
    #[error("{0} needs the off-screen target")]
    NeedsOffscreen(&'static str),
    /// The UI renderer (egui-ash-renderer) failed other than in a Vulkan call.
    #[error("the UI renderer failed: {0}")]
    Ui(String),
    /// Memory that should be host-visible was not mapped.
    #[error("the {0} buffer is not host-visible")]
    NotHostVisible(&'static str),
    /// A capture was asked for but nothing was presented (minimised window).
    #[error("nothing on screen to capture (is the window minimised?)")]
    NothingPresented,
    /// A read-back of the ids or depth before any frame was drawn into the
    /// current target (or after it was resized or recreated).
    #[error("no frame drawn yet to read back")]
    NothingDrawn,
    /// A format that cannot be used where it was given.
    #[error("format {format:?} cannot be used as {what}")]
    BadFormat { what: &'static str, format: vk::Format },
    /// A frame-in-flight index outside the range given at creation.
    #[error("frame index {index} out of range (frames in flight: {frames})")]
    FrameIndex { index: usize, frames: usize },
}

impl RenderError {
    /// The one mapping from a failed Vulkan call to an error: a lost device
    /// and exhausted memory get their own variants, anything else is
    /// [`RenderError::Vk`].
    pub fn from_vk(call: &'static str, result: vk::Result) -> RenderError {
        match result {
            vk::Result::ERROR_DEVICE_LOST => RenderError::DeviceLost { call },
            vk::Result::ERROR_OUT_OF_HOST_MEMORY => RenderError::OutOfMemory { call, kind: MemoryKind::Host },
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => RenderError::OutOfMemory { call, kind: MemoryKind::Device },
            result => RenderError::Vk { call, result },
        }
    }

    /// Whether the device is gone (every later call will fail too).
    pub fn is_device_lost(&self) -> bool {
        matches!(self, RenderError::DeviceLost { .. })
    }
}

/// Attaches the name of the failing Vulkan call to a `vk::Result`.
pub(crate) trait VkContext<T> {
    fn vk(self, call: &'static str) -> Result<T, RenderError>;
}

impl<T> VkContext<T> for Result<T, vk::Result> {
    fn vk(self, call: &'static str) -> Result<T, RenderError> {
        self.map_err(|result| RenderError::from_vk(call, result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vk_results_map_to_the_specific_variants() {
        assert!(RenderError::from_vk("x", vk::Result::ERROR_DEVICE_LOST).is_device_lost());
        assert!(matches!(
            RenderError::from_vk("x", vk::Result::ERROR_OUT_OF_HOST_MEMORY),
            RenderError::OutOfMemory { kind: MemoryKind::Host, .. }
        ));
        assert!(matches!(
            RenderError::from_vk("x", vk::Result::ERROR_OUT_OF_DEVICE_MEMORY),
            RenderError::OutOfMemory { kind: MemoryKind::Device, .. }
        ));
        assert!(matches!(
            RenderError::from_vk("vkQueueSubmit2", vk::Result::ERROR_UNKNOWN),
            RenderError::Vk { call: "vkQueueSubmit2", result: vk::Result::ERROR_UNKNOWN }
        ));
    }
}
