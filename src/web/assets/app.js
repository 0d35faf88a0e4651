// The live page: the table from above (GET /api/scene), the conversation
// (GET /api/events, SSE), and controls that go through the daemon's API.
"use strict";

const token = new URLSearchParams(location.search).get("token");
const headers = { "Content-Type": "application/json" };
if (token) headers.Authorization = "Bearer " + token;
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

// What tests and measurements read: the last seq shown and per-event latency.
window.attentive = { lastSeq: 0, shown: 0, latencyMs: [] };

let layout = null;
let sight = null; // { person, object, blocked, occluders: [] }
let robotGaze = null; // whom or what the robot's head looks at: the last speaker, or a gaze action's target
let toolsBox = null;

// --- the API -------------------------------------------------------------

async function api(method, path, body) {
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let answer = null;
  try { answer = await response.json(); } catch (_) { /* empty body */ }
  if (!response.ok) {
    throw new Error((answer && answer.error) || `${method} ${path}: HTTP ${response.status}`);
  }
  return answer;
}

async function guarded(errorId, action) {
  $(errorId).textContent = "";
  try { await action(); } catch (error) { $(errorId).textContent = error.message; }
}

// --- the table from above --------------------------------------------------
// World metres: x away from the robot, y to its left. On screen the robot is
// at the bottom and its left is on the left: screen = (-y, -x).

const sx = (p) => -p[1];
const sy = (p) => -p[0];

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function label(parent, text) {
  const t = el("text", {}, parent);
  t.textContent = text;
  return t;
}

// The robot in motion, from `joints` events (not logged, no seq): the arms'
// link frames by side, the grippers, where carried objects are now, the
// moving hand's planned path. Null when the scene from /api/scene says it all.
let live = null;
let liveKey = "";
let liveFrame = 0;

const armPoints = (arm) => (live && live.arms[arm.side]) || arm.points;
const objectAt = (o) => (live && live.placed[o.name]) || o.position;
const drawnAt = new Map(); // object name → where drawTable drew it

// Labels go to the first free spot around what they name: below, above,
// right, left, then the same further out. Free: overlapping no placed label
// and no shape, and inside the picture. If no spot is, the least crowded one,
// with a thin leader line. Returns the labels' extent.
function placeLabels(items, shapes, view) {
  const overlap = (a, b) => Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) * Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const outside = (r) => (r[2] - r[0]) * (r[3] - r[1]) - overlap(r, view);
  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
  const placed = [];
  for (const item of items) {
    const t = item.text;
    t.setAttribute("x", 0);
    t.setAttribute("y", 0);
    let b = null;
    try { b = t.getBBox(); } catch (_) { /* not displayed */ }
    if (!b || !b.width) b = { x: 0, y: -0.03, width: 0.019 * t.textContent.length, height: 0.042 }; // not displayed: an estimate
    const [x0, y0, x1, y1] = item.anchor;
    const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2, w = b.width, h = b.height;
    const spots = [];
    for (let ring = 0; ring < 4; ring++) {
      const d = 0.01 + ring * 0.045;
      spots.push([cx - w / 2, y1 + d], [cx - w / 2, y0 - d - h], [x1 + d, cy - h / 2], [x0 - d - w, cy - h / 2]);
    }
    const rects = spots.map(([l, top]) => [l, top, l + w, top + h]);
    const onLabels = (r) => placed.reduce((sum, q) => sum + overlap(r, q), 0);
    const onShapes = (r) => shapes.reduce((sum, q) => sum + (q === item.shape ? 0 : overlap(r, q)), 0);
    let pick = rects.findIndex((r) => !outside(r) && !onLabels(r) && !onShapes(r));
    if (pick < 0) pick = rects.findIndex((r) => !outside(r) && !onLabels(r));
    let leader = pick >= 4;
    if (pick < 0) {
      const cost = rects.map((r) => 10 * onLabels(r) + onShapes(r) + 2 * outside(r));
      pick = cost.indexOf(Math.min(...cost));
      leader = true;
    }
    const r = rects[pick];
    t.setAttribute("x", r[0] - b.x);
    t.setAttribute("y", r[1] - b.y);
    const tx = clamp(cx, r[0], r[2]), ty = clamp(cy, r[1], r[3]);
    const fx = clamp(tx, x0, x1), fy = clamp(ty, y0, y1);
    if (leader && Math.hypot(tx - fx, ty - fy) > 0.012) {
      item.group.insertBefore(el("line", { class: "leader", x1: fx, y1: fy, x2: tx, y2: ty }), t);
    }
    placed.push(r);
  }
  return placed.reduce((e, r) => [Math.min(e[0], r[0]), Math.min(e[1], r[1]), Math.max(e[2], r[2]), Math.max(e[3], r[3])], view);
}

