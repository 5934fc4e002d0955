'use strict';
// Invoice arithmetic, in integer cents.

function lineTotal(line) {
  return line.qty * line.price;
}

function invoiceTotal(invoice) {
  return invoice.lines.reduce((sum, line) => sum + lineTotal(line), 0);
}

function receipt(invoice) {
  return invoice.lines.map((line) => `${line.sku} x${line.qty}: ${lineTotal(line)}`);
}

module.exports = { lineTotal, invoiceTotal, receipt };
