//! A real ROS 2 stack for a test: the rosbridge server built by
//! `../shared/tools/ros2/setup.sh` and the project's rclpy fake robot
//! (`tests/support/ros_fake_robot.py`), on a free port, a domain id of this test
//! process and loopback-only DDS. Each process is stopped by its id when the
//! stack is dropped, also when a test panics; their output goes to files under
//! `target/tmp/<name>/` and its tail is printed when a test fails.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Where `setup.sh` built the stack: `$ATTENTIVE_ROS2`, else `~/.cache/attentive-ros2`
/// (the same variable and default as `.ci/run`).
pub fn root() -> PathBuf {
    match std::env::var_os("ATTENTIVE_ROS2") {
        Some(root) if !root.is_empty() => PathBuf::from(root),
        _ => Path::new(&std::env::var_os("HOME").unwrap_or_default()).join(".cache/attentive-ros2"),
    }
}

/// The ROS 2 setup, or `None` after printing the one line that says why the test is skipped.
pub fn setup_or_skip(test: &str) -> Option<PathBuf> {
    let root = root();
    if root.join("py/env.sh").is_file() && root.join("py/run_rosbridge.py").is_file() {
        return Some(root);
    }
    // Straight to stderr: the test harness captures `eprintln!` of a passing test,
    // and this line is the one thing a plain clone should see.
    let _ = writeln!(
        std::io::stderr(),
        "{test}: skipped, no ROS 2 setup at {} (bash ../shared/tools/ros2/setup.sh builds it)",
        root.display()
    );
    None
}

/// One child process with its output in a file.
pub struct Process {
    name: &'static str,
    child: Child,
    log: PathBuf,
}

impl Process {
    /// Runs `python -u ARGS` in the ROS 2 environment of `root` on `domain`.
    fn python(name: &'static str, root: &Path, domain: u32, args: &[&str], log: PathBuf) -> Self {
        let out = std::fs::File::create(&log).expect("create the process's log file");
        let err = out.try_clone().expect("share the log file");
        // `exec` so that the id we hold is python's; `setpriv --pdeathsig` so that python
        // also dies when this test process is killed outright and no Drop runs.
        let script = r#"set -e; . "$ROS2_ROOT/py/env.sh"; export ROS_DOMAIN_ID="$ROS2_DOMAIN"
            if command -v setpriv >/dev/null; then exec setpriv --pdeathsig KILL python -u "$@"; fi
            exec python -u "$@""#;
        let child = Command::new("bash")
            .arg("-c")
            .arg(script)
            .arg(name)
            .args(args)
            .env("ROS2_ROOT", root)
            .env("ROS2_DOMAIN", domain.to_string())
            .env("PYTHONUNBUFFERED", "1")
            // A shell that sourced a system ROS must not mix its rclpy into the venv's.
            .env_remove("PYTHONPATH")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        Self { name, child, log }
    }