function drawTable() {
  const svg = $("table");
  if (!layout) return;
  svg.replaceChildren();
  const [tx, ty] = layout.table.size;
  // Bounds: table, people, robot; grown below to hold the labels.
  const xs = [tx / 2, -tx / 2, layout.robot.position[0]];
  const ys = [ty / 2, -ty / 2, layout.robot.position[1]];
  for (const p of layout.persons) { xs.push(p.position[0]); ys.push(p.position[1]); }
  const m = 0.35;
  const view = [-Math.max(...ys) - m, -Math.max(...xs) - m, -Math.min(...ys) + m, -Math.min(...xs) + m];
  svg.setAttribute("viewBox", `${view[0]} ${view[1]} ${view[2] - view[0]} ${view[3] - view[1]}`);
  el("rect", { class: "tabletop", x: -ty / 2, y: -tx / 2, width: ty, height: tx, "data-table": layout.name }, svg);
  const labels = []; // { text, anchor: [x0, y0, x1, y1], shape, group }
  const shapes = []; // what labels should not cover

  // The robot: base and both arms projected from the joint state.
  const robot = el("g", { class: "robot", "data-robot": layout.robot.name }, svg);
  const rx = sx(layout.robot.position), ry = sy(layout.robot.position);
  el("rect", { class: "robot-base", x: rx - 0.12, y: ry - 0.06, width: 0.24, height: 0.12, rx: 0.02 }, robot);
  shapes.push([rx - 0.12, ry - 0.06, rx + 0.12, ry + 0.06]);
  for (const arm of layout.robot.arms) {
    el("polyline", { class: "arm", "data-arm": arm.side, points: arm.points.map((p) => `${sx(p)},${sy(p)}`).join(" ") }, robot);
  }
  labels.push({ text: label(robot, layout.robot.name.replace(/_/g, " ")), anchor: shapes[0], shape: shapes[0], group: robot });
  const looked = robotGaze && (layout.persons.find((p) => p.name === robotGaze) || layout.objects.find((o) => o.name === robotGaze));
  if (looked) {
    const at = looked.eyes || looked.position;
    el("line", { class: "robot-gaze", "data-robot-gaze": robotGaze, x1: rx, y1: ry, x2: sx(at), y2: sy(at) }, robot);
  }

  // People: reach from each shoulder, gaze cone, body, name and state.
  const personLabels = [];
  for (const p of layout.persons) {
    const g = el("g", { class: "person" + (p.busy ? " busy" : ""), "data-person": p.name }, svg);
    for (const s of p.shoulders) el("circle", { class: "reach", cx: sx(s), cy: sy(s), r: p.reach }, g);
    const yaw = (p.yaw_deg * Math.PI) / 180, half = (30 * Math.PI) / 180, len = 0.55;
    const eye = [p.eyes[0], p.eyes[1]];
    const a = [eye[0] + len * Math.cos(yaw - half), eye[1] + len * Math.sin(yaw - half)];
    const b = [eye[0] + len * Math.cos(yaw + half), eye[1] + len * Math.sin(yaw + half)];
    el("polygon", { class: "gaze", points: `${sx(eye)},${sy(eye)} ${sx(a)},${sy(a)} ${sx(b)},${sy(b)}` }, g);
    const cx = sx(p.position), cy = sy(p.position);
    el("circle", { class: "body", cx, cy, r: 0.07 }, g);
    const body = [cx - 0.07, cy - 0.07, cx + 0.07, cy + 0.07];
    shapes.push(body);
    const state = p.busy ? "busy" : "idle";
    const holding = p.holding.length ? `, holds ${p.holding.join(", ")}` : "";
    personLabels.push({ text: label(g, `${p.name} (${state}${holding})`), anchor: body, shape: body, group: g });
  }

  // Objects: shape from above, name, contents, holder.
  const objectLabels = [];
  drawnAt.clear();
  for (const o of layout.objects) {
    const classes = ["object", o.kind === "box" ? "box" : (["glass", "cup", "bottle", "pot", "jug"].includes(o.kind) ? "container" : "other")];
    if (o.held_by) classes.push("held");
    if (sight && sight.occluders.includes(o.name)) classes.push("occluder");
    const g = el("g", { "data-object": o.name }, svg);
    const at = objectAt(o);
    drawnAt.set(o.name, at);
    const cx = sx(at), cy = sy(at);
    let ex, ey; // half extent on screen
    if (o.shape.type === "cylinder") {
      el("circle", { class: classes.join(" "), cx, cy, r: o.shape.radius }, g);
      ex = ey = o.shape.radius;
    } else {
      const [w, d] = [o.shape.size[1], o.shape.size[0]];
      el("rect", { class: classes.join(" "), x: cx - w / 2, y: cy - d / 2, width: w, height: d, transform: `rotate(${-o.yaw_deg} ${cx} ${cy})` }, g);
      const c = Math.abs(Math.cos((o.yaw_deg * Math.PI) / 180)), s = Math.abs(Math.sin((o.yaw_deg * Math.PI) / 180));
      ex = (w * c + d * s) / 2;
      ey = (w * s + d * c) / 2;
    }
    const shape = [cx - ex, cy - ey, cx + ex, cy + ey];
    shapes.push(shape);
    const extra = [o.contains, o.held_by ? "held by " + o.held_by : null].filter(Boolean).join(", ");
    objectLabels.push({ text: label(g, o.name.replace(/_/g, " ") + (extra ? ` (${extra})` : "")), anchor: shape, shape, group: g });
  }

  // The last sight check: eyes to object, red when blocked.
  if (sight) {
    const p = layout.persons.find((q) => q.name === sight.person);
    const o = layout.objects.find((q) => q.name === sight.object);
    if (p && o) {
      el("line", { class: "sight" + (sight.blocked ? " blocked" : ""), "data-sight": `${p.name}->${o.name}`, x1: sx(p.eyes), y1: sy(p.eyes), x2: sx(objectAt(o)), y2: sy(objectAt(o)) }, svg);
    }
  }

  // People first, then the robot, then objects; the picture grows to hold them all.
  const e = placeLabels(personLabels.concat(labels, objectLabels), shapes, view);
  const pad = 0.015;
  svg.setAttribute("viewBox", `${e[0] - pad} ${e[1] - pad} ${e[2] - e[0] + 2 * pad} ${e[3] - e[1] + 2 * pad}`);
  applyLiveTop();

  const busy = $("busy-person"), object = $("busy-object");
  if (!busy.options.length) {
    for (const p of layout.persons) busy.add(new Option(p.name, p.name));
    for (const o of layout.objects) object.add(new Option(o.name, o.name));
  }
  $("scene-name").textContent = "scene " + layout.name;
  if (window.view3d) window.view3d.setScene(layout, sight, robotGaze, live);
}

