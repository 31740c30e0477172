/**
 * The files of the `/ui` page: HTML shell, stylesheet and script. The script
 * talks to the REST API only (`/v1/*`, with the same bearer token as any API
 * client) and renders everything with `textContent`: page text is hostile
 * and is never parsed as HTML.
 *
 * @module
 */

/** The page shell (`GET /ui`). */
export const UI_HTML: string = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gleaner</title>
<link rel="icon" href="/ui/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/ui/app.css">
<script src="/ui/app.js" defer></script>
</head>
<body>
<header>
  <h1>Gleaner</h1>
  <nav id="tabs" role="tablist">
    <button type="button" data-tab="research" aria-selected="true">Research</button>
    <button type="button" data-tab="scrape">Scrape</button>
    <button type="button" data-tab="search">Search</button>
    <button type="button" data-tab="memories" hidden>Memories</button>
  </nav>
  <label class="key">API key <input id="api-key" type="password" autocomplete="off" placeholder="only when the server has one"></label>
</header>
<main>
  <section id="research" class="panel">
    <form id="research-form">
      <input name="query" placeholder="A question" required maxlength="500">
      <label>tokens <input name="max_tokens" type="number" min="100" max="50000" value="1500"></label>
      <button>Research</button>
    </form>
  </section>
  <section id="scrape" class="panel" hidden>
    <form id="scrape-form">
      <input name="url" placeholder="https://…" required>
      <input name="query" placeholder="What you want from the page (optional)">
      <label>tokens <input name="max_tokens" type="number" min="50" max="50000" value="1500"></label>
      <button>Scrape</button>
    </form>
  </section>
  <section id="search" class="panel" hidden>
    <form id="search-form">
      <input name="query" placeholder="Search the web" required>
      <button>Search</button>
    </form>
  </section>
  <section id="memories" class="panel" hidden>
    <form id="memories-form">
      <input name="search" placeholder="Filter memories (optional)">
      <button>List</button>
    </form>
    <form id="memory-save-form">
      <textarea name="content" placeholder="A new memory" rows="2" required></textarea>
      <select name="kind" aria-label="kind">
        <option value="episodic" selected>episodic (recalled when relevant)</option>
        <option value="profile">profile (attached to every recall)</option>
      </select>
      <button>Save</button>
      <p class="hint" id="duplicate-rule">Only the same text, after trimming white space, is a duplicate and not saved: case and punctuation are content, so a variant is saved (and flagged as similar).</p>
    </form>
  </section>
  <p id="status" role="status"></p>
  <div id="output"></div>
