//! The room a spoken turn is heard in: steady noise at a signal-to-noise ratio,
//! reverberation, and a second person talking under the speaker. Deterministic
//! for a seed, so that a cached rendering and a fresh one are the same audio.

use std::fmt;
use std::str::FromStr;

use crate::eval::sample::SplitMix64;

/// How a room sounds; the default is a quiet, dry room.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Room {
    /// Steady noise, dB below the speech (signal-to-noise ratio); `None`: no noise.
    pub snr_db: Option<f32>,
    /// Reverberation time RT60 in seconds; `None`: dry.
    pub reverb_s: Option<f32>,
    /// A second person talking, dB relative to the speaker; `None`: nobody.
    pub talker_db: Option<f32>,
}

/// Why a `--room` could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("--room {given:?}: {why}; write a preset (quiet, noisy, babble, party) or keys like \"snr=10,reverb=0.5,talker=-10\"")]
pub struct RoomError {
    /// What was given.
    pub given: String,
    /// What is wrong with it.
    pub why: String,
}

const SNR_RANGE: (f32, f32) = (-10.0, 60.0);
const REVERB_RANGE: (f32, f32) = (0.05, 3.0);
const TALKER_RANGE: (f32, f32) = (-40.0, 10.0);

impl FromStr for Room {
    type Err = RoomError;

    fn from_str(given: &str) -> Result<Self, Self::Err> {
        let error = |why: String| RoomError {
            given: given.to_string(),
            why,
        };
        let mut room = Room::default();
        for part in given.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match preset(part) {
                Some(p) => {
                    room = Room {
                        snr_db: p.snr_db.or(room.snr_db),
                        reverb_s: p.reverb_s.or(room.reverb_s),
                        talker_db: p.talker_db.or(room.talker_db),
                    };
                    continue;
                }
                None if !part.contains('=') => {
                    return Err(error(format!("unknown preset {part:?}")));
                }
                None => {}
            }
            let (key, value) = part.split_once('=').unwrap_or((part, ""));
            let number: f32 = value
                .trim()
                .parse()
                .map_err(|_| error(format!("{key}: {value:?} is not a number")))?;
            let within = |(lo, hi): (f32, f32), unit: &str| {
                if number.is_finite() && (lo..=hi).contains(&number) {
                    Ok(number)
                } else {
                    Err(error(format!(
                        "{key} = {value} is outside {lo}..{hi} {unit}"
                    )))
                }
            };
            match key.trim() {
                "snr" => room.snr_db = Some(within(SNR_RANGE, "dB")?),
                "reverb" | "rt60" => room.reverb_s = Some(within(REVERB_RANGE, "s")?),
                "talker" => room.talker_db = Some(within(TALKER_RANGE, "dB")?),
                other => {
                    return Err(error(format!(
                        "unknown key {other:?} (snr, reverb, talker)"
                    )))
                }
            }
        }
        Ok(room)
    }
}

/// The named rooms: the conditions of the spoken evaluation.
fn preset(name: &str) -> Option<Room> {
    Some(match name {
        "quiet" => Room::default(),
        "noisy" => Room {
            snr_db: Some(10.0),
            reverb_s: Some(0.5),
            talker_db: None,
        },
        "babble" => Room {
            snr_db: None,
            reverb_s: None,
            talker_db: Some(-10.0),
        },
        "party" => Room {
            snr_db: Some(10.0),
            reverb_s: Some(0.5),
            talker_db: Some(-10.0),
        },
        _ => return None,
    })
}

impl fmt::Display for Room {
    /// The canonical form, also the cache key's part: `quiet` or `snr=10,reverb=0.5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(v) = self.snr_db {
            parts.push(format!("snr={v}"));
        }
        if let Some(v) = self.reverb_s {
            parts.push(format!("reverb={v}"));
        }
        if let Some(v) = self.talker_db {
            parts.push(format!("talker={v}"));
        }
        if parts.is_empty() {
            write!(f, "quiet")
        } else {
            write!(f, "{}", parts.join(","))
        }
    }
}

