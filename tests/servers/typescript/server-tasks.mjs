#!/usr/bin/env node
// mcp-toolfuzz fixture: an MCP server with TASKS (the experimental tasks of protocol
// 2025-11-25), built with the official TypeScript SDK (@modelcontextprotocol/sdk 1.32.2,
// zod 4.6.7; exact pins in package.json) over StdioServerTransport (newline-delimited
// JSON-RPC on stdin/stdout). Install: `npm ci`; run: `node server-tasks.mjs`.
//
// Task support is the SDK's own: an InMemoryTaskStore (+ InMemoryTaskMessageQueue) given
// to McpServer, which then answers tasks/get, tasks/result, tasks/list and tasks/cancel
// itself, and `server.experimental.tasks.registerToolTask` for the task tools. Declared
// capability: tasks { list, cancel, requests.tools.call }.
//
// Tools (each takes one required integer `n`):
//   plain        registerTool, so execution.taskSupport "forbidden"; returns "plain n"
//   maybe        taskSupport "optional";  returns "maybe n"
//   slow         taskSupport "required";  sleeps 0.2 s, returns "slow n"
//   maybe_fails  taskSupport "optional";  its work throws
//   slow_fails   taskSupport "required";  its work throws
// A task tool's work runs after its CreateTaskResult is sent; a thrown error is stored as
// a failed task whose result is {content: [text], isError: true}, as the SDK's own example
// (examples/server/simpleStreamableHttp.js) does. Tasks are created with pollInterval 100
// ms (the store's default is 1000), which is also how often the SDK polls its own store
// when an optional tool is called without a task. Nothing is written to stdout but
// JSON-RPC, nor to stderr.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InMemoryTaskStore, InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import * as z from 'zod/v4';

const POLL_INTERVAL_MS = 100;

const server = new McpServer(
    { name: 'toolfuzz-fixture-typescript-tasks', version: '0.1.0' },
    {
        capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
        taskStore: new InMemoryTaskStore(),
        taskMessageQueue: new InMemoryTaskMessageQueue()
    }
);

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const text = value => ({ content: [{ type: 'text', text: value }] });

server.registerTool(
    'plain',
    { description: 'Returns "plain n"; no task support', inputSchema: { n: z.number().int() } },
    async ({ n }) => text(`plain ${n}`)
);

// A task tool whose work (run after the task is created) sleeps `delay` ms and then
// returns `work(n)`'s text, or fails if it throws.
function registerTaskTool(name, taskSupport, delay, work, description) {
    server.experimental.tasks.registerToolTask(
        name,
        { description, inputSchema: { n: z.number().int() }, execution: { taskSupport } },
        {
            async createTask({ n }, { taskStore, taskRequestedTtl }) {
                const task = await taskStore.createTask({ ttl: taskRequestedTtl, pollInterval: POLL_INTERVAL_MS });
                (async () => {
                    await sleep(delay);
                    let status = 'completed';
                    let result;
                    try {
                        result = text(work(n));
                    } catch (error) {
                        status = 'failed';
                        result = { ...text(error instanceof Error ? error.message : String(error)), isError: true };
                    }
                    try {
                        await taskStore.storeTaskResult(task.taskId, status, result);
                    } catch {
                        // The task was cancelled (terminal) or has expired: its result is dropped.
                    }
                })();
                return { task };
            },
            async getTask(_args, { taskId, taskStore }) {
                return await taskStore.getTask(taskId);
            },
            async getTaskResult(_args, { taskId, taskStore }) {
                return await taskStore.getTaskResult(taskId);
            }
        }
    );
}

registerTaskTool('maybe', 'optional', 0, n => `maybe ${n}`, 'Returns "maybe n"; task optional');
registerTaskTool('slow', 'required', 200, n => `slow ${n}`, 'Sleeps 0.2 s, returns "slow n"; task required');
registerTaskTool(
    'maybe_fails',
    'optional',
    0,
    n => {
        throw new Error(`maybe_fails failed for n=${n}`);
    },
    'Always throws; task optional'
);
registerTaskTool(
    'slow_fails',
    'required',
    200,
    n => {
        throw new Error(`slow_fails failed for n=${n}`);
    },
    'Sleeps 0.2 s, then throws; task required'
);

await server.connect(new StdioServerTransport());
