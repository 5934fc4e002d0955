'use strict';
// Invoice arithmetic, in integer cents.

const BULK_QTY = 10;
const BULK_DISCOUNT = 500; // five off any line of ten or more

function lineTotal(line) {
  const total = line.qty * line.price;
  return line.qty >= BULK_QTY ? total - BULK_DISCOUNT : total;
}

function invoiceTotal(invoice) {
  return invoice.lines.reduce((sum, line) => sum + lineTotal(line), 0);
}

function receipt(invoice) {
  return invoice.lines.map((line) => `${line.sku} x${line.qty}: ${lineTotal(line)}`);
}

module.exports = { lineTotal, invoiceTotal, receipt };
