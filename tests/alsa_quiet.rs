//! `attentive run` on a machine without a sound card: libasound's own error
//! lines stay off the terminal; our one warning per device says it instead.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Everything `attentive run ARGS` prints up to its start-up line, on both streams.
fn start_up_output(args: &[&str]) -> Vec<String> {
    let state = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_attentive"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("run")
        .args(args)
        .args(["--listen", "127.0.0.1:0"])
        .env("ATTENTIVE_DAEMON__STATE_DIR", state.path())
        // No sound card and no sound server, wherever the test runs.
        .env("ALSA_CARD", "attentive_no_such_card")
        .env("PULSE_SERVER", "unix:/nonexistent/attentive/native")
        .env_remove("ATTENTIVE_LLM__BASE_URL")
        .env_remove("OPENAI_API_KEY")
        .env_remove("NOTIFY_SOCKET")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start attentive run");
    let (tx, rx) = mpsc::channel();
    let streams: [Box<dyn std::io::Read + Send>; 2] = [
        Box::new(child.stdout.take().expect("stdout")),
        Box::new(child.stderr.take().expect("stderr")),
    ];
    for stream in streams {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut lines = Vec::new();
    while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        let started = line.contains("the page and API are at");
        lines.push(line);
        if started {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    // Whatever was printed while stopping, too.
    while let Ok(line) = rx.recv_timeout(Duration::from_millis(300)) {
        lines.push(line);
    }
    assert!(
        lines.iter().any(|l| l.contains("the page and API are at")),
        "no start-up line:\n{}",
        lines.join("\n")
    );
    lines
}

fn alsa_lines(lines: &[String]) -> Vec<&String> {
    lines.iter().filter(|l| l.contains("ALSA lib")).collect()
}

#[test]
fn without_a_sound_card_no_alsa_lines_only_our_warnings() {
    let lines = start_up_output(&[]);
    assert!(alsa_lines(&lines).is_empty(), "{:#?}", alsa_lines(&lines));
    let warned = |what: &str| lines.iter().filter(|l| l.contains(what)).count();
    assert_eq!(warned("warning (voice)"), 1, "{lines:#?}");
    assert_eq!(warned("warning (microphone)"), 1, "{lines:#?}");
}

#[test]
fn with_no_audio_no_alsa_lines() {
    let lines = start_up_output(&["--no-audio"]);
    assert!(alsa_lines(&lines).is_empty(), "{:#?}", alsa_lines(&lines));
}
