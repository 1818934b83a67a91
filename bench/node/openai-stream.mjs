// openai-stream.mjs: streams chat completions from the simulated relay with the official
// openai client and stamps what arrives, for the Relayscope benchmark.
//
// Copyright 2026 The Relayscope authors
// SPDX-License-Identifier: GPL-3.0-or-later
//
// Stamps are process.hrtime.bigint(), which libuv takes from CLOCK_MONOTONIC on Linux: the
// clock of the relay's "relayscope_sent_us". The "calibrate" mode lets the benchmark check
// that: it answers each line on standard input with a stamp, bracketed by the caller's clock.
//
//   node openai-stream.mjs calibrate
//   node openai-stream.mjs stream BASE_URL N     (BASE_URL ends in /v1)
//
// "stream" prints one JSON object per request: when create() was called and resolved (the
// response headers), the relay's x-relayscope-start-us, and per chunk [received_us, sent_us,
// has_content].

import OpenAI from 'openai';
import readline from 'node:readline';

function nowUs() {
  return Number(process.hrtime.bigint() / 1000n);
}

async function calibrate() {
  const lines = readline.createInterface({ input: process.stdin });

  for await (const line of lines) {
    // Stamp first: the answer's own writing is outside the bracket's middle.
    const t = nowUs();
    process.stdout.write(`${t}\n`);
  }
}

async function stream(baseURL, n) {
  const client = new OpenAI({ baseURL, apiKey: 'dummy', maxRetries: 0, timeout: 60000 });

  for (let i = 0; i < n; i++) {
    const callUs = nowUs();
    const { data, response } = await client.chat.completions
      .create({
        model: 'bench-model',
        messages: [{ role: 'user', content: 'Say something for the benchmark.' }],
        stream: true,
      })
      .withResponse();
    const headersUs = nowUs();
    const chunks = [];

    for await (const chunk of data) {
      const t = nowUs();
      const content = chunk.choices?.[0]?.delta?.content;

      chunks.push([t, chunk.relayscope_sent_us ?? -1, content ? 1 : 0]);
    }

    process.stdout.write(JSON.stringify({
      call_us: callUs,
      headers_us: headersUs,
      start_us: Number(response.headers.get('x-relayscope-start-us') ?? -1),
      chunks,
    }) + '\n');
  }
}

const [mode, ...args] = process.argv.slice(2);

if (mode === 'calibrate') {
  await calibrate();
} else if (mode === 'stream' && args.length === 2) {
  await stream(args[0], Number(args[1]));
} else {
  process.stderr.write('usage: openai-stream.mjs calibrate | stream BASE_URL N\n');
  process.exit(2);
}
