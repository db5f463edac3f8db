//! Running the real binary.

/// Runs the viewport binary with no display.
pub fn viewport_cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_viewport")).args(args).env_remove("DISPLAY").output().unwrap()
}

/// Bad input: exit status 2, exactly one `viewport: ...` line on stderr that
/// contains `needle`, and no panic.
pub fn assert_bad_input(out: &std::process::Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "exactly one error line, got: {stderr}");
    assert!(lines[0].starts_with("viewport: "), "{stderr}");
    assert!(lines[0].contains(needle), "expected {needle:?} in: {stderr}");
    assert!(!stderr.contains("panicked"));
}

/// Writes `text` to `dir/name` and returns the path as a string argument.
pub fn write_file(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// One triangle as a self-contained `.gltf` (its buffer inline): the
/// smallest glTF mesh file, for tests about paths and files.
pub const TRIANGLE_GLTF: &str = r#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}],
"bufferViews":[{"buffer":0,"byteLength":36}],
"buffers":[{"byteLength":36,"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}]}"#;
