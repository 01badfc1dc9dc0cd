// Writes the exceljs fixtures (../exceljs/*.xlsx) and their expected
// `loadline inspect` output (../expected/exceljs/*.json) from one
// description each.  exceljs writes shared strings, rich text runs, formulas
// with cached results, hyperlinks, merged cells, hidden sheets, the 1904
// date system, and (in its streaming writer) formula-style t="str" strings.
//
// Run: cd tests/data/sheet/writers && npm ci && node gen_exceljs.js
'use strict';
const fs = require('fs');
const path = require('path');
const ExcelJS = require('exceljs');

const HERE = path.join(__dirname, '..');
const OUT = path.join(HERE, 'exceljs');
const EXP = path.join(HERE, 'expected', 'exceljs');

function expectation(rows) {
  // rows: [[rowNumber, [texts]]]; the first is the header.
  const [head, ...data] = rows;
  return {
    format: 'xlsx', encoding: 'xlsx', delimiter: null,
    headerRow: head[0], headers: head[1],
    rows: data.map(([n, cells]) => ({ row: n, cells })),
  };
}

function save(name, expected) {
  fs.mkdirSync(EXP, { recursive: true });
  fs.writeFileSync(path.join(EXP, name + '.xlsx.json'), JSON.stringify(expected, null, 2) + '\n');
}

const utc = (y, m, d, hh = 0, mm = 0, ss = 0) => new Date(Date.UTC(y, m - 1, d, hh, mm, ss));

async function sharedRich() {
  const wb = new ExcelJS.Workbook();
  wb.creator = 'loadline fixtures';
  const hidden = wb.addWorksheet('Old');
  hidden.state = 'hidden';
  hidden.getCell('A1').value = 'WRONG SHEET';
  const ws = wb.addWorksheet('Loads');
  ws.getRow(1).values = ['Job', 'Load', 'Date', 'Weight', 'Total', 'Label', 'Ok', 'Err', 'Link', 'Rich'];
  ws.getRow(2).values = [
    'J-1', 'L-001', utc(2024, 1, 5), 12.25,
    { formula: 'D2*2', result: 24.5 },
    { formula: 'A2&"-"&B2', result: 'J-1-L-001' },
    true, { error: '#DIV/0!' },
    { text: 'portal', hyperlink: 'https://example.com/' },
    { richText: [{ text: 'Big ' }, { font: { bold: true }, text: 'Co' }, { text: ' Inc' }] },
  ];
  ws.getCell('C2').numFmt = 'yyyy-mm-dd';
  // A shared formula: exceljs writes <f t="shared" si=".."/> in the followers.
  ws.getRow(3).values = ['J-1', 'L-002', utc(2024, 2, 29, 8, 30), 0.1, null, 'same', false];
  ws.getCell('C3').numFmt = 'dd/mm/yyyy hh:mm';
  ws.getCell('E3').value = { sharedFormula: 'E2', result: 0.2 };
  // Row 4 blank; row 5 has a merged block whose value sits in A5.
  ws.getCell('A5').value = 'merged';
  ws.mergeCells('A5:C6');
  ws.getCell('D5').value = 1e21;
  ws.getCell('J5').value = 'Big Co Inc';  // the same text again: one shared string
  wb.views = [{ activeTab: 1 }];
  await wb.xlsx.writeFile(path.join(OUT, 'shared_rich.xlsx'));
  save('shared_rich', expectation([
    [1, ['Job', 'Load', 'Date', 'Weight', 'Total', 'Label', 'Ok', 'Err', 'Link', 'Rich']],
    [2, ['J-1', 'L-001', '2024-01-05', '12.25', '24.5', 'J-1-L-001', 'TRUE', '#DIV/0!', 'portal', 'Big Co Inc']],
    [3, ['J-1', 'L-002', '2024-02-29T08:30:00', '0.1', '0.2', 'same', 'FALSE']],
    [5, ['merged', '', '', '1E+21', '', '', '', '', '', 'Big Co Inc']],
  ]));
}

async function date1904() {
  const wb = new ExcelJS.Workbook();
  wb.properties.date1904 = true;
  const ws = wb.addWorksheet('Dates');
  ws.getRow(1).values = ['Date', 'Note'];
  ws.getRow(2).values = [utc(2024, 1, 5), 'built-in 14'];
  ws.getCell('A2').numFmt = 'm/d/yy';
  ws.getRow(3).values = [utc(1999, 12, 31, 23, 59, 59), 'custom'];
  ws.getCell('A3').numFmt = 'yyyy-mm-dd hh:mm:ss';
  await wb.xlsx.writeFile(path.join(OUT, 'date1904.xlsx'));
  save('date1904', expectation([
    [1, ['Date', 'Note']],
    [2, ['2024-01-05', 'built-in 14']],
    [3, ['1999-12-31T23:59:59', 'custom']],
  ]));
}

async function streamedStr() {
  // The streaming writer with useSharedStrings: false writes t="str" cells.
  const file = path.join(OUT, 'streamed_str.xlsx');
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: true });
  const ws = wb.addWorksheet('Stream');
  ws.addRow(['Job', 'Load', 'Weight']).commit();
  const expected = [[1, ['Job', 'Load', 'Weight']]];
  for (let i = 1; i <= 300; i++) {
    ws.addRow(['J-' + (i % 7), String(i).padStart(5, '0'), i * 1.5]).commit();
    expected.push([i + 1, ['J-' + (i % 7), String(i).padStart(5, '0'), String(i * 1.5)]]);
  }
  ws.commit();
  await wb.commit();
  save('streamed_str', expectation(expected));
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  await sharedRich();
  await date1904();
  await streamedStr();
  console.log('exceljs', require('exceljs/package.json').version);
}

main().catch((e) => { console.error(e); process.exit(1); });
