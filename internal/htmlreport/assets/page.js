// ratelimit-lab report.html: builds the page from the JSON in #report-data
// and draws its charts with uPlot. It computes nothing about the run: it
// reads the series (one per limiter and column of series.csv, stored as a
// min–max pyramid), scales counts per bin to per second, and draws.
(function () {
  "use strict";
  const t0 = performance.now(); // the script's start, before the data is parsed
  const D = JSON.parse(document.getElementById("report-data").textContent);
  const root = document.getElementById("report");
  // What a test (or a curious user, in the console) can look at.
  // firstView is the time from the script's start until every chart has
  // its first data; firstDraw until every chart has also drawn it, and
  // firstDrawSinceNavigation the same from the navigation's start (the
  // file read and parsed), all in ms of performance.now().
  const api = (window.ratelimitLab = { charts: [], groups: [], ready: false, firstView: null, firstDraw: null, firstDrawSinceNavigation: null, pending: 0 });
  function noteDrawn() {
    if (api.firstDraw != null || !api.ready || !api.charts.every((c) => c.draws > 0)) return;
    const now = performance.now();
    api.firstDraw = now - t0;
    api.firstDrawSinceNavigation = now;
  }

  // ---- stored arrays ----
  const cache = new Map();
  function arr(i) {
    if (!cache.has(i)) cache.set(i, decode(i));
    return cache.get(i);
  }
  async function decode(i) {
    const meta = D.blobs[i];
    const text = document.getElementById("b" + i).textContent;
    const bin = atob(text);
    const gz = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) gz[k] = bin.charCodeAt(k);
    const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
    const planes = new Uint8Array(await new Response(stream).arrayBuffer());
    const n = meta.n;
    const bytes = new Uint8Array(4 * n);
    for (let p = 0; p < 4; p++) {
      const off = p * n;
      for (let k = 0; k < n; k++) bytes[4 * k + p] = planes[off + k];
    }
    const v = meta.k === "i32" ? new Int32Array(bytes.buffer) : new Float32Array(bytes.buffer);
    return Float64Array.from(v);
  }

  // ---- formatting ----
  function num(x) {
    if (x == null || Number.isNaN(x)) return "–";
    const a = Math.abs(x);
    if (a !== 0 && (a < 0.001 || a >= 1e9)) return x.toExponential(3);
    return String(+x.toFixed(a >= 100 ? 1 : a >= 1 ? 3 : 4));
  }
  // 1500000 → "1.5M": axis labels that fit.
  function compact(v) {
    if (v == null) return "";
    const a = Math.abs(v);
    for (const [d, u] of [[1e9, "G"], [1e6, "M"], [1e3, "k"]]) if (a >= d) return +(v / d).toPrecision(3) + u;
    return String(+v.toPrecision(4));
  }
  function secs(s) {
    const a = Math.abs(s);
    if (a !== 0 && a < 1) return +(s * 1000).toFixed(3) + " ms";
    return +s.toFixed(a >= 1000 ? 3 : 6) + " s";
  }
  // A view's bound, to the precision its span needs.
  function bound(s, span) {
    const d = Math.max(0, Math.min(6, 2 - Math.floor(Math.log10(Math.max(span, 1e-9)))));
    return (+s.toFixed(d)).toString() + " s";
  }
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) e.append(k);
    return e;
  }
  function alpha(hex, a) {
    return hex + Math.round(a * 255).toString(16).padStart(2, "0");
  }

  // ---- sortable tables ----
  // keys, when given, are the raw figures each cell sorts by (numbers, or
  // "" for none); titles say what each column means, shown on hover.
  function table(header, rows, numeric, colors, keys, titles) {
    const t = el("table", { class: "summary" });
    const thead = el("tr");
    const tbody = el("tbody");
    let sortCol = -1, asc = true;
    const order = rows.map((_, i) => i);
    function fill() {
      tbody.textContent = "";
      for (const i of order) {
        const tr = el("tr");
        rows[i].forEach((c, k) => {
          const td = el("td", { text: c, class: numeric[k] ? "num" : "" });
          if (k === 0 && colors) td.prepend(el("span", { class: "swatch", style: "background:" + colors[i] }));
          tr.append(td);
        });
        tbody.append(tr);
      }
    }
    header.forEach((h, k) => {
      const th = el("th", { text: h, title: (titles && titles[k] ? titles[k] + " · " : "") + "click to sort by " + h, class: numeric[k] ? "num" : "" });
      th.addEventListener("click", () => {
        asc = sortCol === k ? !asc : true;
        sortCol = k;
        order.sort((a, b) => {
          const x = (keys || rows)[a][k], y = (keys || rows)[b][k];
          let c;
          if (numeric[k]) c = (x === "" ? -Infinity : +x) - (y === "" ? -Infinity : +y);
          else c = x < y ? -1 : x > y ? 1 : 0;
          return asc ? c : -c;
        });
        for (const e of thead.children) e.classList.remove("asc", "desc");
        th.classList.add(asc ? "asc" : "desc");
        fill();
      });
      thead.append(th);
    });
    t.append(el("thead", {}, thead), tbody);
    fill();
    return el("div", { class: "tablewrap" }, t);
  }

  // ---- time charts of runs ----
  // Columns series.csv has that the page knows: a panel each, or a panel
  // shared with others. Any other numeric column gets a panel of its own,
  // titled by its name: a column added to series.csv shows up here with no
  // change to this file.
  // Counts per bin, drawn per second (÷ the bin width).
  const COUNTS = new Set(["arrived", "passed", "blocked", "errors", "timeouts", "window_passed", "goodput", "retries", "borrowed"]);
  const NICE = {
    arrived: "arrivals", passed: "passes", blocked: "blocks", errors: "errors", timeouts: "timeouts",
    wait_mean_ms: "wait mean", wait_max_ms: "wait max", rt_mean_ms: "RT mean", rt_max_ms: "RT max",
    window_passed: "trailing window", goodput: "goodput", retries: "retries", in_flight: "in flight",
    limit: "adaptive limit", rt_p99_ms: "RT p99", cpu: "CPU", keys_hurt: "keys hurt", borrowed: "borrowed",
  };
  // How a column's lines are dashed when it shares a chart: the first
  // column solid, then these (dashed, dotted).
  const DASH = { passed: [5, 3], rt_max_ms: [5, 3], wait_max_ms: [5, 3], goodput: [2, 3], rt_p99_ms: [2, 3], limit: [7, 4], timeouts: [5, 3], errors: [2, 3], retries: [8, 3, 2, 3] };
  function panelsOf(run) {
    const spanTxt = secs(run.span).replace(" ", "");
    const has = (c) => run.columns.includes(c);
    const known = [
      { id: "rate", title: has("goodput")
        ? "arrivals, passes (dashed) and goodput (dotted: responses in time without error) per second, against each limit"
        : "arrivals and passes per second, against each limit", cols: ["arrived", "passed", "goodput"], unit: "/s", limit: true },
      { id: "window", title: "passes in the trailing " + spanTxt + " window, per second, against each limit", cols: ["window_passed"], unit: "/s", limit: true },
      { id: "blocked", title: has("retries") ? "blocks, errors (dotted), timeouts (dashed) and retries (dash-dot) per second" : "blocks, errors and timeouts per second",
        cols: ["blocked", "errors", "timeouts", "retries"], unit: "/s" },
      { id: "wait", title: "wait of the passes (ms): mean per bin, max per bin dashed", cols: ["wait_mean_ms", "wait_max_ms"], unit: "ms" },
      { id: "rt", title: has("rt_p99_ms") ? "response time (ms): mean per bin, max per bin dashed, p99 per bin dotted" : "response time (ms): mean per bin, max per bin dashed",
        cols: ["rt_mean_ms", "rt_max_ms", "rt_p99_ms"], unit: "ms" },
      { id: "concurrency", title: "calls in flight and the adaptive limit (dashed), after each bin's last arrival", cols: ["in_flight", "limit"], unit: "calls" },
      { id: "cpu", title: "CPU utilisation (busy cores / cores, 0–1) after each bin's last arrival", cols: ["cpu"], unit: "0–1", yrange: [0, 1] },
      { id: "keys", title: "keys hurt so far (a key is hurt from its first reject)", cols: ["keys_hurt"], unit: "keys" },
      { id: "borrowed", title: "borrowed passes per second (prioritized requests admitted against a future window; among the passes)", cols: ["borrowed"], unit: "/s" },
    ];
    const used = new Set(known.flatMap((p) => p.cols));
    const panels = [];
    for (const p of known) {
      const cols = p.cols.filter((c) => run.columns.includes(c));
      if (cols.length) panels.push(Object.assign({}, p, { cols }));
    }
    for (const c of run.columns) {
      if (!used.has(c)) panels.push({ id: "col-" + c, title: c.replace(/_/g, " ") + " (series.csv column " + c + ")", cols: [c], unit: "" });
    }
    // Lines: one per limiter and column, but a series every limiter
    // shares (the arrivals) once, in grey.
    for (const p of panels) {
      p.lines = [];
      p.cols.forEach((c, ci) => {
        const k = run.columns.indexOf(c);
        const ser = run.limiters.map((l) => l.series[k]);
        if (ser.every((s) => s.zero)) return;
        const shared = run.limiters.length > 1 && ser.every((s) => s.levels[0].v === ser[0].levels[0].v);
        const scale = c === "window_passed" ? 1 / run.span : COUNTS.has(c) ? 1 / run.bin : 1;
        if (shared) {
          p.lines.push({ label: NICE[c] || c, col: c, series: ser[0], limiter: -1, color: "#8a8a8a", dash: ci > 0 ? DASH[c] || [5, 3] : undefined, scale });
          return;
        }
        run.limiters.forEach((l, li) => {
          if (ser[li].zero) return;
          p.lines.push({ label: l.label + " " + (NICE[c] || c), col: c, series: ser[li], limiter: li, color: l.color, dash: ci > 0 ? DASH[c] || [5, 3] : undefined, scale });
        });
      });
      if (p.limit) {
        const rates = run.limiters.map((l) => l.rate);
        if (rates.every((r) => r === rates[0]) && rates[0] > 0) p.limits = [{ label: "limit", rate: rates[0], limiter: -1, color: "#202020" }];
        else p.limits = run.limiters.map((l, li) => ({ label: l.label + " limit", rate: l.rate, limiter: li, color: l.color })).filter((x) => x.rate > 0);
      } else p.limits = [];
    }
    const drawn = panels.filter((p) => p.lines.length > 0);
    if (run.breaker) drawn.push({ id: "breaker", title: "breaker state (green CLOSED, red OPEN, amber HALF_OPEN)", breaker: true, lines: [], limits: [] });
    return drawn;
  }

  const STATE = { CLOSED: "#cde8cd", OPEN: "#e06666", HALF_OPEN: "#f4b350" };

  function stepped() {
    return uPlot.paths.stepped({ align: 1 });
  }

  // A group holds the charts that zoom and pan together: every run of a
  // page when their spans match, else each run alone.
  function newGroup(start, end, bins) {
    const g = { full: [start, end], view: [start, end], charts: [], bins, key: "g" + api.groups.length };
    api.groups.push(g);
    return g;
  }

  // Points of a view: the finest level with at most two points per pixel.
  function levelFor(run, series, view, width) {
    const n = run.nbins;
    const i0 = Math.max(0, Math.floor((view[0] - run.start) / run.bin));
    const i1 = Math.min(n, Math.ceil((view[1] - run.start) / run.bin));
    const levels = series.levels;
    let lv = levels[levels.length - 1];
    for (const l of levels) {
      if ((i1 - i0) / l.g <= 2 * Math.max(width, 100)) { lv = l; break; }
    }
    const j0 = Math.floor(i0 / lv.g);
    const j1 = Math.max(j0 + 1, Math.ceil(i1 / lv.g));
    return { lv, j0, j1 };
  }

  async function panelData(run, p, view, width) {
    if (p.breaker) return [[view[0], view[1]], [null, null]];
    const ref = p.lines[0].series;
    const { lv, j0, j1 } = levelFor(run, ref, view, width);
    const len = Math.ceil(run.nbins / lv.g);
    const a = j0, b = Math.min(len, j1);
    const xs = new Array(b - a + 1);
    for (let j = a; j < b; j++) xs[j - a] = run.start + j * lv.g * run.bin;
    xs[b - a] = run.start + Math.min(b * lv.g, run.nbins) * run.bin;
    const data = [xs];
    p.exact = lv.g === 1;
    p.group = lv.g;
    for (const line of p.lines) {
      const l = line.series.levels.find((x) => x.g === lv.g);
      const hi = await arr(lv.g === 1 ? l.v : l.hi);
      const lo = lv.g === 1 ? hi : await arr(l.lo);
      const h = new Array(b - a + 1), w = new Array(b - a + 1);
      for (let j = a; j < b; j++) {
        h[j - a] = Number.isNaN(hi[j]) ? null : hi[j] * line.scale;
        w[j - a] = Number.isNaN(lo[j]) ? null : lo[j] * line.scale;
      }
      h[b - a] = h[b - a - 1];
      w[b - a] = w[b - a - 1];
      data.push(h, w);
    }
    for (const lim of p.limits) data.push(xs.map(() => lim.rate));
    return data;
  }

  function runSection(run, group, ri) {
    const sec = el("section", { class: "run" });
    sec.append(el("h2", { text: run.name }), el("p", { class: "context", text: run.context }));
    run.nbins = Math.round((run.end - run.start) / run.bin);
    const colors = run.limiters.map((l) => l.color);
    if (run.table) {
      // The terminal's table: its names, units and rounding; the raw
      // summary.json fields one click away.
      const tt = run.table;
      const num = tt.header.map((_, k) => k > 0);
      sec.append(table(tt.header, tt.rows, num, colors, tt.keys, tt.titles));
      sec.append(el("details", { class: "raw" }, el("summary", { text: "raw figures (summary.json's fields)" }),
        table(run.header, run.rows, run.numeric, colors)));
    } else {
      sec.append(table(run.header, run.rows, run.numeric, colors));
    }
    const specs = el("ul", { class: "specs" });
    run.limiters.forEach((l) => specs.append(el("li", {}, el("b", { text: l.label }), " " + l.spec)));
    sec.append(el("details", { open: "" }, el("summary", { text: "specs" }), specs));

    // Per-limiter toggles, for every chart of the run.
    const toggles = el("div", { class: "toggles" });
    run.limiters.forEach((l, li) => {
      const cb = el("input", { type: "checkbox", checked: "" });
      cb.addEventListener("change", () => {
        for (const c of group.charts) if (c.run === run) c.toggle(li, cb.checked);
      });
      toggles.append(el("label", { class: "toggle" }, cb, el("span", { class: "swatch", style: "background:" + l.color }), l.label));
    });
    sec.append(toggles);

    const panels = panelsOf(run);
    for (const p of panels) sec.append(chartPanel(run, p, group, ri));
    return sec;
  }

  function controls(group) {
    const range = el("span", { class: "range" });
    const set = (lo, hi) => setView(group, lo, hi);
    const span = () => group.view[1] - group.view[0];
    const bar = el("div", { class: "controls" },
      el("button", { text: "◀", title: "pan left (shift+wheel)", onclick: () => set(group.view[0] - span() / 4, group.view[1] - span() / 4) }),
      el("button", { text: "▶", title: "pan right (shift+wheel)", onclick: () => set(group.view[0] + span() / 4, group.view[1] + span() / 4) }),
      el("button", { text: "+", title: "zoom in (ctrl+wheel, or drag across a chart)", onclick: () => set(group.view[0] + span() / 4, group.view[1] - span() / 4) }),
      el("button", { text: "−", title: "zoom out (ctrl+wheel)", onclick: () => set(group.view[0] - span() / 2, group.view[1] + span() / 2) }),
      el("button", { text: "all", title: "show the whole run (double-click a chart)", onclick: () => set(group.full[0], group.full[1]) }),
      range,
      el("span", { class: "hint", text: "drag across a chart to zoom (or ctrl+wheel), shift+wheel to pan, double-click for the whole run; the cursor reads each bin" }));
    group.rangeEl = range;
    showRange(group);
    return bar;
  }
  function showRange(group) {
    if (group.rangeEl) group.rangeEl.textContent = "showing " + bound(group.view[0], group.view[1] - group.view[0]) + " to " + bound(group.view[1], group.view[1] - group.view[0]);
  }

  function setView(group, lo, hi) {
    const [f0, f1] = group.full;
    const minSpan = Math.min(f1 - f0, group.minSpan || 0);
    if (hi - lo < minSpan) {
      const mid = (lo + hi) / 2;
      lo = mid - minSpan / 2;
      hi = mid + minSpan / 2;
    }
    if (hi - lo > f1 - f0) { lo = f0; hi = f1; }
    if (lo < f0) { hi += f0 - lo; lo = f0; }
    if (hi > f1) { lo -= hi - f1; hi = f1; }
    group.view = [lo, hi];
    showRange(group);
    for (const c of group.charts) c.refresh();
  }

  function chartPanel(run, p, group, ri) {
    const box = el("div", { class: "panel" });
    box.append(el("h3", { text: p.title }));
    const host = el("div", { class: "chart" });
    const readout = el("div", { class: "readout", text: " " });
    box.append(host, readout);

    const series = [{ label: "time (s)", value: (u, v) => (v == null ? "" : secs(v)) }];
    const lineOf = []; // uPlot series index → limiter index (-1: all)
    p.lines.forEach((l) => {
      const dash = l.dash;
      series.push({ label: l.label, stroke: l.color, width: 1.4, dash, paths: stepped(), points: { show: false } });
      series.push({ label: l.label + " (min)", stroke: alpha(l.color, 0.55), width: 0.8, dash, paths: stepped(), points: { show: false } });
      lineOf.push(l.limiter, l.limiter);
    });
    p.limits.forEach((l) => {
      series.push({ label: l.label, stroke: l.color, width: 1.1, dash: [8, 5], points: { show: false } });
      lineOf.push(l.limiter);
    });
    const bands = p.lines.map((l, i) => ({ series: [1 + 2 * i, 2 + 2 * i], fill: alpha(l.color, 0.18) }));
    if (p.breaker) {
      series.push({ label: "", show: false });
      lineOf.push(-1);
    }
    const breakers = p.breaker ? run.limiters.map((l, li) => ({ l, li })).filter((x) => x.l.bands && x.l.bands.length) : [];

    const opts = {
      width: 600,
      height: p.breaker ? 34 * breakers.length + 50 : 230,
      series,
      bands,
      legend: { show: false },
      scales: {
        x: { time: false, range: () => [group.view[0], group.view[1]] },
        y: p.breaker
          ? { range: () => [0, breakers.length] }
          : p.yrange
            ? { range: () => p.yrange }
            : { range: (u, lo, hi) => [Math.min(0, lo ?? 0), hi == null || hi <= 0 ? 1 : hi * 1.06] },
      },
      axes: [
        { label: "time (s)", size: 40, labelSize: 16 },
        p.breaker
          ? { size: 64, splits: () => [], values: () => [], grid: { show: false } }
          : { label: p.unit, size: 64, labelSize: 16 },
      ],
      cursor: {
        sync: { key: group.key, setSeries: false },
        drag: { x: true, y: false, setScale: false },
        bind: { dblclick: () => () => null },
        points: { show: false },
      },
      hooks: {
        setSelect: [(u) => {
          if (u.select.width > 2) {
            const lo = u.posToVal(u.select.left, "x"), hi = u.posToVal(u.select.left + u.select.width, "x");
            u.setSelect({ left: 0, width: 0, top: 0, height: 0 }, false);
            setView(group, lo, hi);
          }
        }],
        setCursor: [(u) => showReadout(u)],
        draw: [(u) => {
          if (p.breaker) drawBands(u);
          chart.draws++;
          noteDrawn();
        }],
      },
    };

    function drawBands(u) {
      const ctx = u.ctx;
      const { left, top, width, height } = u.bbox;
      const rowH = height / breakers.length;
      ctx.save();
      ctx.beginPath();
      ctx.rect(left, top, width, height);
      ctx.clip();
      breakers.forEach(({ l }, i) => {
        const y = top + i * rowH; // in the table's order, top down
        for (const b of l.bands) {
          if (b.to < group.view[0] || b.from > group.view[1]) continue;
          const x0 = u.valToPos(b.from, "x", true), x1 = u.valToPos(b.to, "x", true);
          ctx.fillStyle = STATE[b.state] || "#cccccc";
          ctx.fillRect(x0, y + rowH * 0.15, Math.max(1, x1 - x0), rowH * 0.7);
        }
        // The row's name on its band.
        ctx.font = 12 * devicePixelRatio + "px system-ui, sans-serif";
        ctx.textBaseline = "middle";
        ctx.textAlign = "left";
        ctx.fillStyle = "rgba(255,255,255,0.8)";
        const label = l.label;
        const tw = ctx.measureText(label).width;
        ctx.fillRect(left + 4, y + rowH / 2 - 8 * devicePixelRatio, tw + 8, 16 * devicePixelRatio);
        ctx.fillStyle = "#111";
        ctx.fillText(label, left + 8, y + rowH / 2);
      });
      ctx.restore();
    }

    function showReadout(u) {
      const idx = u.cursor.idx;
      if (idx == null || !u.data[0] || idx >= u.data[0].length - 1 && !p.breaker) {
        readout.textContent = " ";
        return;
      }
      if (p.breaker) {
        const t = u.posToVal(u.cursor.left, "x");
        readout.textContent = secs(t) + ": " + breakers.map(({ l }) => {
          const b = l.bands.find((b) => b.from <= t && t < b.to);
          return l.label + " " + (b ? b.state : "–");
        }).join(" · ");
        return;
      }
      const x0 = u.data[0][idx], x1 = u.data[0][idx + 1];
      const parts = [];
      const nb = p.group;
      let head = secs(x0) + " to " + secs(x1) + (nb > 1 ? " (" + Math.round((x1 - x0) / run.bin) + " bins: min–max)" : " (1 bin)");
      p.lines.forEach((l, i) => {
        if (!u.series[1 + 2 * i].show) return;
        const hi = u.data[1 + 2 * i][idx], lo = u.data[2 + 2 * i][idx];
        const v = hi == null ? "–" : lo === hi ? num(hi) : num(lo) + "–" + num(hi);
        parts.push(l.label + " " + v + (p.unit === "/s" ? "/s" : p.unit === "ms" ? " ms" : ""));
      });
      p.limits.forEach((l) => parts.push(l.label + " " + num(l.rate)));
      readout.textContent = head + ": " + parts.join(" · ");
    }

    const chart = { run, ri, panel: p.id, u: null, draws: 0, ready: false, exact: false, group: 1 };
    let seq = 0;
    chart.refresh = async () => {
      const my = ++seq;
      api.pending++;
      try {
        const data = await panelData(run, p, group.view, chart.u ? chart.u.bbox.width / devicePixelRatio : 600);
        if (my !== seq) return;
        if (!chart.u) {
          opts.width = Math.max(320, host.clientWidth || 600);
          chart.u = new uPlot(opts, data, host);
        } else chart.u.setData(data);
        chart.exact = !!p.exact;
        chart.group = p.group || 1;
        chart.ready = true;
      } finally {
        api.pending--;
        if (api.pending === 0 && !api.ready && api.charts.every((c) => c.ready)) {
          api.ready = true;
          api.firstView = performance.now() - t0;
          noteDrawn();
        }
      }
    };
    chart.toggle = (li, show) => {
      if (!chart.u) return;
      lineOf.forEach((l, k) => {
        if (l === li) chart.u.setSeries(k + 1, { show }, false);
      });
      chart.u.setData(chart.u.data);
    };
    // A plain wheel scrolls the page; ctrl+wheel zooms, shift+wheel pans.
    host.addEventListener("wheel", (e) => {
      if (!chart.u || !(e.ctrlKey || e.metaKey || e.shiftKey)) return;
      e.preventDefault();
      const [lo, hi] = group.view;
      const span = hi - lo;
      if (e.shiftKey) {
        const d = (e.shiftKey ? e.deltaY : e.deltaX) > 0 ? span / 8 : -span / 8;
        setView(group, lo + d, hi + d);
        return;
      }
      const rect = chart.u.over.getBoundingClientRect();
      const at = chart.u.posToVal(e.clientX - rect.left, "x");
      const f = e.deltaY < 0 ? 0.75 : 1 / 0.75;
      setView(group, at - (at - lo) * f, at + (hi - at) * f);
    }, { passive: false });
    host.addEventListener("dblclick", () => setView(group, group.full[0], group.full[1]));
    group.charts.push(chart);
    api.charts.push(chart);
    chart.refresh();
    return box;
  }

  // ---- tune and bench ----
  function xySection(s) {
    const sec = el("section", { class: "run xy" });
    sec.append(el("h2", { text: s.name + " (" + s.kind + ")" }));
    sec.append(table(s.header, s.rows, s.numeric));
    for (const c of s.charts) {
      const box = el("div", { class: "panel" });
      box.append(el("h3", { text: c.title }));
      const host = el("div", { class: "chart" });
      const key = el("div", { class: "toggles" });
      box.append(host, key);
      sec.append(box);
      const xs = [...new Set(c.lines.flatMap((l) => l.x))].sort((a, b) => a - b);
      const data = [xs];
      const series = [{ label: c.xlabel }];
      for (const l of c.lines) {
        const y = xs.map((x) => { const i = l.x.indexOf(x); return i < 0 ? null : l.y[i]; });
        data.push(y);
        series.push({ label: l.label, stroke: l.color, width: l.pointsOnly ? 0 : 1.6, dash: l.dashed ? [6, 4] : undefined, spanGaps: true, points: { show: true, size: 6, fill: l.color } });
      }
      const chart = { run: null, panel: s.kind + ":" + c.title, u: null, draws: 0, ready: false, toggle: () => {} };
      const opts = {
        width: 600, height: 260, series, legend: { show: true },
        // The x axis spans the values measured and labels each one (1, 8,
        // 64 rather than decades), as the PNGs do.
        scales: {
          x: {
            time: false,
            distr: c.logx ? 3 : 1,
            range: (u, lo, hi) => {
              if (lo === hi) return c.logx ? [lo / 2, hi * 2] : [lo - 1, hi + 1];
              if (c.logx) { const f = Math.pow(hi / lo, 0.04); return [lo / f, hi * f]; }
              const pad = (hi - lo) * 0.04;
              return [lo - pad, hi + pad];
            },
          },
          y: { distr: c.logy ? 3 : 1 },
        },
        axes: [
          { label: c.xlabel + (c.logx ? " (log scale)" : ""), size: 40, labelSize: 16, splits: () => xs, filter: (u, v) => v, values: (u, v) => v.map(compact) },
          { label: c.ylabel + (c.logy ? " (log scale)" : ""), size: 78, labelSize: 16, values: (u, v) => v.map(compact) },
        ],
        hooks: { draw: [() => { chart.draws++; noteDrawn(); }] },
      };
      requestAnimationFrame(() => {
        opts.width = Math.max(320, host.clientWidth || 600);
        chart.u = new uPlot(opts, data, host);
        chart.ready = true;
      });
      // A point with a link (a tune --vary point's run) opens it on a click.
      host.addEventListener("click", () => {
        const i = chart.u && chart.u.cursor.idx;
        if (i == null) return;
        for (const l of c.lines.slice().reverse()) {
          const j = l.x.indexOf(xs[i]);
          if (l.links && j >= 0 && l.links[j]) { window.location.href = l.links[j]; return; }
        }
      });
      api.charts.push(chart);
    }
    return sec;
  }

  // ---- the page ----
  root.append(el("h1", { text: D.title }));
  const runs = D.runs || [];
  const same = runs.length > 1 && runs.every((r) => r.start === runs[0].start && r.end === runs[0].end);
  let shared = null;
  const grid = el("div", { class: runs.length > 1 ? "runs side" : "runs" });
  if (same) {
    shared = newGroup(runs[0].start, runs[0].end);
    root.append(el("p", { class: "note", text: "The runs cover the same span: their charts share one time axis and zoom together." }));
    root.append(controls(shared));
  }
  root.append(grid);
  runs.forEach((r, ri) => {
    const g = shared || newGroup(r.start, r.end);
    g.minSpan = Math.min(g.minSpan || Infinity, 4 * r.bin);
    if (!shared) grid.append(el("div", { class: "runcol" }, controls(g), runSection(r, g, ri)));
    else grid.append(el("div", { class: "runcol" }, runSection(r, g, ri)));
  });
  for (const s of D.xy || []) root.append(xySection(s));
  window.addEventListener("resize", () => {
    for (const c of api.charts) if (c.u) c.u.setSize({ width: Math.max(320, c.u.root.parentElement.clientWidth), height: c.u.height });
  });
})();
