//! Shared helpers of the speech tests: synthetic speech, noise, arrays, the model.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

use attentive::frontend::participants::facing_from_yaw;
use attentive::frontend::resample::resample;
use attentive::frontend::{
    participants_from_scene_file, AudioSettings, FrontEnd, Heard, Listening, Participant,
    Participants, Recognizer, WavSource,
};
use glam::Vec3;
use rustfft::num_complex::Complex32;
use rustfft::FftPlanner;

/// A confident transcript of `text`, as a stand-in recogniser returns it.
pub fn transcript(text: &str) -> attentive::frontend::Transcript {
    attentive::frontend::Transcript {
        text: text.into(),
        confidence: 0.9,
        no_speech_prob: 0.0,
        rejected: None,
        elapsed: Default::default(),
        audio_ctx: 0,
        threads: 1,
        noisy_model: false,
    }
}

/// Speech of `text` from espeak-ng, 16 kHz mono; panics with the fix when espeak-ng is absent.
pub fn espeak(text: &str) -> Vec<f32> {
    espeak_at(text, 16_000)
}

/// Speech of `text` from espeak-ng at `rate` Hz (resampled from espeak's 22.05 kHz).
pub fn espeak_at(text: &str, rate: u32) -> Vec<f32> {
    let dir = tempfile::tempdir().expect("temp dir");
    let wav = dir.path().join("s.wav");
    let status = Command::new("espeak-ng")
        .args(["-v", "en-us", "-s", "150", "-w"])
        .arg(&wav)
        .arg(text)
        .status()
        .unwrap_or_else(|e| {
            panic!("espeak-ng not runnable ({e}): run `bash scripts/ci-speech-setup.sh`")
        });
    assert!(status.success(), "espeak-ng failed");
    let mut src = WavSource::open(&wav).expect("espeak wav");
    use attentive::frontend::AudioSource;
    let from = src.sample_rate();
    let mut x = Vec::new();
    while let Some(b) = src.next_block().expect("read") {
        x.extend(b);
    }
    resample(&x, from, rate)
}

/// Deterministic white noise (uniform, zero mean) with the given RMS.
pub fn noise(n: usize, rms: f32, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (s >> 40) as f32 / (1u64 << 24) as f32; // 0..1
            (u - 0.5) * rms * 12f32.sqrt()
        })
        .collect()
}

/// Root mean square.
pub fn rms(x: &[f32]) -> f32 {
    (x.iter().map(|v| v * v).sum::<f32>() / x.len().max(1) as f32).sqrt()
}

/// First and last sample index where the clean signal exceeds 2 % of its peak.
pub fn speech_bounds(x: &[f32]) -> (usize, usize) {
    let peak = x.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let th = 0.02 * peak;
    let a = x.iter().position(|v| v.abs() > th).unwrap_or(0);
    let b = x.iter().rposition(|v| v.abs() > th).unwrap_or(0);
    (a, b)
}

/// `x` delayed by `d` samples (fractional), by a phase shift in the frequency domain.
pub fn delay(x: &[f32], d: f32) -> Vec<f32> {
    let n = (x.len() + 64).next_power_of_two();
    let mut p = FftPlanner::<f32>::new();
    let (f, i) = (p.plan_fft_forward(n), p.plan_fft_inverse(n));
    let mut buf: Vec<Complex32> = (0..n)
        .map(|k| Complex32::new(*x.get(k).unwrap_or(&0.0), 0.0))
        .collect();
    f.process(&mut buf);
    for (k, v) in buf.iter_mut().enumerate() {
        let fk = if k <= n / 2 {
            k as f32
        } else {
            k as f32 - n as f32
        };
        *v *= Complex32::from_polar(1.0, -2.0 * std::f32::consts::PI * fk * d / n as f32);
    }
    i.process(&mut buf);
    buf[..x.len()].iter().map(|c| c.re / n as f32).collect()
}

/// Direction (unit vector) from azimuth/elevation in degrees.
pub fn dir(az_deg: f32, el_deg: f32) -> Vec3 {
    let (a, e) = (az_deg.to_radians(), el_deg.to_radians());
    Vec3::new(e.cos() * a.cos(), e.cos() * a.sin(), e.sin())
}

