#!/usr/bin/env python3
"""Solves the Gen3 pair's home and aside poses with our own forward kinematics
(urdf_fk.py, reading gen3_bimanual.urdf) and checks them the way the twin does:
non-adjacent links of one arm, the two arms against each other, arm links (but the
base) against the torso and head, at least 3 cm apart.

Home: the tool centre where the UR5e and Jaco pairs rest theirs, robot frame
(0.65, +-0.25, 1.05) = 0.30 m above a 0.75 m table, the approach axis 17 deg forward
of straight down, the fingers closing across (along -+y); among the inverse
kinematics solutions the one with the most clearance, joints 2, 4, 6 farthest from
their stops and from 0 (shoulder, elbow and wrist singularities), elbow out and up.

Aside: folded back beside the torso, the hand outward of its shoulder and pointing
down, every link (capsule surface) behind x = 0.20 (the table's near edge is at
x = 0.25 with the robot at world x = -0.85, as in the shipped scenes), the arm clear
of the torso, the head and the other arm (at home or aside), as near home in joints
as that allows.

Usage: python3 solve_poses.py   (needs numpy; prints the poses in degrees)
"""
import math
import sys
import os

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from urdf_fk import Urdf, cap_dist, self_clearance  # noqa: E402

URDF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen3_bimanual.urdf")
u = Urdf(URDF)
ARMS = {"left": ("left_base_link", "left_tcp"), "right": ("right_base_link", "right_tcp")}
SIGN = {"left": 1.0, "right": -1.0}
LIMITED = (1, 3, 5)  # joints 2, 4, 6 (0-based)
# As gen3_bimanual.toml: the joint-6 stops keep these apart (1 cm at the stop).
IGNORE = [("forearm", "spherical wrist 2"), ("spherical wrist 1", "bracelet")]


def limits(side):
    js = u.moving(*ARMS[side])
    return np.array([j["lower"] for j in js]), np.array([j["upper"] for j in js])


def tcp(side, q):
    return u.fk(*ARMS[side], q)[ARMS[side][1]][0]


def quat(R):
    """Unit quaternion (w, x, y, z) of a rotation matrix."""
    w = math.sqrt(max(0.0, 1 + R[0, 0] + R[1, 1] + R[2, 2])) / 2
    x = math.copysign(math.sqrt(max(0.0, 1 + R[0, 0] - R[1, 1] - R[2, 2])) / 2, R[2, 1] - R[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1 - R[0, 0] + R[1, 1] - R[2, 2])) / 2, R[0, 2] - R[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1 - R[0, 0] - R[1, 1] + R[2, 2])) / 2, R[1, 0] - R[0, 1])
    return np.array([w, x, y, z])


def pose_error(M, target):
    """Position error and rotation error (axis times angle, also for half turns)."""
    p = target[:3, 3] - M[:3, 3]
    q = quat(target[:3, :3] @ M[:3, :3].T)
    if q[0] < 0:
        q = -q
    n = np.linalg.norm(q[1:])
    w = q[1:] * (2 * math.atan2(n, q[0]) / n) if n > 1e-12 else np.zeros(3)
    return np.concatenate([p, w])


def jacobian(side, q, eps=1e-6):
    M0 = tcp(side, q)
    J = np.zeros((6, len(q)))
    for i in range(len(q)):
        dq = np.array(q, float)
        dq[i] += eps
        M1 = tcp(side, dq)
        J[:3, i] = (M1[:3, 3] - M0[:3, 3]) / eps
        R = M1[:3, :3] @ M0[:3, :3].T
        J[3:, i] = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]) / eps
    return J


def ik(side, target, seed, iters=200):
    lo, hi = limits(side)
    q = np.array(seed, float)
    for _ in range(iters):
        e = pose_error(tcp(side, q), target)
        if np.linalg.norm(e[:3]) < 1e-5 and np.linalg.norm(e[3:]) < 1e-5:
            return q
        J = jacobian(side, q)
        lam = 0.01
        dq = J.T @ np.linalg.solve(J @ J.T + lam * np.eye(6), e)
        q = np.clip(q + dq, lo, hi)
    return None


def target_frame(side, p, z, x):
    z = np.array(z, float) / np.linalg.norm(z)
    x = np.array(x, float)
    x = x - (x @ z) * z
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    M = np.eye(4)
    M[:3, :3] = np.column_stack([x, y, z])
    M[:3, 3] = p
    return M


