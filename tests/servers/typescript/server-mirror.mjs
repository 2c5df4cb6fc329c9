#!/usr/bin/env node
// mcp-toolfuzz fixture: disabled tool + "mirror tool", built with the official
// TypeScript SDK (@modelcontextprotocol/sdk 1.32.2, zod 4.6.7; exact pins in
// package.json). McpServer.registerTool over StdioServerTransport
// (newline-delimited JSON-RPC on stdin/stdout). Install: `npm ci`;
// run: `node server-mirror.mjs`.
// Tools:
//   add(a, b)       control
//   secret(x)       registered, then disabled with RegisteredTool.disable()
//   mirror(output)  declares outputSchema (zod, .strict() => additionalProperties:
//                   false) and returns {content:[text JSON], structuredContent:
//                   args.output} without checking it, so the wire shows whether
//                   the SDK validates output against outputSchema.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';

const server = new McpServer({ name: 'toolfuzz-fixture-typescript-mirror', version: '0.1.0' });

server.registerTool(
    'add',
    {
        description: 'Add two integers',
        inputSchema: { a: z.number().int(), b: z.number().int() }
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] })
);

const secret = server.registerTool(
    'secret',
    {
        description: 'A tool that is registered but disabled',
        inputSchema: { x: z.number().int() }
    },
    async ({ x }) => ({ content: [{ type: 'text', text: String(x) }] })
);
secret.disable();

server.registerTool(
    'mirror',
    {
        description: 'Return `output` unchanged as structuredContent (not checked by the tool)',
        inputSchema: { output: z.unknown() },
        outputSchema: z
            .object({
                city: z.string(),
                celsius: z.number().min(-100).max(100)
            })
            .strict()
    },
    async (args) => ({
        content: [{ type: 'text', text: JSON.stringify(args.output) ?? 'undefined' }],
        structuredContent: args.output
    })
);

await server.connect(new StdioServerTransport());
