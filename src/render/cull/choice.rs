//! Which scene path a frame takes (`--culling auto|gpu|cpu`): GPU culling
//! (persistent object records, a compute cull, indirect draws) or CPU
//! culling (the editor's pick tree walked and the visible objects listed
//! each frame).
//!
//! `auto` (the default) follows the device like the sample count does: GPU
//! culling on a GPU (discrete, integrated, virtual or other), CPU culling on
//! a CPU rasteriser such as lavapipe, where the "GPU" cull is compute run on
//! the same CPU cores and is the slower and larger path on every measure
//! (`docs/architecture.md`, "GPU culling").

use ash::vk;

/// Where the scene is asked to be frustum-culled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Culling {
    /// GPU culling on a GPU, CPU culling on a CPU rasteriser.
    #[default]
    Auto,
    /// GPU culling where the device supports it (else CPU culling).
    Gpu,
    /// CPU culling.
    Cpu,
}

impl Culling {
    /// `auto`, `gpu` or `cpu` (the command line's words).
    pub fn parse(s: &str) -> Option<Culling> {
        match s {
            "auto" => Some(Culling::Auto),
            "gpu" => Some(Culling::Gpu),
            "cpu" => Some(Culling::Cpu),
            _ => None,
        }
    }
}

/// What a [`Culling`] request comes to on a device
/// ([`Renderer::culling`](crate::render::Renderer::culling)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CullingChoice {
    /// Whether the scene is drawn GPU-culled (hand a `GpuSync` to
    /// `SceneMeshes::frame_for`); it still falls back to CPU culling for a
    /// frame with posed skins.
    pub gpu: bool,
    /// Why, in a few words (for the start-up line).
    pub why: &'static str,
}

impl std::fmt::Display for CullingChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.gpu { "GPU culling" } else { "CPU culling" };
        write!(f, "{path} ({})", self.why)
    }
}

/// The scene path for `asked` on a device of type `device_type` that has
/// (`first_instance`) or lacks `drawIndirectFirstInstance`, which GPU
/// culling needs. A pure function of its arguments.
pub(crate) fn choose_culling(
    asked: Culling,
    device_type: vk::PhysicalDeviceType,
    first_instance: bool,
) -> CullingChoice {
    let cpu_rasteriser = device_type == vk::PhysicalDeviceType::CPU;
    let (gpu, why) = match asked {
        Culling::Cpu => (false, "asked"),
        Culling::Auto if cpu_rasteriser => (false, "auto: a CPU rasteriser"),
        Culling::Auto => (true, "auto: a GPU"),
        Culling::Gpu => (true, "asked"),
    };
    if gpu && !first_instance {
        return CullingChoice { gpu: false, why: "the device lacks drawIndirectFirstInstance" };
    }
    CullingChoice { gpu, why }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_culls_on_the_gpu_of_every_device_type_but_a_cpu_rasteriser() {
        use vk::PhysicalDeviceType as T;
        for t in [T::DISCRETE_GPU, T::INTEGRATED_GPU, T::VIRTUAL_GPU, T::OTHER] {
            assert!(choose_culling(Culling::Auto, t, true).gpu, "{t:?}");
            assert!(!choose_culling(Culling::Auto, t, false).gpu, "{t:?} without drawIndirectFirstInstance");
        }
        assert!(!choose_culling(Culling::Auto, T::CPU, true).gpu);
        // Explicit requests keep their meaning on every device.
        for t in [T::DISCRETE_GPU, T::INTEGRATED_GPU, T::VIRTUAL_GPU, T::OTHER, T::CPU] {
            assert!(choose_culling(Culling::Gpu, t, true).gpu, "{t:?}");
            assert!(!choose_culling(Culling::Gpu, t, false).gpu, "{t:?} without drawIndirectFirstInstance");
            assert!(!choose_culling(Culling::Cpu, t, true).gpu, "{t:?}");
        }
    }

    #[test]
    fn the_choice_says_which_path_and_why() {
        let t = vk::PhysicalDeviceType::CPU;
        assert_eq!(choose_culling(Culling::Auto, t, true).to_string(), "CPU culling (auto: a CPU rasteriser)");
        assert_eq!(choose_culling(Culling::Gpu, t, true).to_string(), "GPU culling (asked)");
        assert_eq!(
            choose_culling(Culling::Gpu, t, false).to_string(),
            "CPU culling (the device lacks drawIndirectFirstInstance)"
        );
        let t = vk::PhysicalDeviceType::DISCRETE_GPU;
        assert_eq!(choose_culling(Culling::Auto, t, true).to_string(), "GPU culling (auto: a GPU)");
        assert_eq!(choose_culling(Culling::Cpu, t, true).to_string(), "CPU culling (asked)");
    }

    #[test]
    fn parse_takes_the_three_words_alone() {
        assert_eq!(Culling::parse("auto"), Some(Culling::Auto));
        assert_eq!(Culling::parse("gpu"), Some(Culling::Gpu));
        assert_eq!(Culling::parse("cpu"), Some(Culling::Cpu));
        for bad in ["", "GPU", "fast", "auto ", "none"] {
            assert_eq!(Culling::parse(bad), None, "{bad:?}");
        }
        assert_eq!(Culling::default(), Culling::Auto);
    }
}