def mirrored(M):
    """A hand frame mirrored in the robot's x-z plane, its closing axis turned back (the
    two fingers close either way) so that the frame stays right-handed."""
    S = np.diag([1.0, -1.0, 1.0])
    out = np.eye(4)
    x, z = -(S @ M[:3, 0]), S @ M[:3, 2]
    out[:3, :3] = np.column_stack([x, np.cross(z, x), z])
    out[:3, 3] = S @ M[:3, 3]
    return out


def home_target(side):
    left = target_frame("left", (0.65, 0.25, 1.05), (0.30, 0.0, -0.955), (0.29, -0.95, 0.09))
    return left if side == "left" else mirrored(left)


def arm_caps(side, q):
    return u.capsules(*ARMS[side], q)[0]


def own_clearance(side, q):
    """Nearest pair among one arm's links and the body (the other arm left out)."""
    arms = [ARMS[side]]
    return self_clearance(u, arms, [q], ignore=IGNORE)[0]


def both_clearance(ql, qr, hl=None, hr=None):
    return self_clearance(u, [ARMS["left"], ARMS["right"]], [ql, qr],
                          [hl if hl is not None else ql, hr if hr is not None else qr], ignore=IGNORE)


def limit_margin(side, q):
    lo, hi = limits(side)
    return min((min(q[i] - lo[i], hi[i] - q[i])) / (hi[i] - lo[i]) * 2 for i in LIMITED)


def wrap(q, side):
    """Joints 1, 3, 5, 7 into (-180, 180]."""
    q = np.array(q, float)
    for i in (0, 2, 4, 6):
        q[i] = (q[i] + math.pi) % (2 * math.pi) - math.pi
    return q


def home_score(side, q):
    d, _, _ = own_clearance(side, q)
    fr = u.fk(*ARMS[side], q)
    elbow = fr[ARMS[side][0].replace("base_link", "forearm_link")][0][:3, 3]
    s = SIGN[side]
    sing = min(abs(math.degrees(q[3])), abs(math.degrees(q[5])), abs(math.degrees(q[1])))
    return (min(d, 0.08) * 10 + limit_margin(side, q) + 0.5 * min(sing, 30) / 30
            + 0.5 * (s * elbow[1] - 0.2) + 0.5 * (elbow[2] - 1.2)), d, elbow


def solve_home(side, seeds=80, rng=np.random.default_rng(7)):
    lo, hi = limits(side)
    lo_s, hi_s = np.maximum(lo, -math.pi), np.minimum(hi, math.pi)
    best = None
    target = home_target(side)
    for _ in range(seeds):
        q = ik(side, target, rng.uniform(lo_s, hi_s))
        if q is None:
            continue
        q = wrap(q, side)
        sc, d, elbow = home_score(side, q)
        if d < 0.03:
            continue
        if best is None or sc > best[0]:
            best = (sc, q, d, elbow)
    return best


def mirror(q):
    """The right arm's joints for the left arm's pose mirrored in the robot's x-z plane
    (exact but for Kinova's 2.5 cm of lateral actuator offsets)."""
    m = -np.array(q, float)
    m[0] += math.pi
    return wrap(m, "right")


def near(q, ref):
    """Joints 1, 3, 5, 7 turned by whole turns to lie nearest `ref` (within +-360 deg)."""
    q = np.array(q, float)
    for i in (0, 2, 4, 6):
        while q[i] - ref[i] > math.pi and q[i] - 2 * math.pi >= -2 * math.pi:
            q[i] -= 2 * math.pi
        while ref[i] - q[i] > math.pi and q[i] + 2 * math.pi <= 2 * math.pi:
            q[i] += 2 * math.pi
    return q


def frontmost(side, q):
    return max(max(c[2][0], c[3][0]) + c[4] for c in arm_caps(side, q))


