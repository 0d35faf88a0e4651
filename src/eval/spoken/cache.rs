//! Audio of the spoken evaluation, kept by what made it (text, voice, room, seed),
//! so that a rerun after a code change costs only recognition.

use std::path::{Path, PathBuf};

use crate::frontend::VAD_RATE;

use super::SpokenError;

/// A folder of 16 kHz mono WAV files named by the hash of what made them.
#[derive(Debug, Clone)]
pub struct AudioCache {
    dir: Option<PathBuf>,
}

impl AudioCache {
    /// The cache in `dir`; `None` keeps nothing.
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self { dir }
    }

    /// The default folder: `$XDG_CACHE_HOME/attentive/spoken` (or `~/.cache/...`).
    pub fn default_dir() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        Some(base.join("attentive").join("spoken"))
    }

    /// The audio for `key`, made by `make` (and kept) when not cached. A cache
    /// that cannot be read or written is skipped with a warning: it saves time only.
    pub fn get_or_make(
        &self,
        key: &str,
        make: impl FnOnce() -> Result<Vec<f32>, SpokenError>,
    ) -> Result<Vec<f32>, SpokenError> {
        let Some(dir) = &self.dir else {
            return make();
        };
        let path = dir.join(format!("{:016x}.wav", fnv1a(key)));
        if let Some(samples) = read(&path) {
            return Ok(samples);
        }
        let samples = make()?;
        if let Err(e) = write(dir, &path, &samples) {
            tracing::warn!(path = %path.display(), error = %e, "cannot keep spoken audio in the cache");
        }
        Ok(samples)
    }
}

/// FNV-1a, 64 bit: stable across builds and Rust versions (the std hasher is not).
pub(crate) fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn read(path: &Path) -> Option<Vec<f32>> {
    let reader = hound::WavReader::open(path).ok()?;
    let spec = reader.spec();
    if spec.sample_rate != VAD_RATE || spec.channels != 1 || spec.bits_per_sample != 16 {
        return None;
    }
    reader
        .into_samples::<i16>()
        .map(|s| s.map(|v| v as f32 / 32768.0))
        .collect::<Result<Vec<_>, _>>()
        .ok()
}

fn write(dir: &Path, path: &Path, samples: &[f32]) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: VAD_RATE,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    // Written beside, then renamed: a parallel run never reads half a file.
    let partial = path.with_extension(format!("part{}", std::process::id()));
    let mut writer = hound::WavWriter::create(&partial, spec).map_err(|e| e.to_string())?;
    for s in samples {
        let v = (s.clamp(-1.0, 1.0) * 32767.0).round() as i16;
        writer.write_sample(v).map_err(|e| e.to_string())?;
    }
    writer.finalize().map_err(|e| e.to_string())?;
    std::fs::rename(&partial, path).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_once_then_read_back() {
        let dir = std::env::temp_dir().join(format!("attentive-cache-test-{}", std::process::id()));
        let cache = AudioCache::new(Some(dir.clone()));
        let first = cache
            .get_or_make("hello", || Ok(vec![0.5, -0.25, 0.0]))
            .unwrap();
        let again = cache
            .get_or_make("hello", || Err(SpokenError::Voice("not again".into())))
            .unwrap();
        assert_eq!(first.len(), again.len());
        assert!((again[0] - 0.5).abs() < 1e-3 && (again[1] + 0.25).abs() < 1e-3);
        assert!(cache
            .get_or_make("other", || Err(SpokenError::Voice("made".into())))
            .is_err());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn the_hash_is_stable() {
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
