//! Reports: a table of case type x category for the terminal, the contract's
//! `eval_summary`, and a self-contained HTML page with stacked bars in the
//! style of the paper's Figs. 4 and 5.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::json;

use super::cost::CostSummary;
use super::judge::Category;
use super::run::Judged;

/// Counts per row (case type or expected decision) and category, and the cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Rows in first-seen order, each with its counts per category.
    pub rows: Vec<(String, BTreeMap<Category, usize>)>,
    /// The cost per row, in the order of `rows`.
    pub costs: Vec<CostSummary>,
    /// The cost of all turns.
    pub cost: CostSummary,
    /// Local first: the cost per path (`local`, `llm`), with the successes; empty otherwise.
    pub paths: Vec<(String, CostSummary, usize)>,
}

impl Summary {
    /// Counts the verdicts.
    pub fn of(judged: &[Judged]) -> Self {
        let mut rows: Vec<(String, BTreeMap<Category, usize>)> = Vec::new();
        for j in judged {
            let row = j.row();
            let index = match rows.iter().position(|(r, _)| *r == row) {
                Some(i) => i,
                None => {
                    rows.push((row, BTreeMap::new()));
                    rows.len() - 1
                }
            };
            *rows[index].1.entry(j.verdict.category).or_insert(0) += 1;
        }
        let costs = rows
            .iter()
            .map(|(row, _)| {
                CostSummary::of(judged.iter().filter(|j| j.row() == *row).map(|j| &j.cost))
            })
            .collect();
        Self {
            rows,
            costs,
            cost: CostSummary::of(judged.iter().map(|j| &j.cost)),
            paths: by_path(judged),
        }
    }

    /// Turns in a row.
    pub fn total(counts: &BTreeMap<Category, usize>) -> usize {
        counts.values().sum()
    }

    /// Counts over all rows.
    pub fn overall(&self) -> BTreeMap<Category, usize> {
        let mut all = BTreeMap::new();
        for (_, counts) in &self.rows {
            for (c, n) in counts {
                *all.entry(*c).or_insert(0) += n;
            }
        }
        all
    }

    /// The share of successes in a row, 0..=1.
    pub fn success_rate(counts: &BTreeMap<Category, usize>) -> f64 {
        let total = Self::total(counts);
        if total == 0 {
            return 0.0;
        }
        counts.get(&Category::Success).copied().unwrap_or(0) as f64 / total as f64
    }

    /// The terminal table.
    pub fn table(&self, title: &str) -> String {
        let mut out = format!("{title}\n{:<16}", "case");
        for c in Category::ALL {
            let _ = write!(out, "{:>20}", c.as_str());
        }
        out.push('\n');
        let mut rows = self.rows.clone();
        rows.push(("all".to_string(), self.overall()));
        for (row, counts) in &rows {
            let total = Self::total(counts).max(1);
            let _ = write!(out, "{row:<16}");
            for c in Category::ALL {
                let n = counts.get(&c).copied().unwrap_or(0);
                let _ = write!(
                    out,
                    "{:>20}",
                    format!("{n} ({:.1}%)", 100.0 * n as f64 / total as f64)
                );
            }
            out.push('\n');
        }
        out
    }

    /// The terminal's cost table: per row and for all turns.
    pub fn cost_table(&self) -> String {
        let mut out = CostSummary::table_header();
        for ((row, _), cost) in self.rows.iter().zip(&self.costs) {
            out.push_str(&cost.table_row(row));
        }
        out.push_str(&self.cost.table_row("all"));
        for (path, cost, successes) in &self.paths {
            let row = format!("path {path} ({successes}/{} ok)", cost.turns);
            out.push_str(&cost.table_row(&row));
        }
        out
    }

