//! Command-line interface (see `docs/spec/automation.md`, "Command line").
//!
//! Every failure prints one line, `viewport: <problem>`, and exits with
//! status 2; output files are written atomically or not at all.

use std::path::PathBuf;

use clap::Parser;

use crate::error::Error;
use crate::headless::Outputs;
use crate::math::DepthMode;
use crate::render::Culling;
use crate::setup::Options;

pub const BINDINGS_HELP: &str = "\
Window controls:
  Left click            select (Shift+click adds / removes)
  Left drag on handle   move / rotate / scale; the grabbed point stays under the cursor
  Left drag elsewhere   box selection (Shift adds, Ctrl removes, Esc or right click cancels)
  W / E / R / T         translate / rotate / scale / universal gizmo
  X                     toggle world / local space
  Period (.)            cycle the pivot: median, individual origins, active object, bounds centre
  Ctrl (held)           snap the drag (0.5 m, 15 degrees, 0.1 scale)
  V (held)              vertex snap: a translate drag's pivot to the nearest vertex within 20 px
  Ctrl+Shift (held)     surface snap: a translate drag's pivot to the surface under the cursor
  Esc, right click      cancel the drag in progress
  0-9, . and - (drag)   type the drag's value (m, degrees, factor); Enter confirms
  Ctrl+Z, Ctrl+Shift+Z  undo, redo (Ctrl+Y also redoes)
  Ctrl+D, Shift+D       duplicate the selection (with children)
  Delete                delete the selection (with children)
  A, Ctrl+A             select every object
  Alt+A                 select nothing
  Ctrl+F                filter the outliner's rows by name (ancestors kept)
  H                     hide the selection (children too); one undo step
  Shift+H               hide everything but the selection and its ancestors
  Alt+H                 show everything hidden and select it
  M                     the ruler: drag to measure (V: vertices); M again: off
  NumpadDivide, /       local view: only the selection (framed); again: back
  Ctrl+1 ... Ctrl+9     store the camera as a bookmark (saved in the scene file)
  1 ... 9               move the camera to that bookmark
  Shift+A               add menu: a primitive or an empty under the cursor
  Ctrl+P                parent the other selected objects to the active one (world kept)
  Alt+P                 make the selected objects roots (world kept)
  Ctrl+G                group the selection under a new empty at the pivot
  End                   drop the selection onto the surface below, or the ground
  Ctrl+C, Ctrl+V        copy the selection to the clipboard, paste it (names made unique)
  F, NumpadDecimal      focus the selection
  Numpad1 / 3 / 7       front / right / top view (Ctrl: back / left / bottom), orthographic
  Numpad5               toggle perspective / orthographic
  Ctrl+Alt+Q            quad view: Top, Front, Right and perspective; again: one view
  Middle drag           orbit about the point under the cursor
  Shift+middle drag     pan
  Wheel                 zoom towards the point under the cursor
  Right drag            fly: W/A/S/D/Q/E move (Shift faster), wheel sets the speed, cursor turns
  F2                    rename the active object in its outliner row (a taken name gets .NNN)
  Shift+F2              toggle reversed / standard depth
  Z                     toggle material / solid shading
  Space                 play / pause the glTF animation shown (the first clip when none is)
  F12                   screenshot (viewport-screenshot-N.png)
  Ctrl+S                save the scene to its file
  Ctrl+E                export as glTF: a dialog with the file (STEM.glb) and a selection-only box
  Ctrl+O                open another scene or glTF file (a dialog; unsaved changes: press twice)
  Ctrl+Shift+S          save as (a dialog; the file becomes the scene's file)
  Ctrl+N                a new, empty scene (a dialog for its file; unsaved changes: press twice)
  Ctrl+Shift+R          recover the autosave offered on opening (one undo step)
  Drop a .gltf/.glb     import it under the cursor (one undo step)
  N                     show / hide the side panel (outliner, transform fields)
  Toolbar               gizmo mode, space, pivot, snapping, depth, projection, shading, scene lights (tooltips name the keys)
  Side panel            outliner (drag rows onto a row to reparent, double click to rename,
                        arrows fold), the active object's name and transform fields, and
                        the Animation section (clip, play / pause, time) when there are clips
  View widget           click a ball for that side's view; drag on it to orbit
  Ctrl+Q, close         quit (with unsaved changes: the first press warns, the second quits)";

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
    /// Write the resulting scene as glTF 2.0: OUT.glb (one file) or
    /// OUT.gltf (with OUT.bin beside it).
    #[arg(long, value_name = "OUT.glb")]
    pub export: Option<PathBuf>,
    /// Depth mode: reversed (default) or standard.
    #[arg(long, value_name = "MODE", default_value = "reversed", value_parser = parse_depth)]
    pub depth: DepthMode,
    /// Enable the Khronos validation layer; exit non-zero if it reported an error.
    #[arg(long)]
    pub validation: bool,
    /// MSAA samples per pixel: 1 (off), 2, 4 or 8; the device's highest
    /// supported count not above it is used. Default: 4 on a GPU, 1 on a
    /// CPU rasteriser (lavapipe).
    #[arg(long, value_name = "N", value_parser = parse_samples)]
    pub samples: Option<u32>,
    /// Show the 3D view alone: no toolbar, status line, side panel or view
    /// widget, and every event reaches the editor (for tests and captures of
    /// the 3D view).
    #[arg(long)]
    pub no_ui: bool,
    /// Scene culling: auto (the default: gpu on a GPU, cpu on a CPU
    /// rasteriser such as lavapipe), gpu (object data in persistent GPU
    /// buffers, frustum culling in a compute pass, indirect draws; cpu where
    /// the device lacks drawIndirectFirstInstance) or cpu (culled and listed
    /// on the CPU each frame).
    #[arg(long, value_name = "MODE", value_parser = parse_culling)]
    pub culling: Option<Culling>,
    /// The same as `--culling gpu`.
    #[arg(long, conflicts_with = "culling")]
    pub gpu_culling: bool,
    /// Seconds between autosaves of unsaved changes in the window
    /// (fractions allowed, up to 1e9; 0 turns autosave off)
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_autosave)]
    pub autosave_secs: f64,
    /// Open SCENE's autosave (STEM.autosave.json; without SCENE, the demo's)
    /// in its place; Ctrl+S still writes SCENE; exit 2 if there is none
    #[arg(long)]
    pub recover: bool,
    /// Shading mode and lights: a JSON file holding the replay script's
    /// `lighting` object (docs/spec/materials.md); every field optional.
    #[arg(long, value_name = "FILE.json")]
    pub lighting: Option<PathBuf>,
}

