//! The HTML report of a run with one or more characters, laid out like the
//! paper's figures: Fig. 4 (per case type, one stacked bar per character) and,
//! for dialogue scripts, Fig. 5 (per step, one stacked bar per character,
//! stacked over `--repeat`), followed by the counts and the cost per character.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::judge::Category;
use super::report::Summary;
use super::run::Judged;

/// Colours of the categories, best first (as in the paper).
const COLOURS: [(&str, &str); 4] = [
    ("success", "#2e7d32"),
    ("partial", "#9ccc65"),
    ("execution_error", "#ffb300"),
    ("undesired", "#c62828"),
];

/// One character's turns of a run.
#[derive(Debug, Clone)]
pub struct CharacterRun<'a> {
    /// The character's name.
    pub character: String,
    /// Its judged turns.
    pub judged: Vec<&'a Judged>,
}

type Counts = BTreeMap<Category, usize>;

/// A group of bars (a case type or a step), one bar per character.
struct Group {
    label: String,
    bars: Vec<(String, Counts)>,
}

/// The whole page.
pub fn html(title: &str, runs: &[CharacterRun<'_>]) -> String {
    let mut body = String::new();
    let legend: String = COLOURS
        .iter()
        .map(|(n, c)| format!(r#"<span style="display:inline-block;width:12px;height:12px;background:{c}"></span> {n} &nbsp; "#))
        .collect();
    let _ = writeln!(body, "<p>{legend}</p>");
    let cases = groups(runs, |j| Some(j.row()));
    if !cases.is_empty() {
        let _ = write!(
            body,
            "<h2>Per case type (like Fig. 4)</h2>\n{}\n",
            svg(&cases, "case")
        );
    }
    let steps = groups(runs, |j| {
        j.case.is_none().then(|| {
            let file = j.label.rsplit('/').next().unwrap_or(&j.label);
            format!("{file} step {}", j.turn)
        })
    });
    if !steps.is_empty() {
        let _ = write!(
            body,
            "<h2>Per step of the dialogues (like Fig. 5)</h2>\n{}\n",
            svg(&steps, "step")
        );
    }
    for run in runs {
        let owned: Vec<Judged> = run.judged.iter().map(|j| (*j).clone()).collect();
        let summary = Summary::of(&owned);
        let _ = write!(
            body,
            "<h2>Character {}</h2>\n<pre>{}\n{}</pre>\n",
            escape(&run.character),
            escape(&summary.table("counts")),
            escape(&summary.cost_table())
        );
    }
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{t}</title></head>\n<body style=\"font-family:sans-serif\">\n<h1>{t}</h1>\n{body}</body></html>\n",
        t = escape(title)
    )
}

/// Groups in first-seen order; within each, one bar per character (in run order).
fn groups(runs: &[CharacterRun<'_>], key: impl Fn(&Judged) -> Option<String>) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for run in runs {
        for j in &run.judged {
            let Some(label) = key(j) else { continue };
            let index = match out.iter().position(|g| g.label == label) {
                Some(i) => i,
                None => {
                    out.push(Group {
                        label,
                        bars: runs
                            .iter()
                            .map(|r| (r.character.clone(), Counts::new()))
                            .collect(),
                    });
                    out.len() - 1
                }
            };
            if let Some((_, counts)) = out[index]
                .bars
                .iter_mut()
                .find(|(c, _)| *c == run.character)
            {
                *counts.entry(j.verdict.category).or_insert(0) += 1;
            }
        }
    }
    out
}

/// Stacked bars, grouped; every bar is a `<g class="bar">` naming its group and character.
fn svg(groups: &[Group], kind: &str) -> String {
    let bar = 36.0;
    let gap = 28.0;
    let height = 240.0;
    let per_group = |g: &Group| g.bars.len() as f64 * bar + gap;
    let width = 70.0 + groups.iter().map(per_group).sum::<f64>();
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{}" font-family="sans-serif" font-size="11">"#,
        height + 90.0
    );
    for tick in [0, 25, 50, 75, 100] {
        let y = 20.0 + height * (1.0 - tick as f64 / 100.0);
        let _ = write!(
            svg,
            r##"<line x1="50" x2="{width}" y1="{y}" y2="{y}" stroke="#ddd"/><text x="45" y="{}" text-anchor="end">{tick}%</text>"##,
            y + 4.0
        );
    }
    let mut x = 60.0;
    for group in groups {
        let start = x;
        for (character, counts) in &group.bars {
            let total = counts.values().sum::<usize>().max(1) as f64;
            let _ = write!(
                svg,
                r#"<g class="bar" data-{kind}="{}" data-character="{}">"#,
                escape(&group.label),
                escape(character)
            );
            let mut y = 20.0 + height;
            for (c, (name, colour)) in Category::ALL.iter().zip(COLOURS) {
                let n = counts.get(c).copied().unwrap_or(0) as f64;
                let h = height * n / total;
                y -= h;
                if h > 0.0 {
                    let _ = write!(
                        svg,
                        r#"<rect x="{x}" y="{y}" width="{}" height="{h}" fill="{colour}"><title>{} / {}: {name} {n} ({:.1}%)</title></rect>"#,
                        bar - 4.0,
                        escape(&group.label),
                        escape(character),
                        100.0 * n / total
                    );
                }
            }
            let _ = write!(
                svg,
                r#"<text x="{}" y="{}" text-anchor="end" transform="rotate(-45 {} {})">{}</text></g>"#,
                x + bar / 2.0,
                height + 34.0,
                x + bar / 2.0,
                height + 34.0,
                escape(character)
            );
            x += bar;
        }
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle" font-weight="bold">{}</text>"#,
            (start + x - 4.0) / 2.0,
            height + 80.0,
            escape(&group.label)
        );
        x += gap;
    }
    svg.push_str("</svg>");
    svg
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
