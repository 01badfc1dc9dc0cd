// Writes the SheetJS fixtures (../sheetjs/*.xlsx) and their expected
// `loadline inspect` output (../expected/sheetjs/*.json).  SheetJS (npm
// "xlsx") is a third independent writer with its own habits: ISO date cells
// (t="d") when asked for cellDates, inline strings unless bookSST, numbers
// written with JavaScript's shortest round-trip form.
//
// Run: cd tests/data/sheet/writers && npm ci && node gen_sheetjs.js
'use strict';
const fs = require('fs');
const path = require('path');
const XLSX = require('xlsx');

const HERE = path.join(__dirname, '..');
const OUT = path.join(HERE, 'sheetjs');
const EXP = path.join(HERE, 'expected', 'sheetjs');

function save(name, wb, opts, rows) {
  fs.mkdirSync(OUT, { recursive: true });
  fs.mkdirSync(EXP, { recursive: true });
  XLSX.writeFile(wb, path.join(OUT, name + '.xlsx'), Object.assign({ bookType: 'xlsx' }, opts));
  const [head, ...data] = rows;
  const expected = {
    format: 'xlsx', encoding: 'xlsx', delimiter: null, headerRow: head[0], headers: head[1],
    rows: data.map(([n, cells]) => ({ row: n, cells })),
  };
  fs.writeFileSync(path.join(EXP, name + '.xlsx.json'), JSON.stringify(expected, null, 2) + '\n');
}

const utc = (y, m, d, hh = 0, mm = 0) => new Date(Date.UTC(y, m - 1, d, hh, mm));

function sheet(aoa) {
  // cellDates keeps Date objects as dates; the writer then chooses t="d" or serials.
  return XLSX.utils.aoa_to_sheet(aoa, { cellDates: true });
}

function isoDates() {
  const ws = sheet([
    ['Job', 'Date', 'When', 'Qty', 'Ratio'],
    ['J-1', utc(2024, 1, 5), utc(2024, 1, 5, 13, 30), 3, 0.1 + 0.2],
    [],
    ['J-2', utc(1999, 12, 31), utc(2000, 2, 29, 0, 0), 1e-7, 1 / 3],
  ]);
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, ws, 'Dates');
  // cellDates on write: dates become t="d" cells holding ISO 8601 text.
  save('iso_dates', wb, { cellDates: true }, [
    [1, ['Job', 'Date', 'When', 'Qty', 'Ratio']],
    [2, ['J-1', '2024-01-05', '2024-01-05T13:30:00', '3', '0.3']],
    [4, ['J-2', '1999-12-31', '2000-02-29', '0.0000001', '0.333333333333333']],
  ]);
}

function sharedStrings() {
  const hidden = sheet([['WRONG']]);
  const ws = sheet([
    ['Job', 'Load', 'Paid', 'Date'],
    ['J-1', '0012', true, utc(2024, 3, 1)],
    ['J-1', '0013', false, utc(2024, 3, 2)],
  ]);
  ws.D2.z = 'yyyy-mm-dd';
  ws.D3.z = 'd-mmm-yy';
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, hidden, 'Hidden');
  XLSX.utils.book_append_sheet(wb, ws, 'Loads');
  wb.Workbook = { Sheets: [{ Hidden: 1 }, { Hidden: 0 }] };
  // bookSST: a shared string table; dates as serials with their formats.
  save('shared_strings', wb, { bookSST: true }, [
    [1, ['Job', 'Load', 'Paid', 'Date']],
    [2, ['J-1', '0012', 'TRUE', '2024-03-01']],
    [3, ['J-1', '0013', 'FALSE', '2024-03-02']],
  ]);
}

isoDates();
sharedStrings();
console.log('SheetJS', XLSX.version);
