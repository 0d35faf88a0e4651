//! A Wyoming TTS client (the Home Assistant voice protocol, e.g. wyoming-piper on tcp 10200).
//!
//! Framing: every event is one JSON header line (`type`, optional `data`,
//! `data_length`, `payload_length`), then `data_length` bytes of JSON merged
//! over `data`, then `payload_length` bytes of payload (PCM for `audio-chunk`).
//! A request is `synthesize {text, voice?}`; the answer is `audio-start`,
//! `audio-chunk`… and `audio-stop` (or `error`).

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader,
};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use super::engine::{checked, SpeechEngine, SynthFuture};
use super::pcm::Pcm;
use super::settings::WyomingSettings;
use super::VoiceError;

const ENGINE: &str = "wyoming";
/// The protocol version written in headers.
const VERSION: &str = "1.5.0";
/// Bounds against a peer that is not a Wyoming server.
const MAX_HEADER: u64 = 64 * 1024;
const MAX_DATA: usize = 1024 * 1024;
const MAX_PAYLOAD: usize = 16 * 1024 * 1024;
const MAX_AUDIO_BYTES: usize = 64 * 1024 * 1024;

/// One Wyoming event: its type, its data (inline and separate parts merged) and its payload.
#[derive(Debug, Clone, PartialEq)]
pub struct WyomingEvent {
    /// `type`, e.g. `audio-chunk`.
    pub kind: String,
    /// `data` merged with the separate data block.
    pub data: Value,
    /// The payload (raw PCM for audio chunks).
    pub payload: Vec<u8>,
}

/// Writes one event with its data as a separate block, as the Python library does.
pub async fn write_event(
    w: &mut (impl AsyncWrite + Unpin),
    kind: &str,
    data: &Value,
    payload: &[u8],
) -> std::io::Result<()> {
    let data = serde_json::to_vec(data)?;
    let mut header = json!({"type": kind, "version": VERSION, "data_length": data.len()});
    if !payload.is_empty() {
        header["payload_length"] = payload.len().into();
    }
    let mut bytes = serde_json::to_vec(&header)?;
    bytes.push(b'\n');
    bytes.extend_from_slice(&data);
    bytes.extend_from_slice(payload);
    w.write_all(&bytes).await?;
    w.flush().await
}

/// One header line of at most `max` bytes; `Ok(None)` when the peer closed
/// between messages. The error is a phrase for "…returned audio that {error}".
pub(super) async fn read_header_line(
    r: &mut (impl AsyncBufRead + Unpin),
    max: u64,
) -> Result<Option<Vec<u8>>, String> {
    let mut line = Vec::new();
    let n = (&mut *r)
        .take(max)
        .read_until(b'\n', &mut line)
        .await
        .map_err(|e| format!("broke off: {e}"))?;
    Ok((n > 0).then_some(line))
}

/// Reads one event; `Ok(None)` when the peer closed the connection between events.
/// The error is a phrase for "…returned audio that {error}" (or an I/O error's text).
pub async fn read_event(
    r: &mut (impl AsyncBufRead + Unpin),
) -> Result<Option<WyomingEvent>, String> {
    let Some(line) = read_header_line(r, MAX_HEADER).await? else {
        return Ok(None);
    };
    if line.last() != Some(&b'\n') {
        return Err(format!(
            "came with a header line that is cut off or longer than {MAX_HEADER} bytes"
        ));
    }
    let header: Value = serde_json::from_slice(&line).map_err(|_| {
        format!(
            "came in a line that is not a Wyoming event: {:?}",
            String::from_utf8_lossy(&line[..line.len().min(80)]).trim()
        )
    })?;
    let kind = header
        .get("type")
        .and_then(Value::as_str)
        .ok_or("came in an event header without a type")?
        .to_string();
    let length = |key: &str, max: usize| -> Result<usize, String> {
        match header.get(key) {
            None | Some(Value::Null) => Ok(0),
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| *n <= max)
                .ok_or_else(|| format!("declared a {key} that is not a size up to {max} bytes")),
        }
    };
    let data_length = length("data_length", MAX_DATA)?;
    let payload_length = length("payload_length", MAX_PAYLOAD)?;
    let mut data = header.get("data").cloned().unwrap_or_else(|| json!({}));
    if data_length > 0 {
        let mut block = vec![0; data_length];
        r.read_exact(&mut block)
            .await
            .map_err(|e| format!("broke off inside an event's data: {e}"))?;
        let extra: Value = serde_json::from_slice(&block)
            .map_err(|_| "came with an event data block that is not JSON".to_string())?;
        match (data.as_object_mut(), extra) {
            (Some(obj), Value::Object(extra)) => obj.extend(extra),
            (_, extra) => data = extra,
        }
    }
    let mut payload = vec![0; payload_length];
    r.read_exact(&mut payload)
        .await
        .map_err(|e| format!("broke off inside an event's payload: {e}"))?;
    Ok(Some(WyomingEvent {
        kind,
        data,
        payload,
    }))
}

/// The Wyoming speech engine: one TCP connection per utterance.
#[derive(Debug, Clone)]
pub struct WyomingSpeech {
    address: String,
    voice: Option<String>,
    timeout: Duration,
}

