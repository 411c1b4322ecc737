// The report page: everything drawn from the document embedded above
// (#ibtool-report-data), nothing loaded.  The picture's coordinates come
// from ibtool (layout.items, layout.edges); this script only draws them.
(function () {
  'use strict';
  var t0 = performance.now();
  var D = JSON.parse(document.getElementById('ibtool-report-data').textContent);
  var N = D.nodes, L = D.links, LY = D.layout;
  var SVGNS = 'http://www.w3.org/2000/svg';
  function $(id) { return document.getElementById(id); }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function fmt(n) { return typeof n === 'number' ? n.toLocaleString('en-US') : esc(n); }
  // The node name map's name, else the description as it is (UTF-8 and all).
  function nodeName(i) {
    var n = N[i];
    return !n ? '?' : (n.nameFromMap ? n.name : n.nodeDescription || n.name) || n.nodeGUID;
  }
  function nodeLink(i) {
    return '<a class="node" data-node="' + i + '">' + esc(nodeName(i)) + '</a>';
  }
  var LANES = { '1x': 1, '2x': 2, '4x': 4, '8x': 8, '12x': 12 };
  var SPEED_COLOR = { 'SDR': '#7a8ca8', 'DDR': '#3f88c5', 'QDR': '#1f6f8b', 'FDR10': '#6a4c93', 'FDR': '#6a4c93',
                      'EDR': '#2b9348', 'HDR': '#e07a00', 'NDR': '#9d0208', 'XDR': '#3a0ca3' };
  function speedColor(s) { return SPEED_COLOR[s] || '#555'; }

  // --- summary -------------------------------------------------------------------
  function card(title, cls, big, rows) {
    var h = '<div class="card ' + (cls || '') + '"><h3>' + esc(title) + '</h3>';
    if (big !== null) h += '<div class="big" data-k="' + esc(big[0]) + '">' + fmt(big[1]) + '</div>';
    if (rows && rows.length) {
      h += '<dl>';
      rows.forEach(function (r) { h += '<dt>' + esc(r[1]) + '</dt><dd data-k="' + esc(r[0]) + '">' + fmt(r[2]) + '</dd>'; });
      h += '</dl>';
    }
    return h + '</div>';
  }
  function summary() {
    var S = D.summary, E = S.errors, sm = S.sm, h = '';
    h += card('Nodes', '', ['nodes.total', S.nodes.total],
              [['nodes.switches', 'switches', S.nodes.switches], ['nodes.CAs', 'channel adapters', S.nodes.CAs],
               ['nodes.routers', 'routers', S.nodes.routers], ['depth', 'switch tiers', S.depth]]);
    var lr = [];
    Object.keys(S.links.byWidth).forEach(function (k) { lr.push(['links.byWidth.' + k, k, S.links.byWidth[k]]); });
    Object.keys(S.links.bySpeed).forEach(function (k) { lr.push(['links.bySpeed.' + k, k, S.links.bySpeed[k]]); });
    h += card('Links', '', ['links.total', S.links.total], lr);
    var bad = S.degradedLinks + S.portsDown;
    h += card('Degraded links', bad ? 'warn' : 'good', ['degradedLinks', S.degradedLinks],
              [['widthDegraded', 'width below both ends', S.widthDegraded],
               ['speedDegraded', 'speed below both ends', S.speedDegraded],
               ['portsDown', 'ports down, peer up', S.portsDown]]);
    h += card('Error counters', E.badPorts ? 'bad' : 'good', ['errors.badPorts', E.badPorts],
              [['errors.nodesChecked', 'nodes checked', E.nodesChecked], ['errors.badNodes', 'bad nodes', E.badNodes],
               ['errors.portsChecked', 'ports checked', E.portsChecked],
               ['errors.pmaFailures', 'PMA failures', E.pmaFailures]]);
    if (sm.error === undefined)
      h += card('Subnet manager', '', ['sm.LID', sm.LID],
                [['sm.GUID', 'GUID', sm.GUID], ['sm.priority', 'priority', sm.priority], ['sm.SMState', 'state', sm.SMState]]);
    else h += card('Subnet manager', 'bad', ['sm.LID', sm.LID], [['sm.error', 'error', sm.error]]);
    var sc = S.scrape;
    h += card('This scan', sc.unanswered || sc.timeouts ? 'warn' : 'good', ['scrape.MADs', sc.MADs],
              [['scrape.timeouts', 'timeouts', sc.timeouts], ['scrape.resent', 'resent', sc.resent],
               ['scrape.discoveryErrors', 'discovery failures', sc.discoveryErrors],
               ['scrape.unanswered', 'did not answer', sc.unanswered]]);
    $('summary').innerHTML = h;
    $('meta').textContent = 'generated ' + D.generated + ' by ibtool ' + D.ibtoolVersion;
  }

  // --- picture -------------------------------------------------------------------
  var svg = $('picture');
  var itemEls = [], drawnEdges = 0;
  var linkEdge = new Array(L.length);  // link -> edge
  var lostNodes = {};
  (D.unanswered || []).forEach(function (u) { if (u.node !== null) lostNodes[u.node] = true; });
  var newLinks = {};
  if (D.baseline) D.baseline.linksNew.forEach(function (k) { newLinks[k] = true; });

  function itemBad(it) {
    var ns = it.kind === 'hosts' ? it.hosts : [it.node];
    var lost = false, bad = false;
    ns.forEach(function (i) {
      if (lostNodes[i]) lost = true;
      N[i].ports.forEach(function (p) { if (p.overThreshold) bad = true; });
    });
    return lost ? 'lost' : bad ? 'bad' : '';
  }
  // The edges: each one that stands out (not ok, or new) a path of its
  // own; the ok ones bundled, one path a colour and width holding a
  // segment an edge (data-n: how many), so that a fabric's thousands of
  // links cost the browser a few elements, not one each.
  function edgeD(e) {
    var a = LY.items[e.a], b = LY.items[e.b];
    // Within a row, an arc above it (a straight line would run through
    // the row's other nodes).
    return 'M' + a.x + ' ' + a.y + (a.y === b.y ? ' Q' + (a.x + b.x) / 2 + ' ' +
           (a.y - Math.min(LY.height / 2, Math.abs(b.x - a.x) * 0.35)) + ' ' : ' L') + b.x + ' ' + b.y;
  }
  function draw() {
    var r = 7, parts = ['<g id="edges">'], bundles = {};
    LY.edges.forEach(function (e, k) {
      var lanes = 1, speed = '', isNew = false;
      e.links.forEach(function (li) {
        var l = L[li];
        lanes = Math.max(lanes, LANES[l.linkWidthActive] || 1);
        speed = speed || l.linkSpeedActive;
        linkEdge[li] = k;
        if (newLinks[li]) isNew = true;
      });
      var w = ((0.6 + lanes * 0.3) * (e.links.length > 1 ? 1.4 : 1)).toFixed(2), c = speedColor(speed);
      if (e.status === 'ok' && !isNew) {
        var key = c + ' ' + w, b = bundles[key] || (bundles[key] = { c: c, w: w, d: [] });
        b.d.push(edgeD(e));
        return;
      }
      parts.push('<path class="edge s-' + e.status + (isNew ? ' new' : '') + '" data-e="' + k + '" d="' + edgeD(e) +
                 '" fill="none" stroke="' + c + '" stroke-width="' + w + '" vector-effect="non-scaling-stroke"/>');
    });
    Object.keys(bundles).sort().forEach(function (key) {
      var b = bundles[key];
      parts.push('<path class="bundle" data-n="' + b.d.length + '" d="' + b.d.join('') + '" fill="none" stroke="' +
                 b.c + '" stroke-width="' + b.w + '" vector-effect="non-scaling-stroke"/>');
    });
    parts.push('</g><path id="hl-edges" fill="none" stroke="#000" stroke-width="2.5" vector-effect="non-scaling-stroke"/>');
    parts.push('<g id="gone">');
    if (D.baseline) {
      var byGuid = {};
      N.forEach(function (n, i) { byGuid[n.nodeGUID] = i; });
      D.baseline.linksGone.forEach(function (g) {
        var a = byGuid[g.from.nodeGUID], b = byGuid[g.to.nodeGUID];
        if (a === undefined || b === undefined) return;
        var A = LY.items[N[a].item], B = LY.items[N[b].item];
        parts.push('<line class="gone" x1="' + A.x + '" y1="' + A.y + '" x2="' + B.x + '" y2="' + B.y +
                   '" stroke-width="2" vector-effect="non-scaling-stroke"/>');
      });
    }
    // Names beside the nodes (slanted) where their row leaves room for them.
    var perRow = {};
    LY.items.forEach(function (it) { perRow[it.y] = (perRow[it.y] || 0) + 1; });
    parts.push('</g><g id="items">');
    LY.items.forEach(function (it, k) {
      var cls = 'item ' + (it.kind === 'switch' ? 'sw' : it.kind) + ' ' + itemBad(it);
      var label = it.kind === 'hosts' ? it.hosts.length + ' hosts behind ' + nodeName(it.node) : nodeName(it.node);
      var s = '<g class="' + cls + '" data-i="' + k + '" transform="translate(' + it.x + ',' + it.y + ')"><title>' +
              esc(label) + '</title>';
      if (it.kind === 'switch') s += '<rect x="-' + r + '" y="-' + r + '" width="' + 2 * r + '" height="' + 2 * r + '" rx="2"/>';
      else if (it.kind === 'hosts') s += '<circle r="' + (r + 2) + '"/><text text-anchor="middle" dy="3.5">' + it.hosts.length + '</text>';
      else s += '<circle r="' + r + '"/>';
      if (it.kind !== 'hosts' && LY.items.length <= 600 && LY.width / perRow[it.y] >= 24)
        s += '<text class="label" x="' + (r - 2) + '" y="' + (r + 8) + '" transform="rotate(30)">' + esc(nodeName(it.node)) + '</text>';
      parts.push(s + '</g>');
    });
    parts.push('</g><g id="expanded"></g>');
    svg.innerHTML = parts.join('');
    itemEls = svg.querySelectorAll('#items > .item');
    drawnEdges = svg.querySelectorAll('#edges > .edge').length;
    svg.querySelectorAll('#edges > .bundle').forEach(function (b) { drawnEdges += +b.dataset.n; });
    whole();
  }
  // The whole picture, drawn at most 1.7 times its size (a small fabric
  // stays in the middle).
  function whole() {
    var W = LY.width, H = LY.height, cw = svg.clientWidth || 1000, ch = svg.clientHeight || 600;
    var s = Math.max(W / cw, H / ch, 0.6);
    vb = [W / 2 - cw * s / 2, H / 2 - ch * s / 2, cw * s, ch * s];
    setVb();
  }

  // Pan and zoom on the viewBox.
  var vb = [0, 0, 1, 1];
  function setVb() { svg.setAttribute('viewBox', vb.join(' ')); }
  svg.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    var pt = svg.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    var p = pt.matrixTransform(svg.getScreenCTM().inverse());
    var f = ev.deltaY > 0 ? 1.25 : 0.8;
    vb = [p.x - (p.x - vb[0]) * f, p.y - (p.y - vb[1]) * f, vb[2] * f, vb[3] * f];
    setVb();
  }, { passive: false });
  var drag = null;
  svg.addEventListener('mousedown', function (ev) {
    drag = { x: ev.clientX, y: ev.clientY, vb: vb.slice(), moved: false };
  });
  window.addEventListener('mousemove', function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; svg.classList.add('dragging'); }
    var s = vb[2] / svg.clientWidth;
    vb = [drag.vb[0] - dx * s, drag.vb[1] - dy * s, vb[2], vb[3]];
    setVb();
  });
  window.addEventListener('mouseup', function () {
    svg.classList.remove('dragging');
    setTimeout(function () { drag = null; }, 0);
  });
  function zoomTo(x, y) {
    var w = Math.min(vb[2], Math.max(600, LY.width / 8)), h = w * vb[3] / vb[2];
    vb = [x - w / 2, y - h / 2, w, h];
    setVb();
  }

  // Host groups opened: their hosts drawn in the column ibtool placed them in.
  var open = {};
  function toggleHosts(k) {
    var it = LY.items[k];
    if (open[k]) {
      open[k].remove();
      delete open[k];
      return;
    }
    var g = document.createElementNS(SVGNS, 'g');
    g.setAttribute('class', 'hostgroup');
    var h = '';
    it.hosts.forEach(function (i) {
      var n = N[i];
      h += '<line class="hostlink" x1="' + it.x + '" y1="' + it.y + '" x2="' + n.x + '" y2="' + n.y +
           '" stroke-width="1" vector-effect="non-scaling-stroke"/>';
    });
    it.hosts.forEach(function (i) {
      var n = N[i];
      h += '<g class="host' + (lostNodes[i] ? ' lost' : '') + '" data-node="' + i + '" transform="translate(' + n.x +
           ',' + n.y + ')"><title>' + esc(nodeName(i)) + '</title><circle r="4"/></g>';
    });
    g.innerHTML = h;
    $('expanded').appendChild(g);
    open[k] = g;
  }

  // --- the ports table of a node ---------------------------------------------------
  function counterCell(p) {
    if (p.countersFailed) return '<span class="st-down">not answered</span>';
    if (!p.countersKnown) return '<span class="empty">not read</span>';
    var ks = Object.keys(p.errors || {});
    if (!ks.length) return '0';
    var over = {};
    (p.overThreshold || []).forEach(function (c) { over[c] = true; });
    return ks.map(function (c) {
      return '<span class="' + (over[c] ? 'st-errors' : '') + '">' + esc(c) + '=' + fmt(p.errors[c]) + '</span>';
    }).join('<br>');
  }
  function portsTable(i) {
    var n = N[i];
    var h = '<h3>' + esc(nodeName(i)) + '</h3><div class="sub">' + esc(n.nodeType) + ' ' + esc(n.nodeGUID) +
            (n.LID !== undefined ? ' LID ' + n.LID : '') + (lostNodes[i] ? ' <span class="st-down">did not answer</span>' : '') +
            '</div>';
    h += '<table class="ports"><thead><tr><th class="num">Port</th><th>State</th><th>Width</th><th>Speed</th><th>Peer</th><th>Counters</th></tr></thead><tbody>';
    n.ports.forEach(function (p) {
      var peer = p.remote ? nodeLink(p.remote.node) + '[' + p.remote.portNum + ']' : '';
      var st = p.portState ? p.portState + '/' + p.portPhysicalState : '';
      h += '<tr data-port="' + p.portNum + '"><td class="num">' + p.portNum + (p.LID ? '<br><small>LID ' + p.LID + '</small>' : '') +
           '</td><td>' + esc(st) + '</td><td>' + esc(p.linkWidthActive || '') + '</td><td>' +
           esc(p.linkSpeedActive || '') + '</td><td>' + peer + '</td><td>' + counterCell(p) + '</td></tr>';
    });
    return h + '</tbody></table>';
  }
  var selected = null;
  function showNode(i) {
    $('panel').innerHTML = portsTable(i);
    $('panel').dataset.node = i;
    select(N[i].item);
  }
  function showItem(k) {
    var it = LY.items[k];
    if (it.kind !== 'hosts') return showNode(it.node);
    var h = '<h3>' + it.hosts.length + ' hosts behind ' + esc(nodeName(it.node)) + '</h3><div class="sub">' +
            '<a class="node" data-node="' + it.node + '">the switch</a> &middot; click a host for its ports</div><table><tbody>';
    it.hosts.forEach(function (i) {
      h += '<tr><td>' + nodeLink(i) + '</td><td>' + esc(N[i].nodeGUID) + '</td></tr>';
    });
    $('panel').innerHTML = h + '</tbody></table>';
    $('panel').dataset.node = '';
    select(k);
  }
  function select(k) {
    if (selected !== null && itemEls[selected]) itemEls[selected].classList.remove('sel');
    selected = k;
    if (itemEls[k]) itemEls[k].classList.add('sel');
  }
  svg.addEventListener('click', function (ev) {
    if (drag && drag.moved) return;
    var host = ev.target.closest('.host');
    if (host) return showNode(+host.dataset.node);
    var g = ev.target.closest('.item');
    if (!g) return;
    var k = +g.dataset.i;
    if (LY.items[k].kind === 'hosts') toggleHosts(k);
    showItem(k);
  });
  document.addEventListener('click', function (ev) {
    var a = ev.target.closest('a.node');
    if (!a) return;
    ev.preventDefault();
    var i = +a.dataset.node;
    showNode(i);
    var it = LY.items[N[i].item];
    zoomTo(it.x, it.y);
  });

  // --- search --------------------------------------------------------------------
  function matches(q) {
    q = q.trim().toLowerCase();
    if (!q) return [];
    var hex = q.replace(/^0x/, ''), isHex = /^[0-9a-f]{4,16}$/.test(hex), isNum = /^\d+$/.test(q);
    var out = [];
    N.forEach(function (n, i) {
      var hit = n.name.toLowerCase().indexOf(q) >= 0 || n.nodeDescription.toLowerCase().indexOf(q) >= 0;
      if (!hit && isHex) {
        hit = n.nodeGUID.slice(2).replace(/^0+/, '').indexOf(hex.replace(/^0+/, '')) >= 0 && hex.length >= 4;
        n.ports.forEach(function (p) { if (p.portGUID && p.portGUID.slice(2).indexOf(hex) >= 0) hit = true; });
      }
      if (!hit && isNum) {
        var lid = +q;
        if (n.LID === lid) hit = true;
        n.ports.forEach(function (p) { if (p.LID === lid) hit = true; });
      }
      if (hit) out.push(i);
    });
    return out;
  }
  function search() {
    var q = $('search').value, found = matches(q);
    svg.querySelectorAll('.hl').forEach(function (e) { e.classList.remove('hl'); });
    if (!q.trim()) {
      svg.classList.remove('searching');
      $('hl-edges').setAttribute('d', '');
      $('search-result').textContent = '';
      Object.keys(bySearch).forEach(function (k) { if (open[k]) toggleHosts(+k); });
      bySearch = {};
      whole();
      return;
    }
    svg.classList.add('searching');
    found.forEach(function (i) { itemEls[N[i].item].classList.add('hl'); });
    var want = {};
    found.forEach(function (i) { want[i] = true; });
    var lit = {}, d = '';
    L.forEach(function (l, li) {
      if ((want[l.from.node] || want[l.to.node]) && !lit[linkEdge[li]]) {
        lit[linkEdge[li]] = true;
        d += edgeD(LY.edges[linkEdge[li]]);
      }
    });
    $('hl-edges').setAttribute('d', d);
    found.forEach(function (i) {
      var k = N[i].item;
      if (LY.items[k].kind === 'hosts') {
        if (!open[k]) { toggleHosts(k); bySearch[k] = true; }
        var h = open[k].querySelector('.host[data-node="' + i + '"]');
        if (h) h.classList.add('hl');
      }
    });
    $('search-result').textContent = found.length + (found.length === 1 ? ' match' : ' matches');
    if (found.length) {
      showNode(found[0]);
      var it = LY.items[N[found[0]].item];
      zoomTo(it.x, it.y);
    }
  }
  var timer = null, bySearch = {};  // host groups the search opened
  $('search').addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
  $('search').addEventListener('keydown', function (ev) {
    if (ev.key === 'Enter') { clearTimeout(timer); search(); }
  });

  // --- tables --------------------------------------------------------------------
  function table(id, cols, rows, empty) {
    var t = $(id);
    if (!rows.length) {
      t.innerHTML = '<tbody><tr><td class="empty">' + esc(empty) + '</td></tr></tbody>';
      return;
    }
    var h = '<thead><tr>';
    cols.forEach(function (c, k) { h += '<th data-col="' + k + '"' + (c.num ? ' class="num"' : '') + '>' + esc(c.name) + '</th>'; });
    h += '</tr></thead><tbody>';
    rows.forEach(function (r) {
      h += '<tr>';
      r.cells.forEach(function (c, k) { h += '<td' + (cols[k].num ? ' class="num"' : '') + ' data-v="' + esc(r.keys[k]) + '">' + c + '</td>'; });
      h += '</tr>';
    });
    t.innerHTML = h + '</tbody>';
    t.dataset.rows = rows.length;
    t.querySelectorAll('th').forEach(function (th) {
      th.addEventListener('click', function () { sortBy(t, +th.dataset.col, cols[+th.dataset.col].num, th); });
    });
  }
  function sortBy(t, col, num, th) {
    var desc = !th.classList.contains('desc') && (th.classList.contains('asc') || num);
    t.querySelectorAll('th').forEach(function (x) { x.classList.remove('asc', 'desc'); });
    th.classList.add(desc ? 'desc' : 'asc');
    var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[col].dataset.v, y = b.cells[col].dataset.v, c;
      c = num ? (+x) - (+y) : x.localeCompare(y);
      return desc ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function tables() {
    var errs = [];
    N.forEach(function (n, i) {
      n.ports.forEach(function (p) {
        var ks = Object.keys(p.errors || {});
        if (!ks.length) return;
        var total = 0;
        ks.forEach(function (c) { total += p.errors[c]; });
        errs.push({ cells: [nodeLink(i), String(p.portNum), String(p.LID || n.LID || ''), counterCell(p), fmt(total),
                            p.overThreshold ? '<span class="st-errors">yes</span>' : 'no'],
                    keys: [nodeName(i), p.portNum, p.LID || n.LID || 0, ks.join(','), total, p.overThreshold ? 1 : 0] });
      });
    });
    errs.sort(function (a, b) { return b.keys[4] - a.keys[4]; });
    table('t-errors', [{ name: 'Node' }, { name: 'Port', num: 1 }, { name: 'LID', num: 1 }, { name: 'Counters' },
                       { name: 'Total', num: 1 }, { name: 'Beyond threshold' }], errs, 'No error counter above zero.');
    var bad = [];
    L.forEach(function (l, k) {
      if (l.status === 'ok' || l.status === 'errors') return;
      bad.push({ cells: [nodeLink(l.from.node) + '[' + l.from.portNum + ']', nodeLink(l.to.node) + '[' + l.to.portNum + ']',
                         esc(l.linkWidthActive), esc(l.linkSpeedActive), '<span class="st-' + l.status + '">' + l.status + '</span>',
                         esc(l.why || '')],
                 keys: [nodeName(l.from.node), nodeName(l.to.node), l.linkWidthActive, l.linkSpeedActive, l.status, l.why || ''] });
    });
    table('t-links', [{ name: 'From' }, { name: 'To' }, { name: 'Width' }, { name: 'Speed' }, { name: 'Status' }, { name: 'Why' }],
          bad, 'Every link runs at what both ends enable.');
    var un = (D.unanswered || []).map(function (u) {
      return { cells: [u.node === null ? '<span class="empty">(a query of the walk)</span>' : nodeLink(u.node),
                       u.node === null ? '' : esc(N[u.node].nodeGUID), esc(u.what)],
               keys: [u.node === null ? '' : nodeName(u.node), u.node === null ? '' : N[u.node].nodeGUID, u.what] };
    });
    table('t-unanswered', [{ name: 'Node' }, { name: 'GUID' }, { name: 'What failed' }], un, 'Every node answered.');
  }

  function baseline() {
    var B = D.baseline;
    if (!B) return;
    var s = $('baseline');
    s.hidden = false;
    var h = '<h2>Changes since ' + esc(B.file) + ' (' + esc(B.generated) + ')</h2><div id="changes">';
    h += '<p><span class="st-down" data-k="baseline.linksGone">' + B.linksGone.length + '</span> links gone, ' +
         '<span class="st-new" data-k="baseline.linksNew">' + B.linksNew.length + '</span> new, ' +
         '<span class="st-errors" data-k="baseline.countersRose">' + B.countersRose.length + '</span> counters rose.</p>';
    h += '<table id="t-changes"><thead><tr><th>Change</th><th>From</th><th>To / counter</th></tr></thead><tbody>';
    B.linksGone.forEach(function (g) {
      h += '<tr><td class="st-down">link gone</td><td>' + esc(g.from.name) + '[' + g.from.portNum + '] ' + esc(g.from.nodeGUID) +
           '</td><td>' + esc(g.to.name) + '[' + g.to.portNum + '] ' + esc(g.to.nodeGUID) + '</td></tr>';
    });
    B.linksNew.forEach(function (k) {
      var l = L[k];
      h += '<tr><td class="st-new">new link</td><td>' + nodeLink(l.from.node) + '[' + l.from.portNum + ']</td><td>' +
           nodeLink(l.to.node) + '[' + l.to.portNum + ']</td></tr>';
    });
    B.countersRose.forEach(function (c) {
      h += '<tr><td class="st-errors">counter rose</td><td>' + nodeLink(c.node) + '[' + c.portNum + ']</td><td>' +
           esc(c.counter) + ': ' + fmt(c.was) + ' &rarr; ' + fmt(c.now) + '</td></tr>';
    });
    s.innerHTML = h + '</tbody></table></div>';
  }

  function legend() {
    var speeds = Object.keys(D.summary.links.bySpeed);
    var h = speeds.map(function (s) { return '<span><i style="border-color:' + speedColor(s) + '"></i>' + esc(s) + '</span>'; }).join('');
    h += '<span><i style="border-color:var(--warn);border-top-style:dashed"></i>degraded</span>' +
         '<span><i style="border-color:var(--bad);border-top-style:dotted"></i>down</span>' +
         '<span><i style="border-color:var(--err)"></i>errors</span>';
    if (D.baseline) h += '<span><i style="border-color:var(--new)"></i>new</span><span><i style="border-color:#888;border-top-style:dotted"></i>gone</span>';
    h += '<span>line width: link width; &#9634; switch, &#9711; N hosts (click to open)</span>';
    $('legend').innerHTML = h;
  }

  summary();
  baseline();
  legend();
  draw();
  tables();
  $('footer').textContent = N.length + ' nodes, ' + L.length + ' links; the data of this page is in its ' +
                            '#ibtool-report-data element (the document ibtool report --json writes).';
  // The picture is drawn once the browser has painted it: a mark the tests
  // and the benchmark read (performance.getEntriesByName('ibtool-drawn')).
  requestAnimationFrame(function () {
    requestAnimationFrame(function () {
      var drawnAt = performance.now();
      performance.mark('ibtool-drawn');
      window.ibtoolReport = { items: itemEls.length, edges: drawnEdges, drawnMs: drawnAt, scriptMs: drawnAt - t0 };
      document.body.dataset.drawn = 'yes';
    });
  });
})();