/// Interleaved multi-channel audio of a far-field source arriving from `az_deg`, plus one
/// reflection (from `refl_az_deg`, `refl_gain`, `refl_delay_s` later) and independent noise
/// per microphone at `snr_db` below the speech.
pub fn array_recording(
    mono: &[f32],
    rate: u32,
    mics: &[[f32; 3]],
    az_deg: f32,
    snr_db: f32,
    reflection: Option<(f32, f32, f32)>,
) -> Vec<f32> {
    let c = 343.0;
    let u = dir(az_deg, -6.0);
    let speech_rms = rms(mono);
    let noise_rms = speech_rms * 10f32.powf(-snr_db / 20.0);
    let base = 8.0; // keep all delays positive
    let chans: Vec<Vec<f32>> = mics
        .iter()
        .enumerate()
        .map(|(m, p)| {
            // A mic further along u hears the wave earlier.
            let d = base - Vec3::from(*p).dot(u) / c * rate as f32;
            let mut ch = delay(mono, d);
            if let Some((raz, gain, rdelay)) = reflection {
                let ur = dir(raz, 0.0);
                let dr = base + rdelay * rate as f32 - Vec3::from(*p).dot(ur) / c * rate as f32;
                for (o, r) in ch.iter_mut().zip(delay(mono, dr)) {
                    *o += gain * r;
                }
            }
            for (o, n) in ch
                .iter_mut()
                .zip(noise(mono.len(), noise_rms, 1000 + m as u64))
            {
                *o += n;
            }
            ch
        })
        .collect();
    (0..mono.len())
        .flat_map(|t| chans.iter().map(move |ch| ch[t]))
        .collect()
}

/// The softdrinks table of DESIGN.md: Felix and Daniel face each other across it,
/// the robot at the near end.
pub fn table() -> Participants {
    let person = |name: &str, x: f32, y: f32, yaw: f32| Participant {
        name: name.into(),
        head: Vec3::new(x, y, 1.2),
        facing: facing_from_yaw(yaw),
    };
    let settings = AudioSettings::default();
    Participants {
        people: vec![
            person("Felix", 0.0, 0.7, -90.0),
            person("Daniel", 0.0, -0.7, 90.0),
        ],
        robot: Participant {
            name: "the_robot".into(),
            head: Vec3::new(-0.8, 0.0, 1.3),
            facing: Vec3::X,
        },
        microphone_array_origin: Vec3::new(-0.8, 0.0, 0.0) + Vec3::from(settings.array_offset),
    }
}

/// The whisper model for tests; fails with the fix when it is missing.
pub fn model_path() -> PathBuf {
    let p = std::env::var_os("ATTENTIVE_WHISPER_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/ggml-tiny.en.bin")
        });
    assert!(
        p.is_file(),
        "whisper model {} missing: run `bash scripts/ci-speech-setup.sh` (or scripts/build-whisper-model.sh), \
         or set ATTENTIVE_WHISPER_MODEL",
        p.display()
    );
    p
}

/// Word error rate of `hyp` against `reference` (case and punctuation ignored).
pub fn wer(reference: &str, hyp: &str) -> f32 {
    let norm = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .map(|w| {
                w.chars()
                    .filter(|c| c.is_alphanumeric())
                    .collect::<String>()
                    .to_lowercase()
            })
            .filter(|w| !w.is_empty())
            .collect()
    };
    let (r, h) = (norm(reference), norm(hyp));
    let mut d: Vec<Vec<usize>> = (0..=r.len()).map(|i| vec![i; h.len() + 1]).collect();
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=r.len() {
        for j in 1..=h.len() {
            let sub = d[i - 1][j - 1] + usize::from(r[i - 1] != h[j - 1]);
            d[i][j] = sub.min(d[i - 1][j] + 1).min(d[i][j - 1] + 1);
        }
    }
    d[r.len()][h.len()] as f32 / r.len().max(1) as f32
}

/// Share of the words of `reference` that occur in `hyp` (case and punctuation ignored;
/// each heard word counts once).
pub fn words_heard(reference: &str, hyp: &str) -> f32 {
    let norm = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .map(|w| {
                w.chars()
                    .filter(|c| c.is_alphanumeric())
                    .collect::<String>()
                    .to_lowercase()
            })
            .filter(|w| !w.is_empty())
            .collect()
    };
    let reference = norm(reference);
    let mut heard = norm(hyp);
    let found = reference
        .iter()
        .filter(|w| match heard.iter().position(|h| h == *w) {
            Some(i) => {
                heard.swap_remove(i);
                true
            }
            None => false,
        })
        .count();
    found as f32 / reference.len().max(1) as f32
}

/// The texts of the turns the real front end (softdrinks, every speaker
/// Felix, the test model) hears in `audio`, listening with `options`.
pub fn heard_texts(
    audio: Vec<f32>,
    rate: u32,
    channels: usize,
    options: &mut Listening<'_>,
) -> Vec<String> {
    let settings = AudioSettings {
        fallback_speaker: Some("Felix".into()),
        ..AudioSettings::default()
    };
    let scene = attentive::paths::resolve("softdrinks", "scenes", "toml");
    let participants = participants_from_scene_file(&scene, settings.array_offset).unwrap();
    let recognizer = Recognizer::with_model(&model_path(), &settings.asr).unwrap();
    let mut frontend = FrontEnd::new(settings, participants, recognizer);
    let mut source = WavSource::from_samples(audio, rate, channels);
    let mut texts = Vec::new();
    frontend
        .listen(&mut source, options, |heard| {
            if let Heard::Turn(t) = heard {
                texts.push(t.text.clone());
            }
        })
        .unwrap();
    texts
}