impl Room {
    /// Whether the room changes the audio at all.
    pub fn is_quiet(&self) -> bool {
        *self == Room::default()
    }

    /// `speech` (16 kHz mono) as heard in this room, with `talker` (another
    /// person's speech, same rate) under it; `rate` for time constants.
    pub fn render(&self, speech: &[f32], talker: Option<&[f32]>, rate: u32, seed: u64) -> Vec<f32> {
        let mut rng = SplitMix64::new(seed);
        let level = active_rms(speech, rate);
        let mut out = match self.reverb_s {
            Some(rt60) => reverberate(speech, rt60, rate, &mut rng),
            None => speech.to_vec(),
        };
        if let (Some(db), Some(other)) = (self.talker_db, talker) {
            let other = match self.reverb_s {
                Some(rt60) => reverberate(other, rt60 * 1.2, rate, &mut rng),
                None => other.to_vec(),
            };
            let gain = level * db_to_gain(db) / active_rms(&other, rate).max(1e-6);
            // The other person starts somewhere in the first half of the speech and
            // goes on after the speaker stops, as at a real table.
            let start = rng.below(out.len() / 2 + 1);
            for (i, s) in other.iter().enumerate() {
                if let Some(o) = out.get_mut(start + i) {
                    *o += s * gain;
                }
            }
        }
        if let Some(snr) = self.snr_db {
            let mut pink = PinkNoise::default();
            let noise: Vec<f32> = (0..out.len()).map(|_| pink.next(&mut rng)).collect();
            // Scaled by its measured level: the SNR is exact, whatever the filter's gain.
            let rms = (noise.iter().map(|n| n * n).sum::<f32>() / noise.len().max(1) as f32).sqrt();
            let gain = level * db_to_gain(-snr) / rms.max(1e-9);
            for (s, n) in out.iter_mut().zip(&noise) {
                *s += gain * n;
            }
        }
        // Keep clear of clipping without changing the relative levels.
        let peak = out.iter().fold(0.0f32, |m, s| m.max(s.abs()));
        if peak > 0.99 {
            out.iter_mut().for_each(|s| *s *= 0.99 / peak);
        }
        out
    }
}

fn db_to_gain(db: f32) -> f32 {
    10f32.powf(db / 20.0)
}

/// RMS over the louder 20 ms frames (the speech, not the silence around it).
pub fn active_rms(samples: &[f32], rate: u32) -> f32 {
    let frame = (rate as usize / 50).max(1);
    let mut energies: Vec<f32> = samples
        .chunks(frame)
        .map(|c| c.iter().map(|s| s * s).sum::<f32>() / c.len() as f32)
        .collect();
    if energies.is_empty() {
        return 0.0;
    }
    let peak = energies.iter().fold(0.0f32, |m, e| m.max(*e));
    // Frames within 30 dB of the loudest count as speech.
    energies.retain(|e| *e >= peak * 1e-3);
    (energies.iter().sum::<f32>() / energies.len() as f32).sqrt()
}

/// Reverberation with a velvet-noise impulse response (sparse ±1 taps under an
/// exponential decay reaching -60 dB at `rt60`): a standard cheap room model,
/// a thousand taps instead of tens of thousands.
fn reverberate(dry: &[f32], rt60: f32, rate: u32, rng: &mut SplitMix64) -> Vec<f32> {
    let len = ((rt60.min(1.5) * rate as f32) as usize).max(1);
    let density = 2000.0; // taps per second
    let spacing = (rate as f32 / density).max(1.0);
    let mut taps: Vec<(usize, f32)> = vec![(0, 1.0)];
    // Early reflections arrive after a few ms; before that only the direct path.
    let mut t = 0.004 * rate as f32;
    while (t as usize) < len {
        let jitter = (rng.next_u64() % 1000) as f32 / 1000.0 * spacing;
        let at = (t + jitter) as usize;
        let sign = if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
        let decay = (-6.9 * at as f32 / (rt60 * rate as f32)).exp();
        taps.push((at, sign * decay * 0.12));
        t += spacing;
    }
    let mut wet = vec![0.0f32; dry.len() + len];
    for &(at, gain) in &taps {
        for (o, s) in wet[at..].iter_mut().zip(dry) {
            *o += gain * s;
        }
    }
    wet
}

