//! Audio sources behind one interface: a live device (cpal) or a WAV file.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::time::Duration;

use super::FrontendError;

/// Interleaved multi-channel audio in blocks, as `f32` in [-1, 1].
pub trait AudioSource {
    /// Sample rate in Hz.
    fn sample_rate(&self) -> u32;
    /// Number of interleaved channels.
    fn channels(&self) -> usize;
    /// The next block of interleaved samples; `Ok(None)` at the end of the stream.
    fn next_block(&mut self) -> Result<Option<Vec<f32>>, FrontendError>;
}

/// A WAV file (any channel count, 8-32 bit integer or float), read at once.
#[derive(Debug)]
pub struct WavSource {
    rate: u32,
    channels: usize,
    samples: Vec<f32>,
    pos: usize,
    block_frames: usize,
}

impl WavSource {
    /// Opens and decodes `path`.
    pub fn open(path: &Path) -> Result<Self, FrontendError> {
        let err = |detail: String| FrontendError::Wav {
            path: path.to_path_buf(),
            detail,
        };
        let reader = hound::WavReader::open(path).map_err(|e| err(e.to_string()))?;
        let spec = reader.spec();
        if spec.channels == 0 || spec.sample_rate == 0 {
            return Err(err("no channels or zero sample rate".into()));
        }
        let samples: Result<Vec<f32>, hound::Error> = match spec.sample_format {
            hound::SampleFormat::Float => reader.into_samples::<f32>().collect(),
            hound::SampleFormat::Int => {
                let scale = 1.0 / (1u64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f32;
                reader
                    .into_samples::<i32>()
                    .map(|s| s.map(|v| v as f32 * scale))
                    .collect()
            }
        };
        let samples = samples.map_err(|e| err(e.to_string()))?;
        Ok(Self::from_samples(
            samples,
            spec.sample_rate,
            spec.channels as usize,
        ))
    }

    /// A source over samples already in memory (interleaved).
    pub fn from_samples(samples: Vec<f32>, rate: u32, channels: usize) -> Self {
        Self {
            rate,
            channels: channels.max(1),
            samples,
            pos: 0,
            // 20 ms blocks, like a device callback.
            block_frames: (rate as usize / 50).max(1),
        }
    }
}

impl AudioSource for WavSource {
    fn sample_rate(&self) -> u32 {
        self.rate
    }
    fn channels(&self) -> usize {
        self.channels
    }
    fn next_block(&mut self) -> Result<Option<Vec<f32>>, FrontendError> {
        if self.pos >= self.samples.len() {
            return Ok(None);
        }
        let end = (self.pos + self.block_frames * self.channels).min(self.samples.len());
        let block = self.samples[self.pos..end].to_vec();
        self.pos = end;
        Ok(Some(block))
    }
}

/// Writes interleaved `f32` samples as a 16-bit WAV file (tests, recordings).
pub fn write_wav(
    path: &Path,
    samples: &[f32],
    rate: u32,
    channels: u16,
) -> Result<(), FrontendError> {
    let err = |e: hound::Error| FrontendError::Wav {
        path: path.to_path_buf(),
        detail: e.to_string(),
    };
    let spec = hound::WavSpec {
        channels,
        sample_rate: rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(path, spec).map_err(err)?;
    for &s in samples {
        w.write_sample((s.clamp(-1.0, 1.0) * 32767.0) as i16)
            .map_err(err)?;
    }
    w.finalize().map_err(err)
}

enum Msg {
    Data(Vec<f32>),
    Error(String),
}

/// A live input device through cpal. The stream runs while this value lives.
pub struct CpalSource {
    _stream: cpal::Stream,
    rx: Receiver<Msg>,
    rate: u32,
    channels: usize,
    device: String,
    /// How long `next_block` waits before calling the device silent/gone.
    timeout: Duration,
}

impl std::fmt::Debug for CpalSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpalSource")
            .field("device", &self.device)
            .field("rate", &self.rate)
            .field("channels", &self.channels)
            .finish()
    }
}

/// Names of the input devices of the default host (for error messages and `--list`).
pub fn input_device_names() -> Vec<String> {
    use cpal::traits::HostTrait;
    crate::alsa_quiet::on_this_thread();
    let host = cpal::default_host();
    match host.input_devices() {
        Ok(devs) => devs.map(|d| d.to_string()).collect(),
        Err(_) => Vec::new(),
    }
}

impl CpalSource {
    /// Opens the input device called `name` (exact, then case-insensitive substring),
    /// or the default input device, at `rate` Hz if given, and starts capturing.
    pub fn open(name: Option<&str>, rate: Option<u32>) -> Result<Self, FrontendError> {
        Self::open_array(name, rate, 0)
    }

