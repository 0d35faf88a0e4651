#!/usr/bin/env python3
"""Writes scenes/robots/panda_bimanual.urdf: two Franka Emika Panda arms (7 joints
each) with the Franka Hand, on the same torso with a pan-tilt head as the UR5e pair.

Sources:
- Kinematics and joint limits: Franka's published Panda parameters (FCI
  documentation, "Robot and interface specifications": the modified-DH table
  a4 = 0.0825, a5 = -0.0825, a7 = 0.088, d1 = 0.333, d3 = 0.316, d5 = 0.384,
  d_flange = 0.107; limits q1,q3,q5,q7 +-2.8973, q2 +-1.7628,
  q4 [-3.0718, -0.0698], q6 [-0.0175, 3.7525] rad), written as the joint origins
  of Franka's own franka_description (panda_link0 ... panda_link8, panda_hand
  turned -45 deg about the flange axis, panda_hand_tcp 0.1034 m past the hand
  flange, two prismatic fingers of 0.04 m each, the right one mimicking the left).
- Collision: capsules fitted to the arm's published outer dimensions and to the
  sphere sets the Panda's planners use for it (STORM / cuRobo: radius 0.06 on
  links 1-3, 0.055 on link 4, 0.04-0.06 on the forearm); the hand as a capsule
  across its 0.2 m width. The fingers carry no collision of their own: the held
  object's clearance covers them (as the UR5e gripper ends 3 cm short of its tool
  centre).
- Self-collision pairs the Panda's own MoveIt configuration (panda.srdf of
  moveit_resources_panda / panda_moveit_config) disables as "Never" are listed in
  panda_bimanual.toml's ignore_pairs.

The project's hand frame has x along the closing direction; Franka's hand closes
along its y, so the tool-centre link is turned 90 deg about the approach axis.
The torso, head and mounts are this project's (as scripts/ur5e_urdf.py).

Usage: python3 scripts/panda_urdf.py > scenes/robots/panda_bimanual.urdf
"""
import math
import os

PI = math.pi
H = PI / 2
MOUNT_Y = float(os.environ.get("MOUNT_Y", "0.20"))
MOUNTS = {"left": MOUNT_Y, "right": -MOUNT_Y}
MOUNT_X = float(os.environ.get("MOUNT_X", "0.0"))
MOUNT_Z = float(os.environ.get("MOUNT_Z", "1.0"))
MOUNT_PITCH = math.radians(float(os.environ.get("MOUNT_PITCH", "35")))
HAND_TCP = 0.1034
FINGER_STROKE = 0.04

# (name, origin xyz, origin rpy, lower, upper): franka_description's panda_arm.
JOINTS = [
    ("joint1", (0, 0, 0.333), (0, 0, 0), -2.8973, 2.8973),
    ("joint2", (0, 0, 0), (-H, 0, 0), -1.7628, 1.7628),
    ("joint3", (0, -0.316, 0), (H, 0, 0), -2.8973, 2.8973),
    ("joint4", (0.0825, 0, 0), (H, 0, 0), -3.0718, -0.0698),
    ("joint5", (-0.0825, 0.384, 0), (-H, 0, 0), -2.8973, 2.8973),
    ("joint6", (0, 0, 0), (H, 0, 0), -0.0175, 3.7525),
    ("joint7", (0.088, 0, 0), (H, 0, 0), -2.8973, 2.8973),
]

# Capsules per link as (name suffix, point a, point b, radius), in the link frame.
CAPSULES = {
    "link0": [("", (-0.04, 0, 0.0), (-0.04, 0, 0.14), 0.08)],
    "link1": [("", (0, 0, -0.19), (0, 0, -0.03), 0.06)],
    "link2": [("", (0, 0, -0.04), (0, -0.14, 0), 0.06)],
    "link3": [("", (0, 0, -0.13), (0, 0, -0.02), 0.06),
              ("elbow", (0, 0, 0), (0.08, 0.065, 0), 0.055)],
    "link4": [("", (0, 0, 0.065), (-0.08, 0.08, 0), 0.055)],
    "link5": [("", (0, 0, -0.26), (0, 0, -0.12), 0.06),
              ("rib", (0, 0.07, -0.16), (0, 0.08, -0.02), 0.045)],
    "link6": [("", (0, 0, -0.01), (0.088, 0, -0.01), 0.05)],
    "link7": [("", (0, 0, -0.03), (0, 0, 0.09), 0.045)],
    "hand": [("", (0, -0.075, 0.035), (0, 0.075, 0.035), 0.035)],
}


def f(v):
    return f"{v:.10g}"


def xyz(v):
    return " ".join(f(x) for x in v)


