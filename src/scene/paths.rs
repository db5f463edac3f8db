//! Path handling for scene files: paths made absolute and clean by name,
//! and the relative path from one folder to a file.

use std::path::{Path, PathBuf};

/// `p` made absolute (against the working folder) with `.` and `..`
/// resolved by name (symbolic links are not followed).
pub(super) fn absolute_clean(p: &Path) -> PathBuf {
    use std::path::Component;
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The path from folder `dir` to `target`, both absolute and clean.
pub(super) fn relative_path(dir: &Path, target: &Path) -> PathBuf {
    let d: Vec<_> = dir.components().collect();
    let t: Vec<_> = target.components().collect();
    let common = d.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..d.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}
