//! Compiles every GLSL shader in `shaders/` to SPIR-V with shaderc.
//!
//! The stage comes from the file extension (`.vert`, `.frag`, `.comp`);
//! `.glsl` files are code the others `#include`. Each
//! output lands in `$OUT_DIR/<file name>.spv` and is embedded by
//! `render::shaders` with `include_bytes!`. A compile error fails the build
//! with shaderc's message, which names the file and line.

use std::fs;
use std::path::{Path, PathBuf};

fn stage_of(path: &Path) -> Option<shaderc::ShaderKind> {
    match path.extension()?.to_str()? {
        "vert" => Some(shaderc::ShaderKind::Vertex),
        "frag" => Some(shaderc::ShaderKind::Fragment),
        "comp" => Some(shaderc::ShaderKind::Compute),
        _ => None,
    }
}

fn main() {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo"));
    let shader_dir = Path::new("shaders");
    println!("cargo:rerun-if-changed={}", shader_dir.display());

    let compiler = shaderc::Compiler::new().expect("shaderc compiler could not be created");
    let mut failures = Vec::new();
    let mut entries: Vec<_> = fs::read_dir(shader_dir)
        .expect("shaders/ directory is missing")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();

    for path in entries {
        println!("cargo:rerun-if-changed={}", path.display());
        let Some(kind) = stage_of(&path) else {
            continue;
        };
        let source = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: cannot read: {e}", path.display()));
        let mut options = shaderc::CompileOptions::new().expect("shaderc options");
        options.set_target_env(shaderc::TargetEnv::Vulkan, shaderc::EnvVersion::Vulkan1_3 as u32);
        options.set_optimization_level(shaderc::OptimizationLevel::Performance);
        options.set_warnings_as_errors();
        // `#include "x.glsl"` reads shaders/x.glsl (shared code, not a stage).
        options.set_include_callback(|name, _kind, _from, _depth| {
            let path = shader_dir.join(name);
            fs::read_to_string(&path)
                .map(|content| shaderc::ResolvedInclude { resolved_name: path.display().to_string(), content })
                .map_err(|e| format!("{}: {e}", path.display()))
        });
        let file_name = path.display().to_string();
        match compiler.compile_into_spirv(&source, kind, &file_name, "main", Some(&options)) {
            Ok(artifact) => {
                let name = path.file_name().unwrap().to_string_lossy();
                fs::write(out_dir.join(format!("{name}.spv")), artifact.as_binary_u8())
                    .expect("cannot write SPIR-V output");
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    if !failures.is_empty() {
        for f in &failures {
            // shaderc's messages read "shaders/x.frag:12: error: ..."; show those lines.
            for line in f.lines().filter(|l| l.contains("error")) {
                println!("cargo:warning={line}");
            }
        }
        panic!("shader compilation failed:\n{}", failures.join("\n"));
    }
}
