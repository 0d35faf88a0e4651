//! The robot's motion on the wire: the executor's joints, turned into link
//! frames by the twin's own kinematics, sent as live-only `joints` events at
//! most `daemon.joints_hz` times a second (the log keeps the action's start
//! and end, not the motion).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::events::{ArmPose, Carried, Event};
use crate::twin::actions::playback::ArmsNow;
use crate::twin::kinematics::{Robot, Side};

use super::bus::Bus;

fn mm(v: f32) -> f32 {
    (v * 1000.0).round() / 1000.0
}

fn point(v: glam::Vec3) -> [f32; 3] {
    [mm(v.x), mm(v.y), mm(v.z)]
}

/// The `joints` event for the parts as they are now.
pub fn joints_event(robot: &Robot, now: &ArmsNow) -> Event {
    let arms = Side::BOTH
        .iter()
        .map(|&side| {
            let q = now.joints[side as usize];
            let pose = ArmPose {
                q: q.iter().map(|a| (a * 1e4).round() / 1e4).collect(),
                frames: robot
                    .arm(side)
                    .link_frames(&q)
                    .all()
                    .iter()
                    .map(|f| point(glam::Vec3::from(f.translation)))
                    .collect(),
            };
            (side.name().to_string(), pose)
        })
        .collect();
    let grippers: BTreeMap<String, f32> = Side::BOTH
        .iter()
        .map(|&side| (side.name().to_string(), mm(now.grippers[side as usize])))
        .collect();
    Event::Joints {
        arms,
        grippers,
        carried: now.carried.as_ref().map(|(object, base)| Carried {
            object: object.clone(),
            position: point(*base),
        }),
        moving: now.moving,
        path: now.path.iter().map(|p| point(*p)).collect(),
    }
}

/// Publishes the parts' changes until `shutdown`: at most one event per
/// `1/hz` seconds while they move; the change to rest goes out at once.
pub fn spawn(
    robot: Arc<Robot>,
    mut arms: watch::Receiver<ArmsNow>,
    bus: Bus,
    hz: f64,
    shutdown: CancellationToken,
) {
    let period = Duration::from_secs_f64(1.0 / hz.clamp(1.0, 100.0));
    tokio::spawn(async move {
        // A change seen while waiting out the period, not yet published.
        let mut pending = false;
        loop {
            if !pending {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    changed = arms.changed() => if changed.is_err() { return },
                }
            }
            let now = arms.borrow_and_update().clone();
            bus.publish_live(&joints_event(&robot, &now));
            pending = match now.moving {
                false => false,
                true => match wait_out(&mut arms, period, &shutdown).await {
                    Some(changed) => changed,
                    None => return,
                },
            };
        }
    });
}

/// Waits one period after a moving event; `Some(true)` when a change came
/// meanwhile (it is published next, at once if the parts came to rest),
/// `None` when it is time to stop.
async fn wait_out(
    arms: &mut watch::Receiver<ArmsNow>,
    period: Duration,
    shutdown: &CancellationToken,
) -> Option<bool> {
    let until = tokio::time::Instant::now() + period;
    let mut changed = false;
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return None,
            _ = tokio::time::sleep_until(until) => return Some(changed),
            change = arms.changed() => {
                change.ok()?;
                changed = true;
                if !arms.borrow().moving {
                    return Some(true);
                }
            }
        }
    }
}

/// Joints that moved less than this (rad) since the last measurement stand still.
const STILL_RAD: f32 = 1e-3;
/// An arm whose joints stood still this long is at rest.
const REST_AFTER: Duration = Duration::from_millis(300);

/// Follows a real robot's measured joints (each perception update) into
/// `arms`, moving while they change and at rest once they stood still a while.
pub fn follow_measured(
    measured: crate::robot::bridge::MeasuredArms,
    mut updates: watch::Receiver<u64>,
    arms: watch::Sender<ArmsNow>,
    shutdown: CancellationToken,
) {
    tokio::spawn(async move {
        let mut last: Option<[crate::twin::kinematics::Joints; 2]> = None;
        let mut changed_at = tokio::time::Instant::now();
        let mut moving = false;
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                changed = updates.changed() => if changed.is_err() { return },
            }
            let Some(now) = measured.now() else { continue };
            let still = last.is_some_and(|l| {
                l.iter()
                    .flatten()
                    .zip(now.iter().flatten())
                    .all(|(a, b)| (a - b).abs() < STILL_RAD)
            });
            if !still {
                moving = last.is_some();
                last = Some(now);
                changed_at = tokio::time::Instant::now();
            } else if moving && changed_at.elapsed() >= REST_AFTER {
                moving = false;
            } else {
                continue;
            }
            arms.send_replace(ArmsNow {
                joints: now,
                moving,
                ..ArmsNow::default()
            });
        }
    });
}