    /// As [`CpalSource::open`], capturing `channels` channels when the device
    /// offers them (a microphone array needs all of its channels for the direction
    /// of arrival; a device's default is often stereo). 0 or 1: the device's default.
    pub fn open_array(
        name: Option<&str>,
        rate: Option<u32>,
        channels: usize,
    ) -> Result<Self, FrontendError> {
        use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
        crate::alsa_quiet::on_this_thread();
        let host = cpal::default_host();
        let device = match name {
            Some(want) => {
                let devices: Vec<cpal::Device> = host
                    .input_devices()
                    .map_err(|e| FrontendError::Device(format!("cannot list input devices: {e}")))?
                    .collect();
                let names: Vec<String> = devices.iter().map(|d| d.to_string()).collect();
                let idx = names.iter().position(|n| n == want).or_else(|| {
                    let w = want.to_lowercase();
                    names.iter().position(|n| n.to_lowercase().contains(&w))
                });
                match idx {
                    Some(i) => devices
                        .into_iter()
                        .nth(i)
                        .ok_or_else(|| FrontendError::Device(want.into()))?,
                    None => {
                        return Err(FrontendError::Device(format!(
                            "no input device named {want:?}; available: {}",
                            if names.is_empty() {
                                "none".to_string()
                            } else {
                                names.join(", ")
                            }
                        )))
                    }
                }
            }
            None => host.default_input_device().ok_or_else(|| {
                FrontendError::Device("no default input device (no sound card?)".into())
            })?,
        };
        let device_name = device.to_string();
        let supported = device.default_input_config().map_err(|e| {
            FrontendError::Device(format!("input device {device_name:?} is not usable: {e}"))
        })?;
        let format = supported.sample_format();
        let mut config = supported.config();
        if channels >= 2 && usize::from(config.channels) != channels {
            let offered = device.supported_input_configs().is_ok_and(|mut configs| {
                configs
                    .any(|c| usize::from(c.channels()) == channels && c.sample_format() == format)
            });
            if offered {
                config.channels = channels as u16;
            } else {
                tracing::warn!(
                    device = %device_name,
                    channels,
                    "the input device does not offer one channel per microphone; using its default"
                );
            }
        }
        if let Some(r) = rate {
            config.sample_rate = r;
        }
        let channels = config.channels as usize;
        let sample_rate = config.sample_rate;
        // Bounded: if the consumer stalls (whisper busy) we drop audio rather than grow without
        // limit; ~10 s of 20 ms callbacks.
        let (tx, rx) = mpsc::sync_channel::<Msg>(512);
        let err_tx = tx.clone();
        let on_error = move |e: cpal::Error| {
            let _ = err_tx.try_send(Msg::Error(e.to_string()));
        };
        let build_err = |e: cpal::Error| {
            FrontendError::Device(format!("cannot open input stream on {device_name:?}: {e}"))
        };
        let stream = match format {
            cpal::SampleFormat::F32 => device
                .build_input_stream::<f32, _, _>(config, sender(tx, |s: f32| s), on_error, None)
                .map_err(build_err)?,
            cpal::SampleFormat::I16 => device
                .build_input_stream::<i16, _, _>(
                    config,
                    sender(tx, |s: i16| s as f32 / 32768.0),
                    on_error,
                    None,
                )
                .map_err(build_err)?,
            cpal::SampleFormat::I32 => device
                .build_input_stream::<i32, _, _>(
                    config,
                    sender(tx, |s: i32| s as f32 / 2_147_483_648.0),
                    on_error,
                    None,
                )
                .map_err(build_err)?,
            cpal::SampleFormat::U16 => device
                .build_input_stream::<u16, _, _>(
                    config,
                    sender(tx, |s: u16| (s as f32 - 32768.0) / 32768.0),
                    on_error,
                    None,
                )
                .map_err(build_err)?,
            other => {
                return Err(FrontendError::Device(format!(
                "input device {device_name:?} delivers {other:?} samples, which are not supported"
            )))
            }
        };
        stream.play().map_err(|e| {
            FrontendError::Device(format!("cannot start input stream on {device_name:?}: {e}"))
        })?;
        Ok(Self {
            _stream: stream,
            rx,
            rate: sample_rate,
            channels,
            device: device_name,
            timeout: Duration::from_secs(5),
        })
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        &self.device
    }
}

fn sender<T: Copy, F: Fn(T) -> f32 + Send + 'static>(
    tx: SyncSender<Msg>,
    convert: F,
) -> impl FnMut(&[T], &cpal::InputCallbackInfo) + Send + 'static {
    move |data: &[T], _info: &cpal::InputCallbackInfo| {
        // try_send: never block the audio thread.
        let _ = tx.try_send(Msg::Data(data.iter().map(|&s| convert(s)).collect()));
    }
}

impl AudioSource for CpalSource {
    fn sample_rate(&self) -> u32 {
        self.rate
    }
    fn channels(&self) -> usize {
        self.channels
    }
    fn next_block(&mut self) -> Result<Option<Vec<f32>>, FrontendError> {
        match self.rx.recv_timeout(self.timeout) {
            Ok(Msg::Data(d)) => Ok(Some(d)),
            Ok(Msg::Error(e)) => Err(FrontendError::Device(format!(
                "input device {:?} failed: {e}",
                self.device
            ))),
            Err(RecvTimeoutError::Timeout) => Err(FrontendError::Device(format!(
                "input device {:?} delivered no audio for {} s (disconnected?)",
                self.device,
                self.timeout.as_secs()
            ))),
            Err(RecvTimeoutError::Disconnected) => Ok(None),
        }
    }
}

/// Opens the configured source: the WAV file when given, else the live device.
pub fn open_source(
    wav: Option<&PathBuf>,
    device: Option<&str>,
    rate: Option<u32>,
    channels: usize,
) -> Result<Box<dyn AudioSource>, FrontendError> {
    match wav {
        Some(p) => Ok(Box::new(WavSource::open(p)?)),
        None => Ok(Box::new(CpalSource::open_array(device, rate, channels)?)),
    }
}
