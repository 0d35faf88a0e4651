//! Listener resolution: a vocative at the start decides, else the speaker's gaze.

use super::participants::{Participant, Participants};

/// Listener name when nobody in particular is addressed.
pub const ALL: &str = "All";

/// Why a listener was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListenerReason {
    /// Named at the start of the utterance ("Daniel, could you ...").
    Vocative,
    /// Nearest to the speaker's head direction within the cone.
    Gaze,
    /// Nobody named or looked at.
    Nobody,
}

/// Fillers that may precede a vocative ("hey Daniel", "ok robot").
const FILLERS: &[&str] = &[
    "hey", "hi", "hello", "ok", "okay", "so", "excuse", "me", "oh", "um", "uh", "well", "please",
    "dear", "and",
];

/// Words that may follow `the` in the robot's spoken name.
fn spoken_forms(p: &Participant) -> Vec<Vec<String>> {
    let words: Vec<String> = p
        .name
        .split(|c: char| c == '_' || c == '-' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut forms = vec![words.clone()];
    // "the_robot" is also addressed as "robot".
    if words.len() > 1 && words[0] == "the" {
        forms.push(words[1..].to_vec());
    }
    forms
}

fn normalise(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Words similar enough to a name to be taken for it (recognition slips such as "Danyel").
fn same_word(heard: &str, name: &str) -> bool {
    heard == name || (name.len() >= 4 && strsim::jaro_winkler(heard, name) >= 0.9)
}

/// The participant (other than the speaker) named within the first words of `text`.
pub fn vocative<'a>(
    text: &str,
    speaker: &str,
    participants: &'a Participants,
) -> Option<&'a Participant> {
    let words = normalise(text);
    // Skip leading fillers; the name must come right after them.
    let start = words
        .iter()
        .take_while(|w| FILLERS.contains(&w.as_str()))
        .count();
    let rest = &words[start.min(words.len())..];
    participants
        .everyone()
        .filter(|p| !p.name.eq_ignore_ascii_case(speaker))
        .find(|p| {
            spoken_forms(p).iter().any(|form| {
                form.len() <= rest.len() && form.iter().zip(rest).all(|(n, h)| same_word(h, n))
            })
        })
}

/// The participant nearest the speaker's head direction within `cone_deg`.
pub fn gaze_target<'a>(
    speaker: &Participant,
    participants: &'a Participants,
    cone_deg: f32,
) -> Option<&'a Participant> {
    let facing = speaker.facing.normalize_or_zero();
    if facing == glam::Vec3::ZERO {
        return None;
    }
    participants
        .everyone()
        .filter(|p| p.name != speaker.name)
        .filter_map(|p| {
            let to = (p.head - speaker.head).normalize_or_zero();
            let angle = facing.dot(to).clamp(-1.0, 1.0).acos().to_degrees();
            (to != glam::Vec3::ZERO && angle <= cone_deg).then_some((p, angle))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(p, _)| p)
}

/// The listener of `text` said by `speaker`: a vocative decides, else the gaze cone, else [`ALL`].
pub fn resolve_listener(
    text: &str,
    speaker: &str,
    participants: &Participants,
    cone_deg: f32,
) -> (String, ListenerReason) {
    if let Some(p) = vocative(text, speaker, participants) {
        return (p.name.clone(), ListenerReason::Vocative);
    }
    if let Some(s) = participants.person(speaker) {
        if let Some(p) = gaze_target(s, participants, cone_deg) {
            return (p.name.clone(), ListenerReason::Gaze);
        }
    }
    (ALL.to_string(), ListenerReason::Nobody)
}
