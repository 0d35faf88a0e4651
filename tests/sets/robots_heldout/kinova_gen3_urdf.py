#!/usr/bin/env python3
"""Writes gen3_bimanual.urdf: two Kinova Gen3 7-DoF arms (spherical wrist) on a torso
with a pan-tilt head, each with a two-finger gripper (Robotiq 2F-85 sized).

Kinematics: Kinova's own Gen3 7-DoF description, the joint origins of ros_kortex
(github.com/Kinovarobotics/ros_kortex, kortex_description/arms/gen3/7dof/urdf/
gen3_macro.xacro, commit 6cd75d45f4d00413d73fe2af96f4d0c7d8f234be, 2024-03-19; the
same origins as GEN3_URDF_V12.urdf there and as ros2_kortex's gen3_macro.xacro):
base_link, shoulder_link, half_arm_1_link, half_arm_2_link, forearm_link,
spherical_wrist_1_link, spherical_wrist_2_link, bracelet_link, end_effector_link,
joints joint_1 ... joint_7. Along the arm (the Gen3 user guide's DH table): base to
actuator 1 0.15643 m, then 0.12838, 0.21038, 0.21038, 0.20843, 0.10593, 0.10593, and
bracelet to tool flange 0.061525, with the actuators' lateral offsets 0.005375,
0.006375 (x3) and 0.00017505 (x2). Kinova's files write the quarter and half turns as
1.5708 and 3.1416 and carry ~1e-16 rounding terms; here they are pi/2 and pi exactly.

Joint limits: joints 1, 3, 5, 7 have no hard stop (continuous in Kinova's URDF); they
are written as revolute +-360 deg, so that planning stays within one turn each way
(the twin would give a continuous joint +-540 deg; GEN3_CONTINUOUS=1 writes them as
continuous instead). Joints 2, 4, 6: +-128.9, +-147.8, +-120.3 deg, the ranges of
Kinova's Gen3 user guide (EN-UG-014, "Joint range"; ros_kortex's gen3_macro.xacro
has nearly the same, +-2.24, +-2.57, +-2.09 rad, its older GEN3_URDF_V12.urdf
+-2.41, +-2.66, +-2.23 rad).

Zero: Kinova's, the arm stretched straight up along the base z axis.

Collision capsules: one per link from joint centre to joint centre (the forearm two),
radius from the outer size of Kinova's actuators and the link meshes of ros_kortex
(kortex_description/arms/gen3/7dof/meshes/*.STL): the links of joints 1-4 are tubes of
the large actuators, 92 mm across, those of joints 5-7 of the small ones, 70 mm; the
housings of joints 2, 4, 6 reach 0.059 m and 0.053 m from the link axes at their
corners; the forearm narrows from the large housing at the elbow (0.06 m) to the small
actuator of joint 5 (0.035 m); the no-vision bracelet is 0.039 m; the base housing
is 0.171 m tall (the base capsule spans it, rounded ends included). Radii: base,
shoulder, half arms and elbow 0.050, forearm, both wrist links and bracelet 0.040.
The bracelet is the one without the vision module (the head's camera sees for this
robot). The gripper: a Robotiq 2F-85, mounted directly on the bracelet (Kinova's
adapter), fingers closing along the end effector's x (ros_kortex turns the gripper
base 90 deg about z; its fingers close along the base's y). Its tool centre sits
150 mm past the flange, as the UR5e pair's (ros_kortex names a tool_frame 120 mm past
the end effector; 150 mm keeps the objects where the UR5e pair holds them in the same
fingers); its body and fingers are a capsule up to 3 cm short of the tool centre.
The torso, head and mounts are this project's, as in scripts/ur5e_urdf.py.

Usage: python3 kinova_gen3_urdf.py > gen3_bimanual.urdf
"""
import math
import os

