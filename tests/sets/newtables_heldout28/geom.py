#!/usr/bin/env python3
"""Independent check of the DESIGN.md human model for scene files.

Copied unchanged for newtables_heldout28 from newtables_heldout27/geom.py on 2026-12-03
(only this paragraph was added).

Copied unchanged for newtables_heldout27 from newtables_heldout26/geom.py on 2026-12-03
(only this paragraph was added).

Copied unchanged for newtables_heldout26 from newtables_heldout25/geom.py on 2026-12-03
(only this paragraph was added).

Copied unchanged for newtables_heldout25 from newtables_heldout24/geom.py on 2026-12-03
(only this paragraph was added).

Copied unchanged for newtables_heldout24 from newtables_heldout23/geom.py on 2026-12-02
(only this paragraph was added).

Copied unchanged for newtables_heldout23 from newtables_heldout22/geom.py on 2026-12-02
(only this paragraph was added).

Copied unchanged for newtables_heldout22 from newtables_heldout21/geom.py on 2026-12-02
(only this paragraph was added).

Copied unchanged for newtables_heldout21 from newtables_heldout20/geom.py on 2026-12-02
(only this paragraph was added).

Copied unchanged for newtables_heldout20 from newtables_heldout19/geom.py on 2026-12-02
(only this paragraph was added).

Copied unchanged for newtables_heldout19 from newtables_heldout18/geom.py on 2026-12-02
(only this paragraph was added).

Copied unchanged for newtables_heldout18 from newtables_heldout17/geom.py on 2026-12-01
(only this paragraph was added).

Copied unchanged for newtables_heldout17 from newtables_heldout16/geom.py on 2026-12-01
(only this paragraph was added).

Copied unchanged for newtables_heldout16 from newtables_heldout15/geom.py on 2026-12-01
(only this paragraph was added).

Copied unchanged for newtables_heldout15 from newtables_heldout14/geom.py on 2026-11-30
(only this paragraph was added).

Copied unchanged for newtables_heldout14 from newtables_heldout13/geom.py on 2026-11-30
(only this paragraph was added).

Copied unchanged for newtables_heldout13 from newtables_heldout12/geom.py on 2026-11-30
(only this paragraph was added).

Copied for newtables_heldout12 from newtables_heldout11/geom.py on 2026-11-30; the
only change is DEFAULT_KINDS, now the checkout's own scenes/kinds.toml found from this
file's place instead of /work/main/scenes/kinds.toml (and this paragraph).

Copied unchanged for newtables_heldout8 from newtables_heldout7/geom.py on 2026-11-30
(only this sentence was added). That copy was made unchanged for newtables_heldout7
from newtables_heldout6/geom.py. That copy was made unchanged for newtables_heldout6 from
newtables_heldout5/geom.py. That copy was made for newtables_heldout5 from
newtables_heldout4/geom.py, which was copied
for newtables_heldout4 from newtables_heldout3/geom.py, itself copied from
newtables_heldout2/geom.py, which was adapted on
2026-11-29 from newtables_heldout/geom.py, itself written from /work/shared/DESIGN.md
only (no project code):
  eyes 1.20 m above the floor, shoulders 1.05 m, shoulder width 0.40 m,
  arm reach 0.65 m from either shoulder; a person sees an object when the
  line from the eyes to the object's centre or top-centre is not blocked by
  another object (their own held objects excepted); a person reaches an object
  when its grasp point lies within arm reach of a shoulder; busy while holding.

The grasp point is taken as the point of the object's side at its grasp
height nearest to the shoulder (this reproduces the distances quoted in the
shipped held-out dialogue comments, e.g. "0.06 m beyond", "0.32 m beyond").

Additions in this copy: the robot's distance from its nearest shoulder to each
object's grasp point (shoulders at world x = -0.605, y = +-0.18, z = 1.145 for a
robot at [-0.85, 0], from the comments of scenes/robots/jaco2_bimanual.toml; arm
reach 0.985 m to the tool centre, side grasps up to x ~ 0.35 at table height),
and the free gap between each object and its nearest neighbour (a hand needs
about 8 cm around an object the robot picks up).

Additions in the heldout3 copy: per-person overrides (eye_height, shoulder_height,
arm_reach) are read from the scene, as DESIGN.md allows; with --defaults they are
ignored, to show which answers depend on them. Each reach answer is flagged
"(near)" when its margin is under 0.05 m.

Additions in the heldout4 copy: each reach answer also gives the margin to the
object's axis at grasp height ("axis"), in case a grasp point is taken at the
object's centre rather than on its near side; "(near)" now flags a margin under
0.05 m by either measure, and "(conv)" an answer that flips between the two
measures. The robot's distance is given both to the axis and to the nearer side.

Additions in the heldout5 copy: `--dialogues DIR` walks the dialogue scripts in DIR
that use this scene and, turn by turn, carries the `before` holdings forward (a
person keeps holding until a later `before` changes it) and prints, for the objects
a turn is about (those named in expect_state, and any container whose contents are
named in the text, e.g. "rioja" -> rioja_bottle, and any object whose name or a
property of four letters or more is in the text), the listener's busy / sees /
reaches, the sender's reach, and for turns to the robot its distance to them. An
object that an earlier turn of the same file expects to be delivered (`at`) or
moved (`away_from`) is flagged "(moved earlier)": its facts are those of the scene
file, not of wherever it went. The script's expectations are not judged; the
printout is read by the writer.

Usage: geom.py SCENE.toml [--defaults] [PERSON:held_obj,held_obj ...]
       geom.py SCENE.toml --dialogues DIR
Prints, per person and object, visible / occluded_by / reachable / margin,
then per object the robot distance and the smallest gap to a neighbour.
"""
import math
import os
import sys
import tomllib

