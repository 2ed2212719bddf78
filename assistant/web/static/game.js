// The game: verdicts as they happen, the display and the LED strip mirrored, the buttons (with the PIN).
"use strict";
const $ = (id) => document.getElementById(id);
let shownSteps = -1;

function render(s) {
  $("game").textContent = s.game ? `(${s.game})` : "";
  if (s.unlocked !== null) table.showUnlocked(s.unlocked);  // null: a pushed status, which cannot know
  if (s.steps !== shownSteps) {
    shownSteps = s.steps;
    $("display").src = `/display.png?step=${s.steps}`;
    $("display").alt = screenText(s.screen);
    const list = $("events");
    list.replaceChildren(...s.events.slice().reverse().map((e) => table.el("li", {},
      table.el("span", {className: "at", textContent: `${e.at} · ${e.kind} `}),
      table.el("span", {className: e.legal === true ? "legal" : e.legal === false ? "illegal" : "",
                        textContent: e.message + (e.legal === true ? " ✔" : e.legal === false ? " ✘ illegal" : "")}))));
    drawStrip(s.leds);
    drawPanel(s.panel);
    drawState(s.state);
    // When this answer reached the page (the browser test measures the commit-to-page latency with it).
    document.body.dataset.steps = s.steps;
    document.body.dataset.shownAt = Date.now();
  }
  $("players-box").classList.toggle("hidden", s.game !== "alchemists");
  const joined = s.players.length ? s.players.join(", ") : "nobody yet";
  if (joined !== $("players").textContent) table.say($("join-note"), "");  // the code was used
  $("players").textContent = joined;
  $("scanner").textContent = s.scanner || "nobody";
}

function screenText(screen) {
  if (!screen) return "the table's display: blank";
  const rows = (screen.rows || []).map((r) => r.join(" ")), items = screen.items || [];
  return ["the table's display:", screen.title || screen.label || "", screen.text || "", ...rows, ...items,
          screen.value !== undefined ? `${screen.value} of ${screen.maximum}` : "", screen.note || ""]
    .filter((t) => t !== "").join(" · ");
}

function drawStrip(leds) {
  const strip = $("strip");
  strip.replaceChildren(...Object.entries(leds).map(([group, colours]) => table.el("span",
    {className: "group", title: group},
    ...colours.map((c) => { const led = table.el("span", {className: "led"});
                            led.style.background = `rgb(${c.join(",")})`; return led; }))));
}

function drawPanel(panel) {
  const facts = table.el("dl", {}, ...panel.facts.flatMap(([label, value]) =>
    [table.el("dt", {textContent: label}), table.el("dd", {textContent: value})]));
  const tables = panel.tables.map((t) => table.el("table", {},
    table.el("caption", {textContent: t.caption}),
    table.el("thead", {}, table.el("tr", {}, ...t.head.map((h) => table.el("th", {textContent: h})))),
    table.el("tbody", {}, ...t.rows.map((row) => table.el("tr", {},
      ...row.map((v) => table.el("td", {textContent: v})))))));
  $("panel").replaceChildren(...(panel.facts.length ? [facts] : []), ...tables);
  if (!panel.facts.length && !tables.length) $("panel").replaceChildren(table.el("p", {textContent: "waiting for the game"}));
}

function drawState(state) {
  const rows = Object.entries(state.zones).map(([zone, label]) => [zone, label]);
  for (const [zone, counts] of Object.entries(state.counts)) {
    rows.push([zone, Object.entries(counts).map(([k, n]) => k === "count" ? `${n}` : `${k} ${n}`).join(", ")]);
  }
  $("state").replaceChildren(rows.length ? table.el("table", {}, ...rows.map(([z, v]) =>
    table.el("tr", {}, table.el("td", {textContent: z}), table.el("td", {textContent: v}))))
    : table.el("p", {textContent: "nothing committed yet (or an empty board)"}));
}

for (const button of document.querySelectorAll("[data-command]")) {
  button.onclick = async () => {
    try { await table.post("/api/press", {command: button.dataset.command}); table.say($("pressed"), ""); }
    catch (e) { table.say($("pressed"), e.message, "error"); }
  };
}
$("join-code").onclick = async () => {
  try { const r = await table.post("/api/players/code"); table.say($("join-note"), r.code ? `join code: ${r.code}` : r.shown); }
  catch (e) { table.say($("join-note"), e.message, "error"); }
};
table.pinForm(() => table.get("/api/status").then(render));
table.listen({status: render});
table.get("/api/status").then(render);
