// An Alchemists player's own page: joined with the display's code, the player's results and deduction aid.
"use strict";
const $ = (id) => document.getElementById(id);
let lastSteps = -1;

async function refresh() {
  let me;
  try { me = await table.get("/api/player"); }
  catch (e) { $("join-box").classList.remove("hidden"); $("me").classList.add("hidden"); $("aid").classList.add("hidden"); return; }
  $("join-box").classList.add("hidden");
  $("me").classList.remove("hidden");
  $("aid").classList.remove("hidden");
  $("me-name").textContent = me.name;
  $("scan-note").textContent = me.scanning ? "your next scan is yours only" : "";
  $("results").replaceChildren(...(me.results.length ? me.results.slice().reverse().map((r) =>
    table.el("li", {}, table.el("span", {className: "at", textContent: `${r.kind} `}), r.message))
    : [table.el("li", {textContent: "nothing scanned yet: press 'I am at the scanner', then lay your two cards"})]));
  if (me.contradiction) {
    $("remaining").textContent = `Your results contradict each other (at: ${me.contradiction}).`;
    return;
  }
  $("remaining").textContent = `${me.remaining} of ${me.total} assignments still possible` +
    (Object.keys(me.certain).length ? `; certain: ${Object.entries(me.certain).map(([i, a]) => `${i} = ${a}`).join(", ")}` : "");
  $("next-mix").textContent = me.next_mix ? `Most telling next mix: ${me.next_mix.ingredients.join(" + ")} ` +
    `(${me.next_mix.expected_bits} bits)` : "";
  const head = table.el("tr", {}, table.el("th", {textContent: ""}), ...me.alchemicals.map((a) => table.el("th", {textContent: a})));
  $("grid").replaceChildren(head, ...Object.entries(me.probabilities).map(([ingredient, ps]) => table.el("tr", {},
    table.el("td", {textContent: ingredient}),
    ...ps.map((p) => table.el("td", {className: "p" + (p === 1 ? " sure" : ""), textContent: p ? `${Math.round(100 * p)}` : "·"})))));
}

$("ask-code").onclick = async () => {
  try { table.say($("join-note"), (await table.post("/api/players/code")).shown); }
  catch (e) { table.say($("join-note"), e.message, "error"); }
};
$("join").onclick = async () => {
  try { await table.post("/api/players/join", {name: $("name").value, code: $("code").value}); table.say($("join-note"), ""); refresh(); }
  catch (e) { table.say($("join-note"), e.message, "error"); }
};
$("scan").onclick = async () => {
  try { await table.post("/api/player/scan"); refresh(); }
  catch (e) { $("scan-note").textContent = e.message; }
};
table.listen({status(s) { if (s.steps !== lastSteps) { lastSteps = s.steps; refresh(); } }});
refresh();
