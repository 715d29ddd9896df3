// Draws the trace embedded in this page. Everything shown comes from the
// JSON block "modelcheck-view" and is put in the page as text (textContent),
// never as markup, so nothing in a trace can run or inject HTML.
(function () {
  "use strict";

  var view = JSON.parse(document.getElementById("modelcheck-view").textContent);
  var current = 0;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") { node.textContent = attrs[k]; }
      else if (k === "className") { node.className = attrs[k]; }
      else { node.setAttribute(k, attrs[k]); }
    });
    (children || []).forEach(function (c) { if (c) { node.appendChild(c); } });
    return node;
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  function epochClass(epoch) { return "epoch-" + (((epoch % 8) + 8) % 8); }

  // --- cells ------------------------------------------------------------------------
  // A log lane. When the step changed the log, only the slots that changed
  // (and the marker, if it moved) are highlighted.
  function drawLog(cell) {
    var data = cell.data;
    var base = data.base || 0;  // the offset of the first slot
    var changedOffsets = cell.changed_offsets || [];
    var lane = el("span", { className: "lane" + (data.marker !== null ? " with-marker" : ""), "data-kind": "log" });
    function addMarker() { lane.appendChild(marker(data.marker_name, cell.marker_moved)); }
    data.records.forEach(function (rec, offset) {
      if (data.marker === offset) { addMarker(); }
      var changed = changedOffsets.indexOf(offset) >= 0 ? " changed" : "";
      var slot;
      var shown = offset + base;
      if (rec) {
        var what = rec.id !== null && rec.id !== undefined ? "record id " + rec.id : "record " + rec.text;
        slot = el("span", { className: "slot record " + epochClass(rec.epoch) + changed, "data-offset": String(offset),
                            title: "offset " + shown + ": " + what + ", leader epoch " + rec.epoch },
                  [el("span", { className: "offset", text: "@" + shown }),
                   el("span", { className: "rec", text: rec.text || "id" + rec.id + "@" + rec.epoch })]);
      } else {
        slot = el("span", { className: "slot empty" + changed, "data-offset": String(offset),
                            title: "offset " + shown + ": empty" },
                  [el("span", { className: "offset", text: "@" + shown }), el("span", { text: "·" })]);
      }
      lane.appendChild(slot);
    });
    if (data.marker !== null && data.marker >= data.records.length) { addMarker(); }
    return lane;
  }

  function marker(name, moved) {
    return el("span", { className: "marker" + (moved ? " changed" : ""), title: name, "data-marker": name },
              [el("span", { className: "marker-label", text: name })]);
  }

  function drawSet(cell) {
    var members = cell.data.members;
    var chips = el("span", { className: "chips", "data-kind": "set", title: cell.text });
    cell.data.universe.forEach(function (name) {
      var inside = members.indexOf(name) >= 0;
      chips.appendChild(el("span", { className: "chip" + (inside ? " in" : ""), text: name,
                                     "data-member": inside ? "yes" : "no" }));
    });
    if (cell.data.universe.length === 0) { chips.appendChild(el("span", { text: cell.text })); }
    return chips;
  }

  function drawCell(cell) {
    if (cell.kind === "log") { return drawLog(cell); }
    if (cell.kind === "set") { return drawSet(cell); }
    return el("span", { text: cell.text });
  }

  function changedTitle(cell) { return cell.before === null ? "new in this step" : "was: " + cell.before; }

  function cellClass(cell) {
    if (!cell.changed) { return ""; }
    // a log's own slots carry the highlight when they say what changed
    return cell.kind === "log" && cell.changed_offsets ? "changed log-changed" : "changed";
  }

  // --- groups -----------------------------------------------------------------------
  function drawTable(group, rows) {
    var head = el("tr", {}, [el("th", { text: group.title })].concat(
      group.columns.map(function (c) { return el("th", { text: c[1] }); })));
    var body = rows.map(function (row) {
      var byKey = {};
      row.cells.forEach(function (c) { byKey[c.key] = c; });
      var tds = group.columns.map(function (c) {
        var cell = byKey[c[0]];
        if (!cell) { return el("td", {}); }
        var td = el("td", { "data-cell": cell.key, className: cellClass(cell) }, [drawCell(cell)]);
        if (cell.changed) { td.title = changedTitle(cell); }
        return td;
      });
      return el("tr", { "data-row": row.name }, [el("td", { className: "name", text: row.name })].concat(tds));
    });
    return el("div", { className: "table-wrap" },
              [el("table", { className: "rows" }, [el("thead", {}, [head]), el("tbody", {}, body)])]);
  }

  function drawLines(group, rows) {
    return el("div", {}, rows.map(function (row) {
      var items = row.cells.map(function (cell) {
        var item = el("span", { className: "item " + cellClass(cell), "data-cell": cell.key },
                      [cell.label ? el("span", { className: "label", text: cell.label }) : null, drawCell(cell)]);
        if (cell.changed) { item.title = changedTitle(cell); }
        return item;
      });
      var label = (group.label_rows || group.name === "variables" || group.name === "messages") ? row.name : null;
      return el("div", { className: "line", "data-row": row.name },
                [label ? el("span", { className: "item" }, [el("span", { className: "label", text: label })]) : null]
                  .concat(items));
    }));
  }

  // Rows the step took away (a message received), struck through under their group.
  function drawRemoved(rows) {
    return el("div", { className: "removed-rows" }, rows.map(function (row) {
      return el("div", { className: "line removed", "data-removed": row.name, title: "gone in this step" },
                [el("span", { className: "label", text: row.name }), el("span", { text: row.text })]);
    }));
  }

  // What the step did, in the protocol's words (when the spec's layout says).
  function drawNotes(frame) {
    var box = document.getElementById("notes");
    clear(box);
    (frame.notes || []).forEach(function (note) { box.appendChild(el("li", { text: note })); });
    box.hidden = !(frame.notes && frame.notes.length);
  }

  // The slots an explanation is about (the record lost or diverged), in
  // every lane it names, singled out on the state that breaks the invariant.
  function markFocus() {
    view.breakages.forEach(function (b) {
      if (b.state !== current) { return; }
      b.focus.forEach(function (f) {
        var selector = '#groups [data-row="' + cssEscape(f[0]) + '"] [data-cell="' + cssEscape(f[1]) +
                       '"] .slot[data-offset="' + f[2] + '"]';
        Array.prototype.forEach.call(document.querySelectorAll(selector), function (slot) {
          slot.classList.add("focus");
          slot.setAttribute("data-focus", b.invariant);
          slot.title += " (what " + b.invariant + " is about)";
        });
      });
    });
  }

  function cssEscape(text) { return window.CSS && CSS.escape ? CSS.escape(text) : String(text).replace(/"/g, '\\"'); }

  // --- the timeline -----------------------------------------------------------------
  // An action name may break only between the words of its name; the
  // parameters go on a line of their own and wrap only between parameters.
  function actionName(name) {
    var span = el("span", { className: "action" });
    name.split(/(?=[A-Z][a-z])/).forEach(function (word, k) {
      if (k) { span.appendChild(document.createElement("wbr")); }
      span.appendChild(document.createTextNode(word));
    });
    return span;
  }

  function stepLabel(frame) {
    var params = el("span", { className: "params" });
    frame.params.forEach(function (p, k) {
      params.appendChild(el("span", { className: "param", text: p + (k < frame.params.length - 1 ? "," : "") }));
      if (k < frame.params.length - 1) { params.appendChild(document.createTextNode(" ")); }
    });
    return el("span", { className: "step" }, [actionName(frame.action), frame.params.length ? params : null]);
  }

  function epochHeading(epoch) {
    return el("li", { className: "epoch-heading", "aria-hidden": "true",
                      text: epoch < 0 ? "before any leader epoch" : "controller at leader epoch " + epoch });
  }

  // The parties a step moved while on an older epoch than the controller's:
  // a chip each, in the colour of that epoch's records.
  function staleNote(frame) {
    if (!frame.stale.length) { return null; }
    return el("span", { className: "stale-note" }, frame.stale.map(function (s) {
      return el("span", { className: "stale " + epochClass(s.epoch), "data-stale": s.name,
                          title: s.name + " acts on leader epoch " + s.epoch + ", behind the controller's epoch " +
                                 frame.epoch, text: s.name + " on stale epoch " + s.epoch });
    }));
  }

  function drawTimeline() {
    var list = document.getElementById("timeline-list");
    var epoch;
    view.frames.forEach(function (frame, i) {
      // steps are grouped under the leader epoch the controller has reached
      if (frame.epoch !== null && frame.epoch !== epoch) { list.appendChild(epochHeading(frame.epoch)); }
      epoch = frame.epoch;
      var classes = ["step-item"];
      if (frame.breakages.length) { classes.push("violation"); }
      if (frame.illegal) { classes.push("illegal"); }
      if (frame.stale.length) { classes.push("stale-step"); }
      var stale = frame.stale.map(function (s) { return s.name + " on stale epoch " + s.epoch; }).join(", ");
      var label = stepLabel(frame);
      var note = staleNote(frame);
      if (note) {  // after the parameters, on their line while it has room
        var params = label.querySelector(".params");
        if (params) { params.appendChild(document.createTextNode(" ")); params.appendChild(note); }
        else { label.appendChild(note); }
      }
      var li = el("li", { className: classes.join(" "), "data-index": String(i), tabindex: "0", role: "button",
                          "aria-label": "state " + frame.number + ": " + frame.label + (stale ? " (" + stale + ")" : "") },
                  [el("span", { className: "num", text: String(frame.number) }), label]);
      li.addEventListener("click", function () { show(i); });
      li.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { show(i); e.preventDefault(); e.stopPropagation(); }
      });
      list.appendChild(li);
    });
    if (view.lasso) {
      // a lasso: the behaviour goes on forever from its last state
      var closing = view.lasso.closing;
      var what = closing ? el("span", { className: "loop-what" }, [
                   el("span", { className: "back", text: "back to state " + (view.lasso.start + 1) + " via" }),
                   stepLabel(closing)])
                 : el("span", { className: "back", text: view.lasso.phrase });
      var back = el("li", { className: "loop", "data-loop": String(view.lasso.start), tabindex: "0",
                            "aria-label": view.lasso.phrase },
                    [el("span", { className: "num", text: "\u21ba" }), what]);
      back.addEventListener("click", function () { show(view.lasso.start); });
      back.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { show(view.lasso.start); e.preventDefault(); e.stopPropagation(); }
      });
      list.appendChild(back);
    }
  }

  // Beside the state, the timeline is as tall as the part of the window it
  // can use, so its last steps are never hidden below the window's edge.
  function fitTimeline() {
    var nav = document.getElementById("timeline");
    if (getComputedStyle(nav).position !== "sticky") { nav.style.maxHeight = ""; return; }
    nav.style.maxHeight = (window.innerHeight - Math.max(0, nav.getBoundingClientRect().top)) + "px";
  }

  // Scrolls the timeline, and only the timeline, to show the current step:
  // scrollIntoView would scroll the page too and move the title away.
  function reveal(li) {
    var nav = document.getElementById("timeline");
    if (nav.scrollHeight <= nav.clientHeight) { return; }
    var top = li.offsetTop, bottom = top + li.offsetHeight;
    if (top < nav.scrollTop) { nav.scrollTop = top - 24; }
    else if (bottom > nav.scrollTop + nav.clientHeight) { nav.scrollTop = bottom - nav.clientHeight + 8; }
  }

  function drawExplanations(box) {
    clear(box);
    if (view.lasso) {
      var loopPanel = el("div", { className: "explanation lasso" },
                         [el("strong", { text: view.lasso.headline + (current !== view.lasso.start ? "" :
                                              view.lasso.stutters ? " This is that state." :
                                              " The cycle starts at this state.") }),
                          el("span", { className: "text", text: view.lasso.explanation || "" })]);
      loopPanel.addEventListener("click", function () { show(view.lasso.start); });
      box.appendChild(loopPanel);
    }
    view.breakages.forEach(function (b) {
      var here = b.state === current;
      var panel = el("div", { className: "explanation" + (here ? "" : " elsewhere"), "data-invariant": b.invariant },
                     [el("strong", { text: b.invariant + " is violated in state " + (b.state + 1) +
                                          (here ? " (this state)" : "") }),
                      el("span", { className: "text", text: b.explanation })]);
      panel.addEventListener("click", function () { show(b.state); });
      box.appendChild(panel);
    });
  }

  function show(i) {
    current = Math.max(0, Math.min(view.frames.length - 1, i));
    var frame = view.frames[current];
    document.getElementById("step-title").textContent =
      "State " + frame.number + " of " + view.frames.length + ": " + frame.label;
    document.getElementById("prev").disabled = current === 0;
    document.getElementById("next").disabled = current === view.frames.length - 1;
    Array.prototype.forEach.call(document.querySelectorAll("#timeline-list li[data-index]"), function (li, k) {
      if (k === current) { li.setAttribute("aria-current", "step"); reveal(li); }
      else { li.removeAttribute("aria-current"); }
    });
    drawExplanations(document.getElementById("explanations"));
    var illegal = document.getElementById("illegal");
    illegal.hidden = !frame.illegal;
    drawNotes(frame);
    var body = document.getElementById("groups");
    clear(body);
    view.groups.forEach(function (group) {
      var rows = frame.rows.filter(function (r) { return r.group === group.name; });
      var gone = (frame.removed || []).filter(function (r) { return r.group === group.name; });
      var content;
      if (rows.length) { content = group.style === "table" ? drawTable(group, rows) : drawLines(group, rows); }
      else if (group.empty) { content = el("div", { className: "empty-note", text: group.empty }); }
      else if (!gone.length) { return; }
      body.appendChild(el("div", { className: "group", "data-group": group.name },
                          [el("h3", { text: group.heading }), content, gone.length ? drawRemoved(gone) : null]));
    });
    markFocus();
    if (history.replaceState) { history.replaceState(null, "", "#state-" + frame.number); }
  }

  function drawLegend() {
    var legend = document.getElementById("legend");
    if (view.epochs.length) { legend.appendChild(el("span", { text: "records by leader epoch:" })); }
    view.epochs.forEach(function (e) {
      legend.appendChild(el("span", { className: "slot " + epochClass(e), text: "epoch " + e }));
    });
    legend.appendChild(el("span", { text: view.legend }));
  }

  function stateInHash() {
    var match = /^#state-(\d+)$/.exec(location.hash);
    return match ? Number(match[1]) - 1 : null;
  }

  // ← → (and j k, Home, End) step through the states; ↑ ↓ are left to scroll the page.
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    if (e.key === "ArrowRight" || e.key === "j") { show(current + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft" || e.key === "k") { show(current - 1); e.preventDefault(); }
    else if (e.key === "Home") { show(0); e.preventDefault(); }
    else if (e.key === "End") { show(view.frames.length - 1); e.preventDefault(); }
  });
  // a #state-N typed into the address bar (or a link to one) shows that state
  window.addEventListener("hashchange", function () {
    var k = stateInHash();
    if (k !== null) { show(k); }
  });
  document.getElementById("prev").addEventListener("click", function () { show(current - 1); });
  document.getElementById("next").addEventListener("click", function () { show(current + 1); });

  window.addEventListener("resize", fitTimeline);
  window.addEventListener("scroll", fitTimeline, { passive: true });

  drawTimeline();
  drawLegend();
  fitTimeline();
  show(stateInHash() || 0);
  document.body.setAttribute("data-ready", "yes");
})();
