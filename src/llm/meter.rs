//! [`Metered`]: a [`ChatBackend`] wrapper that adds up the token usage the
//! endpoint reports (`usage` of each chat-completions reply). A reply without
//! `usage` adds nothing: its tokens are missing, never estimated.

use std::sync::{Arc, Mutex, PoisonError};

use super::{ChatBackend, ChatRequest, CompleteFuture};

/// Token usage added up over replies, as the endpoint reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Metering {
    /// Replies that carried `usage`.
    pub replies_with_usage: u32,
    /// Prompt tokens over those replies.
    pub prompt_tokens: u64,
    /// Completion tokens over those replies.
    pub completion_tokens: u64,
}

/// A shared counter a [`Metered`] backend adds to; read and reset by its owner.
#[derive(Debug, Clone, Default)]
pub struct Meter(Arc<Mutex<Metering>>);

impl Meter {
    /// What was counted since the last `take`, and a fresh start.
    pub fn take(&self) -> Metering {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn add(&self, usage: Option<super::Usage>) {
        if let Some(usage) = usage {
            let mut m = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            m.replies_with_usage += 1;
            m.prompt_tokens += u64::from(usage.prompt_tokens);
            m.completion_tokens += u64::from(usage.completion_tokens);
        }
    }
}

/// A backend whose replies' usage is added to a [`Meter`].
pub struct Metered {
    inner: Box<dyn ChatBackend>,
    meter: Meter,
}

impl Metered {
    /// Wraps `inner`; returns the backend and the meter it adds to.
    pub fn wrap(inner: Box<dyn ChatBackend>) -> (Self, Meter) {
        let meter = Meter::default();
        (
            Self {
                inner,
                meter: meter.clone(),
            },
            meter,
        )
    }
}

impl ChatBackend for Metered {
    fn complete<'a>(&'a self, request: &'a ChatRequest) -> CompleteFuture<'a> {
        Box::pin(async move {
            let reply = self.inner.complete(request).await?;
            self.meter.add(reply.usage);
            Ok(reply)
        })
    }

    fn stream<'a>(&'a self, request: &'a ChatRequest) -> super::ReplyStream<'a> {
        use futures_util::StreamExt;
        let meter = self.meter.clone();
        Box::pin(self.inner.stream(request).inspect(move |event| {
            if let Ok(super::ReplyEvent::Done(reply)) = event {
                meter.add(reply.usage);
            }
        }))
    }

    fn reads_notes(&self) -> bool {
        self.inner.reads_notes()
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{AssistantReply, Usage};

    struct Fixed(Option<Usage>);

    impl ChatBackend for Fixed {
        fn complete<'a>(&'a self, _: &'a ChatRequest) -> CompleteFuture<'a> {
            let reply = AssistantReply {
                usage: self.0,
                ..AssistantReply::default()
            };
            Box::pin(async move { Ok(reply) })
        }
        fn describe(&self) -> String {
            "fixed".into()
        }
    }

    #[tokio::test]
    async fn usage_is_added_and_missing_usage_adds_nothing() {
        let (with, meter) = Metered::wrap(Box::new(Fixed(Some(Usage {
            prompt_tokens: 100,
            completion_tokens: 7,
        }))));
        let request = ChatRequest::default();
        with.complete(&request).await.unwrap();
        with.complete(&request).await.unwrap();
        assert_eq!(
            meter.take(),
            Metering {
                replies_with_usage: 2,
                prompt_tokens: 200,
                completion_tokens: 14
            }
        );
        assert_eq!(meter.take(), Metering::default());
        let (without, meter) = Metered::wrap(Box::new(Fixed(None)));
        without.complete(&request).await.unwrap();
        assert_eq!(meter.take().replies_with_usage, 0);
    }
}