// The moving parts of the top view from `live`: arms, carried objects, the path.
function applyLiveTop() {
  liveFrame = 0;
  const svg = $("table");
  if (!layout) return;
  for (const arm of layout.robot.arms) {
    const line = svg.querySelector(`polyline.arm[data-arm="${arm.side}"]`);
    if (line) line.setAttribute("points", armPoints(arm).map((p) => `${sx(p)},${sy(p)}`).join(" "));
  }
  for (const g of svg.querySelectorAll("[data-object]")) {
    const o = layout.objects.find((q) => q.name === g.dataset.object);
    const from = drawnAt.get(g.dataset.object);
    if (!o || !from) continue;
    const at = objectAt(o);
    if (at !== from) g.setAttribute("transform", `translate(${sx(at) - sx(from)} ${sy(at) - sy(from)})`);
    else g.removeAttribute("transform");
  }
  let path = svg.querySelector("polyline.path");
  if (live && live.path) {
    if (!path) path = el("polyline", { class: "path" }, svg.querySelector(".robot"));
    path.setAttribute("points", live.path.map((p) => `${sx(p)},${sy(p)}`).join(" "));
  } else if (path) {
    path.remove();
  }
}

// A `joints` event: both views follow at the next animation frame, at most
// once per frame, without asking for the scene again.
function onJoints(event) {
  const key = JSON.stringify([event.arms, event.grippers, event.carried, event.moving, event.path]);
  if (key === liveKey) return;
  liveKey = key;
  const placed = Object.assign({}, live && live.placed);
  if (event.carried && event.carried.object && event.carried.position) placed[event.carried.object] = event.carried.position;
  const path = event.moving && event.path && event.path.length > 1 ? event.path : null;
  const stopped = live && live.moving && !event.moving;
  live = { arms: {}, grippers: event.grippers || {}, carried: event.carried || null, placed, path, moving: !!event.moving, at: Date.now() };
  for (const [side, arm] of Object.entries(event.arms || {})) if (arm.frames && arm.frames.length) live.arms[side] = arm.frames;
  if (window.view3d) window.view3d.setLive(live);
  if (stopped) {
    // The motion is over: labels are placed again where things are now.
    cancelAnimationFrame(liveFrame);
    liveFrame = requestAnimationFrame(() => { liveFrame = 0; drawTable(); });
    return;
  }
  if (!liveFrame) liveFrame = requestAnimationFrame(applyLiveTop);
}

