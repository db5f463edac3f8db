//! Device-level ownership: the [`Gpu`] handle every object is created from,
//! and the one pattern for building objects in steps ([`Destroy`] + [`Guard`]).
//!
//! # Ownership pattern
//! Every type that owns Vulkan objects created from a device implements
//! [`Destroy`]; its `destroy` is the single place those objects are
//! destroyed. Such a type starts out with null handles (destroying a null
//! handle is a no-op in Vulkan) and is filled in step by step inside a
//! [`Guard`]: if a step fails, the guard's drop destroys whatever was
//! created so far; on success [`Guard::finish`] hands the value over to its
//! owner. Owners call `destroy` from their own teardown after the GPU is
//! done with the objects. Only the roots (instance and device, in
//! [`crate::render::Context`]) are destroyed in `Drop`.

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, MutexGuard};

use gpu_allocator::vulkan::Allocator;

/// A logical device and the allocator for its memory: what every
/// device-level object is created from and destroyed with. The device may
/// be ours ([`Context`]) or an embedding engine's.
#[derive(Clone)]
pub(crate) struct Gpu {
    pub device: ash::Device,
    pub allocator: Arc<Mutex<Allocator>>,
}

impl Gpu {
    /// The allocator, recovering it if a panic poisoned the lock.
    pub fn allocator(&self) -> MutexGuard<'_, Allocator> {
        self.allocator.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A value owning device-level Vulkan objects.
pub(crate) trait Destroy {
    /// Destroys every object the value owns and leaves null handles behind,
    /// so calling it again does nothing.
    ///
    /// # Safety
    /// The objects were created from `gpu`, and the GPU has finished every
    /// command that uses them.
    unsafe fn destroy(&mut self, gpu: &Gpu);
}

impl<T: Destroy> Destroy for Option<T> {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        if let Some(mut v) = self.take() {
            v.destroy(gpu);
        }
    }
}

impl<T: Destroy> Destroy for Vec<T> {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        for mut v in self.drain(..).rev() {
            v.destroy(gpu);
        }
    }
}

/// Holds a value under construction; destroys it on drop unless
/// [`Guard::finish`] took it out.
pub(crate) struct Guard<'a, T: Destroy> {
    gpu: &'a Gpu,
    value: Option<T>,
}

impl<'a, T: Destroy> Guard<'a, T> {
    pub fn new(gpu: &'a Gpu, value: T) -> Guard<'a, T> {
        Guard { gpu, value: Some(value) }
    }

    /// The finished value; the guard no longer destroys it.
    pub fn finish(mut self) -> T {
        self.value.take().expect("a guard holds its value until finished")
    }
}

impl<T: Destroy> Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value.as_ref().expect("a guard holds its value until finished")
    }
}

impl<T: Destroy> DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value.as_mut().expect("a guard holds its value until finished")
    }
}

impl<T: Destroy> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        if let Some(mut v) = self.value.take() {
            // SAFETY: a value under construction has not been used by any
            // submitted command, and was built from `self.gpu`.
            unsafe { v.destroy(self.gpu) };
        }
    }
}