DEFAULT_KINDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scenes", "kinds.toml")


def load_scene(path):
    with open(path, "rb") as f:
        scene = tomllib.load(f)
    kinds = {}
    with open(DEFAULT_KINDS, "rb") as f:
        kinds.update(tomllib.load(f))
    if "kinds" in scene:
        kp = os.path.join(os.path.dirname(path), scene["kinds"])
        with open(kp, "rb") as f:
            kinds.update(tomllib.load(f))
    return scene, kinds


def obj_geom(o, kinds, table_h):
    k = dict(kinds[o["kind"]])
    for key in ("radius", "height", "size", "grasp_height", "shape"):
        if key in o:
            k[key] = o[key]
    g = {"name": o["name"], "shape": k["shape"], "x": o["position"][0], "y": o["position"][1],
         "z0": table_h, "grasp_height": k.get("grasp_height", 0.0)}
    if k["shape"] == "cylinder":
        g["r"] = k["radius"]
        g["h"] = k["height"]
    else:
        sx, sy, sz = k["size"]
        g["sx"], g["sy"], g["h"] = sx, sy, sz
        g["yaw"] = math.radians(o.get("yaw_deg", 0.0))
    return g


def inside(g, p, eps=0.0):
    x, y, z = p
    if z < g["z0"] or z > g["z0"] + g["h"] + eps:
        return False
    dx, dy = x - g["x"], y - g["y"]
    if g["shape"] == "cylinder":
        return dx * dx + dy * dy <= (g["r"] + eps) ** 2
    c, s = math.cos(-g["yaw"]), math.sin(-g["yaw"])
    lx, ly = c * dx - s * dy, s * dx + c * dy
    return abs(lx) <= g["sx"] / 2 + eps and abs(ly) <= g["sy"] / 2 + eps


def nearest_side_point(g, px, py):
    """Horizontal nearest point of the object's footprint boundary to (px, py)."""
    dx, dy = px - g["x"], py - g["y"]
    if g["shape"] == "cylinder":
        d = math.hypot(dx, dy)
        if d < 1e-9:
            return g["x"], g["y"]
        return g["x"] + dx / d * g["r"], g["y"] + dy / d * g["r"]
    c, s = math.cos(-g["yaw"]), math.sin(-g["yaw"])
    lx, ly = c * dx - s * dy, s * dx + c * dy
    lx = max(-g["sx"] / 2, min(g["sx"] / 2, lx))
    ly = max(-g["sy"] / 2, min(g["sy"] / 2, ly))
    c2, s2 = math.cos(g["yaw"]), math.sin(g["yaw"])
    return g["x"] + c2 * lx - s2 * ly, g["y"] + s2 * lx + c2 * ly


