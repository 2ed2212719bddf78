// The referee's page: refreshed whenever the hub keeps a new event (long poll on /api/feed).
"use strict";
let chosen = decodeURIComponent(location.hash.replace(/^#table=/, "")) || null;
let next = 0;

function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text === null || text === undefined ? "" : String(text);
  if (cls) td.className = cls;
  return td;
}

function fill(id, rows, draw) {
  const body = document.querySelector(`#${id} tbody`);
  body.replaceChildren();
  for (const item of rows) draw(body.insertRow(), item);
}

async function json(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.json();
}

async function refresh() {
  const data = await json("api/tables");
  document.getElementById("rejected").textContent = data.rejected ? `${data.rejected} bad messages ignored` : "";
  fill("tables", data.tables, (row, t) => {
    row.className = "pick" + (t.online ? "" : " offline");
    row.onclick = () => { chosen = t.table; location.hash = "table=" + encodeURIComponent(t.table); showLog(); };
    cell(row, t.table);
    cell(row, t.online ? (t.camera === "lost" ? "camera lost" : "online") : "offline", t.camera === "lost" ? "alert" : "");
    cell(row, t.game);
    cell(row, t.round);
    cell(row, t.turn);
    cell(row, t.players.map(p => `${p.name} ${p.score}`).join(", ") + (t.winners && t.winners.length ? ` (won: ${t.winners.join(", ")})` : t.over ? " (over)" : ""));
    cell(row, t["cramés"], t["cramés"] >= 15 ? "alert" : "");
    cell(row, t.events + (t.missing ? " (catching up)" : ""), t.missing ? "missing" : "");
    cell(row, t.alerts.map(a => `${a.alert}: ${a.message}`).join("; "), t.alert_count ? "alert" : "");
  });
  const standings = await json("api/standings");
  fill("standings", standings.standings, (row, s) => {
    cell(row, s.game); cell(row, s.place); cell(row, s.player); cell(row, s.table); cell(row, s.score);
    cell(row, s.won ? "yes" : "");
  });
  if (chosen) await showLog();
}

async function showLog() {
  const section = document.getElementById("log");
  const response = await fetch("api/tables/" + encodeURIComponent(chosen));
  if (!response.ok) { section.hidden = true; return; }
  const t = await response.json();
  section.hidden = false;
  document.getElementById("log-title").textContent = `${t.table}: ${t.game_id || "no game yet"}`;
  document.getElementById("log-result").textContent = t.result ? `Result: ${t.result.message}` : "";
  fill("log", t.events, (row, e) => {
    cell(row, e.seq); cell(row, (e.time || "").slice(11, 19)); cell(row, e.kind);
    cell(row, e.message, e.legal === false ? "illegal" : e.legal ? "legal" : "");
  });
}

async function follow() {
  for (;;) {
    try {
      const feed = await json(`api/feed?after=${next}`);
      next = feed.next;
      await refresh();
    } catch (e) {
      await new Promise(r => setTimeout(r, 2000));
    }
  }
}

refresh().then(follow, follow);