// A fresh scene replaces the live state unless a motion is still going on.
function setLayout(next) {
  layout = next;
  if (live && (!live.moving || Date.now() - live.at > 2000)) {
    live = null;
    liveKey = "";
  }
  drawTable();
}

let refreshTimer = null;
function refreshLayout() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(async () => {
    try { setLayout(await api("GET", "/api/scene")); } catch (_) { /* shown by the link state */ }
  }, 30);
}

// --- top view or 3D view ------------------------------------------------------

function note3d(text) {
  $("view3d-note").textContent = text;
  $("view-3d").disabled = true;
}

function setView(which) {
  const pane = $("table-pane");
  const v3 = window.view3d;
  if (which === "3d") {
    const missing = !v3 ? "3D view unavailable: view3d.js did not load." : !v3.available ? v3.reason : null;
    if (missing) { note3d(missing); return; }
    pane.classList.add("view-3d"); // shown first, so that it has a size
    const failed = v3.show();
    if (failed) {
      pane.classList.remove("view-3d");
      note3d(failed);
      return;
    }
  } else {
    pane.classList.remove("view-3d");
    if (v3) v3.hide();
    drawTable(); // labels are measured while the picture is displayed
  }
  $("view-top").setAttribute("aria-pressed", String(which !== "3d"));
  $("view-3d").setAttribute("aria-pressed", String(which === "3d"));
}

if (!window.view3d || !window.view3d.available) {
  note3d(window.view3d ? window.view3d.reason : "3D view unavailable: view3d.js did not load.");
}
$("view-top").addEventListener("click", () => setView("top"));
$("view-3d").addEventListener("click", () => setView("3d"));

// The sight line of a check_hindering_reasons result, read from its sentences.
function readSight(event) {
  if (!layout || event.name !== "check_hindering_reasons" || !event.ok) return;
  const text = event.result;
  const person = layout.persons.find((p) => text.startsWith(p.name));
  const object = layout.objects.find((o) => new RegExp(`\\b${o.name}\\b`).test(text));
  if (!person || !object) return;
  const hidden = text.match(/hidden behind ([^.]*)\./);
  sight = {
    person: person.name,
    object: object.name,
    blocked: /cannot see/.test(text),
    occluders: hidden ? hidden[1].split(/ and |, /).map((s) => s.trim()) : [],
  };
  drawTable();
}

