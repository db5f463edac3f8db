//! Instance, debug messenger, physical device, logical device, queue and
//! allocator: the objects every other part of the renderer borrows.
//!
//! The [`Context`] is the single owner of these objects and destroys them in
//! reverse creation order in `Drop`, after `device_wait_idle`. While it is
//! being built, the instance-level objects live in an [`InstanceObjects`]
//! whose own `Drop` destroys them, so an early return leaks nothing. These
//! roots are the only Vulkan objects destroyed in `Drop`; everything made
//! from the device follows the `Destroy` + `Guard` pattern of
//! [`crate::render::device::resources`].

use std::ffi::{c_void, CStr, CString};
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use ash::{ext, khr, vk};
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};

use raw_window_handle::{RawDisplayHandle, RawWindowHandle};

use super::error::{RenderError, VkContext};
use super::owner::Gpu;

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// What the debug messenger has seen. Shared with the callback.
#[derive(Debug, Default)]
pub struct ValidationReport {
    errors: AtomicU32,
    warnings: AtomicU32,
    messages: Mutex<Vec<String>>,
}

impl ValidationReport {
    pub fn errors(&self) -> u32 {
        self.errors.load(Ordering::SeqCst)
    }
    pub fn warnings(&self) -> u32 {
        self.warnings.load(Ordering::SeqCst)
    }
    /// The text of the error messages seen so far (at most 64 are kept).
    pub fn error_messages(&self) -> Vec<String> {
        self.messages.lock().map(|m| m.clone()).unwrap_or_default()
    }
}

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: `user` is the `ValidationReport` kept alive by the `Arc` held in
    // `Context::report` for as long as the messenger (and instance) exist;
    // `data` is valid for the duration of the callback per the Vulkan spec.
    let report = unsafe { &*(user as *const ValidationReport) };
    let message = unsafe {
        if data.is_null() || (*data).p_message.is_null() {
            String::from("(no message)")
        } else {
            CStr::from_ptr((*data).p_message).to_string_lossy().into_owned()
        }
    };
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        report.errors.fetch_add(1, Ordering::SeqCst);
        log::error!("vulkan validation [{kind:?}]: {message}");
        if let Ok(mut m) = report.messages.lock() {
            if m.len() < 64 {
                m.push(message);
            }
        }
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
        report.warnings.fetch_add(1, Ordering::SeqCst);
        log::warn!("vulkan validation [{kind:?}]: {message}");
    } else {
        log::debug!("vulkan: {message}");
    }
    vk::FALSE
}

/// The messenger we use: errors, warnings and info of every type, counted
/// into `report` by [`debug_callback`].
fn messenger_info(report: &Arc<ValidationReport>) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::INFO,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(debug_callback))
        .user_data(Arc::as_ptr(report) as *mut c_void)
}

/// How to create a [`Context`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ContextDesc {
    /// Enable `VK_LAYER_KHRONOS_validation` (with synchronisation validation).
    /// Creation fails if the layer is not installed.
    pub validation: bool,
    /// Samples per pixel asked for (MSAA; 1: off). The device's highest
    /// supported count not above it is used ([`DeviceInfo::samples`]).
    /// 0 (the default) chooses: [`AUTO_SAMPLES_GPU`] on a GPU, 1 on a CPU
    /// rasteriser such as lavapipe, where 4x MSAA makes a 1280x720 frame
    /// about five times slower (`docs/benchmarks.md`).
    pub samples: u32,
}

/// What `samples: 0` asks for on a GPU.
pub const AUTO_SAMPLES_GPU: u32 = 4;

/// A window surface the device must be able to present to.
#[derive(Clone, Copy)]
pub struct WindowHandles {
    pub display: RawDisplayHandle,
    pub window: RawWindowHandle,
}

