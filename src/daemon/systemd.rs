//! systemd integration: readiness, a watchdog fed only by real progress, and
//! the stopping notice. Every call is a no-op outside systemd.

use std::sync::Arc;
use std::time::Duration;

use sd_notify::NotifyState;
use tokio_util::sync::CancellationToken;

use super::worker::Health;

/// How long the worker may show no sign of life before the watchdog stops pinging.
const STALL: Duration = Duration::from_secs(10);

fn notify(states: &[NotifyState<'_>]) {
    if let Err(error) = sd_notify::notify(states) {
        tracing::warn!("cannot notify systemd: {error}");
    }
}

/// Start-up is complete: the API is bound, the scene and models are loaded.
pub fn ready(status: &str) {
    notify(&[NotifyState::Ready, NotifyState::Status(status)]);
}

/// Shutdown has begun.
pub fn stopping() {
    notify(&[NotifyState::Stopping, NotifyState::Status("stopping")]);
}

/// Start-up takes longer (loading a speech model): ask for more time.
pub fn extend_start(by: Duration) {
    notify(&[NotifyState::ExtendTimeoutUsec(
        by.as_micros().min(u32::MAX as u128) as u32,
    )]);
}

/// Pings the watchdog at half its interval while the worker makes progress;
/// a stuck worker stops the pings and systemd restarts the service.
pub fn spawn_watchdog(health: Arc<Health>, shutdown: CancellationToken) {
    let Some(interval) = sd_notify::watchdog_enabled() else {
        return;
    };
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(interval / 2);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tick.tick() => {
                    if health.alive(STALL) {
                        notify(&[NotifyState::Watchdog]);
                    } else {
                        tracing::error!("the agent worker made no progress for {} s; not pinging the watchdog", STALL.as_secs());
                    }
                }
            }
        }
    });
}
