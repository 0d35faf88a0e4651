//! Whose it is: after the robot asked "Who would like the red glass?" (the
//! speaker of a request was unknown), the reply completes the pending help
//! for the right person.

use super::dialogue::Dialogue;
use super::{person_name, Calls, RulesBrain, Situation};

impl RulesBrain {
    /// "It is for me", "Felix", "for Felix, please": the pending request,
    /// done for that person; without a pending question, not understood.
    pub(super) fn claim(&self, s: &Situation<'_>) -> Calls {
        let asked = s
            .dialogue
            .done_before
            .iter()
            .rev()
            .find(|d| d.name == "speak" && d.result.starts_with("You said"))
            .and_then(|d| d.args["text"].as_str())
            .is_some_and(|t| t.starts_with(self.speech.opening("help.who_would_like")));
        let pending = s
            .dialogue
            .earlier
            .iter()
            .enumerate()
            .rev()
            .find(|(_, t)| person_name(&self.world, &t.speaker).is_none());
        let (Some((index, pending)), true) = (pending, asked) else {
            return self.not_understood(s);
        };
        let who = s
            .reading
            .slots
            .recipient
            .as_ref()
            .and_then(|r| r.name.clone())
            .filter(|name| self.world.person_named(name).is_some())
            .or_else(|| s.sender.clone());
        let Some(who) = who else {
            return self.say_to(s, "All".into(), self.speech.say("help.for_whom", &[]));
        };
        let mut turn = pending.clone();
        turn.speaker = who;
        let completed = Dialogue {
            earlier: s.dialogue.earlier[..index].to_vec(),
            turn,
            done: s.dialogue.done.clone(),
            done_before: s.dialogue.done_before.clone(),
            done_last: s.dialogue.done_last.clone(),
        };
        let situation = self.situation(&completed, &self.world);
        self.next(&situation)
    }
}
