//! A private X server per test. `-displayfd` lets Xvfb pick a free display
//! number itself (atomically, by its lock file), so tests running in
//! parallel, in one process or several, never share a display.

/// An Xvfb server on a free display, killed on drop.
pub struct Xvfb {
    child: std::process::Child,
    pub display: String,
}

impl Xvfb {
    pub fn start() -> Xvfb {
        use std::io::{BufRead, BufReader};
        use std::process::{Command, Stdio};
        let mut child = Command::new("Xvfb")
            .args(["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb must be installed (make test installs the xvfb package)");
        let mut line = String::new();
        if BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).is_err() || line.trim().is_empty() {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Xvfb did not report a display");
        }
        let display = format!(":{}", line.trim());
        // Wait until the server answers.
        for _ in 0..100 {
            if Command::new("xdpyinfo").args(["-display", &display]).output().is_ok_and(|o| o.status.success()) {
                return Xvfb { child, display };
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("Xvfb on {display} did not answer");
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
    fn drop(&mut self) {
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
