//! The binary's command line: headless output, and bad input that must give
//! one clear line and exit status 2 without touching existing output files.

use crate::support::cli::{assert_bad_input, viewport_cli, write_file};

use std::path::Path;

#[test]
fn headless_screenshot_and_scene_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("out.png");
    let json = dir.path().join("out.json");
    let out = viewport_cli(&[
        "--headless",
        "--validation",
        "--size",
        "200x120",
        "--screenshot",
        png.to_str().unwrap(),
        "--save-scene",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let info = decoder.read_info().unwrap();
    assert_eq!((info.info().width, info.info().height), (200, 120));
    let saved = viewport::scene::Scene::load(&json).unwrap();
    assert_eq!(saved.objects().len(), viewport::scene::Scene::demo().objects().len());
    // Only the two outputs: no temporary files left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn without_a_display_it_says_so_and_renders_headless() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("fallback.png");
    let out = viewport_cli(&["--size", "64x48", "--screenshot", png.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("no display"), "{stderr}");
    assert!(png.exists());
}

#[test]
fn bad_input_is_one_line_and_status_2_and_leaves_outputs_alone() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| write_file(dir.path(), name, text);
    let png = write("existing.png", "keep me");
    let truncated = write("truncated.json", r#"{"objects":[{"name":"a","mesh":"cube""#);
    // Cut right after the array opens: the streamed reader once panicked here.
    let open_array = write("open-array.json", "{\"objects\": [");
    let unknown = write("unknown.json", r#"{"objects":[],"lights":[]}"#);
    let bad_parent = write("parent.json", r#"{"objects":[{"name":"a","mesh":"cube","parent":"ghost"}]}"#);
    let degenerate = write("camera.json", r#"{"camera":{"eye":[1,2,3],"target":[1,2,3]},"objects":[]}"#);
    let zero_scale = write("scale.json", r#"{"objects":[{"name":"a","mesh":"cube","scale":[0,1,1]}]}"#);
    let nan = write("nan.json", r#"{"objects":[{"name":"a","mesh":"cube","position":[1e999,0,0]}]}"#);

    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["/nonexistent/scene.json"], "/nonexistent/scene.json"),
        (vec![&truncated], "truncated.json"),
        (vec![&open_array], "EOF while parsing"),
        (vec![&unknown], "lights"),
        (vec![&bad_parent], "ghost"),
        (vec![&degenerate], "coincide"),
        (vec![&zero_scale], "scale"),
        (vec![&nan], "nan.json"),
        (vec!["--size", "0x0"], "size"),
        (vec!["--size", "big"], "WxH"),
        (vec!["--depth", "sideways"], "sideways"),
        (vec!["--frobnicate"], "frobnicate"),
        (vec!["--trace", "t.jsonl"], "were not provided: --replay <SCRIPT>"),
        (vec!["--culling", "fast"], "culling must be \"auto\", \"gpu\" or \"cpu\", got \"fast\""),
        (vec!["--culling", "GPU"], "culling must be \"auto\", \"gpu\" or \"cpu\", got \"GPU\""),
        (vec!["--culling", ""], "culling must be"),
        (vec!["--culling", "auto", "--gpu-culling"], "cannot be used with"),
        (vec!["--culling", "cpu", "--gpu-culling"], "cannot be used with"),
    ];
    for (args, needle) in cases {
        let mut full = vec!["--headless", "--screenshot", &png];
        full.extend(args.iter().copied());
        let out = viewport_cli(&full);
        assert_bad_input(&out, needle);
        assert_eq!(std::fs::read_to_string(&png).unwrap(), "keep me", "{args:?} touched the output");
    }
    assert!(Path::new(&png).exists());
}

#[test]
fn msaa_samples_other_than_1_2_4_8_are_one_line_and_status_2_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("out.png");
    for bad in ["3", "0", "x", "16", "-4", ""] {
        // `--samples=-4`: as a separate word, `-4` would read as a flag.
        let arg = format!("--samples={bad}");
        let out = viewport_cli(&["--headless", "--size", "32x24", "--screenshot", png.to_str().unwrap(), &arg]);
        assert_bad_input(&out, "samples must be 1, 2, 4 or 8");
        assert!(!png.exists(), "--samples {bad:?} wrote the screenshot");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // Every accepted count renders (8 falls back to the device's highest
    // supported count, 4 on lavapipe), with validation.
    for good in ["1", "2", "4", "8"] {
        let out = viewport_cli(&[
            "--headless",
            "--validation",
            "--size",
            "32x24",
            "--screenshot",
            png.to_str().unwrap(),
            "--samples",
            good,
        ]);
        assert!(out.status.success(), "--samples {good}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(png.exists());
        std::fs::remove_file(&png).unwrap();
    }
}

/// Every input of the README's controls table has a line in `--help`: the
/// first word of each row's input column starts a line of the help's
/// bindings (the README is the user's reference, `--help` the quick one).
#[test]
fn help_lists_every_binding_of_the_readme() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let table = readme.split("## Controls (window)").nth(1).unwrap().split("\n#").next().unwrap();
    let inputs: Vec<String> = table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Input") && !l.starts_with("| ---"))
        .map(|l| l[2..].split([' ', '/', '(']).next().unwrap().trim_matches('`').to_lowercase())
        .collect();
    assert!(inputs.len() >= 25, "{inputs:?}");
    let out = viewport_cli(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout).to_lowercase();
    let starts: Vec<&str> = help.lines().map(str::trim_start).collect();
    for input in &inputs {
        assert!(starts.iter().any(|l| l.starts_with(input.as_str())), "--help has no line for `{input}`");
    }
}

/// Every option `--help` lists says what it does: each line of its
/// options that names a flag goes on, after the flag, with words.
#[test]
fn help_describes_every_option() {
    let out = viewport_cli(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let options = help.split("Options:").nth(1).unwrap().split("\n\n").next().unwrap();
    let flags: Vec<&str> = options.lines().filter(|l| l.trim_start().starts_with('-')).collect();
    assert!(flags.len() >= 15, "{options}");
    for line in flags {
        // The flag (and its value name) and the description are apart by
        // two spaces or more.
        let text = line.trim().split_once("  ").map(|(_, rest)| rest.trim()).unwrap_or("");
        assert!(!text.is_empty(), "--help says nothing of `{}`", line.trim());
    }
}

/// `--culling auto` (the default) is CPU culling on lavapipe, a CPU
/// rasteriser: the same picture as `--culling cpu`, and the start-up line
/// says which path and why. GPU culling (`--culling gpu`, `--gpu-culling`)
/// draws the demo as the CPU path does.
#[test]
fn culling_auto_is_the_cpu_path_on_lavapipe_and_gpu_culling_draws_the_demo_alike() {
    let dir = tempfile::tempdir().unwrap();
    for samples in ["1", "4"] {
        let shot = |culling: &[&str]| {
            let png = dir.path().join(format!("{samples}-{}.png", culling.join("")));
            let mut args =
                vec!["--headless", "--validation", "--size", "320x180", "--samples", samples, "--screenshot"];
            args.push(png.to_str().unwrap());
            args.extend_from_slice(culling);
            let out = viewport_cli(&args);
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(out.status.success(), "{culling:?}: {stderr}");
            let using: Vec<&str> = stderr.lines().filter(|l| l.starts_with("viewport: using ")).collect();
            assert_eq!(using.len(), 1, "{culling:?}: one start-up line: {stderr}");
            // The tests force lavapipe (VK_DRIVER_FILES), a CPU device.
            assert!(using[0].contains("(CPU, Vulkan "), "not lavapipe: {stderr}");
            (crate::support::image::read_png(&png), using[0].to_string())
        };
        let ((cpu, cpu_line), (gpu, gpu_line)) = (shot(&["--culling", "cpu"]), shot(&["--culling", "gpu"]));
        assert!(cpu_line.ends_with(&format!("; {samples}x MSAA; CPU culling (asked)")), "{cpu_line}");
        assert!(gpu_line.ends_with("; GPU culling (asked)"), "{gpu_line}");
        let (auto, auto_line) = shot(&["--culling", "auto"]);
        assert!(auto_line.ends_with("; CPU culling (auto: a CPU rasteriser)"), "{auto_line}");
        assert_eq!(auto.data, cpu.data, "{samples}x: --culling auto is --culling cpu on lavapipe");
        let (default, default_line) = shot(&[]);
        assert_eq!(default_line, auto_line, "{samples}x: the default is --culling auto");
        assert_eq!(default.data, cpu.data, "{samples}x: the default is --culling cpu on lavapipe");
        let (alias, alias_line) = shot(&["--gpu-culling"]);
        assert_eq!(
            (alias.data, alias_line),
            (gpu.data.clone(), gpu_line),
            "{samples}x: --gpu-culling is --culling gpu"
        );
        let pixels = (cpu.width * cpu.height) as usize;
        let differ = (0..pixels).filter(|&i| cpu.data[i * 4..i * 4 + 4] != gpu.data[i * 4..i * 4 + 4]).count();
        // The same picture but for a few silhouette pixels (f32 model-view on the GPU).
        assert!(differ * 200 <= pixels, "{samples}x: {differ} of {pixels} pixels differ");
        let lit = (0..pixels).filter(|&i| gpu.data[i * 4..i * 4 + 3].iter().any(|&c| c > 60)).count();
        assert!(lit * 20 > pixels, "{samples}x: the objects are drawn ({lit} bright pixels)");
    }
}

#[test]
fn bad_lighting_files_and_objects_are_one_line_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("out.png");
    let png = png.to_str().unwrap();
    for (text, needle) in [
        (r#"{"shading":"wire"}"#, "lighting.shading"),
        (r#"{"environment":"sky.hdr"}"#, "sky.hdr: cannot read"),
        (r#"{"sun":{"power":2}}"#, "unknown field `power`"),
        (r#"{"tone_mapping":1}"#, "invalid type"),
    ] {
        let file = write_file(dir.path(), "lighting.json", text);
        let out = viewport_cli(&["--headless", "--size", "32x24", "--lighting", &file, "--screenshot", png]);
        assert_bad_input(&out, needle);
        let script = write_file(dir.path(), "script.json", &format!(r#"{{"lighting":{text},"events":[]}}"#));
        let out = viewport_cli(&["--headless", "--size", "32x24", "--replay", &script, "--screenshot", png]);
        assert_bad_input(&out, needle);
    }
    let out = viewport_cli(&["--headless", "--lighting", "/no/such/lighting.json", "--screenshot", png]);
    assert_bad_input(&out, "lighting.json");
    assert!(!Path::new(png).exists());
}

/// An RGBE file of `w` x `h` texels all of radiance `rgbe` (flat scanlines).
fn constant_hdr(w: u32, h: u32, rgbe: [u8; 4]) -> Vec<u8> {
    let mut bytes = format!("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {h} +X {w}\n").into_bytes();
    for _ in 0..w * h {
        bytes.extend_from_slice(&rgbe);
    }
    bytes
}

fn png_pixels(path: &Path) -> Vec<u8> {
    let decoder = png::Decoder::new(std::io::Cursor::new(std::fs::read(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    reader.next_frame(&mut buf).unwrap();
    buf
}

/// The 96x64 headless screenshot (validation on, no UI) of a run with
/// `extra` arguments, written to `png`, as RGBA bytes.
fn shot_96x64(png: &Path, extra: &[&str]) -> Vec<u8> {
    let mut args = vec!["--headless", "--validation", "--no-ui", "--size", "96x64", "--screenshot"];
    args.push(png.to_str().unwrap());
    args.extend_from_slice(extra);
    let out = viewport_cli(&args);
    assert!(out.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&out.stderr));
    png_pixels(png)
}

#[test]
fn hdr_environments_are_read_beside_the_lighting_or_script_file_and_bad_ones_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (env, scripts) = (dir.path().join("env"), dir.path().join("scripts"));
    std::fs::create_dir_all(&env).unwrap();
    std::fs::create_dir_all(&scripts).unwrap();
    // Radiance (0.25, 0.5, 0.375): bytes x 2^(128 - 136).
    std::fs::write(env.join("sky.hdr"), constant_hdr(16, 8, [64, 128, 96, 128])).unwrap();
    let rest = r#""grid":false,"sun":null,"tone_mapping":"linear""#;
    let hdr = write_file(&env, "hdr.json", &format!(r#"{{"environment":"sky.hdr",{rest}}}"#));
    let uniform = write_file(
        &env,
        "uniform.json",
        &format!(r#"{{"environment":"uniform","environment_color":[0.25,0.5,0.375],{rest}}}"#),
    );
    let script = write_file(
        &scripts,
        "s.json",
        &format!(r#"{{"lighting":{{"environment":"../env/sky.hdr",{rest}}},"events":[]}}"#),
    );
    let shot = |name: &str, extra: &[&str]| shot_96x64(&dir.path().join(name), extra);
    // The demo scene: a constant file draws as the uniform environment of
    // its radiance, by `--lighting` and by a script.
    let want = shot("uniform.png", &["--lighting", &uniform]);
    for got in [shot("hdr.png", &["--lighting", &hdr]), shot("script.png", &["--replay", &script])] {
        let worst = want.iter().zip(&got).map(|(a, b)| (i32::from(*a) - i32::from(*b)).abs()).max().unwrap();
        assert!(worst <= 3, "pixels differ by up to {worst} levels");
    }

    std::fs::write(env.join("garbage.hdr"), b"GIF89a not an hdr at all").unwrap();
    let mut truncated = constant_hdr(16, 8, [64, 128, 96, 128]);
    truncated.truncate(truncated.len() - 40);
    std::fs::write(env.join("truncated.hdr"), truncated).unwrap();
    std::fs::write(env.join("empty.hdr"), b"").unwrap();
    let png = dir.path().join("bad.png");
    let png = png.to_str().unwrap();
    for (file, problem) in [
        ("missing.hdr", "missing.hdr: cannot read"),
        ("garbage.hdr", "garbage.hdr: not a readable Radiance .hdr image"),
        ("truncated.hdr", "truncated.hdr: not a readable Radiance .hdr image"),
        ("empty.hdr", "empty.hdr: not a readable Radiance .hdr image"),
    ] {
        let lighting = write_file(&env, "bad.json", &format!(r#"{{"environment":"{file}"}}"#));
        let out = viewport_cli(&["--headless", "--size", "32x24", "--lighting", &lighting, "--screenshot", png]);
        assert_bad_input(&out, problem);
        assert_bad_input(&out, "lighting.environment");
        let script = write_file(
            &scripts,
            "bad.json",
            &format!(r#"{{"lighting":{{"environment":"../env/{file}"}},"events":[]}}"#),
        );
        let out = viewport_cli(&["--headless", "--size", "32x24", "--replay", &script, "--screenshot", png]);
        assert_bad_input(&out, problem);
        assert!(!Path::new(png).exists());
    }
}

#[test]
fn the_shipped_sky_lighting_file_opens_and_lights_unlike_the_studio() {
    // The README's example: `--lighting assets/lighting-sky.json`, its
    // `.hdr` named relative to it.
    let dir = tempfile::tempdir().unwrap();
    let sky = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/lighting-sky.json");
    let shot = |name: &str, extra: &[&str]| shot_96x64(&dir.path().join(name), extra);
    let studio = shot("studio.png", &[]);
    let lit = shot("sky.png", &["--lighting", sky.to_str().unwrap()]);
    let differing = studio.chunks(4).zip(lit.chunks(4)).filter(|(a, b)| a != b).count();
    assert!(differing > 100, "only {differing} pixels differ from the studio's");
}

#[test]
fn a_lighting_file_sets_the_mode_background_and_grid() {
    // The solid mode with a background of sRGB (0.5, 0.25, 1) and no grid:
    // the corner pixel shows that colour as written.
    let dir = tempfile::tempdir().unwrap();
    let file = write_file(dir.path(), "l.json", r#"{"shading":"solid","background":[0.5,0.25,1],"grid":false}"#);
    let png = dir.path().join("out.png");
    let out = viewport_cli(&[
        "--headless",
        "--validation",
        "--no-ui",
        "--size",
        "64x48",
        "--lighting",
        &file,
        "--screenshot",
        png.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let decoder = png::Decoder::new(std::io::Cursor::new(std::fs::read(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    reader.next_frame(&mut buf).unwrap();
    let want = [128i32, 64, 255];
    for k in 0..3 {
        assert!((i32::from(buf[k]) - want[k]).abs() <= 1, "{:?}", &buf[..4]);
    }
}
