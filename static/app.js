// The sheet's small helpers. Everything works without this file; it only adds
// comfort: polls that never wipe what someone is typing, copy buttons, and a
// screen that stays awake at the table. No inline scripts anywhere, so a strict
// Content-Security-Policy can forbid them.
(function () {
  "use strict";

  function isPoll(detail) {
    return Boolean(detail.elt && detail.elt.matches("[data-poll]"));
  }

  function dirty(field) {
    if (field.type === "checkbox" || field.type === "radio") {
      return field.checked !== field.defaultChecked;
    }
    if (field.tagName === "SELECT") {
      return Array.prototype.some.call(field.options, function (option) {
        return option.selected !== option.defaultSelected;
      });
    }
    return field.value !== field.defaultValue;
  }

  // Someone is typing in the sheet (a correction, say): a swap now would wipe it.
  function busy(sheet) {
    var active = document.activeElement;
    if (active && sheet.contains(active) && active.matches("input:not([type=hidden]), textarea, select")) {
      return true;
    }
    if (sheet.querySelector(".htmx-request:not([data-poll])")) {
      return true;
    }
    var fields = sheet.querySelectorAll("details[open] input, details[open] textarea, details[open] select");
    return Array.prototype.some.call(fields, dirty);
  }

  document.addEventListener("htmx:confirm", function (event) {
    var sheet = document.getElementById("sheet");
    if (isPoll(event.detail) && (document.visibilityState !== "visible" || (sheet && busy(sheet)))) {
      event.preventDefault();
    }
  });

  // The version a sheet fragment shows, from its data-version.
  function version(html) {
    var found = /data-version="(\d+)"/.exec(html || "");
    return found ? parseInt(found[1], 10) : null;
  }

  var openDetails = null;

  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail;
    var sheet = document.getElementById("sheet");
    if (!sheet || detail.target !== sheet) {
      return;
    }
    if (isPoll(detail) && detail.xhr.status === 200) {
      // A poll that left before an action's answer must not bring back an older sheet.
      var theirs = version(detail.serverResponse);
      var ours = parseInt(sheet.dataset.version, 10);
      if (busy(sheet) || (theirs !== null && theirs < ours)) {
        detail.shouldSwap = false;
        return;
      }
    }
    openDetails = {};
    sheet.querySelectorAll("details[id]").forEach(function (details) {
      openDetails[details.id] = details.open;
    });
  });

  document.addEventListener("htmx:afterSwap", function () {
    if (!openDetails) {
      return;
    }
    Object.keys(openDetails).forEach(function (id) {
      var details = document.getElementById(id);
      if (details && details.tagName === "DETAILS") {
        details.open = openDetails[id];
      }
    });
    openDetails = null;
  });

  // A tap sent again by offline.js came back with the sheet it changed: in it goes,
  // on the same terms as a poll's (never an older sheet, never over someone typing).
  document.addEventListener("sheet:fresh", function (event) {
    var sheet = document.getElementById("sheet");
    var theirs = version(event.detail.html);
    if (!sheet || !window.htmx || busy(sheet)) {
      return; // the next poll brings it
    }
    if (theirs !== null && theirs <= parseInt(sheet.dataset.version, 10)) {
      return;
    }
    window.htmx.swap(sheet, event.detail.html, { swapStyle: "outerHTML" });
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    if (event.detail.successful && elt.matches("form[data-reset]")) {
      elt.reset();
    }
  });

  // Copy buttons stay hidden without a clipboard to copy to.
  function showCopyButtons(root) {
    if (!navigator.clipboard) {
      return;
    }
    root.querySelectorAll("[data-copy]").forEach(function (button) {
      button.hidden = false;
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) {
      return;
    }
    navigator.clipboard.writeText(button.dataset.copy).then(function () {
      var label = button.textContent;
      button.textContent = button.dataset.copied || label;
      setTimeout(function () {
        button.textContent = label;
      }, 2000);
    });
  });

  // A message goes away with a tap once read.
  document.addEventListener("click", function (event) {
    var message = event.target.closest("#messages .message");
    if (message) {
      message.remove();
    }
  });

  document.addEventListener("change", function (event) {
    if (event.target.matches("[data-autosubmit]")) {
      event.target.form.requestSubmit();
    }
  });

  // Keep the screen on while the sheet is open; the browser drops the lock
  // whenever the tab is hidden, so take it again when the tab comes back.
  function stayAwake() {
    if (!("wakeLock" in navigator) || document.visibilityState !== "visible") {
      return;
    }
    if (!document.querySelector("[data-wake-lock]")) {
      return;
    }
    navigator.wakeLock.request("screen").catch(function () {});
  }

  document.addEventListener("visibilitychange", stayAwake);

  if (window.htmx) {
    window.htmx.onLoad(showCopyButtons);
  } else {
    showCopyButtons(document);
  }
  stayAwake();
})();