    /// The contract's `eval_summary` event, with the rows as an extension.
    pub fn to_json(&self, brain: &str, character: &str) -> serde_json::Value {
        let counts = |c: &BTreeMap<Category, usize>| {
            json!({
                "success": c.get(&Category::Success).copied().unwrap_or(0),
                "partial": c.get(&Category::Partial).copied().unwrap_or(0),
                "execution_error": c.get(&Category::ExecutionError).copied().unwrap_or(0),
                "undesired": c.get(&Category::Undesired).copied().unwrap_or(0),
            })
        };
        let overall = self.overall();
        let by_case: serde_json::Map<String, serde_json::Value> = self
            .rows
            .iter()
            .map(|(r, c)| (r.clone(), counts(c)))
            .collect();
        let mut cost = self.cost.to_json();
        cost["by_case"] = self
            .rows
            .iter()
            .zip(&self.costs)
            .map(|((r, _), c)| (r.clone(), c.to_json()))
            .collect::<serde_json::Map<String, serde_json::Value>>()
            .into();
        if !self.paths.is_empty() {
            cost["by_path"] = self
                .paths
                .iter()
                .map(|(path, c, successes)| {
                    let mut value = c.to_json();
                    value["success"] = json!(successes);
                    (path.clone(), value)
                })
                .collect::<serde_json::Map<String, serde_json::Value>>()
                .into();
        }
        json!({
            "type": "eval_summary",
            "brain": brain,
            "character": character,
            "turns": Self::total(&overall),
            "categories": counts(&overall),
            "by_case": by_case,
            "cost": cost,
        })
    }

    /// A self-contained HTML page with one stacked bar per row.
    pub fn html(&self, title: &str) -> String {
        const COLOURS: [(&str, &str); 4] = [
            ("success", "#2e7d32"),
            ("partial", "#9ccc65"),
            ("execution_error", "#ffb300"),
            ("undesired", "#c62828"),
        ];
        let bar_width = 80.0;
        let height = 260.0;
        let width = 120.0 + bar_width * 1.5 * self.rows.len() as f64;
        let mut svg = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{}" font-family="sans-serif" font-size="12">"#,
            height + 60.0
        );
        for tick in [0, 25, 50, 75, 100] {
            let y = 20.0 + height * (1.0 - tick as f64 / 100.0);
            let _ = write!(
                svg,
                r##"<line x1="50" x2="{width}" y1="{y}" y2="{y}" stroke="#ddd"/><text x="45" y="{}" text-anchor="end">{tick}%</text>"##,
                y + 4.0
            );
        }
        for (i, (row, counts)) in self.rows.iter().enumerate() {
            let total = Self::total(counts).max(1) as f64;
            let x = 70.0 + i as f64 * bar_width * 1.5;
            let mut y = 20.0 + height;
            for (c, (name, colour)) in Category::ALL.iter().zip(COLOURS) {
                let n = counts.get(c).copied().unwrap_or(0) as f64;
                let h = height * n / total;
                y -= h;
                if h > 0.0 {
                    let _ = write!(
                        svg,
                        r#"<rect x="{x}" y="{y}" width="{bar_width}" height="{h}" fill="{colour}"><title>{row}: {name} {n} ({:.1}%)</title></rect>"#,
                        100.0 * n / total
                    );
                }
            }
            let _ = write!(
                svg,
                r#"<text x="{}" y="{}" text-anchor="middle">{row}</text>"#,
                x + bar_width / 2.0,
                height + 40.0
            );
        }
        svg.push_str("</svg>");
        let legend: String = COLOURS
            .iter()
            .map(|(n, c)| format!(r#"<span style="display:inline-block;width:12px;height:12px;background:{c}"></span> {n} &nbsp; "#))
            .collect();
        format!(
            "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n<body style=\"font-family:sans-serif\">\n<h1>{title}</h1>\n<p>{legend}</p>\n{svg}\n<pre>{}</pre>\n</body></html>\n",
            self.table("counts")
        )
    }
}

/// Local first: the turns of each path, what they cost and how many succeeded.
fn by_path(judged: &[Judged]) -> Vec<(String, CostSummary, usize)> {
    let mut paths: Vec<String> = Vec::new();
    for path in judged.iter().filter_map(|j| j.path.clone()) {
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let on = || judged.iter().filter(|j| j.path.as_ref() == Some(&path));
            let successes = on()
                .filter(|j| j.verdict.category == Category::Success)
                .count();
            (
                path.clone(),
                CostSummary::of(on().map(|j| &j.cost)),
                successes,
            )
        })
        .collect()
}
