//! One error type for everything the renderer can fail at.

use ash::vk;

/// A renderer failure. Display gives one line suitable for the CLI.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("cannot load the Vulkan loader (libvulkan.so.1): {0}")]
    Loader(String),
    #[error("Vulkan call {call} failed: {result}")]
    Vk { call: &'static str, result: vk::Result },
    #[error("no suitable Vulkan device: {0}")]
    NoDevice(String),
    #[error(
        "the Khronos validation layer was requested but is not installed (Debian package vulkan-validationlayers)"
    )]
    ValidationMissing,
    #[error("GPU memory allocation failed: {0}")]
    Alloc(#[from] gpu_allocator::AllocationError),
    #[error("{0}")]
    Other(String),
}

/// Attaches the name of the failing Vulkan call to a `vk::Result`.
pub(crate) trait VkContext<T> {
    fn vk(self, call: &'static str) -> Result<T, RenderError>;
}

impl<T> VkContext<T> for Result<T, vk::Result> {
    fn vk(self, call: &'static str) -> Result<T, RenderError> {
        self.map_err(|result| RenderError::Vk { call, result })
    }
}
