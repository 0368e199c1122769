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
// so a phone without network still opens the last sheet it saw, read-only. The
// words come translated from the page (#queue's data attributes).
(function () {
  "use strict";

  var TIMEOUT = 5000; // a tap unanswered this long was not sent
  var RETRY_EVERY = 4000; // while any tap is waiting
  var script = document.currentScript;
  var controlled = Boolean(navigator.serviceWorker && navigator.serviceWorker.controller);
  var offlineCopy = document.body.hasAttribute("data-offline-copy");

  // The service worker ------------------------------------------------------------

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
      // A page the worker did not see load (the first visit) is fetched again for it.
      registration.active.postMessage(
        { keep: assets, page: controlled ? null : location.href },
        [channel.port2]
      );
    });
  }

  // Log-out forgets the sheets kept on this phone.
  document.addEventListener("submit", function (event) {
    var controller = navigator.serviceWorker && navigator.serviceWorker.controller;
    if (controller && event.target.matches("[data-logout]")) {
      controller.postMessage({ forget: true });
    }
  });

  register();

  var area = document.getElementById("queue");
  if (!area) {
    return;
  }
  var words = area.dataset;

  // The taps kept on this phone -----------------------------------------------------
  // Each {key, url, body, deal, games, label} and, once refused, {refused: reason}.

  var storeKey = "squarescores.taps." + words.user + "." + words.match;
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
    if (offline()) {
      bar.appendChild(element("p", "offline", offlineCopy ? words.offlineCopy : words.offline));
    }
    var last = null;
    load().forEach(function (tap) {
      var line;
      if (tap.refused) {
        line = element("p", "tap refused");
        line.appendChild(element("strong")).appendChild(describe(words.refused, tap));
        line.appendChild(dismissButton(tap.key));
        line.appendChild(element("span", "reason", tap.refused));
      } else if (!flying[tap.key] || tap.key === sending) {
        line = last = element("p", "tap unsent");
        line.appendChild(element("span")).appendChild(describe(words.unsent, tap));
      }
      if (line) {
        bar.appendChild(line);
      }
    });
    if (last) {
      var retry = element("button", "retry", sending ? words.sending : words.retry);
      retry.type = "button";
      retry.setAttribute("data-retry", "");
      if (sending) {
        retry.setAttribute("aria-disabled", "true");
      }
      last.appendChild(retry);
    }
    recorded.forEach(function (done) {
      var line = element("p", "tap recorded");
      line.appendChild(element("span", "", done.text));
      line.appendChild(dismissButton(done.key));
      bar.appendChild(line);
    });
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
    // #messages sticks to the top too: below this bar, not under it.
    document.documentElement.style.setProperty("--queue-height", area.offsetHeight + "px");
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

  function reason(answer) {
    var page = document.createElement("template");
    page.innerHTML = answer.text;
    var said = page.content.querySelector(".message") || page.content.querySelector("main p");
    return said && said.textContent.trim() ? said.textContent.trim() : "HTTP " + answer.status;
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
