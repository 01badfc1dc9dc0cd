// Loadline web app enhancements.  Every page works without this file; it
// only adds live feedback on the review screen (required fields, fields
// chosen twice, the preview of the first rows), copy buttons, a
// confirmation before destructive actions, dropping a file on
// "Import a file" and the keyboard of the failed rows' table.
(function () {
  'use strict';

  // Review: which required fields have no column, which field is chosen twice.
  function reviewForm(form) {
    var selects = Array.prototype.slice.call(form.querySelectorAll('select[data-column]'));
    var missingBox = document.getElementById('missing-required');
    var missingList = document.getElementById('missing-list');
    var dupBox = document.getElementById('duplicate-fields');
    var required = [];
    if (selects.length) {
      Array.prototype.forEach.call(selects[0].querySelectorAll('option[data-required]'), function (o) {
        required.push(o.value);
      });
    }
    function update() {
      var used = {};
      selects.forEach(function (s) {
        var row = s.closest('tr');
        if (row) row.classList.toggle('is-ignored', !s.value);
        if (!s.value) return;
        (used[s.value] = used[s.value] || []).push(s);
      });
      var missing = required.filter(function (f) { return !used[f]; });
      if (missingBox && missingList) {
        missingList.textContent = missing.join(', ');
        missingBox.hidden = missing.length === 0;
      }
      var dups = Object.keys(used).filter(function (f) { return used[f].length > 1; });
      selects.forEach(function (s) {
        s.setAttribute('aria-invalid', dups.indexOf(s.value) >= 0 ? 'true' : 'false');
      });
      if (dupBox) {
        dupBox.textContent = dups.length
          ? 'Each field can take one column: ' + dups.join(', ') + ' is chosen more than once.'
          : '';
        dupBox.hidden = dups.length === 0;
      }
    }
    // The preview of the first rows follows the selects: the server checks
    // them (action=preview stores nothing) and its section replaces ours.
    var previewBox = document.getElementById('preview');
    var timer = null;
    function refreshPreview() {
      if (!previewBox || !window.fetch || !window.URLSearchParams) return;
      var data = new URLSearchParams(new FormData(form));
      data.set('action', 'preview');
      // getAttribute: the button named "action" shadows form.action
      fetch(form.getAttribute('action'), { method: 'POST', body: data, credentials: 'same-origin' })
        .then(function (r) { return r.text(); })
        .then(function (html) {
          var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('preview');
          if (fresh) previewBox.innerHTML = fresh.innerHTML;
        })
        .catch(function () { /* the button still works */ });
    }
    selects.forEach(function (s) {
      s.addEventListener('change', function () {
        update();
        clearTimeout(timer);
        timer = setTimeout(refreshPreview, 250);
      });
    });
    update();
  }

  function copyButtons() {
    Array.prototype.forEach.call(document.querySelectorAll('[data-copy]'), function (btn) {
      var target = document.getElementById(btn.getAttribute('data-copy'));
      if (!target) return;
      btn.hidden = false;
      btn.addEventListener('click', function () {
        var done = function () {
          var label = btn.textContent;
          btn.textContent = 'Copied';
          setTimeout(function () { btn.textContent = label; }, 1500);
        };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(target.value).then(done, function () {});
        } else {
          target.select();
          try { document.execCommand('copy'); done(); } catch (e) { /* the text stays selected */ }
        }
      });
    });
  }

  function confirmForms() {
    Array.prototype.forEach.call(document.querySelectorAll('form[data-confirm]'), function (f) {
      f.addEventListener('submit', function (ev) {
        if (!window.confirm(f.getAttribute('data-confirm'))) ev.preventDefault();
      });
    });
  }

  // Import a file: a file dropped on the zone goes into the file input,
  // and the form posts as it does without script.
  function dropZones() {
    Array.prototype.forEach.call(document.querySelectorAll('[data-dropzone]'), function (zone) {
      var input = zone.querySelector('input[type=file]');
      var hint = zone.querySelector('.drop-hint');
      if (!input || !window.DataTransfer) return;
      if (hint) hint.hidden = false;
      ['dragenter', 'dragover'].forEach(function (t) {
        zone.addEventListener(t, function (ev) { ev.preventDefault(); zone.classList.add('is-over'); });
      });
      ['dragleave', 'drop'].forEach(function (t) {
        zone.addEventListener(t, function () { zone.classList.remove('is-over'); });
      });
      zone.addEventListener('drop', function (ev) {
        ev.preventDefault();
        if (ev.dataTransfer && ev.dataTransfer.files.length) input.files = ev.dataTransfer.files;
      });
    });
  }

  // Failed rows (PRODUCT §15): the cells are edited in place.  Tab moves
  // to the next cell (the browser's own), Enter to the cell below (Shift+
  // Enter above) instead of posting the form, Escape puts back the text
  // the cell had when the edit began.  Changed cells are marked, and the
  // button says how many rows will be imported.
  function fixGrid(table) {
    var inputs = Array.prototype.slice.call(table.querySelectorAll('input.cell'));
    var head = table.tHead && table.tHead.rows[0];
    var cols = head ? head.cells.length - 1 : 1;
    var form = table.closest('form');
    var button = form && form.querySelector('#import-corrected');
    var label = button && button.textContent;
    function mark(input) {
      input.classList.toggle('is-changed', input.value !== input.defaultValue);
      if (!button) return;
      var rows = {};
      inputs.forEach(function (x) {
        if (x.value !== x.defaultValue) rows[x.name.split('.')[0]] = true;
      });
      var n = Object.keys(rows).length;
      button.textContent = n ? label + ' (' + n + (n === 1 ? ' row)' : ' rows)') : label;
    }
    inputs.forEach(function (input, i) {
      var before = input.value;
      input.addEventListener('focus', function () { before = input.value; });
      input.addEventListener('input', function () { mark(input); });
      input.addEventListener('keydown', function (ev) {
        if (ev.key === 'Escape') {
          ev.preventDefault();
          input.value = before;
          mark(input);
        } else if (ev.key === 'Enter') {
          ev.preventDefault();
          var next = inputs[i + (ev.shiftKey ? -cols : cols)];
          if (next) {
            next.focus();
            next.select();
          }
        }
      });
    });
  }

  // The run page waits by long poll (issue 30): the server holds the
  // request until the run changes (or 25 s pass), then the page reloads.
  // Without script the page's <noscript> meta refresh does it every 2 s.
  function runWait() {
    var el = document.querySelector('[data-run-wait]');
    if (!el) return;
    var url = el.getAttribute('data-run-wait');
    if (!window.fetch) {
      setTimeout(function () { window.location.reload(); }, 2000);
      return;
    }
    function ask(delay) {
      setTimeout(function () {
        fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
          .then(function (r) {
            if (!r.ok) throw new Error('HTTP ' + r.status);
            return r.json();
          })
          .then(function (j) {
            if (j.changed) window.location.reload();
            else ask(j.held ? 0 : 2000);
          })
          .catch(function () { ask(5000); });
      }, delay);
    }
    ask(0);
  }

  document.addEventListener('DOMContentLoaded', function () {
    runWait();
    dropZones();
    Array.prototype.forEach.call(document.querySelectorAll('table.fix-grid'), fixGrid);
    Array.prototype.forEach.call(document.querySelectorAll('form[data-review]'), reviewForm);
    copyButtons();
    confirmForms();
  });
})();
