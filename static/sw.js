// The service worker: keeps the static files and the last sheets this phone saw, so
// a phone without network still opens its sheet, read-only and marked offline.
// Our own small module (no library). Served as /sw.js (matches/views/offline.py), so
// it looks after the whole site; registered by offline.js where the browser has
// service workers (https, localhost). Writes never pass through it: a POST goes
// to the network as it would without it, and offline.js keeps an unsent tap.
//
// A kept sheet is one person's: each is kept for the person it was drawn for
// (data-user on its <body>), and only ever shown to that person. The worker cannot
// read the session cookie, so every page tells it who the browser belongs to now:
// each page it sees come from the network (its <body data-user>), and each page
// offline.js runs on ({user}). Another person, or nobody, and every kept sheet of
// anyone else goes. Where the browser lets a worker read cookies, a kept sheet is
// also tied to the browser's CSRF cookie, which Django renews at every log-in and
// which goes when the cookies are cleared: a sheet kept under another one is not
// shown, even before any page has said who is there now.
"use strict";

var PREFIX = "squarescores-";
var ASSETS = PREFIX + "assets-v1";
var PAGES = PREFIX + "pages-v2"; // v1 kept sheets for nobody in particular: dropped
var OWNER = PREFIX + "owner-v1"; // who the kept sheets are for, through restarts
var OWNER_KEY = "/owner";
var STATIC = new URL(self.location.href).searchParams.get("static") || "/static/";
var SHEET = /^\/matches\/\d+\/$/; // a player's sheet page
var HASHED = /\.[0-9a-f]{12}\.\w+$/; // a file named by its content never changes
var MOST_PAGES = 5;
var MOST_ASSETS = 40;
var CSRF_COOKIE = "csrftoken"; // Django's name for it, as offline.js reads it too
// Beside a kept sheet: whose it is, under which CSRF cookie, and its version.
var FOR = "X-Kept-For";
var UNDER = "X-Kept-Under";
var VERSION = "X-Sheet-Version";

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
              return name.indexOf(PREFIX) === 0 && [ASSETS, PAGES, OWNER].indexOf(name) < 0;
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

// Who may see the kept sheets -----------------------------------------------------------

// Every change to the kept sheets, one after the other: a sheet kept for someone
// must never land after the word that they are gone.
var line = Promise.resolve();

function inTurn(job) {
  var done = line.then(job);
  line = done.catch(function () {});
  return done;
}

var owner = null; // the person's id, "" for nobody; null until read

function readOwner() {
  if (owner !== null) {
    return Promise.resolve(owner);
  }
  return caches
    .open(OWNER)
    .then(function (cache) {
      return cache.match(OWNER_KEY);
    })
    .then(function (kept) {
      return kept ? kept.text() : "";
    })
    .then(function (user) {
      owner = owner === null ? user : owner;
      return owner;
    });
}

// The browser belongs to ``user`` now ("" for nobody): every sheet kept for anyone
// else goes. Run in turn.
function ownedBy(user) {
  return readOwner()
    .then(function (before) {
      owner = user;
      return before === user
        ? null
        : caches.open(OWNER).then(function (cache) {
            return cache.put(OWNER_KEY, new Response(user));
          });
    })
    .then(function () {
      return caches.open(PAGES);
    })
    .then(function (cache) {
      return cache.keys().then(function (keys) {
        return Promise.all(
          keys.map(function (key) {
            return cache.match(key).then(function (kept) {
              return kept && user && kept.headers.get(FOR) === user ? null : cache.delete(key);
            });
          })
        );
      });
    });
}

// Everything kept for a person goes (log-out, or the browser changed hands). In turn.
function forget() {
  owner = "";
  return Promise.all([
    caches.delete(PAGES),
    caches.open(OWNER).then(function (cache) {
      return cache.put(OWNER_KEY, new Response(""));
    })
  ]);
}