</main>
</body>
</html>
`;

/** The stylesheet (`GET /ui/app.css`). */
export const UI_CSS: string = `
:root { font-family: system-ui, sans-serif; color: #1d232a; background: #f7f7f5; }
body { margin: 0 auto; max-width: 980px; padding: 0 16px 48px; }
header { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; padding: 12px 0; }
h1 { font-size: 1.3rem; margin: 0 12px 0 0; }
nav button { border: 0; background: none; padding: 6px 10px; cursor: pointer; font-size: 1rem; }
nav button[aria-selected="true"] { border-bottom: 2px solid #2f6f4f; font-weight: 600; }
.key { margin-left: auto; font-size: .85rem; }
form { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
form input:not([type=number]), textarea { flex: 1 1 280px; padding: 6px 8px; font: inherit; }
input[type=number] { width: 6em; }
button { padding: 6px 14px; font: inherit; cursor: pointer; }
#status { color: #555; min-height: 1.2em; }
.summary { font-size: .9rem; color: #444; margin: 6px 0 12px; }
.card { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 10px 12px; margin: 8px 0; }
.card .meta { font-size: .8rem; color: #555; display: flex; gap: 12px; flex-wrap: wrap; }
.card .text { white-space: pre-wrap; margin: 6px 0 0; font-size: .95rem; line-height: 1.4; }
.card a { color: #2f6f4f; word-break: break-all; }
.error { color: #a12b2b; }
.actions { display: flex; gap: 8px; margin-top: 6px; align-items: center; flex-wrap: wrap; }
.outcome { background: #eef5f0; border: 1px solid #cfe3d6; border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.outcome.warn { background: #fbf5e6; border-color: #ecdcae; }
.outcome p { margin: 2px 0; }
.hint { flex-basis: 100%; margin: 0; font-size: .85rem; color: #555; }
`;

/** The icon (`GET /ui/favicon.svg`, also answered at `/favicon.ico`). */
export const UI_FAVICON: string =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#2f6f4f"/><path d="M9 21c4-1 7-5 8-11 1 5 3 9 6 11" fill="none" stroke="#f7f7f5" stroke-width="2.5" stroke-linecap="round"/></svg>
`;

/** The script (`GET /ui/app.js`). Plain browser JavaScript, no build step. */
export const UI_JS: string = String.raw`"use strict";
(function () {
  var $ = function (sel) { return document.querySelector(sel); };
  var output = $("#output");
  var status = $("#status");
  var keyInput = $("#api-key");
  keyInput.value = sessionStorage.getItem("gleaner-api-key") || "";
  keyInput.addEventListener("change", function () {
    sessionStorage.setItem("gleaner-api-key", keyInput.value);
  });

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // A button that never submits a form.
  function button(cls, label) {
    var node = el("button", cls, label);
    node.type = "button";
    return node;
  }

  function link(url) {
    var a = el("a", "", url);
    if (/^https?:\/\//i.test(url)) a.href = url;
    a.rel = "noopener noreferrer";
    a.target = "_blank";
    return a;
  }

  async function api(path, body) {
    var headers = { "content-type": "application/json" };
    if (keyInput.value) headers.authorization = "Bearer " + keyInput.value;
    var response = await fetch(path, { method: "POST", headers: headers, body: JSON.stringify(body) });
    var json = await response.json().catch(function () { return {}; });
    if (!response.ok) {
      var e = json.error || { code: String(response.status), message: response.statusText };
      throw new Error(e.code + ": " + e.message);
    }
    return json;
  }

  function clear() { output.replaceChildren(); }

  function evidenceCard(item) {
    var card = el("article", "card evidence");
    var meta = el("div", "meta");
    meta.append(link(item.url));
    meta.append(el("span", "offsets", "chars " + item.start + "–" + item.end));
    meta.append(el("span", "relevance", item.relevance + " (" + Number(item.score).toFixed(2) + ")"));
    if (item.headings && item.headings.length) meta.append(el("span", "", item.headings.join(" › ")));
    card.append(el("strong", "", item.title || item.url), meta, el("p", "text", item.text));
    return card;
  }

  function showEvidence(out, extra) {
    clear();
    var summary = el("p", "summary",
      out.evidence.length + " passages · " + out.tokens + " tokens of evidence" +
      (out.page_tokens !== undefined ? " from " + out.page_tokens + " tokens of pages" : "") +
      " · ranking " + out.ranking);
    summary.id = "evidence-summary";
    output.append(summary);
    (extra || []).forEach(function (node) { output.append(node); });
    out.evidence.forEach(function (item) { output.append(evidenceCard(item)); });
  }

  async function run(label, fn) {
    status.textContent = label + "…";
    status.classList.remove("error");
    try {
      await fn();
      status.textContent = "";
    } catch (error) {
      status.textContent = String(error.message || error);
      status.classList.add("error");
    }
  }

  $("#research-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var form = new FormData(event.target);
    run("Researching", async function () {
      var out = await api("/v1/research", {
        query: form.get("query"),
        max_tokens: Number(form.get("max_tokens")) || undefined,
      });
      var sources = el("div", "summary");
      sources.append(el("span", "", "Sources: "));
      out.sources.forEach(function (s, i) {
        if (i) sources.append(el("span", "", " · "));
        sources.append(link(s.url), el("span", "", " (" + s.tier + ")"));
      });
      out.failed.forEach(function (f) {
        sources.append(el("div", "error", f.url + ": " + f.code));
      });
      showEvidence(out, [sources]);
    });
  });

  $("#scrape-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var form = new FormData(event.target);
    run("Reading", async function () {
      var query = String(form.get("query") || "").trim();
      var out = await api("/v1/scrape", {
        items: [query ? { url: form.get("url"), query: query } : { url: form.get("url") }],
        max_tokens: Number(form.get("max_tokens")) || undefined,
      });
      var pages = out.items.map(function (item) {
        return item.ok
          ? el("p", "summary", (item.title || item.url) + " · " + item.tier + " · " +
            item.page_tokens + " tokens in the page")
          : el("p", "error", item.url + ": " + item.error.code + ": " + item.error.message);
      });
      showEvidence(out, pages);
    });
  });

  $("#search-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var form = new FormData(event.target);
    run("Searching", async function () {
      var out = await api("/v1/search", { items: [{ query: form.get("query") }] });
      clear();
      var item = out.items[0];
      if (item.error) output.append(el("p", "error", item.error.code + ": " + item.error.message));
      item.results.forEach(function (r) {
        var card = el("article", "card result");
        card.append(el("strong", "", r.title), el("div", "meta"), el("p", "text", r.snippet));
        card.querySelector(".meta").append(link(r.url), el("span", "", r.source));
        output.append(card);
      });
    });
  });

  function memoryCard(memory) {
    var card = el("article", "card memory");
    var meta = el("div", "meta");
    meta.append(el("span", "ref", memory.ref), el("span", "", memory.kind || ""),
      el("span", "", memory.created_at || ""));
    var text = el("p", "text", memory.content !== undefined ? memory.content : memory.preview);
    var actions = el("div", "actions");
    var edit = button("edit", "Edit");
    var remove = button("delete", "Delete");
    edit.addEventListener("click", function () {
      run("Loading", async function () {
        var full = await api("/v1/memories/get", { ref: memory.ref });
        editor(full.memory.content);
      });
    });
    function editor(content) {
      var area = el("textarea");
      area.value = content;
      area.rows = 3;
      var save = button("save", "Save");
      save.addEventListener("click", function () {
        run("Saving", async function () {
          await api("/v1/memories/update", { ref: memory.ref, content: area.value });
          await listMemories();
        });
      });
      card.replaceChildren(meta, area, save);
    }
    // Deleting asks first, saying whether older versions go too (they do: history is deleted
    // with the live memory).
    remove.addEventListener("click", function () {
      run("Loading", async function () {
        var full = await api("/v1/memories/get", { ref: memory.ref });
        var older = full.history.length;
        var question = el("span", "confirm-text", "Delete " + memory.ref + "? " + (older
          ? "Its " + older + " older version" + (older === 1 ? "" : "s") + " (history) will be deleted too."
          : "It has no older versions.") + " This cannot be undone.");
        var yes = button("confirm-delete", "Delete for good");
        var no = button("cancel-delete", "Cancel");
        yes.addEventListener("click", function () {
          run("Deleting", async function () {
            var out = await api("/v1/memories/delete", { ref: memory.ref });
            await listMemories();
            showOutcome("Deleted " + out.ref + (out.history_deleted
              ? " and its " + out.history_deleted + " older version" +
                (out.history_deleted === 1 ? "" : "s")
              : "") + ".", [], false);
          });
        });
        no.addEventListener("click", function () { actions.replaceChildren(edit, remove); });
        actions.replaceChildren(question, yes, no);
      });
    });
    actions.append(edit, remove);
    card.append(meta, text, actions);
    return card;
  }

  async function listMemories() {
    var search = String(new FormData($("#memories-form")).get("search") || "").trim();
    var out = await api("/v1/memories/list", search ? { search: search, limit: 50 } : { limit: 50 });
    clear();
    output.append(el("p", "summary", out.total_count + (out.total_count === 1 ? " memory" : " memories")));
    out.memories.forEach(function (m) { output.append(memoryCard(m)); });
  }

  $("#memories-form").addEventListener("submit", function (event) {
    event.preventDefault();
    run("Listing", listMemories);
  });

  // What a save did, above the list: saved, duplicate (not saved) or similar, with the notices.
  function showOutcome(headline, notices, warn) {
    var box = el("div", "outcome" + (warn ? " warn" : ""));
    box.id = "save-outcome";
    box.append(el("p", "headline", headline));
    notices.forEach(function (n) { box.append(el("p", "notice " + n.code, n.message)); });
    output.prepend(box);
  }

  $("#memory-save-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var form = new FormData(event.target);
    run("Saving", async function () {
      var out = await api("/v1/memories/save", {
        memories: [{ content: form.get("content"), kind: form.get("kind") || "episodic" }],
      });
      var result = out.results[0];
      var similar = out.notices.some(function (n) { return n.code === "similar_to"; });
      var headline = result.status === "duplicate"
        ? "Not saved: it duplicates " + result.ref + " (the same text after trimming white space)."
        : "Saved " + result.ref + (similar ? ", but it is similar to another memory." : ".");
      event.target.reset();
      await listMemories();
      showOutcome(headline, out.notices, result.status === "duplicate" || similar);
    });
  });

  document.querySelectorAll("#tabs button").forEach(function (button) {
    button.addEventListener("click", function () {
      document.querySelectorAll("#tabs button").forEach(function (b) {
        b.setAttribute("aria-selected", String(b === button));
      });
      document.querySelectorAll(".panel").forEach(function (panel) {
        panel.hidden = panel.id !== button.dataset.tab;
      });
      clear();
      status.textContent = "";
      if (button.dataset.tab === "memories") run("Listing", listMemories);
    });
  });

  // The Memories tab appears when the server declares the memory tools.
  function detectMemories() {
    var headers = keyInput.value ? { authorization: "Bearer " + keyInput.value } : {};
    fetch("/v1/tools", { headers: headers }).then(function (r) { return r.json(); }).then(function (out) {
      var names = (out.tools || []).map(function (t) { return t.name; });
      $("#tabs [data-tab=memories]").hidden = names.indexOf("list_memories") === -1;
    }).catch(function () {});
  }
  keyInput.addEventListener("change", detectMemories);
  detectMemories();
})();
`;
