// The Alchimiste referee: players typed, trays counted in a photo or the live frame, the doubtful asked.
"use strict";
const $ = (id) => document.getElementById(id);

$("referee-form").onsubmit = async (event) => {
  event.preventDefault();
  const form = new FormData($("referee-form"));
  if (form.get("source") === "photo") form.delete("source"); else form.delete("photo");
  $("judge").disabled = true;
  try {
    const r = await table.post("/api/referee", form);
    if (r.ask) {  // nothing scored until every tray is counted: an earlier result must not stand beside it
      $("winners").replaceChildren(); $("scores").replaceChildren(); $("counts").textContent = "";
      $("referee-result").classList.add("hidden");
      table.say($("referee-note"), r.message, "error");
      $("asked").replaceChildren(...r.ask.map((colour) => table.el("div", {className: "row"},
        table.el("label", {textContent: `${colour} tray, counted by hand: `},
          table.el("input", {name: `count-${colour}`, inputMode: "numeric", size: 3})))));
      if (r.picture) { $("referee-picture").src = r.picture; $("referee-result").classList.remove("hidden"); }
      return;
    }
    table.say($("referee-note"), "");
    $("referee-result").classList.remove("hidden");
    $("winners").replaceChildren(table.el("p", {className: "message ok", textContent: r.lines[r.lines.length - 1]}));
    $("scores").replaceChildren(table.el("tr", {}, ...["player", "fame", "screen", "place", "reward", "total"].map((t) => table.el("th", {textContent: t}))),
      ...r.result.players.map((p) => table.el("tr", {}, ...[p.name, p.fame, p.screen_points, p.school_place, p.school_reward, p.total].map((v) => table.el("td", {textContent: v})))));
    $("counts").textContent = "Reserve: " + Object.entries(r.counts).map(([c, n]) => `${c} ${n}${r.origin[c] === "by hand" ? " (by hand)" : ""}`).join(", ");
    $("referee-picture").src = r.picture;
  } catch (e) { table.say($("referee-note"), e.message, "error"); }
  finally { $("judge").disabled = false; }
};
table.pinForm(() => table.get("/api/status").then((s) => table.showUnlocked(s.unlocked)));
table.get("/api/status").then((s) => table.showUnlocked(s.unlocked));
