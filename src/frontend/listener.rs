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

/// "It's" as the recogniser writes it before a name.
const IT_IS: &[&str] = &["it's", "its"];

/// Words after a name with no comma that make the name the subject ("Ottoline
/// can help herself", "Felix kann die Cola nicht sehen"), unless "you" follows
/// ("Daniel can you pass ...").
const SUBJECT_VERBS: &[&str] = &[
    "can",
    "can't",
    "cannot",
    "could",
    "couldn't",
    "will",
    "won't",
    "would",
    "wouldn't",
    "should",
    "shouldn't",
    "is",
    "isn't",
    "was",
    "wasn't",
    "has",
    "hasn't",
    "had",
    "hadn't",
    "does",
    "doesn't",
    "did",
    "didn't",
    "might",
    "must",
    "needs",
    "wants",
    "just",
    "always",
    "never",
    "really",
    "still",
    "already",
    "only",
    "kann",
    "konnte",
    "könnte",
    "wird",
    "würde",
    "hat",
    "hatte",
    "ist",
    "war",
    "muss",
    "sollte",
    "darf",
    "braucht",
    "sitzt",
    "sieht",
];

/// Words that follow "you" in a question to the one named ("can you", "kannst du").
const ADDRESSED: &[&str] = &["you", "u", "ya", "du", "sie", "ihr"];

/// Words after "Name," that show the recogniser wrote "Name's" with a comma
/// ("Parveen, after a honey dipper", "Marisol, got no chance of ...").
const AFTER_A_POSSESSIVE: &[&str] = &[
    "got", "after", "nowhere", "been", "gone", "going", "getting", "having", "holding", "sitting",
    "busy", "miles", "not", "already", "still", "always", "never", "elbow", "elbows", "hands",
    "hand", "arm", "arms",
];

/// Whether the name that opens `rest` (its first `n` words) is what the sentence
/// is about rather than whom it addresses: "Ottoline can help herself", "Marisol
/// waves her hands", "Parveen's after ..." (or "Parveen, after ..." as heard).
fn names_the_subject(rest: &[String], n: usize, comma_after: bool) -> bool {
    if rest[..n]
        .last()
        .is_some_and(|w| w.ends_with("'s") || w.ends_with("’s"))
    {
        return true;
    }
    let Some(next) = rest.get(n).map(String::as_str) else {
        return false;
    };
    if comma_after {
        return AFTER_A_POSSESSIVE.contains(&next);
    }
    let addressed = rest
        .get(n + 1)
        .is_some_and(|w| ADDRESSED.contains(&w.as_str()));
    let third_person = next.len() > 3 && next.ends_with('s') && !next.ends_with("ss");
    (SUBJECT_VERBS.contains(&next) || third_person) && !addressed
}

/// Whether the text opens with a few words set off by a comma ("It's Felix, ...").
fn set_off(text: &str) -> bool {
    text.split_once(',')
        .is_some_and(|(head, _)| head.split_whitespace().count() <= 3)
}

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
    // "It's Felix, could you ..." from someone else: the recogniser's "it's"
    // before a name set off by a comma (the speaker naming themself is no
    // vocative: the speaker is left out below).
    let rest = match rest.split_first() {
        Some((first, after)) if IT_IS.contains(&first.as_str()) && set_off(text) => after,
        _ => rest,
    };
    // The words before the first comma: is the name set off by it?
    let before_comma = text.split_once(',').map(|(head, _)| normalise(head).len());
    let skipped = words.len() - rest.len();
    participants
        .everyone()
        .filter(|p| !p.name.eq_ignore_ascii_case(speaker))
        .find(|p| {
            spoken_forms(p).iter().any(|form| {
                let n = form.len();
                let named = n <= rest.len() && form.iter().zip(rest).all(|(n, h)| same_word(h, n));
                let comma_after = before_comma == Some(skipped + n);
                named && !names_the_subject(rest, n, comma_after)
            })
        })
}

/// Sound similarity a misheard name at the start must reach ("then you'll," for Daniel).
const VOCATIVE_SIMILARITY: f32 = 0.7;
/// The same without a comma after it: the words must sound nearly the same.
const UNMARKED_VOCATIVE_SIMILARITY: f32 = 0.8;

/// The text with a misheard name at its start put right: one or two words
/// before the first comma, after fillers, that sound like someone's name
/// ("then you'll, could you ..." → "Daniel, could you ..."). `None` when the
/// start names nobody or already names them as written.
pub fn restore_vocative(text: &str, participants: &Participants) -> Option<String> {
    let (head, rest, needed) = match text.split_once(',') {
        Some((head, rest)) if head.split_whitespace().count() <= 3 => {
            (head, format!(",{rest}"), VOCATIVE_SIMILARITY)
        }
        // No comma: the first word or two, and only when they sound just like a name.
        _ => return restore_unmarked_vocative(text, participants),
    };
    restore_span(head, &rest, needed, participants)
}

