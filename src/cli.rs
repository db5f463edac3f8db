//! Command-line interface (see `docs/spec/automation.md`, "Command line").
//!
//! Every failure prints one line, `viewport: <problem>`, and exits with
//! status 2; output files are written atomically or not at all.

use std::path::PathBuf;

use clap::{CommandFactory, FromArgMatches, Parser};

use crate::app::open::Options;
use crate::editor::{Command, KeyMap};
use crate::headless::Outputs;
use crate::math::DepthMode;
use crate::render::Culling;

/// Anything that ends the program: a host's error, the program's own, or
/// a bad `--lighting` file. [`main`] alone turns it into the user's one
/// line (and exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    App(crate::app::Error),
    #[error(transparent)]
    Headless(#[from] crate::headless::Error),
    #[error(transparent)]
    Window(#[from] crate::window::Error),
    /// A `--lighting` file that cannot be read or has a bad field.
    #[error("{0}")]
    Lighting(String),
}

crate::app::error::wraps_app_errors!(Error);

/// The window's controls as `--help` lists them: each row's keys with
/// `{command}` standing for the chords that run it in the key map in force
/// (`docs/spec/automation.md`, "Key map").
const CONTROLS: &[(&str, &str)] = &[
    ("Left click", "select (Shift+click adds / removes)"),
    ("Left drag on handle", "move / rotate / scale; the grabbed point stays under the cursor"),
    ("Left drag elsewhere", "box selection (Shift adds, Ctrl removes, Esc or right click cancels)"),
    ("{translate} / {rotate} / {scale} / {universal}", "translate / rotate / scale / universal gizmo"),
    ("{toggle_space}", "toggle world / local space"),
    ("{cycle_pivot}", "cycle the pivot: median, individual origins, active object, bounds centre"),
    ("Ctrl (held)", "snap the drag (0.5 m, 15 degrees, 0.1 scale)"),
    ("V (held)", "vertex snap: a translate drag's pivot to the nearest vertex within 20 px"),
    ("Ctrl+Shift (held)", "surface snap: a translate drag's pivot to the surface under the cursor"),
    ("{cancel}, right click", "cancel the drag in progress"),
    ("0-9, . and - (drag)", "type the drag's value (m, degrees, factor); Enter confirms"),
    ("{undo}", "undo"),
    ("{redo}", "redo"),
    ("{duplicate}", "duplicate the selection (with children)"),
    ("{delete}", "delete the selection (with children)"),
    ("{select_all}", "select every object"),
    ("{select_none}", "select nothing"),
    ("{filter}", "filter the outliner's rows by name (ancestors kept)"),
    ("{hide}", "hide the selection (children too); one undo step"),
    ("{hide_unselected}", "hide everything but the selection and its ancestors"),
    ("{unhide_all}", "show everything hidden and select it"),
    ("{toggle_ruler}", "the ruler: drag to measure (V: vertices); again: off"),
    ("{local_view}", "local view: only the selection (framed); again: back"),
    ("{store_bookmark_1} ... {store_bookmark_9}", "store the camera as a bookmark (saved in the scene file)"),
    ("{recall_bookmark_1} ... {recall_bookmark_9}", "move the camera to that bookmark"),
    ("{add_menu}", "add menu: a primitive or an empty under the cursor"),
    ("{parent_to_active}", "parent the other selected objects to the active one (world kept)"),
    ("{clear_parent}", "make the selected objects roots (world kept)"),
    ("{group}", "group the selection under a new empty at the pivot"),
    ("{drop_to_floor}", "drop the selection onto the surface below, or the ground"),
    ("{copy}, {paste}", "copy the selection to the clipboard, paste it (names made unique)"),
    ("{focus}", "focus the selection"),
    ("{view_front} / {view_right} / {view_top}", "front / right / top view, orthographic"),
    ("{view_back} / {view_left} / {view_bottom}", "back / left / bottom view, orthographic"),
    ("{toggle_projection}", "toggle perspective / orthographic"),
    ("{camera_view} / {camera_to_view}", "look through the active (or the first) camera object / move the active camera object to the view"),
    ("{toggle_quad_view}", "quad view: Top, Front, Right and perspective; again: one view"),
    ("Middle drag", "orbit about the point under the cursor"),
    ("Shift+middle drag", "pan"),
    ("Wheel", "zoom towards the point under the cursor"),
    ("Right drag", "fly: W/A/S/D/Q/E move (Shift faster), wheel sets the speed, cursor turns"),
    ("{rename}", "rename the active object in its outliner row (a taken name gets .NNN)"),
    ("{toggle_depth}", "toggle reversed / standard depth"),
    ("{toggle_shading}", "toggle material / solid shading"),
    ("{toggle_play}", "play / pause the glTF animation shown (the first clip when none is)"),
    ("{screenshot}", "screenshot (viewport-screenshot-N.png)"),
    ("{save}", "save the scene to its file"),
    ("{export}", "export as glTF: a dialog with the file (STEM.glb) and a selection-only box"),
    ("{import}", "import a glTF file under the cursor (a dialog; one undo step)"),
    ("{open}", "open another scene or glTF file (a dialog; unsaved changes: press twice)"),
    ("{save_as}", "save as (a dialog; the file becomes the scene's file)"),
    ("{new}", "a new, empty scene (a dialog for its file; unsaved changes: press twice)"),
    ("{recover}", "recover the autosave offered on opening (one undo step)"),
    ("Drop a .gltf/.glb", "import it under the cursor (one undo step)"),
    ("N", "show / hide the side panel (outliner, transform fields)"),
    ("Toolbar", "gizmo mode, space, pivot, snapping, depth, projection, shading, scene lights, World (environment, background, exposure; tooltips name the keys)"),
    ("Side panel", "outliner (drag rows onto a row to reparent, double click to rename, arrows fold),\n                        the active object's name and transform fields, its Light or Camera\n                        section, and the Animation section (clip, play / pause, time)\n                        when there are clips"),
    ("Icons", "of lights and cameras, always drawn; a click or a box selects them; a selected\n                        spot shows its cone, a point light its range, a camera its frustum"),
    ("View widget", "click a ball for that side's view; drag on it to orbit"),
    ("{quit}, close", "quit (with unsaved changes: the first press warns, the second quits)"),
];

/// `--help`'s list of the window's controls, with the chords of `keymap`.
pub fn controls_help(keymap: &KeyMap) -> String {
    let mut out = String::from("Window controls:\n");
    for (keys, what) in CONTROLS {
        let mut shown = String::new();
        let mut rest = *keys;
        while let Some(open) = rest.find('{') {
            let close = open + rest[open..].find('}').expect("a closed placeholder");
            shown.push_str(&rest[..open]);
            let command = Command::named(&rest[open + 1..close]).expect("a command of the key map");
            let chords: Vec<String> = keymap.shown_chords(command).iter().map(ToString::to_string).collect();
            shown.push_str(&if chords.is_empty() { "unbound".to_string() } else { chords.join(", ") });
            rest = &rest[close + 1..];
        }
        shown.push_str(rest);
        out.push_str(&format!("  {shown:<21} {what}\n"));
    }
    out.push_str("\nKeys can be rebound: --keymap FILE, or ~/.config/viewport/keymap.json (--list-commands)");
    out
}

#[derive(Debug, Parser)]
#[command(name = "viewport", version, about = "An editor viewport on Vulkan with pixel-perfect gizmos")]
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
    /// It replaces the scene file's `lighting` for this run.
    #[arg(long, value_name = "FILE.json")]
    pub lighting: Option<PathBuf>,
    /// Key bindings: a JSON file of chords and commands over the defaults
    /// (docs/spec/automation.md); default: $XDG_CONFIG_HOME/viewport/keymap.json
    /// (~/.config/viewport/keymap.json) when present
    #[arg(long, value_name = "FILE.json")]
    pub keymap: Option<PathBuf>,
    /// Print every command a key can run, one per line, with the chords that
    /// run it in the key map in force, and exit
    #[arg(long)]
    pub list_commands: bool,
}

