// The service worker: keeps the static files and the last sheets this phone saw, so
// a phone without network still opens its sheet, read-only and marked offline.
// Our own small module (no library). Served as /sw.js (matches/views/offline.py), so
// it looks after the whole site; registered by offline.js where the browser has
// service workers (https, localhost). Writes never pass through it: a POST goes
// to the network as it would without it, and offline.js keeps an unsent tap.
"use strict";

var PREFIX = "squarescores-";
var ASSETS = PREFIX + "assets-v1";
var PAGES = PREFIX + "pages-v1";
var STATIC = new URL(self.location.href).searchParams.get("static") || "/static/";
var SHEET = /^\/matches\/\d+\/$/; // a player's sheet page
var HASHED = /\.[0-9a-f]{12}\.\w+$/; // a file named by its content never changes
var MOST_PAGES = 5;
var MOST_ASSETS = 40;

self.addEventListener("install", function (event) {
  if (event.addRoutes) {
    // Where the browser can (static routing), everything but page loads and static
    // files goes straight to the network without waking the worker: the poll every
    // 2 s, every write, the API.
    event.waitUntil(
      event
        .addRoutes([
          {
            condition: { or: [{ requestMode: "navigate" }, { urlPattern: { pathname: STATIC + "*" } }] },
            source: "fetch-event"
          },
          { condition: { urlPattern: { pathname: "/*" } }, source: "network" }
        ])
        .catch(function () {})
    );
  }
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches
      .keys()
      .then(function (names) {
        return Promise.all(
          names
            .filter(function (name) {
              return name.indexOf(PREFIX) === 0 && name !== ASSETS && name !== PAGES;
            })
            .map(function (name) {
              return caches.delete(name);
            })
        );
      })
      .then(function () {
        return self.clients.claim();
      })
  );
});

// Only the newest ``most`` entries stay (a cache lists its entries oldest first).
function trim(cache, most) {
  return cache.keys().then(function (keys) {
    return Promise.all(
      keys.slice(0, Math.max(0, keys.length - most)).map(function (key) {
        return cache.delete(key);
      })
    );
  });
}

function keepable(response) {
  var type = response.headers.get("Content-Type") || "";
  return response.ok && response.type === "basic" && !response.redirected && type.indexOf("text/html") === 0;
}

function pageKey(url) {
  return url.origin + url.pathname;
}

function keepPage(key, response) {
  return caches.open(PAGES).then(function (cache) {
    return cache
      .delete(key)
      .then(function () {
        return cache.put(key, response);
      })
      .then(function () {
        return trim(cache, MOST_PAGES);
      });
  });
}

// The kept copy, marked for offline.js: the sheet as last seen, read-only, no poll.
function offlineCopy(response) {
  return response.text().then(function (html) {
    var headers = new Headers(response.headers);
    headers.delete("Content-Length");
    headers.delete("Content-Encoding");
    return new Response(html.replace("<body", "<body data-offline-copy"), {
      status: 200,
      headers: headers
    });
  });
}

function withoutNetwork(url) {
  return caches.open(PAGES).then(function (cache) {
    return cache.match(pageKey(url), { ignoreVary: true }).then(function (kept) {
      if (kept) {
        return offlineCopy(kept);
      }
      if (url.pathname === "/") {
        // The installed app opens at "/": without network, the last sheet it saw.
        return cache.keys().then(function (keys) {
          return keys.length ? Response.redirect(keys[keys.length - 1].url, 302) : Response.error();
        });
      }
      return Response.error();
    });
  });
}

function page(event, url) {
  return fetch(event.request).then(
    function (response) {
      if (SHEET.test(url.pathname) && keepable(response)) {
        event.waitUntil(keepPage(pageKey(url), response.clone()));
      }
      return response;
    },
    function () {
      return withoutNetwork(url);
    }
  );
}

// Static files: a hashed name from the cache first; others (development) from the
// network first, the cache only without one.
function asset(event, url) {
  return caches.open(ASSETS).then(function (cache) {
    return cache.match(event.request, { ignoreVary: true }).then(function (kept) {
      if (kept && HASHED.test(url.pathname)) {
        return kept;
      }
      return fetch(event.request).then(
        function (response) {
          if (response.ok && response.type === "basic") {
            event.waitUntil(
              cache.put(event.request, response.clone()).then(function () {
                return trim(cache, MOST_ASSETS);
              })
            );
          }
          return response;
        },
        function (error) {
          if (kept) {
            return kept;
          }
          throw error;
        }
      );
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") {
    return;
  }
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) {
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(page(event, url));
  } else if (url.pathname.indexOf(STATIC) === 0) {
    event.respondWith(asset(event, url));
  }
  // Everything else (the poll, panels, the API) goes to the network untouched.
});

// From offline.js: {keep: [static URLs], page: URL} after a page the worker did not
// see load (the very first visit), so that it opens offline too; {forget: true} at
// log-out. Answers on the message's port once done.
self.addEventListener("message", function (event) {
  var data = event.data || {};
  var work = [];
  if (data.forget) {
    work.push(caches.delete(PAGES));
  }
  (data.keep || []).forEach(function (href) {
    var url = new URL(href, self.location.href);
    if (url.origin !== self.location.origin || url.pathname.indexOf(STATIC) !== 0) {
      return;
    }
    work.push(
      caches.open(ASSETS).then(function (cache) {
        return cache.match(url.href, { ignoreVary: true }).then(function (kept) {
          return (
            kept ||
            fetch(url.href).then(function (response) {
              return response.ok ? cache.put(url.href, response) : null;
            })
          );
        });
      })
    );
  });
  if (data.page) {
    var url = new URL(data.page, self.location.href);
    if (url.origin === self.location.origin && SHEET.test(url.pathname)) {
      work.push(
        fetch(url.href, { credentials: "same-origin" }).then(function (response) {
          return keepable(response) ? keepPage(pageKey(url), response) : null;
        })
      );
    }
  }
  var port = event.ports && event.ports[0];
  event.waitUntil(
    Promise.all(
      work.map(function (job) {
        return job.catch(function () {});
      })
    ).then(function () {
      if (port) {
        port.postMessage("kept");
      }
    })
  );
});