    /// Its process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Waits until its output contains `line`, at most `bound`; panics with the output if it
    /// exits or the bound passes.
    fn wait_for_line(&mut self, line: &str, bound: Duration) {
        let deadline = Instant::now() + bound;
        loop {
            if read(&self.log).contains(line) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{} exited ({status}) before printing '{line}':\n{}",
                    self.name,
                    read(&self.log)
                );
            }
            assert!(
                Instant::now() < deadline,
                "{} did not print '{line}' within {bound:?}:\n{}",
                self.name,
                read(&self.log)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGTERM by id, then SIGKILL after 5 s.
    pub fn stop(&mut self) {
        if !matches!(self.child.try_wait(), Ok(None)) {
            return;
        }
        let _ = Command::new("kill")
            .args(["-TERM", &self.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill();
    }

    /// SIGKILL by id: a crash, not a shutdown.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The last `n` lines of its output.
    fn tail(&self, n: usize) -> String {
        let text = read(&self.log);
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stop();
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// rosbridge and the fake robot on one domain.
pub struct Stack {
    root: PathBuf,
    domain: u32,
    port: u16,
    dir: PathBuf,
    rosbridge: Option<Process>,
    robot: Option<Process>,
    rosbridge_starts: u32,
    events: PathBuf,
    faults: PathBuf,
}

impl Stack {
    /// Starts the fake robot with `config` (see the header of `ros_fake_robot.py`; `faults`
    /// and `events` are filled in here) and rosbridge on a free port, and waits until both
    /// are up. DDS discovery between them is the caller's to wait for.
    pub fn start(root: &Path, name: &str, mut config: Value) -> Self {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the stack's directory");
        let (events, faults) = (dir.join("events.jsonl"), dir.join("faults.json"));
        config["events"] = events.display().to_string().into();
        config["faults"] = faults.display().to_string().into();
        let config_path = dir.join("fake_robot.json");
        std::fs::write(&config_path, config.to_string()).expect("write the fake robot's config");
        let port = {
            // The OS picks a free port; rosbridge binds it a moment later.
            let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
            probe.local_addr().expect("its address").port()
        };
        let mut stack = Self {
            root: root.to_path_buf(),
            // A domain of this test process, so that parallel runs never see each other.
            domain: std::process::id() % 232 + 1,
            port,
            dir,
            rosbridge: None,
            robot: None,
            rosbridge_starts: 0,
            events,
            faults,
        };
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/ros_fake_robot.py");
        let mut robot = Process::python(
            "fake robot",
            &stack.root,
            stack.domain,
            &[
                &script.display().to_string(),
                &config_path.display().to_string(),
            ],
            stack.dir.join("fake_robot.log"),
        );
        robot.wait_for_line("fake robot up", Duration::from_secs(60));
        stack.robot = Some(robot);
        stack.start_rosbridge();
        stack
    }

    /// The rosbridge address.
    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    /// The ROS domain id of this stack.
    pub fn domain(&self) -> u32 {
        self.domain
    }

    /// (Re)starts rosbridge on this stack's port and waits for its start line.
    pub fn start_rosbridge(&mut self) {
        assert!(self.rosbridge.is_none(), "rosbridge is already running");
        self.rosbridge_starts += 1;
        let runner = self.root.join("py/run_rosbridge.py").display().to_string();
        let port = self.port.to_string();
        let mut rosbridge = Process::python(
            "rosbridge",
            &self.root,
            self.domain,
            &[
                &runner,
                "--address",
                "127.0.0.1",
                "--port",
                &port,
                "--ros-args",
                "-p",
                // Otherwise goals on one socket run one after another and a cancel waits
                // for the goal's end (README of the setup).
                "send_action_goals_in_new_thread:=true",
            ],
            self.dir
                .join(format!("rosbridge.{}.log", self.rosbridge_starts)),
        );
        rosbridge.wait_for_line(
            "Rosbridge WebSocket server started on port",
            Duration::from_secs(60),
        );
        self.rosbridge = Some(rosbridge);
    }

    /// Kills rosbridge (SIGKILL, as a crash would end it) and waits for it to be gone.
    pub fn kill_rosbridge(&mut self) {
        if let Some(mut rosbridge) = self.rosbridge.take() {
            rosbridge.kill();
        }
    }

    /// Sets the fake robot's fault switches (it re-reads them within one joint-state period).
    pub fn set_faults(&self, faults: &Value) {
        // Written aside and renamed, so that the robot never reads half a file.
        let tmp = self.dir.join("faults.json.tmp");
        std::fs::write(&tmp, faults.to_string()).expect("write the faults");
        std::fs::rename(&tmp, &self.faults).expect("switch the faults");
    }

    /// Everything the fake robot recorded, in order.
    pub fn events(&self) -> Vec<Value> {
        let Ok(file) = std::fs::File::open(&self.events) else {
            return Vec::new();
        };
        BufReader::new(file)
            .lines()
            .map_while(Result::ok)
            // A line still being written is read whole next time.
            .map_while(|line| serde_json::from_str(&line).ok())
            .collect()
    }

    /// Waits until the events after the first `since` hold one that `wanted` accepts.
    pub async fn wait_for_event(
        &self,
        since: usize,
        bound: Duration,
        wanted: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + bound;
        loop {
            if let Some(e) = self.events().into_iter().skip(since).find(|e| wanted(e)) {
                return e;
            }
            assert!(
                Instant::now() < deadline,
                "the fake robot recorded no such event within {bound:?}: {:#?}",
                &self.events()[since.min(self.events().len())..]
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        let failed = std::thread::panicking();
        for process in [self.rosbridge.take(), self.robot.take()]
            .into_iter()
            .flatten()
        {
            // Process's own Drop stops it by its id; the tail says what it saw.
            if failed {
                eprintln!(
                    "--- {} (pid {}, {}), last lines:\n{}",
                    process.name,
                    process.id(),
                    process.log.display(),
                    process.tail(30)
                );
            }
            drop(process);
        }
    }
}
