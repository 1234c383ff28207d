// The review page: the queue on the left, one case and its form on the right, keyboard first.
// Every text from the store is set with textContent, never as HTML.
"use strict";
(function () {
  const config = JSON.parse(document.getElementById("config").textContent);
  const W = config.words;
  const SCORES = { "1": 0, "2": 25, "3": 50, "4": 75, "5": 100 };
  const BLOCKS = config.blocks.length ? config.blocks : [{ key: "", labels: config.levels }];
  const state = { cases: [], index: 0, current: null, block: 0 };
  const $ = (id) => document.getElementById(id);
  const fmt = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function reviewer() { return $("reviewer").value.trim(); }

  async function getJSON(url) {
    const answer = await fetch(url, { cache: "no-store" });
    if (!answer.ok) throw new Error(await answer.text());
    return answer.json();
  }

  async function loadQueue() {
    const data = await getJSON(config.urls.queue + "?reviewer=" + encodeURIComponent(reviewer()));
    state.cases = data.cases;
    $("progress").textContent = fmt(W.progress, { done: data.done, total: data.total });
    const a = data.agreement;
    $("agreement").textContent = a.cases ? fmt(W.agreement, {
      mad: a.score_mad === null ? "–" : a.score_mad.toFixed(1), pairs: a.score_pairs,
      agreed: a.level_agreed, levels: a.level_pairs }) : W.no_agreement;
    renderQueue();
  }

  function renderQueue() {
    const list = $("queue");
    list.replaceChildren();
    if (!state.cases.length) { $("item").replaceChildren(el("p", W.empty)); return; }
    state.cases.forEach((c, i) => {
      const item = el("li", c.id);
      item.dataset.id = c.id;
      if (c.mine) item.classList.add(c.mine.skipped ? "skipped" : "done");
      if (i === state.index) item.classList.add("current");
      item.addEventListener("click", () => go(i));
      list.append(item);
    });
  }

  async function go(index) {
    if (!state.cases.length) return;
    state.index = Math.max(0, Math.min(state.cases.length - 1, index));
    renderQueue();
    const id = state.cases[state.index].id;
    const data = await getJSON(config.urls.case + "?id=" + encodeURIComponent(id));
    state.current = data;
    renderItem(data);
    const current = $("queue").querySelector("li.current");
    if (current) current.scrollIntoView({ block: "nearest" });
  }

  function renderItem(data) {
    const c = data.case;
    const item = $("item");
    item.replaceChildren(el("h2", c.id));
    item.append(el("p", W.priority + ": " + (c.priority === null ? "–" : c.priority) +
                        (c.rule ? " · " + c.rule : "")));
    item.append(form(data), el("h3", W.dialog));
    for (const m of c.dialog || []) item.append(message(m));
    item.append(el("h3", W.machine), machine(c.machine), el("h3", W.others), others(data));
  }

  function message(m) {
    const box = el("div", null, "msg " + (m.role === "user" ? "user" : "assistant"));
    box.append(el("span", m.role, "who"), el("span", m.content));
    const meta = [];
    if (m.tool_calls) meta.push(W.calls + ": " + m.tool_calls.join(", "));
    if (m.latency_ms !== undefined) meta.push(fmt(W.latency, { ms: m.latency_ms }));
    if (meta.length) box.append(el("div", meta.join(" · "), "meta"));
    return box;
  }

  function machine(view) {
    const box = el("div");
    box.append(el("p", Object.entries(view.labels || {}).map(([k, v]) => k + ": " + v).join(" · ")));
    const table = el("table");
    const head = el("tr");
    for (const w of [W.check, W.status, W.score, W.value, W.reason]) head.append(el("th", w));
    table.append(head);
    for (const [name, r] of Object.entries(view.checks || {})) {
      const row = el("tr");
      for (const v of [name, r.status, r.score, JSON.stringify(r.value), r.reason]) row.append(el("td", v));
      table.append(row);
    }
    box.append(table);
    return box;
  }

  // One reviewer's labels of a case (one per block) as the form reads them.
  function judgement(labels) {
    if (!labels.length) return null;
    const latest = labels.reduce((a, b) => (b.saved_at > a.saved_at || (b.saved_at === a.saved_at && b.number > a.number) ? b : a));
    const levels = {};
    for (const l of labels) if (l.level) levels[l.block] = l.level;
    return { reviewer: latest.reviewer, score: latest.score, note: latest.note, saved_at: latest.saved_at,
             skipped: labels.every((l) => l.skipped), levels: levels };
  }

  function byReviewer(labels) {
    const names = [...new Set(labels.map((l) => l.reviewer))];
    return names.map((name) => judgement(labels.filter((l) => l.reviewer === name)));
  }

  function others(data) {
    const box = el("div");
    if (!data.labels.length) { box.append(el("p", W.none_yet)); return box; }
    const list = el("ul");
    const people = byReviewer(data.labels);
    for (const j of people) {
      const levels = BLOCKS.filter((b) => j.levels[b.key]).map((b) => (BLOCKS.length > 1 ? b.key + ": " : "") + j.levels[b.key]);
      const words = j.skipped ? W.skipped : [j.score === null ? "" : j.score, levels.join(" · ")].join(" ");
      list.append(el("li", j.reviewer + ": " + words + (j.note ? " — " + j.note : "") + " (" + j.saved_at + ")"));
    }
    box.append(list);
    const scores = people.filter((j) => j.score !== null && !j.skipped).map((j) => j.score);
    if (scores.length > 1) {
      box.append(el("p", fmt(W.spread, { points: Math.max(...scores) - Math.min(...scores) }), "spread"));
    }
    const levels = people.map((j) => j.levels[BLOCKS[0].key]).filter((x) => x);
    if (levels.length > 1) box.append(el("p", new Set(levels).size === 1 ? W.levels_agree : W.levels_differ));
    return box;
  }

  function form(data) {
    const mine = judgement(data.labels.filter((l) => l.reviewer === reviewer())) || { levels: {} };
    const f = el("form");
    f.id = "form";
    const score = el("input");
    Object.assign(score, { id: "score", type: "number", min: 0, max: 100, step: "any" });
    score.value = mine.score === null || mine.score === undefined ? "" : mine.score;
    const levelLabels = BLOCKS.map((block, i) => {
      const level = el("select");
      level.id = i ? "level-" + i : "level";
      level.dataset.block = block.key;
      for (const name of ["", ...block.labels]) level.append(el("option", name));
      level.value = mine.levels[block.key] || "";
      const label = el("label", (block.key ? fmt(W.level_of, { block: block.key }) : W.level) + " ", "block");
      if (i === state.block) label.classList.add("active");
      label.append(level);
      return label;
    });
    const note = el("textarea");
    note.id = "note";
    note.value = mine.note || "";
    const scoreLabel = el("label", W.score + " ");
    scoreLabel.append(score);
    const save = el("button", W.save);
    save.type = "submit";
    const skip = el("button", W.skip);
    skip.type = "button";
    skip.addEventListener("click", () => submit(true));
    f.append(scoreLabel, ...levelLabels, el("div", W.note), note, save, skip, el("span", "", ""));
    f.lastChild.id = "status";
    f.addEventListener("submit", (e) => { e.preventDefault(); submit(false); });
    return f;
  }

  async function submit(skipped) {
    const status = $("status");
    if (!reviewer()) { status.textContent = W.reviewer_needed; status.className = "error"; $("reviewer").focus(); return; }
    const raw = $("score").value.trim();
    const levels = {};
    for (const select of document.querySelectorAll("#form select")) {
      levels[select.dataset.block] = skipped ? null : select.value || null;
    }
    const body = { case_id: state.current.case.id, reviewer: reviewer(), skipped: skipped,
                   score: skipped || raw === "" ? null : Number(raw),
                   levels: levels, note: $("note").value };
    const answer = await fetch(config.urls.labels, { method: "POST", body: JSON.stringify(body),
                                                     headers: { "Content-Type": "application/json",
                                                                [config.token_header]: config.token } });
    const data = await answer.json();
    if (!answer.ok) { status.textContent = data.error; status.className = "error"; return; }
    await loadQueue();
    await go(state.index + 1);
    const again = $("status");
    if (again) { again.textContent = skipped ? W.skipped : W.saved; again.className = ""; }
  }

  function typing(target) {
    return target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT");
  }

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "Escape") { document.activeElement.blur(); return; }
    if (e.target.id === "reviewer") { if (e.key === "Enter") e.target.blur(); return; }
    if (typing(e.target)) {
      if (e.key === "Enter" && e.target.tagName !== "TEXTAREA") { e.preventDefault(); submit(false); }
      return;
    }
    if (!state.current) return;
    if (e.key === "j") go(state.index + 1);
    else if (e.key === "k") go(state.index - 1);
    else if (e.key in SCORES) $("score").value = SCORES[e.key];
    else if (e.key === "l") {
      const select = document.querySelectorAll("#form select")[state.block];
      select.selectedIndex = (select.selectedIndex + 1) % select.options.length;
    } else if (e.key === "b" && BLOCKS.length > 1) {
      state.block = (state.block + 1) % BLOCKS.length;
      document.querySelectorAll("#form label.block").forEach((label, i) => label.classList.toggle("active", i === state.block));
    } else if (e.key === "n") { e.preventDefault(); $("note").focus(); }
    else if (e.key === "x") submit(true);
    else if (e.key === "Enter") { e.preventDefault(); submit(false); }
    else return;
    e.preventDefault();
  });

  function start() {
    document.title = W.title;
    $("title").textContent = W.title;
    $("reviewer-word").textContent = W.reviewer;
    $("keys").textContent = W.keys + (BLOCKS.length > 1 ? " · " + W.block_keys : "");
    $("blocks").textContent = fmt(W.labelling, { blocks: BLOCKS.map((b) => "`" + b.key + "`").join(", ") });
    const link = $("language");
    link.textContent = config.other === "zh" ? "中文" : "English";
    const params = new URLSearchParams(location.search);
    params.set("lang", config.other);
    link.href = config.urls.page + "?" + params.toString();
    const name = params.get("reviewer") || localStorage.getItem("evaldsl.reviewer") || "";
    $("reviewer").value = name;
    $("reviewer").addEventListener("change", () => {
      localStorage.setItem("evaldsl.reviewer", reviewer());
      loadQueue().then(() => go(state.index));
    });
    loadQueue().then(() => {
      const next = state.cases.findIndex((c) => !c.mine);
      return go(next < 0 ? 0 : next);
    });
  }

  start();
})();
