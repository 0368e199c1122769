// The sheet's small helpers. Everything works without this file; it only adds
// comfort: other phones' changes brought in as the event stream tells of them (and
// polled for where no stream is heard), never over what someone is typing, the focus
// kept on the control used (or its replacement) when the sheet is morphed, other
// phones' changes said politely, a calculator that starts afresh, copy buttons, and a
// screen that stays awake at the table. No inline scripts anywhere, so a strict
// Content-Security-Policy can forbid them.
(function () {
  "use strict";

  // Whether an htmx event is about the poll: the element that sent the request (a
  // swap's own detail.elt is the element swapped into).
  function isPoll(detail) {
    var elt = detail.requestConfig ? detail.requestConfig.elt : detail.elt;
    return Boolean(elt && elt.matches("[data-poll]"));
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

  // Someone is typing in the sheet, or in a panel, or waits for a tap's answer: a swap
  // now would wipe it. A part that asks again by itself ([data-asks-by-itself]) never
  // holds the sheet back: it asks all the time, and a slow network would hold it for good.
  function busy(root) {
    var active = document.activeElement;
    if (active && root.contains(active) && active.matches("input:not([type=hidden]), textarea, select")) {
      return true;
    }
    if (root.querySelector(".htmx-request:not([data-poll]):not([data-asks-by-itself])")) {
      return true;
    }
    var fields = root.querySelectorAll("details[open] input, details[open] textarea, details[open] select");
    return Array.prototype.some.call(fields, dirty);
  }

  // The event stream, which htmx's SSE extension holds open on the element with
  // sse-connect: its "change" makes the poll element fetch the sheet. While the stream
  // is heard (an event or a heartbeat lately), the poll's clock rests and an idle phone
  // sends nothing; where it is not (a proxy that buffers, a network that drops long
  // requests, a server that holds no streams), the clock polls as before, by itself.
  var stream = { source: null, heard: 0 };
  var behind = false; // the stream told of a change this screen has not brought in yet
  var held = false; // the poll under way brought a sheet it could not swap in

  document.addEventListener("htmx:sseOpen", function (event) {
    var source = event.detail.source;
    if (stream.source === source) {
      return; // the same stream, reconnected by the browser
    }
    stream.source = source;
    var heard = function () {
      stream.heard = Date.now();
    };
    source.addEventListener("ping", heard);
    source.addEventListener("change", heard);
  });

  // The version a "change" tells of, and the one the screen shows; null on a watch
  // screen, whose stream counts the night's versions, not its sheet's (it always asks).
  function shown() {
    return document.getElementById("sheet") || document.getElementById("board");
  }

  function toldOf(triggering) {
    var screen = shown();
    var message = triggering.detail;
    if (!screen || "watching" in screen.dataset || !message || typeof message.data !== "string") {
      return null;
    }
    try {
      var told = JSON.parse(message.data).version;
      return typeof told === "number" ? told : null;
    } catch (error) {
      return null;
    }
  }

  function showing() {
    var screen = shown();
    return screen ? parseInt(screen.dataset.version, 10) : NaN;
  }

  // An action of this screen under way (a tap, a correction): a change the stream tells
  // of meanwhile is most likely that action's own, which its answer brings. The poll
  // waits for the answer, then asks only if the screen is still behind what it was told;
  // and never longer than a tap waits for its answer (offline.js), should an answer go
  // unheard (its element taken out of the page on the way).
  var WAIT_FOR_ANSWER = 6000;
  var acting = 0;
  var toldMeanwhile = null;
  var unanswered = null;

  function isAction(detail) {
    var config = detail.requestConfig;
    return !isPoll(detail) && Boolean(config) && config.verb !== "get";
  }

  function catchUp() {
    clearTimeout(unanswered);
    unanswered = null;
    var told = toldMeanwhile;
    toldMeanwhile = null;
    var poll = document.querySelector("[data-poll]");
    if (told !== null && poll && !(told <= showing())) {
      window.htmx.trigger(poll, "sse:change", { data: JSON.stringify({ version: told }) });
    }
  }

  function waitForAnswer(told) {
    toldMeanwhile = Math.max(toldMeanwhile || 0, told);
    if (unanswered === null) {
      unanswered = setTimeout(function () {
        acting = 0;
        catchUp();
      }, WAIT_FOR_ANSWER);
    }
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (isAction(event.detail)) {
      acting += 1;
    }
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    if (!isAction(event.detail)) {
      return;
    }
    acting = Math.max(0, acting - 1);
    if (!acting && toldMeanwhile !== null) {
      setTimeout(catchUp, 0); // once the answer is in place
    }
  });

  function streaming() {
    var holder = document.querySelector("[sse-connect]");
    var beat = holder ? parseInt(holder.dataset.heartbeat, 10) : 0;
    return Boolean(stream.source && stream.source.readyState === 1 && beat > 0 &&
      Date.now() - stream.heard < 2.5 * beat);
  }

  document.addEventListener("htmx:confirm", function (event) {
    if (!isPoll(event.detail)) {
      return;
    }
    // A poll's clock has no triggering event; the stream's "change" is one. Told of a
    // change, the screen is behind until a poll brings it in: the clock brings it once
    // the player is done, or the network is back (offline.js holds polls till then).
    if (event.detail.triggeringEvent) {
      var told = toldOf(event.detail.triggeringEvent);
      if (told !== null && told <= showing()) {
        event.preventDefault(); // this screen's own change, which its answer brought
        return;
      }
      if (told !== null && acting) {
        event.preventDefault(); // asked once the action's answer is in, if still behind
        waitForAnswer(told);
        return;
      }
      behind = true;
    }
    var sheet = document.getElementById("sheet");
    if (document.visibilityState !== "visible" || (sheet && busy(sheet))) {
      event.preventDefault();
    } else if (!behind && streaming()) {
      event.preventDefault();
    }
  });

  // The poll asks with the ETag of the sheet on the screen: 304 while it is the latest.
  // (A tournament's board is polled the same way: whatever the page shows carries it.)
  document.addEventListener("htmx:configRequest", function (event) {
    var screen = shown();
    if (isPoll(event.detail) && screen && screen.dataset.etag) {
      event.detail.headers["If-None-Match"] = screen.dataset.etag;
    }
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    if (!isPoll(event.detail)) {
      return;
    }
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    // Up to date, unless the sheet it brought waits for the player; a poll that failed
    // (the network, the server) leaves the clock to try again.
    behind = status === 200 || status === 304 ? held : true;
    held = false;
  });

  // Where the pairs go next, once its card is in the sheet: a morph of the sheet would put
  // back the link the card was loaded from (a flash, and a tap on "Go to Table 2" lost).
  // The card stays, and asks once whether what it says still holds (204 while it does).
  if (window.Idiomorph) {
    var morphNode = window.Idiomorph.defaults.callbacks.beforeNodeMorphed;
    window.Idiomorph.defaults.callbacks.beforeNodeMorphed = function (old, next) {
      if (old.id === "series-next" && old.dataset.src && next.id === "series-next" &&
          next.dataset.series === old.dataset.series) {
        window.htmx.ajax("GET", old.dataset.src, { source: old, target: old, swap: "outerHTML" });
        return false;
      }
      return morphNode(old, next);
    };
  }

  // The version a sheet fragment shows, from its data-version.
  function version(html) {
    var found = /data-version="(\d+)"/.exec(html || "");
    return found ? parseInt(found[1], 10) : null;
  }

  var openDetails = null;
  var focused = null; // what had the focus in the sheet before a swap
  var polled = false; // the swap under way came from the poll
  var calculated = false; // the swap under way answers an entry from the calculator
  var said = null; // the answer beside the keys, kept through a swap that is not the player's

  // What the sheet says beside the keys (a refusal and its reason): another phone's
  // change, brought by the poll, must not wipe it. It goes when the player dismisses
  // it or acts again (the action's answer brings its own).
  function keepAnswer() {
    var box = document.querySelector("#sheet #messages");
    return box && box.children.length ? Array.prototype.slice.call(box.children) : null;
  }

  function putBack(answer) {
    var box = document.querySelector("#sheet #messages");
    if (answer && box && !box.children.length) {
      answer.forEach(function (line) {
        box.appendChild(line);
      });
    }
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail;
    if (detail.target && !document.contains(detail.target)) {
      detail.shouldSwap = false; // its element went with a swap of the sheet meanwhile
      return;
    }
    var sheet = document.getElementById("sheet");
    if (!sheet || detail.target !== sheet) {
      return;
    }
    if (isPoll(detail) && detail.xhr.status === 200) {
      // A poll that left before an action's answer must not bring back an older sheet,
      // nor the one that answer brought as if another phone had changed it (it would
      // read the open corrections again, over the answer in their row). A watch screen
      // takes no action: whatever its poll brings is newer (the night's tally, say).
      var theirs = version(detail.serverResponse);
      var ours = parseInt(sheet.dataset.version, 10);
      if (busy(sheet)) {
        held = true;
        detail.shouldSwap = false;
        return;
      }
      if (!("watching" in sheet.dataset) && theirs !== null && theirs <= ours) {
        detail.shouldSwap = false;
        return;
      }
    }
    openDetails = {};
    sheet.querySelectorAll("details[id]").forEach(function (details) {
      openDetails[details.id] = details.open;
    });
    var active = document.activeElement;
    focused = active && active !== document.body && sheet.contains(active)
      ? { id: active.id, key: active.dataset.key || null } : null;
    polled = isPoll(detail);
    said = polled ? keepAnswer() : null;
    var source = detail.requestConfig && detail.requestConfig.elt;
    calculated = Boolean(source && source.matches("form[data-calculator]") && detail.xhr.status < 300);
  });

  // The control that was used, or its replacement: the same key of the next deal, the
  // undo that takes the tap back, or the first key. Never a scroll to reach it.
  function refocus() {
    var active = document.activeElement;
    if (!focused || (active && active !== document.body && document.contains(active))) {
      return;
    }
    var sheet = document.getElementById("sheet");
    var again = (focused.id && document.getElementById(focused.id)) ||
      (focused.key && sheet.querySelector('[data-key="' + focused.key + '"]')) ||
      document.getElementById("undo") ||
      sheet.querySelector(".keys button, #rematch, .result .button, summary");
    if (again) {
      again.focus({ preventScroll: true });
    }
  }

  // Another phone's change, said politely: the crosses in words, and the deal on.
  function announce() {
    var region = document.getElementById("announce");
    var words = document.getElementById("crosses-title");
    if (!region || !words) {
      return;
    }
    var deal = document.getElementById("deal-title");
    region.textContent = words.textContent + (deal ? " " + deal.textContent + "." : "");
  }

  // The calculator's answer, where the player looks: in sight just under the Count
  // key, the focus on its Enter key (or still on Count after a refusal).
  document.addEventListener("htmx:afterSwap", function (event) {
    var result = event.detail.target;
    if (!result || result.id !== "calc-result" || !result.closest("#calculator")) {
      return;
    }
    var enter = result.querySelector("button");
    if (enter) {
      enter.focus({ preventScroll: true });
    }
    result.scrollIntoView({ block: "nearest" });
  });

  document.addEventListener("htmx:afterSwap", function (event) {
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
    refocus();
    if (polled) {
      putBack(said);
      announce();
      refreshCorrections();
    }
    if (calculated) {
      resetCalculator();
      // The Enter key went with the answer it was in: the calculator's Count key takes
      // the focus, ready for the next deal, without a keyboard popping up.
      var count = document.querySelector("#calculator form button[type=submit]");
      if (count && (!document.activeElement || document.activeElement === document.body)) {
        count.focus({ preventScroll: true });
      }
    }
    focused = null;
    polled = false;
    calculated = false;
    said = null;
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
    var answer = keepAnswer();
    // The sheet is the context: the morph extension is found from it, and the fragment
    // morphed into it rather than nested inside it.
    window.htmx.swap(sheet, event.detail.html, { swapStyle: "morph" }, { contextElement: sheet });
    putBack(answer);
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    if (event.detail.successful && elt.matches("form[data-reset]")) {
      elt.reset();
    }
  });

  // An entry made from the calculator's answer: the calculator starts afresh for the next deal.
  function resetCalculator() {
    var calculator = document.querySelector("#calculator form");
    if (!calculator) {
      return;
    }
    Array.prototype.forEach.call(calculator.elements, function (field) {
      if (field.type === "checkbox") {
        field.checked = false;
      } else if (field.matches("input[inputmode]")) {
        field.value = "";
      }
    });
    var cards = document.getElementById("calc-cards");
    if (cards) {
      cards.open = false;
    }
  }

  // The host's corrections, open while another phone changes the sheet: read again, so
  // their forms show the new cells and carry the new version; never under the host's typing.
  function refreshCorrections() {
    var corrections = document.getElementById("corrections");
    if (!corrections || !window.htmx || typing(corrections)) {
      return;
    }
    window.htmx.ajax("GET", corrections.dataset.src,
      { source: corrections, target: "#panel", swap: "morph:innerHTML" });
  }

  function typing(corrections) {
    return busy(corrections) ||
      Array.prototype.some.call(corrections.querySelectorAll("input"), dirty);
  }

  // The host may have begun typing while the corrections were read again: then what
  // came back waits for the next change, and what the host typed stays.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var source = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (source && source.id === "corrections" && document.contains(source) && typing(source)) {
      event.detail.shouldSwap = false;
    }
  });

  // The organiser's board, refreshed while they choose in it (a walkover's winner):
  // what they had opened stays open.
  var boardOpen = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var board = event.detail.target;
    if (board && board.id === "board" && event.detail.shouldSwap) {
      boardOpen = Array.prototype.map.call(board.querySelectorAll("details[id][open]"), function (details) {
        return details.id;
      });
    }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    if (!boardOpen || !event.detail.target || event.detail.target.id !== "board") {
      return;
    }
    boardOpen.forEach(function (id) {
      var details = document.getElementById(id);
      if (details && details.tagName === "DETAILS") {
        details.open = true;
      }
    });
    boardOpen = null;
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

  // A new match: the seat menus (your seat, who deals first) name the players as
  // their names are typed, each seat falling back on where it is when left blank.
  document.addEventListener("input", function (event) {
    var form = event.target.form;
    if (!form || !form.dataset.seatLabels || !/^(a|b)[12]$/.test(event.target.name)) {
      return;
    }
    var seat = event.target.name;
    var fallback = JSON.parse(form.dataset.seatLabels)[seat];
    var name = event.target.value.trim().replace(/\s+/g, " ").slice(0, 40);
    form.querySelectorAll("select option[value=" + seat + "]").forEach(function (option) {
      option.textContent = name || fallback;
    });
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
