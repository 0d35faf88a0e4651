//! Speaker resolution: the direction of arrival matched to the people's heads.

use super::doa::{wrap_deg, Doa};
use super::participants::Participants;

/// Name used when nobody can be matched.
pub const UNKNOWN_SPEAKER: &str = "unknown";

/// Who spoke, and how sure the match is.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeakerMatch {
    /// The speaker's name, or [`UNKNOWN_SPEAKER`].
    pub name: String,
    /// Angle in degrees between the direction of arrival and the speaker's head, if measured.
    pub error_deg: Option<f32>,
}

/// Azimuth in degrees of a world point as seen from the array (robot frame: x forward).
pub fn azimuth_of(participants: &Participants, point: glam::Vec3) -> f32 {
    let d = point - participants.microphone_array_origin;
    d.y.atan2(d.x).to_degrees()
}

/// The person whose head lies closest in azimuth to `doa`, if within `max_error_deg`.
///
/// Only azimuth is compared: a planar array hardly resolves elevation, and people
/// around a table differ in azimuth, not height. Without a direction the
/// `fallback` speaker (one microphone) is used, else `unknown`.
pub fn resolve_speaker(
    doa: Option<&Doa>,
    participants: &Participants,
    max_error_deg: f32,
    fallback: Option<&str>,
) -> SpeakerMatch {
    let Some(doa) = doa else {
        return SpeakerMatch {
            name: fallback.unwrap_or(UNKNOWN_SPEAKER).to_string(),
            error_deg: None,
        };
    };
    let best = participants
        .people
        .iter()
        .map(|p| {
            (
                p,
                wrap_deg(azimuth_of(participants, p.head) - doa.azimuth_deg).abs(),
            )
        })
        .min_by(|a, b| a.1.total_cmp(&b.1));
    match best {
        Some((p, err)) if err <= max_error_deg => SpeakerMatch {
            name: p.name.clone(),
            error_deg: Some(err),
        },
        Some((_, err)) => SpeakerMatch {
            name: UNKNOWN_SPEAKER.to_string(),
            error_deg: Some(err),
        },
        None => SpeakerMatch {
            name: fallback.unwrap_or(UNKNOWN_SPEAKER).to_string(),
            error_deg: None,
        },
    }
}