// --- the conversation ------------------------------------------------------

function line(type, attrs, text) {
  const li = document.createElement("li");
  li.dataset.type = type;
  for (const [k, v] of Object.entries(attrs || {})) li.dataset[k] = v;
  if (text !== undefined) li.textContent = text;
  $("conversation").appendChild(li);
  return li;
}

/// "give red_glass → Felix": an act and its slots in a few words.
function readingSummary(event) {
  const slots = event.slots || {};
  const thing = (o) => (o && o.candidates && o.candidates.length ? o.candidates.join(" or ") : o ? `"${o.said}" (not here)` : "");
  const parts = [event.act.replace(/_/g, " ")];
  if (slots.object) parts.push(thing(slots.object));
  if (slots.source) parts.push(`from ${thing(slots.source)}`);
  if (slots.target) parts.push(`into ${thing(slots.target)}`);
  if (slots.recipient && slots.recipient.name) parts.push(`→ ${slots.recipient.name}`);
  if (slots.person && slots.person.name) parts.push(`(${slots.person.name})`);
  if (slots.items && slots.items.length) parts.push(slots.items.map(thing).join(", "));
  if (slots.unknown_items && slots.unknown_items.length) parts.push(`not here: ${slots.unknown_items.join(", ")}`);
  for (const key of ["category", "filter", "ability", "fill", "liquid", "count"]) if (slots[key]) parts.push(`${key}: ${slots[key].replace(/_/g, " ")}`);
  if (slots.only) parts.push("only");
  if (slots.negated) parts.push("(cannot)");
  return parts.join(" ");
}

/// Buttons under the last spoken turn: "it was Felix" for each other person.
function offerCorrection(li, event) {
  for (const old of document.querySelectorAll("#conversation .correct-speaker")) old.remove();
  if (!layout) return;
  const box = document.createElement("span");
  box.className = "correct-speaker";
  for (const p of layout.persons) {
    if (p.name === event.speaker || p.name === event.listener) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.person = p.name;
    button.textContent = `it was ${p.name}`;
    button.addEventListener("click", () =>
      guarded("turn-error", async () => {
        await api("POST", "/api/speaker", { speaker: p.name });
        box.remove();
      }));
    box.appendChild(button);
  }
  li.appendChild(box);
}

function setStatus(status) {
  const pill = $("status");
  pill.dataset.status = status;
  pill.textContent = status;
}

