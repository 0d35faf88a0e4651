//! The streamed reply of an OpenAI-compatible endpoint: server-sent chunks
//! through async-openai, assembled as they come.

use std::collections::VecDeque;
use std::pin::Pin;

use futures_util::{Stream, StreamExt};
use serde_json::Value;
use tokio::time::Instant;

use super::{ChunkAssembler, ReplyEvent, ReplyStream};
use crate::llm::{ChatBackend, ChatRequest, LlmError, OpenAiCompatible};

/// The raw chunks of one streamed reply.
pub type Chunks = Pin<Box<dyn Stream<Item = Result<Value, LlmError>> + Send>>;

enum Phase {
    Opening,
    Reading {
        chunks: Chunks,
        assembler: ChunkAssembler,
        deadline: Instant,
    },
    Over,
}

struct Machine<'a> {
    backend: &'a OpenAiCompatible,
    request: &'a ChatRequest,
    phase: Phase,
    ready: VecDeque<ReplyEvent>,
}

/// The reply to `request`, streamed; falls back to a whole reply when the
/// endpoint refuses to stream or answers without a stream.
pub fn reply_stream<'a>(
    backend: &'a OpenAiCompatible,
    request: &'a ChatRequest,
) -> ReplyStream<'a> {
    let machine = Machine {
        backend,
        request,
        phase: Phase::Opening,
        ready: VecDeque::new(),
    };
    Box::pin(futures_util::stream::unfold(machine, |mut m| async move {
        let item = m.next().await?;
        Some((item, m))
    }))
}

impl Machine<'_> {
    async fn next(&mut self) -> Option<Result<ReplyEvent, LlmError>> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Some(Ok(event));
            }
            match &mut self.phase {
                Phase::Over => return None,
                Phase::Opening => match self.backend.open_stream(self.request).await {
                    Ok(chunks) => {
                        self.phase = Phase::Reading {
                            chunks,
                            assembler: ChunkAssembler::default(),
                            deadline: Instant::now() + self.backend.request_timeout(),
                        }
                    }
                    Err(error) if OpenAiCompatible::refuses_streaming(&error) => {
                        self.backend.refuse_streaming(&error.to_string());
                        return Some(self.whole().await);
                    }
                    Err(error) => return Some(self.fail(error)),
                },
                Phase::Reading {
                    chunks,
                    assembler,
                    deadline,
                } => match tokio::time::timeout_at(*deadline, chunks.next()).await {
                    Err(_elapsed) => {
                        let error = self.backend.timeout_error();
                        return Some(self.fail(error));
                    }
                    Ok(Some(Ok(chunk))) => match assembler.push(&chunk) {
                        Ok(calls) => self.ready.extend(calls.into_iter().map(ReplyEvent::Call)),
                        Err(error) => return Some(self.fail(error)),
                    },
                    Ok(Some(Err(error))) => return Some(self.fail(error)),
                    Ok(None) => {
                        let assembler = std::mem::take(assembler);
                        if assembler.chunks() == 0 {
                            // The body held no events: the endpoint ignored `stream`.
                            self.backend
                                .refuse_streaming("it answered a streamed request without events");
                            return Some(self.whole().await);
                        }
                        self.phase = Phase::Over;
                        return Some(assembler.finish().map(ReplyEvent::Done));
                    }
                },
            }
        }
    }

    fn fail(&mut self, error: LlmError) -> Result<ReplyEvent, LlmError> {
        self.phase = Phase::Over;
        Err(error)
    }

    async fn whole(&mut self) -> Result<ReplyEvent, LlmError> {
        self.phase = Phase::Over;
        self.backend
            .complete(self.request)
            .await
            .map(ReplyEvent::Done)
    }
}