/// The `--keymap` value among raw arguments, read before they are parsed
/// so that `--help` shows the key map in force.
fn keymap_arg(args: &[std::ffi::OsString]) -> Option<PathBuf> {
    let mut args = args.iter().skip(1);
    while let Some(a) = args.next() {
        let a = a.to_string_lossy();
        if a == "--" {
            return None;
        }
        if a == "--keymap" {
            return args.next().map(PathBuf::from);
        }
        if let Some(v) = a.strip_prefix("--keymap=") {
            return Some(PathBuf::from(v));
        }
    }
    None
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
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // `--help` lists the chords in force; a bad key map file is reported
    // after parsing, as every other bad input.
    let keymap = crate::app::keys::load_keymap(keymap_arg(&args).as_deref()).unwrap_or_default();
    let parsed = Cli::command().after_help(controls_help(&keymap)).try_get_matches_from(args);
    let cli = match parsed.and_then(|m| Cli::from_arg_matches(&m)) {
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
    let keymap = crate::app::keys::load_keymap(cli.keymap.as_deref())?;
    if cli.list_commands {
        print!("{}", keymap.listing());
        return Ok(0);
    }
    let lighting = match &cli.lighting {
        Some(path) => Some(crate::look::Lighting::read(path).map_err(Error::Lighting)?),
        None => None,
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
        keymap,
    };
    let mut outputs = Outputs {
        replay: cli.replay.clone(),
        trace: cli.trace.clone(),
        screenshot: cli.screenshot.clone(),
        save_scene: cli.save_scene.clone(),
        export: cli.export.clone(),
    };
    if cli.headless {
        return Ok(crate::headless::run(&options, &outputs)?);
    }
    if !has_display() {
        let out = outputs.screenshot.get_or_insert_with(|| PathBuf::from("viewport-headless.png"));
        eprintln!("viewport: no display found (DISPLAY is not set); rendering headless to {}", out.display());
        return Ok(crate::headless::run(&options, &outputs)?);
    }
    Ok(crate::window::run_window(&options)?)
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
