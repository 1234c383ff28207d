// The case explorer: filters over every case, one page of rows at a time, a drill-down.
// Case data is read from a JSON element and rendered with textContent only: a dialog may
// hold anything, markup included, and must stay text.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("explorer-data").textContent);
  var W = JSON.parse(document.getElementById("explorer-words").textContent);
  var PAGE = 100;
  var cases = D.cases, matches = [], start = 0, haystacks = null;
  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function word(status) { return W.status[status] || status; }
  function shown(v) {
    if (v === null || v === undefined) return "–";
    return typeof v === "string" ? v : JSON.stringify(v);
  }
  function option(select, value, text) {
    var o = el("option", text); o.value = value; select.appendChild(o);
  }

  // ------------------------------------------------------------ filter options from data
  function fillOptions() {
    var reasons = {}, groups = D.groups_of.map(function () { return {}; });
    cases.forEach(function (c, i) {
      c.e.forEach(function (r) { reasons[r] = (reasons[r] || 0) + 1; });
      var g = D.group_values[i];
      if (g) g.forEach(function (v, k) { if (v !== null) groups[k][String(v)] = 1; });
    });
    var errors = $("f-error");
    Object.keys(reasons).sort(function (a, b) { return reasons[b] - reasons[a]; })
      .slice(0, 200).forEach(function (r) { option(errors, "r:" + r, r + " (" + reasons[r] + ")"); });
    var select = $("f-group");
    D.groups_of.forEach(function (name, k) {
      Object.keys(groups[k]).sort().slice(0, 500).forEach(function (v) {
        option(select, k + ":" + v, "case." + name + " = " + v);
      });
    });
  }

  // ------------------------------------------------------------ filtering
  function textOf(i) {
    var c = cases[i], parts = [c.id];
    c.e.forEach(function (r) { parts.push(r); });
    c.c.forEach(function (k) { if (k && k[3]) parts.push(k[3]); });
    (D.dialogs[i] || []).forEach(function (t) { parts.push(t[1]); t[2].forEach(function (x) { parts.push(x); }); });
    return parts.join("\n").toLowerCase();
  }
  function predicate() {
    var label = $("f-label").value, check = $("f-check").value, status = $("f-status").value;
    var error = $("f-error").value, group = $("f-group").value;
    var id = $("f-id").value.trim().toLowerCase(), text = $("f-text").value.trim().toLowerCase();
    var tests = [];
    if (label) {
      var at = label.indexOf(":"), b = +label.slice(0, at), lab = label.slice(at + 1);
      tests.push(function (c) { return c.l[b] === lab; });
    }
    if (status) {
      var want = status === "not_needed" ? "not_needed" : status;
      tests.push(check === ""
        ? function (c) { return c.c.some(function (k) { return k && k[0] === want; }); }
        : function (c) { var k = c.c[+check]; return !!k && k[0] === want; });
    } else if (check !== "") {
      tests.push(function (c) { return !!c.c[+check]; });
    }
    if (error === "some") tests.push(function (c) { return c.e.length > 0; });
    else if (error === "none") tests.push(function (c) { return c.e.length === 0; });
    else if (error === "x") tests.push(function (c) { return c.x; });
    else if (error) {
      var reason = error.slice(2);
      tests.push(function (c) { return c.e.indexOf(reason) >= 0; });
    }
    if (id) tests.push(function (c) { return c.id.toLowerCase().indexOf(id) >= 0; });
    var tests_i = [];
    if (group) {
      var gat = group.indexOf(":"), gk = +group.slice(0, gat), gv = group.slice(gat + 1);
      tests_i.push(function (i) { var g = D.group_values[i]; return !!g && g[gk] !== null && String(g[gk]) === gv; });
    }
    if (text) {
      if (!haystacks) haystacks = cases.map(function (_c, i) { return textOf(i); });
      tests_i.push(function (i) { return haystacks[i].indexOf(text) >= 0; });
    }
    return function (i) {
      var c = cases[i];
      for (var t = 0; t < tests.length; t++) if (!tests[t](c)) return false;
      for (var u = 0; u < tests_i.length; u++) if (!tests_i[u](i)) return false;
      return true;
    };
  }
  function filter() {
    var keep = predicate();
    matches = [];
    for (var i = 0; i < cases.length; i++) if (keep(i)) matches.push(i);
    start = 0;
    render();
  }

  // ------------------------------------------------------------ the page of rows
  function render() {
    var body = $("case-rows");
    body.textContent = "";
    var end = Math.min(start + PAGE, matches.length);
    for (var n = start; n < end; n++) body.appendChild(row(matches[n]));
    $("match-count").textContent = W.matches.replace("{count}", matches.length).replace("{total}", cases.length);
    $("page-info").textContent = matches.length ? W.page.replace("{from}", start + 1).replace("{to}", end) : "";
    $("prev").disabled = start === 0;
    $("next").disabled = end >= matches.length;
  }
  function row(i) {
    var c = cases[i], tr = el("tr");
    tr.tabIndex = 0;
    tr.setAttribute("data-index", i);
    tr.appendChild(el("td", c.id, "id"));
    tr.appendChild(el("td", c.l.join(" · ")));
    var failing = [];
    c.c.forEach(function (k, j) { if (k && (k[0] === "failed" || k[0] === "error")) failing.push(D.checks[j] + ": " + word(k[0])); });
    tr.appendChild(el("td", failing.join(", ")));
    tr.appendChild(el("td", c.e.join("; ")));
    return tr;
  }

  // ------------------------------------------------------------ the drill-down
  function open(i) {
    var c = cases[i], box = $("drill");
    if (!c) return;
    box.textContent = "";
    box.hidden = false;
    box.setAttribute("data-index", i);
    box.appendChild(el("h3", c.id));
    if (c.row) box.appendChild(el("p", c.row, "muted"));
    box.appendChild(el("h4", W.trace));
    box.appendChild(trace(c));
    box.appendChild(el("h4", W.checks));
    box.appendChild(checks(c));
    var lets = Object.keys(c.v);
    if (lets.length) {
      box.appendChild(el("h4", W.lets));
      var t = el("table", null, "lets");
      lets.forEach(function (name) {
        var tr = el("tr"); tr.setAttribute("data-let", name);
        tr.appendChild(el("td", name)); tr.appendChild(el("td", shown(c.v[name]), "num"));
        t.appendChild(tr);
      });
      box.appendChild(t);
    }
    box.appendChild(el("h4", W.dialog));
    box.appendChild(dialog(i));
    box.scrollIntoView({block: "nearest"});
  }
  function trace(c) {
    var list = el("ol", null, "trace");
    D.blocks.forEach(function (b, k) {
      var fired = c.b[k], text = typeof fired === "number" ? b.branches[fired] : fired;
      list.appendChild(el("li", (b.name || W.verdict) + " = " + c.l[k] + (text ? " — " + text : "")));
    });
    c.c.forEach(function (k, j) {
      if (k) list.appendChild(el("li", D.checks[j] + ": " + word(k[0]) + (k[1] !== null && k[1] !== undefined ? ", " + W.score + " " + k[1] : ""), k[0]));
    });
    return list;
  }
  function checks(c) {
    var t = el("table", null, "drill-checks");
    c.c.forEach(function (k, j) {
      if (!k || k[0] === "not_needed") return;
      var tr = el("tr"); tr.setAttribute("data-check", D.checks[j]);
      tr.appendChild(el("td", D.checks[j]));
      tr.appendChild(el("td", word(k[0]), k[0]));
      tr.appendChild(el("td", shown(k[2])));
      tr.appendChild(el("td", k[3], "reason"));
      t.appendChild(tr);
      var f = k[4];
      if ("strict" in f) t.appendChild(pair(f, k[0]));
      Object.keys(f).forEach(function (name) {
        if (name === "strict" || name === "mismatches" || name === "strict_mismatches") return;
        var extra = el("tr", null, "field");
        extra.appendChild(el("td", "")); extra.appendChild(el("td", name));
        var cell = el("td", shown(f[name])); cell.colSpan = 2; extra.appendChild(cell);
        t.appendChild(extra);
      });
    });
    return t;
  }
  function pair(f, status) {
    // args_match and its kind: the normalized verdict beside the strict one, each with its why
    var tr = el("tr", null, "pair"), normal = el("td"), strict = el("td");
    normal.appendChild(el("strong", W.normalized + ": " + word(status)));
    normal.appendChild(el("div", shown(f.mismatches)));
    strict.appendChild(el("strong", W.strict + ": " + word(f.strict ? "passed" : "failed")));
    strict.appendChild(el("div", shown(f.strict_mismatches)));
    normal.colSpan = 2; strict.colSpan = 2;
    tr.appendChild(normal); tr.appendChild(strict);
    return tr;
  }
  function dialog(i) {
    var turns = D.dialogs[i], box = el("div", null, "dialog");
    if (!turns) { box.appendChild(el("p", W.no_dialog, "empty")); return box; }
    turns.forEach(function (t) {
      var m = el("div", null, "msg " + t[0].split(" ")[0]);
      m.appendChild(el("span", t[0] + (t[3] !== null && t[3] !== undefined ? " · " + t[3] + " ms" : ""), "role"));
      m.appendChild(document.createTextNode(t[1]));
      t[2].forEach(function (call) { m.appendChild(el("div", "→ " + call, "call")); });
      box.appendChild(m);
    });
    return box;
  }

  // ------------------------------------------------------------ wiring
  function fromHash() {
    var m = /^#case-(\d+)$/.exec(location.hash);
    if (m) open(+m[1]);
  }
  ["f-label", "f-check", "f-status", "f-error", "f-group"].forEach(function (id) { $(id).addEventListener("change", filter); });
  ["f-id", "f-text"].forEach(function (id) { $(id).addEventListener("input", filter); });
  $("prev").addEventListener("click", function () { start = Math.max(0, start - PAGE); render(); });
  $("next").addEventListener("click", function () { if (start + PAGE < matches.length) { start += PAGE; render(); } });
  var rows = $("case-rows");
  function target(e) { var tr = e.target.closest("tr[data-index]"); return tr ? +tr.getAttribute("data-index") : -1; }
  rows.addEventListener("click", function (e) { var i = target(e); if (i >= 0) open(i); });
  rows.addEventListener("keydown", function (e) { if (e.key === "Enter") { var i = target(e); if (i >= 0) open(i); } });
  window.addEventListener("hashchange", fromHash);
  fillOptions();
  filter();
  fromHash();
  window.evaldslExplorer = {filter: filter, open: open};
})();
