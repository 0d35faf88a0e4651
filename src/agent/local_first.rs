//! Local first (`--brain hybrid`): a turn the understanding stage is sure of
//! goes the deterministic way (the rules brain, no LLM request); everything
//! else goes to the LLM with the situation note. As Home Assistant's Assist
//! with "prefer handling commands locally".

use crate::understanding::{Act, Doubt, Reading};

/// Which brain answers a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Path {
    /// The deterministic brain, without an LLM request.
    Local,
    /// The LLM.
    Llm,
}

impl Path {
    /// The word used in `understood` events and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Path::Local => "local",
            Path::Llm => "llm",
        }
    }
}

/// The path a turn takes, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// Which brain answers.
    pub path: Path,
    /// Why, in a few words.
    pub why: String,
}

/// How a turn was said, beside what it was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Said {
    /// To the robot (or to everyone).
    pub robot_addressed: bool,
    /// A word asks for something (a request's verb, "could", "please").
    pub asks: bool,
}

/// The route of a turn read as `reading`; `previous` is the path the turn
/// before took (an answer to the LLM's question goes back to the LLM).
/// Talk between people that no template reads for sure and that names nothing
/// on the table, or asks for nothing (a remark, a claim half read), stays
/// local: the robot helps only with requests about what is on the table, and a
/// small model tends to act on remarks ("ah no, we've got wine, beer and soda").
pub fn route(reading: &Reading, previous: Option<Path>, said: Said) -> Route {
    if reading.said_nothing() {
        return Route::local("nothing but fillers and politeness");
    }
    let unsure_remark = reading.doubt.is_some() && !reading.act.is_request() && !said.asks;
    let why = match &reading.doubt {
        Some(Doubt::NothingOnTheTable) => "talk between people that names nothing on the table",
        _ if unsure_remark => "talk between people that asks for nothing",
        _ => "",
    };
    if !why.is_empty() && !said.robot_addressed {
        return Route::local(why);
    }
    // Thanks and refusals are never actions: the rules brain answers them whatever
    // else the turn says ("None for me, thanks. I'm not a tea person.").
    if matches!(reading.act, Act::Thanks | Act::Refuse) {
        return Route::local(format!("a {} is never an action", reading.act.as_str()));
    }
    match &reading.doubt {
        // A question whose only doubt is a word the table does not know ("do we
        // have *white* wine?") or a thing it lacks: the table answers it, and a
        // small model asked a question tends to act as well.
        Some(doubt @ (Doubt::LeftOut { .. } | Doubt::Lacking { .. }))
            if reading.act.is_question() =>
        {
            Route::local(format!(
                "a question the table answers ({})",
                doubt.describe()
            ))
        }
        Some(doubt) => Route::llm(doubt.describe()),
        None if matches!(reading.act, Act::Claim | Act::Confirm) && previous == Some(Path::Llm) => {
            Route::llm(format!(
                "a {} answers what the LLM asked",
                reading.act.as_str()
            ))
        }
        None => Route::local(format!("sure: {}", reading.matched)),
    }
}

impl Route {
    fn local(why: impl Into<String>) -> Self {
        Self {
            path: Path::Local,
            why: why.into(),
        }
    }

    fn llm(why: impl Into<String>) -> Self {
        Self {
            path: Path::Llm,
            why: why.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(robot_addressed: bool, asks: bool) -> Said {
        Said {
            robot_addressed,
            asks,
        }
    }

    fn reading(act: Act, doubt: Option<Doubt>) -> Reading {
        Reading {
            doubt,
            act,
            ..Reading::unknown("x".into())
        }
    }

    #[test]
    fn a_sure_reading_goes_local_and_a_doubtful_one_to_the_llm() {
        let sure = route(&reading(Act::Give, None), None, said(true, true));
        assert_eq!(sure.path, Path::Local);
        let gapped = route(
            &reading(
                Act::Give,
                Some(Doubt::Gapped {
                    skipped: 2,
                    word: "jug".into(),
                }),
            ),
            Some(Path::Local),
            said(false, true),
        );
        assert_eq!(gapped.path, Path::Llm);
        assert!(gapped.why.contains("\"jug\""), "{}", gapped.why);
        let unknown = route(
            &Reading::unknown("scoot it over".into()),
            None,
            said(false, true),
        );
        assert_eq!(unknown.path, Path::Llm);
    }

    #[test]
    fn fillers_and_politeness_alone_stay_local() {
        // "please" heard on its own after a pause: normalised to nothing.
        let nothing = route(&Reading::unknown(String::new()), None, said(true, true));
        assert_eq!(nothing.path, Path::Local);
        assert!(!Reading::unknown("scoot it over".into()).said_nothing());
    }

    #[test]
    fn an_answer_follows_the_question_to_its_brain() {
        for act in [Act::Claim, Act::Confirm] {
            assert_eq!(
                route(&reading(act, None), Some(Path::Llm), said(true, false)).path,
                Path::Llm
            );
            assert_eq!(
                route(&reading(act, None), Some(Path::Local), said(true, false)).path,
                Path::Local
            );
        }
        assert_eq!(
            route(
                &reading(Act::Thanks, None),
                Some(Path::Llm),
                said(false, false)
            )
            .path,
            Path::Local
        );
    }

    #[test]
    fn talk_between_people_about_nothing_on_the_table_stays_local() {
        let remark = reading(Act::Unknown, Some(Doubt::NothingOnTheTable));
        assert_eq!(route(&remark, None, said(false, false)).path, Path::Local);
        // Said to the robot, the LLM answers it.
        assert_eq!(route(&remark, None, said(true, false)).path, Path::Llm);
        // A remark that names a thing but asks for nothing stays local too.
        let claim = reading(Act::Unknown, Some(Doubt::AsksNothing));
        assert_eq!(route(&claim, None, said(false, false)).path, Path::Local);
        assert_eq!(route(&claim, None, said(true, false)).path, Path::Llm);
        // A claim half read ("there's regular coke too, look": "regular" left out)
        // between people stays local unless a word asks for something.
        let half = reading(
            Act::StateInventory,
            Some(Doubt::LeftOut {
                word: "regular".into(),
            }),
        );
        assert_eq!(route(&half, None, said(false, false)).path, Path::Local);
        assert_eq!(route(&half, None, said(false, true)).path, Path::Llm);
        // A question with a word the table does not know is answered from the table.
        let white = reading(
            Act::AskHave,
            Some(Doubt::LeftOut {
                word: "white".into(),
            }),
        );
        assert_eq!(route(&white, None, said(true, true)).path, Path::Local);
        // Thanks and refusals are never actions, however much else was said.
        let refusal = reading(
            Act::Refuse,
            Some(Doubt::UnreadPart {
                part: "i am not a tea person".into(),
            }),
        );
        assert_eq!(route(&refusal, None, said(true, false)).path, Path::Local);
        // A request in doubt goes to the LLM, asking words or not.
        let gapped = reading(Act::Give, Some(Doubt::NotUnderstood));
        assert_eq!(route(&gapped, None, said(false, false)).path, Path::Llm);
    }
}
