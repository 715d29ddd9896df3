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
  function drawLog(cell) {
    var data = cell.data;
    var lane = el("span", { className: "lane", "data-kind": "log" });
    data.records.forEach(function (rec, offset) {
      if (data.marker === offset) { lane.appendChild(marker(data.marker_name)); }
      var slot;
      if (rec) {
        slot = el("span", { className: "slot record " + epochClass(rec.epoch),
                            title: "offset " + offset + ": record id " + rec.id + ", leader epoch " + rec.epoch },
                  [el("span", { className: "offset", text: "@" + offset }),
                   el("span", { className: "rec", text: "id" + rec.id + "@" + rec.epoch })]);
      } else {
        slot = el("span", { className: "slot empty", title: "offset " + offset + ": empty" },
                  [el("span", { className: "offset", text: "@" + offset }), el("span", { text: "·" })]);
      }
      lane.appendChild(slot);
    });
    if (data.marker !== null && data.marker >= data.records.length) { lane.appendChild(marker(data.marker_name)); }
    return lane;
  }

  function marker(name) {
    return el("span", { className: "marker", title: name, "data-marker": name }, [el("span", { text: name })]);
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
        var td = el("td", { "data-cell": cell.key, className: cell.changed ? "changed" : "" }, [drawCell(cell)]);
        if (cell.changed) { td.title = changedTitle(cell); }
        return td;
      });
      return el("tr", { "data-row": row.name }, [el("td", { className: "name", text: row.name })].concat(tds));
    });
    return el("table", { className: "rows" }, [el("thead", {}, [head]), el("tbody", {}, body)]);
  }

  function drawLines(group, rows) {
    return el("div", {}, rows.map(function (row) {
      var items = row.cells.map(function (cell) {
        var item = el("span", { className: "item" + (cell.changed ? " changed" : ""), "data-cell": cell.key },
                      [cell.label ? el("span", { className: "label", text: cell.label }) : null, drawCell(cell)]);
        if (cell.changed) { item.title = changedTitle(cell); }
        return item;
      });
      var label = (group.name === "variables" || group.name === "messages") ? row.name : null;
      return el("div", { className: "line", "data-row": row.name },
                [label ? el("span", { className: "item" }, [el("span", { className: "label", text: label })]) : null]
                  .concat(items));
    }));
  }

  // --- the page ---------------------------------------------------------------------
  function drawTimeline() {
    var list = document.getElementById("timeline-list");
    view.frames.forEach(function (frame, i) {
      var classes = [];
      if (frame.breakages.length) { classes.push("violation"); }
      if (frame.illegal) { classes.push("illegal"); }
      var li = el("li", { className: classes.join(" "), "data-index": String(i), tabindex: "0" },
                  [el("span", { className: "num", text: String(frame.number) }), el("span", { text: frame.label })]);
      li.addEventListener("click", function () { show(i); });
      list.appendChild(li);
    });
    if (view.lasso) {
      // a lasso: the behaviour goes on forever from its last state
      var back = el("li", { className: "loop", "data-loop": String(view.lasso.start), tabindex: "0" },
                    [el("span", { className: "num", text: "\u21ba" }), el("span", { text: view.lasso.phrase })]);
      back.addEventListener("click", function () { show(view.lasso.start); });
      list.appendChild(back);
    }
  }

  function drawExplanations(box) {
    clear(box);
    if (view.lasso) {
      var loopPanel = el("div", { className: "explanation lasso" },
                         [el("strong", { text: "The behaviour " + view.lasso.phrase +
                                              (current === view.lasso.start ? " (the cycle starts at this state)" : "") }),
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
    Array.prototype.forEach.call(document.querySelectorAll("#timeline-list li"), function (li, k) {
      if (k === current) { li.setAttribute("aria-current", "step"); li.scrollIntoView({ block: "nearest" }); }
      else { li.removeAttribute("aria-current"); }
    });
    drawExplanations(document.getElementById("explanations"));
    var illegal = document.getElementById("illegal");
    illegal.hidden = !frame.illegal;
    var body = document.getElementById("groups");
    clear(body);
    view.groups.forEach(function (group) {
      var rows = frame.rows.filter(function (r) { return r.group === group.name; });
      if (!rows.length) { return; }
      body.appendChild(el("div", { className: "group", "data-group": group.name },
                          [el("h3", { text: group.heading }),
                           group.style === "table" ? drawTable(group, rows) : drawLines(group, rows)]));
    });
    if (history.replaceState) { history.replaceState(null, "", "#state-" + frame.number); }
  }

  function drawLegend() {
    var legend = document.getElementById("legend");
    legend.appendChild(el("span", { text: "records by leader epoch:" }));
    view.epochs.forEach(function (e) {
      legend.appendChild(el("span", { className: "slot " + epochClass(e), text: "epoch " + e }));
    });
    legend.appendChild(el("span", { text: view.legend }));
  }

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    if (e.key === "ArrowRight" || e.key === "ArrowDown" || e.key === "j") { show(current + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp" || e.key === "k") { show(current - 1); e.preventDefault(); }
    else if (e.key === "Home") { show(0); e.preventDefault(); }
    else if (e.key === "End") { show(view.frames.length - 1); e.preventDefault(); }
  });
  document.getElementById("prev").addEventListener("click", function () { show(current - 1); });
  document.getElementById("next").addEventListener("click", function () { show(current + 1); });

  drawTimeline();
  drawLegend();
  var start = /^#state-(\d+)$/.exec(location.hash);
  show(start ? Number(start[1]) - 1 : 0);
  document.body.setAttribute("data-ready", "yes");
})();