def blocked(eye, target, others):
    hits = []
    n = 400
    for g in others:
        for i in range(1, n):
            t = i / n
            p = tuple(eye[j] + (target[j] - eye[j]) * t for j in range(3))
            if inside(g, p):
                hits.append(g["name"])
                break
    return hits


def footprint_points(g, n=72):
    """Points on the object's footprint boundary and inside it (for overlap checks)."""
    pts = []
    if g["shape"] == "cylinder":
        for i in range(n):
            a = 2 * math.pi * i / n
            for f in (0.33, 0.66, 1.0):
                pts.append((g["x"] + f * g["r"] * math.cos(a), g["y"] + f * g["r"] * math.sin(a)))
    else:
        c, s = math.cos(g["yaw"]), math.sin(g["yaw"])
        for i in range(n + 1):
            for j in range(n + 1):
                lx = -g["sx"] / 2 + g["sx"] * i / n
                ly = -g["sy"] / 2 + g["sy"] * j / n
                pts.append((g["x"] + c * lx - s * ly, g["y"] + s * lx + c * ly))
    pts.append((g["x"], g["y"]))
    return pts


def check_layout(objs, scene):
    sx, sy = scene["table"]["size"]
    for g in objs:
        for (x, y) in footprint_points(g):
            if abs(x) > sx / 2 or abs(y) > sy / 2:
                print(f"!! {g['name']} off the table edge")
                break
    for i, a in enumerate(objs):
        for b in objs[i + 1:]:
            if any(inside(b, (x, y, b["z0"] + 0.001)) for (x, y) in footprint_points(a)) or \
               any(inside(a, (x, y, a["z0"] + 0.001)) for (x, y) in footprint_points(b)):
                print(f"!! {a['name']} overlaps {b['name']}")


def person_facts(scene, kinds, held, use_overrides=True):
    """{person: {object: (visible, occluders, reachable, margin, margin_axis)}} plus the
    robot's distance to each grasp point, with `held` = {person: [objects]}."""
    th = scene["table"]["height"]
    held_any = {o for v in held.values() for o in v}
    objs = [obj_geom(o, kinds, th) for o in scene["object"] if "position" in o]
    out = {}
    for p in scene["person"]:
        name = p["name"]
        yaw = math.radians(p["yaw_deg"])
        px, py = p["position"]
        if not use_overrides:
            p = {k: v for k, v in p.items() if k not in ("eye_height", "shoulder_height", "arm_reach")}
        eye = (px, py, p.get("eye_height", 1.20))
        lxv, lyv = -math.sin(yaw), math.cos(yaw)
        sh_h = p.get("shoulder_height", 1.05)
        reach = p.get("arm_reach", 0.65)
        shoulders = [(px + lxv * 0.2, py + lyv * 0.2, sh_h), (px - lxv * 0.2, py - lyv * 0.2, sh_h)]
        facts = {}
        for g in objs:
            if g["name"] in held_any:
                continue
            others = [o for o in objs if o["name"] != g["name"] and o["name"] not in held_any]
            c = (g["x"], g["y"], g["z0"] + g["h"] / 2)
            t = (g["x"], g["y"], g["z0"] + g["h"])
            bc = blocked(eye, c, others)
            bt = blocked(eye, t, others)
            visible = not bc or not bt
            best = min(math.dist(s, (*nearest_side_point(g, s[0], s[1]), g["z0"] + g["grasp_height"])) for s in shoulders)
            best_axis = min(math.dist(s, (g["x"], g["y"], g["z0"] + g["grasp_height"])) for s in shoulders)
            facts[g["name"]] = (visible, sorted(set(bc + bt)), reach - best >= 0, reach - best, reach - best_axis)
        out[name] = facts
    rx, ry = scene["robot"]["position"]
    rsh = [(rx + 0.245, ry + 0.18, 1.145), (rx + 0.245, ry - 0.18, 1.145)]
    out["the_robot"] = {g["name"]: min(math.dist(s, (g["x"], g["y"], g["z0"] + g["grasp_height"])) for s in rsh)
                        for g in objs if g["name"] not in held_any}
    return out


