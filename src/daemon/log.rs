//! The durable event log: `<state_dir>/events/YYYY-MM-DD.jsonl`, one JSON
//! object per line, each with a `seq` that only grows (across restarts) and a
//! `ts` (RFC 3339, UTC).
//!
//! Every event is one `write(2)` of a whole line with no buffer in between, so
//! a killed process leaves every complete line readable; a torn last line
//! (power cut, full disk) is cut off when the log is opened again.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Map, Value};

use super::settings::FsyncPolicy;
use crate::events::Event;
use crate::memory::redact::{redact_text, redact_tree};

/// Why the log could not be opened or written.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// A file or folder of the log could not be used.
    #[error("event log {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// One logged event: its sequence number and the exact line written.
#[derive(Debug, Clone, PartialEq)]
pub struct Logged {
    /// The sequence number.
    pub seq: u64,
    /// The JSON object with `seq` and `ts`, without the newline.
    pub line: String,
}

/// The append-only log; one writer.
#[derive(Debug)]
pub struct EventLog {
    dir: PathBuf,
    day: String,
    file: File,
    next_seq: u64,
    policy: FsyncPolicy,
    interval: Duration,
    last_sync: Instant,
    unsynced: bool,
    /// Texts erased from memory during the running episode: later lines of
    /// the episode (the robot saying what it forgot) are redacted as written.
    erased: Vec<String>,
    /// What the opening found and repaired, for the caller to report.
    pub repaired: Option<String>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> LogError + '_ {
    move |source| LogError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for `time`.
pub fn timestamp(time: SystemTime) -> String {
    humantime::format_rfc3339_millis(time).to_string()
}

impl EventLog {
    /// Opens the log in `state_dir/events`, creating it, and finds the next `seq`
    /// from the newest file's last complete line.
    pub fn open(
        state_dir: &Path,
        policy: FsyncPolicy,
        interval: Duration,
    ) -> Result<Self, LogError> {
        let dir = state_dir.join("events");
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let mut repaired = None;
        let mut last_seq = 0;
        // Newest files first: the first one with a readable line gives the seq.
        for path in log_files(&dir)?.into_iter().rev() {
            let (seq, cut) = last_complete_seq(&path)?;
            if let Some(cut) = cut {
                repaired.get_or_insert(cut);
            }
            if let Some(seq) = seq {
                last_seq = seq;
                break;
            }
        }
        let day = timestamp(SystemTime::now())[..10].to_string();
        let path = dir.join(format!("{day}.jsonl"));
        let file = open_append(&path, &dir)?;
        Ok(Self {
            dir,
            day,
            file,
            next_seq: last_seq + 1,
            policy,
            interval,
            last_sync: Instant::now(),
            unsynced: false,
            erased: Vec::new(),
            repaired,
        })
    }

    /// The folder of the day files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The sequence number the next event gets.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Writes one event as one line; returns the line with its `seq`.
    pub fn append(&mut self, event: &Event) -> Result<Logged, LogError> {
        let now = SystemTime::now();
        let ts = timestamp(now);
        if ts[..10] != self.day {
            // A new day, a new file.
            let path = self.dir.join(format!("{}.jsonl", &ts[..10]));
            self.sync()?;
            self.file = open_append(&path, &self.dir)?;
            self.day = ts[..10].to_string();
        }
        let seq = self.next_seq;
        let mut line = stamped_line(event, seq, &ts);
        if !self.erased.is_empty() {
            line = redact_text(&line, &self.erased).0;
        }
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let path = self.dir.join(format!("{}.jsonl", self.day));
        self.file.write_all(&bytes).map_err(io(&path))?;
        self.next_seq += 1;
        self.unsynced = true;
        match self.policy {
            FsyncPolicy::Every => self.sync()?,
            FsyncPolicy::Interval if self.last_sync.elapsed() >= self.interval => self.sync()?,
            _ => {}
        }
        Ok(Logged { seq, line })
    }

