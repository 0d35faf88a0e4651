//! Streaming band-limited resampling (windowed sinc), any rate to any rate.
//!
//! Recognition wants 16 kHz mono while devices run at 44.1 or 48 kHz: dropping
//! samples would alias everything above 8 kHz into the speech band, so the
//! signal is low-pass filtered at 95 % of the lower Nyquist frequency on the way.

use std::f64::consts::PI;

/// Zero crossings of the sinc kernel on each side (quality vs. cost).
const ZERO_CROSSINGS: f64 = 16.0;
/// Kernel table resolution, entries per input sample (linear interpolation between).
const TABLE_RES: usize = 128;

/// A streaming resampler for one channel.
#[derive(Debug, Clone)]
pub struct Resampler {
    /// Input samples per output sample.
    step: f64,
    /// Kernel half-width in input samples.
    half: usize,
    table: Vec<f32>,
    buf: Vec<f32>,
    /// Position of the next output sample, in input samples from `buf[0]`.
    pos: f64,
    passthrough: bool,
}

impl Resampler {
    /// A resampler from `from_hz` to `to_hz`.
    pub fn new(from_hz: u32, to_hz: u32) -> Self {
        let step = from_hz as f64 / to_hz as f64;
        // Cut-off as a fraction of the input rate.
        let fc = 0.95 * 0.5 * (to_hz.min(from_hz) as f64) / from_hz as f64;
        let half = (ZERO_CROSSINGS / (2.0 * fc)).ceil() as usize;
        let n = 2 * half * TABLE_RES + 1;
        let table = (0..n)
            .map(|i| {
                let t = i as f64 / TABLE_RES as f64 - half as f64;
                let x = 2.0 * fc * t;
                let sinc = if x.abs() < 1e-9 {
                    1.0
                } else {
                    (PI * x).sin() / (PI * x)
                };
                // Blackman window over [-half, half].
                let w = 0.42
                    + 0.5 * (PI * t / half as f64).cos()
                    + 0.08 * (2.0 * PI * t / half as f64).cos();
                (2.0 * fc * sinc * w) as f32
            })
            .collect();
        Self {
            step,
            half,
            table,
            // Leading zeros so that output 0 is centred on input 0.
            buf: vec![0.0; half],
            pos: half as f64,
            passthrough: from_hz == to_hz,
        }
    }

    fn kernel(&self, d: f64) -> f32 {
        let x = (d + self.half as f64) * TABLE_RES as f64;
        if x < 0.0 {
            return 0.0;
        }
        let i = x.floor() as usize;
        if i + 1 >= self.table.len() {
            return 0.0;
        }
        let f = (x - i as f64) as f32;
        self.table[i] * (1.0 - f) + self.table[i + 1] * f
    }

    /// Feeds input samples and returns the output samples now computable.
    pub fn process(&mut self, input: &[f32]) -> Vec<f32> {
        if self.passthrough {
            return input.to_vec();
        }
        self.buf.extend_from_slice(input);
        let mut out = Vec::with_capacity((input.len() as f64 / self.step) as usize + 2);
        while (self.pos.floor() as usize) + self.half < self.buf.len() {
            let c = self.pos.floor() as usize;
            let lo = c + 1 - self.half;
            let hi = c + self.half;
            let mut acc = 0.0f32;
            for k in lo..=hi {
                acc += self.buf[k] * self.kernel(self.pos - k as f64);
            }
            out.push(acc);
            self.pos += self.step;
        }
        // Keep only the history the next outputs need.
        let keep_from = (self.pos.floor() as usize).saturating_sub(self.half);
        if keep_from > 0 {
            self.buf.drain(..keep_from.min(self.buf.len()));
            self.pos -= keep_from as f64;
        }
        out
    }

    /// Flushes the tail (pads with silence) and returns the last output samples.
    pub fn finish(&mut self) -> Vec<f32> {
        if self.passthrough {
            return Vec::new();
        }
        let pad = vec![0.0; self.half];
        self.process(&pad)
    }
}

/// Resamples a whole signal at once.
pub fn resample(input: &[f32], from_hz: u32, to_hz: u32) -> Vec<f32> {
    let mut r = Resampler::new(from_hz, to_hz);
    let mut out = r.process(input);
    out.extend(r.finish());
    let want = (input.len() as f64 * to_hz as f64 / from_hz as f64).round() as usize;
    out.truncate(want);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sine(hz: f32, rate: u32, secs: f32) -> Vec<f32> {
        (0..(rate as f32 * secs) as usize)
            .map(|i| (std::f32::consts::TAU * hz * i as f32 / rate as f32).sin())
            .collect()
    }

    fn rms(x: &[f32]) -> f32 {
        (x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32).sqrt()
    }

    #[test]
    fn keeps_speech_band_and_removes_what_would_alias() {
        // 1 kHz passes 48k -> 16k with its level and phase intact.
        let x = sine(1000.0, 48_000, 1.0);
        let y = resample(&x, 48_000, 16_000);
        assert_eq!(y.len(), 16_000);
        let want = sine(1000.0, 16_000, 1.0);
        let err: Vec<f32> = y[200..15_800]
            .iter()
            .zip(&want[200..15_800])
            .map(|(a, b)| a - b)
            .collect();
        assert!(rms(&err) < 0.01, "error rms {}", rms(&err));
        // 12 kHz would fold to 4 kHz if samples were dropped; it must vanish.
        let y = resample(&sine(12_000.0, 48_000, 1.0), 48_000, 16_000);
        assert!(rms(&y[200..15_800]) < 0.01);
    }

    #[test]
    fn streaming_equals_one_shot() {
        let x = sine(440.0, 44_100, 0.5);
        let whole = resample(&x, 44_100, 16_000);
        let mut r = Resampler::new(44_100, 16_000);
        let mut parts = Vec::new();
        for chunk in x.chunks(333) {
            parts.extend(r.process(chunk));
        }
        parts.extend(r.finish());
        parts.truncate(whole.len());
        assert_eq!(parts.len(), whole.len());
        assert!(parts.iter().zip(&whole).all(|(a, b)| (a - b).abs() < 1e-6));
    }
}