def check_dialogues(path, scene, kinds, folder):
    import glob
    import re
    names = {p["name"] for p in scene["person"]}
    contents = {o["name"]: o.get("contains", "") for o in scene["object"]}
    for f in sorted(glob.glob(os.path.join(folder, "*.toml"))):
        with open(f, "rb") as fh:
            d = tomllib.load(fh)
        sp = d.get("scene", "")
        sp_abs = os.path.normpath(os.path.abspath(os.path.join(os.path.dirname(f), sp)))
        if sp_abs != os.path.normpath(os.path.abspath(path)):
            continue
        print(f"#### {os.path.basename(f)}")
        held = {n: [] for n in names}
        moved = set()
        for i, t in enumerate(d.get("turn", []), 1):
            if t.get("new_session"):
                held = {n: [] for n in names}
                moved = set()
            for b in t.get("before", []):
                held[b["person"]] = list(b.get("holding", []))
            m = re.match(r"\s*([A-Za-z_]+) said to ([A-Za-z_]+):\s*(.*)", t["text"])
            if not m:
                print(f"  t{i}: !! cannot parse turn text")
                continue
            sender, listener, text = m.groups()
            objs = []
            for st in t.get("expect_state", []):
                if st["object"] not in objs:
                    objs.append(st["object"])
            low = text.lower()
            for o, c in contents.items():
                if c and c.lower() in low and o not in objs:
                    objs.append(o)
            # and any object named by its name or one of its properties (4+ letters)
            for ob in scene["object"]:
                words = [ob["name"].replace("_", " ")] + [w for w in ob.get("properties", []) if len(w) >= 4]
                if any(re.search(r"\b" + re.escape(w.lower()) + r"\b", low) for w in words) and ob["name"] not in objs:
                    objs.append(ob["name"])
            facts = person_facts(scene, kinds, held)
            busy = {n: bool(v) for n, v in held.items()}
            head = f"  t{i} {t.get('expect')}" + (f"/{t['expect_reason']}" if "expect_reason" in t else "")
            head += f" {sender}->{listener}" + (f" (listener busy: {held[listener]})" if listener in held and held[listener] else "")
            print(head)
            for o in objs:
                tag = " (moved earlier)" if o in moved else ""
                if listener == "the_robot":
                    dist = facts["the_robot"].get(o)
                    print(f"      {o}{tag}: robot {'held by a person' if dist is None else f'{dist:.3f}'}")
                    continue
                lf = facts.get(listener, {}).get(o)
                sf = facts.get(sender, {}).get(o)
                if lf is None:
                    print(f"      {o}{tag}: held by someone")
                    continue
                vis = "sees" if lf[0] else "HIDDEN by " + ",".join(lf[1])
                print(f"      {o}{tag}: {listener} {vis}, {'reaches' if lf[2] else 'cannot reach'} ({lf[3]:+.2f}/{lf[4]:+.2f})"
                      + (f"; {sender} {'reaches' if sf[2] else 'cannot reach'} ({sf[3]:+.2f})" if sf else ""))
            for st in t.get("expect_state", []):
                if "at" in st or "away_from" in st:
                    moved.add(st["object"])


