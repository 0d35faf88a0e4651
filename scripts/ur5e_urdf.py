#!/usr/bin/env python3
"""Writes scenes/robots/ur5e_bimanual.urdf: two Universal Robots UR5e arms on a torso
with a pan-tilt head, each with a two-finger gripper (Robotiq 2F-85 sized).

Kinematics: Universal Robots' published UR5e parameters (DH: d1 = 0.1625,
a2 = -0.425, a3 = -0.3922, d4 = 0.1333, d5 = 0.0997, d6 = 0.0996), written as
the joint origins of Universal Robots' own ur_description (base_link_inertia,
shoulder_pan ... wrist_3, flange, tool0), with its joint limits (+-360 deg,
elbow +-180 deg). The collision capsules follow the arm's published outer
dimensions (base 149 mm, upper arm and forearm tubes offset 138 mm and 7 mm
along the joint axes from the DH line); the gripper's tool centre sits 150 mm
past the flange. The torso, head and mounts are this project's.

Usage: python3 scripts/ur5e_urdf.py > scenes/robots/ur5e_bimanual.urdf
"""
import math

PI = math.pi
H = PI / 2
import os
# Arm bases on the torso front, 0.4 m apart, 1.0 m above the floor, the shoulder-pan
# axis pitched 35 deg forward-up (the environment variables try other mounts; the
# shipped file uses these defaults, chosen on random tables of seeds 5001-5020, not
# on the benchmark's seed-1 tables).
MOUNT_Y = float(os.environ.get("MOUNT_Y", "0.20"))
MOUNTS = {"left": MOUNT_Y, "right": -MOUNT_Y}
MOUNT_X = float(os.environ.get("MOUNT_X", "0.0"))
MOUNT_Z = float(os.environ.get("MOUNT_Z", "1.0"))
MOUNT_PITCH = math.radians(float(os.environ.get("MOUNT_PITCH", "35")))
TCP = 0.15


def f(v):
    return f"{v:.10g}"


def xyz(v):
    return " ".join(f(x) for x in v)


def cyl(origin, rpy, length, radius, name=None):
    named = f' name="{name}"' if name else ""
    return (f'<collision{named}><origin xyz="{xyz(origin)}" rpy="{xyz(rpy)}"/>'
            f'<geometry><cylinder radius="{f(radius)}" length="{f(length)}"/></geometry></collision>')


def along(a, b, radius, name=None):
    """A cylinder from point a to point b (both on one axis of the link frame)."""
    mid = [(p + q) / 2 for p, q in zip(a, b)]
    d = [q - p for p, q in zip(a, b)]
    length = math.sqrt(sum(x * x for x in d))
    # Turn the cylinder's z onto d: only axis-aligned segments are used here.
    if abs(d[0]) > 1e-9:
        rpy = (0, H, 0)
    elif abs(d[1]) > 1e-9:
        rpy = (H, 0, 0)
    else:
        rpy = (0, 0, 0)
    return cyl(mid, rpy, length, radius, name)


def link(name, *collisions):
    return f'  <link name="{name}">' + "".join(collisions) + '</link>\n'


def joint(name, kind, parent, child, origin=(0, 0, 0), rpy=(0, 0, 0), limit=None):
    lim = ""
    if limit is not None:
        lim = f'<limit lower="{f(-limit)}" upper="{f(limit)}" effort="150" velocity="3.14"/>'
    axis = '<axis xyz="0 0 1"/>' if kind != "fixed" else ""
    return (f'  <joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz(origin)}" rpy="{xyz(rpy)}"/>{axis}{lim}</joint>\n')


def arm(side, y):
    p = f"{side}_"
    two = 2 * PI
    out = [
        link(p + "base_link"),  # inside the mount bracket on the torso
        link(p + "base_link_inertia"),
        link(p + "shoulder_link", along((0, 0, 0), (0, -0.138, 0), 0.065)),
        link(p + "upper_arm_link", along((0, 0, 0.138), (-0.425, 0, 0.138), 0.060)),
        link(p + "forearm_link", along((0, 0, 0.007), (-0.3922, 0, 0.007), 0.048, "forearm"),
             along((0, 0, 0.007), (0, 0, 0.138), 0.055, "elbow")),
        link(p + "wrist_1_link", along((0, 0, -0.1263), (0, 0, 0.03), 0.045)),
        link(p + "wrist_2_link", along((0, 0, 0), (0, 0.06, 0), 0.045)),
        link(p + "wrist_3_link"),
        link(p + "flange"),
        link(p + "tool0"),
        # Gripper body and fingers up to 3 cm short of the tool centre.
        link(p + "gripper", along((0, 0, 0), (0, 0, TCP - 0.03), 0.045)),
        link(p + "tcp"),
        joint(p + "mount", "fixed", "torso", p + "base_link", (MOUNT_X, y, MOUNT_Z), (0, MOUNT_PITCH, 0)),
        joint(p + "base_link-base_link_inertia", "fixed", p + "base_link", p + "base_link_inertia", rpy=(0, 0, PI)),
        joint(p + "shoulder_pan_joint", "revolute", p + "base_link_inertia", p + "shoulder_link", (0, 0, 0.1625), limit=two),
        joint(p + "shoulder_lift_joint", "revolute", p + "shoulder_link", p + "upper_arm_link", rpy=(H, 0, 0), limit=two),
        joint(p + "elbow_joint", "revolute", p + "upper_arm_link", p + "forearm_link", (-0.425, 0, 0), limit=PI),
        joint(p + "wrist_1_joint", "revolute", p + "forearm_link", p + "wrist_1_link", (-0.3922, 0, 0.1333), limit=two),
        joint(p + "wrist_2_joint", "revolute", p + "wrist_1_link", p + "wrist_2_link", (0, -0.0997, 0), (H, 0, 0), limit=two),
        joint(p + "wrist_3_joint", "revolute", p + "wrist_2_link", p + "wrist_3_link", (0, 0.0996, 0), (H, PI, PI), limit=two),
        joint(p + "wrist_3-flange", "fixed", p + "wrist_3_link", p + "flange", rpy=(0, -H, -H)),
        joint(p + "flange-tool0", "fixed", p + "flange", p + "tool0", rpy=(H, 0, H)),
        joint(p + "tool0-gripper", "fixed", p + "tool0", p + "gripper"),
        joint(p + "gripper-tcp", "fixed", p + "gripper", p + "tcp", (0, 0, TCP)),
    ]
    return "".join(out)


def main():
    print('<?xml version="1.0"?>')
    print('<!-- Generated by scripts/ur5e_urdf.py. -->')
    print('<robot name="ur5e_bimanual">')
    print(link("torso", cyl((-0.14, 0, 0.70), (0, 0, 0), 0.80, 0.14)), end="")
    print(link("head_pan"), end="")
    print(link("head", cyl((0, 0, 0), (0, 0, 0), 0.06, 0.11)), end="")
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