fn parse_autosave(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=1e9).contains(&v) => Ok(v),
        _ => Err(format!("autosave-secs must be a number of seconds from 0 (off) to 1e9, got \"{s}\"")),
    }
}

fn parse_culling(s: &str) -> Result<Culling, String> {
    Culling::parse(s).ok_or_else(|| format!("culling must be \"auto\", \"gpu\" or \"cpu\", got \"{s}\""))
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

fn parse_samples(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n @ (1 | 2 | 4 | 8)) => Ok(n),
        _ => Err(format!("samples must be 1, 2, 4 or 8, got \"{s}\"")),
    }
}

fn parse_depth(s: &str) -> Result<DepthMode, String> {
    DepthMode::parse(s).ok_or_else(|| format!("depth must be \"reversed\" or \"standard\", got \"{s}\""))
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
            eprintln!("viewport: {} (see --help)", clap_error_line(&e.to_string()));
            return 2;
        }
    };
    match run(&cli) {
        Ok(errors) => validation_status(&cli, errors),
        Err(e) => {
            eprintln!("viewport: {e}");
            2
        }
    }
}

/// A clap error as one line: its message up to the usage, indented
/// continuations (the missing arguments, say) joined on.
fn clap_error_line(text: &str) -> String {
    let parts: Vec<&str> =
        text.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).filter(|l| !l.is_empty()).collect();
    match parts.join(" ").trim_start_matches("error: ") {
        "" => "bad arguments".to_string(),
        line => line.to_string(),
    }
}

fn has_display() -> bool {
    std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty())
}

/// Opens the window, or runs headless; returns the validation error count.
fn run(cli: &Cli) -> Result<u32, Error> {
    let lighting = match &cli.lighting {
        Some(path) => crate::lighting::Lighting::read(path).map_err(Error::Lighting)?,
        None => crate::lighting::Lighting::default(),
    };
    let options = Options {
        lighting,
        scene: cli.scene.clone(),
        size: cli.size,
        depth: cli.depth,
        validation: cli.validation,
        // 0: the renderer chooses by device (ContextDesc::samples).
        samples: cli.samples.unwrap_or(0),
        ui: !cli.no_ui,
        culling: if cli.gpu_culling { Culling::Gpu } else { cli.culling.unwrap_or_default() },
        recover: cli.recover,
        autosave_secs: cli.autosave_secs,
    };
    let mut outputs = Outputs {
        replay: cli.replay.clone(),
        trace: cli.trace.clone(),
        screenshot: cli.screenshot.clone(),
        save_scene: cli.save_scene.clone(),
        export: cli.export.clone(),
    };
    if cli.headless {
        return crate::headless::run(&options, &outputs);
    }
    if !has_display() {
        let out = outputs.screenshot.get_or_insert_with(|| PathBuf::from("viewport-headless.png"));
        eprintln!("viewport: no display found (DISPLAY is not set); rendering headless to {}", out.display());
        return crate::headless::run(&options, &outputs);
    }
    crate::app::run_window(&options)
}

/// Exit status for the validation outcome, with a summary line.
fn validation_status(cli: &Cli, errors: u32) -> i32 {
    if cli.validation && errors > 0 {
        eprintln!("viewport: the validation layer reported {errors} error(s)");
        1
    } else {
        0
    }
}
