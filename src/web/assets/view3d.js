// The table in 3D with three.js (r111, Debian's libjs-three, served under
// /vendor/three/ when installed): the same scene as the top view, with the
// arms drawn through their link frames in 3D and moved by `joints` events.
// World metres, z up. Renders on demand only: when the data changed, the
// camera moved or the pane was resized, never in an idle loop.
"use strict";

window.view3dStats = { frames: 0 };

window.view3d = (function () {
  const T = window.THREE;
  if (!(T && T.WebGLRenderer && T.OrbitControls && T.CSS2DRenderer && T.CSS2DObject)) {
    const reason = "3D view unavailable: three.js is not installed (Debian: apt install libjs-three, or bash scripts/setup.sh).";
    return { available: false, reason, show: () => reason, hide() {}, setScene() {}, setLive() {} };
  }

  const CONTAINERS = ["glass", "cup", "bottle", "pot", "jug"];
  const ROBOT_HEAD_Z = 1.3;
  const UP = new T.Vector3(0, 0, 1), Y = new T.Vector3(0, 1, 0), X = new T.Vector3(1, 0, 0);

  let box = null, renderer = null, labelRenderer = null, camera = null, controls = null, scene = null;
  let staticGroup = null, armGroup = null, pathMesh = null, pathKey = "";
  let geo = null; // shared unit geometries
  const materials = new Map();
  let labels = []; // CSS2DObjects in placing priority
  let objectGroups = new Map(); // name → { group, o }
  let arms = new Map(); // side → { segments, joints, gripper, fingers }
  let robotHead = null;
  let data = { layout: null, sight: null, robotGaze: null, live: null };
  let visible = false, frame = 0, sceneDirty = true, liveDirty = true, cameraPlaced = false;
  let width = 0, height = 0;

  // --- shared geometry and materials ---------------------------------------

  function geometries() {
    const cylBase = new T.CylinderGeometry(1, 1, 1, 28, 1);
    cylBase.rotateX(Math.PI / 2);
    cylBase.translate(0, 0, 0.5); // axis z, standing on z = 0
    const boxBase = new T.BoxGeometry(1, 1, 1);
    boxBase.translate(0, 0, 0.5);
    return {
      cylBase,
      boxBase,
      box: new T.BoxGeometry(1, 1, 1),
      segment: new T.CylinderGeometry(1, 1, 1, 14, 1), // axis y, centred
      sphere: new T.SphereGeometry(1, 18, 12),
      disc: new T.CircleGeometry(1, 48),
      ring: new T.RingGeometry(0.985, 1, 64),
      fan: new T.CircleGeometry(1, 12, -Math.PI / 6, Math.PI / 3), // ±30° around +x
    };
  }

  function mat(color, options) {
    const key = color + JSON.stringify(options || {});
    let m = materials.get(key);
    if (!m) {
      m = new T.MeshLambertMaterial(Object.assign({ color }, options || {}));
      materials.set(key, m);
    }
    return m;
  }

  function flat(color, opacity) {
    return mat(color, { transparent: true, opacity, depthWrite: false, side: T.DoubleSide });
  }

  function mesh(geometry, material, parent) {
    const m = new T.Mesh(geometry, material);
    if (parent) parent.add(m);
    return m;
  }

  function label(text, className, parent, at) {
    const outer = document.createElement("div");
    outer.className = "label3d " + className;
    const inner = document.createElement("span");
    inner.textContent = text;
    outer.appendChild(inner);
    const object = new T.CSS2DObject(outer);
    object.position.set(at[0], at[1], at[2]);
    parent.add(object);
    labels.push(object);
    return object;
  }

  // A drink's colour; anything unknown gets a steady colour from its name.
  function liquid(name) {
    const known = { cola: 0x3b1e0e, "cola zero": 0x2a1508, fanta: 0xff8c1a, water: 0xbfe3ff, juice: 0xffa52e, "orange juice": 0xffa52e,
      "apple juice": 0xe0b040, wine: 0x7b1e2b, "red wine": 0x7b1e2b, "white wine": 0xf0e6a0, milk: 0xfafafa, coffee: 0x4b2e1e, tea: 0xb5651d, beer: 0xe8b02a };
    const key = String(name).toLowerCase();
    if (known[key] !== undefined) return known[key];
    let h = 0;
    for (const c of key) h = (h * 31 + c.charCodeAt(0)) % 360;
    return new T.Color().setHSL(h / 360, 0.55, 0.45).getHex();
  }

  // --- the static scene: table, robot body, objects, people, sight ---------------

  function clearStatic() {
    for (const l of labels) l.element.remove(); // nested ones are not told when their group goes
    staticGroup.remove.apply(staticGroup, staticGroup.children.slice());
    labels = [];
    objectGroups = new Map();
  }

  function rodBetween(a, b, radius, material, parent) {
    const from = new T.Vector3().fromArray(a), to = new T.Vector3().fromArray(b);
    const dir = to.clone().sub(from);
    const m = mesh(geo.segment, material, parent);
    placeRod(m, from, dir, radius);
    return m;
  }

  function placeRod(m, from, dir, radius) {
    const length = dir.length();
    m.visible = length > 1e-4;
    if (!m.visible) return;
    m.position.copy(from).addScaledVector(dir, 0.5);
    m.quaternion.setFromUnitVectors(Y, dir.clone().divideScalar(length));
    m.scale.set(radius, length, radius);
  }

  function centreOf(o) {
    const at = objectAt(o);
    const h = o.shape.type === "cylinder" ? o.shape.height : o.shape.size[2];
    return [at[0], at[1], at[2] + h / 2];
  }

  function objectAt(o) {
    const placed = data.live && data.live.placed && data.live.placed[o.name];
    return placed || o.position;
  }

  function headAt(layout) {
    const r = layout.robot;
    return r.head || [r.position[0], r.position[1], ROBOT_HEAD_Z];
  }

  function buildStatic() {
    clearStatic();
    const layout = data.layout;
    if (!layout) return;
    const [tx, ty] = layout.table.size;
    const th = layout.table.height;

    // Table: top and four legs.
    const wood = mat(0xd9c7a7), legWood = mat(0xa88c64);
    const top = mesh(geo.box, wood, staticGroup);
    top.position.set(0, 0, th - 0.015);
    top.scale.set(tx, ty, 0.03);
    for (const [ix, iy] of [[1, 1], [1, -1], [-1, 1], [-1, -1]]) {
      const leg = mesh(geo.boxBase, legWood, staticGroup);
      leg.position.set(ix * (tx / 2 - 0.06), iy * (ty / 2 - 0.06), 0);
      leg.scale.set(0.05, 0.05, th - 0.03);
    }

    // Robot body: pedestal, torso, head (turned to what it looks at).
    const r = layout.robot;
    const body = new T.Group();
    body.position.set(r.position[0], r.position[1], 0);
    body.rotation.z = ((r.yaw_deg || 0) * Math.PI) / 180;
    staticGroup.add(body);
    const pedestal = mesh(geo.boxBase, mat(0x6f747c), body);
    pedestal.position.set(-0.14, 0, 0);
    pedestal.scale.set(0.46, 0.5, 0.3);
    const torso = mesh(geo.boxBase, mat(0xa3a9b1), body);
    torso.position.set(-0.14, 0, 0.3);
    torso.scale.set(0.28, 0.34, 0.8);
    const head = headAt(layout);
    const neck = mesh(geo.cylBase, mat(0x6f747c), staticGroup);
    neck.position.set(head[0], head[1], 1.1);
    neck.scale.set(0.035, 0.035, head[2] - 1.1);
    robotHead = new T.Group();
    robotHead.position.fromArray(head);
    robotHead.rotation.z = body.rotation.z;
    staticGroup.add(robotHead);
    const skull = mesh(geo.box, mat(0x8d939b), robotHead);
    skull.scale.set(0.14, 0.22, 0.12);
    const visor = mesh(geo.box, mat(0x22262b), robotHead);
    visor.position.set(0.072, 0, 0.01);
    visor.scale.set(0.01, 0.17, 0.045);
    label(r.name.replace(/_/g, " "), "robot", staticGroup, [head[0], head[1], head[2] + 0.17]);

    // Objects: shape on its base, contents as a tint inside, held ones glow.
    const occluders = data.sight ? data.sight.occluders || [] : [];
    for (const o of layout.objects) {
      const g = new T.Group();
      g.position.fromArray(o.position);
      g.rotation.z = ((o.yaw_deg || 0) * Math.PI) / 180;
      staticGroup.add(g);
      const container = CONTAINERS.includes(o.kind);
      const emissive = occluders.includes(o.name) ? 0x8a0000 : o.held_by ? 0x7a3a00 : 0x000000;
      const look = container
        ? { transparent: true, opacity: 0.45, depthWrite: false, emissive }
        : { emissive };
      const colour = container ? 0x8fc1ee : o.kind === "box" ? 0xb08968 : 0x9a9aa0;
      const h = o.shape.type === "cylinder" ? o.shape.height : o.shape.size[2];
      if (o.shape.type === "cylinder") {
        const solid = mesh(geo.cylBase, mat(colour, look), g);
        solid.scale.set(o.shape.radius, o.shape.radius, o.shape.height);
        solid.renderOrder = 1;
        if (o.contains) {
          const fill = mesh(geo.cylBase, mat(liquid(o.contains)), g);
          fill.position.z = 0.004;
          fill.scale.set(o.shape.radius * 0.86, o.shape.radius * 0.86, o.shape.height * 0.6);
        }
      } else {
        const solid = mesh(geo.boxBase, mat(colour, look), g);
        solid.scale.set(o.shape.size[0], o.shape.size[1], o.shape.size[2]);
      }
      // The label above the top, not turned with the object.
      const tag = label(o.name.replace(/_/g, " "), "object" + (o.held_by ? " held" : ""), g, [0, 0, h + 0.035]);
      tag.userData.object = true;
      objectGroups.set(o.name, { group: g, o });
    }

    // People: chair, torso, head at the eyes, reach circles, gaze fan.
    for (const p of layout.persons) {
      const colour = p.busy ? 0xc0392b : 0x2f6fde;
      const yaw = (p.yaw_deg * Math.PI) / 180;
      const g = new T.Group();
      g.position.set(p.position[0], p.position[1], 0);
      g.rotation.z = yaw;
      staticGroup.add(g);
      const chair = mat(0x8c7b68);
      const seat = mesh(geo.boxBase, chair, g);
      seat.position.set(-0.04, 0, 0.42);
      seat.scale.set(0.42, 0.42, 0.04);
      const back = mesh(geo.boxBase, chair, g);
      back.position.set(-0.27, 0, 0.42);
      back.scale.set(0.04, 0.42, 0.45);
      const eyes = p.eyes;
      const torso = mesh(geo.cylBase, mat(colour), g);
      torso.position.set(-0.05, 0, 0.46);
      torso.scale.set(0.11, 0.17, Math.max(0.2, eyes[2] - 0.13 - 0.46));
      const head = mesh(geo.sphere, mat(0xf0c8a0), staticGroup);
      head.position.set(eyes[0] - 0.05 * Math.cos(yaw), eyes[1] - 0.05 * Math.sin(yaw), eyes[2]);
      head.scale.setScalar(0.095);
      const nose = mesh(geo.sphere, mat(colour), staticGroup);
      nose.position.set(eyes[0] + 0.045 * Math.cos(yaw), eyes[1] + 0.045 * Math.sin(yaw), eyes[2]);
      nose.scale.setScalar(0.022);
      for (const s of p.shoulders) {
        const disc = mesh(geo.disc, flat(0x2f6fde, 0.07), staticGroup);
        disc.position.set(s[0], s[1], th + 0.002);
        disc.scale.setScalar(p.reach);
        const ring = mesh(geo.ring, flat(0x2f6fde, 0.45), staticGroup);
        ring.position.set(s[0], s[1], th + 0.003);
        ring.scale.setScalar(p.reach);
      }
      const fan = mesh(geo.fan, flat(0x2f6fde, 0.16), staticGroup);
      fan.position.fromArray(eyes);
      fan.rotation.z = yaw;
      fan.scale.setScalar(0.55);
      const state = p.busy ? "busy" : "idle";
      const holding = p.holding && p.holding.length ? `, holds ${p.holding.join(", ")}` : "";
      label(`${p.name} (${state}${holding})`, "person" + (p.busy ? " busy" : ""), staticGroup, [eyes[0], eyes[1], eyes[2] + 0.2]);
    }

    // The last sight check: eyes to the object's middle, red when blocked.
    const sight = data.sight;
    const seer = sight && layout.persons.find((q) => q.name === sight.person);
    const seen = sight && layout.objects.find((q) => q.name === sight.object);
    if (seer && seen) {
      const rod = rodBetween(seer.eyes, centreOf(seen), 0.004, mat(sight.blocked ? 0xc0392b : 0x1f8f4e, { emissive: sight.blocked ? 0x600000 : 0x003010 }), staticGroup);
      rod.name = "sight";
    }

    // Where the robot looks: a dotted line from its head; the head turns there.
    const looked = data.robotGaze && (layout.persons.find((q) => q.name === data.robotGaze) || layout.objects.find((q) => q.name === data.robotGaze));
    if (looked) {
      const to = new T.Vector3().fromArray(looked.eyes || centreOf(looked));
      const from = new T.Vector3().fromArray(head);
      const dir = to.clone().sub(from);
      const n = Math.floor(dir.length() / 0.045);
      const dot = mat(0x555a60);
      for (let i = 2; i < n; i++) {
        const d = mesh(geo.sphere, dot, staticGroup);
        d.position.copy(from).addScaledVector(dir, i / n);
        d.scale.setScalar(0.007);
      }
      robotHead.rotation.z = Math.atan2(dir.y, dir.x);
    }
  }

  // --- the moving parts: arms, grippers, carried objects, the planned path ---------

  function armParts(side) {
    let a = arms.get(side);
    if (!a) {
      a = { segments: [], joints: [], gripper: new T.Group(), fingers: [] };
      const palm = mesh(geo.box, mat(0x3b3f45), a.gripper);
      palm.position.z = -0.085;
      palm.scale.set(0.1, 0.05, 0.035);
      for (let i = 0; i < 2; i++) {
        const f = mesh(geo.box, mat(0x3b3f45), a.gripper);
        f.scale.set(0.016, 0.022, 0.09);
        f.position.z = -0.03;
        a.fingers.push(f);
      }
      armGroup.add(a.gripper);
      arms.set(side, a);
    }
    return a;
  }

  function gripperOf(arm, frames, layout) {
    const live = data.live;
    if (live && live.grippers && typeof live.grippers[arm.side] === "number") return live.grippers[arm.side];
    if (typeof arm.gripper === "number") return arm.gripper;
    // The scene does not say: closed when an object the robot holds is at this hand.
    const hand = frames[frames.length - 1];
    for (const o of layout.objects) {
      if (o.held_by !== layout.robot.name) continue;
      const c = centreOf(o);
      if (Math.hypot(c[0] - hand[0], c[1] - hand[1], c[2] - hand[2]) < 0.15) return 1;
    }
    return 0;
  }

  function updateLive() {
    const layout = data.layout;
    if (!layout) return;
    const live = data.live;
    const armMetal = mat(0x9199a3), jointMetal = mat(0x596068);
    const seen = new Set();
    for (const arm of layout.robot.arms) {
      const frames = (live && live.arms && live.arms[arm.side]) || arm.points3;
      const parts = armParts(arm.side);
      seen.add(arm.side);
      if (!frames || frames.length < 2) {
        for (const m of parts.segments.concat(parts.joints)) m.visible = false;
        parts.gripper.visible = false;
        continue;
      }
      const pts = frames.map((f) => new T.Vector3(f[0], f[1], f[2]));
      const n = pts.length;
      const hand = pts[n - 1];
      // Approach direction: into the hand along the last link that has a length.
      let approach = new T.Vector3(1, 0, 0);
      for (let i = n - 2; i >= 0; i--) {
        const d = hand.clone().sub(pts[i]);
        if (d.length() > 1e-3) { approach = d.normalize(); break; }
      }
      const palm = hand.clone().addScaledVector(approach, -0.085);
      while (parts.segments.length < n - 1) parts.segments.push(mesh(geo.segment, armMetal, armGroup));
      while (parts.joints.length < n - 1) parts.joints.push(mesh(geo.sphere, jointMetal, armGroup));
      for (let i = 0; i < parts.segments.length; i++) {
        const m = parts.segments[i];
        if (i >= n - 1) { m.visible = false; continue; }
        const from = pts[i];
        let to = pts[i + 1];
        if (i === n - 2 && to.distanceTo(from) > 0.1) to = palm; // the hand ends at the palm; fingers go on
        placeRod(m, from, to.clone().sub(from), i === 0 ? 0.045 : i >= n - 3 ? 0.027 : 0.032);
      }
      for (let i = 0; i < parts.joints.length; i++) {
        const m = parts.joints[i];
        const dup = i > 0 && i < n - 1 && pts[i].distanceTo(pts[i - 1]) < 1e-3;
        m.visible = i < n - 1 && !dup;
        if (!m.visible) continue;
        m.position.copy(pts[i]);
        m.scale.setScalar(i === 0 ? 0.055 : i >= n - 3 ? 0.03 : 0.037);
      }
      // The gripper: two fingers across the approach, apart when open.
      let across = new T.Vector3().crossVectors(approach, UP);
      if (across.length() < 0.2) across = new T.Vector3().crossVectors(approach, X);
      across.normalize();
      const third = new T.Vector3().crossVectors(approach, across).normalize();
      const g = parts.gripper;
      g.visible = true;
      g.position.copy(hand);
      g.quaternion.setFromRotationMatrix(new T.Matrix4().makeBasis(across, third, approach));
      const closed = Math.min(1, Math.max(0, gripperOf(arm, frames, layout)));
      const half = 0.056 * (1 - closed) + 0.036 * closed;
      parts.fingers[0].position.x = half;
      parts.fingers[1].position.x = -half;
    }
    for (const [side, parts] of arms) {
      if (seen.has(side)) continue;
      for (const m of parts.segments.concat(parts.joints)) m.visible = false;
      parts.gripper.visible = false;
    }

    // Carried (and just placed) objects at their live positions.
    for (const { group, o } of objectGroups.values()) group.position.fromArray(objectAt(o));

    // The planned path of the moving hand.
    const path = live && live.path && live.path.length > 1 ? live.path : null;
    const key = path ? path.length + ":" + path[0] + ":" + path[path.length >> 1] + ":" + path[path.length - 1] : "";
    if (key !== pathKey) {
      pathKey = key;
      if (pathMesh) {
        armGroup.remove(pathMesh);
        pathMesh.geometry.dispose();
        pathMesh = null;
      }
      if (path) {
        const curve = new T.CatmullRomCurve3(path.map((p) => new T.Vector3(p[0], p[1], p[2])));
        const tube = new T.TubeGeometry(curve, Math.min(240, path.length * 3), 0.005, 6, false);
        pathMesh = mesh(tube, mat(0xe07b00, { emissive: 0x803000 }), armGroup);
      }
    }
  }

  // --- camera, size, rendering -------------------------------------------------

  function placeCamera() {
    const layout = data.layout;
    const th = layout.table.height;
    const points = [[layout.table.size[0] / 2, layout.table.size[1] / 2], [-layout.table.size[0] / 2, -layout.table.size[1] / 2], layout.robot.position];
    for (const p of layout.persons) points.push(p.position);
    const radius = Math.max(...points.map((p) => Math.hypot(p[0], p[1]))) + 0.3;
    const half = Math.min(camera.fov / 2, (Math.atan(Math.tan((camera.fov * Math.PI) / 360) * camera.aspect) * 180) / Math.PI);
    const distance = (radius / Math.sin((half * Math.PI) / 180)) * 1.0;
    // Behind and above the robot, a little to its left, looking across the table.
    const r = layout.robot.position;
    const back = new T.Vector3(r[0], r[1], 0).normalize();
    if (back.lengthSq() < 0.5) back.set(-1, 0, 0);
    const dir = new T.Vector3(back.x * 0.6 - back.y * 0.3, back.y * 0.6 + back.x * 0.3, 0.75).normalize();
    controls.target.set(-back.x * 0.05, -back.y * 0.05, th);
    camera.position.copy(controls.target).addScaledVector(dir, distance);
    controls.update();
    controls.saveState();
    cameraPlaced = true;
  }

  function resize() {
    const w = Math.max(1, box.clientWidth), h = Math.max(1, box.clientHeight);
    if (w === width && h === height) return;
    width = w;
    height = h;
    renderer.setSize(w, h, false); // the canvas fills the pane by CSS between frames
    labelRenderer.setSize(w, h);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
  }

  // Object labels that would cover another label move up or down a line.
  function declutter() {
    const placed = [];
    const v = new T.Vector3();
    const near = (l) => (v.setFromMatrixPosition(l.matrixWorld), v.distanceToSquared(camera.position));
    const order = labels.filter((l) => !l.userData.object).concat(labels.filter((l) => l.userData.object).sort((a, b) => near(a) - near(b)));
    for (const l of order) {
      const inner = l.element.firstChild;
      if (l.element.style.display === "none") continue;
      if (!l.userData.w) { l.userData.w = inner.offsetWidth; l.userData.h = inner.offsetHeight; }
      const w = l.userData.w, h = l.userData.h;
      if (!w) continue;
      v.setFromMatrixPosition(l.matrixWorld).project(camera);
      const x = ((v.x + 1) / 2) * width - w / 2, y = ((1 - v.y) / 2) * height - h / 2;
      let best = 0, bestCost = Infinity;
      for (const dy of [0, -(h + 1), h + 1, -2 * (h + 1), 2 * (h + 1), -3 * (h + 1)]) {
        let cost = 0;
        for (const r of placed) {
          const ox = Math.min(x + w, r[0] + r[2]) - Math.max(x, r[0]);
          const oy = Math.min(y + dy + h, r[1] + r[3]) - Math.max(y + dy, r[1]);
          if (ox > 0 && oy > 0) cost += ox * oy;
        }
        if (cost < bestCost) { best = dy; bestCost = cost; }
        if (!cost) break;
      }
      inner.style.transform = best ? `translateY(${best}px)` : "";
      placed.push([x, y + best, w, h]);
    }
  }

  function render() {
    frame = 0;
    if (!visible) return;
    resize();
    if (sceneDirty && data.layout) {
      buildStatic();
      if (!cameraPlaced) placeCamera();
      sceneDirty = false;
      liveDirty = true;
    }
    if (liveDirty) {
      updateLive();
      liveDirty = false;
    }
    renderer.render(scene, camera);
    labelRenderer.render(scene, camera);
    declutter();
    window.view3dStats.frames += 1;
    if (box.dataset.ready !== "true") box.dataset.ready = "true";
  }

  function invalidate() {
    if (visible && !frame) frame = requestAnimationFrame(render);
  }

  function init() {
    box = document.getElementById("view3d");
    try {
      renderer = new T.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    } catch (error) {
      renderer = null;
      return "3D view unavailable: WebGL could not be started in this browser.";
    }
    renderer.domElement.id = "view3d-canvas";
    renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    renderer.setClearColor(0xf3f3f0);
    box.appendChild(renderer.domElement);
    labelRenderer = new T.CSS2DRenderer();
    labelRenderer.domElement.className = "labels";
    box.appendChild(labelRenderer.domElement);

    scene = new T.Scene();
    camera = new T.PerspectiveCamera(35, 1, 0.05, 50);
    camera.up.set(0, 0, 1); // before the controls: they orbit about camera.up
    scene.add(new T.HemisphereLight(0xffffff, 0x8a8070, 0.75));
    const sun = new T.DirectionalLight(0xffffff, 0.55);
    sun.position.set(-1.5, -1, 3);
    scene.add(sun);
    const grid = new T.GridHelper(16, 64, 0xcfcfc8, 0xe2e2dc);
    grid.rotation.x = Math.PI / 2;
    scene.add(grid);
    geo = geometries();
    staticGroup = new T.Group();
    armGroup = new T.Group();
    scene.add(staticGroup, armGroup);

    controls = new T.OrbitControls(camera, renderer.domElement);
    controls.enableKeys = false; // arrow keys stay with the page
    controls.screenSpacePanning = true;
    controls.minDistance = 0.4;
    controls.maxDistance = 10;
    controls.maxPolarAngle = Math.PI / 2 - 0.03;
    controls.addEventListener("change", invalidate);
    renderer.domElement.addEventListener("dblclick", () => controls.reset());
    renderer.domElement.title = "drag: turn · right-drag: pan · wheel: zoom · double-click: back to the start";
    if (window.ResizeObserver) new ResizeObserver(invalidate).observe(box);
    else window.addEventListener("resize", invalidate);
    return null;
  }

  return {
    available: true,
    reason: "",
    /// Shows the 3D view; returns why not when WebGL cannot be started.
    show() {
      if (!renderer) {
        const why = init();
        if (why) return why;
      }
      visible = true;
      invalidate();
      return null;
    },
    hide() {
      visible = false;
      if (frame) cancelAnimationFrame(frame);
      frame = 0;
    },
    /// The scene from /api/scene, the last sight check, the robot's gaze target, the live motion.
    setScene(layout, sight, robotGaze, live) {
      data = { layout, sight, robotGaze, live: live || null };
      sceneDirty = true;
      invalidate();
    },
    /// A new joints state (or null): only the moving parts change.
    setLive(live) {
      data.live = live || null;
      liveDirty = true;
      invalidate();
    },
  };
})();
