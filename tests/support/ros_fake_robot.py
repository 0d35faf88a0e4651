"""attentive's fake robot for tests/robot_rosbridge.rs: one rclpy node standing in for the
robot behind a real rosbridge.

It serves a control_msgs/FollowJointTrajectory action per arm and for the head and a
control_msgs/GripperCommand action per hand, and publishes sensor_msgs/JointState. A goal
moves its joints along the trajectory in time (linear between points, from where they are);
a cancel stops them where they are. Everything comes from a JSON file written by the test
(the names from attentive's [robot] settings, the start pose in the driver's convention):

  {"arms": {ACTION: [JOINT, ...]}, "hands": {ACTION: JOINT}, "start": {JOINT: RAD},
   "joint_states": TOPIC, "rate_hz": 25, "faults": PATH, "events": PATH}

Faults are switched by the test at run time through the JSON file at "faults" (re-read when
it changes; absent = no faults):

  {"reject": [ACTION], "abort": {ACTION: {"after": FRACTION, "reason": TEXT}},
   "missing": [ACTION], "stale": true}

"missing" takes those action servers down (and back when dropped); "stale" stops the joint
states. What happened is appended to "events", one JSON object a line (ready, goal,
rejected, canceled, aborted, succeeded, gripper, servers), for the test to assert on.

Usage: python ros_fake_robot.py CONFIG.json
"""
import json
import os
import signal
import sys
import threading
import time

import rclpy
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from control_msgs.action import FollowJointTrajectory, GripperCommand
from sensor_msgs.msg import JointState

STEP_S = 0.01  # how often a moving trajectory updates its joints
# How long a controller takes to accept or refuse a goal or a cancel. rclpy 7.1.6 (rosbridge's
# action client) records a request's sequence number only after sending it, so an answer
# faster than that is dropped ("Ignoring unexpected goal response", ros2/rclpy#1123) and the
# request hangs; a real controller takes a moment too, and the test stays about the bridge.
GOAL_CHECK_S = 0.05
PATH_TOLERANCE_VIOLATED = FollowJointTrajectory.Result.PATH_TOLERANCE_VIOLATED


def seconds(d):
    return d.sec + d.nanosec * 1e-9


class Events:
    """The record the test reads: one JSON object a line, flushed at once."""

    def __init__(self, path):
        self.lock = threading.Lock()
        self.file = open(path, "a", encoding="utf-8")

    def add(self, kind, **fields):
        fields = {"event": kind, "t": time.time(), **fields}
        with self.lock:
            self.file.write(json.dumps(fields) + "\n")
            self.file.flush()


class Faults:
    """The test's fault switches, re-read whenever the file changes."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.stamp = None
        self.now = {}

    def get(self):
        try:
            stamp = os.stat(self.path).st_mtime_ns
        except FileNotFoundError:
            stamp = None
        with self.lock:
            if stamp != self.stamp:
                self.stamp = stamp
                try:
                    with open(self.path, encoding="utf-8") as f:
                        self.now = json.load(f) if stamp is not None else {}
                except (OSError, ValueError):
                    # The test writes a temporary file and renames it: a torn read is not
                    # expected, but keep the last good switches if one happens.
                    self.stamp = None
            return self.now


class Joints:
    """Every joint's position (driver convention, rad), shared by the servers."""

    def __init__(self, start):
        self.lock = threading.Lock()
        self.pos = dict(start)

    def read(self, names):
        with self.lock:
            return [self.pos.get(n, 0.0) for n in names]

    def write(self, names, values):
        with self.lock:
            self.pos.update(zip(names, values))

    def snapshot(self):
        with self.lock:
            return list(self.pos), list(self.pos.values())


def interpolate(start, points, t):
    """Positions at t s along (time, positions) points, linear, starting at `start`."""
    prev_t, prev = 0.0, start
    for pt, pos in points:
        if t < pt:
            f = (t - prev_t) / (pt - prev_t)
            return [a + f * (b - a) for a, b in zip(prev, pos)]
        prev_t, prev = pt, pos
    return list(prev)  # exactly the last point once its time has come


def accept_after_check(_request):
    """Accepts a goal after a controller's moment (see GOAL_CHECK_S)."""
    time.sleep(GOAL_CHECK_S)
    return GoalResponse.ACCEPT


def cancel_after_check(_goal):
    time.sleep(GOAL_CHECK_S)
    return CancelResponse.ACCEPT