function show(event) {
  if (event.type === "joints") { onJoints(event); return; } // motion, not conversation
  const conv = $("conversation");
  const stick = conv.scrollTop + conv.clientHeight >= conv.scrollHeight - 40;
  switch (event.type) {
    case "turn": {
      toolsBox = null;
      const li = line("turn", { seq: event.seq });
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = `${event.speaker} → ${event.listener}: `;
      li.append(who, document.createTextNode(event.text));
      if (event.speaker_by) {
        // Spoken turns: how the speaker was found, and one click to correct it.
        li.dataset.speakerBy = event.speaker_by;
        const by = document.createElement("span");
        by.className = "speaker-by";
        by.textContent = ` (${event.speaker === "unknown" ? "speaker unknown" : `speaker by ${event.speaker_by}`})`;
        li.appendChild(by);
        offerCorrection(li, event);
      }
      setStatus("thinking");
      break;
    }
    case "speaker_corrected":
      line("speaker_corrected", { speaker: event.speaker }, `↺ that was ${event.speaker}, not ${event.was}`);
      break;
    case "understood": {
      // Folded under the turn it reads: the act and its slots, the template that matched.
      const box = document.createElement("details");
      box.className = "understood";
      const summary = document.createElement("summary");
      summary.textContent = `understood: ${readingSummary(event)}`;
      const matched = document.createElement("div");
      matched.className = "matched";
      matched.textContent = `matched ${event.matched}`;
      const heard = document.createElement("div");
      heard.className = "heard";
      heard.textContent = `heard "${event.heard || ""}"`;
      box.append(summary, matched, heard);
      if (event.path) {
        // Local first: which brain took the turn, and why (shown unfolded).
        const path = document.createElement("span");
        path.className = `path path-${event.path}`;
        path.textContent = event.path === "local" ? "local" : "→ LLM";
        path.title = event.why || "";
        summary.append(" ", path);
        const why = document.createElement("div");
        why.className = "why";
        why.textContent = `${event.path === "local" ? "answered locally" : "asked the LLM"}: ${event.why || ""}`;
        box.append(why);
      }
      if (Array.isArray(event.corrected) && event.corrected.length) {
        // Words the recogniser nearly got right, put right toward the table.
        const fixed = document.createElement("div");
        fixed.className = "corrected";
        fixed.textContent = "heard as: " + event.corrected.map((c) => `"${c.heard}" → ${c.as || "(left out)"}`).join(", ");
        box.append(fixed);
        summary.textContent += ` (heard "${event.corrected.map((c) => c.heard).join('", "')}")`;
      }
      const li = document.createElement("li");
      li.dataset.type = "understood";
      li.dataset.act = event.act;
      li.appendChild(box);
      conv.appendChild(li);
      break;
    }
    case "situation": {
      // What the LLM was told with the turn: folded under its reading.
      const boxes = conv.querySelectorAll("details.understood");
      const note = document.createElement("div");
      note.className = "situation";
      note.textContent = `told the LLM: ${event.text}`;
      if (boxes.length) boxes[boxes.length - 1].appendChild(note);
      break;
    }
    case "tool_call": {
      if (!toolsBox) {
        toolsBox = document.createElement("details");
        toolsBox.className = "tools";
        toolsBox.appendChild(document.createElement("summary"));
        const li = document.createElement("li");
        li.dataset.type = "tools";
        li.appendChild(toolsBox);
        conv.appendChild(li);
      }
      const row = document.createElement("div");
      row.dataset.ok = event.ok;
      row.dataset.tool = event.name;
      row.textContent = `${event.name}(${JSON.stringify(event.args)}) → ${event.result}`;
      toolsBox.appendChild(row);
      const n = toolsBox.querySelectorAll("div").length;
      toolsBox.querySelector("summary").textContent = `${n} tool call${n > 1 ? "s" : ""}`;
      readSight(event);
      if (["remember", "forget"].includes(event.name)) refreshMemory();
      break;
    }
    case "memory_erased":
      line("memory_erased", {}, `⌫ memory erased: ${event.facts} fact${event.facts === 1 ? "" : "s"}, ${event.episodes} episode${event.episodes === 1 ? "" : "s"}, ${event.failures} failure${event.failures === 1 ? "" : "s"}`);
      refreshMemory();
      // The log is redacted now: show the conversation again from it, without the erased words.
      if (event.seq && event.seq > replayedUpTo) {
        replayedUpTo = event.seq;
        setTimeout(replayConversation, 0);
      }
      break;
    case "speech":
      toolsBox = null;
      line("speech", { to: event.to, seq: event.seq }, event.text);
      setStatus("speaking");
      break;
    case "action":
      toolsBox = null;
      line("action", { ok: event.ok, name: event.name, seq: event.seq }, `${event.ok ? "✓" : "✗"} ${event.name}: ${event.detail}`);
      if (event.ok && event.name === "gaze" && event.args) robotGaze = event.args.name;
      setStatus("acting");
      refreshLayout();
      break;
    case "warning":
      line("warning", { kind: event.kind }, `⚠ ${event.kind}: ${event.detail}`);
      break;
    case "interrupted":
      toolsBox = null;
      line("interrupted", { kind: event.kind }, `⏹ ${event.kind} by ${event.by}`);
      break;
    case "episode_end":
      toolsBox = null;
      line("episode_end", { reason: event.reason }, `— ${event.reason}, ${stepsOf(event.llm_calls)}`);
      setStatus("idle");
      refreshMemory(); // the episode may have been remembered
      break;
    case "listening":
      setStatus("listening");
      // The robot's head turns to whoever just stopped speaking.
      if (event.speaker && event.speaker !== "unknown") {
        robotGaze = event.speaker;
        drawTable();
      }
      break;
    case "voice":
      setStatus("idle");
      break;
    case "robot":
      $("robot").textContent = "robot: " + event.status;
      $("robot").title = event.detail;
      break;
    case "state":
      refreshLayout();
      break;
  }
  if (stick) conv.scrollTop = conv.scrollHeight;
}