/// A name at the start that the recogniser wrote without a comma ("then you'll can you ...").
fn restore_unmarked_vocative(text: &str, participants: &Participants) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    [2, 1].into_iter().find_map(|n| {
        let rest = words.get(n..).filter(|r| !r.is_empty())?.join(" ");
        let head = words[..n].join(" ");
        restore_span(
            &head,
            &format!(", {rest}"),
            UNMARKED_VOCATIVE_SIMILARITY,
            participants,
        )
    })
}

/// `head` (fillers and one or two words) with the words put right when they
/// sound like someone's name at least `needed`; `rest` follows unchanged.
fn restore_span(
    head: &str,
    rest: &str,
    needed: f32,
    participants: &Participants,
) -> Option<String> {
    let words: Vec<&str> = head.split_whitespace().collect();
    let start = words
        .iter()
        .take_while(|w| FILLERS.contains(&normalise(w).concat().as_str()))
        .count();
    let span = &words[start..];
    if span.is_empty() || span.len() > 2 {
        return None;
    }
    let heard = span.join(" ");
    let (person, similarity) = participants
        .everyone()
        .flat_map(|p| spoken_forms(p).into_iter().map(move |form| (p, form)))
        .map(|(p, form)| (p, crate::phonetic::similarity(&heard, &form.join(" "))))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let already = spoken_forms(person).iter().any(|f| normalise(&heard) == *f);
    if already || similarity < needed {
        return None;
    }
    let fillers = words[..start].join(" ");
    let name = person.name.replace('_', " ");
    let name = name.strip_prefix("the ").unwrap_or(&name);
    let gap = if fillers.is_empty() { "" } else { " " };
    Some(format!("{fillers}{gap}{name}{rest}"))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::participants::{facing_from_yaw, Participant};
    use glam::Vec3;

    fn table() -> Participants {
        let person = |name: &str, y: f32, yaw: f32| Participant {
            name: name.into(),
            head: Vec3::new(0.0, y, 1.2),
            facing: facing_from_yaw(yaw),
        };
        Participants {
            people: vec![person("Felix", 0.7, -90.0), person("Daniel", -0.7, 90.0)],
            robot: person("the_robot", 0.0, 0.0),
            microphone_array_origin: Vec3::ZERO,
        }
    }

    #[test]
    fn a_misheard_name_at_the_start_is_put_right() {
        let t = table();
        assert_eq!(
            restore_vocative("Then you'll, could you pass me the cola?", &t).as_deref(),
            Some("Daniel, could you pass me the cola?")
        );
        assert_eq!(
            restore_vocative("hey Phelix, the milk please", &t).as_deref(),
            Some("hey Felix, the milk please")
        );
        assert_eq!(
            restore_vocative("Robert, what is there to drink?", &t).as_deref(),
            Some("robot, what is there to drink?")
        );
        assert_eq!(
            restore_vocative("Phelix can you get me the coffee pot.", &t).as_deref(),
            Some("Felix, can you get me the coffee pot.")
        );
    }

    #[test]
    fn its_before_a_name_set_off_by_a_comma_names_the_listener() {
        let t = table();
        let named = |text: &str, speaker: &str| vocative(text, speaker, &t).map(|p| p.name.clone());
        assert_eq!(
            named(
                "It's Felix, could you pour it into the red glass?",
                "Daniel"
            )
            .as_deref(),
            Some("Felix")
        );
        // The speaker naming themself, and a name inside a sentence, name no listener.
        assert_eq!(named("It's Felix, could I have the wine?", "Felix"), None);
        assert_eq!(named("It's Felix who has the phone", "Daniel"), None);
    }

    #[test]
    fn a_name_the_sentence_is_about_is_no_vocative() {
        let t = table();
        let named = |text: &str| vocative(text, "the_robot", &t).map(|p| p.name.clone());
        for text in [
            "Felix can help himself to the cola, it's right there.",
            "Daniel won't see the glass from where he sits.",
            "Felix waves his hands about when he talks.",
            "Daniel's after the red glass.",
            "Felix, got no chance of reaching the cola.",
            "Daniel, elbow has nearly had the glass over.",
            "Felix kann die Cola nicht sehen.",
        ] {
            assert_eq!(named(text), None, "{text}");
        }
        for text in [
            "Felix, can you pass me the cola?",
            "Felix can you pass me the cola?",
            "Daniel, the cola is empty.",
            "hey Daniel, pass the glass",
            "Daniel pass me the glass",
            "Felix, kannst du mir die Cola geben?",
        ] {
            assert!(named(text).is_some(), "{text}");
        }
    }

    #[test]
    fn names_as_written_and_other_openings_are_left_alone() {
        let t = table();
        for text in [
            "Daniel, could you pass me the cola?",
            "Well, I think so",
            "No, thanks",
            "Could you pass me the cola?",
            "Yes, please, the cola",
            "Then you can pass it to me",
            "Fill the glass, please",
        ] {
            assert_eq!(restore_vocative(text, &t), None, "{text}");
        }
    }
}