def main():
    path = sys.argv[1]
    if "--dialogues" in sys.argv:
        scene, kinds = load_scene(path)
        check_dialogues(path, scene, kinds, sys.argv[sys.argv.index("--dialogues") + 1])
        return
    scene, kinds = load_scene(path)
    th = scene["table"]["height"]
    held = {}
    for p in scene.get("person", []):
        held[p["name"]] = list(p.get("holding", []))
    use_overrides = "--defaults" not in sys.argv[2:]
    for arg in sys.argv[2:]:
        if arg.startswith("--"):
            continue
        who, objs = arg.split(":", 1)
        held[who] = [x for x in objs.split(",") if x]
    held_any = {o for v in held.values() for o in v}
    objs = [obj_geom(o, kinds, th) for o in scene["object"] if "position" in o]
    check_layout(objs, scene)
    for p in scene["person"]:
        name = p["name"]
        yaw = math.radians(p["yaw_deg"])
        px, py = p["position"]
        if not use_overrides:
            p = {k: v for k, v in p.items() if k not in ("eye_height", "shoulder_height", "arm_reach")}
        eye = (px, py, p.get("eye_height", 1.20))
        lxv, lyv = -math.sin(yaw), math.cos(yaw)
        sh_h = p.get("shoulder_height", 1.05)
        reach = p.get("arm_reach", 0.65)
        shoulders = [(px + lxv * 0.2, py + lyv * 0.2, sh_h), (px - lxv * 0.2, py - lyv * 0.2, sh_h)]
        print(f"== {name} at {p['position']} holding {held.get(name)} busy={bool(held.get(name))}")
        for g in objs:
            if g["name"] in held_any:
                continue
            others = [o for o in objs if o["name"] != g["name"] and o["name"] not in held_any]
            c = (g["x"], g["y"], g["z0"] + g["h"] / 2)
            t = (g["x"], g["y"], g["z0"] + g["h"])
            bc = blocked(eye, c, others)
            bt = blocked(eye, t, others)
            visible = not bc or not bt
            # Robustness of the sight answer: move the eye 5 cm either way
            # (sideways, forwards, up/down); "(fragile)" if any move flips it.
            fragile = False
            for de in ((0.05, 0, 0), (-0.05, 0, 0), (0, 0.05, 0), (0, -0.05, 0), (0, 0, 0.05), (0, 0, -0.05)):
                e2 = (eye[0] + de[0], eye[1] + de[1], eye[2] + de[2])
                v2 = not blocked(e2, c, others) or not blocked(e2, t, others)
                if v2 != visible:
                    fragile = True
                    break
            best = 9
            best_axis = 9
            for s in shoulders:
                qx, qy = nearest_side_point(g, s[0], s[1])
                d = math.dist(s, (qx, qy, g["z0"] + g["grasp_height"]))
                best = min(best, d)
                best_axis = min(best_axis, math.dist(s, (g["x"], g["y"], g["z0"] + g["grasp_height"])))
            margin = reach - best
            margin_axis = reach - best_axis
            tag = "REACH" if margin >= 0 else "no-reach"
            if abs(margin) < 0.05 or abs(margin_axis) < 0.05:
                tag += "(near)"
            if (margin >= 0) != (margin_axis >= 0):
                tag += "(conv)"
            vis = "sees" if visible else "HIDDEN by " + ",".join(sorted(set(bc + bt)))
            if fragile:
                vis += " (fragile)"
            print(f"  {g['name']:22s} {vis:34s} {tag:20s} margin {margin:+.3f} axis {margin_axis:+.3f}")
    robot_report(scene, objs, held_any)


def footprint_gap(a, b):
    """Smallest horizontal distance between two footprints (0 when they touch)."""
    best = 9.0
    for (x, y) in footprint_points(a, 144):
        qx, qy = nearest_side_point(b, x, y)
        if inside(b, (x, y, b["z0"] + 0.001)):
            return 0.0
        best = min(best, math.hypot(x - qx, y - qy))
    return best


def robot_report(scene, objs, held_any):
    rx, ry = scene["robot"]["position"]
    shoulders = [(rx + 0.245, ry + 0.18, 1.145), (rx + 0.245, ry - 0.18, 1.145)]
    print("== the_robot (shoulders at x %.3f, y +-0.18, z 1.145; reach 0.985)" % (rx + 0.245))
    for g in objs:
        if g["name"] in held_any:
            continue
        p = (g["x"], g["y"], g["z0"] + g["grasp_height"])
        d = min(math.dist(s, p) for s in shoulders)
        ds = min(math.dist(s, (*nearest_side_point(g, s[0], s[1]), g["z0"] + g["grasp_height"])) for s in shoulders)
        others = [o for o in objs if o is not g and o["name"] not in held_any]
        gap, near = min((footprint_gap(g, o), o["name"]) for o in others)
        flag = "" if d <= 0.9 else "  (beyond 0.9)"
        gflag = "" if gap >= 0.08 else "  (gap < 0.08)"
        print(f"  {g['name']:22s} robot dist {d:.3f} (side {ds:.3f}){flag:14s} gap {gap:.3f} to {near}{gflag}")


if __name__ == "__main__":
    main()
