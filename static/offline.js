// Every tap counts once, whatever the network does. Our own small module (no library).
//
// Each entry tap (the big keys, the calculator's Enter) goes with a fresh
// Idempotency-Key and is kept on the phone (localStorage, per person and match)
// until the server has answered it. A tap that could not be sent (offline, no
// answer within 5 s, a 5xx) stays there, shown above the sheet as "not sent yet",
// and is sent again with the same key (by itself when the network is back, every
// few seconds while any is waiting, and by the Retry button), so the server counts
// it once (matches/idempotency.py). Its answer says what became of it: recorded,
// or refused and why, shown until dismissed.
//
// It also registers the service worker (static/sw.js) where the browser has one,
// so a phone without network still opens the last sheet it saw, read-only: each
// time the sheet changes in place, the page gives the worker its copy. The
// words come translated from the page (#queue's data attributes).
//
// What is kept on the phone is one person's: the page says who is signed in
// (<body data-user>, empty for nobody), the worker drops every other person's
// sheets, every other person's taps go unsent, and log-out forgets both.
(function () {
  "use strict";

  var TIMEOUT = 5000; // a tap unanswered this long was not sent
  var RETRY_EVERY = 4000; // while any tap is waiting
  var TAPS = "squarescores.taps."; // then the person's id, ".", the match's
  var script = document.currentScript;
  var controlled = Boolean(navigator.serviceWorker && navigator.serviceWorker.controller);
  var offlineCopy = document.body.hasAttribute("data-offline-copy");
  // Who is signed in ("" for nobody); null on a page that does not say, or cannot
  // know: one the server drew without reading the session (a database outage's 503).
  var arrival = window.performance && performance.getEntriesByType
    ? performance.getEntriesByType("navigation")[0] : null;
  var me = arrival && arrival.responseStatus >= 500 ? null : document.body.getAttribute("data-user");

  // Every person's taps but ``keep``'s go (all of them when ``keep`` is null).
  function forgetTaps(keep) {
    try {
      var storage = window.localStorage;
      for (var index = storage.length - 1; index >= 0; index--) {
        var name = storage.key(index);
        if (name && name.indexOf(TAPS) === 0 && (!keep || name.indexOf(TAPS + keep + ".") !== 0)) {
          storage.removeItem(name);
        }
      }
    } catch (error) {
      // No storage: nothing was kept.
    }
  }

  // An offline copy says who it was kept for, not who holds the phone now.
  if (me !== null && !offlineCopy) {
    forgetTaps(me);
  }

  // The service worker ------------------------------------------------------------

  function worker() {
    return navigator.serviceWorker && navigator.serviceWorker.controller;
  }

  function register() {
    if (!("serviceWorker" in navigator) || !script || !script.dataset.sw || offlineCopy) {
      return;
    }
    navigator.serviceWorker.register(script.dataset.sw).catch(function () {});
    navigator.serviceWorker.ready.then(function (registration) {
      if (!registration.active) {
        return;
      }
      var assets = Array.prototype.map.call(
        document.querySelectorAll("link[rel~=stylesheet][href], link[rel~=icon][href], script[src]"),
        function (element) {
          return element.href || element.src;
        }
      );
      var channel = new MessageChannel();
      channel.port1.onmessage = function () {
        document.documentElement.setAttribute("data-offline-ready", "");
      };
      // Who is here now, and a page the worker did not see load (the first visit),
      // fetched again for it.
      var word = { keep: assets, page: controlled ? null : location.href };
      if (me !== null) {
        word.user = me;
      }
      registration.active.postMessage(word, [channel.port2]);
    });
  }

  // Log-out forgets the sheets and the taps kept on this phone.
  document.addEventListener("submit", function (event) {
    if (!event.target.matches("[data-logout]")) {
      return;
    }
    forgetTaps(null);
    if (worker()) {
      worker().postMessage({ forget: true });
    }
  });

  // The sheet changed in place (a poll, a tap, another phone's change): the worker
  // keeps this copy, so that offline the phone opens the last sheet it saw, not the
  // one it first loaded. Once a version, never from an offline copy.
  var keptVersion = null;

  function keepSheet() {
    var sheet = document.getElementById("sheet");
    if (offlineCopy || !sheet || me === null || !worker() || !/^\/matches\/\d+\/$/.test(location.pathname)) {
      return; // the worker keeps a player's sheet page (sw.js's SHEET), nothing else
    }
    var version = sheet.getAttribute("data-version");
    if (version === keptVersion) {
      return;
    }
    keptVersion = version;
    var copy = document.documentElement.cloneNode(true);
    // What belongs to this moment of this page, not to the sheet: offline.js draws
    // the bar again from the taps kept, and a panel cannot be used offline.
    copy.removeAttribute("data-offline-ready");
    copy.removeAttribute("data-offline-kept");
    ["queue", "announce", "panel"].forEach(function (id) {
      var part = copy.querySelector("#" + id);
      if (part) {
        part.textContent = "";
      }
    });
    copy.querySelectorAll(".htmx-request, .htmx-settling, .htmx-swapping, .htmx-added").forEach(function (part) {
      part.classList.remove("htmx-request", "htmx-settling", "htmx-swapping", "htmx-added");
    });
    var channel = new MessageChannel();
    channel.port1.onmessage = function () {
      // The worker has had it (and kept it, if the browser is still this person's).
      document.documentElement.setAttribute("data-offline-kept", version);
    };
    worker().postMessage(
      { snapshot: "<!doctype html>\n" + copy.outerHTML, page: location.href },
      [channel.port2]
    );
  }

  if (controlled && document.getElementById("sheet")) {
    // The worker kept this very page as it came.
    keptVersion = document.getElementById("sheet").getAttribute("data-version");
  }
  document.addEventListener("htmx:afterSettle", keepSheet);

  register();

  var area = document.getElementById("queue");
  if (!area) {
    return;
  }
  var words = area.dataset;

  // The taps kept on this phone -----------------------------------------------------
  // Each {key, url, body, deal, games, label} and, once refused, {refused: reason}.
  // Never a CSRF token: it is read from the page when a tap goes.

  var storeKey = TAPS + words.user + "." + words.match;
  var memory = []; // where they are when the browser keeps no localStorage
  var flying = {}; // keys this page is sending right now
  var recorded = []; // taps recorded after waiting, shown for a while: {key, text}
  var sending = null; // the key of the tap being sent again
  var timer = null;
  var probe = null;
  var unreachable = false; // the last request found no server

  function load() {
    try {
      var kept = window.localStorage.getItem(storeKey);
      return kept ? JSON.parse(kept) : [];
    } catch (error) {
      return memory.slice();
    }
  }

  function save(taps) {
    memory = taps;
    try {
      if (taps.length) {
        window.localStorage.setItem(storeKey, JSON.stringify(taps));
      } else {
        window.localStorage.removeItem(storeKey);
      }
    } catch (error) {
      // No storage (a private window, full): the taps live as long as the page.
    }
  }

  function change(key, edit) {
    save(
      load()
        .map(function (tap) {
          return tap.key === key ? edit(tap) : tap;
        })
        .filter(Boolean)
    );
  }

  function waiting() {
    return load().filter(function (tap) {
      return !tap.refused && !flying[tap.key];
    });
  }

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) {
      return window.crypto.randomUUID(); // secure contexts only
    }
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map
      .call(bytes, function (byte) {
        return (byte < 16 ? "0" : "") + byte.toString(16);
      })
      .join("");
  }

  // The body exactly as htmx sends it, so that a retry is the same request.
  function encode(formData) {
    var parts = [];
    formData.forEach(function (value, name) {
      parts.push(encodeURIComponent(name) + "=" + encodeURIComponent(value));
    });
    return parts.join("&");
  }

  function offline() {
    return offlineCopy || navigator.onLine === false || unreachable;
  }

  // What the player sees ------------------------------------------------------------

  function element(tag, className, text) {
    var made = document.createElement(tag);
    if (className) {
      made.className = className;
    }
    if (text) {
      made.textContent = text;
    }
    return made;
  }

  // "Not sent yet: {games} for {label} in deal {deal}", the side's name isolated.
  function describe(template, tap) {
    var line = document.createDocumentFragment();
    template.split(/(\{games\}|\{label\}|\{deal\})/).forEach(function (part) {
      if (part === "{label}") {
        line.appendChild(element("bdi", "", tap.label));
      } else {
        line.appendChild(document.createTextNode(part === "{games}" ? tap.games : part === "{deal}" ? tap.deal : part));
      }
    });
    return line;
  }

  function dismissButton(key) {
    var button = element("button", "link", words.dismiss);
    button.type = "button";
    button.setAttribute("data-dismiss", key);
    return button;
  }

  // The bar, drawn again only when what it says changes (a screen reader hears each
  // change once), the focus kept on the button it was on.
  function render() {
    var bar = document.createElement("div");
    var last = null;
    load().forEach(function (tap) {
      var line;
      if (tap.refused) {
        // What was tapped, then the server's reason, then the way to put it away.
        line = element("p", "tap refused");
        line.appendChild(element("strong")).appendChild(describe(words.refused, tap));
        line.appendChild(document.createTextNode(" "));
        line.appendChild(element("span", "reason", tap.refused));
        line.appendChild(dismissButton(tap.key));
      } else if (!flying[tap.key] || tap.key === sending) {
        line = last = element("p", "tap unsent");
        line.appendChild(element("span")).appendChild(describe(words.unsent, tap));
      }
      if (line) {
        bar.appendChild(line);
      }
    });
    recorded.forEach(function (done) {
      var line = element("p", "tap recorded");
      line.appendChild(element("span", "", done.text));
      line.appendChild(dismissButton(done.key));
      bar.appendChild(line);
    });
    // The taps first, what matters; then why they wait, its words running beside
    // Retry (which so takes no line of its own).
    var notice = null;
    if (offline()) {
      notice = element("div", "notice");
      bar.appendChild(notice);
    }
    if (last) {
      var retry = element("button", "retry", sending ? words.sending : words.retry);
      retry.type = "button";
      retry.setAttribute("data-retry", "");
      if (sending) {
        retry.setAttribute("aria-disabled", "true");
      }
      (notice || last).appendChild(retry);
    }
    if (notice) {
      notice.appendChild(element("p", "offline", offlineCopy ? words.offlineCopy : words.offline));
    }
    if (bar.innerHTML === area.innerHTML) {
      return;
    }
    var focused = area.contains(document.activeElement) ? document.activeElement : null;
    var again = focused && (focused.hasAttribute("data-retry") ? "[data-retry]" : null);
    area.textContent = "";
    while (bar.firstChild) {
      area.appendChild(bar.firstChild);
    }
    if (again && area.querySelector(again)) {
      area.querySelector(again).focus();
    }
  }

  function notSent() {
    var messages = document.getElementById("messages");
    if (messages) {
      messages.textContent = "";
      messages.appendChild(element("p", "message error", words.failed));
    }
  }

  // Sending again -------------------------------------------------------------------

  function csrfToken() {
    try {
      var token = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
      if (token) {
        return token;
      }
    } catch (error) {
      // fall back to the cookie
    }
    var cookie = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie);
    return cookie ? decodeURIComponent(cookie[1]) : "";
  }

  function send(tap) {
    var controller = window.AbortController ? new AbortController() : null;
    var clock = controller
      ? setTimeout(function () {
          controller.abort();
        }, TIMEOUT)
      : null;
    flying[tap.key] = true;
    return window
      .fetch(tap.url, {
        method: "POST",
        body: tap.body,
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          "Idempotency-Key": tap.key,
          "HX-Request": "true",
          "X-CSRFToken": csrfToken()
        },
        signal: controller ? controller.signal : undefined
      })
      .then(function (response) {
        return response.text().then(function (text) {
          return { status: response.status, text: text };
        });
      })
      .catch(function () {
        return { status: 0, text: "" };
      })
      .then(function (answer) {
        clearTimeout(clock);
        delete flying[tap.key];
        return answer;
      });
  }

  // Not an answer about the tap: nothing reached the server, it failed, or it asks
  // to come back later. The tap waits.
  function unanswered(status) {
    return status === 0 || status === 429 || status >= 500;
  }

  // The refusal's own words. A refused tap is answered with the message alone
  // (answers.py's alert: <p class="message">, for #messages); a refusal from outside
  // the views is the small problem page, its words the paragraph under <main>. Never
  // other words an answer might carry (a sheet's lines, messages left for a page).
  function reason(answer) {
    var page = document.createElement("template");
    page.innerHTML = answer.text;
    var said = null;
    Array.prototype.some.call(page.content.children, function (part) {
      said = part.matches("p.message") ? part : null;
      return said;
    });
    if (!said && !page.content.querySelector("#sheet")) {
      said = page.content.querySelector("main > p");
    }
    var words = said ? said.textContent.replace(/\s+/g, " ").trim() : "";
    return words || "HTTP " + answer.status;
  }

  function answered(tap, answer) {
    if (answer.status >= 200 && answer.status < 300) {
      change(tap.key, function () {
        return null;
      });
      var note = element("span", "", "");
      note.appendChild(describe(words.recorded, tap));
      var done = { key: tap.key, text: note.textContent };
      recorded.push(done);
      setTimeout(function () {
        dismiss(done.key);
      }, 10000);
      var fresh = document.createElement("template");
      fresh.innerHTML = answer.text;
      var sheet = fresh.content.querySelector("#sheet");
      if (sheet && !offlineCopy) {
        // app.js swaps it in unless the page has newer, or someone is typing in it.
        document.dispatchEvent(new CustomEvent("sheet:fresh", { detail: { html: sheet.outerHTML } }));
      }
    } else {
      change(tap.key, function (kept) {
        kept.refused = reason(answer);
        return kept;
      });
    }
  }

  function later() {
    clearTimeout(timer);
    timer = waiting().length ? setTimeout(flush, RETRY_EVERY) : null;
  }

  // Send the waiting taps one by one, oldest first, until one finds no server.
  function flush() {
    clearTimeout(timer);
    timer = null;
    var tap = waiting()[0];
    if (sending || !tap || navigator.onLine === false) {
      if (!sending) {
        done();
      }
      return;
    }
    sending = tap.key;
    render();
    send(tap).then(function (answer) {
      sending = null;
      unreachable = answer.status === 0;
      if (unanswered(answer.status)) {
        render();
        later();
        return;
      }
      answered(tap, answer);
      render();
      flush();
    });
  }

  // Nothing more to send: an offline copy becomes the live sheet again once the
  // server answers (a reload before that would only bring the copy back).
  function done() {
    render();
    later();
    if (offlineCopy && !waiting().length) {
      backOnline();
    }
  }

  function backOnline() {
    clearTimeout(probe);
    if (navigator.onLine === false) {
      return; // the online event comes back here
    }
    window.fetch(script.dataset.sw || location.href, { cache: "no-store" }).then(
      function () {
        location.reload();
      },
      function () {
        probe = setTimeout(backOnline, RETRY_EVERY);
      }
    );
  }

  function dismiss(key) {
    recorded = recorded.filter(function (done) {
      return done.key !== key;
    });
    change(key, function (tap) {
      return tap.refused ? null : tap;
    });
    render();
  }

  // The page's own requests ---------------------------------------------------------

  function isPoll(detail) {
    return Boolean(detail.elt && detail.elt.matches && detail.elt.matches("[data-poll]"));
  }

  function tapForm(detail) {
    return detail.elt && detail.elt.closest ? detail.elt.closest("form[data-tap]") : null;
  }

  // No poll while offline: nothing would answer it.
  document.addEventListener("htmx:confirm", function (event) {
    if (isPoll(event.detail) && (offlineCopy || navigator.onLine === false)) {
      event.preventDefault();
    }
  });

  document.addEventListener("htmx:configRequest", function (event) {
    var detail = event.detail;
    var form = tapForm(detail);
    if (!form || detail.verb !== "post") {
      return;
    }
    var data = detail.formData;
    var games = parseInt(data.get("games"), 10) + (parseInt(data.get("extra"), 10) || 0);
    data.delete("csrfmiddlewaretoken"); // the X-CSRFToken header carries it
    var tap = {
      key: newKey(),
      url: detail.path,
      body: encode(data),
      deal: data.get("deal"),
      games: isNaN(games) ? data.get("games") : games,
      label: form.dataset.tap
    };
    detail.headers["Idempotency-Key"] = tap.key;
    detail.timeout = TIMEOUT;
    flying[tap.key] = true;
    // Kept before it goes: a tab closed while it is on its way keeps it too.
    save(load().concat([tap]));
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    // Heard from the element, or, when its answer replaced it, from its parent.
    var detail = event.detail;
    var status = detail.xhr ? detail.xhr.status : 0;
    var headers = (detail.requestConfig && detail.requestConfig.headers) || {};
    var key = headers["Idempotency-Key"];
    var wasOffline = offline();
    unreachable = status === 0;
    if (key && flying[key]) {
      delete flying[key];
      if (unanswered(status)) {
        later();
      } else {
        // Recorded (htmx swapped the sheet in) or refused (its message is in #messages).
        change(key, function () {
          return null;
        });
      }
      render();
    } else if (!isPoll(detail) && (status === 0 || status >= 500)) {
      notSent();
    }
    if (wasOffline && !offline()) {
      flush();
    } else if (wasOffline !== offline()) {
      render();
    }
  });

  area.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) {
      return;
    }
    if (button.hasAttribute("data-retry")) {
      flush();
    } else if (button.hasAttribute("data-dismiss")) {
      dismiss(button.getAttribute("data-dismiss"));
    }
  });

  window.addEventListener("online", function () {
    unreachable = false;
    flush();
  });
  window.addEventListener("offline", render);
  window.addEventListener("storage", function (event) {
    if (event.key === storeKey) {
      render();
    }
  });

  if (offlineCopy) {
    // The sheet as last seen: nothing on it can be done until the network is back.
    var messages = document.getElementById("messages");
    if (messages) {
      messages.textContent = "";
    }
    document.querySelectorAll("#sheet button, #sheet input, .table aside button, .table aside input, .table aside textarea").forEach(function (control) {
      control.disabled = true;
    });
  }
  render();
  if (!offlineCopy || navigator.onLine !== false) {
    flush();
  }
})();
