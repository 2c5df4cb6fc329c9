#!/usr/bin/env node
// mcp-toolfuzz fixture: string patterns judged by JavaScript, built with the official
// TypeScript SDK (@modelcontextprotocol/sdk 1.32.2, zod 4.6.7; exact pins in
// package.json). McpServer.registerTool over StdioServerTransport (newline-delimited
// JSON-RPC on stdin/stdout). Install: `npm ci`; run: `node server-patterns.mjs`.
// Each tool's argument is a zod string with a RegExp (no flags, as `.regex(/…/)` is usually
// written); the SDK lists it as the inputSchema's `pattern` (the RegExp's source) and refuses
// a value the RegExp does not match with an isError result ("MCP error -32602: ...").
// A valid call is echoed back. tests/test_ecma_patterns.py checks that the harness calls no
// value valid that JavaScript refuses.
// Tools:
//   phone(number)   ^[0-9]{3}-\d{4}$        digits, `$` at the very end
//   word(word)      ^\w+$                   ASCII word characters only
//   slug(slug)      ^[a-z]+(?:-[a-z]+)*$
//   email(address)  ^\S+@\S+$               ECMA-262's white space (U+FEFF is one, U+001C not)
//   code(code)      ^\d{2,6}$               ASCII digits only
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';

const server = new McpServer({ name: 'toolfuzz-fixture-typescript-patterns', version: '0.1.0' });

const tools = {
    phone: { number: z.string().regex(/^[0-9]{3}-\d{4}$/) },
    word: { word: z.string().regex(/^\w+$/) },
    slug: { slug: z.string().regex(/^[a-z]+(?:-[a-z]+)*$/) },
    email: { address: z.string().regex(/^\S+@\S+$/) },
    code: { code: z.string().regex(/^\d{2,6}$/) }
};

for (const [name, inputSchema] of Object.entries(tools)) {
    server.registerTool(
        name,
        { description: `Echo a string matching the ${name} pattern`, inputSchema },
        async args => ({ content: [{ type: 'text', text: JSON.stringify(args) }] })
    );
}

await server.connect(new StdioServerTransport());
