//! Direction of arrival from a microphone array: GCC-PHAT cross-spectra of every
//! microphone pair, summed over the utterance, searched over directions (SRP-PHAT).
//!
//! Summing the phase-transformed cross-spectra over all frames of the utterance is
//! the smoothing: one direction per utterance, robust to pauses and reverberation
//! (PHAT whitens, so the direct path's sharp peak wins over a weaker reflection).
//! Delays are evaluated exactly in the frequency domain, so sub-sample delays of a
//! 3 cm array at 16 kHz resolve without interpolation.

use std::f32::consts::PI;
use std::sync::Arc;

use glam::Vec3;
use rustfft::num_complex::Complex32;
use rustfft::{Fft, FftPlanner};

/// Lowest frequency used (below it the array's aperture gives no phase difference).
const F_LO: f32 = 200.0;
/// Highest frequency used (speech energy above it is small and spatially aliased).
const F_HI: f32 = 6000.0;

/// One direction estimate in the array's frame (the robot's axes: x forward, y left, z up).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Doa {
    /// Azimuth in degrees, 0 = +x, counter-clockwise (towards +y) positive, in (-180, 180].
    pub azimuth_deg: f32,
    /// Elevation in degrees above the array's plane (weakly determined by a planar array).
    pub elevation_deg: f32,
    /// Normalised steered-response power at the peak, 0..1 (1 = all pairs agree perfectly).
    pub strength: f32,
}

impl Doa {
    /// Unit vector towards the source.
    pub fn direction(&self) -> Vec3 {
        direction(self.azimuth_deg, self.elevation_deg)
    }
}

fn direction(az_deg: f32, el_deg: f32) -> Vec3 {
    let (az, el) = (az_deg.to_radians(), el_deg.to_radians());
    Vec3::new(el.cos() * az.cos(), el.cos() * az.sin(), el.sin())
}

/// A direction-of-arrival estimator for one array geometry and sample rate.
pub struct Localizer {
    mics: Vec<Vec3>,
    speed_of_sound: f32,
    rate: u32,
    n: usize,
    fft: Arc<dyn Fft<f32>>,
    window: Vec<f32>,
}

impl std::fmt::Debug for Localizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Localizer")
            .field("mics", &self.mics)
            .field("rate", &self.rate)
            .finish()
    }
}

impl Localizer {
    /// An estimator, or `None` with fewer than two microphones (no direction possible).
    pub fn new(mic_positions: &[[f32; 3]], speed_of_sound: f32, rate: u32) -> Option<Self> {
        if mic_positions.len() < 2 || rate == 0 {
            return None;
        }
        // ~64 ms frames: long enough for low frequencies, short enough to follow pauses.
        let n = ((rate as f32 * 0.064) as usize).next_power_of_two();
        let window = (0..n)
            .map(|i| 0.5 - 0.5 * (2.0 * PI * i as f32 / n as f32).cos())
            .collect();
        Some(Self {
            mics: mic_positions.iter().map(|&p| Vec3::from(p)).collect(),
            speed_of_sound,
            rate,
            n,
            fft: FftPlanner::new().plan_fft_forward(n),
            window,
        })
    }

    /// Number of microphones the geometry describes.
    pub fn channels(&self) -> usize {
        self.mics.len()
    }

