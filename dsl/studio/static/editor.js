/* The editor: a textarea over an overlay that draws the squiggles, and the language
   service's answers (problems, quick fixes, completions, hover) from /api/*. Positions are
   {line, character} in UTF-16 code units, which is how JavaScript strings count. */
"use strict";
(function () {
  var source = document.getElementById("source");
  var overlay = document.getElementById("overlay");
  var list = document.getElementById("problems");
  var hoverBox = document.getElementById("hover");
  var menu = document.getElementById("completions");
  var saveState = document.getElementById("save-state");
  var version = 0, saved = "", problems = [], items = [], chosen = 0, timer = null;
  var WORD = /[\w\u3400-\u9fff]*$/;

  function position(offset) {
    var before = source.value.slice(0, offset).split("\n");
    return {line: before.length - 1, character: before[before.length - 1].length};
  }

  function offset(pos) {
    var lines = source.value.split("\n"), at = 0;
    for (var i = 0; i < pos.line && i < lines.length; i++) { at += lines[i].length + 1; }
    return Math.min(at + pos.character, source.value.length);
  }

  function query(path, extra) {
    var body = {text: source.value, version: version};
    for (var key in extra) { body[key] = extra[key]; }
    return studio.request(path, body);
  }

  function drawOverlay(caret) {
    var text = source.value, at = 0, parts = [];
    var marks = problems.map(function (p, i) {
      return {from: offset(p.range.start), to: offset(p.range.end), p: p, i: i};
    }).sort(function (a, b) { return a.from - b.from; });
    function plain(to) {
      if (caret !== undefined && caret >= at && caret <= to) {
        parts.push(escape(text.slice(at, caret)), '<span id="caret-mark"></span>');
        parts.push(escape(text.slice(caret, to)));
        caret = undefined;
      } else { parts.push(escape(text.slice(at, to))); }
      at = to;
    }
    marks.forEach(function (m) {
      if (m.from < at) { return; }
      plain(m.from);
      var to = Math.max(m.to, m.from + 1);
      parts.push('<span class="sq sq-' + m.p.severity + '" data-problem="' + m.i + '">');
      plain(Math.min(to, text.length));
      if (to > text.length) { parts.push(" "); }
      parts.push("</span>");
    });
    plain(text.length);
    overlay.innerHTML = parts.join("") + "\n";
    overlay.scrollTop = source.scrollTop;
    overlay.scrollLeft = source.scrollLeft;
  }

  function escape(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function showProblems() {
    list.textContent = "";
    if (!problems.length) {
      var none = document.createElement("li");
      none.className = "none";
      none.textContent = studio.say("no_problems");
      list.appendChild(none);
    }
    problems.forEach(function (p) {
      var li = document.createElement("li"), code = document.createElement("span");
      li.className = p.severity;
      code.className = "code";
      code.textContent = studio.say(p.severity) + "[" + p.code + "]";
      li.appendChild(code);
      li.appendChild(document.createTextNode(" " + (p.range.start.line + 1) + ":" +
        (p.range.start.character + 1) + " " + p.message));
      if (p.hint) {
        var hint = document.createElement("span");
        hint.className = "hint";
        hint.textContent = studio.say("help") + ": " + p.hint;
        li.appendChild(hint);
      }
      if (p.suggestion) { li.appendChild(fixButton(p)); }
      list.appendChild(li);
    });
  }

  function fixButton(problem) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "fix";
    button.textContent = studio.say("fix") + ": " + problem.suggestion;
    button.addEventListener("click", function () {
      query("/api/fixes", {range: problem.range}).then(function (answer) {
        if (answer.fixes.length) { apply([answer.fixes[0].edit]); }
      }).catch(failed);
    });
    return button;
  }

  /* Edits from the service, applied last first so earlier ranges stay true. */
  function apply(edits) {
    var text = source.value;
    edits.map(function (e) {
      return {from: offset(e.range.start), to: offset(e.range.end), text: e.new_text};
    }).sort(function (a, b) { return b.from - a.from; }).forEach(function (e) {
      text = text.slice(0, e.from) + e.text + text.slice(e.to);
    });
    source.value = text;
    changed();
  }

  function check() {
    var asked = version;
    return query("/api/check").then(function (answer) {
      if (asked !== version) { return; }
      problems = answer.problems;
      drawOverlay();
      showProblems();
      document.body.dataset.checked = String(asked);
    }).catch(failed);
  }

  function changed() {
    version += 1;
    sessionStorage.setItem(studio.draftKey, source.value);
    saveState.textContent = source.value === saved ? studio.say("saved") : studio.say("unsaved");
    drawOverlay();
    clearTimeout(timer);
    timer = setTimeout(check, 120);
  }

  function failed(error) { saveState.textContent = studio.say("request_failed", {error: error}); }

  function askHover() {
    var at = position(source.selectionStart);
    query("/api/hover", {position: at}).then(function (answer) {
      hoverBox.textContent = answer.hover ? answer.hover.markdown : studio.say("hover_empty");
    }).catch(failed);
  }

  function askCompletion() {
    var at = source.selectionStart;
    query("/api/complete", {position: position(at)}).then(function (answer) {
      var prefix = source.value.slice(0, at).match(WORD)[0];
      items = answer.items.filter(function (i) { return i.label.indexOf(prefix) === 0; });
      chosen = 0;
      showMenu(at);
    }).catch(failed);
  }

  function showMenu(at) {
    menu.textContent = "";
    if (!items.length) { menu.hidden = true; return; }
    items.slice(0, 50).forEach(function (item, i) {
      var li = document.createElement("li"), detail = document.createElement("span");
      li.textContent = item.label;
      li.setAttribute("role", "option");
      li.className = i === chosen ? "chosen" : "";
      detail.className = "detail";
      detail.textContent = item.detail;
      li.appendChild(detail);
      li.addEventListener("mousedown", function (event) {
        event.preventDefault();
        accept(i);
      });
      menu.appendChild(li);
    });
    drawOverlay(at);
    var mark = document.getElementById("caret-mark"), box = overlay.getBoundingClientRect();
    var spot = mark.getBoundingClientRect();
    menu.style.left = (spot.left - box.left) + "px";
    menu.style.top = (spot.bottom - box.top) + "px";
    menu.hidden = false;
  }

  function accept(i) {
    var item = items[i], at = source.selectionStart;
    var prefix = source.value.slice(0, at).match(WORD)[0];
    var text = item.insert_text || item.label;
    source.value = source.value.slice(0, at - prefix.length) + text + source.value.slice(at);
    source.selectionStart = source.selectionEnd = at - prefix.length + text.length;
    menu.hidden = true;
    changed();
  }

  source.addEventListener("input", function (event) {
    changed();
    if (event.data && ".(:,".indexOf(event.data.slice(-1)) >= 0) { askCompletion(); }
    else if (!menu.hidden) { askCompletion(); }
  });
  source.addEventListener("keydown", function (event) {
    if (event.ctrlKey && event.key === " ") { event.preventDefault(); askCompletion(); return; }
    if (menu.hidden) { return; }
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      var step = event.key === "ArrowDown" ? 1 : -1;
      chosen = (chosen + step + Math.min(items.length, 50)) % Math.min(items.length, 50);
      showMenu(source.selectionStart);
    } else if (event.key === "Enter" || event.key === "Tab") {
      event.preventDefault();
      accept(chosen);
    } else if (event.key === "Escape") { menu.hidden = true; }
  });
  source.addEventListener("scroll", function () {
    overlay.scrollTop = source.scrollTop;
    overlay.scrollLeft = source.scrollLeft;
  });
  source.addEventListener("click", askHover);
  source.addEventListener("keyup", function (event) {
    if (event.key.indexOf("Arrow") === 0 && menu.hidden) { askHover(); }
  });
  source.addEventListener("blur", function () { menu.hidden = true; });

  document.getElementById("save").addEventListener("click", function () {
    var text = source.value;
    studio.request("/api/save", {text: text}).then(function () {
      saved = text;
      saveState.textContent = source.value === saved ? studio.say("saved") : studio.say("unsaved");
    }).catch(failed);
  });
  document.getElementById("format").addEventListener("click", function () {
    query("/api/format").then(function (answer) { apply(answer.edits); }).catch(failed);
  });

  hoverBox.textContent = studio.say("hover_empty");
  studio.request("/api/spec").then(function (answer) {
    saved = answer.text;
    var draft = sessionStorage.getItem(studio.draftKey);
    source.value = draft !== null ? draft : answer.text;
    changed();
  }).catch(failed);
})();