/// Description of the chosen physical device.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub name: String,
    pub kind: &'static str,
    pub api_version: (u32, u32, u32),
    /// Samples per pixel of the scene, grid and overlay (1: no MSAA): the
    /// highest count not above [`ContextDesc::samples`] that the device
    /// supports for colour and depth attachments.
    pub samples: u32,
    /// The device's Vulkan type (what `samples: 0` and [`Culling::Auto`]
    /// follow).
    ///
    /// [`Culling::Auto`]: crate::render::Culling::Auto
    pub(crate) device_type: vk::PhysicalDeviceType,
}

impl DeviceInfo {
    /// A CPU rasteriser such as lavapipe (`VK_PHYSICAL_DEVICE_TYPE_CPU`).
    pub fn is_cpu_rasteriser(&self) -> bool {
        self.device_type == vk::PhysicalDeviceType::CPU
    }

    /// The start-up line's words after `using `: the device, the sample
    /// count and the scene path, e.g. `llvmpipe (...) (CPU, Vulkan 1.3.255);
    /// 1x MSAA; CPU culling (auto: a CPU rasteriser)`.
    pub fn describe(&self, culling: &crate::render::CullingChoice) -> String {
        format!("{self}; {}x MSAA; {culling}", self.samples)
    }
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (a, b, c) = self.api_version;
        write!(f, "{} ({}, Vulkan {a}.{b}.{c})", self.name, self.kind)
    }
}

/// The Vulkan instance, device, queue and allocator the renderer uses.
pub struct Context {
    pub(crate) physical: vk::PhysicalDevice,
    /// The device and allocator; dropped by hand before the device is destroyed.
    pub(crate) gpu: ManuallyDrop<Gpu>,
    pub(crate) queue_family: u32,
    pub(crate) queue: vk::Queue,
    report: Arc<ValidationReport>,
    info: DeviceInfo,
    /// Whether indirect draws may start at a non-zero instance (GPU culling needs it).
    pub(crate) indirect_first_instance: bool,
    /// `standardSampleLocations`: MSAA samples sit where Vulkan's table says.
    pub(crate) standard_sample_locations: bool,
    /// Uploads always go through staging memory, even where device-local
    /// memory is host-visible ([`crate::render::Renderer::set_staged_uploads`]).
    pub(crate) staged_uploads: bool,
    /// `textureCompressionBC` is on: BC7 textures can be sampled (Basis
    /// Universal images are uploaded as BC7, `assets/texture.rs`).
    pub(crate) bc_textures: bool,
    /// Whether the device has `textureCompressionBC` (and it was enabled).
    pub(crate) bc_supported: bool,
    /// Destroys the device when dropped, after `Drop for Context` dropped the allocator.
    _device: DeviceOwner,
    /// Dropped last: the instance-level objects.
    pub(crate) roots: InstanceObjects,
}

/// Owns the logical device; destroys it when dropped (the one place that does).
struct DeviceOwner(ash::Device);

impl Drop for DeviceOwner {
    fn drop(&mut self) {
        // SAFETY: every object made from the device, the allocator included,
        // was destroyed by its owner before this runs (field order of Context).
        unsafe { self.0.destroy_device(None) };
    }
}

