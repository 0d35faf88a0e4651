//! Erasure beyond the store: the event log's day files and recordings hold
//! what was said too. Each erased text is replaced in place by `[erased]`.

use std::io;
use std::path::Path;

/// The replacement for erased text.
pub const ERASED: &str = "[erased]";

/// The forms an erased text takes in files: as written, and as a JSON string
/// body (quotes and non-ASCII escaped). Short texts are ignored: redacting a
/// two-letter word everywhere would destroy the log.
fn forms(texts: &[String]) -> Vec<String> {
    let mut forms = Vec::new();
    for text in texts.iter().map(|t| t.trim()).filter(|t| t.len() >= 4) {
        forms.push(text.to_string());
        if let Ok(json) = serde_json::to_string(text) {
            let body = json[1..json.len() - 1].to_string();
            if body != text {
                forms.push(body);
            }
        }
    }
    // Longest first, so a text inside another is not half-replaced.
    forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    forms.dedup();
    forms
}

/// Replaces every erased text in one file (case-insensitively), rewriting it
/// through a temporary file; returns how many were replaced.
pub fn redact_file(path: &Path, texts: &[String]) -> io::Result<usize> {
    let content = std::fs::read_to_string(path)?;
    let (redacted, count) = redact_text(&content, texts);
    if count > 0 {
        let temporary = path.with_extension("redacting");
        std::fs::write(&temporary, redacted)?;
        std::fs::rename(&temporary, path)?;
    }
    Ok(count)
}

/// The text with every erased text replaced, and how many replacements.
pub fn redact_text(content: &str, texts: &[String]) -> (String, usize) {
    let mut out = content.to_string();
    let mut count = 0;
    for form in forms(texts) {
        let lower_form = form.to_lowercase();
        loop {
            // Byte positions agree between a string and its ASCII lower case only
            // for ASCII; for other text the exact form is searched.
            let found = if out.is_ascii() && lower_form.is_ascii() {
                out.to_ascii_lowercase().find(&lower_form)
            } else {
                out.find(&form)
            };
            let Some(at) = found else { break };
            out.replace_range(at..at + form.len(), ERASED);
            count += 1;
        }
    }
    (out, count)
}

/// Redacts every file with one of `extensions` under `dir` (recursively);
/// returns the number of replacements. A missing folder has nothing to redact.
pub fn redact_tree(dir: &Path, extensions: &[&str], texts: &[String]) -> io::Result<usize> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(0);
    };
    let mut count = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            count += redact_tree(&path, extensions, texts)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.contains(&e))
        {
            count += redact_file(&path, texts)?;
        }
    }
    Ok(count)
}

/// The forms an erased fact takes in the event log besides its own words: the
/// robot saying it back ("I only drink sugar-free" -> "you only drink
/// sugar-free") and the understanding stage's `heard` (lower case, words
/// only: "i only drink sugar free"). Words the robot rephrases otherwise are
/// not found.
pub fn copies(texts: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for text in texts {
        let said_back = said_back(text);
        for form in [text.clone(), said_back] {
            let heard = crate::understanding::normalize::plain_words(&form).join(" ");
            for f in [form, heard] {
                if !f.trim().is_empty() && !out.contains(&f) {
                    out.push(f);
                }
            }
        }
    }
    out
}

/// The first person turned into the second, as the robot says a fact back.
fn said_back(text: &str) -> String {
    text.split(' ')
        .map(|word| {
            let end = word
                .find(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
                .unwrap_or(word.len());
            let (core, rest) = word.split_at(end);
            let swapped = match core.to_lowercase().replace('’', "'").as_str() {
                "i" => "you",
                "i'm" => "you're",
                "i've" => "you've",
                "i'll" => "you'll",
                "i'd" => "you'd",
                "am" => "are",
                "me" => "you",
                "my" => "your",
                "mine" => "yours",
                "myself" => "yourself",
                _ => return word.to_string(),
            };
            format!("{swapped}{rest}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_is_replaced_and_other_text_kept() {
        let line = r#"{"type":"turn","text":"Remember that I only drink \"sugar-free\", ok"}"#;
        let texts = vec!["I only drink \"sugar-free\"".to_string()];
        let (out, n) = redact_text(line, &texts);
        assert_eq!(n, 1);
        assert_eq!(
            out,
            r#"{"type":"turn","text":"Remember that [erased], ok"}"#
        );
        assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
    }

    #[test]
    fn case_differences_do_not_hide_a_copy_and_short_texts_are_left() {
        let (out, n) = redact_text(
            "I ONLY DRINK TEA. ok",
            &["i only drink tea".into(), "ok".into()],
        );
        assert_eq!((out.as_str(), n), ("[erased]. ok", 1));
    }
}
