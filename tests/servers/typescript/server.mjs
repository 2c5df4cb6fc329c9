#!/usr/bin/env node
// mcp-toolfuzz fixture: a small MCP server built with the official TypeScript SDK
// (@modelcontextprotocol/sdk 1.32.2, zod 4.6.7; exact pins in package.json).
// It uses McpServer.registerTool over StdioServerTransport (newline-delimited
// JSON-RPC on stdin/stdout) and is used to record how the SDK answers good and
// bad tools/call requests. Install: `npm ci`; run: `node server.mjs`.
// Tools: add, greet, explode (always throws), color (enum argument).
//
// `node server.mjs --http PORT` serves the same tools as Streamable HTTP on
// http://127.0.0.1:PORT/mcp with the SDK's StreamableHTTPServerTransport, stateful
// (randomUUID session ids), one transport + one McpServer per session, routed as in
// the SDK's examples/server/simpleStreamableHttp.js but on node:http (no express):
// POST without a session id must be an initialize request (else 400); a POST/GET/DELETE
// with an unknown session id gets 404; DELETE ends the session. Nothing goes to stdout.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

// An McpServer connects to one transport, so HTTP mode builds one per session.
function buildServer() {
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

    return server;
}

function sendJsonError(res, status, code, message) {
    if (res.headersSent) {
        res.end();
        return;
    }
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function readBody(req) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        req.on('data', chunk => chunks.push(chunk));
        req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        req.on('error', reject);
    });
}

async function serveHttp(port) {
    const sessions = new Map(); // session id -> StreamableHTTPServerTransport

    async function handle(req, res) {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        if (url.pathname !== '/mcp') {
            res.writeHead(404, { 'Content-Type': 'text/plain' });
            res.end('Not Found');
            return;
        }
        const sessionId = req.headers['mcp-session-id'];
        if (sessionId !== undefined) {
            // Known session: the SDK transport validates headers, reads and parses the body itself.
            const transport = sessions.get(sessionId);
            if (!transport) {
                sendJsonError(res, 404, -32001, 'Session not found');
                return;
            }
            await transport.handleRequest(req, res);
            return;
        }
        if (req.method !== 'POST') {
            sendJsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
            return;
        }
        // No session id: only an initialize request may open a session.
        let body;
        try {
            body = JSON.parse(await readBody(req));
        } catch {
            sendJsonError(res, 400, -32700, 'Parse error: Invalid JSON');
            return;
        }
        if (!isInitializeRequest(body)) {
            sendJsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
            return;
        }
        const transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: sid => {
                sessions.set(sid, transport);
            }
        });
        transport.onclose = () => {
            const sid = transport.sessionId;
            if (sid) sessions.delete(sid);
        };
        await buildServer().connect(transport);
        await transport.handleRequest(req, res, body);
    }

    const httpServer = createServer((req, res) => {
        handle(req, res).catch(error => {
            process.stderr.write(`error handling ${req.method} ${req.url}: ${error?.stack ?? error}\n`);
            sendJsonError(res, 500, -32603, 'Internal server error');
        });
    });
    await new Promise((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(port, '127.0.0.1', resolve);
    });
}

const httpFlag = process.argv.indexOf('--http');
if (httpFlag !== -1) {
    const port = Number(process.argv[httpFlag + 1]);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
        process.stderr.write('usage: node server.mjs [--http PORT]\n');
        process.exit(2);
    }
    await serveHttp(port);
} else {
    await buildServer().connect(new StdioServerTransport());
}