    /// Flushes written events to the disk if anything is unsynced (`interval` policy's tick, shutdown).
    pub fn sync(&mut self) -> Result<(), LogError> {
        if self.unsynced {
            let path = self.dir.join(format!("{}.jsonl", self.day));
            self.file.sync_data().map_err(io(&path))?;
            self.unsynced = false;
        }
        self.last_sync = Instant::now();
        Ok(())
    }

    /// Replaces erased texts by `[erased]` in every day file, in place, and
    /// reopens today's file (redaction writes a new one). With `sticky`, lines
    /// written later are redacted too, until [`EventLog::end_redaction`].
    /// Returns the number of replacements.
    pub fn redact(&mut self, texts: &[String], sticky: bool) -> Result<usize, LogError> {
        self.sync()?;
        let count = redact_tree(&self.dir, &["jsonl"], texts).map_err(io(&self.dir))?;
        let path = self.dir.join(format!("{}.jsonl", self.day));
        self.file = open_append(&path, &self.dir)?;
        // The rewritten files replaced the old ones by rename: make them durable too.
        self.file.sync_all().map_err(io(&path))?;
        if let Ok(d) = File::open(&self.dir) {
            let _ = d.sync_all();
        }
        if sticky {
            self.erased.extend(texts.iter().cloned());
        }
        Ok(count)
    }

    /// The episode in which texts were erased ended: later lines are written as they are.
    pub fn end_redaction(&mut self) {
        self.erased.clear();
    }

    /// Whether the `interval` policy wants a flush now.
    pub fn sync_due(&self) -> bool {
        self.policy == FsyncPolicy::Interval
            && self.unsynced
            && self.last_sync.elapsed() >= self.interval
    }
}

/// The event's JSON object with `seq` and `ts` added.
pub fn stamped_line(event: &Event, seq: u64, ts: &str) -> String {
    let mut object = match serde_json::to_value(event) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    object.insert("seq".into(), Value::from(seq));
    object.insert("ts".into(), Value::from(ts));
    Value::Object(object).to_string()
}

fn open_append(path: &Path, dir: &Path) -> Result<File, LogError> {
    let existed = path.exists();
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io(path))?;
    if !existed {
        // The new file's name must survive a power cut too.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(file)
}

/// The day files, oldest first.
pub fn log_files(dir: &Path) -> Result<Vec<PathBuf>, LogError> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(io(dir)(e)),
    };
    files.sort();
    Ok(files)
}

/// The `seq` of the last complete, parseable line; cuts a torn tail (bytes after
/// the last newline) off the file so that the next line starts clean.
fn last_complete_seq(path: &Path) -> Result<(Option<u64>, Option<String>), LogError> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(io(path))?;
    let len = file.metadata().map_err(io(path))?.len();
    // Read the tail: enough for the last few lines.
    let window = len.min(1 << 20);
    file.seek(SeekFrom::Start(len - window)).map_err(io(path))?;
    let mut tail = Vec::with_capacity(window as usize);
    file.read_to_end(&mut tail).map_err(io(path))?;
    let mut cut = None;
    let complete = match tail.iter().rposition(|&b| b == b'\n') {
        Some(at) => at + 1,
        None if window == len => 0,
        None => tail.len(),
    };
    if complete < tail.len() {
        let keep = len - (tail.len() - complete) as u64;
        file.set_len(keep).map_err(io(path))?;
        cut = Some(format!(
            "{}: cut a torn last line of {} bytes (the process stopped while writing it)",
            path.display(),
            tail.len() - complete
        ));
    }
    let seq = tail[..complete]
        .split(|&b| b == b'\n')
        .rev()
        .filter(|l| !l.is_empty())
        .find_map(|l| {
            serde_json::from_slice::<Value>(l)
                .ok()?
                .get("seq")?
                .as_u64()
        });
    Ok((seq, cut))
}

