// castellan web: the herd, one pane live in xterm.js, and one-tap answers, over one same-origin WebSocket.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  let ws = null;
  let hello = null;
  let rows = [];
  /** Other sessions and machines, and whether each answered lately. */
  let sources = [];
  let skew = 0;
  let openPane = null;
  let term = null;
  let retry = 1000;
  const last = new Map();
  /** Governance questions (policy "prompt") waiting for a person: answered here as in an attached terminal. */
  const asks = new Map();

  function toast(text) {
    const t = $('toast');
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => (t.hidden = true), 3500);
  }

  function conn(text, cls) {
    const c = $('conn');
    c.textContent = text;
    c.className = 'conn ' + (cls || '');
  }

  function send(msg) {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg));
  }

  function ago(since) {
    const s = Math.max(0, Math.round((Date.now() - skew - since) / 1000));
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm';
    return Math.floor(s / 3600) + 'h' + String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  }

  function actions(r, box) {
    const ro = hello && hello.read_only;
    if (r.exited) return;
    if (r.state === 'blocked') {
      const row = el('div', 'row');
      const yes = el('button', 'approve', 'Approve');
      const no = el('button', 'deny', 'Deny');
      const why = el('button', 'small why', 'Deny with message…');
      yes.dataset.act = 'approve';
      no.dataset.act = 'deny';
      why.dataset.act = 'deny-message';
      for (const b of [yes, no, why]) b.disabled = ro;
      yes.onclick = () => send({ t: 'answer', pane: r.pane, answer: 'approve' });
      no.onclick = () => send({ t: 'answer', pane: r.pane, answer: 'deny' });
      why.onclick = () => {
        const message = prompt('Tell the agent why (or what to do instead):');
        if (message) send({ t: 'answer', pane: r.pane, answer: 'deny', message: message });
      };
      row.append(yes, no, why);
      box.append(row);
    } else if (r.state === 'idle' || r.state === 'done' || r.state === 'unknown') {
      const form = el('form', 'row');
      const input = el('input');
      input.type = 'text';
      input.placeholder = 'Prompt ' + (r.agent || 'the pane') + '…';
      input.maxLength = 16000;
      input.disabled = ro;
      const go = el('button', '', 'Send');
      go.type = 'submit';
      go.disabled = ro;
      form.onsubmit = (ev) => {
        ev.preventDefault();
        if (!input.value.trim()) return;
        send({ t: 'prompt', pane: r.pane, text: input.value });
        input.value = '';
      };
      form.append(input, go);
      box.append(form);
    }
  }

  function lastSeen(r) {
    const s = sources.find((x) => x.session === r.session && (x.machine || '') === (r.machine || ''));
    return s && s.at ? s.at : r.since;
  }

  function card(r) {
    const c = el('article', 'card ' + r.state + (r.exited ? ' exited' : '') + (r.stale ? ' stale' : ''));
    c.dataset.pane = r.pane;
    c.dataset.state = r.state;
    const top = el('div', 'top');
    top.append(el('span', 'badge ' + r.state, r.exited ? 'exited' : r.state), el('span', 'name', (r.agent ? r.agent + ' · ' : '') + r.title), el('span', 'since', r.pane + ' · ' + ago(r.since)));
    top.onclick = () => open(r.pane);
    c.append(top);
    if (r.message) c.append(el('p', 'msg', r.message));
    if (r.stale) c.append(el('p', 'msg stale-note', 'not answering: last seen ' + ago(lastSeen(r)) + ' ago'));
    else actions(r, c);
    return c;
  }

  /** Redraws `box` keeping a half-written prompt (its text, caret and focus): a push must not eat what the person types. */
  function keepingInput(box, draw) {
    const a = document.activeElement;
    const keep = a && a.tagName === 'INPUT' && a.type === 'text' && box.contains(a) ? { pane: (a.closest('[data-pane]') || box).dataset.pane, value: a.value, at: a.selectionStart } : null;
    draw();
    if (!keep) return;
    const input = [...box.querySelectorAll('input[type=text]')].find((i) => (i.closest('[data-pane]') || box).dataset.pane === keep.pane);
    if (!input) return;
    input.value = keep.value;
    input.focus();
    input.setSelectionRange(keep.at, keep.at);
  }

  function drawHerd() {
    keepingInput($('herd'), drawHerdNow);
    if (openPane) drawPaneActions();
  }

  function drawHerdNow() {
    const main = $('herd');
    main.replaceChildren();
    const lost = sources.filter((s) => !s.ok);
    if (lost.length) main.append(el('p', 'sources', lost.map((s) => (s.machine ? s.machine + ':' : '') + s.session + ' not answering' + (s.error ? ' (' + s.error + ')' : '')).join(' · ')));
    if (asks.size) main.append(el('h2', 'group', 'Questions'), ...[...asks.values()].map(askCard));
    if (!rows.length) {
      main.append(el('p', 'empty', 'No panes.'));
      return;
    }
    const need = rows.filter((r) => r.needsMe);
    const rest = rows.filter((r) => !r.needsMe);
    if (need.length) main.append(el('h2', 'group', 'Needs you'), ...need.map(card));
    if (rest.length) main.append(el('h2', 'group', need.length ? 'Others' : 'Agents'), ...rest.map(card));
  }

  function askCard(a) {
    const c = el('article', 'card blocked ask');
    c.dataset.ask = a.id;
    const top = el('div', 'top');
    top.append(el('span', 'badge blocked', 'asks'), el('span', 'name', String(a.title || 'castellan asks')), el('span', 'since', a.pane ? String(a.pane) : ''));
    c.append(top, el('p', 'msg', String(a.message || '')));
    const row = el('div', 'row');
    const yes = el('button', 'approve', 'Allow');
    const no = el('button', 'deny', 'Deny');
    yes.dataset.act = 'allow';
    no.dataset.act = 'deny';
    yes.disabled = no.disabled = !!(hello && hello.read_only);
    yes.onclick = () => send({ t: 'ask_answer', id: a.id, answer: 'allow' });
    no.onclick = () => send({ t: 'ask_answer', id: a.id, answer: 'deny' });
    row.append(yes, no);
    c.append(row);
    return c;
  }

  function notifyChanges() {
    for (const r of rows) {
      const before = last.get(r.pane);
      last.set(r.pane, r.state);
      if (before === undefined || before === r.state) continue;
      if ((r.state === 'blocked' || r.state === 'done') && openPane !== r.pane && !r.inView) {
        if ('Notification' in window && Notification.permission === 'granted') {
          try {
            new Notification((r.agent || r.title) + ' ' + (r.state === 'blocked' ? 'needs you' : 'is done'), { body: r.message || r.pane, tag: r.pane });
          } catch (e) {
            /* a browser that only notifies from a service worker */
          }
        }
      }
    }
  }

  function fontFor(cols) {
    const w = $('term-wrap').clientWidth - 16;
    return Math.max(6, Math.min(15, Math.floor(w / (cols * 0.6))));
  }

  function drawPaneActions() {
    const box = $('pane-actions');
    box.dataset.pane = openPane;
    keepingInput(box, () => {
      box.replaceChildren();
      const r = rows.find((x) => x.pane === openPane);
      if (!r) return;
      $('pane-title').textContent = (r.agent ? r.agent + ' · ' : '') + r.title + ' · ' + r.state;
      actions(r, box);
    });
  }

  /** xterm.js loads with the first pane opened: the herd draws without it. */
  function loadXterm() {
    if (window.Terminal) return Promise.resolve();
    loadXterm.p = loadXterm.p || new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = '/vendor/xterm.js';
      s.onload = resolve;
      s.onerror = reject;
      document.head.append(s);
    });
    return loadXterm.p;
  }

  function open(pane) {
    openPane = pane;
    $('pane').hidden = false;
    $('typing').checked = false;
    $('typing').disabled = !!(hello && hello.read_only);
    drawPaneActions();
    loadXterm().then(() => openPane === pane && send({ t: 'open', pane: pane }), () => toast('could not load the terminal view'));
  }

  function closePane() {
    if (openPane) send({ t: 'close', pane: openPane });
    openPane = null;
    $('pane').hidden = true;
    if (term) term.dispose();
    term = null;
    drawHerd();
  }

  function onScreen(m) {
    if (m.pane !== openPane) return;
    if (term) term.dispose();
    term = new window.Terminal({ cols: m.cols, rows: m.rows, fontSize: fontFor(m.cols), scrollback: 5000, disableStdin: false, cursorBlink: false, convertEol: false, allowProposedApi: false });
    term.open($('term'));
    window.castellanTerm = term;
    term.onData((data) => {
      if ($('typing').checked) send({ t: 'input', pane: openPane, data: data });
    });
    let text = '';
    for (const l of m.history) text += l + '\x1b[0m\r\n';
    text += '\r\n'.repeat(m.rows);
    term.write(text);
    paint(m.lines.reduce((o, l, i) => ((o[i] = l), o), {}), m.cursor);
    document.body.dataset.paneReady = m.pane;
  }

  function paint(changed, cursor) {
    let out = '';
    for (const i of Object.keys(changed)) out += '\x1b[' + (Number(i) + 1) + ';1H\x1b[0m\x1b[2K' + changed[i];
    if (cursor) out += '\x1b[0m\x1b[' + (cursor.y + 1) + ';' + (cursor.x + 1) + 'H' + (cursor.visible ? '\x1b[?25h' : '\x1b[?25l');
    term.write(out);
  }

  function onMessage(ev) {
    let m;
    try {
      m = JSON.parse(ev.data);
    } catch (e) {
      return;
    }
    if (m.t === 'hello') {
      hello = m;
      $('title').textContent = 'castellan · ' + m.session + (m.read_only ? ' (read-only)' : '');
      conn('live', 'ok');
      retry = 1000;
    } else if (m.t === 'herd') {
      skew = Date.now() - m.now;
      rows = m.rows;
      sources = m.sources || [];
      notifyChanges();
      drawHerd();
      document.body.dataset.herdAt = String(Date.now());
    } else if (m.t === 'ask') {
      asks.set(m.id, m);
      drawHerd();
      if ('Notification' in window && Notification.permission === 'granted') {
        try {
          new Notification('castellan asks: ' + (m.title || ''), { body: m.message || '', tag: m.id });
        } catch (e) {
          /* see above */
        }
      }
    } else if (m.t === 'ask_done') {
      asks.delete(m.id);
      drawHerd();
    } else if (m.t === 'screen') onScreen(m);
    else if (m.t === 'frame') {
      if (m.pane !== openPane || !term) return;
      const n = term.rows;
      if (m.scroll && m.above && m.scroll >= n) {
        // A burst of a screen or more: the lines that left the screen go into the history in order, written from the
        // top of a cleared screen and scrolled off it; the new screen is painted after.
        let out = '\x1b[0m\x1b[H\x1b[J';
        for (const l of m.above) out += '\x1b[2K' + l + '\x1b[0m\r\n';
        term.write(out + '\x1b[' + n + ';1H' + '\n'.repeat(Math.min(m.above.length, n - 1)) + '\x1b[H\x1b[J');
      } else if (m.scroll) {
        // Scrolled: the top rows as they left the screen, then line feeds at the bottom row move them into the history.
        let out = '\x1b[0m';
        if (m.above) m.above.forEach((l, i) => (out += '\x1b[' + (i + 1) + ';1H\x1b[2K' + l + '\x1b[0m'));
        term.write(out + '\x1b[' + n + ';1H' + '\n'.repeat(Math.min(m.scroll, n)));
      }
      paint(m.rows, m.cursor);
    } else if (m.t === 'error') toast(m.message);
    else if (m.t === 'done') toast(m.action === 'prompt' ? 'sent' : m.action === 'approve' ? 'approved' : 'denied');
  }

  function connect() {
    conn('connecting…');
    ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
    ws.onmessage = onMessage;
    ws.onclose = (ev) => {
      ws = null;
      if (ev.code === 4401) {
        conn('signed out', 'bad');
        toast('This browser was signed out (castellan web --revoke). Pair again: castellan web --pair');
        return;
      }
      conn('offline: not paired, or the server is gone', 'bad');
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    };
  }

  async function pair() {
    const token = location.hash.slice(1);
    history.replaceState(null, '', '/');
    const r = await fetch('/api/pair', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: token }), credentials: 'same-origin' });
    if (!r.ok) toast((await r.text()).trim());
    connect();
  }

  $('back').onclick = closePane;
  $('typing').onchange = () => {
    if (openPane) send({ t: 'typing', pane: openPane, on: $('typing').checked });
    if ($('typing').checked && term) term.focus();
  };
  if ('Notification' in window && Notification.permission === 'default') {
    const b = $('notify-btn');
    b.hidden = false;
    b.onclick = () => Notification.requestPermission().then(() => (b.hidden = true));
  }
  // Times in the cards age without any message from the server.
  setInterval(() => {
    for (const s of document.querySelectorAll('.card .since')) {
      const r = rows.find((x) => x.pane === s.parentElement.parentElement.dataset.pane);
      if (r) s.textContent = r.pane + ' · ' + ago(r.since);
    }
  }, 10000);
  if (location.pathname === '/pair' && location.hash.length > 1) pair();
  else connect();
})();