def aside_candidates(side, home_q, other_home, rng=np.random.default_rng(11), seeds=3):
    """IK solutions for hand targets beside the torso, pointing down, that keep every
    link behind x = 0.22 and 4 cm from everything; sorted by joint travel from home."""
    s = SIGN[side]
    lo, hi = limits(side)
    lo_s, hi_s = np.maximum(lo, -math.pi), np.minimum(hi, math.pi)
    other = "right" if side == "left" else "left"
    other_caps = arm_caps(other, other_home)
    out = []
    for x in (-0.10, -0.05, 0.0):
        for y in (0.40, 0.45, 0.50):
            for z in (1.20, 1.30, 1.40):
                for yaw in (0, 45, 90, 135):
                    a = math.radians(yaw)
                    target = target_frame("left", (x, y, z), (0, 0, -1), (math.cos(a), math.sin(a), 0))
                    target = target if side == "left" else mirrored(target)
                    for seed in [home_q] + [rng.uniform(lo_s, hi_s) for _ in range(seeds)]:
                        q = ik(side, target, seed, iters=120)
                        if q is None:
                            continue
                        q = near(wrap(q, side), home_q)
                        if np.sign(q[3]) != np.sign(home_q[3]):
                            continue  # the elbow would pass the stretched singularity
                        if frontmost(side, q) > 0.22:
                            continue
                        d_own = own_clearance(side, q)[0]
                        caps = arm_caps(side, q)
                        d_other = min(cap_dist(a_[2:], b_[2:]) for a_ in caps for b_ in other_caps)
                        if min(d_own, d_other) < 0.04:
                            continue
                        travel = float(np.max(np.abs(q - home_q)))
                        out.append((travel, q, (x, y, z, yaw), min(d_own, d_other)))
    out.sort(key=lambda c: c[0])
    return out


def describe(side, q_deg, other_deg=None, label=""):
    q = np.radians(q_deg)
    caps = arm_caps(side, q)
    M = tcp(side, q)
    maxx = max(max(c[2][0], c[3][0]) + c[4] for c in caps)
    d, a, b = own_clearance(side, q)
    print(f"{label} {side}: q = {list(q_deg)}")
    print(f"   tcp {np.round(M[:3, 3], 3)} approach {np.round(M[:3, 2], 2)} closing {np.round(M[:3, 0], 2)}")
    print(f"   frontmost link surface x = {maxx:.3f}; nearest own/body pair {d:.3f} m ({a} - {b})")
    return M


if __name__ == "__main__":
    # Home: the left arm's best solution; the right arm's is its mirror image.
    sc, ql, d, elbow = solve_home("left")
    qr = ik("right", home_target("right"), mirror(ql))
    homes = {"left": ql, "right": wrap(qr, "right")}
    for side, q in homes.items():
        print(f"home {side}: {np.round(np.degrees(q), 1)}")
    rd = {k: np.round(np.degrees(v)) for k, v in homes.items()}
    # Aside: the left arm's candidate with the least travel from home that also leaves
    # its mirror image (the right arm's aside) clear of everything.
    hl, hr = np.radians(rd["left"]), np.radians(rd["right"])
    cands = aside_candidates("left", hl, hr)
    print(f"{len(cands)} aside candidates for the left arm")
    chosen = None
    for travel, q, target, clear in cands:
        ql_a = np.radians(np.round(np.degrees(q)))
        yaw = math.radians(target[3])
        right_target = mirrored(target_frame("left", target[:3], (0, 0, -1), (math.cos(yaw), math.sin(yaw), 0)))
        qr_a = ik("right", right_target, mirror(ql_a))
        if qr_a is None:
            continue
        qr_a = np.radians(np.round(np.degrees(near(wrap(qr_a, "right"), hr))))
        ok = True
        for side, q_, h_ in (("left", ql_a, hl), ("right", qr_a, hr)):
            if frontmost(side, q_) > 0.22 or own_clearance(side, q_)[0] < 0.04:
                ok = False
        pairs = [both_clearance(a, b, hl, hr)[0][0] for a, b in ((ql_a, qr_a), (ql_a, hr), (hl, qr_a))]
        if ok and min(pairs) >= 0.04:
            chosen = (ql_a, qr_a, target, travel)
            break
    ra = {"left": np.degrees(chosen[0]), "right": np.degrees(chosen[1])}
    print(f"aside target (left) x, y, z, closing yaw: {chosen[2]}, travel {math.degrees(chosen[3]):.0f} deg")
    for side in ("left", "right"):
        describe(side, rd[side], label="home")
        describe(side, ra[side], label="aside")
        print(f"   aside - home: {ra[side] - rd[side]}")
    for label, l, r in [("home/home", rd["left"], rd["right"]), ("aside/aside", ra["left"], ra["right"]),
                        ("aside/home", ra["left"], rd["right"]), ("home/aside", rd["left"], ra["right"])]:
        pairs = both_clearance(np.radians(l), np.radians(r), np.radians(rd["left"]), np.radians(rd["right"]))
        print(f"{label}: nearest pairs {[(round(d, 3), a, b) for d, a, b in pairs[:3]]}")
    print("home_deg  left", [int(v) for v in rd["left"]], " right", [int(v) for v in rd["right"]])
    print("aside_deg left", [int(round(v)) for v in ra["left"]], " right", [int(round(v)) for v in ra["right"]])
