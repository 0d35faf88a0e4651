//! Mono audio in memory, and reading the WAV bytes that speech engines return.
//!
//! Engines stream WAV on stdout, so the sizes in the header are often
//! placeholders (espeak-ng writes `0x7FFFF000`): the reader trusts the format
//! chunk, takes the data chunk up to the end of the bytes, and rejects
//! anything that is not a PCM or float WAV with one sentence.

/// Mono speech: samples in [-1, 1] at `rate` Hz.
#[derive(Debug, Clone, PartialEq)]
pub struct Pcm {
    /// The samples.
    pub samples: Vec<f32>,
    /// Sample rate in Hz.
    pub rate: u32,
}

/// Level below which a sample counts as silence: -40 dBFS.
pub const SILENCE: f32 = 0.01;

impl Pcm {
    /// Length in milliseconds.
    pub fn ms(&self) -> u64 {
        if self.rate == 0 {
            return 0;
        }
        self.samples.len() as u64 * 1000 / u64::from(self.rate)
    }

    /// Mono audio from interleaved signed 16-bit little-endian bytes (a trailing odd byte is ignored).
    pub fn from_s16le(bytes: &[u8], rate: u32, channels: u16) -> Pcm {
        let values = bytes
            .chunks_exact(2)
            .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32768.0);
        Pcm {
            samples: downmix(values, channels),
            rate,
        }
    }
}

impl Pcm {
    /// The same speech starting `keep_ms` before its first sample louder than
    /// [`SILENCE`] (the silence a synthesiser puts before the first word is only
    /// delay); unchanged when it is silent throughout or starts sooner.
    pub fn without_leading_silence(mut self, keep_ms: u32) -> Pcm {
        if let Some(loud) = self.samples.iter().position(|v| v.abs() >= SILENCE) {
            let keep = (u64::from(self.rate) * u64::from(keep_ms) / 1000) as usize;
            self.samples.drain(..loud.saturating_sub(keep));
        }
        self
    }
}

/// Averages interleaved channels into one.
fn downmix(values: impl Iterator<Item = f32>, channels: u16) -> Vec<f32> {
    let channels = usize::from(channels.max(1));
    if channels == 1 {
        return values.collect();
    }
    let all: Vec<f32> = values.collect();
    all.chunks_exact(channels)
        .map(|frame| frame.iter().sum::<f32>() / channels as f32)
        .collect()
}

