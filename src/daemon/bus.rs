//! The event bus: every event is numbered and written to the log, then fanned
//! out to live subscribers (SSE, the terminal). The same line goes everywhere.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::sync::{broadcast, watch};

use super::log::{read_since, EventLog, LogError, Logged};
use crate::events::Event;

/// How many events a slow subscriber may lag before its stream is closed
/// (an SSE client then reconnects with `Last-Event-ID` and catches up from the log).
const LIVE_BUFFER: usize = 1024;

/// Sees every event as it is logged (the terminal, or `--json` stdout).
pub type Echo = Box<dyn Fn(&Logged, &Event) + Send + Sync>;

/// Shared handle to the log and the live fan-out.
#[derive(Clone)]
pub struct Bus {
    inner: Arc<Inner>,
}

struct Inner {
    log: Mutex<EventLog>,
    dir: PathBuf,
    live: broadcast::Sender<Arc<Logged>>,
    /// The latest live-only line (motion): a subscriber that is slow skips to
    /// the newest, so nothing queues up behind it.
    latest: watch::Sender<Option<Arc<str>>>,
    echo: Option<Echo>,
}

impl std::fmt::Debug for Bus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bus").field("dir", &self.inner.dir).finish()
    }
}

impl Bus {
    /// A bus over an opened log; `echo` also sees every event (the terminal or `--json` stdout).
    pub fn new(log: EventLog, echo: Option<Echo>) -> Self {
        let (live, _) = broadcast::channel(LIVE_BUFFER);
        let dir = log.dir().to_path_buf();
        Self {
            inner: Arc::new(Inner {
                log: Mutex::new(log),
                dir,
                live,
                latest: watch::channel(None).0,
                echo,
            }),
        }
    }

    /// Logs and broadcasts one event; returns its `seq`. A log that cannot be
    /// written is reported on stderr and the event still goes live (seq 0):
    /// losing the disk must not silence the robot.
    pub fn publish(&self, event: Event) -> u64 {
        // The lock spans write and broadcast, so live order is log order.
        let mut log = match self.inner.log.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let logged = match log.append(&event) {
            Ok(logged) => logged,
            Err(error) => {
                tracing::error!("{error}; the event is not logged");
                Logged {
                    seq: 0,
                    line: super::log::stamped_line(
                        &event,
                        0,
                        &super::log::timestamp(std::time::SystemTime::now()),
                    ),
                }
            }
        };
        if let Some(echo) = &self.inner.echo {
            echo(&logged, &event);
        }
        let seq = logged.seq;
        // No subscriber is fine.
        let _ = self.inner.live.send(Arc::new(logged));
        seq
    }

    /// Sends a live-only event (not logged, no `seq`, not echoed): subscribers
    /// see the newest one and skip those they were too slow for.
    pub fn publish_live(&self, event: &Event) {
        self.inner
            .latest
            .send_replace(Some(Arc::from(event.to_json_line())));
    }

    /// The newest live-only event, for one subscriber.
    pub fn subscribe_latest(&self) -> watch::Receiver<Option<Arc<str>>> {
        self.inner.latest.subscribe()
    }

    /// The `seq` the next event will get.
    pub fn next_seq(&self) -> u64 {
        match self.inner.log.lock() {
            Ok(log) => log.next_seq(),
            Err(poisoned) => poisoned.into_inner().next_seq(),
        }
    }

    /// Flushes the log to the disk when the interval policy is due (or `force`).
    pub fn sync(&self, force: bool) -> Result<(), LogError> {
        let mut log = match self.inner.log.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if force || log.sync_due() {
            log.sync()?;
        }
        Ok(())
    }

    /// Redacts erased texts in the log's files (in place, under the log's
    /// lock, so no line is written meanwhile); with `sticky`, also in the lines
    /// logged until [`Bus::end_redaction`]. Returns the number of replacements.
    pub fn redact(&self, texts: &[String], sticky: bool) -> Result<usize, LogError> {
        let mut log = match self.inner.log.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        log.redact(texts, sticky)
    }

    /// Ends the redaction of new lines (the episode that erased texts is over).
    pub fn end_redaction(&self) {
        match self.inner.log.lock() {
            Ok(mut log) => log.end_redaction(),
            Err(poisoned) => poisoned.into_inner().end_redaction(),
        }
    }

    /// Live events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Logged>> {
        self.inner.live.subscribe()
    }

    /// Logged events with `seq > after`, from the files.
    pub fn since(&self, after: u64) -> Result<Vec<Logged>, LogError> {
        read_since(&self.inner.dir, after)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::daemon::settings::FsyncPolicy;

    fn joints(moving: bool) -> Event {
        Event::Joints {
            arms: Default::default(),
            grippers: Default::default(),
            carried: None,
            moving,
            path: Vec::new(),
        }
    }

    #[test]
    fn a_slow_subscriber_of_live_events_holds_only_the_newest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = EventLog::open(dir.path(), FsyncPolicy::None, Duration::ZERO).expect("log");
        let bus = Bus::new(log, None);
        let mut slow = bus.subscribe_latest();
        for _ in 0..10_000 {
            bus.publish_live(&joints(true));
        }
        bus.publish_live(&joints(false));
        // One value waits, the newest; nothing queued behind it.
        assert!(slow.has_changed().expect("open"));
        let line = slow.borrow_and_update().clone().expect("a line");
        assert!(line.contains(r#""moving":false"#), "{line}");
        assert!(!slow.has_changed().expect("open"));
        // And none of it reached the log.
        assert_eq!(bus.since(0).expect("read").len(), 0);
    }
}
