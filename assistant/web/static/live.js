// The live view: the picture is a stream the server pushes (at most 5 a second); the facts come as events.
"use strict";
const img = document.getElementById("live");
// After the page's load: a stream never finishes loading, and the page's load would wait for it.
window.addEventListener("load", () => { img.src = "/live.mjpg"; });
img.onerror = () => setTimeout(() => { img.src = `/live.mjpg?t=${Date.now()}`; }, 2000);  // the table restarted

table.listen({
  frame(f) {
    showFacts(f);
    document.getElementById("frame").textContent = f.n;
    document.getElementById("light").textContent = `${f.light} %`;
    table.say(document.getElementById("why"), f.why || "", "error");
  },
  status(s) {
    document.getElementById("game").textContent = s.game ? `(${s.game})` : "";
    showFacts(s);
  },
});

function showFacts(f) {
  const board = document.getElementById("board");
  board.textContent = f.board_found === null ? "…" : f.board_found ? "found" : "not found";
  board.className = f.board_found ? "found" : "lost";
  document.getElementById("fps").textContent = f.fps === null ? "…" : f.fps;
}
