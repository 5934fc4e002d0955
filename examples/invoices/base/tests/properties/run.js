'use strict';
// The runner protocol for this repository's properties (witness-gate README, "Properties in other languages"):
// WITNESS_LIST=1 lists them; else WITNESS_PROPERTY runs on the JSON at WITNESS_FIXTURE:
// exit 0 passes, exit 1 fails with the last line printed as the reason.
const fs = require('fs');
const { invoiceTotal, lineTotal, receipt } = require('../../src/invoices');
const { convert } = require('../../src/rates');

const PROPERTIES = {
  invoice_total_non_negative(fixture) {
    for (const invoice of fixture.invoices) {
      if (invoiceTotal(invoice) < 0 || invoice.lines.some((line) => lineTotal(line) < 0)) {
        return 'negative-total';
      }
    }
    return true;
  },

  receipt_lists_every_line(fixture) {
    return fixture.invoices.every((invoice) => receipt(invoice).length === invoice.lines.length);
  },

  converted_total_rounds_half_up(fixture) {
    const invoice = fixture.invoices[0];
    const rate = fixture.rates[invoice.currency];
    const cents = invoiceTotal(invoice);
    return convert(cents, rate) === halfUp(cents, rate) ? true : 'rounding-drift';
  },
};

function halfUp(cents, rateBasisPoints) {
  // exact, in integers: floor((cents * rate + 5000) / 10000), negative totals included
  const scaled = BigInt(cents) * BigInt(rateBasisPoints) + 5000n;
  const quotient = scaled / 10000n; // BigInt division truncates toward zero
  return Number(scaled < 0n && quotient * 10000n !== scaled ? quotient - 1n : quotient);
}

function main() {
  if (process.env.WITNESS_LIST === '1') {
    console.log(Object.keys(PROPERTIES).join('\n'));
    return 0;
  }
  const name = process.env.WITNESS_PROPERTY;
  if (!Object.hasOwn(PROPERTIES, name)) {
    console.error(`no property named ${name}; run with WITNESS_LIST=1 to list them`);
    return 2; // not a verdict: the gate calls it a transport fault
  }
  let verdict;
  try {
    verdict = PROPERTIES[name](JSON.parse(fs.readFileSync(process.env.WITNESS_FIXTURE, 'utf8')));
  } catch (err) {
    verdict = `raise:${err.name}`; // a stable reason: the error's type, never its message
  }
  if (verdict === true) {
    return 0;
  }
  console.log(verdict === false ? 'false' : String(verdict));
  return 1;
}

process.exitCode = main();