// --- memory: who is remembered, their facts, and forget buttons --------------

const day = (at) => new Date(at * 1000).toISOString().slice(0, 10);

function memoryButton(label, attrs, onClick) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = label;
  for (const [k, v] of Object.entries(attrs)) button.dataset[k] = v;
  button.addEventListener("click", onClick);
  return button;
}

function factItem(fact) {
  const li = document.createElement("li");
  li.dataset.fact = fact.id;
  if (!fact.confirmed) li.classList.add("hearsay");
  if (fact.superseded_by) li.classList.add("superseded");
  const text = document.createElement("span");
  text.className = "text";
  text.textContent = `“${fact.text}”`;
  const meta = document.createElement("div");
  meta.className = "meta";
  if (!fact.confirmed) {
    const badge = document.createElement("span");
    badge.className = "badge hearsay";
    badge.textContent = `hearsay: ${fact.said_by} said it`;
    meta.append(badge, " ");
  }
  const parts = [`#${fact.id}`, fact.topic, fact.confirmed ? `said by ${fact.said_by}` : null, day(fact.at)];
  if (fact.visibility === "self") parts.push("only for acting for them");
  if (fact.superseded_by) parts.push(`replaced by #${fact.superseded_by}`);
  meta.append(parts.filter(Boolean).join(" · "));
  li.append(text, memoryButton("forget", { forgetFact: fact.id }, () =>
    guarded("memory-error", async () => {
      await api("DELETE", `/api/memory/facts/${fact.id}`);
      refreshMemory();
    })), meta);
  return li;
}

function personBlock(person) {
  const box = document.createElement("div");
  box.className = "memory-person";
  box.dataset.person = person.name;
  const head = document.createElement("div");
  head.className = "head";
  const name = document.createElement("strong");
  name.textContent = person.name;
  const seen = document.createElement("span");
  seen.className = "seen";
  seen.textContent = `seen ${day(person.first_seen)}${person.last_seen !== person.first_seen && day(person.last_seen) !== day(person.first_seen) ? ` – ${day(person.last_seen)}` : ""}`;
  // Forgetting a person takes a second click: the first one asks.
  let armed = null;
  const forget = memoryButton(`forget ${person.name}`, { forgetPerson: person.name }, () => {
    if (!armed) {
      forget.textContent = `really forget everything about ${person.name}?`;
      forget.classList.add("confirm");
      armed = setTimeout(() => { armed = null; forget.textContent = `forget ${person.name}`; forget.classList.remove("confirm"); }, 5000);
      return;
    }
    clearTimeout(armed);
    guarded("memory-error", async () => {
      await api("DELETE", `/api/memory/people/${encodeURIComponent(person.name)}`);
      refreshMemory();
    });
  });
  head.append(name, seen, forget);
  box.appendChild(head);
  const list = document.createElement("ul");
  for (const fact of person.facts) list.appendChild(factItem(fact));
  if (!person.facts.length) {
    const none = document.createElement("li");
    none.className = "muted";
    none.textContent = "no facts";
    list.appendChild(none);
  }
  box.appendChild(list);
  return box;
}

function drawMemory(memory) {
  const people = $("memory-people");
  people.replaceChildren();
  const facts = memory.people.reduce((n, p) => n + p.facts.length, 0);
  $("memory-count").textContent = `${memory.people.length} ${memory.people.length === 1 ? "person" : "people"}, ${facts} fact${facts === 1 ? "" : "s"}, ${memory.episodes.length} episode${memory.episodes.length === 1 ? "" : "s"}`;
  if (!memory.people.length) {
    const none = document.createElement("p");
    none.className = "muted";
    none.textContent = "Nobody is remembered yet. Say “remember that …” to the robot.";
    people.appendChild(none);
  }
  for (const person of memory.people) people.appendChild(personBlock(person));
}