PI = math.pi
H = PI / 2
# Arm bases on the torso front, 0.4 m apart, 1.0 m above the floor, the joint-1 axis
# pitched 35 deg forward-up: the UR5e pair's mount (scripts/ur5e_urdf.py), kept. The
# Gen3's base and shoulder are taller than the UR5e's (joint 2 sits 0.285 m up the
# joint-1 axis instead of 0.163 m), so its shoulder is about 0.10 m higher (z ~1.23,
# x ~0.16): still 0.48 m above a 0.75 m table, and the reach from joint 2 to the tool
# centre (0.902 m to the flange + 0.15 m) is larger than the UR5e's, so the near
# half of the table and the hand-over points stay within reach without another mount.
MOUNT_Y = float(os.environ.get("MOUNT_Y", "0.20"))
MOUNTS = {"left": MOUNT_Y, "right": -MOUNT_Y}
MOUNT_X = float(os.environ.get("MOUNT_X", "0.0"))
MOUNT_Z = float(os.environ.get("MOUNT_Z", "1.0"))
MOUNT_PITCH = math.radians(float(os.environ.get("MOUNT_PITCH", "35")))
CONTINUOUS = os.environ.get("GEN3_CONTINUOUS", "0") == "1"
TCP = 0.15

# Kinova's joint origins (child frame in parent frame): xyz, rpy.
J1 = ((0, 0, 0.15643), (PI, 0, 0))
J2 = ((0, 0.005375, -0.12838), (H, 0, 0))
J3 = ((0, -0.21038, -0.006375), (-H, 0, 0))
J4 = ((0, 0.006375, -0.21038), (H, 0, 0))
J5 = ((0, -0.20843, -0.006375), (-H, 0, 0))
J6 = ((0, 0.00017505, -0.10593), (H, 0, 0))
J7 = ((0, -0.10593, -0.00017505), (-H, 0, 0))
FLANGE = ((0, 0, -0.061525), (PI, 0, 0))
# Limited joints (deg), Kinova Gen3 user guide.
LIMIT_2, LIMIT_4, LIMIT_6 = 128.9, 147.8, 120.3
# Capsule radii (m): tubes of the large actuators (joints 1-4), of the small ones
# (joints 5-7, and the forearm's far half), the gripper (as the UR5e's).
R_LARGE, R_SMALL, R_GRIPPER = 0.050, 0.040, 0.045
# The base housing's height (its mesh), which the base capsule spans end to end rather
# than reaching R_LARGE past joint 1 (it would then lie 2.8 cm from half arm 1 whatever
# the pose, and touch it at the joint-2 stop).
BASE_HEIGHT = 0.1708
# The forearm: the elbow's large housing, then the narrow tube to joint 5 (0.10 m on).
ELBOW = 0.10


def f(v):
    return f"{v:.10g}"


def xyz(v):
    return " ".join(f(x) for x in v)


def cyl(origin, rpy, length, radius, name=None):
    named = f' name="{name}"' if name else ""
    return (f'<collision{named}><origin xyz="{xyz(origin)}" rpy="{xyz(rpy)}"/>'
            f'<geometry><cylinder radius="{f(radius)}" length="{f(length)}"/></geometry></collision>')


def along(a, b, radius, name=None):
    """A cylinder from point a to point b of the link frame (any direction)."""
    mid = [(p + q) / 2 for p, q in zip(a, b)]
    d = [q - p for p, q in zip(a, b)]
    length = math.sqrt(sum(x * x for x in d))
    ux, uy, uz = (x / length for x in d)
    # Ry(pitch) Rx(roll) turns z onto (cos r sin p, -sin r, cos r cos p).
    roll = math.atan2(-uy, math.hypot(ux, uz)) + 0.0
    pitch = math.atan2(ux, uz) + 0.0
    return cyl(mid, (roll, pitch, 0), length, radius, name)


def link(name, *collisions):
    return f'  <link name="{name}">' + "".join(collisions) + '</link>\n'


