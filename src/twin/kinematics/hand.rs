//! The hand: what it holds (power and pinch widths) as written in the description,
//! or read from the stroke of the URDF's prismatic finger joints when left out.

use serde::Deserialize;

/// Smallest cylinder a parallel gripper derived from its stroke is trusted to hold (m).
const DERIVED_MIN_DIAMETER: f32 = 0.01;
/// A written width may exceed the fingers' stroke by this much before it is refused (m).
const STROKE_TOLERANCE: f32 = 0.001;

/// Power grasp: fingers wrap a cylinder approached from its side.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerGrasp {
    /// Smallest cylinder diameter held securely (m).
    pub min_diameter: f32,
    /// Largest cylinder diameter the fingers close around (m).
    pub max_diameter: f32,
}

/// Pinch (top) grasp: fingertips hold small or flat objects.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinchGrasp {
    /// Widest object the fingertips span (m).
    pub max_width: f32,
}

/// The hand as written. Hand frame: z = approach (out of the palm), x = closing direction.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandFile {
    /// Number of fingers (informational).
    pub fingers: u32,
    /// Tool centre (between the fingers) in the flange frame (m); with a URDF, past the tip link.
    #[serde(default)]
    pub tcp_offset: [f32; 3],
    /// Side grasp of cylinders; with a URDF whose fingers are prismatic joints, from their stroke.
    #[serde(default)]
    pub power: Option<PowerGrasp>,
    /// Fingertip grasp; with prismatic finger joints, from their stroke.
    #[serde(default)]
    pub pinch: Option<PinchGrasp>,
}

/// The hand, resolved: both grasps known.
#[derive(Debug, Clone)]
pub struct HandDescription {
    /// Number of fingers (informational).
    pub fingers: u32,
    /// Tool centre in the flange frame (m); with a URDF, past the tip link.
    pub tcp_offset: [f32; 3],
    /// Side grasp of cylinders.
    pub power: PowerGrasp,
    /// Fingertip grasp of small or flat objects.
    pub pinch: PinchGrasp,
}

/// How far a hand's fingers open, read from its prismatic finger joints.
#[derive(Debug, Clone, PartialEq)]
pub struct FingerStroke {
    /// Widest opening between the fingers (m): the sum of the joints' travel.
    pub width: f32,
    /// The joints it was read from, for messages.
    pub joints: Vec<String>,
}

impl HandFile {
    /// Both grasps: as written (checked against the stroke when there is one), else from
    /// the stroke. The reason names the key at fault.
    pub fn resolve(&self, stroke: Option<&FingerStroke>) -> Result<HandDescription, String> {
        let power = match (self.power, stroke) {
            (Some(p), _) => p,
            (None, Some(s)) => PowerGrasp {
                min_diameter: DERIVED_MIN_DIAMETER.min(s.width),
                max_diameter: s.width,
            },
            (None, None) => return Err(missing("power")),
        };
        let pinch = match (self.pinch, stroke) {
            (Some(p), _) => p,
            (None, Some(s)) => PinchGrasp { max_width: s.width },
            (None, None) => return Err(missing("pinch")),
        };
        if let Some(s) = stroke {
            for (key, width) in [
                ("power.max_diameter", power.max_diameter),
                ("pinch.max_width", pinch.max_width),
            ] {
                if width > s.width + STROKE_TOLERANCE {
                    return Err(format!(
                        "hand.{key} {width} m is wider than the fingers open: {} m, the travel of {}",
                        s.width,
                        s.joints.join(" and ")
                    ));
                }
            }
        }
        Ok(HandDescription {
            fingers: self.fingers,
            tcp_offset: self.tcp_offset,
            power,
            pinch,
        })
    }
}

fn missing(key: &str) -> String {
    format!("hand.{key} is missing (it may be left out only when the URDF's fingers are prismatic joints)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(power: Option<f32>, pinch: Option<f32>) -> HandFile {
        HandFile {
            fingers: 2,
            tcp_offset: [0.0; 3],
            power: power.map(|max_diameter| PowerGrasp {
                min_diameter: 0.02,
                max_diameter,
            }),
            pinch: pinch.map(|max_width| PinchGrasp { max_width }),
        }
    }

    fn stroke(width: f32) -> FingerStroke {
        FingerStroke {
            width,
            joints: vec!["finger_joint1".into(), "finger_joint2".into()],
        }
    }

    #[test]
    fn widths_come_from_the_stroke_when_left_out() {
        let h = hand(None, None)
            .resolve(Some(&stroke(0.08)))
            .expect("resolves");
        assert_eq!(h.power.max_diameter, 0.08);
        assert_eq!(h.pinch.max_width, 0.08);
        assert!(h.power.min_diameter > 0.0 && h.power.min_diameter < 0.08);
    }

    #[test]
    fn written_widths_win_but_never_exceed_the_stroke() {
        let h = hand(Some(0.07), Some(0.06)).resolve(Some(&stroke(0.08)));
        assert_eq!(h.map(|h| h.pinch.max_width).ok(), Some(0.06));
        let wide = hand(Some(0.10), None).resolve(Some(&stroke(0.08)));
        let e = wide.expect_err("too wide");
        assert!(
            e.contains("hand.power.max_diameter 0.1 m") && e.contains("finger_joint1"),
            "{e}"
        );
    }

    #[test]
    fn without_a_stroke_both_grasps_must_be_written() {
        let e = hand(Some(0.08), None).resolve(None).expect_err("no pinch");
        assert!(e.starts_with("hand.pinch is missing"), "{e}");
        assert!(hand(Some(0.08), Some(0.08)).resolve(None).is_ok());
    }
}