/// The instance and the objects made directly from it; the root owner,
/// destroyed (in reverse creation order) when dropped.
pub(crate) struct InstanceObjects {
    pub(crate) entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    debug: Option<(ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    pub(crate) surface: Option<(khr::surface::Instance, vk::SurfaceKHR)>,
}

impl Drop for InstanceObjects {
    fn drop(&mut self) {
        // SAFETY: each object was created from `instance`; the device and
        // everything made from it are gone by now.
        unsafe {
            if let Some((l, s)) = self.surface.take() {
                l.destroy_surface(s, None);
            }
            if let Some((l, m)) = self.debug.take() {
                l.destroy_debug_utils_messenger(m, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

fn device_kind(t: vk::PhysicalDeviceType) -> (&'static str, u32) {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => ("discrete GPU", 0),
        vk::PhysicalDeviceType::INTEGRATED_GPU => ("integrated GPU", 1),
        vk::PhysicalDeviceType::VIRTUAL_GPU => ("virtual GPU", 2),
        vk::PhysicalDeviceType::CPU => ("CPU", 3),
        _ => ("other", 4),
    }
}

impl Context {
    /// Creates the instance and device. With `window`, also the surface, and
    /// only devices that can present to it are considered.
    pub fn new(desc: &ContextDesc, window: Option<WindowHandles>) -> Result<Context, RenderError> {
        // SAFETY: loading the system Vulkan loader; the entry outlives all objects
        // created from it because it is stored in the Context.
        let entry = unsafe { ash::Entry::load() }?;
        let report = Arc::new(ValidationReport::default());

        let mut layers: Vec<*const i8> = Vec::new();
        if desc.validation {
            // SAFETY: plain enumeration call.
            let available =
                unsafe { entry.enumerate_instance_layer_properties() }.vk("vkEnumerateInstanceLayerProperties")?;
            let found = available.iter().any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER));
            if !found {
                return Err(RenderError::ValidationMissing);
            }
            layers.push(VALIDATION_LAYER.as_ptr());
        }

        let mut extensions: Vec<*const i8> = vec![ext::debug_utils::NAME.as_ptr()];
        if let Some(w) = window {
            let needed = ash_window::enumerate_required_extensions(w.display).vk("enumerate surface extensions")?;
            extensions.extend_from_slice(needed);
        }

        let app_name = CString::new("viewport").expect("no NUL");
        let app = vk::ApplicationInfo::default()
            .application_name(&app_name)
            .application_version(1)
            .engine_name(&app_name)
            .api_version(vk::API_VERSION_1_3);
        let mut chained_messenger = messenger_info(&report);
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let mut create = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions);
        if desc.validation {
            // The chained messenger also covers instance creation and destruction.
            create = create.push_next(&mut chained_messenger).push_next(&mut features);
        }
        // SAFETY: every pointer in `create` refers to locals alive for this call.
        let instance = unsafe { entry.create_instance(&create, None) }.vk("vkCreateInstance")?;

        // From here on, dropping `roots` destroys what was created.
        let mut roots = InstanceObjects { entry, instance, debug: None, surface: None };
        let (entry, instance) = (&roots.entry, &roots.instance);

        let loader = ext::debug_utils::Instance::new(entry, instance);
        let info = messenger_info(&report);
        // SAFETY: the user data outlives the messenger (Arc kept in Context).
        let m = unsafe { loader.create_debug_utils_messenger(&info, None) }.vk("vkCreateDebugUtilsMessengerEXT")?;
        roots.debug = Some((loader, m));

        if let Some(w) = window {
            let (entry, instance) = (&roots.entry, &roots.instance);
            let loader = khr::surface::Instance::new(entry, instance);
            // SAFETY: the handles come from a live winit window that outlives the surface.
            let s = unsafe { ash_window::create_surface(entry, instance, w.display, w.window, None) }
                .vk("vkCreateSurfaceKHR")?;
            roots.surface = Some((loader, s));
        }
        let (instance, surface) = (&roots.instance, roots.surface.as_ref());

        let (physical, queue_family, mut info) = pick_device(instance, surface)?;
        // SAFETY: plain query on a live physical device.
        let limits = unsafe { instance.get_physical_device_properties(physical) }.limits;
        let requested = match desc.samples {
            0 if info.is_cpu_rasteriser() => 1,
            0 => AUTO_SAMPLES_GPU,
            n => n,
        };
        info.samples =
            choose_samples(requested, limits.framebuffer_color_sample_counts & limits.framebuffer_depth_sample_counts);
        log::info!("using {info}");

        let priorities = [1.0f32];
        let queues =
            [vk::DeviceQueueCreateInfo::default().queue_family_index(queue_family).queue_priorities(&priorities)];
        // maintenance4 (required of every Vulkan 1.3 device): shaderc's
        // compute shaders for 1.3 declare their workgroup size by LocalSizeId.
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default()
            .dynamic_rendering(true)
            .synchronization2(true)
            .maintenance4(true);
        let mut device_ext: Vec<*const i8> = Vec::new();
        if surface.is_some() {
            device_ext.push(khr::swapchain::NAME.as_ptr());
        }
        // Independent blend: the grid blends its colour while the object-ID
        // attachment bound beside it is left untouched.
        // First instance of indirect draws: GPU culling draws each mesh's
        // instances from its slice of the visible list.
        // SAFETY: plain query on a live physical device.
        let supported = unsafe { instance.get_physical_device_features(physical) };
        // BC texture compression where the device has it (desktop GPUs and
        // lavapipe): Basis Universal textures are transcoded to BC7.
        let bc_textures = supported.texture_compression_bc == vk::TRUE;
        let core = vk::PhysicalDeviceFeatures::default()
            .independent_blend(true)
            .draw_indirect_first_instance(supported.draw_indirect_first_instance == vk::TRUE)
            .texture_compression_bc(bc_textures);
        let device_info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&device_ext)
            .enabled_features(&core)
            .push_next(&mut f13);
        // SAFETY: the physical device and queue family were checked in pick_device.
        let device = unsafe { instance.create_device(physical, &device_info, None) }.vk("vkCreateDevice")?;
        // From here on, dropping `owner` destroys the device (before `roots`).
        let owner = DeviceOwner(device.clone());
        // SAFETY: queue 0 of a family we asked for.
        let queue = unsafe { device.get_device_queue(queue_family, 0) };

        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: physical,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: Default::default(),
        })?;
        let gpu = Gpu { device, allocator: Arc::new(Mutex::new(allocator)) };
        Ok(Context {
            physical,
            gpu: ManuallyDrop::new(gpu),
            queue_family,
            queue,
            report,
            info,
            indirect_first_instance: supported.draw_indirect_first_instance == vk::TRUE,
            standard_sample_locations: limits.standard_sample_locations == vk::TRUE,
            staged_uploads: false,
            bc_textures,
            bc_supported: bc_textures,
            _device: owner,
            roots,
        })
    }

    /// The device in use.
    pub fn device_info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Samples per pixel of the multisampled passes (`TYPE_1`: no MSAA).
    pub(crate) fn samples(&self) -> vk::SampleCountFlags {
        vk::SampleCountFlags::from_raw(self.info.samples)
    }

    /// What the validation layer reported so far (always zero without it).
    pub fn validation(&self) -> &ValidationReport {
        &self.report
    }

    /// Shared handle to the validation report, for checks after the context is gone.
    pub fn validation_handle(&self) -> Arc<ValidationReport> {
        self.report.clone()
    }

    /// Makes one deliberate API misuse (a zero-size buffer) so tests can prove
    /// that the validation counter works. Returns immediately; the buffer is
    /// destroyed again if the driver created one.
    #[doc(hidden)]
    pub fn provoke_validation_error(&self) {
        let info = vk::BufferCreateInfo::default().size(0).usage(vk::BufferUsageFlags::VERTEX_BUFFER);
        // SAFETY: invalid on purpose (size 0 breaks VUID-VkBufferCreateInfo-size-00912);
        // lavapipe and real drivers accept and ignore it, and the layer reports it.
        if let Ok(b) = unsafe { self.device().create_buffer(&info, None) } {
            unsafe { self.device().destroy_buffer(b, None) };
        }
    }

    /// The logical device.
    pub(crate) fn device(&self) -> &ash::Device {
        &self.gpu.device
    }

    /// Waits until the device has finished all submitted work.
    pub fn wait_idle(&self) -> Result<(), RenderError> {
        // SAFETY: the device is alive.
        unsafe { self.device().device_wait_idle() }.vk("vkDeviceWaitIdle")
    }
}

