//! A mock robot on a rosbridge WebSocket, for trying `attentive run --robot`
//! without hardware: both arms, hands and the head follow the goals they get,
//! `/joint_states` moves with them, and the scene's objects and people are
//! published as ArUco markers and Azure Kinect bodies.
//!
//! ```text
//! cargo run --example mock_robot -- --config examples/robot.toml
//! attentive run --config examples/robot.toml --robot ws://127.0.0.1:9090
//! ```
//!
//! Type commands on stdin to change the world or inject faults (`help`).

use std::path::PathBuf;

use anyhow::Context;
use attentive::config::Settings;
use attentive::robot::mock::{Fault, MockRobot};
use attentive::twin::{Hand, Twin};
use clap::Parser;
use glam::{Vec2, Vec3};
use tokio::io::{AsyncBufReadExt, BufReader};

/// A mock robot speaking rosbridge v2.
#[derive(Parser)]
struct Args {
    /// Scene name under scenes/ or a path.
    #[arg(long, default_value = "softdrinks")]
    scene: String,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:9090")]
    listen: String,
    /// Configuration file whose [robot] section names controllers, joints and markers.
    #[arg(long)]
    config: Option<PathBuf>,
}

const HELP: &str = "commands:
  move OBJECT X Y              move an object's marker to a floor point (m)
  hand PERSON left|right X Y Z put a person's hand at a point (m)
  abort [REASON]               the next goal aborts half-way
  reject                       the next goal is rejected
  drop                         drop every connection (the client reconnects)
  stale on|off                 stop / resume publishing /joint_states
  goals                        how many goals arrived
  quit";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let settings = Settings::load(args.config.as_deref())?;
    let twin = Twin::load(&args.scene)?;
    let mock = MockRobot::start(&twin, &settings.robot, &args.listen).await?;
    println!(
        "mock robot for scene {} on {} (type 'help')",
        twin.world.name,
        mock.url()
    );
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    loop {
        let line = tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            line = lines.next_line() => line.context("reading stdin")?,
        };
        let Some(line) = line else {
            // No stdin (e.g. started in the background): serve until interrupted.
            tokio::signal::ctrl_c().await?;
            break;
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |i: usize| words.get(i).and_then(|w| w.parse::<f32>().ok());
        let answer = match words.as_slice() {
            [] => continue,
            ["move", object, ..] => match (number(2), number(3)) {
                (Some(x), Some(y)) if mock.move_object(object, Vec2::new(x, y)) => {
                    format!("{object} is now at ({x}, {y})")
                }
                (Some(_), Some(_)) => {
                    format!("{object} has no marker in [robot.perception.markers]")
                }
                _ => "usage: move OBJECT X Y".into(),
            },
            ["hand", person, side, ..] => {
                let hand = if *side == "left" {
                    Hand::Left
                } else {
                    Hand::Right
                };
                match (number(3), number(4), number(5)) {
                    (Some(x), Some(y), Some(z))
                        if mock.move_hand(person, hand, Vec3::new(x, y, z)) =>
                    {
                        format!("{person}'s {side} hand is at ({x}, {y}, {z})")
                    }
                    (Some(_), Some(_), Some(_)) => format!("there is no person called {person}"),
                    _ => "usage: hand PERSON left|right X Y Z".into(),
                }
            }
            ["abort", reason @ ..] => {
                let reason = if reason.is_empty() {
                    "path tolerance violated".to_string()
                } else {
                    reason.join(" ")
                };
                mock.fault_next_goal(Fault::Abort { after: 0.5, reason });
                "the next goal aborts half-way".into()
            }
            ["reject"] => {
                mock.fault_next_goal(Fault::Reject);
                "the next goal is rejected".into()
            }
            ["drop"] => {
                mock.drop_connections();
                "dropped every connection".into()
            }
            ["stale", on] => {
                mock.pause_joint_states(*on == "on");
                format!(
                    "joint states {}",
                    if *on == "on" { "paused" } else { "resumed" }
                )
            }
            ["goals"] => format!("{} goals so far", mock.goals().len()),
            ["quit"] | ["exit"] => break,
            _ => HELP.to_string(),
        };
        println!("{answer}");
    }
    mock.stop();
    Ok(())
}