class TrajectoryServer:
    """One joint trajectory controller: follows goals in time; cancel stops it where it is."""

    def __init__(self, robot, action, joints):
        self.robot, self.action, self.joints = robot, action, joints
        self.server = None

    def up(self):
        self.server = ActionServer(
            self.robot, FollowJointTrajectory, self.action,
            execute_callback=self.execute, goal_callback=self.on_goal,
            cancel_callback=cancel_after_check, callback_group=self.robot.group)

    def down(self):
        self.server.destroy()
        self.server = None

    def on_goal(self, goal):
        time.sleep(GOAL_CHECK_S)
        names = list(goal.trajectory.joint_names)
        if self.action in self.robot.faults.get().get("reject", []):
            why = "fault switch"
        elif not set(names) <= set(self.joints):
            why = f"joints not of this controller (it has {self.joints})"  # as ros2_control's
        else:
            return GoalResponse.ACCEPT
        self.robot.events.add("rejected", action=self.action, joint_names=names, why=why)
        return GoalResponse.REJECT

    def execute(self, gh):
        traj = gh.request.trajectory
        names = list(traj.joint_names)
        points = [(seconds(p.time_from_start), list(p.positions)) for p in traj.points]
        start = self.robot.joints.read(names)
        total = points[-1][0] if points else 0.0
        self.robot.events.add("goal", action=self.action, joint_names=names, start=start,
                              end=points[-1][1] if points else start, duration=total,
                              times=[p[0] for p in points])
        abort = self.robot.faults.get().get("abort", {}).get(self.action)
        began = time.monotonic()
        while (t := time.monotonic() - began) < total:
            if gh.is_cancel_requested:
                gh.canceled()  # the joints stay where the last step put them
                self.record("canceled", names, after=t)
                return FollowJointTrajectory.Result(error_string="cancelled")
            if abort is not None and t >= abort.get("after", 0.5) * total:
                gh.abort()
                reason = abort.get("reason", "aborted by the fake robot")
                self.record("aborted", names, reason=reason)
                return FollowJointTrajectory.Result(error_code=PATH_TOLERANCE_VIOLATED,
                                                    error_string=reason)
            self.robot.joints.write(names, interpolate(start, points, t))
            time.sleep(STEP_S)
        self.robot.joints.write(names, interpolate(start, points, total))
        gh.succeed()
        self.record("succeeded", names)
        return FollowJointTrajectory.Result()

    def record(self, kind, names, **fields):
        """An event of this controller, with where its joints are now."""
        self.robot.events.add(kind, action=self.action, at=self.robot.joints.read(names), **fields)


class GripperServer:
    """One hand: moves its finger joint to the commanded position in a short while."""

    CLOSE_S = 0.3

    def __init__(self, robot, action, joint):
        self.robot, self.action, self.joint = robot, action, joint
        self.server = None

    def up(self):
        self.server = ActionServer(
            self.robot, GripperCommand, self.action, execute_callback=self.execute,
            goal_callback=accept_after_check, cancel_callback=cancel_after_check,
            callback_group=self.robot.group)

    def down(self):
        self.server.destroy()
        self.server = None

    def execute(self, gh):
        target = gh.request.command.position
        self.robot.events.add("gripper", action=self.action, position=target)
        start = self.robot.joints.read([self.joint])
        began = time.monotonic()
        while (t := time.monotonic() - began) < self.CLOSE_S:
            if gh.is_cancel_requested:
                gh.canceled()
                self.robot.events.add("canceled", action=self.action,
                                      at=self.robot.joints.read([self.joint]))
                return GripperCommand.Result()
            self.robot.joints.write([self.joint], interpolate(start, [(self.CLOSE_S, [target])], t))
            time.sleep(STEP_S)
        self.robot.joints.write([self.joint], [target])
        gh.succeed()
        self.robot.events.add("succeeded", action=self.action, at=[target])
        return GripperCommand.Result(position=target, reached_goal=True)


class FakeRobot(Node):
    """The node: the servers, the joint states, and the fault switches that touch both."""

    def __init__(self, config):
        super().__init__("attentive_fake_robot")
        self.group = ReentrantCallbackGroup()
        self.events = Events(config["events"])
        self.faults = Faults(config["faults"])
        self.joints = Joints(config["start"])
        self.servers = [TrajectoryServer(self, a, j) for a, j in config["arms"].items()]
        self.servers += [GripperServer(self, a, j) for a, j in config["hands"].items()]
        for s in self.servers:
            s.up()
        self.switching = threading.Lock()
        self.publisher = self.create_publisher(JointState, config["joint_states"], 10)
        self.create_timer(1.0 / config.get("rate_hz", 25), self.tick, callback_group=self.group)
        self.events.add("ready", actions=[s.action for s in self.servers])
        self.get_logger().info("fake robot up")

    def tick(self):
        faults = self.faults.get()
        self.switch_servers(set(faults.get("missing", [])))
        if not faults.get("stale", False):
            self.publish_joint_states()

    def switch_servers(self, missing):
        """Takes down the servers the test names missing; brings back the others."""
        with self.switching:
            changed = False
            for s in self.servers:
                if s.action in missing and s.server is not None:
                    s.down()
                    changed = True
                elif s.action not in missing and s.server is None:
                    s.up()
                    changed = True
            if changed:
                up = [s.action for s in self.servers if s.server is not None]
                self.events.add("servers", up=up)

    def publish_joint_states(self):
        msg = JointState()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.name, msg.position = self.joints.snapshot()
        self.publisher.publish(msg)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    # The test stops this process by its id; exit at once, there is nothing to save.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.signal(signal.SIGINT, lambda *_: os._exit(0))
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
    executor = MultiThreadedExecutor(num_threads=8)
    executor.add_node(FakeRobot(config))
    try:
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass


if __name__ == "__main__":
    main()
