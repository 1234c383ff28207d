/* The run page: start a run of the examples (the editor's text) or of a cases file (the
   saved spec), then poll its progress until it ends, and link its results. */
"use strict";
(function () {
  var state = document.getElementById("run-state");
  var bar = document.getElementById("run-progress");
  var count = document.getElementById("run-count");
  var message = document.getElementById("run-message");
  var examples = document.getElementById("run-examples-list");
  var open = document.getElementById("open-results");
  var POLL_MS = 300;

  function show(run) {
    state.hidden = false;
    state.dataset.state = run.state;
    bar.max = run.total || 1;
    bar.value = run.total ? run.done : (run.state === "running" ? 0 : 1);
    count.textContent = run.total === null ? studio.say("progress_open", run)
      : studio.say("progress", run);
    message.textContent = run.state === "running" ? studio.say("running") : run.message;
    examples.textContent = "";
    run.examples.forEach(function (e) {
      var li = document.createElement("li");
      li.className = e.passed ? "passed" : "failed";
      li.textContent = e.name + " (" + (e.passed ? studio.say("passed") : studio.say("failed")) +
        ")";
      if (e.why) {
        var why = document.createElement("pre");
        why.textContent = e.why;
        li.appendChild(why);
      }
      examples.appendChild(li);
    });
    open.hidden = !run.results;
    if (run.results) { open.href = run.results; }
    if (run.state === "running") {
      setTimeout(function () { studio.request("/api/run/" + run.id).then(show).catch(fail); },
                 POLL_MS);
    }
  }

  function fail(error) {
    state.hidden = false;
    state.dataset.state = "failed";
    message.textContent = studio.say("request_failed", {error: error.message});
  }

  function start(body) { studio.request("/api/run", body).then(show).catch(fail); }

  document.getElementById("run-examples").addEventListener("click", function () {
    var draft = sessionStorage.getItem(studio.draftKey);
    if (draft !== null) { start({kind: "examples", text: draft}); return; }
    studio.request("/api/spec").then(function (spec) {
      start({kind: "examples", text: spec.text});
    }).catch(fail);
  });
  document.getElementById("run-cases").addEventListener("click", function () {
    var sample = document.getElementById("sample").value;
    var seed = document.getElementById("seed").value;
    start({kind: "cases", cases: document.getElementById("cases").value,
           sample: sample ? parseInt(sample, 10) : null,
           seed: seed ? parseInt(seed, 10) : null});
  });
})();
