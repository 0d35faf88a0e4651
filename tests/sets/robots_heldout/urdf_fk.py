"""URDF forward kinematics and capsule clearances, as the twin computes them (numpy).

Reads the cylinders of a URDF's links as capsules on the chain frame of their link,
and checks, as src/twin/kinematics/{chain,robot}.rs do: links of one arm whose chain
frames are more than one joint apart, every link of one arm against every link of the
other, and arm links not on the base frame against the body (torso, head).

Usage: python3 urdf_fk.py URDF LEFT_BASE LEFT_TIP RIGHT_BASE RIGHT_TIP HOME_L HOME_R ASIDE_L ASIDE_R
(poses as Python lists in degrees).
"""
import math, sys
import xml.etree.ElementTree as ET
import numpy as np

def rpy_mat(r, p, y):
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    Rx = np.array([[1,0,0],[0,cr,-sr],[0,sr,cr]]); Ry = np.array([[cp,0,sp],[0,1,0],[-sp,0,cp]]); Rz = np.array([[cy,-sy,0],[sy,cy,0],[0,0,1]])
    return Rz @ Ry @ Rx

def T(xyz=(0,0,0), R=None):
    M = np.eye(4); M[:3,3] = xyz
    if R is not None: M[:3,:3] = R
    return M

def axis_angle(ax, a):
    ax = np.asarray(ax, float); ax = ax/np.linalg.norm(ax)
    K = np.array([[0,-ax[2],ax[1]],[ax[2],0,-ax[0]],[-ax[1],ax[0],0]])
    return np.eye(3) + math.sin(a)*K + (1-math.cos(a))*K@K

def vec(s, default="0 0 0"):
    return [float(x) for x in (s or default).split()]

class Urdf:
    def __init__(self, path):
        root = ET.parse(path).getroot()
        self.links = {}
        for l in root.findall('link'):
            caps = []
            for c in l.findall('collision'):
                o = c.find('origin'); g = c.find('geometry/cylinder')
                t = T(vec(o.get('xyz')), rpy_mat(*vec(o.get('rpy'))))
                h = float(g.get('length'))/2
                caps.append((c.get('name'), t @ [0,0,-h,1], t @ [0,0,h,1], float(g.get('radius'))))
            self.links[l.get('name')] = caps
        self.joints = {}
        for j in root.findall('joint'):
            o = j.find('origin'); a = j.find('axis'); lim = j.find('limit')
            self.joints[j.find('child').get('link')] = dict(
                name=j.get('name'), type=j.get('type'), parent=j.find('parent').get('link'),
                origin=T(vec(o.get('xyz')), rpy_mat(*vec(o.get('rpy')))),
                axis=vec(a.get('xyz')) if a is not None else None,
                lower=float(lim.get('lower', 'nan')) if lim is not None else None,
                upper=float(lim.get('upper', 'nan')) if lim is not None else None)

    def chain(self, base, tip):
        out = []; at = tip
        while at != base:
            j = self.joints[at]; out.append((at, j)); at = j['parent']
        return out[::-1]

    def robot_from(self, link):
        M = np.eye(4); at = link; js = []
        while at in self.joints:
            js.append(self.joints[at]); at = self.joints[at]['parent']
        for j in js[::-1]: M = M @ j['origin']
        return M

    def moving(self, base, tip):
        return [j for _, j in self.chain(base, tip) if j['type'] != 'fixed']

    def fk(self, base, tip, q):
        """Frames of every chain link (robot frame) and its chain-frame index."""
        M = self.robot_from(base); k = 0
        frames = {base: (M, 0)}
        for link, j in self.chain(base, tip):
            M = M @ j['origin']
            if j['type'] != 'fixed':
                M = M @ T(R=axis_angle(j['axis'], q[k])); k += 1
            frames[link] = (M, k)
        return frames

    def capsules(self, base, tip, q, extra_links=()):
        fr = self.fk(base, tip, q); out = []
        prefix = base.split('_')[0] + '_'
        for link, (M, k) in fr.items():
            for (name, a, b, r) in self.links.get(link, []):
                short = link[len(prefix):]
                short = short[:-5] if short.endswith('_link') else short
                out.append(((name or short).replace('_', ' '), k, (M @ a)[:3], (M @ b)[:3], r))
        return out, fr

    def body(self, arm_bases):
        out = []
        for link, caps in self.links.items():
            at = link; inarm = link in arm_bases
            while at in self.joints:
                if self.joints[at]['parent'] in arm_bases: inarm = True
                at = self.joints[at]['parent']
            if inarm: continue
            M = self.robot_from(link)
            for (name, a, b, r) in caps:
                out.append((name or link, (M @ a)[:3], (M @ b)[:3], r))
        return out

