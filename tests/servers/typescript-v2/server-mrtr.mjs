#!/usr/bin/env node
// mcp-toolfuzz fixture: multi round-trip requests (MRTR, SEP-2322, protocol revision
// 2026-07-28) on the official TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0, zod
// 4.6.7; exact pins in package.json). Install: `npm ci`. Run: `node server-mrtr.mjs` (stdio,
// newline-delimited JSON-RPC, through `serveStdio`, legacy `initialize` served too).
//
// A tool asks for input by returning the SDK's `inputRequired({ inputRequests, requestState })`
// (embedded requests built with `inputRequired.elicit(...)` / `.createMessage(...)`) and reads
// the retry's answers with `inputResponse(ctx.mcpReq.inputResponses, key)` /
// `acceptedContent(..., key, zodSchema)`. requestState is sealed with the SDK's opt-in HMAC
// codec `createRequestStateCodec` (per-process random key, TTL 600 s, no `bind`) and verified by
// the `ServerOptions.requestState.verify` hook before the handler runs; as in the SDK's own
// `examples/mrtr/server.ts`, the tool acts on the item carried in the verified state when there
// is one (`state.item ?? item`).
//
// Tools (readOnlyHint true on each):
// - confirm(item: string): elicits {confirm: boolean} (form mode). accept+true -> "deleted
//   <item>"; accept+false, decline, cancel -> "kept <item>". An accepted content that fails the
//   schema, or a retry with no answer, asks again.
// - confirm_then_break(n: integer): the same confirmation; declares outputSchema
//   {count: integer} (required, plain JSON Schema through `fromJsonSchema`). decline/cancel ->
//   a normal text result with structuredContent {count: 0}. accept -> the bug: a content block
//   {type: "text", text: <number>}. McpServer validates structuredContent against the
//   outputSchema itself and turns a {count: "many"} into an isError result (what SEP-2145 asks),
//   so that bug is not visible on this SDK; a malformed content block passes the tool-level
//   checks and fails the SDK's own wire-schema check of the result, which it answers as a
//   JSON-RPC error -32602 "Invalid tools/call result: ..." - the SEP-2145 tool-failure rule
//   flags it.
// - plain(n: integer): no input request, returns "plain <n>".
// - ask_model(prompt: string): asks sampling/createMessage (maxTokens 50); returns "model said:
//   <text>".
//
// Hand probes (a plain JSON-RPC client over stdio, no SDK): server/discover and tools/list carry
// ttlMs 0 / cacheScope "private" (the SDK default without `cacheHints`); tools/list order is
// stable. The SDK refuses an input request the request's clientCapabilities do not cover with
// -32021 and data.requiredCapabilities ({elicitation: {form: {}}} for `{}` or url-only;
// {sampling: {}}); a bare `elicitation: {}` counts as form. requestState is "v1.<base64url JSON
// {p, exp}>.<HMAC>", signed, not encrypted (the client can read the item). Tampered, truncated,
// non-string or garbage state -> -32602 "Invalid or expired requestState". Deviations: the codec
// is not bound to the request, so the state of confirm("a") accepted on a retry of confirm("b")
// answers "deleted a"; a retry with an accept and no requestState is served (on the arguments).
// An invalid or missing answer (content {confirm: "yes"}, no content, inputResponses not an
// object, action "maybe", unknown key) is asked again. No server-to-client request on 2026-07-28.
// Under `initialize` 2025-11-25 the SDK's legacy shim turns the same input_required return into a
// real `elicitation/create` request (with _meta.progressToken 0) when the client declared
// elicitation, and an isError result when it did not. Nothing but JSON-RPC goes to stdout.
import { randomBytes } from 'node:crypto';
import {
    McpServer,
    acceptedContent,
    createRequestStateCodec,
    fromJsonSchema,
    inputRequired,
    inputResponse
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const READ_ONLY = { readOnlyHint: true };
const CONFIRMATION = z.object({ confirm: z.boolean() });
// Declared as plain JSON Schema (validated by the SDK's default AJV validator).
const COUNT_SCHEMA = fromJsonSchema({
    type: 'object',
    properties: { count: { type: 'integer' } },
    required: ['count']
});

// One key for the process: serveStdio builds a fresh McpServer per connection (and per
// discarded server/discover probe), the state is the only thing that survives between rounds.
const stateCodec = createRequestStateCodec({ key: randomBytes(32), ttlSeconds: 600 });

function text(value) {
    return { content: [{ type: 'text', text: value }] };
}

// The confirmation round shared by confirm and confirm_then_break. Returns either an
// input_required result to hand back, or {accepted, target} once the user answered.
async function confirmation(ctx, tool, item, message) {
    const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
    const state = ctx.mcpReq.requestState();
    const target = state?.item ?? item;
    if (view.kind === 'elicit') {
        if (view.action !== 'accept') return { accepted: false, target };
        const content = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', CONFIRMATION);
        if (content !== undefined) return { accepted: content.confirm === true, target };
    }
    return {
        ask: inputRequired({
            inputRequests: {
                confirm: inputRequired.elicit({ message, requestedSchema: CONFIRMATION })
            },
            requestState: await stateCodec.mint({ tool, item })
        })
    };
}

function buildServer() {
    const server = new McpServer(
        { name: 'toolfuzz-fixture-typescript-v2-mrtr', version: '0.1.0' },
        { requestState: { verify: stateCodec.verify } }
    );

    server.registerTool(
        'confirm',
        {
            description: 'Delete an item after a yes/no confirmation (form elicitation)',
            inputSchema: z.object({ item: z.string() }),
            annotations: READ_ONLY
        },
        async ({ item }, ctx) => {
            const answer = await confirmation(ctx, 'confirm', item, `Delete ${item}?`);
            if (answer.ask) return answer.ask;
            return text(`${answer.accepted ? 'deleted' : 'kept'} ${answer.target}`);
        }
    );

    server.registerTool(
        'confirm_then_break',
        {
            description: 'Asks a confirmation, then breaks on accept (malformed content block)',
            inputSchema: z.object({ n: z.number().int() }),
            outputSchema: COUNT_SCHEMA,
            annotations: READ_ONLY
        },
        async ({ n }, ctx) => {
            const answer = await confirmation(ctx, 'confirm_then_break', String(n), `Count ${n}?`);
            if (answer.ask) return answer.ask;
            if (!answer.accepted) {
                return { ...text(`kept ${answer.target}`), structuredContent: { count: 0 } };
            }
            // The bug past the input request: text must be a string.
            return { content: [{ type: 'text', text: n }], structuredContent: { count: n } };
        }
    );

    server.registerTool(
        'plain',
        {
            description: 'No input request; returns "plain n"',
            inputSchema: z.object({ n: z.number().int() }),
            annotations: READ_ONLY
        },
        async ({ n }) => text(`plain ${n}`)
    );

    server.registerTool(
        'ask_model',
        {
            description: "Asks the client's model (sampling/createMessage) and returns its answer",
            inputSchema: z.object({ prompt: z.string() }),
            annotations: READ_ONLY
        },
        async ({ prompt }, ctx) => {
            const view = inputResponse(ctx.mcpReq.inputResponses, 'model');
            if (view.kind === 'sampling') {
                const block = Array.isArray(view.result.content) ? view.result.content[0] : view.result.content;
                return text(`model said: ${block?.type === 'text' ? block.text : JSON.stringify(block)}`);
            }
            return inputRequired({
                inputRequests: {
                    model: inputRequired.createMessage({
                        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
                        maxTokens: 50
                    })
                }
            });
        }
    );

    return server;
}

const onerror = error => process.stderr.write(`mcp error: ${error?.stack ?? error}\n`);
serveStdio(() => buildServer(), { legacy: 'serve', onerror });