    /// The direction of the dominant source in interleaved audio of `channels` channels
    /// (the first `self.channels()` are used); `None` if too short or silent.
    pub fn estimate(&self, interleaved: &[f32], channels: usize) -> Option<Doa> {
        let m = self.mics.len();
        if channels < m {
            return None;
        }
        let frames = interleaved.len() / channels;
        if frames < self.n {
            return None;
        }
        let hop = self.n / 2;
        let k_lo = ((F_LO * self.n as f32 / self.rate as f32).ceil() as usize).max(1);
        let k_hi = ((F_HI.min(self.rate as f32 * 0.5) * self.n as f32 / self.rate as f32) as usize)
            .min(self.n / 2);
        if k_hi <= k_lo {
            return None;
        }
        let bins = k_hi - k_lo;
        let starts: Vec<usize> = (0..=(frames - self.n) / hop).map(|f| f * hop).collect();
        // Only frames carrying the speech: the pre-roll and pauses would add the noise's direction.
        let energies: Vec<f32> = starts
            .iter()
            .map(|&s| {
                (s..s + self.n)
                    .map(|t| interleaved[t * channels].powi(2))
                    .sum()
            })
            .collect();
        let max_e = energies.iter().cloned().fold(0.0, f32::max);
        if max_e <= 1e-12 {
            return None;
        }
        let pairs: Vec<(usize, usize)> = (0..m)
            .flat_map(|i| (i + 1..m).map(move |j| (i, j)))
            .collect();
        let mut cross = vec![Complex32::new(0.0, 0.0); pairs.len() * bins];
        let mut spectra = vec![vec![Complex32::new(0.0, 0.0); self.n]; m];
        for (&s, &e) in starts.iter().zip(&energies) {
            if e < 0.1 * max_e {
                continue;
            }
            for (ch, spec) in spectra.iter_mut().enumerate() {
                for (t, v) in spec.iter_mut().enumerate() {
                    *v = Complex32::new(interleaved[(s + t) * channels + ch] * self.window[t], 0.0);
                }
                self.fft.process(spec);
            }
            for (p, &(i, j)) in pairs.iter().enumerate() {
                for b in 0..bins {
                    let k = k_lo + b;
                    let c = spectra[i][k] * spectra[j][k].conj();
                    let mag = c.norm();
                    if mag > 1e-20 {
                        cross[p * bins + b] += c / mag;
                    }
                }
            }
        }
        // Steered response power of one direction.
        let df = self.rate as f32 / self.n as f32;
        let power = |u: Vec3| -> f32 {
            let mut total = 0.0;
            for (p, &(i, j)) in pairs.iter().enumerate() {
                // R_ij ~ exp(+j w tau) with tau = (p_i - p_j).u / c; undo it.
                let tau = (self.mics[i] - self.mics[j]).dot(u) / self.speed_of_sound;
                let step = Complex32::from_polar(1.0, -2.0 * PI * df * tau);
                let mut rot = Complex32::from_polar(1.0, -2.0 * PI * df * k_lo as f32 * tau);
                for b in 0..bins {
                    total += (cross[p * bins + b] * rot).re;
                    rot *= step;
                }
            }
            total
        };
        let used = energies.iter().filter(|&&e| e >= 0.1 * max_e).count() as f32;
        let norm = used * (pairs.len() * bins) as f32;
        // Coarse grid, then a finer one around the best.
        let mut best = (f32::MIN, 0.0f32, 0.0f32);
        for az in (0..360).step_by(4) {
            for el in (-40..=60).step_by(10) {
                let pw = power(direction(az as f32, el as f32));
                if pw > best.0 {
                    best = (pw, az as f32, el as f32);
                }
            }
        }
        let (_, az0, el0) = best;
        for da in -8..=8 {
            for de in -4..=4 {
                let (az, el) = (
                    az0 + da as f32 * 0.5,
                    (el0 + de as f32 * 2.5).clamp(-90.0, 90.0),
                );
                let pw = power(direction(az, el));
                if pw > best.0 {
                    best = (pw, az, el);
                }
            }
        }
        let (pw, az, el) = best;
        Some(Doa {
            azimuth_deg: wrap_deg(az),
            elevation_deg: el,
            strength: (pw / norm).clamp(0.0, 1.0),
        })
    }
}

/// An angle in degrees wrapped to (-180, 180].
pub fn wrap_deg(a: f32) -> f32 {
    let mut a = a % 360.0;
    if a <= -180.0 {
        a += 360.0;
    } else if a > 180.0 {
        a -= 360.0;
    }
    a
}
