// Search with Pagefind (https://pagefind.app): the header's box answers as you type, the search
// page (search/) adds filters by topic, tag, year and listing, kept in its URL. The index lives in
// pagefind/ at the site root and is fetched in small pieces, only those a query needs.
// Pagefind's script, its WebAssembly and the index's meta file load before the first query: on
// the pages a reader comes to search from (the home page and the search page) the theme starts
// them from the page's head (templates/theme/main.html) and this script takes the same module
// over; elsewhere they load as soon as the reader reaches for the search box (pointer, touch,
// focus, or the / and s keys). A query never waits for more.
// Corpus text is shown with textContent; only Pagefind's <mark> survives from an excerpt.
(function () {
  "use strict";

  var script = document.currentScript;
  var root = new URL("../", script ? script.src : location.href);  // this file is assets/search.js
  var FACETS = [["topic", "Topic"], ["year", "Year"], ["listing", "Listing"], ["tag", "Tag"]];
  var QUICK = 8, PAGE = 20;
  var loading = null;

  function pagefind() {
    if (!loading) {
      loading = import(new URL("pagefind/pagefind.js", root).href).then(function (pf) {
        return pf.options({ excerptLength: 24 })
          .then(function () { return pf.init(); })  // fetch the index's entry and the WebAssembly now
          .then(function () { return pf; });
      });
    }
    return loading;
  }

  // On the pages marked for it, start now: the first query then finds Pagefind ready.
  function warmIfMarked() {
    if (document.querySelector("link[rel=modulepreload][href$='pagefind/pagefind.js']")) pagefind();
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  // Pagefind's excerpt is text with <mark> around the matches: keep those, and nothing else.
  function excerpt(html) {
    var out = document.createDocumentFragment();
    var doc = new DOMParser().parseFromString("<body>" + html + "</body>", "text/html");
    (function walk(node) {
      node.childNodes.forEach(function (child) {
        if (child.nodeType === 3) out.appendChild(document.createTextNode(child.textContent));
        else if (child.nodeName === "MARK") out.appendChild(el("mark", "", child.textContent));
        else walk(child);
      });
    })(doc.body);
    return out;
  }

  function resultItem(data, className) {
    var li = el("li", className);
    var link = el("a", className + "__link");
    link.href = data.url;
    var article = el("article", className + "__article md-typeset");
    article.appendChild(el("h3", className + "__title", data.meta.title || data.url));
    var facts = [data.meta.topics, data.meta.year].filter(Boolean).join(" · ");
    if (facts) article.appendChild(el("p", className + "__facts", facts));
    var teaser = el("p", className + "__teaser");
    teaser.appendChild(excerpt(data.excerpt || ""));
    article.appendChild(teaser);
    link.appendChild(article);
    li.appendChild(link);
    return li;
  }

  // --- the header's box ------------------------------------------------------------------------

  var toggle = document.getElementById("__search");
  var box = document.querySelector("[data-survey-search]");
  var input = box && box.querySelector("input[name=q]");
  var list = box && box.querySelector(".md-search-result__list");
  var meta = box && box.querySelector(".md-search-result__meta");
  var hint = meta && meta.textContent;
  var asked = 0;

  function open(state) {
    if (toggle.checked !== state) {
      toggle.checked = state;
      toggle.dispatchEvent(new Event("change"));
    }
    input.setAttribute("aria-expanded", state ? "true" : "false");
  }

  var typing = null;

  function quickSearch() {
    clearTimeout(typing);
    var ticket = ++asked;
    // The first key searches at once; while typing goes on, wait for a short pause.
    typing = setTimeout(function () { runQuick(ticket); }, list.childElementCount ? 80 : 0);
  }

  function runQuick(ticket) {
    var query = input.value.trim();
    if (!query) { list.replaceChildren(); meta.textContent = hint; return; }
    meta.textContent = "Searching…";
    pagefind().then(function (pf) {
      return pf.search(query);
    }).then(function (search) {
      if (search === null || ticket !== asked) return null;  // a newer query is on its way
      var n = search.results.length;
      meta.textContent = n === 0 ? "No paper matches" : n === 1 ? "1 matching page" : n + " matching pages";
      // One slot per result, filled as each result's data arrives: the first shows at once.
      var slots = search.results.slice(0, QUICK).map(function () {
        var slot = el("li", "md-search-result__item");
        slot.setAttribute("role", "none");  // the listbox's options are the links
        return slot;
      });
      list.replaceChildren.apply(list, slots);
      search.results.slice(0, QUICK).forEach(function (result, i) {
        result.data().then(function (d) {
          if (ticket !== asked) return;
          var li = resultItem(d, "md-search-result__item");
          li.firstChild.className = "md-search-result__link";
          li.firstChild.setAttribute("role", "option");
          li.firstChild.tabIndex = -1;
          li.setAttribute("role", "none");
          slots[i].replaceWith(li);
        });
      });
      if (n > 0) {
        var more = el("li", "md-search-result__item survey-quick__more");
        more.setAttribute("role", "none");
        var all = el("a", "md-search-result__link", n > QUICK ? "All " + n + " results, with filters" : "Filter these results");
        all.href = new URL("search/?q=" + encodeURIComponent(query), root).href;
        all.setAttribute("role", "option");
        all.tabIndex = -1;
        more.appendChild(all);
        list.appendChild(more);
      }
    }).catch(function (error) {
      meta.textContent = "Search is not available: " + error.message;
    });
  }

  function links() { return Array.prototype.slice.call(list.querySelectorAll("a")); }

  if (box) {
    warmIfMarked();
    input.addEventListener("focus", function () { open(true); pagefind(); });
    // A reader reaching for the search box: load Pagefind while the pointer travels.
    var reach = document.querySelectorAll("label[for=__search], [data-survey-search] .md-search__form");
    Array.prototype.forEach.call(reach, function (node) {
      ["pointerenter", "touchstart"].forEach(function (kind) {
        node.addEventListener(kind, function () { pagefind(); }, { passive: true, once: true });
      });
    });
    input.addEventListener("input", quickSearch);
    toggle.addEventListener("change", function () {
      if (toggle.checked && document.activeElement !== input) input.focus();
      if (!toggle.checked) input.setAttribute("aria-expanded", "false");
    });
    box.querySelector("form").addEventListener("reset", function () {
      setTimeout(quickSearch, 0);
      input.focus();
    });
    box.querySelector("form").addEventListener("submit", function (event) {
      var first = list.querySelector("a");
      if (first) {  // Enter opens the first result, as in Material's search
        event.preventDefault();
        first.click();
      }
    });
    list.addEventListener("click", function () { open(false); input.blur(); });
    box.addEventListener("keydown", function (event) {
      var items = links(), at = items.indexOf(document.activeElement);
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        if (!items.length) return;
        event.preventDefault();
        var step = event.key === "ArrowDown" ? 1 : -1;
        var next = at + step;
        if (next < 0) { input.focus(); return; }
        items[Math.min(next, items.length - 1)].focus();
      } else if (event.key === "Escape") {
        event.preventDefault();
        open(false);
        input.blur();
      } else if (at >= 0 && event.key.length === 1) {
        input.focus();  // typing goes back to the box
      }
    });
    // Words typed into the box before this script ran (a slow connection) are searched now.
    if (input.value.trim()) {
      if (document.activeElement === input) open(true);
      quickSearch();
    }
    document.addEventListener("keydown", function (event) {
      if (event.metaKey || event.ctrlKey || event.altKey || toggle.checked) return;
      var target = event.target;
      if (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
      if (event.key === "/" || event.key === "s" || event.key === "S") {
        event.preventDefault();
        open(true);
        input.focus();
      }
    });
  }

  // --- the search page: words, filters and order, all in the URL --------------------------------

  function pageState() {
    var params = new URLSearchParams(location.search);
    var filters = {};
    FACETS.forEach(function (f) {
      var values = params.getAll(f[0]);
      if (values.length) filters[f[0]] = values;
    });
    return { q: params.get("q") || "", sort: params.get("sort") || "", filters: filters };
  }

  function stateUrl(state) {
    var params = new URLSearchParams();
    if (state.q) params.set("q", state.q);
    FACETS.forEach(function (f) {
      (state.filters[f[0]] || []).forEach(function (v) { params.append(f[0], v); });
    });
    if (state.sort) params.set("sort", state.sort);
    var text = params.toString();
    return location.pathname + (text ? "?" + text : "");
  }

  function facetOrder(name, counts) {
    return Object.keys(counts).sort(function (a, b) {
      if (name === "year") return b.localeCompare(a);  // newest first; "no date" after digits
      return counts[b] - counts[a] || a.localeCompare(b);
    });
  }

  function mountSearchPage(app) {
    var form = app.querySelector("form");
    var query = app.querySelector("#survey-search-query");
    var sort = app.querySelector("#survey-search-sort");
    var facets = app.querySelector(".survey-search__facets");
    var results = app.querySelector(".survey-search__results");
    var state = pageState();
    var shown = PAGE, ticket = 0;
    query.value = state.q;
    sort.value = state.sort;
    // On a phone the filters fold away above the results, and open with a tap.
    if (window.matchMedia("(max-width: 44.9375em)").matches) app.querySelector("details").open = false;

    function renderFacets(counts, all) {
      facets.replaceChildren();
      FACETS.forEach(function (f) {
        var name = f[0], chosen = state.filters[name] || [];
        var known = Object.assign({}, all[name] || {});
        var values = facetOrder(name, known).filter(function (v) {
          return (counts[name] || {})[v] > 0 || chosen.indexOf(v) >= 0;
        });
        if (!values.length) return;
        var box = el("fieldset", "survey-facet");
        box.appendChild(el("legend", "survey-facet__name", f[1]));
        values.forEach(function (value) {
          var label = el("label", "survey-facet__value");
          var check = el("input");
          check.type = "checkbox";
          check.name = name;
          check.value = value;
          check.checked = chosen.indexOf(value) >= 0;
          label.appendChild(check);
          label.appendChild(el("span", "survey-facet__label", value));
          label.appendChild(el("span", "survey-facet__count", String((counts[name] || {})[value] || 0)));
          box.appendChild(label);
        });
        facets.appendChild(box);
      });
    }

    function renderResults(search, words) {
      var n = search.results.length;
      var mine = ticket;
      return Promise.all(search.results.slice(0, shown).map(function (r) { return r.data(); }))
        .then(function (items) {
          if (mine !== ticket) return;
          results.replaceChildren();
          var what = n === 1 ? "1 paper" : n + " papers";
          results.appendChild(el("p", "survey-search__status",
            words ? what + " match " + JSON.stringify(words) : what + ", newest first"));
          var ol = el("ol", "survey-search__list");
          items.forEach(function (d) { ol.appendChild(resultItem(d, "survey-result")); });
          results.appendChild(ol);
          if (n > shown) {
            var more = el("button", "md-button survey-search__more", "Show " + Math.min(PAGE, n - shown) + " more");
            more.type = "button";
            more.addEventListener("click", function () { shown += PAGE; run(false); });
            results.appendChild(more);
          }
        });
    }

    // Papers only: every paper has a topic ("Other" when it has none), a hand-written page none.
    var topics = JSON.parse(app.getAttribute("data-topics") || "[]");
    var facetValues = null;  // every facet's values, once Pagefind has loaded all the filter chunks

    function searchOptions(words) {
      var options = { filters: {} };
      Object.keys(state.filters).forEach(function (k) { options.filters[k] = { any: state.filters[k] }; });
      if (!options.filters.topic && topics.length) options.filters.topic = { any: topics };
      if (state.sort === "newest" || !words) options.sort = { date: "desc" };
      return options;
    }

    // The results first: they need only the chunks of the words and of the chosen filters. Every
    // facet's counts come after, once Pagefind has loaded all the filter chunks (filters()), by
    // a second search; from then on one search gives both.
    function run(push) {
      var mine = ++ticket;
      var words = state.q.trim();
      var options = searchOptions(words);
      if (push) history.replaceState(history.state, "", stateUrl(state));
      pagefind().then(function (pf) {
        return pf.search(words || null, options).then(function (search) {
          if (mine !== ticket) return null;
          var all = facetValues;
          if (all) renderFacets(search.filters, all);
          return renderResults(search, words).then(function () {
            if (all || mine !== ticket) return null;
            return pf.filters().then(function (every) {
              facetValues = every;
              return mine === ticket ? pf.search(words || null, options) : null;
            }).then(function (counted) {
              if (counted && mine === ticket) renderFacets(counted.filters, facetValues);
            });
          });
        });
      }).catch(function (error) {
        results.replaceChildren(el("p", "survey-search__status", "Search is not available: " + error.message));
      });
    }

    form.addEventListener("submit", function (event) { event.preventDefault(); });
    var typing = null;
    query.addEventListener("input", function () {
      clearTimeout(typing);
      typing = setTimeout(function () { state.q = query.value; shown = PAGE; run(true); }, 200);
    });
    sort.addEventListener("change", function () { state.sort = sort.value; shown = PAGE; run(true); });
    facets.addEventListener("change", function (event) {
      var check = event.target;
      var values = (state.filters[check.name] || []).filter(function (v) { return v !== check.value; });
      if (check.checked) values.push(check.value);
      if (values.length) state.filters[check.name] = values;
      else delete state.filters[check.name];
      shown = PAGE;
      run(true);
    });
    run(false);
  }

  // --- old links into a listing's first page: jump to the part that now holds the entry ----------

  function followEntry() {
    var marker = document.querySelector(".survey-parts");
    var match = /^#entry-(\d+)$/.exec(location.hash);
    if (!marker || !match || document.getElementById("entry-" + match[1])) return;
    var per = parseInt(marker.getAttribute("data-entries-per-part"), 10);
    var part = Math.ceil(parseInt(match[1], 10) / per);
    if (part > 1 && part <= parseInt(marker.getAttribute("data-parts"), 10)) {
      location.replace(new URL(part + "/" + location.hash, location.href).href);
    }
  }

  function onPage() {
    followEntry();
    if (box) warmIfMarked();
    var app = document.getElementById("survey-search");
    if (app && !app.hasAttribute("data-mounted")) {
      app.setAttribute("data-mounted", "");
      mountSearchPage(app);
    }
  }

  // Material's instant navigation swaps the page without reloading scripts: document$ says when.
  if (window.document$) window.document$.subscribe(onPage);
  else onPage();
})();
