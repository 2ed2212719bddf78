// Shared by every page: the pushed updates, requests that change the table, the PIN form.
"use strict";

const table = {
  // POST JSON (or a FormData) with the header the server asks of every change (CSRF); throws the server's
  // one-line reason on a 4xx.
  async post(path, body) {
    const form = body instanceof FormData;
    const response = await fetch(path, {
      method: "POST", credentials: "same-origin",
      headers: form ? {"X-Alchemy-Table": "1"} : {"X-Alchemy-Table": "1", "Content-Type": "application/json"},
      body: form ? body : JSON.stringify(body || {}),
    });
    let data = {};
    try { data = await response.json(); } catch (e) { data = {error: `${response.status} ${response.statusText}`}; }
    if (!response.ok) throw new Error(data.error || `${response.status}`);
    return data;
  },

  async get(path) {
    const response = await fetch(path, {credentials: "same-origin"});
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || `${response.status}`);
    return data;
  },

  // Server-sent events: status (the game) and frame (a new live picture). Reconnects by itself.
  listen(handlers) {
    const source = new EventSource("/events");
    for (const [kind, handle] of Object.entries(handlers)) {
      source.addEventListener(kind, (e) => handle(JSON.parse(e.data)));
    }
    return source;
  },

  say(element, text, tone) {
    element.textContent = text;
    element.className = "message " + (tone || "");
    element.classList.toggle("hidden", !text);
  },

  el(tag, props, ...children) {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    for (const child of children) node.append(child);
    return node;
  },

  // The PIN form in the header: unlock, show the PIN on the table's display, lock again.
  pinForm(onChange) {
    const box = document.getElementById("pin");
    if (!box) return;
    const input = box.querySelector("input"), note = document.getElementById("pin-note");
    box.onsubmit = async (event) => {
      event.preventDefault();
      try { await table.post("/api/unlock", {pin: input.value}); input.value = ""; table.say(note, "");
            onChange && onChange(true); }
      catch (e) { table.say(note, e.message, "error"); }
    };
    box.querySelector("[data-do=show]").onclick = async () => {
      try { table.say(note, (await table.post("/api/show-pin")).shown); }
      catch (e) { table.say(note, e.message, "error"); }
    };
    box.querySelector("[data-do=lock]").onclick = async () => {
      await table.post("/api/lock"); onChange && onChange(false);
    };
  },

  showUnlocked(unlocked) {
    document.body.classList.toggle("unlocked", unlocked);
    for (const node of document.querySelectorAll("[data-locked]")) node.classList.toggle("hidden", unlocked);
    for (const node of document.querySelectorAll("[data-unlocked]")) node.classList.toggle("hidden", !unlocked);
  },
};
