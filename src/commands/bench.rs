//! `attentive bench planner --tables N --seed S`: the motion planner on random
//! ordinary tables (see `attentive::twin::planner_bench`).

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use serde_json::json;

use attentive::twin::kinds::KindCatalog;
use attentive::twin::planner_bench::{self, BenchAction, CaseResult};

use crate::cli::{BenchArgs, BenchCommand};

/// Runs the chosen benchmark and prints its summary (or JSON lines with `--json`).
pub fn run(args: &BenchArgs, json_output: bool) -> anyhow::Result<ExitCode> {
    match args.command {
        BenchCommand::Planner {
            tables,
            seed,
            threads,
            failures,
            ref robot,
            ref write_tables,
        } => planner(
            tables,
            seed,
            threads,
            failures,
            robot.as_deref(),
            write_tables.as_deref(),
            json_output,
        ),
    }
}

fn planner(
    tables: u64,
    seed: u64,
    threads: usize,
    failures: bool,
    robot: Option<&str>,
    write_tables: Option<&std::path::Path>,
    json_output: bool,
) -> anyhow::Result<ExitCode> {
    let kinds = KindCatalog::load_shipped().context("loading scenes/kinds.toml")?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .context("starting the planner's thread pool")?;
    let t0 = Instant::now();
    let mut cases: Vec<CaseResult> = Vec::new();
    for k in 0..tables {
        let table = seed.wrapping_add(k);
        let mut world = planner_bench::random_table(table, &kinds)
            .with_context(|| format!("random table {table}"))?;
        if let Some(robot) = robot {
            world.robot.description = robot.to_string();
        }
        if let Some(dir) = write_tables {
            write_table(dir, table, robot)?;
        }
        // Without a robot model nothing is reachable: say why rather than count 0 cases.
        // The error names the description or URDF at fault, never the table.
        if let Err(e) = &attentive::twin::Twin::from_world(world.clone()).robot {
            anyhow::bail!("no robot model: {e}");
        }
        let results = pool.install(|| planner_bench::run_world(table, &world));
        for c in &results {
            if json_output {
                let line = json!({
                    "type": "bench_case", "table": c.table, "action": c.action.tool(),
                    "object": c.object, "person": c.person, "ok": c.report.ok,
                    "text": c.report.text, "planning_ms": c.planning_ms,
                });
                println!("{line}");
            } else if failures && !c.report.ok {
                println!(
                    "table {:>3} {:<27} {:<10} -> {:<4} [{}]: {}",
                    c.table,
                    c.action.tool(),
                    c.object,
                    c.person,
                    c.report.facts["failed_step"].as_str().unwrap_or("-"),
                    c.report.text
                );
            }
        }
        cases.extend(results);
    }
    let wall = t0.elapsed().as_secs_f64();
    let all = planner_bench::summarise(&cases, None);
    if json_output {
        let per: serde_json::Map<String, serde_json::Value> = BenchAction::ALL
            .iter()
            .map(|&a| {
                (
                    a.tool().to_string(),
                    serde_json::to_value(planner_bench::summarise(&cases, Some(a)))
                        .unwrap_or_default(),
                )
            })
            .collect();
        println!(
            "{}",
            json!({"type": "bench_summary", "tables": tables, "seed": seed, "threads": threads,
                   "actions": per, "planning_ms": all.planning_ms, "wall_s": wall})
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "planner benchmark: {tables} random tables from seed {seed}, {} cases, {threads} thread(s), {wall:.1} s",
        cases.len()
    );
    for action in BenchAction::ALL {
        let s = planner_bench::summarise(&cases, Some(action));
        println!(
            "{:<27} {:>4}/{:<4} = {:5.1} %   planning ms: median {:.1}, 95th {:.1}, max {:.1}",
            action.tool(),
            s.succeeded,
            s.cases,
            s.rate(),
            s.planning_ms[0],
            s.planning_ms[1],
            s.planning_ms[2]
        );
        if s.stayed > 0 {
            println!(
                "    {:>4}  done, but stayed away from home (no way back)",
                s.stayed
            );
        }
        let mut reasons: Vec<(&String, &usize)> = s.reasons.iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (reason, n) in reasons {
            println!("    {n:>4}  {reason}");
        }
    }
    println!(
        "all actions: planning ms median {:.1}, 95th {:.1}, max {:.1}",
        all.planning_ms[0], all.planning_ms[1], all.planning_ms[2]
    );
    Ok(ExitCode::SUCCESS)
}

/// One random table as a scene file in `dir`, with the benchmark's robot.
fn write_table(dir: &std::path::Path, table: u64, robot: Option<&str>) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let text = planner_bench::random_table_toml_with(table, robot);
    let path = dir.join(format!("random_{table}.toml"));
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
}
