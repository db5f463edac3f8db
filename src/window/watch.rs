//! Watching the files a scene uses, so that a re-exported model shows up
//! without a key press (`docs/spec/roundtrip.md`, "Reload of changed glTF
//! files"). The folders holding them are watched (an exporter that writes a
//! new file and renames it over the old one replaces the file's inode, which
//! a watch on the file itself would lose); events for other files are
//! ignored. Where the platform has no watcher, the folders are polled.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

/// How long the files must stay quiet before they are read: an exporter
/// writes a file in several pieces.
pub const SETTLE: Duration = Duration::from_millis(300);

/// How often folders are polled where there is no watcher.
const POLL_EVERY: Duration = Duration::from_millis(500);

/// The watcher, the files it is for, and when they are due to be read.
pub struct FileWatch {
    watcher: Box<dyn Watcher>,
    /// Watched folders (absolute).
    dirs: HashSet<PathBuf>,
    /// The files whose changes count (absolute).
    files: HashSet<PathBuf>,
    changed: Receiver<PathBuf>,
    /// When the last change settles (no reload due when `None`).
    due: Option<Instant>,
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

impl FileWatch {
    /// A watch that calls `wake` (from another thread) on each change
    /// event. `None`, with a warning, when neither a watcher nor polling
    /// can be set up.
    pub fn new(wake: impl Fn() + Send + Sync + 'static) -> Option<FileWatch> {
        let (tx, changed) = channel::<PathBuf>();
        let wake = std::sync::Arc::new(wake);
        let handler = move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event {
                for p in event.paths {
                    let _ = tx.send(p);
                }
                wake();
            }
        };
        let watcher: Box<dyn Watcher> =
            match notify::RecommendedWatcher::new(handler.clone(), notify::Config::default()) {
                Ok(w) => Box::new(w),
                Err(e) => {
                    log::info!("no file watcher ({e}); polling every {} ms", POLL_EVERY.as_millis());
                    match notify::PollWatcher::new(handler, notify::Config::default().with_poll_interval(POLL_EVERY)) {
                        Ok(w) => Box::new(w),
                        Err(e) => {
                            eprintln!("viewport: warning: changed files will not be reloaded: {e}");
                            return None;
                        }
                    }
                }
            };
        Some(FileWatch { watcher, dirs: HashSet::new(), files: HashSet::new(), changed, due: None })
    }

    /// Watches these files (the folders holding them) from now on, besides
    /// those already watched.
    pub fn follow(&mut self, files: &[PathBuf]) {
        for f in files {
            let f = absolute(f);
            let Some(dir) = f.parent().map(Path::to_path_buf) else { continue };
            if !self.dirs.contains(&dir) {
                match self.watcher.watch(&dir, RecursiveMode::NonRecursive) {
                    Ok(()) => {
                        self.dirs.insert(dir);
                    }
                    Err(e) => log::warn!("cannot watch {}: {e}", dir.display()),
                }
            }
            self.files.insert(f);
        }
    }

    /// Takes the change events that came in: true when one concerns a
    /// watched file (the reload is then due once the files settle).
    pub fn take_changes(&mut self) -> bool {
        let mut any = false;
        while let Ok(p) = self.changed.try_recv() {
            if self.files.contains(&absolute(&p)) {
                any = true;
            }
        }
        if any {
            self.due = Some(Instant::now() + SETTLE);
        }
        any
    }

    /// When a reload is due, if one is.
    pub fn due(&self) -> Option<Instant> {
        self.due
    }

    /// The reload was done (or will be tried again at `retry`).
    pub fn done(&mut self, retry: Option<Instant>) {
        self.due = retry;
    }
}
