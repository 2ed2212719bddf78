// The set-up wizard: layout, calibration frame with its guide, corners clicked, cards enrolled, then used.
"use strict";
const $ = (id) => document.getElementById(id);
let layouts = [], points = [];

function layout() { return layouts.find((l) => l.name === $("layout").value); }

function shown(box, r, lines, learnt) {
  const picture = (src, alt) => table.el("img", {className: "live", src, alt});
  box.replaceChildren(...(learnt ? [table.el("p", {className: "message ok", textContent: learnt[1]}), picture(...learnt)] : []),
    ...lines.map((t) => table.el("p", {className: "message ok", textContent: t})),
    ...(r.picture ? [picture(r.picture, "the live frame read again with it")] : []));
}

async function step(name, body, box, describe, learnt) {
  box.replaceChildren(table.el("p", {className: "message", textContent: "working…"}));
  try {
    const r = await table.post(`/api/setup/${name}`, {layout: $("layout").value, ...body});
    shown(box, r, describe(r), learnt && learnt(r)); return r;
  }
  catch (e) { box.replaceChildren(table.el("p", {className: "message error", textContent: e.message})); }
}

function choose() {
  const l = layout();
  if (!l) return;
  $("step-colours").classList.toggle("hidden", !l.colours);
  $("step-board").classList.toggle("hidden", !l.board);
  $("guide").src = `/setup/guide.jpg?layout=${encodeURIComponent(l.name)}&t=${Date.now()}`;
  $("corners-frame").src = `/setup/frame.jpg?t=${Date.now()}`;
  points = []; $("clicked").textContent = "0 of 4 corners"; $("corners-save").disabled = true;
  $("card-name").replaceChildren(...l.card_names.map((n) => table.el("option", {value: n, textContent: n})));
  $("card-zone").replaceChildren(table.el("option", {value: "", textContent: "the place holding it"}),
    ...l.cards.map((z) => table.el("option", {value: z, textContent: z})));
  $("step-cards").classList.toggle("hidden", !l.cards.length);
  $("card-prompt").textContent = l.cards.length ? "Lay one card alone in a card place, choose its name, press Enrol." : "";
}

async function start(unlocked) {
  table.showUnlocked(unlocked);
  $("step-game").classList.add("hidden");
  if (!unlocked) return;
  const info = await table.get("/api/setup/layouts");
  layouts = info.layouts;
  $("game-now").textContent = info.game || "nothing yet";
  $("game-choice").replaceChildren(...info.games.map((g) => table.el("option", {value: g, textContent: g,
    selected: g === info.game})));
  gameLayouts = info.game_layouts;
  tickLayouts();
  $("step-game").classList.toggle("hidden", !info.games.length);  // a recording plays its own game
  $("layout").replaceChildren(...layouts.map((l) => table.el("option", {value: l.name,
    textContent: l.name + (l.in_view ? " (on the table)" : "")})));
  $("stored").textContent = info.calibration ? `stored in ${info.calibration}` : "";
  choose();
}

let gameLayouts = {};
function tickLayouts() {  // the shipped layouts of the chosen game; its own board ticked
  const game = $("game-choice").value;
  $("game-layouts").replaceChildren(...(gameLayouts[game] || []).map((name) => table.el("label", {},
    table.el("input", {type: "checkbox", value: name, checked: name === game}), ` ${name} `)));
}
$("game-choice").onchange = tickLayouts;
$("layout").onchange = choose;
$("start-game").onclick = async () => {
  try {
    const ticked = [...$("game-layouts").querySelectorAll("input:checked")].map((i) => i.value);
    const picked = await table.post("/api/setup/layouts", {game: $("game-choice").value, layouts: ticked});
    const r = await table.post("/api/setup/game", {game: $("game-choice").value});
    if (!r.started) {
      table.say($("game-result"), `${r.game} is already on the table; ${picked.layouts.join(", ")} from its next ` +
                "start (the game wheel confirming it)", "ok");
      return;
    }
    table.say($("game-result"), `${r.game}: starting with ${picked.layouts.join(", ")} and its set-up from the ` +
              "configuration", "ok");
  } catch (e) { table.say($("game-result"), e.message, "error"); return; }
  for (let i = 0; i < 20; i++) {  // once the loop has started it (at its next frame): its layouts listed
    await new Promise((done) => setTimeout(done, 500));
    if ((await table.get("/api/status")).game === $("game-choice").value) { start(true); break; }
  }
};
$("refresh-guide").onclick = choose;
$("enrol-board").onclick = () => step("board", {}, $("board-result"), (r) => {
  const others = Object.entries(r.not_empty).map(([z, label]) => `${z} ${label}`).join(", ");
  const warned = [r.markers_unseen, r.overexposed].filter(Boolean);
  return [...warned.map((w) => w[0].toUpperCase() + w.slice(1) + "."),
    ...(r.colours_again ? ["The colours were learnt without this board: learn them again (next step)."] : []),
    `Read again with it: ${r.empty} of ${r.places} piece places empty` +
      (others ? ` (not empty: ${others}; take those pieces off and enrol again)` : ".")];
}, (r) => [r.learnt, `Empty board enrolled (${r.size[0]} x ${r.size[1]} px, ${r.px_per_mm} px/mm), as learnt: ` +
                     `stored in ${r.stored}.`]);
$("learn").onclick = () => step("colours", {}, $("colours-result"), (r) =>
  [`${Object.keys(r.learnt).length} colours learnt: ` + Object.entries(r.learnt).map(([k, v]) => `${k} ${v}`).join(", "),
   r.board_found ? "Read again with them:" : "Board not found on the re-read."]);
$("corners-frame").onclick = (event) => {
  if (points.length >= 4) return;
  const img = event.target, box = img.getBoundingClientRect();
  points.push([Math.round((event.clientX - box.left) * img.naturalWidth / box.width),
               Math.round((event.clientY - box.top) * img.naturalHeight / box.height)]);
  $("clicked").textContent = `${points.length} of 4 corners`;
  $("corners-save").disabled = points.length !== 4;
};
$("corners-reset").onclick = choose;
$("corners-save").onclick = () => step("corners", {points}, $("corners-result"), (r) =>
  [`Corners stored in ${r.stored}.`, r.board_found ? "The board is found with them:" : "The board is still not found."]);
$("enrol").onclick = () => step("card", {name: $("card-name").value, zone: $("card-zone").value}, $("card-result"), (r) =>
  [`${r.name} ${r.replaced ? "enrolled again (replaced)" : "enrolled"} from ${r.zone}; read again: ${r.reread.label || "?"}`,
   r.missing.length ? `Still to enrol: ${r.missing.join(", ")}` : "Every card of the set is enrolled."]);
$("use").onclick = () => step("use", {}, $("use-result"), (r) => [`The table now reads with ${r.using || "its cards"}.`]);
table.pinForm(start);
table.get("/api/status").then((s) => start(s.unlocked));
