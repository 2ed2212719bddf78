// The live view: a new picture each time the server says one is ready (at most 5 a second).
"use strict";
const img = document.getElementById("live");
let loading = false, wanted = null;

function load(n) {
  if (loading) { wanted = n; return; }   // never more than one picture in flight
  loading = true;
  img.src = `/live.jpg?n=${n}`;
}
img.onload = img.onerror = () => {
  loading = false;
  if (wanted !== null) { const n = wanted; wanted = null; load(n); }
};

table.listen({
  frame(f) {
    load(f.n);
    document.getElementById("frame").textContent = f.n;
    document.getElementById("light").textContent = `${f.light} %`;
    table.say(document.getElementById("why"), f.why || "", "error");
  },
  status(s) {
    document.getElementById("game").textContent = s.game ? `(${s.game})` : "";
    const board = document.getElementById("board");
    board.textContent = s.board_found === null ? "…" : s.board_found ? "found" : "not found";
    board.className = s.board_found ? "found" : "lost";
    document.getElementById("fps").textContent = s.fps === null ? "…" : s.fps;
  },
});