def seg_dist(p1, q1, p2, q2):
    d1, d2, r = q1-p1, q2-p2, p1-p2
    a, e, f = d1@d1, d2@d2, d2@r
    if a <= 1e-12 and e <= 1e-12: return np.linalg.norm(r)
    if a <= 1e-12: s, t = 0.0, np.clip(f/e, 0, 1)
    else:
        c = d1@r
        if e <= 1e-12: t, s = 0.0, np.clip(-c/a, 0, 1)
        else:
            b = d1@d2; den = a*e-b*b
            s = np.clip((b*f-c*e)/den, 0, 1) if den > 1e-12 else 0.0
            t = (b*s+f)/e
            if t < 0: t, s = 0.0, np.clip(-c/a, 0, 1)
            elif t > 1: t, s = 1.0, np.clip((b-c)/a, 0, 1)
    return np.linalg.norm((p1+d1*s)-(p2+d2*t))

def cap_dist(A, B):
    return seg_dist(A[0], A[1], B[0], B[1]) - A[2] - B[2]

def self_clearance(u, arms, qs, home_qs=None, ignore=()):
    """arms: [(base, tip)], qs: joint lists (rad). Returns sorted [(d, a, b)] as the twin checks."""
    bases = [b for b, _ in arms]
    body = u.body(bases)
    res = []
    allcaps = []
    for k, ((base, tip), q) in enumerate(zip(arms, qs)):
        caps, _ = u.capsules(base, tip, q)
        # The twin also skips pairs touching at the home pose; without home_qs none are skipped.
        hcaps = u.capsules(base, tip, home_qs[k])[0] if home_qs else None
        side = base.split('_')[0]
        allcaps.append((side, caps))
        for i in range(len(caps)):
            for j in range(i+1, len(caps)):
                gap = abs(caps[i][1]-caps[j][1])
                touching_home = hcaps is not None and cap_dist(hcaps[i][2:], hcaps[j][2:]) < 0
                ignored = {caps[i][0], caps[j][0]} in [set(p) for p in ignore]
                if gap > 1 and not touching_home and not ignored:
                    res.append((cap_dist(caps[i][2:], caps[j][2:]), f"{side} {caps[i][0]}", f"{side} {caps[j][0]}"))
            if caps[i][1] == 0: continue
            for (bn, a, b, r) in body:
                res.append((cap_dist(caps[i][2:], (a, b, r)), f"{side} {caps[i][0]}", bn))
    if len(allcaps) == 2:
        for A in allcaps[0][1]:
            for B in allcaps[1][1]:
                res.append((cap_dist(A[2:], B[2:]), f"{allcaps[0][0]} {A[0]}", f"{allcaps[1][0]} {B[0]}"))
    return sorted(res, key=lambda x: x[0])

def report(u, arms, qs_deg):
    qs = [[math.radians(v) for v in q] for q in qs_deg]
    for (base, tip), q in zip(arms, qs):
        caps, fr = u.capsules(base, tip, q)
        M = fr[tip][0]
        z = M[:3,2]; x = M[:3,0]
        pts = [c[2] for c in caps] + [c[3] for c in caps]
        maxx = max(p[0] + c[4] for c in caps for p in (c[2], c[3]))
        print(f"  {base}: tcp {np.round(M[:3,3],3)} approach z {np.round(z,2)} closing x {np.round(x,2)}; max link x (with radius) {maxx:.3f}")
    sc = self_clearance(u, arms, qs)
    print("  nearest pairs:", [(round(d,3), a, b) for d, a, b in sc[:4]])

if __name__ == "__main__":
    u = Urdf(sys.argv[1])
    arms = [(sys.argv[2], sys.argv[3]), (sys.argv[4], sys.argv[5])]
    for label, l, r in [("home", sys.argv[6], sys.argv[7]), ("aside", sys.argv[8], sys.argv[9])]:
        print(label)
        report(u, arms, [eval(l), eval(r)])
