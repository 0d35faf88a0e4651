//! The live page in a real browser: Debian's Chromium driven through its
//! WebDriver (chromedriver) with fantoccini, against `attentive run --no-audio`
//! whose brain is the local OpenAI-compatible test server.
//! Screenshots land in `target/page-artifacts/` as test artifacts.

mod speech_support;
mod support;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use support::daemon::Daemon;
use support::fake_llm::{FakeLlm, Scripted};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// chromedriver on a free loopback port; killed when dropped.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

async fn driver() -> Driver {
    assert!(
        std::path::Path::new(CHROMEDRIVER).exists(),
        "{CHROMEDRIVER} is missing: run `bash scripts/setup.sh` (installs chromium and chromium-driver)"
    );
    let port = free_port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let driver = Driver { child, port };
    let deadline = Instant::now() + Duration::from_secs(20);
    while reqwest::get(format!("http://127.0.0.1:{port}/status"))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "chromedriver did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    driver
}

async fn browser(driver: &Driver, width: u32, height: u32) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": "/usr/bin/chromium",
            // SwiftShader's software WebGL for the 3D view (headless, no GPU).
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--enable-unsafe-swiftshader",
                     format!("--window-size={width},{height}")]
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a browser session")
}

async fn count(client: &Client, css: &str) -> u64 {
    client
        .execute(
            "return document.querySelectorAll(arguments[0]).length",
            vec![json!(css)],
        )
        .await
        .ok()
        .and_then(|v| v.as_u64())
        .unwrap_or(0)
}

