//! Command-line interface (see `shared/spec/automation.md`, "Command line").
//!
//! Every failure prints one line, `viewport: <problem>`, and exits with
//! status 2; output files are written atomically or not at all.

use std::path::PathBuf;

use clap::Parser;

use crate::draw::{LoadedMeshes, SceneMeshes};
use crate::editor::Editor;
use crate::headless::{prepare, replay, save_png, trace_jsonl, ReplayTarget, Script};
use crate::math::DepthMode;
use crate::render::{ContextDesc, Renderer};
use crate::scene::{write_atomic, Scene};

pub const BINDINGS_HELP: &str = "\
Window controls:
  Left click            select (Shift+click adds / removes)
  Left drag on handle   move / rotate / scale; the grabbed point stays under the cursor
  W / E / R / T         translate / rotate / scale / universal gizmo
  X                     toggle world / local space
  Ctrl (held)           snap the drag (0.5 m, 15 degrees, 0.1 scale)
  Esc, right click      cancel the drag in progress
  Ctrl+Z, Ctrl+Shift+Z  undo, redo (Ctrl+Y also redoes)
  F                     focus the selection
  Middle drag           orbit about the point under the cursor
  Shift+middle drag     pan
  Wheel                 zoom towards the point under the cursor
  F2                    toggle reversed / standard depth
  F12                   screenshot (viewport-screenshot-N.png)
  Ctrl+S                save the scene to its file
  Ctrl+Q, close         quit";

#[derive(Debug, Parser)]
#[command(name = "viewport", version, about = "An editor viewport on Vulkan with pixel-perfect gizmos", after_help = BINDINGS_HELP)]
pub struct Cli {
    /// Scene file (JSON); the built-in demo scene when omitted.
    pub scene: Option<PathBuf>,
    /// Render off-screen, with no window.
    #[arg(long)]
    pub headless: bool,
    /// Viewport size in physical pixels, WxH.
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Apply a replay script (JSON) before rendering.
    #[arg(long, value_name = "SCRIPT")]
    pub replay: Option<PathBuf>,
    /// Write one JSON line per script event.
    #[arg(long, value_name = "OUT.jsonl", requires = "replay")]
    pub trace: Option<PathBuf>,
    /// Write the final frame as PNG.
    #[arg(long, value_name = "OUT.png")]
    pub screenshot: Option<PathBuf>,
    /// Write the resulting scene as JSON.
    #[arg(long, value_name = "OUT.json")]
    pub save_scene: Option<PathBuf>,
    /// Depth mode: reversed (default) or standard.
    #[arg(long, value_name = "MODE", default_value = "reversed", value_parser = parse_depth)]
    pub depth: DepthMode,
    /// Enable the Khronos validation layer; exit non-zero if it reported an error.
    #[arg(long)]
    pub validation: bool,
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("size must be WxH, got \"{s}\""))?;
    let w: u32 = w.trim().parse().map_err(|_| format!("size must be WxH, got \"{s}\""))?;
    let h: u32 = h.trim().parse().map_err(|_| format!("size must be WxH, got \"{s}\""))?;
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(format!("size must be between 1x1 and 16384x16384, got {w}x{h}"));
    }
    Ok((w, h))
}

fn parse_depth(s: &str) -> Result<DepthMode, String> {
    DepthMode::parse(s).ok_or_else(|| format!("depth must be \"reversed\" or \"standard\", got \"{s}\""))
}

/// A failure that ends the program: printed as one line, exit status 2.
#[derive(Debug)]
pub struct Fatal(pub String);

impl<E: std::fmt::Display> From<E> for Fatal {
    fn from(e: E) -> Fatal {
        Fatal(e.to_string())
    }
}

/// Runs the CLI and returns the process exit status.
pub fn main() -> i32 {
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).try_init();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                print!("{e}");
                return 0;
            }
            let text = e.to_string();
            let line = text.lines().next().unwrap_or("bad arguments").trim_start_matches("error: ");
            eprintln!("viewport: {line} (see --help)");
            return 2;
        }
    };
    match run(&cli) {
        Ok(status) => status,
        Err(Fatal(msg)) => {
            eprintln!("viewport: {msg}");
            2
        }
    }
}

fn load_scene(cli: &Cli) -> Result<Scene, Fatal> {
    Ok(match &cli.scene {
        Some(path) => Scene::load(path)?,
        None => Scene::demo(),
    })
}

fn has_display() -> bool {
    std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty())
}

fn run(cli: &Cli) -> Result<i32, Fatal> {
    let scene = load_scene(cli)?;
    if cli.headless {
        return run_headless(cli, scene, cli.screenshot.clone());
    }
    if !has_display() {
        let out = cli.screenshot.clone().unwrap_or_else(|| PathBuf::from("viewport-headless.png"));
        eprintln!("viewport: no display found (DISPLAY is not set); rendering headless to {}", out.display());
        return run_headless(cli, scene, Some(out));
    }
    crate::app::run_window(cli, scene)
}

/// Exit status for the validation outcome, with a summary line.
pub fn validation_status(cli: &Cli, errors: u32) -> i32 {
    if cli.validation && errors > 0 {
        eprintln!("viewport: the validation layer reported {errors} error(s)");
        1
    } else {
        0
    }
}

fn run_headless(cli: &Cli, scene: Scene, screenshot: Option<PathBuf>) -> Result<i32, Fatal> {
    // Everything is read and validated before the GPU is touched.
    let script = match &cli.replay {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| Fatal(format!("{}: {e}", path.display())))?;
            Script::from_json(&text, &scene).map_err(|e| Fatal(format!("{}: {e}", path.display())))?
        }
        None => Script::from_json(r#"{"events":[]}"#, &scene).map_err(Fatal)?,
    };
    let loaded = LoadedMeshes::load(&scene)?;
    let (w, h) = script.size.unwrap_or(cli.size);
    let mut editor = Editor::new(scene, w as f64, h as f64);
    editor.depth = cli.depth;
    loaded.apply_bounds(&mut editor);
    prepare(&mut editor, &script);

    let mut renderer = Renderer::headless(&ContextDesc { validation: cli.validation }, w, h)?;
    eprintln!("viewport: using {}", renderer.device_info());
    let meshes = SceneMeshes::upload_loaded(&mut renderer, &loaded)?;
    struct Target<'a> {
        renderer: &'a mut Renderer,
        meshes: &'a SceneMeshes,
    }
    impl ReplayTarget for Target<'_> {
        type Error = crate::render::RenderError;
        fn frame(&mut self, editor: &Editor) -> Result<(), Self::Error> {
            self.renderer.draw(&self.meshes.editor_frame(editor).0).map(|_| ())
        }
        fn depth_at(&mut self, p: nalgebra::Point2<f64>) -> Result<Option<f64>, Self::Error> {
            self.renderer.depth_at(p.x, p.y)
        }
    }
    let trace = replay(&mut editor, &script, &mut Target { renderer: &mut renderer, meshes: &meshes })?;
    renderer.draw(&meshes.editor_frame(&editor).0)?;
    let image = renderer.read_color()?;

    if let Some(path) = &cli.trace {
        write_atomic(path, trace_jsonl(&trace).as_bytes())?;
    }
    if let Some(path) = &cli.save_scene {
        editor.scene_to_save().save(path)?;
    }
    if let Some(path) = &screenshot {
        save_png(path, &image)?;
    }
    renderer.wait_idle()?;
    Ok(validation_status(cli, renderer.validation().errors()))
}
