//! Helpers shared by the test binaries (`core`, `render`, `cli`, `window`);
//! each declares `mod support;` and uses the parts it needs.

#![allow(dead_code)]

pub mod cameras;
pub mod cli;
pub mod gpu;
pub mod image;
pub mod morphed;
pub mod replay;
pub mod rigged;
pub mod skinned;
pub mod squares;
pub mod textured;
pub mod xvfb;