/// Every complete line of the log with `seq > after`, in order; unreadable lines are skipped.
pub fn read_since(dir: &Path, after: u64) -> Result<Vec<Logged>, LogError> {
    let mut out = Vec::new();
    for path in log_files(dir)? {
        let file = File::open(&path).map_err(io(&path))?;
        for line in BufReader::new(file).split(b'\n') {
            let Ok(line) = line else { break };
            let Ok(text) = String::from_utf8(line) else {
                continue;
            };
            let Some(seq) = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v.get("seq").and_then(Value::as_u64))
            else {
                continue;
            };
            if seq > after {
                out.push(Logged { seq, line: text });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warning(n: u32) -> Event {
        Event::Warning {
            kind: "test".into(),
            detail: format!("event {n}"),
        }
    }

    #[test]
    fn seq_continues_across_reopen_and_lines_carry_seq_and_ts() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = EventLog::open(dir.path(), FsyncPolicy::Every, Duration::ZERO).unwrap();
        for n in 0..3 {
            log.append(&warning(n)).unwrap();
        }
        drop(log);
        let mut log = EventLog::open(dir.path(), FsyncPolicy::None, Duration::ZERO).unwrap();
        assert_eq!(log.next_seq(), 4);
        let logged = log.append(&warning(3)).unwrap();
        assert_eq!(logged.seq, 4);
        let all = read_since(&dir.path().join("events"), 0).unwrap();
        assert_eq!(all.iter().map(|l| l.seq).collect::<Vec<_>>(), [1, 2, 3, 4]);
        let v: Value = serde_json::from_str(&all[3].line).unwrap();
        assert_eq!(v["type"], "warning");
        assert_eq!(v["detail"], "event 3");
        assert!(v["ts"].as_str().unwrap().ends_with('Z'));
        assert_eq!(read_since(&dir.path().join("events"), 2).unwrap().len(), 2);
    }

    #[test]
    fn a_torn_last_line_is_cut_and_the_next_event_starts_a_clean_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = EventLog::open(dir.path(), FsyncPolicy::None, Duration::ZERO).unwrap();
        log.append(&warning(0)).unwrap();
        log.append(&warning(1)).unwrap();
        let path = log_files(&dir.path().join("events")).unwrap().remove(0);
        drop(log);
        // A crash in the middle of a write.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"type":"warning","detail":"half"#).unwrap();
        drop(f);
        let mut log = EventLog::open(dir.path(), FsyncPolicy::None, Duration::ZERO).unwrap();
        assert!(log.repaired.as_deref().unwrap_or("").contains("torn"));
        assert_eq!(log.append(&warning(2)).unwrap().seq, 3);
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            serde_json::from_str::<Value>(line).expect("every line parses");
        }
        assert_eq!(text.lines().count(), 3);
    }

    #[test]
    fn redaction_rewrites_the_day_file_and_later_lines_still_reach_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = EventLog::open(dir.path(), FsyncPolicy::None, Duration::ZERO).unwrap();
        let said = |text: &str| Event::Speech {
            to: "Daniel".into(),
            text: text.into(),
        };
        log.append(&said("You only drink zebrafruit juice."))
            .unwrap();
        let texts = vec!["only drink zebrafruit".to_string()];
        assert_eq!(log.redact(&texts, true).unwrap(), 1);
        // Still in the running episode: the robot repeats it, the log does not.
        log.append(&said("I forgot that you only drink zebrafruit."))
            .unwrap();
        log.end_redaction();
        log.append(&said("Later: I only drink zebrafruit again."))
            .unwrap();
        let all = read_since(&dir.path().join("events"), 0).unwrap();
        let texts: Vec<String> = all
            .iter()
            .map(|l| {
                serde_json::from_str::<Value>(&l.line).unwrap()["text"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            texts,
            [
                "You [erased] juice.",
                "I forgot that you [erased].",
                "Later: I only drink zebrafruit again."
            ]
        );
        assert_eq!(all.iter().map(|l| l.seq).collect::<Vec<_>>(), [1, 2, 3]);
    }

    #[test]
    fn a_log_of_only_garbage_starts_at_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("events")).unwrap();
        std::fs::write(dir.path().join("events/2020-01-01.jsonl"), "not json\n").unwrap();
        let log = EventLog::open(dir.path(), FsyncPolicy::None, Duration::ZERO).unwrap();
        assert_eq!(log.next_seq(), 1);
    }
}
