#!/usr/bin/env node
// mcp-toolfuzz fixture: a small MCP server built with the official TypeScript SDK
// (@modelcontextprotocol/sdk 1.32.2, zod 4.6.7; exact pins in package.json).
// It uses McpServer.registerTool over StdioServerTransport (newline-delimited
// JSON-RPC on stdin/stdout) and is used to record how the SDK answers good and
// bad tools/call requests. Install: `npm ci`; run: `node server.mjs`.
// Tools: add, greet, explode (always throws), color (enum argument).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';

const server = new McpServer({ name: 'toolfuzz-fixture-typescript', version: '0.1.0' });

server.registerTool(
    'add',
    {
        description: 'Add two integers',
        inputSchema: { a: z.number().int(), b: z.number().int() }
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] })
);

server.registerTool(
    'greet',
    {
        description: 'Greet someone by name',
        inputSchema: { name: z.string(), excited: z.boolean().optional() }
    },
    async ({ name, excited }) => ({
        content: [{ type: 'text', text: `Hello, ${name}${excited ? '!' : '.'}` }]
    })
);

server.registerTool(
    'explode',
    {
        description: 'Always fails by throwing an Error',
        inputSchema: { reason: z.string() }
    },
    async ({ reason }) => {
        throw new Error('boom: ' + reason);
    }
);

server.registerTool(
    'color',
    {
        description: 'Echo one of three colors',
        inputSchema: { name: z.enum(['red', 'green', 'blue']) }
    },
    async ({ name }) => ({ content: [{ type: 'text', text: `color: ${name}` }] })
);

await server.connect(new StdioServerTransport());
