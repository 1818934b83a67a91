#!/usr/bin/env node
// validate.js FILE.har: checks a HAR file against the HAR 1.2 schema (har-validator) and the
// rules the schema cannot express: send, wait and receive are never negative, the other
// timings are -1 or more, and each entry's time is the sum of its timings (ssl is inside
// connect). Exits 0 when valid, 1 with the problems listed, 2 when the file cannot be read.
'use strict'

const fs = require('fs')
const validator = require('har-validator/lib/promise')

const path = process.argv[2]
if (!path) {
  console.error('usage: validate.js FILE.har')
  process.exit(2)
}

let har
try {
  har = JSON.parse(fs.readFileSync(path, 'utf8'))
} catch (e) {
  console.error(`${path}: ${e.message}`)
  process.exit(2)
}

const problems = []
const entries = (har && har.log && Array.isArray(har.log.entries)) ? har.log.entries : []

entries.forEach((entry, i) => {
  const t = entry.timings || {}
  for (const name of ['send', 'wait', 'receive']) {
    if (typeof t[name] !== 'number' || t[name] < 0) problems.push(`entry ${i}: timings.${name} is ${t[name]}`)
  }
  for (const name of ['blocked', 'dns', 'connect', 'ssl']) {
    if (name in t && (typeof t[name] !== 'number' || t[name] < -1)) problems.push(`entry ${i}: timings.${name} is ${t[name]}`)
  }
  const sum = ['blocked', 'dns', 'connect', 'send', 'wait', 'receive']
    .map((name) => (typeof t[name] === 'number' && t[name] > 0 ? t[name] : 0))
    .reduce((a, b) => a + b, 0)
  if (typeof entry.time !== 'number' || Math.abs(entry.time - sum) > 0.01) {
    problems.push(`entry ${i}: time ${entry.time} is not the sum of the timings (${sum})`)
  }
  if (t.ssl > 0 && t.connect >= 0 && t.ssl > t.connect + 0.001) {
    problems.push(`entry ${i}: ssl ${t.ssl} exceeds connect ${t.connect}`)
  }
})

validator.har(har).then(() => {
  if (problems.length > 0) {
    problems.forEach((p) => console.error(p))
    process.exit(1)
  }
  console.log(`${path}: valid HAR 1.2, ${entries.length} entries`)
}).catch((err) => {
  for (const e of err.errors || [err]) {
    console.error(`${e.dataPath || e.instancePath || ''} ${e.message}`)
  }
  problems.forEach((p) => console.error(p))
  process.exit(1)
})
