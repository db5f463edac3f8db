//! `docs/architecture.md` keeps up with the code: its folder map names
//! every folder and file directly under `src/`, and names nothing there
//! that is gone.

use std::collections::BTreeSet;
use std::path::Path;

/// The `src/...` entries of the folder map's first code block, as written
/// (`src/app/`, `src/cli.rs`).
fn mapped() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let map = doc.split("## Folder map").nth(1).expect("a Folder map section");
    let block = map.split("```").nth(1).expect("the map's code block");
    block
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with("src/"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_folder_map_names_every_folder_and_file_directly_under_src() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut present = BTreeSet::new();
    for entry in std::fs::read_dir(root.join("src")).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        present.insert(if entry.file_type().unwrap().is_dir() {
            format!("src/{name}/")
        } else {
            format!("src/{name}")
        });
    }
    let mapped = mapped();
    let missing: Vec<&String> = present.iter().filter(|p| !mapped.contains(*p)).collect();
    assert!(missing.is_empty(), "docs/architecture.md's folder map lacks {missing:?}");
    // Every entry the map names exists (deeper ones too).
    let gone: Vec<&String> = mapped.iter().filter(|m| !root.join(m.as_str()).exists()).collect();
    assert!(gone.is_empty(), "docs/architecture.md's folder map names {gone:?}, which do not exist");
}

#[test]
fn src_holds_at_most_six_files_directly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files: Vec<String> = std::fs::read_dir(root.join("src"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(files.len() <= 6, "{files:?}");
}

/// No `.rs` file under `src/` or `crates/` over 600 lines, unit tests
/// included: a file that long holds two jobs.
#[test]
fn no_source_file_is_over_600_lines() {
    fn walk(dir: &Path, out: &mut Vec<(String, usize)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let lines = std::fs::read_to_string(&path).unwrap().lines().count();
                if lines > 600 {
                    out.push((path.display().to_string(), lines));
                }
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    for dir in ["src", "crates"] {
        walk(&root.join(dir), &mut long);
    }
    assert!(long.is_empty(), "files over 600 lines: {long:?}");
}
