// Search with Pagefind (https://pagefind.app): the header's box answers as you type, the search
// page (search/) adds filters by topic, review, tag, year, listing and author, kept in its URL (a paper's
// page links each author's name to search/?author=NAME: every paper of that author). The index lives in
// pagefind/ at the site root and is fetched in small pieces, only those a query needs.
// Pagefind's script, its WebAssembly and the index's meta file load before the first query: on
// the pages a reader comes to search from (the home page and the search page) the theme starts
// them from the page's head (templates/theme/main.html) and this script takes the same module
// over; elsewhere they load as soon as the reader reaches for the search box (pointer, touch,
// focus, or the / and s keys). A query never waits for more.
// A site of more than 10,000 papers has its index in parts (generator/site/search.py): part 1,
// in pagefind/, holds the newest papers and every other page and answers first, as a smaller
// site's whole index would; pagefind/survey-parts.json names the older parts, each a date range,
// which are fetched and searched only once part 1 has answered, and add to what it showed.
// Corpus text is shown with textContent; only Pagefind's <mark> survives from an excerpt.
(function () {
  "use strict";

  var script = document.currentScript;
  var root = new URL("../", script ? script.src : location.href);  // this file is assets/search.js
  // review: "reviewed" (a person decided the paper's topics) or "suggested" (the topic model did).
  var FACETS = [["topic", "Topic"], ["review", "Topics reviewed"], ["year", "Year"], ["listing", "Listing"],
                ["tag", "Tag"], ["author", "Author"]];
  // Authors are many (39,561 in 9,109 real papers): the author facet lists the chosen ones and
  // those with the most papers among the results, not all of them.
  var AUTHORS_SHOWN = 10;
  // Pagefind matches no filter value holding " or \ (it reads a search's filters without JSON's
  // escapes): the pages index an author's name with their fullwidth forms (templates/theme/main.html).
  function authorKey(name) { return name.replace(/"/g, "\uff02").replace(/\\/g, "\uff3c"); }
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

  // The parts after the first: Pagefind instances of their own, from the same module (one worker).
  var later = null;
  // How many parts the index has, once laterParts() has said (0: not yet). A search drawn before
  // the other parts answer counts them as waiting ("so far"): drawn as one part, its first view
  // gave part 1's count as the whole ("35 papers", then "119") after "Show more" or a filter.
  var knownParts = 0;

  function laterParts() {
    if (!later) {
      var manifest = fetch(new URL("pagefind/survey-parts.json", root).href).then(function (response) {
        if (!response.ok) throw new Error("pagefind/survey-parts.json: HTTP " + response.status);
        return response.json();
      });
      later = Promise.all([pagefind(), manifest]).then(function (both) {
        knownParts = both[1].parts.length + 1;
        return both[1].parts.map(function (folder) {
          return both[0].createInstance({ basePath: new URL("pagefind/" + folder + "/", root).href,
                                          baseUrl: root.pathname, excerptLength: 24 });
        });
      });
      later.catch(function () { later = null; });  // asked again by the next query
    }
    return later;
  }

  // The parts' answers in part order: onEach(search, i) for parts[i] as it comes, then the
  // promise resolves with every answer. Pagefind's worker answers one search at a time, so the
  // parts are searched one after the other, each only while `alive()` (no newer query), so that
  // a newer query never waits behind the whole of an older one; their index chunks are fetched
  // at once. A part not kept answers nothing.
  function searchParts(parts, keep, alive, words, options, onEach) {
    if (parts.length > 1 && words) parts.forEach(function (part, i) { if (keep[i]) part.preload(words, options); });
    return parts.reduce(function (done, part, i) {
      return done.then(function (all) {
        if (!alive()) throw new Stale();
        return (keep[i] ? part.search(words, options) : Promise.resolve(NOTHING)).then(function (search) {
          if (!alive()) throw new Stale();
          onEach(search, i);
          return all.concat([search]);
        });
      });
    }, Promise.resolve([]));
  }

  var NOTHING = { results: [], filters: {}, unfilteredResultCount: 0 };

  // Pagefind answers a word that is not in its index with the pages of the longest indexed word
  // the word starts with ("blueprint" finds "(b)"): one index does so only for a word that is
  // nowhere on the site, an index in parts in every part that lacks the word. So a part is kept
  // for a query only if it has each of the query's words that some part has. A quoted word under
  // a filter that no page has costs no scoring, and counts the pages that have the word itself.
  function partsWithWords(parts, words) {
    var terms = words.indexOf('"') >= 0 ? [] : words.split(/\s+/).filter(Boolean);
    if (parts.length < 2 || !terms.length) return Promise.resolve(parts.map(function () { return true; }));
    return Promise.all(parts.map(function (part) {
      return Promise.all(terms.map(function (term) {
        return part.search('"' + term + '"', { filters: { "survey-none": "none" } })
          .then(function (search) { return search.unfilteredResultCount; });
      }));
    })).then(function (counts) {
      return counts.map(function (mine) {
        return terms.every(function (term, i) {
          return mine[i] > 0 || counts.every(function (other) { return other[i] === 0; });
        });
      });
    });
  }

  function Stale() {}

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

  // The matched words of the abstract, when it has any. Pagefind's excerpt is the densest window
  // of the page's indexed text, which starts with the title and the authors (`lead` words, in the
  // entry), so a query matching the title showed the title and the author list again. Pagefind's
  // locations count the words of `content` split at white space.
  function teaserOf(data, entry) {
    var lead = entry.lead || 0;
    var hits = (data.locations || []).filter(function (at) { return at >= lead; });
    if (!lead || !hits.length || !data.content) return excerpt(data.excerpt || "");
    var words = data.content.split(/\s+/), out = document.createDocumentFragment();
    var start = Math.max(lead, hits[0] - 5), end = Math.min(words.length, start + 24);
    if (start > lead) out.appendChild(document.createTextNode("… "));
    for (var i = start; i < end; i++) {
      if (i > start) out.appendChild(document.createTextNode(" "));
      out.appendChild(hits.indexOf(i) >= 0 ? el("mark", "", words[i]) : document.createTextNode(words[i]));
    }
    return out;
  }

  // A paper's entry, as its page gave it to the index (the `entry` meta: generator/site/entries.py):
  // authors (the first three, and `more`), date, venue, code, topics ([id, name, confidence]),
  // `suggested` when no person reviewed them, tags ([id, name]). Hand-written pages have none.
  function entryOf(data) {
    if (typeof data.meta.entry === "object") return data.meta.entry;  // from an id file (lookUp)
    try { return JSON.parse(data.meta.entry || "{}"); } catch (e) { return {}; }
  }

  // --- a paper by its id -------------------------------------------------------------------------

  // Pagefind matches words: "2504.11651" matched "MI250X" and not the paper of that id. A query
  // that reads as an id is looked up in the id files instead (generator/site/ids.py): an arXiv
  // id as readers paste it ("2504.11651", "arXiv:2504.11651v2", "cs/0112017", an arxiv.org abs,
  // pdf or html URL, a Hugging Face Papers URL) or a DOI ("10.1145/...", "doi:...", a doi.org
  // URL; arXiv's own DOI, 10.48550/arXiv.ID, is its arXiv id). Returns {kind, id, key, away}
  // (`away`: where the reader goes on when the survey lacks it), {partial: true} for an arXiv
  // id still being typed ("2504.1165"), or null: words to search.
  var ID_FILES = 1024;  // ids.BUCKETS
  var URL_ID = [/^(?:https?:\/\/)?(?:www\.|export\.)?arxiv\.org\/(?:abs|pdf|html)\/([^?#]+?)(?:\.pdf)?\/?(?:[?#].*)?$/i,
                /^(?:https?:\/\/)?(?:www\.)?huggingface\.co\/papers\/([^?#/]+)\/?(?:[?#].*)?$/i,
                /^arxiv\s*:?\s*(\S+)$/i];
  var DOI = /^(?:(?:https?:\/\/)?(?:dx\.)?doi\.org\/|doi\s*:?\s*)?(10\.\d{4,9}\/\S+)$/i;

  function asciiLower(text) { return text.replace(/[A-Z]/g, function (c) { return c.toLowerCase(); }); }

  function paperId(query) {
    var text = query.trim(), id = null;
    URL_ID.forEach(function (form) { var m = !id && form.exec(text); if (m) id = m[1]; });
    if (!id) {
      var doi = DOI.exec(text);
      if (!doi) id = text;
      else {
        var value = doi[1];
        try { value = decodeURIComponent(value); } catch (e) { /* as typed */ }
        var ofArxiv = /^10\.48550\/arxiv\.(.+)$/i.exec(value);
        if (!ofArxiv) return { kind: "doi", id: value, key: asciiLower(value), away: "https://doi.org/" + value };
        id = ofArxiv[1];
      }
    }
    var m = /^(\d\d)(\d\d)\.(\d{4,5})(?:v\d+)?$/.exec(id);
    // Four digits after the dot until December 2014, five from January 2015.
    if (m && m[2] >= "01" && m[2] <= "12" && (m[3].length === 5) === (m[1] + m[2] >= "1501")) {
      return arxivId(m[1] + m[2] + "." + m[3]);
    }
    var old = /^([a-z]+(?:-[a-z]+)?)(?:\.[a-z]{2})?\/(\d{7})(?:v\d+)?$/i.exec(id);
    if (old) return arxivId(asciiLower(old[1]) + "/" + old[2]);
    return /^\d{4}\.\d{0,4}$/.test(id) ? { partial: true } : null;
  }

  function arxivId(id) { return { kind: "arxiv", id: id, key: id, away: "https://arxiv.org/abs/" + id }; }

  function idWords(found) { return (found.kind === "doi" ? "DOI " : "arXiv id ") + found.id; }

  // FNV-1a of the key's UTF-8 bytes: the id file that holds it (ids.bucket).
  function idFile(key) {
    var bytes = new TextEncoder().encode(key), hash = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193) >>> 0;
    return "ids/" + ("00" + (hash % ID_FILES).toString(16)).slice(-3) + ".json";
  }

  var idFiles = {};

  // The paper of an id, as a result's data (Pagefind's shape: url, meta.title, meta.entry), or null.
  function lookUp(found) {
    var file = idFile(found.key);
    if (!idFiles[file]) {
      idFiles[file] = fetch(new URL(file, root).href).then(function (response) {
        if (!response.ok) throw new Error(file + ": HTTP " + response.status);
        return response.json();
      });
      idFiles[file].catch(function () { delete idFiles[file]; });  // asked again by the next query
    }
    return idFiles[file].then(function (held) {
      var paper = Object.prototype.hasOwnProperty.call(held, found.key) ? held[found.key] : null;
      return paper && { url: new URL(paper[0], root).href, meta: { title: paper[1], entry: paper[2] } };
    });
  }

  function idHint() { return "An arXiv id: four digits, a dot and five digits, like 2504.11651"; }

  function authorUrl(name) { return new URL("search/?author=" + encodeURIComponent(name), root).href; }

  // "Serving suggested 85%": the one wording of every page for a topic no person reviewed.
  function topicWords(entry, topic) {
    return entry.suggested ? "suggested" + (topic[2] ? " " + topic[2] : "") : "";
  }

  // The line under the title: authors, then date and venue. With links on the search page; as
  // text in the header's box, whose results are each one link. `sought`: the author filter's
  // names; one that is not among the first three is named after "et al." (a search by an author
  // showed papers whose line did not name them).
  function metaLine(entry, withLinks, sought) {
    var line = el("p", "survey-result__facts");
    var shown = entry.authors || [];
    shown.forEach(function (name, i) {
      if (i) line.appendChild(document.createTextNode(", "));
      if (withLinks) {
        var a = el("a", "", name);
        a.href = authorUrl(name);
        line.appendChild(a);
      } else line.appendChild(document.createTextNode(name));
    });
    var keys = shown.map(authorKey);
    var also = entry.more ? (sought || []).filter(function (key) { return keys.indexOf(key) < 0; }) : [];
    if (also.length) {
      line.appendChild(document.createTextNode(" et al., including "));
      also.forEach(function (key, i) {
        if (i) line.appendChild(document.createTextNode(", "));
        line.appendChild(el("strong", "", key));
      });
    }
    var rest = (entry.more && !also.length ? " et al." : "");
    [entry.date, entry.venue].forEach(function (part) {
      if (part) rest += (rest || (entry.authors || []).length ? " · " : "") + part;
    });
    line.appendChild(document.createTextNode(rest));
    return line;
  }

  function chip(text, mark, href, className) {
    var a = el("a", "md-tag " + className, text);
    if (mark) { a.appendChild(document.createTextNode(" ")); a.appendChild(el("small", "", mark)); }
    a.href = new URL(href, root).href;
    return a;
  }

  // A result on the search page: the same entry as the lists' (templates/_entry.html.j2), then the
  // words the query matched (with no words, Pagefind's excerpt is the page's first words, the
  // title and authors again: left out).
  function resultItem(data, words, sought) {
    var entry = entryOf(data);
    var li = el("li", "survey-result");
    var article = el("article", "survey-result__article md-typeset");
    var title = el("h3", "survey-result__title");
    var link = el("a", "survey-result__link", data.meta.title || data.url);
    link.href = data.url;
    title.appendChild(link);
    if (entry.code) {
      var code = el("a", "survey-code", "Code");
      code.href = entry.code;
      title.appendChild(code);
    }
    article.appendChild(title);
    if ((entry.authors || []).length || entry.date || entry.venue) article.appendChild(metaLine(entry, true, sought));
    var chips = el("p", "survey-result__chips");
    (entry.topics || []).forEach(function (topic) {
      chips.appendChild(chip(topic[1], topicWords(entry, topic), "topics/" + topic[0] + "/",
                             "survey-topic" + (entry.suggested ? " survey-topic--suggested" : "")));
      chips.appendChild(document.createTextNode(" "));
    });
    (entry.tags || []).forEach(function (tag) {
      chips.appendChild(chip(tag[1], "", "tags/" + tag[0] + "/", ""));
      chips.appendChild(document.createTextNode(" "));
    });
    if (chips.childNodes.length) article.appendChild(chips);
    if (words) {
      var teaser = el("p", "survey-result__teaser");
      teaser.appendChild(teaserOf(data, entry));
      article.appendChild(teaser);
    }
    li.appendChild(article);
    return li;
  }

  // A result in the header's box: one link (an option of its list box), with the entry's title,
  // its authors, date and venue, its topics as words, and the matched words.
  function quickItem(data) {
    var entry = entryOf(data);
    var li = el("li", "md-search-result__item");
    var link = el("a", "md-search-result__link");
    link.href = data.url;
    var article = el("article", "md-search-result__article md-typeset");
    article.appendChild(el("h3", "md-search-result__item__title", data.meta.title || data.url));
    if ((entry.authors || []).length || entry.date || entry.venue) {
      var meta = metaLine(entry, false);
      meta.className = "md-search-result__item__facts";
      article.appendChild(meta);
    }
    var topics = (entry.topics || []).map(function (topic) {
      var words = topicWords(entry, topic);
      return topic[1] + (words ? " " + words : "");
    }).join(", ");
    if (topics) article.appendChild(el("p", "md-search-result__item__facts", topics));
    var words = teaserOf(data, entry);
    if (words.childNodes.length) {  // a paper found by its id has no matched words
      var teaser = el("p", "md-search-result__item__teaser");
      teaser.appendChild(words);
      article.appendChild(teaser);
    }
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

  function quickCount(n, counting) {
    if (counting) return n === 0 ? "Searching…" : n + (n === 1 ? " matching page" : " matching pages") + " so far, counting…";
    return n === 0 ? "No paper matches" : n === 1 ? "1 matching page" : n + " matching pages";
  }

  // The link to the search page, last in the list, with the count as it stands.
  function quickMore(query, n) {
    var old = list.querySelector(".survey-quick__more");
    if (old) old.remove();
    if (n === 0) return;
    var more = el("li", "md-search-result__item survey-quick__more");
    more.setAttribute("role", "none");
    var all = el("a", "md-search-result__link", n > QUICK ? "All " + n + " results, with filters" : "Filter these results");
    all.href = new URL("search/?q=" + encodeURIComponent(query), root).href;
    all.setAttribute("role", "option");
    all.tabIndex = -1;
    more.appendChild(all);
    list.appendChild(more);
  }

  // One slot per result, filled as each result's data arrives: the first shows at once.
  function quickResults(results, ticket) {
    var more = list.querySelector(".survey-quick__more");
    results.forEach(function (result) {
      var slot = el("li", "md-search-result__item");
      slot.setAttribute("role", "none");  // the listbox's options are the links
      list.insertBefore(slot, more);
      result.data().then(function (d) {
        if (ticket !== asked) return;
        var li = quickItem(d);
        li.firstChild.setAttribute("role", "option");
        li.firstChild.tabIndex = -1;
        li.setAttribute("role", "none");
        slot.replaceWith(li);
      });
    });
  }

  // A query that reads as an id: its paper alone, or a line that the survey lacks it with the
  // link where the reader goes on (Enter does not leave the site: it opens the search page).
  function runQuickId(found, ticket) {
    list.replaceChildren();
    if (found.partial) { meta.textContent = idHint(); return; }
    meta.textContent = "Looking up the " + idWords(found) + "…";
    lookUp(found).then(function (paper) {
      if (ticket !== asked) return;
      if (paper) {
        meta.textContent = "The paper with " + idWords(found);
        var li = quickItem(paper);
        li.firstChild.setAttribute("role", "option");
        li.firstChild.tabIndex = -1;
        li.setAttribute("role", "none");
        list.replaceChildren(li);
        return;
      }
      meta.textContent = "No paper with " + idWords(found) + " in the survey";
      var item = el("li", "md-search-result__item survey-quick__away");
      item.setAttribute("role", "none");
      var away = el("a", "md-search-result__link", found.kind === "doi" ? "Look it up at doi.org" : "Open it on arxiv.org");
      away.href = found.away;
      away.setAttribute("role", "option");
      away.tabIndex = -1;
      item.appendChild(away);
      list.replaceChildren(item);
    }).catch(function (error) {
      if (ticket === asked) meta.textContent = "Search is not available: " + error.message;
    });
  }

  function runQuick(ticket) {
    var query = input.value.trim();
    if (!query) { list.replaceChildren(); meta.textContent = hint; return; }
    var found = paperId(query);
    if (found) { runQuickId(found, ticket); return; }
    meta.textContent = "Searching…";
    var n = 0, shown = 0, alive = function () { return ticket === asked; };
    var first = null;
    pagefind().then(function (pf) {
      first = pf;
      return pf.search(query);
    }).then(function (search) {
      if (search === null || !alive()) return null;  // a newer query is on its way
      n = search.results.length;
      meta.textContent = quickCount(n, false);
      list.replaceChildren();
      shown = Math.min(n, QUICK);
      quickResults(search.results.slice(0, shown), ticket);
      quickMore(query, n);
      // The older parts: their results fill the list up to QUICK, and count.
      return laterParts().then(function (parts) {
        if (!parts.length || !alive()) return null;
        meta.textContent = quickCount(n, true);
        return partsWithWords([first].concat(parts), query).then(function (keep) {
          if (!alive()) throw new Stale();
          if (!keep[0]) {  // part 1 lacks a word that older papers have: what it showed goes
            n = shown = 0;
            list.replaceChildren();
          }
          return searchParts(parts, keep.slice(1), alive, query, {}, function (part) {
            var room = Math.min(QUICK - shown, part.results.length);
            n += part.results.length;
            shown += room;
            quickResults(part.results.slice(0, room), ticket);
            quickMore(query, n);
            meta.textContent = quickCount(n, true);
          });
        }).then(function () {
          meta.textContent = quickCount(n, false);
        });
      });
    }).catch(function (error) {
      if (error instanceof Stale || !alive()) return;
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
      if (first && !first.closest(".survey-quick__away")) {  // Enter opens the first result, as in Material's search
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
      if (f[0] === "author") values = values.map(authorKey);
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

  // The order of generator/site/facets.py, which writes the values into the page as built: the
  // most first, then by name in code point order; years newest first, "no date" last.
  function facetOrder(name, counts) {
    return Object.keys(counts).sort(function (a, b) {
      if (name === "year") return (a === "no date") - (b === "no date") || (a < b) - (a > b);
      return counts[b] - counts[a] || (a > b) - (a < b);
    });
  }

  function mountSearchPage(app) {
    var form = app.querySelector("form");
    var query = app.querySelector("#survey-search-query");
    var sort = app.querySelector("#survey-search-sort");
    var facets = app.querySelector(".survey-search__facets");
    var results = app.querySelector(".survey-search__results");
    var state = pageState();
    var shown = PAGE, ticket = 0, drawing = 0;
    var best = sort.querySelector("option[value='']");
    var filters = app.querySelector(".survey-search__filters");
    var summary = filters.querySelector("summary");
    var show = filters.querySelector(".survey-search__show");
    query.value = state.q;
    // On a phone the filters fold away above the results, and open with a tap; "Show N papers",
    // at the foot of the open box, folds it and goes to the results (the box is longer than the
    // screen: a tick left the reader scrolling past it).
    if (window.matchMedia("(max-width: 44.9375em)").matches) filters.open = false;
    show.addEventListener("click", function () {
      filters.open = false;
      results.scrollIntoView({ block: "start" });
    });
    tickBuilt();

    // The filters as built hold the whole survey's values and counts: tick the URL's, adding
    // those the page lacks (an author beyond the first ten), until the search counts them; with
    // words or a filter their counts are the survey's, not the view's, meanwhile (dimmed).
    function tickBuilt() {
      FACETS.forEach(function (f) {
        var chosen = state.filters[f[0]] || [];
        var boxes = Array.prototype.slice.call(facets.querySelectorAll("input[name='" + f[0] + "']"));
        boxes.forEach(function (check) { check.checked = chosen.indexOf(check.value) >= 0; });
        var have = boxes.map(function (check) { return check.value; });
        chosen.filter(function (v) { return have.indexOf(v) < 0; }).reverse().forEach(function (value) {
          var set = boxes.length ? boxes[0].closest("fieldset") : null;
          if (!set) {
            set = el("fieldset", "survey-facet");
            set.appendChild(el("legend", "survey-facet__name", f[1]));
            facets.appendChild(set);
          }
          set.insertBefore(facetValue(f[0], value, "", true), set.querySelector("label"));
        });
      });
      if (state.q.trim() || Object.keys(state.filters).length) facets.setAttribute("aria-busy", "true");
    }

    // The order box says the order the results are in: with no words there is nothing to match,
    // and the results are newest first ("Best match" is then not a choice). The Filters box says
    // how many filters are on, folded or not.
    function showState() {
      var words = state.q.trim();
      best.disabled = !words;
      sort.value = words ? state.sort : "newest";
      var on = 0;
      Object.keys(state.filters).forEach(function (k) { on += state.filters[k].length; });
      summary.textContent = on ? "Filters (" + on + " on)" : "Filters";
    }

    function renderFacets(counts, all) {
      facets.replaceChildren();
      FACETS.forEach(function (f) {
        var name = f[0], chosen = state.filters[name] || [];
        // By their count in these results (they were in the whole index's order: "Speculative
        // decoding 28" far down the tags of a search for speculative decoding).
        var known = Object.assign({}, all[name] || {}, counts[name] || {});
        var values = facetOrder(name, known).filter(function (v) {
          return (counts[name] || {})[v] > 0 || chosen.indexOf(v) >= 0;
        });
        if (name === "author") {
          var here = counts.author || {};
          values = chosen.concat(facetOrder(name, here).filter(function (v) {
            return here[v] > 0 && chosen.indexOf(v) < 0;
          }).slice(0, AUTHORS_SHOWN));
        }
        if (!values.length) return;
        var box = el("fieldset", "survey-facet");
        box.appendChild(el("legend", "survey-facet__name", f[1]));
        values.forEach(function (value) {
          box.appendChild(facetValue(name, value, String((counts[name] || {})[value] || 0), chosen.indexOf(value) >= 0));
        });
        facets.appendChild(box);
      });
      facets.removeAttribute("data-built");
      facets.removeAttribute("aria-busy");
    }

    // One value of a facet, as templates/search.md.j2 writes it.
    function facetValue(name, value, count, checked) {
      var label = el("label", "survey-facet__value");
      var check = el("input");
      check.type = "checkbox";
      check.name = name;
      check.value = value;
      check.checked = checked;
      label.appendChild(check);
      label.appendChild(el("span", "survey-facet__label", value));
      label.appendChild(el("span", "survey-facet__count", count));
      return label;
    }

    // The results of the parts that have answered (`answers[i]` for part i + 1, undefined while
    // it is coming), as one list: newest first, the parts are date ranges, so their lists follow
    // each other (as far as every part before has answered); by relevance, merged by score.
    // Pagefind scores a page against its own index's word statistics, so scores of two parts
    // are comparable only roughly (parts of 10,000 papers of one corpus have close statistics):
    // within a part the order is exactly Pagefind's, across parts it is an approximation.
    function merged(answers, parts, byDate) {
      if (parts === 1) return { n: answers[0].results.length, results: answers[0].results, waiting: 0 };
      var view = { n: 0, results: [], waiting: 0 }, gap = false;
      for (var i = 0; i < parts; i++) {
        if (!answers[i]) { view.waiting++; gap = true; continue; }
        view.n += answers[i].results.length;
        if (!byDate || !gap) view.results = view.results.concat(answers[i].results);
      }
      if (!byDate) view.results.sort(function (a, b) { return b.score - a.score; });  // stable: ties in part order
      return view;
    }

    function renderResults(view, words) {
      var n = view.n;
      var mine = ticket, drawn = ++drawing;
      return Promise.all(view.results.slice(0, shown).map(function (r) { return r.data(); }))
        .then(function (items) {
          if (mine !== ticket || drawn !== drawing) return;
          results.replaceChildren();
          var what = (n === 1 ? "1 paper" : n + " papers") + (view.waiting ? " so far" : "");
          if (state.filters.author) what += " by " + state.filters.author.join(" or ");
          var status = words ? what + (n === 1 ? " matches " : " match ") + JSON.stringify(words) + (state.sort === "newest" ? ", newest first" : "")
            : what + ", newest first";
          if (view.waiting) {
            status += " (searching " + view.waiting + " more part" + (view.waiting > 1 ? "s" : "") + " of the index…)";
          }
          results.appendChild(el("p", "survey-search__status", status));
          show.textContent = n === 0 ? "No paper matches" : "Show " + (n === 1 ? "1 paper" : n + " papers");
          var ol = el("ol", "survey-search__list");
          items.forEach(function (d) { ol.appendChild(resultItem(d, words, state.filters.author)); });
          results.appendChild(ol);
          if (n > shown) {
            var more = el("button", "md-button survey-search__more", "Show " + Math.min(PAGE, n - shown) + " more");
            more.type = "button";
            more.addEventListener("click", function () { shown += PAGE; run(false); });
            results.appendChild(more);
          }
        });
    }

    // Each facet value's count over all parts.
    function sumFilters(list) {
      var out = {};
      list.forEach(function (filters) {
        Object.keys(filters || {}).forEach(function (name) {
          var into = out[name] = out[name] || {};
          Object.keys(filters[name]).forEach(function (v) { into[v] = (into[v] || 0) + filters[name][v]; });
        });
      });
      return out;
    }

    // Papers only: every paper has a topic ("Other" when it has none), a hand-written page none.
    var topics = JSON.parse(app.getAttribute("data-topics") || "[]");
    var facetValues = null;  // every facet's values, once Pagefind has loaded all the filter chunks

    function searchOptions(words, leaveOut) {
      var options = { filters: {} };
      Object.keys(state.filters).forEach(function (k) {
        if (k !== leaveOut) options.filters[k] = { any: state.filters[k] };
      });
      if (!options.filters.topic && topics.length) options.filters.topic = { any: topics };
      if (state.sort === "newest" || !words) options.sort = { date: "desc" };
      return options;
    }

    // Pagefind counts each value under every filter that is on, so a facet with a ticked value
    // would count its other values as 0 and hide them ("reviewed" vanished once "suggested" was
    // ticked). A ticked facet's values are counted again without its own filter: what ticking
    // one more would add. One search more (in each part) per ticked facet.
    function countTicked(every, keep, alive, words, counts) {
      var ticked = Object.keys(state.filters);
      return ticked.reduce(function (done, name) {
        return done.then(function () {
          var without = searchOptions(words, name);
          return searchParts(every, keep, alive, words || null, without, function () {}).then(function (counted) {
            counts[name] = sumFilters(counted.map(function (c) { return c.filters; }))[name] || {};
          });
        });
      }, Promise.resolve()).then(function () { return counts; });
    }

    // The results first: they need only the chunks of the words and of the chosen filters, and
    // part 1's come before the other parts are asked. Every facet's counts come after, once
    // Pagefind has loaded all the filter chunks of every part (filters()), by a second search;
    // from then on one search gives both.
    // A query that reads as an id: its paper alone, or that the survey lacks it and where the
    // reader goes on. The filters are no part of it: their box is hidden meanwhile.
    function runId(found, mine) {
      filters.hidden = true;
      var status = el("p", "survey-search__status");
      if (found.partial) {
        status.textContent = idHint();
        results.replaceChildren(status);
        return;
      }
      lookUp(found).then(function (paper) {
        if (mine !== ticket) return;
        if (paper) {
          status.textContent = "The paper with " + idWords(found);
          var ol = el("ol", "survey-search__list");
          ol.appendChild(resultItem(paper, "", null));
          results.replaceChildren(status, ol);
          return;
        }
        status.textContent = "No paper with " + idWords(found) + " in the survey.";
        var on = el("p", "survey-search__away");
        var away = el("a", "", found.away.replace(/^https:\/\//, ""));
        away.href = found.away;
        on.appendChild(document.createTextNode(found.kind === "doi" ? "Look it up at " : "It may be on arXiv: "));
        on.appendChild(away);
        results.replaceChildren(status, on);
      }).catch(function (error) {
        if (mine === ticket) results.replaceChildren(el("p", "survey-search__status", "Search is not available: " + error.message));
      });
    }

    function run(push) {
      var mine = ++ticket;
      var words = state.q.trim();
      var found = paperId(words);
      if (found) {
        if (push) history.replaceState(history.state, "", stateUrl(state));
        showState();
        runId(found, mine);
        return;
      }
      filters.hidden = false;
      var options = searchOptions(words);
      var alive = function () { return mine === ticket; };
      var answers = [], parts = knownParts || 1, byDate = options.sort !== undefined;
      var draw = function () { return renderResults(merged(answers, parts, byDate), words); };
      if (push) history.replaceState(history.state, "", stateUrl(state));
      showState();
      pagefind().then(function (pf) {
        return pf.search(words || null, options).then(function (search) {
          if (!alive()) throw new Stale();
          answers[0] = search;
          var all = facetValues, drawn = draw();
          return laterParts().then(function (others) {
            if (!alive()) throw new Stale();
            parts = others.length + 1;
            if (others.length) draw();  // says that more parts are coming
            var every = [pf].concat(others), keep = null;
            return partsWithWords(every, words).then(function (kept) {
              if (!alive()) throw new Stale();
              keep = kept;
              if (!keep[0]) answers[0] = NOTHING;
              return searchParts(others, keep.slice(1), alive, words || null, options, function (part, i) {
                answers[i + 1] = part;
                draw();
              });
            }).then(function () {
              if (all) return countTicked(every, keep, alive, words, sumFilters(answers.map(function (a) { return a.filters; })));
              return drawn.then(function () {
                if (!alive()) throw new Stale();
                return Promise.all(every.map(function (part) { return part.filters(); }));
              }).then(function (values) {
                facetValues = sumFilters(values);
                return searchParts(every, keep, alive, words || null, options, function () {});
              }).then(function (counted) {
                return countTicked(every, keep, alive, words, sumFilters(counted.map(function (c) { return c.filters; })));
              });
            }).then(function (counts) {
              if (alive()) renderFacets(counts, facetValues);
            });
          });
        });
      }).catch(function (error) {
        if (error instanceof Stale) return;
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
    // A link to this page with other words or filters (an author's name in a result) is followed
    // here: Material's instant navigation only pushed it (the same path, no page to fetch), and
    // under the site's path the URL went back and the results stayed. Back and Forward between
    // such views are this page's too.
    var here = location.pathname;
    function follow() {
      state = pageState();
      query.value = state.q;
      shown = PAGE;
      tickBuilt();
      run(false);
    }
    results.addEventListener("click", function (event) {
      var a = event.target.closest ? event.target.closest("a[href]") : null;
      if (!a || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      var url = new URL(a.href, location.href);
      if (url.origin !== location.origin || url.pathname !== here) return;
      event.preventDefault();
      event.stopPropagation();
      history.pushState(history.state, "", url.pathname + url.search);
      follow();
    });
    window.addEventListener("popstate", function back() {
      // instant navigation replaced this page: its listener goes with it
      if (!document.contains(app)) window.removeEventListener("popstate", back);
      else if (location.pathname === here) follow();
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