async function loadMemory() {
  try {
    drawMemory(await api("GET", "/api/memory"));
    $("memory-error").textContent = "";
  } catch (error) {
    // Memory off (409) or the daemon away: say so in the panel.
    $("memory-people").replaceChildren();
    $("memory-count").textContent = "";
    $("memory-error").textContent = error.message;
  }
}

let memoryTimer = null;
function refreshMemory() {
  clearTimeout(memoryTimer);
  memoryTimer = setTimeout(loadMemory, 150);
}

// --- the live stream, with reconnects that catch up -------------------------

let source = null;
let firstSeq = 0; // where the shown conversation starts
let replayedUpTo = 0; // the last memory_erased that made the page replay

function replayConversation() {
  if (source) source.close();
  $("conversation").replaceChildren();
  toolsBox = null;
  window.attentive.lastSeq = firstSeq;
  connect();
}

function connect() {
  const since = window.attentive.lastSeq;
  const params = new URLSearchParams({ since: String(since) });
  if (token) params.set("token", token);
  source = new EventSource("/api/events?" + params);
  source.onopen = () => {
    $("link").dataset.link = "live";
    $("link").textContent = "live";
    refreshLayout();
    refreshMemory();
  };
  source.onmessage = (message) => {
    let event;
    try { event = JSON.parse(message.data); } catch (_) { return; }
    // Motion: not logged, no seq; never counted, never in the conversation.
    if (event.type === "joints") { onJoints(event); return; }
    if (event.seq && event.seq <= window.attentive.lastSeq) return;
    show(event);
    if (event.seq) {
      window.attentive.lastSeq = event.seq;
      const at = Date.parse(event.ts);
      if (!Number.isNaN(at)) window.attentive.latencyMs.push(Date.now() - at);
    }
    window.attentive.shown += 1;
  };
  source.onerror = () => {
    $("link").dataset.link = "reconnecting";
    $("link").textContent = "reconnecting";
    // The browser retries by itself; once it gives up, start over from the last seq.
    if (source.readyState === EventSource.CLOSED) {
      setTimeout(connect, 1000);
    }
  };
}

// The rules brain asks no LLM: its episode's steps are not LLM calls.
let brainAsksAnLlm = true;

function stepsOf(calls) {
  const plural = calls === 1 ? "" : "s";
  return brainAsksAnLlm ? `${calls} LLM call${plural}` : `${calls} step${plural}, no LLM`;
}

async function start() {
  try {
    const health = await api("GET", "/health");
    brainAsksAnLlm = health.brain !== "rules";
    // Show the recent past, not the whole log.
    window.attentive.lastSeq = Math.max(0, (health.next_seq || 1) - 400);
    firstSeq = window.attentive.lastSeq;
    // What is logged already was redacted before the page read it.
    replayedUpTo = Math.max(0, (health.next_seq || 1) - 1);
    setLayout(await api("GET", "/api/scene"));
    await loadMemory();
  } catch (error) {
    $("turn-error").textContent = "The daemon does not answer: " + error.message;
  }
  connect();
}

// --- controls ----------------------------------------------------------------

$("turn-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("turn-text").value.trim();
  guarded("turn-error", async () => {
    await api("POST", "/api/turns", { text });
    $("turn-text").value = "";
  });
});
for (const kind of ["stop", "pause", "resume"]) {
  $(kind).addEventListener("click", () => guarded("interrupt-error", () => api("POST", "/api/interrupt", { kind, by: "the page" })));
}
$("reset").addEventListener("click", () => guarded("scene-error", () => api("POST", "/api/scene", { reset: true })));
$("busy-form").addEventListener("submit", (e) => {
  e.preventDefault();
  guarded("scene-error", () => api("POST", "/api/scene", { person: $("busy-person").value, holding: [$("busy-object").value] }));
});
$("free").addEventListener("click", () => guarded("scene-error", () => api("POST", "/api/scene", { person: $("busy-person").value, holding: [] })));

start();
if (new URLSearchParams(location.search).get("view") === "3d") setView("3d");