/// Waits until `css` matches at least `n` elements.
async fn wait_count(client: &Client, css: &str, n: u64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if count(client, css).await >= n {
            return;
        }
        if Instant::now() > deadline {
            let html = client.source().await.unwrap_or_default();
            panic!("no {n} × {css} on the page:\n{html}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until the element's text contains `needle`.
async fn wait_text(client: &Client, css: &str, needle: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = text_of(client, css).await;
        if text.contains(needle) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{css} never said {needle:?}: {text:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn text_of(client: &Client, css: &str) -> String {
    client
        .execute(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : ''",
            vec![json!(css)],
        )
        .await
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

async fn screenshot(client: &Client, name: &str) {
    let png = client.screenshot().await.expect("screenshot");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/page-artifacts");
    std::fs::create_dir_all(&dir).expect("artifact dir");
    std::fs::write(dir.join(name), png).expect("write screenshot");
}

fn calls(calls: &[(&str, Value)]) -> Scripted {
    Scripted::tool_calls(calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_draws_the_scene_takes_a_turn_shows_speech_and_the_moved_object_and_stops() {
    // The LLM hands the red glass to Felix, then hangs on the next turn until stopped.
    let llm = FakeLlm::start(vec![
        calls(&[("check_hindering_reasons", json!({"person_name": "Daniel", "object_name": "red_glass"}))]),
        calls(&[("speak", json!({"person_name": "Felix", "text": "Daniel cannot reach the red glass, so I will hand it to you."}))]),
        calls(&[("hand_object_over_to_person", json!({"object_name": "red_glass", "person_name": "Felix"}))]),
        calls(&[("stop", json!({}))]),
        Scripted::Hang,
    ])
    .await;
    let state = tempfile::tempdir().unwrap();
    let url = llm.base_url();
    let daemon = Daemon::start(
        &[
            "--no-audio",
            "--brain",
            "llm",
            "--llm-url",
            &url,
            "--model",
            "fake",
        ],
        &[("ATTENTIVE_LLM__RETRIES", "0")],
        state.path(),
    );
    let (_, scene) = daemon.get("/api/scene").await;
    let persons = scene["persons"].as_array().unwrap().len() as u64;
    let objects = scene["objects"].as_array().unwrap().len() as u64;
    let driver = driver().await;
    let client = browser(&driver, 1280, 800).await;
    client.goto(&daemon.url("/")).await.expect("open the page");

    // Every object and person of the scene is drawn, and the robot's two arms.
    wait_count(&client, "#table [data-person]", persons).await;
    wait_count(&client, "#table [data-object]", objects).await;
    assert_eq!(count(&client, "#table [data-object]").await, objects);
    assert_eq!(count(&client, "#table polyline.arm").await, 2);
    assert_eq!(text_of(&client, "#link").await, "live");

    // A malformed turn gets its error where it was typed.
    client
        .find(Locator::Css("#turn-text"))
        .await
        .unwrap()
        .send_keys("hello robot")
        .await
        .unwrap();
    client
        .find(Locator::Css("#turn-form button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !text_of(&client, "#turn-error").await.contains("not a turn") {
        assert!(
            Instant::now() < deadline,
            "no error shown for a malformed turn"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // A turn through the page's form: speech and the moved glass appear without reloading.
    let input = client.find(Locator::Css("#turn-text")).await.unwrap();
    input.clear().await.unwrap();
    input
        .send_keys("Felix said to Daniel: Daniel, please hand me the red glass.")
        .await
        .unwrap();
    client
        .find(Locator::Css("#turn-form button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_count(&client, "#conversation li[data-type=speech]", 1).await;
    assert!(text_of(&client, "#conversation li[data-type=speech]")
        .await
        .contains("cannot reach"));
    // The reading of the turn is folded under it.
    wait_count(
        &client,
        "#conversation li[data-type=understood][data-act=give]",
        1,
    )
    .await;
    let reading = text_of(&client, "#conversation li[data-type=understood] summary").await;
    assert!(
        reading.contains("give") && reading.contains("red_glass") && reading.contains("Felix"),
        "{reading}"
    );
    wait_count(
        &client,
        "#conversation li[data-type=action][data-ok=true]",
        1,
    )
    .await;
    wait_count(&client, "#table [data-object=red_glass] .held", 1).await;
    assert!(text_of(&client, "#table [data-object=red_glass] text")
        .await
        .contains("held by Felix"));
    // The sight line of the check is drawn from Daniel to the glass.
    wait_count(&client, "#table [data-sight='Daniel->red_glass']", 1).await;
    screenshot(&client, "page-1280x800.png").await;

    // The next turn hangs in the LLM; Stop on the page interrupts it.
    let input = client.find(Locator::Css("#turn-text")).await.unwrap();
    input
        .send_keys("Felix -> Daniel: and the cola too?")
        .await
        .unwrap();
    client
        .find(Locator::Css("#turn-form button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    daemon
        .wait_for("the hanging request", |_| llm.request_count() == 5)
        .await;
    client
        .find(Locator::Css("#stop"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_count(&client, "#conversation li[data-type=interrupted]", 1).await;
    wait_count(
        &client,
        "#conversation li[data-type=episode_end][data-reason=interrupted]",
        1,
    )
    .await;
    assert!(text_of(&client, "#conversation li[data-type=interrupted]")
        .await
        .contains("the page"));

    // Busy and free through the page.
    client
        .execute("document.getElementById('busy-person').value='Daniel'; document.getElementById('busy-object').value='smartphone';", vec![])
        .await
        .unwrap();
    client
        .find(Locator::Css("#busy-form button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_count(&client, "#table .person.busy[data-person=Daniel]", 1).await;
    screenshot(&client, "page-after-stop.png").await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_reconnects_after_a_restart_and_catches_up_and_fits_a_phone() {
    let state = tempfile::tempdir().unwrap();
    let mut daemon = Daemon::start(&["--no-audio", "--brain", "rules"], &[], state.path());
    let port = daemon.base.rsplit(':').next().unwrap().to_string();
    let driver = driver().await;
    let client = browser(&driver, 390, 844).await;
    client.goto(&daemon.url("/")).await.unwrap();
    wait_count(&client, "#table [data-person]", 2).await;
    screenshot(&client, "page-phone-portrait.png").await;
    // Nothing runs off the side on a phone.
    let overflow = client
        .execute(
            "return document.documentElement.scrollWidth - window.innerWidth",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        overflow.as_i64().unwrap_or(1) <= 0,
        "horizontal overflow {overflow}"
    );

    // Restart the daemon on the same port; events posted after it must appear.
    daemon.signal("TERM");
    tokio::task::block_in_place(|| daemon.wait_exit(Duration::from_secs(10)));
    drop(daemon);
    let listen = format!("127.0.0.1:{port}");
    let daemon = Daemon::start(
        &["--no-audio", "--brain", "rules", "--listen", &listen],
        &[],
        state.path(),
    );
    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix said to Daniel: Daniel, please hand me the red glass."}),
        )
        .await;
    wait_count(&client, "#conversation li[data-type=speech]", 1).await;
    assert_eq!(text_of(&client, "#link").await, "live");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_end_of_speech_the_page_shows_the_robot_looking_at_the_speaker() {
    let dir = tempfile::tempdir().unwrap();
    // Silence long enough for the browser to load the page first, also on a busy machine.
    let mut audio = vec![0.0f32; 20 * 16_000];
    audio.extend(speech_support::espeak("Daniel, what time is it?"));
    audio.extend(vec![0.0f32; 2 * 16_000]);
    let wav = dir.path().join("mic.wav");
    attentive::frontend::source::write_wav(&wav, &audio, 16_000, 1).unwrap();
    let model = speech_support::model_path();
    let daemon = Daemon::start(
        &["--brain", "rules", "--wav", wav.to_str().unwrap()],
        &[
            ("ATTENTIVE_WHISPER_MODEL", model.to_str().unwrap()),
            ("ATTENTIVE_AUDIO__FALLBACK_SPEAKER", "Felix"),
        ],
        &dir.path().join("state"),
    );
    let driver = driver().await;
    let client = browser(&driver, 1280, 800).await;
    client.goto(&daemon.url("/")).await.unwrap();
    wait_count(&client, "#table [data-person]", 2).await;
    assert_eq!(count(&client, "#table [data-robot-gaze]").await, 0);
    wait_count(&client, "#table [data-robot-gaze=Felix]", 1).await;
    screenshot(&client, "page-robot-looks-at-felix.png").await;
    client.close().await.unwrap();
}

/// Measurement, not a test of speed: `cargo test --release --test page_browser -- --ignored --nocapture`.
/// Prints the time from an event's `ts` in the log to its appearance in the page, for 100 events.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn measure_event_to_page_latency() {
    let state = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(&["--no-audio", "--brain", "rules"], &[], state.path());
    let driver = driver().await;
    let client = browser(&driver, 1280, 800).await;
    client.goto(&daemon.url("/")).await.unwrap();
    wait_count(&client, "#table [data-person]", 2).await;
    client
        .execute("window.attentive.latencyMs = []", vec![])
        .await
        .unwrap();
    for n in 0..100 {
        let holding = if n % 2 == 0 {
            json!(["smartphone"])
        } else {
            json!([])
        };
        daemon
            .post(
                "/api/scene",
                &json!({"person": "Daniel", "holding": holding}),
            )
            .await;
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    let latencies: Vec<f64> = loop {
        let v = client
            .execute("return window.attentive.latencyMs", vec![])
            .await
            .unwrap();
        let l: Vec<f64> = v
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        if l.len() >= 100 || Instant::now() > deadline {
            break l;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut sorted = latencies.clone();
    sorted.sort_by(f64::total_cmp);
    let pct = |p: f64| sorted[((sorted.len() - 1) as f64 * p) as usize];
    println!(
        "event -> page: {} events, median {:.0} ms, p95 {:.0} ms, max {:.0} ms; page weight {} bytes",
        sorted.len(),
        pct(0.5),
        pct(0.95),
        sorted.last().unwrap(),
        attentive::web::page_weight()
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_who_was_heard_and_how_and_corrects_the_speaker_with_one_click() {
    // One microphone, three people: the spoken turn's speaker is unknown.
    let dir = tempfile::tempdir().unwrap();
    let mut audio = vec![0.0f32; 3 * 16_000];
    audio.extend(speech_support::espeak(
        "Hey Daniel, please pass me the red glass.",
    ));
    audio.extend(vec![0.0f32; 2 * 16_000]);
    let wav = dir.path().join("mic.wav");
    attentive::frontend::source::write_wav(&wav, &audio, 16_000, 1).expect("write wav");
    let model = speech_support::model_path();
    let daemon = Daemon::start(
        &[
            "--brain",
            "rules",
            "--scene",
            "tests/fixtures/scenes/softdrinks_three.toml",
            "--wav",
            wav.to_str().unwrap(),
        ],
        &[("ATTENTIVE_WHISPER_MODEL", model.to_str().unwrap())],
        &dir.path().join("state"),
    );
    let driver = driver().await;
    let client = browser(&driver, 1280, 800).await;
    client.goto(&daemon.url("/")).await.unwrap();
    wait_count(&client, "#table [data-person]", 3).await;
    wait_count(
        &client,
        "#conversation li[data-type=turn][data-speaker-by=unknown]",
        1,
    )
    .await;
    assert!(
        text_of(&client, "#conversation li[data-type=turn] .speaker-by")
            .await
            .contains("speaker unknown")
    );
    wait_count(&client, "#conversation li[data-type=speech]", 1).await;
    assert!(text_of(&client, "#conversation li[data-type=speech]")
        .await
        .contains("Who would like the red glass"));
    // The listener is not offered as the speaker; the other two are.
    wait_count(&client, "#conversation .correct-speaker button", 2).await;
    screenshot(&client, "page-speaker-unknown.png").await;
    client
        .find(Locator::Css(".correct-speaker button[data-person=Felix]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_count(&client, "#conversation li[data-type=speaker_corrected]", 1).await;
    wait_count(
        &client,
        "#conversation li[data-type=turn][data-speaker-by=corrected]",
        1,
    )
    .await;
    wait_count(
        &client,
        "#conversation li[data-type=action][data-ok=true]",
        1,
    )
    .await;
    wait_count(&client, "#table [data-object=red_glass] .held", 1).await;
    assert!(text_of(&client, "#table [data-object=red_glass] text")
        .await
        .contains("held by Felix"));
    screenshot(&client, "page-speaker-corrected.png").await;
    client.close().await.unwrap();
}

/// Installs `window.grab()`: the 3D canvas's pixels, kept by the page for comparing.
const GRAB: &str = r#"
window.grab = () => {
  const c = document.getElementById('view3d-canvas');
  const t = document.createElement('canvas');
  t.width = c.width; t.height = c.height;
  const g = t.getContext('2d');
  g.drawImage(c, 0, 0);
  return g.getImageData(0, 0, t.width, t.height).data;
};
window.frames3d = [];
window.keep = () => { window.frames3d.push(window.grab()); return window.frames3d.length - 1; };
window.colours = (i) => {
  const d = window.frames3d[i], seen = new Set();
  for (let p = 0; p < d.length; p += 4 * 7) seen.add((d[p] >> 4) << 8 | (d[p + 1] >> 4) << 4 | (d[p + 2] >> 4));
  return seen.size;
};
window.changed = (a, b) => {
  const x = window.frames3d[a], y = window.frames3d[b];
  let n = 0;
  for (let p = 0; p < x.length; p += 4) if (Math.abs(x[p] - y[p]) + Math.abs(x[p + 1] - y[p + 1]) + Math.abs(x[p + 2] - y[p + 2]) > 24) n++;
  return n;
};
"#;

async fn click(client: &Client, css: &str) {
    client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css} on the page: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("cannot click {css}: {e}"));
}

async fn js_u64(client: &Client, script: &str) -> u64 {
    client
        .execute(script, vec![])
        .await
        .unwrap_or_else(|e| panic!("{script}: {e}"))
        .as_u64()
        .unwrap_or_else(|| panic!("{script} gave no number"))
}

/// CPU seconds (user + system) the process has used.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("proc stat");
    let after = stat.rsplit(')').next().expect("stat fields");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 =
        fields[11].parse::<f64>().expect("utime") + fields[12].parse::<f64>().expect("stime");
    ticks / 100.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_3d_view_renders_the_arm_moves_in_it_and_the_stop_button_halts_it() {
    let state = tempfile::tempdir().unwrap();
    // Four times as slow as planned, so that the stop lands while the arm moves
    // (planning in a debug build may take well under a second).
    let daemon = Daemon::start(
        &["--no-audio", "--brain", "rules"],
        &[("ATTENTIVE_SIM__TIME_SCALE", "4.0")],
        state.path(),
    );
    let driver = driver().await;
    let client = browser(&driver, 1280, 900).await;
    client.goto(&daemon.url("/")).await.expect("open the page");
    wait_count(&client, "#table [data-person]", 2).await;
    click(&client, "#view-3d").await;
    wait_count(&client, "#view3d[data-ready=true]", 1).await;
    client.execute(GRAB, vec![]).await.expect("install grab");
    let first = js_u64(&client, "return window.keep()").await;
    let colours = js_u64(&client, &format!("return window.colours({first})")).await;
    assert!(colours >= 8, "the 3D view is blank: {colours} colours");
    screenshot(&client, "page-3d-at-rest.png").await;

    // Idle: the daemon's CPU with this page open and nothing moving.
    let pid = daemon.child.id();
    let before = cpu_seconds(pid);
    tokio::time::sleep(Duration::from_secs(5)).await;
    eprintln!(
        "figure: daemon idle CPU with the 3D page open: {:.2} % of one core",
        (cpu_seconds(pid) - before) / 5.0 * 100.0
    );

    daemon
        .post(
            "/api/turns",
            &json!({"text": "Felix said to Daniel: Daniel, please hand me the red glass."}),
        )
        .await;
    wait_count(&client, "#conversation li[data-type=speech]", 1).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let moving_a = js_u64(&client, "return window.keep()").await;
    // The page's frame rate while the arm moves: animation frames and WebGL renders over 5 s.
    client
        .execute(
            "window.rafs = 0; window.renders0 = window.view3dStats.frames; (function tick() { window.rafs++; requestAnimationFrame(tick); })(); return 0;",
            vec![],
        )
        .await
        .expect("count frames");
    tokio::time::sleep(Duration::from_secs(5)).await;
    let rafs = js_u64(&client, "return window.rafs").await;
    let renders = js_u64(
        &client,
        "return window.view3dStats.frames - window.renders0",
    )
    .await;
    eprintln!(
        "figure: page while animating: {:.1} animation frames/s, {:.1} WebGL renders/s (headless, SwiftShader)",
        rafs as f64 / 5.0,
        renders as f64 / 5.0
    );
    let moving_b = js_u64(&client, "return window.keep()").await;
    let changed = js_u64(
        &client,
        &format!("return window.changed({moving_a}, {moving_b})"),
    )
    .await;
    assert!(
        changed > 200,
        "the arm did not move in the 3D view: {changed} pixels changed"
    );
    assert!(renders >= 10, "{renders} WebGL renders while the arm moved");
    screenshot(&client, "page-3d-moving.png").await;

    // Stop on the page: the arm halts where it is.
    click(&client, "#stop").await;
    let log = daemon
        .wait_for("the interrupted hand-over", |l| {
            l.iter().any(|e| e["type"] == "action")
        })
        .await;
    let action = log.iter().find(|e| e["type"] == "action").unwrap();
    assert_eq!(action["ok"], false, "{action}");
    // Where the stop lands (closing on the glass, or carrying it) depends on
    // how long planning took; either way the action says it was interrupted.
    assert!(
        action["detail"]
            .as_str()
            .unwrap_or("")
            .starts_with("Interrupted: I stopped"),
        "{action}"
    );
    // The page settles first: the episode's end brings the memory panel's
    // new count, which takes height from the 3D view (a resized canvas
    // differs everywhere, without the arm moving).
    wait_count(&client, "#conversation li[data-type=episode_end]", 1).await;
    wait_text(&client, "#memory-count", "1 episode").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let halted_a = js_u64(&client, "return window.keep()").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let halted_b = js_u64(&client, "return window.keep()").await;
    let changed = js_u64(
        &client,
        &format!("return window.changed({halted_a}, {halted_b})"),
    )
    .await;
    assert_eq!(changed, 0, "the arm kept moving after the stop");
    screenshot(&client, "page-3d-stopped.png").await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_three_js_the_page_keeps_the_top_view_and_says_what_to_install() {
    let state = tempfile::tempdir().unwrap();
    let daemon = Daemon::start(
        &["--no-audio", "--brain", "rules"],
        &[("ATTENTIVE_DAEMON__THREE_DIR", "/nonexistent/three")],
        state.path(),
    );
    let (status, _) = daemon.get("/vendor/three/three.min.js").await;
    assert_eq!(status, 404);
    let driver = driver().await;
    let client = browser(&driver, 1280, 800).await;
    client.goto(&daemon.url("/")).await.expect("open the page");
    wait_count(&client, "#table [data-person]", 2).await;
    wait_count(&client, "#view-3d[disabled]", 1).await;
    let note = text_of(&client, "#view3d-note").await;
    assert!(
        note.contains("three.js is not installed") && note.contains("libjs-three"),
        "{note}"
    );
    screenshot(&client, "page-without-three.png").await;
    client.close().await.unwrap();
}