function hex(buffer) {
  return Array.prototype.map
    .call(new Uint8Array(buffer), function (byte) {
      return (byte < 16 ? "0" : "") + byte.toString(16);
    })
    .join("");
}

// A digest of the browser's CSRF cookie ("none" without one), or "" where a worker
// cannot read cookies: then only the pages' word says who is there.
function cookieMark() {
  if (!self.cookieStore || !self.crypto || !self.crypto.subtle) {
    return Promise.resolve("");
  }
  return self.cookieStore.get(CSRF_COOKIE).then(
    function (cookie) {
      if (!cookie || !cookie.value) {
        return "none";
      }
      return self.crypto.subtle.digest("SHA-256", new TextEncoder().encode(cookie.value)).then(hex);
    },
    function () {
      return "";
    }
  );
}

// Whom a page was drawn for (its <body data-user>), "" for nobody, null if it does not say.
function drawnFor(html) {
  var body = /<body\b[^>]*>/.exec(html);
  var user = body && /\sdata-user="(\d*)"/.exec(body[0]);
  return user ? user[1] : null;
}

function sheetVersion(html) {
  var section = /<section\b[^>]*\bid="sheet"[^>]*>/.exec(html);
  var version = section && /\sdata-version="(\d+)"/.exec(section[0]);
  return version ? version[1] : "";
}

// Keeping and showing a sheet ------------------------------------------------------------

function keepable(response) {
  var type = response.headers.get("Content-Type") || "";
  return response.ok && response.type === "basic" && !response.redirected && type.indexOf("text/html") === 0;
}

function pageKey(url) {
  return url.origin + url.pathname;
}

// Keep ``html`` as the sheet at ``key`` for ``user``, if the browser is still theirs.
// A copy drawn by the page itself (``drawn``) only refreshes one the network gave,
// kept for the same person under the same CSRF cookie, and never with an older
// version: a page may hand its copy over after the cookies changed. In turn.
function keepPage(key, html, headers, user, drawn) {
  var version = sheetVersion(html);
  return Promise.all([readOwner(), cookieMark(), caches.open(PAGES)]).then(function (found) {
    var mark = found[1];
    var cache = found[2];
    if (!user || found[0] !== user) {
      return null;
    }
    return cache.match(key).then(function (kept) {
      if (drawn) {
        if (
          !kept ||
          kept.headers.get(FOR) !== user ||
          kept.headers.get(UNDER) !== mark ||
          Number(kept.headers.get(VERSION)) > Number(version)
        ) {
          return null;
        }
        headers = kept.headers; // the page's own, its Content-Security-Policy with them
      }
      var keptHeaders = new Headers(headers || { "Content-Type": "text/html; charset=utf-8" });
      keptHeaders.delete("Content-Length");
      keptHeaders.delete("Content-Encoding");
      keptHeaders.set(FOR, user);
      keptHeaders.set(UNDER, mark);
      keptHeaders.set(VERSION, version);
      return cache
        .delete(key)
        .then(function () {
          return cache.put(key, new Response(html, { status: 200, headers: keptHeaders }));
        })
        .then(function () {
          return trim(cache, MOST_PAGES);
        });
    });
  });
}

// A page that came from the network: it says who the browser belongs to now, and a
// sheet is kept for them.
function heard(url, response) {
  return response.text().then(function (html) {
    var user = drawnFor(html);
    if (user === null) {
      return null;
    }
    return inTurn(function () {
      return ownedBy(user).then(function () {
        if (SHEET.test(url.pathname) && keepable(response)) {
          return keepPage(pageKey(url), html, response.headers, user, false);
        }
        return null;
      });
    });
  });
}

// The kept copy, marked for offline.js: the sheet as last seen, read-only, no poll.
function offlineCopy(response) {
  return response.text().then(function (html) {
    var headers = new Headers(response.headers);
    [FOR, UNDER, VERSION].forEach(function (name) {
      headers.delete(name);
    });
    return new Response(html.replace("<body", "<body data-offline-copy"), {
      status: 200,
      headers: headers
    });
  });
}