/// The highest sample count in `supported` (a mask of `vk::SampleCountFlags`)
/// that is a power of two not above `requested` (at least 1).
pub(crate) fn choose_samples(requested: u32, supported: vk::SampleCountFlags) -> u32 {
    let mut n = 1;
    while n * 2 <= requested.min(64) {
        n *= 2;
    }
    while n > 1 && !supported.contains(vk::SampleCountFlags::from_raw(n)) {
        n /= 2;
    }
    n
}

fn pick_device(
    instance: &ash::Instance,
    surface: Option<&(khr::surface::Instance, vk::SurfaceKHR)>,
) -> Result<(vk::PhysicalDevice, u32, DeviceInfo), RenderError> {
    // SAFETY: plain queries on a live instance.
    let devices = unsafe { instance.enumerate_physical_devices() }.vk("vkEnumeratePhysicalDevices")?;
    if devices.is_empty() {
        return Err(RenderError::NoDevice(
            "the Vulkan loader found no device (is a driver such as mesa-vulkan-drivers installed?)".into(),
        ));
    }
    let mut best: Option<(u32, vk::PhysicalDevice, u32, DeviceInfo)> = None;
    let mut rejected = Vec::new();
    for pd in devices {
        let props = unsafe { instance.get_physical_device_properties(pd) };
        let name = props.device_name_as_c_str().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let v = props.api_version;
        let version = (vk::api_version_major(v), vk::api_version_minor(v), vk::api_version_patch(v));
        if v < vk::API_VERSION_1_3 {
            rejected.push(format!("{name}: Vulkan {}.{} < 1.3", version.0, version.1));
            continue;
        }
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f13);
        unsafe { instance.get_physical_device_features2(pd, &mut f2) };
        let independent_blend = f2.features.independent_blend;
        if f13.dynamic_rendering == 0 || f13.synchronization2 == 0 {
            rejected.push(format!("{name}: no dynamicRendering/synchronization2"));
            continue;
        }
        if independent_blend == 0 {
            rejected.push(format!("{name}: no independentBlend"));
            continue;
        }
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
        let family = families.iter().enumerate().find_map(|(i, f)| {
            let i = i as u32;
            let graphics = f.queue_flags.contains(vk::QueueFlags::GRAPHICS);
            let present = match surface {
                Some((l, s)) => unsafe { l.get_physical_device_surface_support(pd, i, *s) }.unwrap_or(false),
                None => true,
            };
            (graphics && present).then_some(i)
        });
        let Some(family) = family else {
            rejected.push(format!("{name}: no graphics queue that can present"));
            continue;
        };
        let (kind, rank) = device_kind(props.device_type);
        if best.as_ref().is_none_or(|b| rank < b.0) {
            best = Some((
                rank,
                pd,
                family,
                DeviceInfo { name, kind, api_version: version, samples: 1, device_type: props.device_type },
            ));
        }
    }
    best.map(|(_, pd, f, info)| (pd, f, info)).ok_or_else(|| RenderError::NoDevice(rejected.join("; ")))
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: reverse creation order; all objects created from the device
        // were destroyed by their owners (which borrow the Context) before this.
        // The device (`_device`) and then the instance-level objects
        // (`roots`) are destroyed after this body, in field order.
        unsafe {
            let _ = self.gpu.device.device_wait_idle();
            let gpu = ManuallyDrop::take(&mut self.gpu);
            if Arc::strong_count(&gpu.allocator) > 1 {
                log::warn!("the GPU allocator outlives the device it allocates from");
            }
            drop(gpu);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_the_highest_supported_count_not_above_the_request() {
        let s = |bits: &[u32]| {
            bits.iter().fold(vk::SampleCountFlags::empty(), |a, &b| a | vk::SampleCountFlags::from_raw(b))
        };
        let lavapipe = s(&[1, 4]);
        assert_eq!(choose_samples(4, lavapipe), 4);
        assert_eq!(choose_samples(8, lavapipe), 4);
        assert_eq!(choose_samples(2, lavapipe), 1);
        assert_eq!(choose_samples(1, lavapipe), 1);
        assert_eq!(choose_samples(0, lavapipe), 1);
        let gpu = s(&[1, 2, 4, 8]);
        assert_eq!(choose_samples(8, gpu), 8);
        assert_eq!(choose_samples(2, gpu), 2);
        // A request between powers of two rounds down.
        assert_eq!(choose_samples(6, gpu), 4);
    }
}
