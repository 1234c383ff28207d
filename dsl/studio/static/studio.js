/* What every studio page shares: its words, JSON requests, the language switch. */
"use strict";
var studio = (function () {
  var ui = JSON.parse(document.getElementById("ui").textContent);
  /* The token of this start of the studio: every write carries it. */
  var token = document.querySelector("meta[name=evaldsl-token]").content;

  function say(key, fields) {
    return (ui[key] || key).replace(/\{(\w+)\}/g, function (all, name) {
      return fields && name in fields ? String(fields[name]) : all;
    });
  }

  /* POST (or GET without a body) and the JSON answer; a refusal is an Error with its text. */
  function request(path, body) {
    var options = body === undefined ? {} : {
      method: "POST", headers: {"Content-Type": "application/json", "X-Evaldsl-Token": token},
      body: JSON.stringify(body)};
    return fetch(path, options).then(function (answer) {
      if (!answer.ok) {
        return answer.text().then(function (text) { throw new Error(text || answer.statusText); });
      }
      return answer.json();
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("button[data-lang]"), function (b) {
    b.addEventListener("click", function () {
      request("/api/lang", {lang: b.dataset.lang}).then(function () { location.reload(); });
    });
  });

  return {say: say, request: request, draftKey: "evaldsl-studio-draft"};
})();
