#!/usr/bin/env node
// mcp-toolfuzz fixture: a small MCP server built with the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0, @modelcontextprotocol/node 2.1.2, zod 4.6.7;
// exact pins in package.json). Install: `npm ci`.
//
// Tools: add (integers a, b; strict object -> additionalProperties false), echo (string
// text), explode (always throws), measure (has an outputSchema, returns structuredContent).
//
// `node server.mjs` serves stdio through the SDK's era-owning entry `serveStdio` from
// `@modelcontextprotocol/server/stdio` (newline-delimited JSON-RPC): the opening request
// picks the era for the whole connection (a 2026-07-28 `_meta` envelope -> modern;
// `initialize` or any claim-less message -> 2025 era).
//
// `node server.mjs --http PORT` serves Streamable HTTP on http://127.0.0.1:PORT/mcp with
// `createMcpHandler` (one McpServer from the factory per request; no sessions), wrapped
// for node:http by `toNodeHandler` from `@modelcontextprotocol/node`, with the SDK's
// localhost Host/Origin checks in front (the handler itself does none). 2025-era
// traffic is served by the SDK's stateless legacy fallback (GET/DELETE -> 405).
//
// `--modern-only` passes `legacy: 'reject'` to either entry: 2025-era requests
// (initialize included) get -32022 naming the supported modern revisions.
// `--response-mode auto|json|sse` (HTTP only, default auto) is passed through.
// Nothing but JSON-RPC goes to stdout.
import { createServer } from 'node:http';
import {
    McpServer,
    createMcpHandler,
    hostHeaderValidationResponse,
    localhostAllowedHostnames,
    localhostAllowedOrigins,
    originValidationResponse
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

// One factory backs both eras and both transports (the SDK calls it per HTTP request,
// per stdio connection, and once for a discarded server/discover probe instance).
function buildServer() {
    const server = new McpServer({ name: 'toolfuzz-fixture-typescript-v2', version: '0.1.0' });

    server.registerTool(
        'add',
        {
            description: 'Add two integers',
            inputSchema: z.object({ a: z.number().int(), b: z.number().int() }).strict()
        },
        async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] })
    );

    server.registerTool(
        'echo',
        {
            description: 'Echo the given text',
            inputSchema: z.object({ text: z.string() })
        },
        async ({ text }) => ({ content: [{ type: 'text', text }] })
    );

    server.registerTool(
        'explode',
        {
            description: 'Always fails by throwing an Error',
            inputSchema: z.object({})
        },
        async () => {
            throw new Error('boom');
        }
    );

    server.registerTool(
        'measure',
        {
            description: 'Measure a string (structured output)',
            inputSchema: z.object({ text: z.string() }),
            outputSchema: z.object({ length: z.number().int(), upper: z.string() })
        },
        async ({ text }) => {
            const output = { length: text.length, upper: text.toUpperCase() };
            return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
        }
    );

    return server;
}

function usage() {
    process.stderr.write('usage: node server.mjs [--http PORT] [--modern-only] [--response-mode auto|json|sse]\n');
    process.exit(2);
}

const argv = process.argv.slice(2);
let httpPort;
let modernOnly = false;
let responseMode = 'auto';
for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--http') {
        httpPort = Number(argv[++i]);
        if (!Number.isInteger(httpPort) || httpPort < 0 || httpPort > 65535) usage();
    } else if (argv[i] === '--modern-only') {
        modernOnly = true;
    } else if (argv[i] === '--response-mode') {
        responseMode = argv[++i];
        if (!['auto', 'json', 'sse'].includes(responseMode)) usage();
    } else {
        usage();
    }
}

const onerror = error => process.stderr.write(`mcp error: ${error?.stack ?? error}\n`);

if (httpPort === undefined) {
    serveStdio(() => buildServer(), { legacy: modernOnly ? 'reject' : 'serve', onerror });
} else {
    const mcp = createMcpHandler(() => buildServer(), {
        legacy: modernOnly ? 'reject' : 'stateless',
        responseMode,
        onerror
    });
    const guarded = {
        fetch: (request, options) =>
            hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
            originValidationResponse(request, localhostAllowedOrigins()) ??
            mcp.fetch(request, options)
    };
    const nodeHandler = toNodeHandler(guarded, { onerror });
    const httpServer = createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        if (url.pathname !== '/mcp') {
            res.writeHead(404, { 'Content-Type': 'text/plain' });
            res.end('Not Found');
            return;
        }
        nodeHandler(req, res).catch(error => {
            onerror(error);
            if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
            res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }));
        });
    });
    await new Promise((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(httpPort, '127.0.0.1', resolve);
    });
}