// The kept sheet for ``url`` (at "/", where the installed app opens, the last one
// seen), if it was kept for whom the browser belongs to, under the same CSRF cookie.
// One kept under another cookie goes: someone logged in since, or the cookies were
// cleared, and whoever holds the phone now sees nothing kept before.
function withoutNetwork(url) {
  return inTurn(function () {
    return Promise.all([readOwner(), cookieMark(), caches.open(PAGES)]).then(function (found) {
      var user = found[0];
      var mark = found[1];
      var cache = found[2];
      return cache.keys().then(function (keys) {
        return Promise.all(
          keys.map(function (key) {
            return cache.match(key).then(function (kept) {
              var under = kept && kept.headers.get(UNDER);
              if (!kept || !user || kept.headers.get(FOR) !== user) {
                return null;
              }
              if (mark && under && under !== mark) {
                return cache.delete(key).then(function () {
                  return null;
                });
              }
              return { url: key.url, response: kept };
            });
          })
        ).then(function (kept) {
          var theirs = kept.filter(Boolean);
          var own = theirs.filter(function (entry) {
            return entry.url === pageKey(url);
          })[0];
          if (own) {
            return offlineCopy(own.response);
          }
          if (url.pathname === "/" && theirs.length) {
            return Response.redirect(theirs[theirs.length - 1].url, 302);
          }
          return Response.error();
        });
      });
    });
  });
}

function page(event, url) {
  return fetch(event.request).then(
    function (response) {
      var type = response.headers.get("Content-Type") || "";
      // Not a 5xx: a page drawn while the server fails (a database outage) cannot
      // know who is signed in.
      if (response.type === "basic" && response.status < 500 && type.indexOf("text/html") === 0) {
        event.waitUntil(heard(url, response.clone()).catch(function () {}));
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

function keepAssets(hrefs) {
  return hrefs.map(function (href) {
    var url = new URL(href, self.location.href);
    if (url.origin !== self.location.origin || url.pathname.indexOf(STATIC) !== 0) {
      return Promise.resolve();
    }
    return caches.open(ASSETS).then(function (cache) {
      return cache.match(url.href, { ignoreVary: true }).then(function (kept) {
        return (
          kept ||
          fetch(url.href).then(function (response) {
            return response.ok ? cache.put(url.href, response) : null;
          })
        );
      });
    });
  });
}

// From offline.js, on every page it runs on (never on an offline copy):
// {user, keep: [static URLs], page: URL}: who the browser belongs to now ("" for
// nobody), the page's files, and the page again when the worker did not see it load
// (the very first visit); {snapshot: HTML, page: URL} after the sheet changed in
// place (a poll, a tap), so that the last sheet seen is the one kept;
// {forget: true} at log-out. Answers on the message's port once done.
self.addEventListener("message", function (event) {
  var data = event.data || {};
  var work = [];
  var sheet = null;
  if (data.page) {
    sheet = new URL(data.page, self.location.href);
    if (sheet.origin !== self.location.origin || !SHEET.test(sheet.pathname)) {
      sheet = null;
    }
  }
  if (data.forget) {
    work.push(inTurn(forget));
  }
  if (typeof data.user === "string" && /^\d*$/.test(data.user)) {
    work.push(
      inTurn(function () {
        return ownedBy(data.user);
      })
    );
  }
  work = work.concat(keepAssets(data.keep || []));
  if (sheet && typeof data.snapshot === "string") {
    work.push(
      inTurn(function () {
        // Whose it is, from the page itself: a tab left open by someone who has
        // gone since is not the browser's person, and keeps nothing.
        return keepPage(pageKey(sheet), data.snapshot, null, drawnFor(data.snapshot), true);
      })
    );
  } else if (sheet) {
    work.push(
      fetch(sheet.href, { credentials: "same-origin" }).then(function (response) {
        return keepable(response) ? heard(sheet, response) : null;
      })
    );
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
