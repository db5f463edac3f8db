//! The user's key map (`docs/spec/automation.md`, "Key map"): the file
//! `--keymap` names, else `$XDG_CONFIG_HOME/viewport/keymap.json`
//! (`~/.config/viewport/keymap.json` without it) when present, else the
//! defaults.

use std::path::{Path, PathBuf};

use super::Error;
use crate::editor::KeyMap;

/// Where the user's own key map file is looked for.
pub fn user_keymap_path() -> Option<PathBuf> {
    let config = match std::env::var_os("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").filter(|d| !d.is_empty())?).join(".config"),
    };
    Some(config.join("viewport").join("keymap.json"))
}

/// The key map in force: `explicit` (`--keymap`) if given, else the
/// user's file if it exists, else the defaults. A file that cannot be
/// read or used is an error naming it and what is wrong.
pub fn load_keymap(explicit: Option<&Path>) -> Result<KeyMap, Error> {
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => match user_keymap_path().filter(|p| p.exists()) {
            Some(p) => p,
            None => return Ok(KeyMap::default()),
        },
    };
    let text = std::fs::read_to_string(&path).map_err(|source| Error::ReadKeyMap { path: path.clone(), source })?;
    KeyMap::from_json(&text).map_err(|source| Error::KeyMap { path, source })
}
