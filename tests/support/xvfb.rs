//! A private X server per test, on a display number no other test uses.
//!
//! Xvfb's own choice (`-displayfd` alone) probes displays from 0 upwards,
//! and a probe of a number that a live server holds disturbs that server's
//! listening socket for a moment: with several tests starting servers in one
//! process, a client of the first one (winit's XOpenDisplay in the
//! zero-size test) now and then failed to connect. So each server gets an
//! explicit number: a block per test process (from its pid) and a counter
//! within it, so no two tests ever probe the same number. Xvfb's lock file
//! guards against another program holding it (the server then exits and
//! the next number is tried). `-displayfd` still reports readiness.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Displays handed out in this process so far.
static NEXT: AtomicU32 = AtomicU32::new(0);

/// An Xvfb server on a display of its own, stopped on drop.
pub struct Xvfb {
    child: std::process::Child,
    pub display: String,
}

impl Xvfb {
    pub fn start() -> Xvfb {
        // 64 numbers per process, from display 1000 up (well clear of the
        // low numbers desktops and other tools use).
        let base = 1000 + (std::process::id() % 900) * 64;
        for _ in 0..16 {
            let n = base + NEXT.fetch_add(1, Ordering::Relaxed) % 64;
            if let Some(x) = Xvfb::try_start(n) {
                return x;
            }
        }
        panic!("no Xvfb display could be started from :{base}");
    }

