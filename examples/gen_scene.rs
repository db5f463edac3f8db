//! Writes the benchmark scenes: `n` unit cubes on a grid
//! ([`viewport::scene::Scene::cube_grid`]), as a scene file.
//!
//! `cargo run --release --example gen_scene -- 160000 cubes-160k.json`
//! (`make bench-scenes` writes the 1k, 160k and 1M scenes into `target/`).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(n), Some(out)) = (args.first().and_then(|a| a.parse::<usize>().ok()), args.get(1)) else {
        eprintln!("gen_scene: usage: gen_scene COUNT OUT.json");
        return ExitCode::from(2);
    };
    match viewport::scene::Scene::cube_grid(n).save(&PathBuf::from(out)) {
        Ok(()) => {
            println!("gen_scene: wrote {n} cubes to {out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen_scene: {e}");
            ExitCode::from(2)
        }
    }
}
