//! Retries with deterministic exponential backoff.
//!
//! Retried: timeouts, connection errors, HTTP 429 and 5xx
//! ([`LlmError::is_retryable`]). Never retried: other 4xx, unparseable replies,
//! missing keys. Delays are `initial * 2^n` (no jitter), capped at [`MAX_DELAY`].

use std::future::Future;
use std::time::Duration;

use super::LlmError;

/// Upper bound of one backoff delay.
pub const MAX_DELAY: Duration = Duration::from_secs(30);

/// How often and how patiently to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 = try once).
    pub retries: u32,
    /// Delay before the first retry; doubled for each further retry.
    pub initial_delay: Duration,
}

impl RetryPolicy {
    /// Delay before retry number `retry` (0-based): `initial * 2^retry`, capped.
    pub fn delay(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry);
        self.initial_delay.saturating_mul(factor).min(MAX_DELAY)
    }

    /// Run `attempt` until it succeeds, fails with a non-retryable error, or the
    /// retries are used up; each retry is logged at warn.
    pub async fn run<T, F, Fut>(&self, what: &str, mut attempt: F) -> Result<T, LlmError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, LlmError>>,
    {
        let mut retry = 0u32;
        loop {
            match attempt().await {
                Ok(value) => return Ok(value),
                Err(err) if err.is_retryable() && retry < self.retries => {
                    let delay = self.delay(retry);
                    retry += 1;
                    tracing::warn!(
                        target: "attentive::llm",
                        "{what} failed ({err}); retry {retry} of {} in {} ms",
                        self.retries,
                        delay.as_millis()
                    );
                    tokio::time::sleep(delay).await;
                }
                Err(err) => return Err(err),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn delays_double_and_are_capped() {
        let p = RetryPolicy {
            retries: 3,
            initial_delay: Duration::from_millis(500),
        };
        assert_eq!(p.delay(0), Duration::from_millis(500));
        assert_eq!(p.delay(1), Duration::from_millis(1000));
        assert_eq!(p.delay(2), Duration::from_millis(2000));
        assert_eq!(p.delay(40), MAX_DELAY);
    }

    fn http(status: u16) -> LlmError {
        LlmError::Http {
            status,
            body_excerpt: String::new(),
        }
    }

    #[tokio::test]
    async fn retries_only_retryable_errors() {
        let p = RetryPolicy {
            retries: 2,
            initial_delay: Duration::from_millis(1),
        };
        for (status, expected_calls) in [(503, 3), (429, 3), (400, 1), (404, 1)] {
            let calls = AtomicU32::new(0);
            let res: Result<(), _> = p
                .run("test", || {
                    calls.fetch_add(1, Ordering::SeqCst);
                    async move { Err(http(status)) }
                })
                .await;
            assert_eq!(res, Err(http(status)));
            assert_eq!(
                calls.load(Ordering::SeqCst),
                expected_calls,
                "status {status}"
            );
        }
        let calls = AtomicU32::new(0);
        let res = p
            .run("test", || {
                let n = calls.fetch_add(1, Ordering::SeqCst);
                async move {
                    if n == 0 {
                        Err(http(500))
                    } else {
                        Ok(n)
                    }
                }
            })
            .await;
        assert_eq!(res, Ok(1));
    }
}