def joint(name, kind, parent, child, origin=(0, 0, 0), rpy=(0, 0, 0), limit_deg=None, effort=39):
    """Kinova's efforts and speeds: 39 N m, 1.3963 rad/s for the large actuators (joints
    1-4), 9 N m, 1.2218 rad/s for the small ones."""
    speed = "1.3963" if effort == 39 else "1.2218"
    lim = ""
    if kind == "continuous":
        lim = f'<limit effort="{effort}" velocity="{speed}"/>'
    elif limit_deg is not None:
        r = math.radians(limit_deg)
        lim = f'<limit lower="{f(-r)}" upper="{f(r)}" effort="{effort}" velocity="{speed}"/>'
    axis = '<axis xyz="0 0 1"/>' if kind != "fixed" else ""
    return (f'  <joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz(origin)}" rpy="{xyz(rpy)}"/>{axis}{lim}</joint>\n')


def arm(side, y):
    p = f"{side}_"
    o = (0, 0, 0)
    # Joints 1, 3, 5, 7: no hard stop.
    free = ("continuous", None) if CONTINUOUS else ("revolute", 360.0)
    n5 = math.sqrt(sum(v * v for v in J5[0]))
    elbow_end = [v * ELBOW / n5 for v in J5[0]]
    out = [
        # The base: from the mounting face to actuator 1 (on the torso, never checked against it).
        # The base: its housing, 0.171 m tall (Kinova's mesh), up to actuator 1's output at
        # 0.156 m (on the torso, never checked against it).
        link(p + "base_link", along((0, 0, R_LARGE), (0, 0, BASE_HEIGHT - R_LARGE), R_LARGE)),
        link(p + "shoulder_link", along(o, J2[0], R_LARGE)),
        link(p + "half_arm_1_link", along(o, J3[0], R_LARGE)),
        link(p + "half_arm_2_link", along(o, J4[0], R_LARGE)),
        link(p + "forearm_link", along(o, elbow_end, R_LARGE, "elbow"),
             along(elbow_end, J5[0], R_SMALL, "forearm")),
        link(p + "spherical_wrist_1_link", along(o, J6[0], R_SMALL)),
        link(p + "spherical_wrist_2_link", along(o, J7[0], R_SMALL)),
        link(p + "bracelet_link", along(o, FLANGE[0], R_SMALL)),
        link(p + "end_effector_link"),
        # Gripper body and fingers up to 3 cm short of the tool centre.
        link(p + "gripper", along(o, (0, 0, TCP - 0.03), R_GRIPPER)),
        link(p + "tcp"),
        joint(p + "mount", "fixed", "torso", p + "base_link", (MOUNT_X, y, MOUNT_Z), (0, MOUNT_PITCH, 0)),
        joint(p + "joint_1", free[0], p + "base_link", p + "shoulder_link", *J1, limit_deg=free[1]),
        joint(p + "joint_2", "revolute", p + "shoulder_link", p + "half_arm_1_link", *J2, limit_deg=LIMIT_2),
        joint(p + "joint_3", free[0], p + "half_arm_1_link", p + "half_arm_2_link", *J3, limit_deg=free[1]),
        joint(p + "joint_4", "revolute", p + "half_arm_2_link", p + "forearm_link", *J4, limit_deg=LIMIT_4),
        joint(p + "joint_5", free[0], p + "forearm_link", p + "spherical_wrist_1_link", *J5, limit_deg=free[1], effort=9),
        joint(p + "joint_6", "revolute", p + "spherical_wrist_1_link", p + "spherical_wrist_2_link", *J6, limit_deg=LIMIT_6, effort=9),
        joint(p + "joint_7", free[0], p + "spherical_wrist_2_link", p + "bracelet_link", *J7, limit_deg=free[1], effort=9),
        joint(p + "end_effector", "fixed", p + "bracelet_link", p + "end_effector_link", *FLANGE),
        joint(p + "end_effector-gripper", "fixed", p + "end_effector_link", p + "gripper"),
        joint(p + "gripper-tcp", "fixed", p + "gripper", p + "tcp", (0, 0, TCP)),
    ]
    return "".join(out)


def main():
    print('<?xml version="1.0"?>')
    print('<!-- Generated by kinova_gen3_urdf.py. -->')
    print('<robot name="gen3_bimanual">')
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