/// Decodes WAV bytes (PCM 8/16/24/32-bit or 32-bit float, any channel count) to mono.
///
/// The error is a phrase for "…returned audio that {error}".
pub fn decode_wav(bytes: &[u8]) -> Result<Pcm, String> {
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        let start: String = String::from_utf8_lossy(&bytes[..bytes.len().min(40)])
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        return Err(format!(
            "is not a WAV file ({} bytes starting {:?})",
            bytes.len(),
            start.trim()
        ));
    }
    let mut pos = 12;
    let mut format: Option<(u16, u16, u32, u16)> = None; // tag, channels, rate, bits
    while pos + 8 <= bytes.len() {
        let id = &bytes[pos..pos + 4];
        let declared = u32::from_le_bytes([
            bytes[pos + 4],
            bytes[pos + 5],
            bytes[pos + 6],
            bytes[pos + 7],
        ]) as usize;
        let body_start = pos + 8;
        let body_end = body_start.saturating_add(declared).min(bytes.len());
        let body = &bytes[body_start..body_end];
        if id == b"fmt " {
            if body.len() < 16 {
                return Err("has a WAV format chunk that is too short".into());
            }
            let u16_at = |i: usize| u16::from_le_bytes([body[i], body[i + 1]]);
            let mut tag = u16_at(0);
            if tag == 0xFFFE && body.len() >= 26 {
                // WAVE_FORMAT_EXTENSIBLE: the real tag opens the sub-format GUID.
                tag = u16_at(24);
            }
            let rate = u32::from_le_bytes([body[4], body[5], body[6], body[7]]);
            format = Some((tag, u16_at(2), rate, u16_at(14)));
        } else if id == b"data" {
            let Some((tag, channels, rate, bits)) = format else {
                return Err("has WAV data before its format chunk".into());
            };
            if channels == 0 || rate == 0 {
                return Err("declares no channels or a sample rate of 0".into());
            }
            let samples: Vec<f32> = match (tag, bits) {
                (1, 16) => return Ok(Pcm::from_s16le(body, rate, channels)),
                (1, 8) => body.iter().map(|&b| (f32::from(b) - 128.0) / 128.0).collect(),
                (1, 24) => body
                    .chunks_exact(3)
                    .map(|b| (i32::from_le_bytes([0, b[0], b[1], b[2]]) >> 8) as f32 / 8_388_608.0)
                    .collect(),
                (1, 32) => body
                    .chunks_exact(4)
                    .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32 / 2_147_483_648.0)
                    .collect(),
                (3, 32) => body
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .map(|v| if v.is_finite() { v.clamp(-1.0, 1.0) } else { 0.0 })
                    .collect(),
                _ => {
                    return Err(format!(
                        "is a WAV in an unsupported encoding (format {tag}, {bits} bits); PCM or float is needed"
                    ))
                }
            };
            return Ok(Pcm {
                samples: downmix(samples.into_iter(), channels),
                rate,
            });
        }
        // Chunks are padded to an even length.
        pos = body_start
            .saturating_add(declared)
            .saturating_add(declared & 1);
    }
    Err("is a WAV file without audio data".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wav(rate: u32, channels: u16, data: &[i16], placeholder_sizes: bool) -> Vec<u8> {
        let data_len = (data.len() * 2) as u32;
        let (riff, dlen) = if placeholder_sizes {
            (0x7FFF_F000u32, 0x7FFF_F000u32)
        } else {
            (36 + data_len, data_len)
        };
        let mut b = Vec::new();
        b.extend_from_slice(b"RIFF");
        b.extend_from_slice(&riff.to_le_bytes());
        b.extend_from_slice(b"WAVEfmt ");
        b.extend_from_slice(&16u32.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&channels.to_le_bytes());
        b.extend_from_slice(&rate.to_le_bytes());
        b.extend_from_slice(&(rate * u32::from(channels) * 2).to_le_bytes());
        b.extend_from_slice(&(channels * 2).to_le_bytes());
        b.extend_from_slice(&16u16.to_le_bytes());
        b.extend_from_slice(b"data");
        b.extend_from_slice(&dlen.to_le_bytes());
        for v in data {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b
    }

    #[test]
    fn a_streamed_wav_with_placeholder_sizes_reads_to_the_end_of_the_bytes() {
        let pcm = decode_wav(&wav(22_050, 1, &[0, 16384, -16384, 32767], true)).expect("wav");
        assert_eq!(pcm.rate, 22_050);
        assert_eq!(pcm.samples, vec![0.0, 0.5, -0.5, 32767.0 / 32768.0]);
    }

    #[test]
    fn leading_silence_is_cut_but_for_what_is_kept() {
        let mut samples = vec![0.0; 1000];
        samples.extend([0.005, -0.5, 0.25, 0.0]);
        let pcm = Pcm {
            samples,
            rate: 10_000,
        };
        // 10 ms at 10 kHz: 100 samples kept before the first loud one (0.005 is silence).
        let cut = pcm.clone().without_leading_silence(10);
        assert_eq!(cut.samples.len(), 100 + 3);
        assert_eq!(cut.samples[99], 0.005);
        assert_eq!(cut.samples[100], -0.5);
        // Sooner than that, or silent throughout: unchanged.
        let short = Pcm {
            samples: vec![0.0, 0.5],
            rate: 10_000,
        };
        assert_eq!(short.clone().without_leading_silence(10), short);
        let quiet = Pcm {
            samples: vec![0.001; 50],
            rate: 10_000,
        };
        assert_eq!(quiet.clone().without_leading_silence(10), quiet);
    }

    #[test]
    fn stereo_is_mixed_down_to_mono() {
        let pcm = decode_wav(&wav(24_000, 2, &[16384, 0, -16384, -16384], false)).expect("wav");
        assert_eq!(pcm.samples, vec![0.25, -0.5]);
        assert_eq!(pcm.ms(), 0);
    }

    #[test]
    fn garbage_is_refused_with_what_it_looked_like() {
        let err = decode_wav(b"<html><body>502 Bad Gateway</body></html>").expect_err("garbage");
        assert!(
            err.contains("not a WAV") && err.contains("502 Bad Gateway"),
            "{err}"
        );
        let err = decode_wav(b"RIFF\0\0\0\0WAVEjunk").expect_err("no data");
        assert!(err.contains("without audio data"), "{err}");
        let mut mp3ish = wav(22_050, 1, &[1, 2], false);
        mp3ish[20] = 0x55; // format tag 0x55 = MP3
        let err = decode_wav(&mp3ish).expect_err("mp3 in wav");
        assert!(err.contains("unsupported encoding"), "{err}");
    }
}
