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

function label(parent, x, y, text, anchor) {
  const t = el("text", { x, y, "text-anchor": anchor || "middle" }, parent);
  t.textContent = text;
  return t;
}

function drawTable() {
  const svg = $("table");
  if (!layout) return;
  svg.replaceChildren();
  const [tx, ty] = layout.table.size;
  // Bounds: table, people (with reach), robot.
  const xs = [tx / 2, -tx / 2, layout.robot.position[0]];
  const ys = [ty / 2, -ty / 2, layout.robot.position[1]];
  for (const p of layout.persons) { xs.push(p.position[0]); ys.push(p.position[1]); }
  const m = 0.35;
  const minU = -Math.max(...ys) - m, maxU = -Math.min(...ys) + m;
  const minV = -Math.max(...xs) - m, maxV = -Math.min(...xs) + m;
  svg.setAttribute("viewBox", `${minU} ${minV} ${maxU - minU} ${maxV - minV}`);
  el("rect", { class: "tabletop", x: -ty / 2, y: -tx / 2, width: ty, height: tx, "data-table": layout.name }, svg);

  // The robot: base and both arms projected from the joint state.
  const robot = el("g", { class: "robot", "data-robot": layout.robot.name }, svg);
  el("rect", { class: "robot-base", x: sx(layout.robot.position) - 0.12, y: sy(layout.robot.position) - 0.06, width: 0.24, height: 0.12, rx: 0.02 }, robot);
  for (const arm of layout.robot.arms) {
    el("polyline", { class: "arm", "data-arm": arm.side, points: arm.points.map((p) => `${sx(p)},${sy(p)}`).join(" ") }, robot);
  }
  label(robot, sx(layout.robot.position), sy(layout.robot.position) + 0.11, layout.robot.name.replace(/_/g, " "));
  const looked = robotGaze && (layout.persons.find((p) => p.name === robotGaze) || layout.objects.find((o) => o.name === robotGaze));
  if (looked) {
    const at = looked.eyes || looked.position;
    el("line", { class: "robot-gaze", "data-robot-gaze": robotGaze, x1: sx(layout.robot.position), y1: sy(layout.robot.position), x2: sx(at), y2: sy(at) }, robot);
  }

  // People: reach from each shoulder, gaze cone, body, name and state.
  for (const p of layout.persons) {
    const g = el("g", { class: "person" + (p.busy ? " busy" : ""), "data-person": p.name }, svg);
    for (const s of p.shoulders) el("circle", { class: "reach", cx: sx(s), cy: sy(s), r: p.reach }, g);
    const yaw = (p.yaw_deg * Math.PI) / 180, half = (30 * Math.PI) / 180, len = 0.55;
    const eye = [p.eyes[0], p.eyes[1]];
    const a = [eye[0] + len * Math.cos(yaw - half), eye[1] + len * Math.sin(yaw - half)];
    const b = [eye[0] + len * Math.cos(yaw + half), eye[1] + len * Math.sin(yaw + half)];
    el("polygon", { class: "gaze", points: `${sx(eye)},${sy(eye)} ${sx(a)},${sy(a)} ${sx(b)},${sy(b)}` }, g);
    el("circle", { class: "body", cx: sx(p.position), cy: sy(p.position), r: 0.07 }, g);
    const state = p.busy ? "busy" : "idle";
    const holding = p.holding.length ? `, holds ${p.holding.join(", ")}` : "";
    label(g, sx(p.position), sy(p.position) + (p.position[1] > 0 ? -0.1 : 0.13), `${p.name} (${state}${holding})`);
  }

  // Objects: shape from above, name, contents, holder.
  for (const o of layout.objects) {
    const classes = ["object", o.kind === "box" ? "box" : (["glass", "cup", "bottle", "pot", "jug"].includes(o.kind) ? "container" : "other")];
    if (o.held_by) classes.push("held");
    if (sight && sight.occluders.includes(o.name)) classes.push("occluder");
    const g = el("g", { "data-object": o.name }, svg);
    const cx = sx(o.position), cy = sy(o.position);
    if (o.shape.type === "cylinder") {
      el("circle", { class: classes.join(" "), cx, cy, r: o.shape.radius }, g);
    } else {
      const [w, d] = [o.shape.size[1], o.shape.size[0]];
      el("rect", { class: classes.join(" "), x: cx - w / 2, y: cy - d / 2, width: w, height: d, transform: `rotate(${-o.yaw_deg} ${cx} ${cy})` }, g);
    }
    const extra = [o.contains, o.held_by ? "held by " + o.held_by : null].filter(Boolean).join(", ");
    label(g, cx, cy + 0.06, o.name.replace(/_/g, " ") + (extra ? ` (${extra})` : ""));
  }

  // The last sight check: eyes to object, red when blocked.
  if (sight) {
    const p = layout.persons.find((q) => q.name === sight.person);
    const o = layout.objects.find((q) => q.name === sight.object);
    if (p && o) {
      el("line", { class: "sight" + (sight.blocked ? " blocked" : ""), "data-sight": `${p.name}->${o.name}`, x1: sx(p.eyes), y1: sy(p.eyes), x2: sx(o.position), y2: sy(o.position) }, svg);
    }
  }

  const busy = $("busy-person"), object = $("busy-object");
  if (!busy.options.length) {
    for (const p of layout.persons) busy.add(new Option(p.name, p.name));
    for (const o of layout.objects) object.add(new Option(o.name, o.name));
  }
  $("scene-name").textContent = "scene " + layout.name;
}

let refreshTimer = null;
function refreshLayout() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(async () => {
    try { layout = await api("GET", "/api/scene"); drawTable(); } catch (_) { /* shown by the link state */ }
  }, 30);
}

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
  for (const key of ["category", "filter", "ability"]) if (slots[key]) parts.push(`${key}: ${slots[key].replace(/_/g, " ")}`);
  if (slots.only) parts.push("only");
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
      line("episode_end", { reason: event.reason }, `— ${event.reason}, ${event.llm_calls} LLM call${event.llm_calls === 1 ? "" : "s"}`);
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

async function start() {
  try {
    const health = await api("GET", "/health");
    // Show the recent past, not the whole log.
    window.attentive.lastSeq = Math.max(0, (health.next_seq || 1) - 400);
    firstSeq = window.attentive.lastSeq;
    // What is logged already was redacted before the page read it.
    replayedUpTo = Math.max(0, (health.next_seq || 1) - 1);
    layout = await api("GET", "/api/scene");
    drawTable();
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