/// Pink noise (Paul Kellet's economy filter over white noise):
/// closer to a room's hum and chatter than white noise.
#[derive(Default)]
struct PinkNoise {
    b: [f32; 3],
}

impl PinkNoise {
    fn next(&mut self, rng: &mut SplitMix64) -> f32 {
        let white = (rng.next_u64() >> 11) as f32 / (1u64 << 53) as f32 * 2.0 - 1.0;
        self.b[0] = 0.99765 * self.b[0] + white * 0.0990460;
        self.b[1] = 0.96300 * self.b[1] + white * 0.2965164;
        self.b[2] = 0.57000 * self.b[2] + white * 1.0526913;
        (self.b[0] + self.b[1] + self.b[2] + white * 0.1848) * 0.19
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(seconds: f32) -> Vec<f32> {
        (0..(seconds * 16_000.0) as usize)
            .map(|i| 0.3 * (i as f32 * 0.05).sin())
            .collect()
    }

    #[test]
    fn presets_and_keys_read_and_print_back() {
        let room: Room = "noisy".parse().unwrap();
        assert_eq!(room.to_string(), "snr=10,reverb=0.5");
        let room: Room = "babble,snr=5".parse().unwrap();
        assert_eq!(room.to_string(), "snr=5,talker=-10");
        assert!("quiet".parse::<Room>().unwrap().is_quiet());
        assert_eq!(room.to_string().parse::<Room>().unwrap(), room);
    }

    #[test]
    fn nonsense_is_one_clear_sentence() {
        for bad in [
            "snr=loud",
            "snr=200",
            "reverb=-1",
            "echo=3",
            "windy",
            "talker=nan",
        ] {
            let e = bad.parse::<Room>().unwrap_err().to_string();
            assert!(e.contains(bad.split('=').next().unwrap()), "{e}");
            assert!(e.contains("preset"), "{e}");
        }
    }

    #[test]
    fn noise_is_at_the_asked_level_and_the_same_for_a_seed() {
        let speech = tone(1.0);
        let room: Room = "snr=10".parse().unwrap();
        let a = room.render(&speech, None, 16_000, 7);
        assert_eq!(a, room.render(&speech, None, 16_000, 7));
        assert_ne!(a, room.render(&speech, None, 16_000, 8));
        let noise: Vec<f32> = a.iter().zip(&speech).map(|(x, s)| x - s).collect();
        let rms = (noise.iter().map(|n| n * n).sum::<f32>() / noise.len() as f32).sqrt();
        let snr = 20.0 * (active_rms(&speech, 16_000) / rms).log10();
        assert!((snr - 10.0).abs() < 1.5, "snr {snr}");
    }

    #[test]
    fn reverb_leaves_a_decaying_tail_and_a_talker_is_mixed_in() {
        let speech = tone(0.5);
        let room: Room = "reverb=0.6".parse().unwrap();
        let wet = room.render(&speech, None, 16_000, 1);
        assert!(wet.len() > speech.len());
        let tail = &wet[speech.len() + 800..];
        assert!(tail.iter().any(|s| s.abs() > 1e-3), "no tail");
        let room: Room = "talker=-6".parse().unwrap();
        let other = tone(0.3).iter().map(|s| -s * 0.5).collect::<Vec<_>>();
        let mixed = room.render(&speech, Some(&other), 16_000, 1);
        assert_ne!(mixed, speech);
        assert_eq!(mixed.len(), speech.len());
    }
}