impl WyomingSpeech {
    /// The engine for `[voice.wyoming]`.
    pub fn new(settings: &WyomingSettings, timeout: Duration) -> Self {
        Self {
            address: settings.address.clone(),
            voice: settings.voice.clone(),
            timeout,
        }
    }

    async fn speak(&self, text: &str) -> Result<Pcm, VoiceError> {
        let bad = |detail: String| VoiceError::BadAudio {
            engine: ENGINE,
            detail,
        };
        let stream =
            TcpStream::connect(&self.address)
                .await
                .map_err(|e| VoiceError::Unreachable {
                    engine: ENGINE,
                    address: self.address.clone(),
                    detail: e.to_string(),
                })?;
        let (read, mut write) = stream.into_split();
        let mut read = BufReader::new(read);
        let mut data = json!({"text": text});
        if let Some(voice) = &self.voice {
            data["voice"] = json!({"name": voice});
        }
        write_event(&mut write, "synthesize", &data, &[])
            .await
            .map_err(|e| VoiceError::Unreachable {
                engine: ENGINE,
                address: self.address.clone(),
                detail: format!("sending the text failed: {e}"),
            })?;
        let mut format: Option<(u32, u16, u16)> = None; // rate, width, channels
        let mut audio = Vec::new();
        loop {
            let Some(event) = read_event(&mut read).await.map_err(bad)? else {
                return Err(bad(
                    "ended before audio-stop (the server closed the connection)".into(),
                ));
            };
            match event.kind.as_str() {
                "audio-start" | "audio-chunk" => {
                    let field = |k: &str| event.data.get(k).and_then(Value::as_u64);
                    if let (Some(rate), Some(width), Some(channels)) =
                        (field("rate"), field("width"), field("channels"))
                    {
                        format = Some((
                            u32::try_from(rate).unwrap_or(0),
                            u16::try_from(width).unwrap_or(0),
                            u16::try_from(channels).unwrap_or(0),
                        ));
                    }
                    if audio.len() + event.payload.len() > MAX_AUDIO_BYTES {
                        return Err(bad(format!("is longer than {MAX_AUDIO_BYTES} bytes")));
                    }
                    audio.extend_from_slice(&event.payload);
                }
                "audio-stop" => break,
                "error" => {
                    let said = event
                        .data
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or("no reason given");
                    return Err(VoiceError::Engine {
                        engine: ENGINE,
                        detail: format!("the server at {} refused: {said}", self.address),
                    });
                }
                // Streaming servers also send synthesize-stopped and the like; they carry no audio.
                _ => {}
            }
        }
        let (rate, width, channels) = format
            .ok_or_else(|| bad("came without a sample format (no rate, width, channels)".into()))?;
        if rate == 0 || channels == 0 {
            return Err(bad("declares a sample rate or channel count of 0".into()));
        }
        if width != 2 {
            return Err(bad(format!(
                "uses {width}-byte samples; 16-bit (width 2) is supported"
            )));
        }
        checked(ENGINE, Ok(Pcm::from_s16le(&audio, rate, channels)))
    }
}

impl SpeechEngine for WyomingSpeech {
    fn synthesize<'a>(&'a self, text: &'a str, cancel: &'a CancellationToken) -> SynthFuture<'a> {
        Box::pin(async move {
            tokio::select! {
                _ = cancel.cancelled() => Err(VoiceError::Cancelled),
                out = tokio::time::timeout(self.timeout, self.speak(text)) => out.unwrap_or(Err(
                    VoiceError::Timeout { engine: ENGINE, seconds: self.timeout.as_secs_f64() },
                )),
            }
        })
    }

    fn describe(&self) -> String {
        format!(
            "wyoming ({}{})",
            self.address,
            self.voice
                .as_deref()
                .map(|v| format!(", voice {v}"))
                .unwrap_or_default()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn events_round_trip_with_inline_and_separate_data() {
        let mut bytes = Vec::new();
        write_event(
            &mut bytes,
            "audio-chunk",
            &json!({"rate": 22050}),
            &[1, 2, 3, 4],
        )
        .await
        .expect("write");
        // The inline form, as some servers write it.
        bytes.extend_from_slice(b"{\"type\":\"audio-stop\",\"data\":{\"timestamp\":7}}\n");
        let mut r = BufReader::new(&bytes[..]);
        let first = read_event(&mut r).await.expect("read").expect("event");
        assert_eq!(first.kind, "audio-chunk");
        assert_eq!(first.data["rate"], 22050);
        assert_eq!(first.payload, vec![1, 2, 3, 4]);
        let second = read_event(&mut r).await.expect("read").expect("event");
        assert_eq!(
            (second.kind.as_str(), &second.data["timestamp"]),
            ("audio-stop", &json!(7))
        );
        assert_eq!(read_event(&mut r).await.expect("eof"), None);
    }

    #[tokio::test]
    async fn a_line_that_is_not_an_event_is_named() {
        let mut r = BufReader::new(&b"HTTP/1.1 400 Bad Request\r\n"[..]);
        let err = read_event(&mut r).await.expect_err("http is not wyoming");
        assert!(
            err.contains("not a Wyoming event") && err.contains("HTTP/1.1"),
            "{err}"
        );
    }
}