def capsule(name, a, b, radius):
    """A URDF cylinder from a to b; the reader turns it into a capsule."""
    mid = [(p + q) / 2 for p, q in zip(a, b)]
    d = [q - p for p, q in zip(a, b)]
    length = math.sqrt(sum(x * x for x in d))
    # Rotate z onto d: pitch then yaw (R = Rz(yaw) Ry(pitch)).
    pitch = math.atan2(math.hypot(d[0], d[1]), d[2])
    yaw = math.atan2(d[1], d[0])
    named = f' name="{name}"' if name else ""
    return (f'<collision{named}><origin xyz="{xyz(mid)}" rpy="0 {f(pitch)} {f(yaw)}"/>'
            f'<geometry><cylinder radius="{f(radius)}" length="{f(length)}"/></geometry></collision>')


def link(name, capsules=(), shown=None):
    """A link with its capsules, named "panda link3" or "panda link3 elbow" in messages."""
    shown = shown or name
    body = "".join(capsule(f"{shown}_{s}" if s else shown, a, b, r) for s, a, b, r in capsules)
    return f'  <link name="{name}">{body}</link>\n'


def joint(name, kind, parent, child, origin=(0, 0, 0), rpy=(0, 0, 0), limit=None,
          axis=(0, 0, 1), mimic=None):
    lim = ""
    if limit is not None:
        lim = f'<limit lower="{f(limit[0])}" upper="{f(limit[1])}" effort="87" velocity="2.175"/>'
    ax = f'<axis xyz="{xyz(axis)}"/>' if kind != "fixed" else ""
    mim = f'<mimic joint="{mimic}"/>' if mimic else ""
    return (f'  <joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz(origin)}" rpy="{xyz(rpy)}"/>{ax}{lim}{mim}</joint>\n')


def arm(side, y):
    p = f"{side}_panda_"
    out = [link(p + "link0", CAPSULES["link0"], "panda_link0")]
    out.append(joint(p + "mount", "fixed", "torso", p + "link0", (MOUNT_X, y, MOUNT_Z),
                     (0, MOUNT_PITCH, 0)))
    parent = p + "link0"
    for k, (name, origin, rpy, lo, hi) in enumerate(JOINTS, start=1):
        child = f"{p}link{k}"
        out.append(link(child, CAPSULES[f"link{k}"], f"panda_link{k}"))
        out.append(joint(p + name, "revolute", parent, child, origin, rpy, (lo, hi)))
        parent = child
    out += [
        link(p + "link8"),
        joint(p + "joint8", "fixed", p + "link7", p + "link8", (0, 0, 0.107)),
        link(p + "hand", CAPSULES["hand"], "panda_hand"),
        joint(p + "hand_joint", "fixed", p + "link8", p + "hand", rpy=(0, 0, -PI / 4)),
        link(p + "leftfinger"),
        link(p + "rightfinger"),
        joint(p + "finger_joint1", "prismatic", p + "hand", p + "leftfinger", (0, 0, 0.0584),
              limit=(0, FINGER_STROKE), axis=(0, 1, 0)),
        joint(p + "finger_joint2", "prismatic", p + "hand", p + "rightfinger", (0, 0, 0.0584),
              limit=(0, FINGER_STROKE), axis=(0, -1, 0), mimic=p + "finger_joint1"),
        link(p + "hand_tcp"),
        joint(p + "hand_tcp_joint", "fixed", p + "hand", p + "hand_tcp", (0, 0, HAND_TCP)),
        # The project's tool centre: x along the closing direction (Franka's hand y).
        link(f"{side}_tcp"),
        joint(f"{side}_tcp_joint", "fixed", p + "hand_tcp", f"{side}_tcp", rpy=(0, 0, H)),
    ]
    return "".join(out)


def main():
    print('<?xml version="1.0"?>')
    print('<!-- Generated by scripts/panda_urdf.py. -->')
    print('<robot name="panda_bimanual">')
    print('  <link name="torso"><collision><origin xyz="-0.14 0 0.7" rpy="0 0 0"/>'
          '<geometry><cylinder radius="0.14" length="0.8"/></geometry></collision></link>')
    print(link("head_pan"), end="")
    print('  <link name="head"><collision><origin xyz="0 0 0" rpy="0 0 0"/>'
          '<geometry><cylinder radius="0.11" length="0.06"/></geometry></collision></link>')
    print(f'  <joint name="head_pan_joint" type="revolute"><parent link="torso"/><child link="head_pan"/>'
          f'<origin xyz="-0.08 0 1.45" rpy="0 0 0"/><axis xyz="0 0 1"/>'
          f'<limit lower="{f(math.radians(-150))}" upper="{f(math.radians(150))}" effort="5" velocity="1"/></joint>')
    print(f'  <joint name="head_tilt_joint" type="revolute"><parent link="head_pan"/><child link="head"/>'
          f'<origin xyz="0 0 0" rpy="0 0 0"/><axis xyz="0 -1 0"/>'
          f'<limit lower="{f(math.radians(-50))}" upper="{f(math.radians(30))}" effort="5" velocity="1"/></joint>')
    for side, y in MOUNTS.items():
        print(arm(side, y), end="")
    print('</robot>')


main()