    fn try_start(n: u32) -> Option<Xvfb> {
        let display = format!(":{n}");
        let mut child = Command::new("Xvfb")
            .args([&display, "-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb must be installed (make test installs the xvfb package)");
        let mut line = String::new();
        // Nothing on stdout: the server exited (display taken).
        let ready = BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).is_ok();
        let mut x = Xvfb { child, display };
        if !ready || line.trim() != n.to_string() {
            return None; // dropped: stopped
        }
        // Wait until the server answers.
        for _ in 0..100 {
            if x.answers() {
                return Some(x);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let display = std::mem::take(&mut x.display);
        drop(x);
        panic!("Xvfb on {display} did not answer");
    }

    /// Whether the server answers `xdpyinfo` now.
    fn answers(&self) -> bool {
        Command::new("xdpyinfo").args(["-display", &self.display]).output().is_ok_and(|o| o.status.success())
    }

    /// Whether the server answers within `wait` (asked every 50 ms; the
    /// wait is spent in full, so a retry starts no sooner).
    pub fn answers_within(&self, wait: Duration) -> bool {
        let start = std::time::Instant::now();
        let mut answered = false;
        while start.elapsed() < wait {
            answered |= self.answers();
            std::thread::sleep(Duration::from_millis(50));
        }
        answered
    }

    /// Runs an X client (xdotool, import) against this server.
    pub fn run(&self, program: &str, args: &[&str]) -> String {
        let out = std::process::Command::new(program)
            .args(args)
            .env("DISPLAY", &self.display)
            .output()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Xvfb {
    /// SIGTERM first, so the server removes its lock file and socket (a
    /// killed one leaves them behind in /tmp); SIGKILL if it lingers.
    fn drop(&mut self) {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `f` every 100 ms until it gives a value; fails after 60 s.
pub fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = std::time::Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(60), "timed out waiting for {what}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Focuses `wid` and presses `key` until `done` gives a value: a key sent
/// while a loaded server is still settling the window's focus can be lost
/// (seen once in CI), so a press that shows no effect within 10 s is sent
/// again. Only for keys whose repeat is harmless or visible in `done`.
pub fn press_until<T>(x: &Xvfb, wid: &str, key: &str, what: &str, mut done: impl FnMut() -> Option<T>) -> T {
    let start = std::time::Instant::now();
    loop {
        // Not asserted: the window may be gone by a repeat (the program quit
        // just after the last look); `done` then says so at once.
        for args in [&["windowfocus", "--sync", wid][..], &["key", key]] {
            let _ = Command::new("xdotool").args(args).env("DISPLAY", &x.display).output();
        }
        let sent = std::time::Instant::now();
        while sent.elapsed() < Duration::from_secs(10) {
            if let Some(v) = done() {
                return v;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for {what} after {key}");
    }
}

/// Starts the program `make` describes (the viewport on `x`) and waits for
/// its window; returns the child and the window id. A program that exits
/// before its window shows (it could not open the display: seen now and
/// then on a loaded machine, just after the server answered) is started
/// again, up to three times, instead of leaving `xdotool search --sync`
/// waiting forever.
pub fn spawn_window(x: &Xvfb, make: impl FnMut() -> Command) -> (std::process::Child, String) {
    spawn_window_logged(x, None, make)
}

/// [`spawn_window`] for a program whose stderr goes to the file `log`,
/// which the failure message then quotes.
pub fn spawn_window_logged(
    x: &Xvfb,
    log: Option<&std::path::Path>,
    mut make: impl FnMut() -> Command,
) -> (std::process::Child, String) {
    for attempt in 1..=3 {
        let mut child = make().spawn().unwrap();
        let start = std::time::Instant::now();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                let said = log.and_then(|l| std::fs::read_to_string(l).ok()).unwrap_or_default();
                // Before the next try, give the server time to answer
                // again (a second, then two), and say whether it did.
                let answers = x.answers_within(Duration::from_secs(attempt));
                assert!(
                    attempt < 3,
                    "the program exited before its window showed, three times: {status}; it said: {said}; \
                     the server on {} answers: {answers}",
                    x.display
                );
                eprintln!(
                    "attempt {attempt}: the program exited before its window showed: {status}; it said: {said}; \
                     the server answers: {answers}"
                );
                break;
            }
            // This child's window (by its _NET_WM_PID): a test may run
            // several programs on one server.
            let pid = child.id().to_string();
            let found = Command::new("xdotool")
                .args(["search", "--all", "--pid", &pid, "--name", "^viewport"])
                .env("DISPLAY", &x.display)
                .output()
                .unwrap();
            if let Some(wid) = String::from_utf8_lossy(&found.stdout).lines().next() {
                return (child, wid.to_string());
            }
            if start.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("no window after 60 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    unreachable!("the loop returns or panics")
}

/// The real binary in a window on an Xvfb, started in `dir` (where F12 and
/// its log go) on `file` with `--validation` at `size`, shown and focused.
pub struct WindowApp {
    pub child: std::process::Child,
    /// The X window id.
    pub wid: String,
    /// The program's stderr, captured to a file.
    pub log: std::path::PathBuf,
}

impl WindowApp {
    /// Starts the viewport showing the 3D view alone (`--no-ui`) and waits
    /// for its first presented frame.
    pub fn start(x: &Xvfb, dir: &std::path::Path, file: &std::path::Path, size: &str) -> WindowApp {
        WindowApp::start_with(x, dir, file, size, &["--no-ui"])
    }

    /// As [`WindowApp::start`], with the UI (toolbar, panel, view widget).
    #[allow(dead_code)]
    pub fn start_with_ui(x: &Xvfb, dir: &std::path::Path, file: &std::path::Path, size: &str) -> WindowApp {
        WindowApp::start_with(x, dir, file, size, &[])
    }

    pub fn start_with(
        x: &Xvfb,
        dir: &std::path::Path,
        file: &std::path::Path,
        size: &str,
        extra: &[&str],
    ) -> WindowApp {
        let log = dir.join("stderr.log");
        let (child, wid) = spawn_window_logged(x, Some(&log), || {
            let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_viewport"));
            c.arg(file)
                // GPU culling by name: the default (auto) is CPU culling on lavapipe.
                .args(["--validation", "--culling", "gpu", "--size", size])
                .args(extra)
                .current_dir(dir)
                .env("DISPLAY", &x.display)
                .stdout(std::process::Stdio::null())
                .stderr(std::fs::File::create(&log).unwrap());
            c
        });
        wait_for("the first frame", || {
            // The title names the frame count once the program has set it.
            let title = x.run("xdotool", &["getwindowname", &wid]);
            (title.ends_with(" frames\n") && !title.contains("| 0 frames")).then_some(())
        });
        x.run("xdotool", &["windowfocus", "--sync", &wid]);
        WindowApp { child, wid, log }
    }

    /// Moves the pointer to `(x, y)` in the window (pixels, rounded down)
    /// and gives the program 150 ms to see it.
    pub fn move_to(&self, server: &Xvfb, (x, y): (f64, f64)) {
        let (x, y) = ((x as i32).to_string(), (y as i32).to_string());
        server.run("xdotool", &["mousemove", "--window", &self.wid, &x, &y]);
        std::thread::sleep(Duration::from_millis(150));
    }

    /// What the program printed so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap()
    }

    /// Waits until the program has printed `text`.
    pub fn wait_for_output(&self, what: &str, text: &str) {
        wait_for(what, || self.stderr().contains(text).then_some(()));
    }

    /// Ctrl+Q; the program must exit with status 0 and report 0 validation errors.
    pub fn quit_cleanly(mut self, x: &Xvfb) {
        let status = press_until(x, &self.wid, "ctrl+q", "exit", || self.child.try_wait().unwrap());
        let stderr = self.stderr();
        assert!(status.success(), "{stderr}");
        assert!(stderr.contains(", 0 validation errors"), "{stderr}");
    }
}
